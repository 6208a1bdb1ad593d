"""The regression suites in regress/: each passes, each agrees with the brute force, and the
runner reports what it must (failures, expected failures, unexpected passes, errors)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from client.engine import MAIN
from kernel.config import EngineConfig
from regress.runner import (
    ROOT,
    Outcome,
    Step,
    SuiteError,
    SuiteResult,
    default_engine,
    parse_suite,
    run_suite,
    shipped_suites,
    summary,
)
from tests import raumschach_reference as raumschach
from tests import reference
from tests.cases import REFERENCE_CASES

SUITES = shipped_suites()
#: Raumschach's levels A ... E as the engine names them.
LEVELS = ("I", "II", "III", "IV", "V")
#: Generous: the machine may be loaded; nothing here is timed.
TIMEOUT = 300.0


def test_the_shipped_suites_are_there() -> None:
    names = {path.name for path in SUITES}
    assert {"reference.tst", "rules.tst", "protocol.tst"} <= names
    assert {"moves.tst", "perft.tst", "mate.tst", "raumschach.tst"} <= names


@pytest.mark.parametrize("path", SUITES, ids=[path.name for path in SUITES])
def test_every_shipped_suite_passes(path: Path, tmp_path: Path) -> None:
    result = run_suite(path, default_engine(str(tmp_path)), TIMEOUT)
    assert result.report_lines() == []
    assert result.outcomes, "a suite without tests"


# --- the suites agree with the brute force ---------------------------------------------------


class ReferenceEngine:
    """Answer a suite's commands with tests/reference.py, where it has the answer."""

    def __init__(self) -> None:
        self.position: reference.Position | None = None
        self.history: list[reference.Position] = []

    def set_board(self, args: list[str]) -> None:
        """Take a canonical board and an optional side; forget a board in any other form."""
        self.history.clear()
        side = reference.WHITE
        if len(args) > 1 and args[-1] in ("w", "b", "white", "black"):
            side = reference.parse_side(args[-1])
            args = args[:-1]
        try:
            self.position = reference.parse_board(args[-1], side=side)
        except ValueError:
            self.position = None

    def answer(self, name: str, args: list[str]) -> str | None:
        """Return the reference's answer; raise reference.Refused; None when it has none."""
        position = self.position
        if name == "set_board":
            self.set_board(args)
            return "" if self.position is not None else None
        if position is None:
            return None
        if name == "undo":
            if not self.history:
                raise reference.Refused("cannot undo")
            self.position = self.history.pop()
            return ""
        if name == "play":
            after = reference.play(position, args[0])
            self.history.append(position)
            self.position = after
            return ""
        if name == "get_board":
            return reference.board_text(position)
        if name in ("status", "checkers", "legal_moves", "checkmate"):
            analysis = reference.analyse(position)
            return {
                "status": analysis.status,
                "checkers": " ".join(analysis.checkers),
                "legal_moves": " ".join(analysis.legal_moves),
                "checkmate": "true" if analysis.checkmate else "false",
            }[name]
        if name == "perft":
            depth = int(args[0])
            if depth < 0:
                raise reference.Refused("D must be 0 or more")
            return str(reference.perft(position, depth))
        if name == "mate_in":
            return " ".join(reference.mate_in(position, int(args[0])))
        if name == "mate_search":
            most = int(args[0]) if args else EngineConfig().max_mate_moves
            for depth in range(1, most + 1):
                keys = reference.mate_in(position, depth)
                if keys:
                    return f"{depth} {' '.join(keys)}"
            raise reference.Refused(f"no mate within {most} moves")
        return None


def checked_tests(path: Path) -> int:
    """Hold every test of a suite the reference can answer to it; return how many."""
    engine = ReferenceEngine()
    checked = 0
    for step in parse_suite(path.read_text(encoding="utf-8"), path.name):
        words = step.command.split()
        if step.number is not None:
            words = words[1:]
        name, args = words[0], words[1:]
        try:
            answer = engine.answer(name, args)
        except (reference.Refused, ValueError):
            if step.number is None:
                raise
            assert step.expected_failure, f"{path.name} {step.number}: the reference refuses it"
            checked += 1
            continue
        if step.number is None or answer is None:
            continue
        if name == "solution":
            continue  # checked below, through reference.check_solution
        assert not step.expected_failure, f"{path.name} {step.number}: the reference answers"
        assert step.matches(answer), f"{path.name} {step.number}: the reference says {answer!r}"
        checked += 1
    return checked


