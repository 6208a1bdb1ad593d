"""Run regression suites in the GTP `.tst` format, as GNU Go's scripts and gogui-regress do.

A suite is a text file of protocol lines. A line starting with a number and a space is a
test; any other command sets up. The line right after a test may hold its expected answer,
`#? [REGEX]`: the test passes when the whole trimmed response text (after `=` and the id)
matches REGEX, which may span lines; `#? [!REGEX]` passes when it does not match; a trailing
`*` (`#? [REGEX]*`) marks an expected failure. A `?` response always fails. A test without a
`#?` line passes unless it is answered with `?`. Other lines starting with `#` are comments.
Each match is bounded in time (regress/matching.py): a pattern that takes longer is an error.

Each suite gets a fresh engine (client/engine.py), started in the suite's own folder as
gogui-regress starts it, so that a file a suite names (`loadgame records.txt`) is found beside
the suite under either runner, whatever the current folder. Every unexpected result is
printed on one line, then a summary; the exit status is 0 only when nothing unexpected
happened.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from client.engine import ENGINE_DEFAULT, TEMPORARY, Engine, EngineDied, Failure, Logs, command_line
from regress.matching import MATCH_SECONDS, Matcher, MatchFailed, pattern_matches

ROOT = Path(__file__).resolve().parent.parent
SUITE_FOLDER = ROOT / "regress"
#: Seconds to wait for one response; generous, as the machine may be loaded.
DEFAULT_TIMEOUT = 120.0
#: A test line: its number, a space, the command.
TEST_LINE = re.compile(r"([0-9]+) ")
#: What may follow `#?`: `[REGEX]`, then an optional `*`.
PATTERN_LINE = re.compile(r"\[(.*)\](\*?)", re.DOTALL)


class SuiteError(Exception):
    """A suite file that cannot be read as a suite; the message names the line."""


@dataclass(frozen=True)
class Step:
    """One command of a suite, with what its answer must look like if it is a test."""

    line: int  # in the file, counted from 1
    command: str  # as sent: trimmed, tabs turned to spaces
    number: int | None  # the test number, None for a set-up command
    pattern: str | None = None  # the expected answer, as written between the brackets
    expected_failure: bool = False

    def matches(self, response: str, matcher: Matcher | None = None) -> bool:
        """Tell whether a successful response's text is the answer this test expects: in
        this process, or by `matcher` within its time bound (MatchFailed)."""
        if self.pattern is None:
            return True
        if matcher is None:
            return pattern_matches(self.pattern, response)
        return matcher.matches(self.pattern, response)


@dataclass(frozen=True)
class Outcome:
    """The result of one test."""

    step: Step
    ok: bool  # the engine answered `=`
    text: str  # the response text after `=`/`?` and the id, trimmed
    passed: bool

    @property
    def unexpected(self) -> bool:
        """Tell whether the result differs from what the suite expects."""
        return self.passed == self.step.expected_failure

    def describe(self) -> str:
        """Write the one line reporting an unexpected result."""
        number = self.step.number
        if self.passed:
            return f"{number} PASSED unexpectedly"
        got = one_line(self.text if self.ok else f"? {self.text}")
        if self.step.pattern is not None:
            return f"{number} FAILED: expected '{self.step.pattern}', got '{got}'"
        return f"{number} FAILED: got '{got}'"


@dataclass
class SuiteResult:
    """Everything that happened while one suite ran."""

    path: Path
    outcomes: list[Outcome] = field(default_factory=list)
    #: Set-up commands refused, an engine that died or hung: each one line.
    errors: list[str] = field(default_factory=list)

    def count(self, *, passed: bool, expected_failure: bool) -> int:
        """Count the tests with this result and this expectation."""
        return sum(
            1
            for outcome in self.outcomes
            if outcome.passed == passed and outcome.step.expected_failure == expected_failure
        )

    @property
    def clean(self) -> bool:
        """Tell whether nothing unexpected happened."""
        return not self.errors and not any(outcome.unexpected for outcome in self.outcomes)

    def report_lines(self) -> list[str]:
        """Return one line per unexpected result and per error, in file order."""
        lines = [outcome.describe() for outcome in self.outcomes if outcome.unexpected]
        return lines + self.errors


def one_line(text: str) -> str:
    """Show a possibly multi-line response on one line."""
    return text.replace("\n", "\\n")


def parse_suite(text: str, name: str = "suite") -> list[Step]:
    """Read a suite's text into its commands; raise SuiteError naming a malformed line."""
    steps: list[Step] = []
    # The test a `#?` line may still attach to: only the line right after it.
    open_test: Step | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if line.startswith("#?"):
            if open_test is None:
                raise SuiteError(
                    f"{name} line {number}: '#?' must come right after a numbered test"
                )
            steps[-1] = _with_pattern(open_test, line[2:].strip(), f"{name} line {number}")
            open_test = None
            continue
        open_test = None
        if not line or line.startswith("#"):
            continue
        command = line.replace("\t", " ")
        test = TEST_LINE.match(command)
        step = Step(number, command, int(test.group(1)) if test else None)
        steps.append(step)
        if test:
            open_test = step
    return steps


