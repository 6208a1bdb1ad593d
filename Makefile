# cubemate: `make run` starts the engine, `make test` runs every check.
# Each target creates the virtual environment first if it is missing or stale.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test lint typecheck pytest regress bench stress gui clean batch arena

# Silent, so that stdout carries nothing but the engine's responses.
# At a terminal the engine takes the foreground itself, so that Ctrl-C ends it, not make.
run: $(STAMP)
	@CUBEMATE_OWN_TERMINAL=1 $(BIN)/python main.py

test: $(STAMP) lint typecheck pytest regress

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/pytest -q

# Every suite in regress/, or only those named: make regress SUITES="a.tst b.tst".
regress: $(STAMP)
	$(BIN)/python -m regress $(SUITES)

bench: $(STAMP)
	@$(BIN)/python -m pip install --quiet -e '.[bench]' >&2
	$(BIN)/python -m bench

# The signal stress tests of the suite, run for a minute each instead of a few seconds.
stress: $(STAMP)
	CUBEMATE_STRESS_SECONDS=$${CUBEMATE_STRESS_SECONDS:-60} $(BIN)/pytest -q -s tests/test_signals.py

# Batch work: make batch ARGS="positions.txt -o out.jsonl --ask status"
batch: $(STAMP)
	@$(BIN)/python -m kernel.batch $(ARGS)

# A match: make arena ARGS='"python main.py" random --size 4 --games 20' (docs/arena.md)
arena: $(STAMP)
	@$(BIN)/python -m arena $(ARGS)

# `make gui PORT=N` picks the port; PORT=0 takes any free one (the address is printed).
PORT ?= 8765
gui: $(STAMP)
	$(BIN)/python -m gui.server --port $(PORT)

# Reinstall whenever the project's metadata changes. Progress goes to stderr, so that
# `make run` piped into a GUI or a script shows it nothing but protocol.
$(STAMP): pyproject.toml
	@echo "cubemate: setting up $(VENV) ..." >&2
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV) >&2
	@$(BIN)/python -m pip install --quiet --upgrade pip >&2
	@$(BIN)/python -m pip install --quiet -e '.[test]' >&2
	@touch $(STAMP)

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis *.egg-info