@pytest.mark.parametrize(
    "name", ["reference.tst", "rules.tst", "moves.tst", "perft.tst", "mate.tst"]
)
def test_the_expected_answers_are_the_brute_forces(name: str) -> None:
    assert checked_tests(ROOT / "regress" / name) >= 8


class RaumschachReference:
    """Answer regress/raumschach.tst's commands with tests/raumschach_reference.py; None where
    it has no answer (a cube game, a command it does not know). A refusal is RuntimeError."""

    #: A move as Raumschach's books write cells, level letter first: `PEa4xEb5=q`.
    LETTER_MOVE = re.compile(r"([A-Za-z])([A-E])([a-e][1-5])([-x])([A-E])([a-e][1-5])(=.)?")

    def __init__(self) -> None:
        self.position: raumschach.Position | None = raumschach.start_position()
        self.history: list[raumschach.Position] = []

    def move(self, text: str) -> raumschach.Move:
        """The legal move a text names, in the engine's spelling or the books'."""
        assert self.position is not None
        letters = self.LETTER_MOVE.fullmatch(text)
        if letters is not None:
            piece, level, cell, sign, to_level, to_cell, promotion = letters.groups()
            levels = {letter: numeral for letter, numeral in zip("ABCDE", LEVELS, strict=True)}
            text = f"{piece}{cell}({levels[level]}){sign}{to_cell}({levels[to_level]})"
            text += promotion or ""
        for move in raumschach.legal_moves(self.position):
            if raumschach.move_text(self.position, move).lower() == text.lower():
                return move
        raise RuntimeError(f"illegal move {text}")

    def answer(self, name: str, args: list[str]) -> str | None:
        if name in ("variant", "new_game"):
            cube = bool(args) and args[-1] != "raumschach"
            self.position, self.history = (None if cube else raumschach.start_position()), []
            return "raumschach" if name == "variant" and not args else ""
        position = self.position
        if position is None:
            return None
        if name == "set_board":
            self.position, self.history = raumschach.parse_board_text(" ".join(args)), []
            return ""
        if name == "play":
            self.history.append(position)
            self.position = raumschach.play(position, self.move(args[0]))
            return ""
        if name == "undo":
            self.position = self.history.pop()
            return ""
        if name == "get_board":
            return raumschach.board_text(position) + (" b" if position.side == "b" else "")
        if name == "legal_moves":
            return " ".join(raumschach.legal_move_texts(position))
        if name == "status":
            return raumschach.status(position)
        if name == "result":
            mated = raumschach.status(position) == "checkmate"
            return ("0-1" if position.side == "w" else "1-0") + " (checkmate)" if mated else None
        if name == "mate_in" and args == ["1"]:
            mates = [
                raumschach.move_text(position, move)
                for move in raumschach.legal_moves(position)
                if raumschach.status(raumschach.play(position, move)) == "checkmate"
            ]
            return " ".join(sorted(mates))
        if name == "perft" and (int(args[0]) < 3 or len(position.pieces) < 10):
            return str(raumschach.perft(position, int(args[0])))
        return None


def test_the_raumschach_suite_is_its_brute_forces() -> None:
    """Every answer of regress/raumschach.tst the brute force can give is its answer (the
    start's perft 3 is held to it in tests/test_raumschach.py); each refusal is the engine's
    (below), and the refused moves are none of the brute force's."""
    engine = RaumschachReference()
    checked = 0
    for step in parse_suite((ROOT / "regress" / "raumschach.tst").read_text(encoding="utf-8")):
        words = step.command.split()[1 if step.number is not None else 0 :]
        if step.expected_failure:
            if words[0] == "play" and engine.position is not None:
                with pytest.raises(RuntimeError, match="illegal move"):
                    engine.move(words[1])
                checked += 1
            continue
        answer = engine.answer(words[0], words[1:])
        if step.number is not None and answer is not None:
            assert step.matches(answer), f"test {step.number}: the brute force says {answer!r}"
            checked += 1
    assert checked >= 40


def test_the_raumschach_suite_refuses_as_the_engine_does(tmp_path: Path) -> None:
    """A suite's expected failure passes on any `?`; here each refusal's text is the one the
    suite writes, asked of the engine in the suite's order."""
    steps = parse_suite((ROOT / "regress" / "raumschach.tst").read_text(encoding="utf-8"))
    lines = [step.command.split(maxsplit=1)[1] if step.number else step.command for step in steps]
    answered = subprocess.run(
        [*default_engine(str(tmp_path))], input="\n".join(lines) + "\n", capture_output=True,
        text=True, cwd=ROOT, timeout=TIMEOUT, check=False,
    ).stdout.split("\n\n")  # fmt: skip
    refusals = [
        (step, answer) for step, answer in zip(steps, answered, strict=False)
        if step.expected_failure
    ]  # fmt: skip
    assert len(refusals) == 10
    for step, answer in refusals:
        assert answer.startswith("? "), f"test {step.number}: {answer!r}"
        assert step.matches(answer[2:].strip()), f"test {step.number}: {answer!r}"