def _with_pattern(step: Step, text: str, where: str) -> Step:
    """Attach the expected answer of a `#?` line to its test."""
    if not text:
        return step
    match = PATTERN_LINE.fullmatch(text)
    if match is None:
        raise SuiteError(f"{where}: write the expected answer as '#? [REGEX]', got {text!r}")
    pattern, star = match.group(1).strip(), match.group(2)
    regex = pattern[1:] if pattern.startswith("!") else pattern
    try:
        re.compile(regex)
    except re.error as error:
        raise SuiteError(f"{where}: bad regular expression {regex!r}: {error}") from None
    return Step(step.line, step.command, step.number, pattern, bool(star))


def default_engine(log_dir: str) -> list[str]:
    """Return the command that starts this project's engine, logging into log_dir."""
    return [*command_line(None), "--log-dir", log_dir]


def engine_words(command: str | Sequence[str] | None) -> list[str]:
    """Split an engine's command line as the runner starts it in a suite's folder.

    As gogui-regress: the program, when it names a file from the current folder, is made
    absolute; every other word reaches the engine unchanged, so a relative path among them is
    read from the suite's folder.
    """
    words = command_line(command)
    if words and os.path.exists(words[0]):
        words[0] = os.path.abspath(words[0])
    return words


def ask(engine: Engine, command: str) -> tuple[bool, str, int | None]:
    """Send one command; return whether it succeeded, the response text and the id echoed."""
    response = engine.send(command)
    if response.raw[:1] not in ("=", "?"):
        first = response.raw.split("\n", 1)[0]
        raise EngineDied(
            Failure.GARBLED, f"the engine answered {first!r}, not '=' or '?'", delivered=True
        )
    # As gogui-regress: the text after the mark and the id, trimmed (`=12 true` -> `true`).
    return response.ok, response.text.strip(), response.id


def run_suite(
    path: Path,
    engine: str | Sequence[str] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    logs: str | Logs = ENGINE_DEFAULT,
    matcher: Matcher | None = None,
) -> SuiteResult:
    """Run one suite file on a fresh engine (None: this project's), its logs in `logs`, its
    answers matched by `matcher` (None: a matcher of its own, MATCH_SECONDS a match)."""
    if matcher is None:
        with Matcher() as own:
            return run_suite(path, engine, timeout, logs, own)
    result = SuiteResult(path)
    try:
        steps = parse_suite(path.read_text(encoding="utf-8"), str(path))
    except (OSError, UnicodeDecodeError) as error:
        result.errors.append(f"{path}: cannot read: {error}")
        return result
    except SuiteError as error:
        result.errors.append(str(error))
        return result
    folder = path.resolve().parent
    if not isinstance(logs, Logs):
        logs = os.path.abspath(logs)  # a folder named from here, not from the suite's folder
    process = Engine(engine_words(engine), log_dir=logs, timeout=timeout, cwd=folder)
    try:
        for index, step in enumerate(steps):
            try:
                ok, text, echoed = ask(process, step.command)
            except EngineDied as error:
                # A relative path on the engine's command line is read from the suite's
                # folder: say where it ran when it did not get past its first line.
                where = f" (started in {folder})" if index == 0 else ""
                result.errors.append(f"line {step.line}: {step.command!r}: {error}{where}")
                break
            if echoed != step.number:
                # GTP: a response carries the id of its command, and no id when it had none.
                result.errors.append(
                    f"line {step.line}: {step.command!r} was answered with id {echoed}, "
                    f"expected {step.number}"
                )
            if step.number is None:
                if not ok:
                    result.errors.append(
                        f"line {step.line}: set-up command {step.command!r} failed: "
                        f"'? {one_line(text)}'"
                    )
                continue
            try:
                passed = ok and step.matches(text, matcher)
            except MatchFailed as error:
                # A pattern that backtracks without end is a broken suite, not a failed test.
                result.errors.append(
                    f"line {step.line}: test {step.number}: the pattern '{step.pattern}' {error} "
                    f"against an answer of {len(text):,} characters"
                )
                continue
            result.outcomes.append(Outcome(step, ok, text, passed))
    finally:
        process.close()
    return result


