# cubemate: `make run` starts the engine, `make test` runs every check.
# Each target creates the virtual environment first if it is missing or stale.

# The interpreter the environment is made from: the system's python3 where it is 3.11 or newer
# and can make one (venv, pip), else the first python3 on PATH. On these machines that first
# one is a pyenv build (no profile-guided optimisation, libpython as a shared library), on
# which the mate search ran 12 % slower and an engine start took 36 % more CPU than on Debian's
# /usr/bin/python3, and a fresh clone's `make test` 3 min 19–26 s against 2 min 47–48 s
# (docs/design.md, "Tests"). `make PYTHON=python3.13 ...` chooses another for a new .venv.
SYSTEM_PYTHON := /usr/bin/python3
ifeq ($(origin PYTHON),undefined)
PYTHON := $(shell $(SYSTEM_PYTHON) -c 'import sys, venv, pip; sys.exit(sys.version_info < (3, 11))' \
	>/dev/null 2>&1 && echo $(SYSTEM_PYTHON) || echo python3)
endif
# The compiled core (kernel/core): one extension, kernel._core, built by the install.
CORE_SOURCES := $(wildcard kernel/core/*.c)
CORE_STAMP := .venv/.core
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# The project's own modules, compiled to bytecode once so that no engine start compiles them.
SOURCES := main.py kernel client batch arena gui regress tablebase tune
# Installs into the virtual environment (the set-up below).
INSTALL = $(BIN)/uv pip install --quiet --python $(BIN)/python
# How pip installs uv, which then installs the rest.
GET_UV = install --quiet --quiet --disable-pip-version-check 'uv>=0.5'
# Whatever the environment says (these machines set PYTHONDONTWRITEBYTECODE), Python run
# from here caches the bytecode of what it imports, so that no later run compiles it again:
# compiling all of .venv at install took 11 s of a fresh set-up, most of it never imported.
export PYTHONDONTWRITEBYTECODE :=
# pytest workers: one more than the cores, since the tests wait on engine processes a good
# part of their time; `make pytest WORKERS=0` runs them in one process.
WORKERS ?= $(shell $(PYTHON) -c 'import os; print((os.cpu_count() or 1) + 1)')
# The browser tests run in a pytest of their own beside the workers: they wait on Chromium
# and the page most of the time (38 s for 22 CPU-s alone), and the other tests fill the waits.
# Two workers, each module group (`xdist_group`) on one with its browser: one pytest took
# 262 s for 68 CPU-s under the others' load, two 124 s (issue 60).
BROWSER_TESTS := tests/test_gui.py tests/test_gui_game.py tests/test_gui_board3d.py
# What npm ci leaves once three.js is installed (the rule near `gui`).
THREE := gui/node_modules/.package-lock.json

.PHONY: run test lint typecheck pytest pytest-browser pytest-others regress bench stress sweep gui clean batch arena ladder bytecode sanitize tablebases tablebases-raumschach

# Silent, so that stdout carries nothing but the engine's responses.
# At a terminal the engine takes the foreground itself, so that Ctrl-C ends it, not make.
run: $(STAMP) bytecode
	@CUBEMATE_OWN_TERMINAL=1 $(BIN)/python main.py

# mypy runs beside the tests, its output whole lines; on two cores a lone mypy would leave one
# idle. The regression suites are among the tests (tests/test_regress.py runs each shipped one).
test: $(STAMP) bytecode lint
	@$(MAKE) --no-print-directory --output-sync=line -j3 typecheck pytest-browser pytest-others

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

# Every test: the browser tests and the others side by side.
pytest: $(STAMP) bytecode
	@$(MAKE) --no-print-directory --output-sync=line -j2 pytest-browser pytest-others

pytest-others: $(STAMP) bytecode
	$(BIN)/pytest -q -n $(WORKERS) --dist loadgroup $(BROWSER_TESTS:%=--ignore=%)

# Its own cache folder, so that each pytest keeps its own last failures for --lf.
pytest-browser: $(STAMP) bytecode $(THREE)
	$(BIN)/pytest -q -n 2 --dist loadgroup -o cache_dir=.pytest_cache/browser $(BROWSER_TESTS)

# Every suite in regress/, or only those named: make regress SUITES="a.tst b.tst".
regress: $(STAMP) bytecode
	$(BIN)/python -m regress $(SUITES)

bench: $(STAMP) bytecode
	@$(INSTALL) -e '.[bench]' >&2
	$(BIN)/python -m bench

# Every seeded sweep of the suite ten times larger (docs/design.md, "Tests"): an hour or more.
sweep: $(STAMP) bytecode
	CUBEMATE_SWEEP=$${CUBEMATE_SWEEP:-10} $(BIN)/pytest -q -n $(WORKERS) --dist loadgroup

# The compiled core (the mate search, the player's search, the tables' solver) under AddressSanitizer and UBSan (docs/design.md, "Tests"): a copy
# of the tree in build/sanitize, the extension built there instrumented, and the tests that
# drive it (and the engine processes they start) run there; any report ends the run.
SANITIZE := build/sanitize
SANITIZERS := $$(gcc -print-file-name=libasan.so) $$(gcc -print-file-name=libubsan.so)
sanitize: $(STAMP)
	rm -rf $(SANITIZE) && mkdir -p $(SANITIZE)
	cp -r $(SOURCES) tests bench pyproject.toml engine_config.toml $(SANITIZE)/
	find $(SANITIZE) -name '*.so' -delete
	gcc -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -shared -fPIC \
		-I$$($(BIN)/python -c 'import sysconfig; print(sysconfig.get_paths()["include"])') \
		-Ikernel/core $(CORE_SOURCES) -o $(SANITIZE)/kernel/_core$$($(BIN)/python -c \
		'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
	cd $(SANITIZE) && LD_PRELOAD="$(SANITIZERS)" ASAN_OPTIONS=detect_leaks=0,abort_on_error=1 \
		UBSAN_OPTIONS=print_stacktrace=1,halt_on_error=1 $(CURDIR)/$(BIN)/python -m pytest -q \
		-p no:cacheprovider -n $(WORKERS) tests/test_proofcore.py tests/test_proofnumber.py \
		tests/test_helpcore.py tests/test_mate.py tests/test_interrupt.py tests/test_playercore.py \
		tests/test_genmove.py tests/test_tablebase.py tests/test_tablebase_engine.py \
		tests/test_tablebase_raumschach.py tests/test_tablebase_compact.py tests/test_tablebase_lean.py \
		tests/test_raumschach_core.py tests/test_passed_pawns.py tests/test_mate_guard.py \
		tests/test_kept_table.py

# The signal stress tests of the suite, run for a minute each instead of a few seconds.
stress: $(STAMP) bytecode
	CUBEMATE_STRESS_SECONDS=$${CUBEMATE_STRESS_SECONDS:-60} $(BIN)/pytest -q -s tests/test_signals.py

# Batch work: make batch ARGS="positions.txt -o out.jsonl --ask status"
batch: $(STAMP) bytecode
	@$(BIN)/python -m batch $(ARGS)

# A match: make arena ARGS='"python main.py" random --size 4 --games 20' (docs/arena.md)
arena: $(STAMP) bytecode
	@$(BIN)/python -m arena $(ARGS)

# The strength ladder and the evaluation experiments (docs/arena.md): every match not yet in
# docs/ladder/ is played, or resumed, then the tables are printed. Hours on two cores;
# ARGS="--table" only reads, "--docs" rewrites the tables of the README and docs/arena.md,
# "--sizes 4 --part ladder" does a part.
ladder: $(STAMP) bytecode
	@$(BIN)/python -m bench.ladder $(ARGS)

# Every endgame table of 3 and 4 pieces on n = 3, 4 and 5 into $(TABLES) (docs/tablebases.md):
# one process, smaller boards first; stopped, it goes on from the tables already written.
# The engine reads them with `--tablebases tables` (or [tablebase] path = "tables").
TABLES ?= tables
tablebases: $(STAMP) bytecode
	@for n in 3 4 5; do $(BIN)/python -m tablebase build --size $$n --pieces 4 --out $(TABLES) \
		|| exit 1; done

# Raumschach's pawnless endings of 3 and 4 pieces on 5×5×5 (its bishop on the flat diagonals,
# the unicorn) into $(TABLES) beside the cube's, named apart (KBUK.n5.raumschach.cubetb).
tablebases-raumschach: $(STAMP) bytecode
	@$(BIN)/python -m tablebase build --variant raumschach --size 5 --pieces 4 --out $(TABLES)

# `make gui PORT=N` picks the port; PORT=0 takes any free one (the address is printed).
PORT ?= 8765
# make gui TABLEBASES=tables: the page shows the endgame tables' verdict under the board.
gui: $(STAMP) bytecode $(THREE)
	$(BIN)/python -m gui.server --port $(PORT) $(if $(TABLEBASES),--tablebases $(TABLEBASES))

# three.js for the page's 3D view, from npm as gui/package-lock.json pins it (docs/gui.md): once,
# then offline; again only when the lock changes. Without npm, or offline on a first run, the
# page says so and keeps the layer view, and the browser tests of the 3D view skip. (THREE is
# set at the top: a rule's prerequisites are read where the rule stands.)
$(THREE): gui/package.json gui/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		npm ci --prefix gui --no-audit --no-fund --loglevel=error >&2 && touch $@ \
		|| echo "cubemate: npm ci failed: the page's 3D view needs three.js (npm ci --prefix gui)" >&2; \
	else echo "cubemate: no npm: the page's 3D view needs three.js (apt-get install npm; make gui)" >&2; fi

# Quick when nothing changed: only sources newer than their bytecode are compiled again.
bytecode: $(STAMP) $(CORE_STAMP)
	@$(BIN)/python -m compileall -q $(SOURCES) >&2

# Reinstall whenever the project's metadata or the compiled search's source changes (the
# install builds it into kernel/). Progress goes to stderr, so that
# `make run` piped into a GUI or a script shows it nothing but protocol. uv installs what pip
# would, several times faster. The environment starts without pip (ensurepip alone took 8 s
# here) and gets uv from the interpreter's own pip; where that pip is missing or too old for
# --python, from pip installed into the environment after all.
$(STAMP): pyproject.toml
	@echo "cubemate: setting up $(VENV) ..." >&2
	@test -x $(BIN)/python || $(PYTHON) -m venv --without-pip $(VENV) >&2
	@test -x $(BIN)/uv || $(PYTHON) -m pip --python $(BIN)/python $(GET_UV) >/dev/null 2>&1 \
		|| { $(BIN)/python -m ensurepip --default-pip >&2 && $(BIN)/python -m pip $(GET_UV) >&2; }
	@$(INSTALL) -e '.[test,dask]' >&2
	@touch $(STAMP)

# The compiled core, built again in place whenever its C is newer than the core built: the
# editable install builds it once, and uv's cache would keep that build. The old one is
# removed first, so that a core that no longer compiles is never left standing: with a C
# compiler that must not happen (the build's log is shown and make stops); without one the
# searches run in Python.
$(CORE_STAMP): $(STAMP) $(CORE_SOURCES) kernel/core/core.h
	@case "$$(ls -t kernel/_core.*.so $(CORE_SOURCES) kernel/core/core.h 2>/dev/null | head -1)" \
	in kernel/_core.*) touch $@; exit 0;; esac; \
	rm -f kernel/_core.*.so build/lib.*/kernel/_core.*.so; \
	$(BIN)/python -c 'from setuptools import setup; setup()' build_ext --inplace \
		>$(VENV)/core-build.log 2>&1; \
	if ! $(BIN)/python -c 'import kernel._core' 2>/dev/null; then \
		if command -v "$${CC:-cc}" >/dev/null 2>&1; then \
			cat $(VENV)/core-build.log >&2; \
			echo "cubemate: the compiled core (kernel/core) did not build: see above" >&2; exit 1; \
		fi; \
		echo "cubemate: no C compiler: every search runs in Python" >&2; \
	fi; \
	touch $@

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis *.egg-info build
	rm -f kernel/_core.*.so
	find $(SOURCES) tests bench -name __pycache__ -type d -prune -exec rm -rf {} +