def test_the_solution_trees_are_correct_mates() -> None:
    # The suite fixes one tree; the reference confirms it is a forced mate of the keys.
    text = (ROOT / "regress" / "mate.tst").read_text(encoding="utf-8")
    board = "[###,#k#,#b#],[##b,###,###],[r##,##K,###]"
    position = reference.parse_board(board, side=reference.parse_side("b"))
    tree = next(
        step.pattern for step in parse_suite(text) if step.command.startswith("12 solution 2")
    )
    assert tree is not None
    written = tree.replace("\\n", "\n").replace("\\", "")
    assert reference.check_solution(position, 2, written) == []


def test_the_reference_suite_holds_the_ten_cases() -> None:
    steps = parse_suite((ROOT / "regress" / "reference.tst").read_text(encoding="utf-8"))
    boards = [step.command.split()[-1] for step in steps if step.command.startswith("set_board")]
    assert boards == [case.board for case in REFERENCE_CASES]
    verdicts = [step.pattern for step in steps if step.command.endswith(" checkmate")]
    assert verdicts == [str(case.mated).lower() for case in REFERENCE_CASES]


# --- reading suites ----------------------------------------------------------------------------


def test_parse_suite_reads_tests_set_up_and_patterns() -> None:
    steps = parse_suite(
        "# a comment\n"
        "\n"
        "boardsize 2\n"
        "  12\tname  \n"
        "#? [cube.*]\n"
        "13 checkmate\n"
        "#? [!true]*\n"
        "14 clear_board\n"
        "#? []\n"
        "15 version\n"
        "16 name\n"
        "#?\n"
    )
    assert steps == [
        Step(3, "boardsize 2", None),
        Step(4, "12 name", 12, "cube.*"),
        Step(6, "13 checkmate", 13, "!true", expected_failure=True),
        Step(8, "14 clear_board", 14, ""),
        Step(10, "15 version", 15),
        Step(11, "16 name", 16),
    ]


@pytest.mark.parametrize(
    "text, message",
    [
        ("#? [true]\n", "suite line 1: '#?' must come right after a numbered test"),
        ("name\n#? [x]\n", "suite line 2: '#?' must come right after a numbered test"),
        ("1 name\n\n#? [x]\n", "suite line 3: '#?' must come right after"),
        ("1 name\n#? true\n", "suite line 2: write the expected answer as '#? [REGEX]'"),
        ("1 name\n#? [(]\n", "suite line 2: bad regular expression '('"),
    ],
)
def test_parse_suite_refuses_malformed_lines(text: str, message: str) -> None:
    with pytest.raises(SuiteError) as error:
        parse_suite(text)
    assert str(error.value).startswith(message)


@pytest.mark.parametrize(
    "pattern, response, matches",
    [
        ("true", "true", True),
        ("true", "true false", False),  # the whole response, not a part of it
        ("true|false", "false", True),
        ("!true", "false", True),
        ("!true", "true", False),
        ("", "", True),
        ("", "x", False),
        ("a\\nb.*", "a\nb\nc", True),  # several lines, `.` across them
        ("^b$", "a\nb", False),
        ("Ka1\\(I\\)", "Ka1(I)", True),
    ],
)
def test_a_pattern_matches_the_whole_response(pattern: str, response: str, matches: bool) -> None:
    assert Step(1, "1 x", 1, pattern).matches(response) is matches


def test_outcomes_are_described_on_one_line() -> None:
    step = Step(1, "12 checkmate", 12, "true")
    assert Outcome(step, True, "false", False).describe() == (
        "12 FAILED: expected 'true', got 'false'"
    )
    assert Outcome(step, False, "no white king", False).describe() == (
        "12 FAILED: expected 'true', got '? no white king'"
    )
    assert Outcome(Step(1, "3 x", 3), True, "a\nb", False).describe() == "3 FAILED: got 'a\\nb'"
    starred = Step(1, "13 checkmate", 13, "true", expected_failure=True)
    assert Outcome(starred, True, "true", True).describe() == "13 PASSED unexpectedly"