def summary(results: Sequence[SuiteResult]) -> str:
    """Write the summary line: passed, failed, expected failures, unexpected passes, errors."""
    passed = sum(
        result.count(passed=True, expected_failure=expected)
        for result in results
        for expected in (False, True)
    )
    failed = sum(result.count(passed=False, expected_failure=False) for result in results)
    expected_failures = sum(result.count(passed=False, expected_failure=True) for result in results)
    unexpected_passes = sum(result.count(passed=True, expected_failure=True) for result in results)
    errors = sum(len(result.errors) for result in results)
    files = "file" if len(results) == 1 else "files"
    return (
        f"{passed} passed, {failed} failed, {_plural(expected_failures, 'expected failure')}, "
        f"{_plural(unexpected_passes, 'unexpected pass', 'unexpected passes')}, "
        f"{_plural(errors, 'error')}, in {len(results)} {files}"
    )


def _plural(count: int, one: str, many: str | None = None) -> str:
    """Count things in words: `1 error`, `2 errors`."""
    return f"{count} {one if count == 1 else many or one + 's'}"


def shipped_suites() -> list[Path]:
    """Return every suite shipped with the engine, in name order."""
    return sorted(SUITE_FOLDER.glob("*.tst"))


def seconds(text: str) -> float:
    """A time bound on the command line: more than 0 seconds."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < 1e6:
        raise argparse.ArgumentTypeError(f"takes seconds, more than 0, not {text!r}")
    return value


def main(argv: Sequence[str]) -> int:
    """Run the suites named (every shipped one when none is); return the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m regress", description="Run GTP regression suites (.tst files)."
    )
    parser.add_argument("suites", nargs="*", type=Path, help="suite files (default: regress/*.tst)")
    parser.add_argument(
        "--engine",
        help="the engine's command line (default: this project's); it runs in each suite's "
        "folder, as under gogui-regress, so name its other files by absolute paths",
    )
    parser.add_argument(
        "--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds to wait for an answer"
    )
    parser.add_argument(
        "--match-timeout", type=seconds, default=MATCH_SECONDS, metavar="S",
        help=f"seconds one expected answer may take to match (default {MATCH_SECONDS:g})",
    )  # fmt: skip
    options = parser.parse_args(argv)
    paths: list[Path] = options.suites or shipped_suites()
    missing = [str(path) for path in paths if not path.is_file()]
    if missing:
        print(f"regress: no such suite: {', '.join(missing)}", file=sys.stderr)
        return 2
    if not paths:
        print("regress: no suites to run", file=sys.stderr)
        return 2
    results: list[SuiteResult] = []
    # Another engine logs where its own configuration says; ours into a temporary folder.
    logs = ENGINE_DEFAULT if options.engine else TEMPORARY
    with Matcher(options.match_timeout) as matcher:
        for path in paths:
            result = run_suite(path, options.engine, options.timeout, logs, matcher)
            results.append(result)
            # As gogui-regress: with several files, each line names its file.
            prefix = f"{path} " if len(paths) > 1 else ""
            for line in result.report_lines():
                print(prefix + line, flush=True)
    print(summary(results))
    return 0 if all(result.clean for result in results) else 1
