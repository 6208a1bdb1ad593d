"""Expected answers that would match for ever (issue 49, item 10): `#? [(.|\\n|.)*x]` against
`showboard` hung `python -m regress` (killed at 30 s); each match now runs in a child process
within a time bound, and such a pattern is an error that names it, the suite going on."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from regress.matching import MATCH_SECONDS, Matcher, MatchTimeout, pattern_matches
from tests.conftest import REPO, TIMEOUT

#: Exponential in the answer's length: `.` twice over, then an `x` that never comes.
BACKTRACKING = r"(.|\n|.)*x"
SUITE = f"""1 name
#? [cubemate]
2 showboard
#? [{BACKTRACKING}]
3 name
#? [cube.*]
4 showboard
#? [!{BACKTRACKING}]
5 protocol_version
#? [2]
"""


def test_a_pattern_that_backtracks_for_ever_is_an_error_within_the_bound(
    tmp_path: Path,
) -> None:
    """Both tests with the pattern (also negated) are errors naming it, found in about the
    bound each; the tests around them pass; exit 1."""
    suite = tmp_path / "backtracking.tst"
    suite.write_text(SUITE)
    started = time.monotonic()
    run = subprocess.run([sys.executable, "-m", "regress", "--match-timeout", "0.5", str(suite)],
                         capture_output=True, text=True, cwd=REPO, timeout=4 * TIMEOUT)  # fmt: skip
    took = time.monotonic() - started
    assert run.returncode == 1, run.stderr
    assert run.stderr == ""
    assert run.stdout.splitlines() == [
        f"line 3: test 2: the pattern '{BACKTRACKING}' did not finish matching within 0.5 s "
        "against an answer of 193 characters",
        f"line 7: test 4: the pattern '!{BACKTRACKING}' did not finish matching within 0.5 s "
        "against an answer of 193 characters",
        "3 passed, 0 failed, 0 expected failures, 0 unexpected passes, 2 errors, in 1 file",
    ]
    assert took < TIMEOUT


def test_the_matcher_gives_up_kills_and_starts_afresh() -> None:
    """A match past the bound: MatchTimeout, its child killed; the next match runs on a new
    child, and a child killed between matches is replaced too."""
    assert MATCH_SECONDS == 5.0
    with Matcher(0.3) as matcher:
        assert matcher.matches("cube.*", "cubemate")
        child = matcher._child
        assert child is not None
        started = time.monotonic()
        with pytest.raises(MatchTimeout, match=r"did not finish matching within 0\.3 s"):
            matcher.matches(BACKTRACKING, "a" * 60)
        assert time.monotonic() - started < 0.3 + 5
        assert child.poll() == -signal.SIGKILL
        assert matcher.matches("!x", "cubemate") and not matcher.matches("x", "y\nx")
        replacement = matcher._child
        assert replacement is not None and replacement.pid != child.pid
        os.kill(replacement.pid, signal.SIGKILL)
        replacement.wait()
        assert matcher.matches("a.b", "a\nb")
    assert matcher._child is None


@pytest.mark.parametrize(
    ("pattern", "text"),
    [("ab", "ab"), ("a", "ab"), ("!a", "b"), ("!.*", "x"), ("a.*b", "a\n\nb"), ("^b$", "a\nb"),
     ("é", "é"), ("", ""), ("x", "\udcff")],
)  # fmt: skip
def test_the_child_matches_as_this_process_does(pattern: str, text: str) -> None:
    with Matcher() as matcher:
        assert matcher.matches(pattern, text) == pattern_matches(pattern, text)


#: A runner killed mid-match: it prints its matcher's child, then matches for ever.
KILLED_MID_MATCH = f"""
from regress.matching import Matcher
matcher = Matcher(600)
matcher.matches("a", "a")
print(matcher._child.pid, flush=True)
matcher.matches({BACKTRACKING!r}, "a" * 80)
"""


def test_the_child_does_not_outlive_a_runner_killed_mid_match() -> None:
    """SIGKILL leaves the runner no time to end its child, which reads no input mid-match:
    the child is killed with it all the same (PR_SET_PDEATHSIG)."""
    runner = subprocess.Popen([sys.executable, "-c", KILLED_MID_MATCH], cwd=REPO,
                              stdout=subprocess.PIPE, text=True)  # fmt: skip
    assert runner.stdout is not None
    child = int(runner.stdout.readline())
    time.sleep(0.3)  # well into the match
    runner.kill()
    runner.wait(timeout=TIMEOUT)
    deadline = time.monotonic() + TIMEOUT
    while running(child):
        assert time.monotonic() < deadline, "the matching child outlived its runner"
        time.sleep(0.02)


def running(pid: int) -> bool:
    """Whether a process runs (a zombie waiting to be reaped counts as ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"