def test_the_summary_counts_each_kind() -> None:
    passing = Step(1, "1 x", 1, "a")
    starred = Step(2, "2 x", 2, "a", expected_failure=True)
    result = SuiteResult(Path("a.tst"))
    result.outcomes = [
        Outcome(passing, True, "a", True),
        Outcome(passing, True, "b", False),
        Outcome(starred, True, "b", False),
        Outcome(starred, True, "a", True),
    ]
    result.errors = ["line 3: set-up command 'x' failed"]
    assert summary([result, SuiteResult(Path("b.tst"))]) == (
        "2 passed, 1 failed, 1 expected failure, 1 unexpected pass, 1 error, in 2 files"
    )


# --- the runner, end to end --------------------------------------------------------------------

FAILING_SUITE = """\
# one of each result
set_board [#q,##],[##,K#]
1 name
#? [cubemate]
2 get_board
#? [\\[#q,##\\],\\[##,K#\\]]
3 checkmate
#? [true]
4 checkers
#? [!qb2.*]
5 name
#? [cubemate]*
6 castle
#? [unknown command]*
7 castle
#? [!true]
set_board nonsense
8 status
#? [check|checkmate]
"""


def run_regress(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "regress", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


def test_the_runner_reports_each_unexpected_result(tmp_path: Path) -> None:
    suite = tmp_path / "failing.tst"
    suite.write_text(FAILING_SUITE)
    done = run_regress(str(suite))
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    # A refusal fails even a negated pattern; its wording is the kernel's, so only its start
    # (the set-up's refusal names the pieces, which the variants add to).
    assert lines[3].startswith("7 FAILED: expected '!true', got '? unknown command")
    refusal = "line 17: set-up command 'set_board nonsense' failed: '? invalid board: unknown "
    assert lines[4].startswith(refusal + "character 'o' in row 1 'nonsense' (pieces are ")
    assert [*lines[:3], *lines[5:]] == [
        "3 FAILED: expected 'true', got 'false'",
        "4 FAILED: expected '!qb2.*', got 'qb2(II)'",
        "5 PASSED unexpectedly",
        "4 passed, 3 failed, 1 expected failure, 1 unexpected pass, 1 error, in 1 file",
    ]


def test_the_runner_names_the_file_when_running_several(tmp_path: Path) -> None:
    passing = tmp_path / "passing.tst"
    passing.write_text("1 name\n#? [cubemate]\n2 castle\n#? []*\n")
    failing = tmp_path / "failing.tst"
    failing.write_text("1 protocol_version\n#? [1]\n")
    done = run_regress(str(passing), str(failing))
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        f"{failing} 1 FAILED: expected '1', got '2'",
        "1 passed, 1 failed, 1 expected failure, 0 unexpected passes, 0 errors, in 2 files",
    ]
    done = run_regress(str(passing))
    assert done.returncode == 0
    assert done.stdout.splitlines() == [
        "1 passed, 0 failed, 1 expected failure, 0 unexpected passes, 0 errors, in 1 file"
    ]


def test_the_runner_refuses_a_missing_suite(tmp_path: Path) -> None:
    done = run_regress(str(tmp_path / "absent.tst"))
    assert done.returncode == 2
    assert "no such suite" in done.stderr


def test_an_engine_that_forgets_ids_or_dies_is_an_error(tmp_path: Path) -> None:
    # A made-up engine: answers without the id, then exits at its third command.
    fake = tmp_path / "fake_engine.py"
    fake.write_text(
        "import sys\n"
        "for count, line in enumerate(sys.stdin):\n"
        "    if count == 2:\n"
        "        break\n"
        "    sys.stdout.write('= ok\\n\\n')\n"
        "    sys.stdout.flush()\n"
    )
    suite = tmp_path / "ids.tst"
    suite.write_text("1 name\n#? [ok]\nname\n")
    result = run_suite(suite, [sys.executable, str(fake)], TIMEOUT)
    assert result.errors[0] == "line 1: '1 name' was answered with id None, expected 1"
    assert len(result.outcomes) == 1 and result.outcomes[0].passed
    suite.write_text("name\nname\n3 name\n4 name\n")
    result = run_suite(suite, [sys.executable, str(fake)], TIMEOUT)
    assert result.errors == ["line 3: '3 name': the engine closed its output; exit code 0"]
    assert result.outcomes == [] and not result.clean


# --- the engine runs in the suite's folder, as under gogui-regress ----------------------------

RECORDS_SUITE = """\
1 loadgame game-records.txt end 2
#? []
2 result
#? [1/2-1/2 \\(stalemate\\)]
"""


def test_the_shipped_suites_pass_from_any_folder(tmp_path: Path) -> None:
    done = run_regress(cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.endswith(f" 0 errors, in {len(SUITES)} files\n")


def test_a_suite_names_its_files_from_its_own_folder(tmp_path: Path) -> None:
    suites, elsewhere = tmp_path / "suites", tmp_path / "elsewhere"
    suites.mkdir()
    elsewhere.mkdir()
    shutil.copy(ROOT / "regress" / "game-records.txt", suites)
    # A file of the same name in the current folder is not the one read.
    (elsewhere / "game-records.txt").write_text("not a record\n")
    suite = suites / "records.tst"
    suite.write_text(RECORDS_SUITE)
    passed = "2 passed, 0 failed, 0 expected failures, 0 unexpected passes, 0 errors, in 1 file"
    for name, cwd in [("records.tst", suites), ("../suites/records.tst", elsewhere)]:
        done = run_regress(name, cwd=cwd)
        assert (done.returncode, done.stdout.splitlines()) == (0, [passed]), done.stdout


def test_the_engines_program_is_found_from_here_its_arguments_from_the_suites_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As gogui-regress: a program named from the current folder is made absolute.
    fake = tmp_path / "fake_engine.py"
    fake.write_text(
        f"#!{sys.executable}\n"
        "import sys\n"
        "for line in sys.stdin:\n"
        "    sys.stdout.write('=1 ok\\n\\n')\n"
        "    sys.stdout.flush()\n"
    )
    fake.chmod(0o755)
    suites = tmp_path / "suites"
    suites.mkdir()
    suite = suites / "one.tst"
    suite.write_text("1 name\n#? [ok]\n")
    monkeypatch.chdir(tmp_path)
    assert run_suite(suite, ["./fake_engine.py"], TIMEOUT).clean
    # Its arguments reach it unchanged: a relative script is looked for beside the suite.
    result = run_suite(suite, [sys.executable, "fake_engine.py"], TIMEOUT)
    assert result.outcomes == [] and len(result.errors) == 1
    # The engine dies at once: the line is refused by a closed pipe or met by a closed output,
    # whichever comes first.
    assert result.errors[0].startswith(
        (
            "line 1: '1 name': the engine closed its output",
            "line 1: '1 name': the engine stopped reading its input",
        )
    ), result.errors[0]
    assert "fake_engine.py" in result.errors[0]
    assert result.errors[0].endswith(f" (started in {suites})")


# --- the suites under GoGui's gogui-regress ---------------------------------------------------

#: The gogui-regress.jar of a GoGui installed by hand: GoGui is neither on PyPI nor in Debian.
GOGUI_JAR = "CUBEMATE_GOGUI_JAR"


def gogui_regress() -> list[str]:
    """Return the command that starts GoGui's gogui-regress; skip when there is none."""
    jar = os.environ.get(GOGUI_JAR)
    java = shutil.which("java")
    if jar:
        if not Path(jar).is_file():
            pytest.fail(f"{GOGUI_JAR}={jar!r}: no such file")
        if java is None:
            pytest.skip(f"{GOGUI_JAR} is set, but no java is on PATH")
        return [java, "-jar", jar]
    program = shutil.which("gogui-regress")
    if program is None:
        pytest.skip(
            f"GoGui's gogui-regress is not installed: put it on PATH or set {GOGUI_JAR} "
            "to its gogui-regress.jar (docs/regress.md)"
        )
    if java is None and not os.environ.get("GOGUI_JAVA_HOME"):
        pytest.skip("gogui-regress is on PATH, but no java is (nor GOGUI_JAVA_HOME)")
    return [program]


def test_every_shipped_suite_passes_under_gogui_regress(tmp_path: Path) -> None:
    command = gogui_regress()
    html = tmp_path / "html"
    # GoGui splits the engine's command line at spaces, respecting double quotes.
    engine = f'"{sys.executable}" "{MAIN}" --log-dir "{tmp_path / "logs"}"'
    done = subprocess.run(
        [*command, "-output", str(html), engine, *map(str, SUITES)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    # Each unexpected result is a line on stdout; none, and exit status 0.
    assert (done.returncode, done.stdout) == (0, ""), done.stdout + done.stderr
    steps = [step for path in SUITES for step in parse_suite(path.read_text(encoding="utf-8"))]
    tests = [step for step in steps if step.number is not None]
    starred = sum(step.expected_failure for step in tests)
    # Tests, unexpected failures, expected failures, unexpected passes, passes, other errors
    # (a set-up command answered with `?`), then the times.
    counts = (html / "summary.dat").read_text().splitlines()[1].split("\t")[:6]
    assert [int(count) for count in counts] == [len(tests), 0, starred, 0, len(tests) - starred, 0]
