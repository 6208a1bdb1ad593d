"""cubemate: read protocol lines on stdin, answer each on stdout, log every exchange.

python main.py [--config FILE] [--log-dir DIR] [--version], or `cubemate` once installed.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import select
import signal
import sys
import threading
from collections.abc import Callable, Generator, Iterator
from dataclasses import replace
from pathlib import Path
from time import perf_counter_ns
from types import FrameType
from typing import BinaryIO, NamedTuple, NoReturn

from kernel.dependencies import refuse_missing, require

try:
    from kernel import interrupt
    from kernel.config import ConfigError, EngineConfig, load_config
    from kernel.interrupt import COMMAND, EndingSignal
    from kernel.kernel import COMMANDS, Kernel
    from kernel.logfile import LogPathError
    from kernel.logger import LOGGED_PREFIX, ExchangeLog, write_stderr
    from kernel.protocol import CommandError, frame, line_too_long, parse_command, prepare_line
    from kernel.text.notation import COMMENTS_ANYWHERE
except ModuleNotFoundError as missing:  # a Python without the set-up's packages: one line
    refuse_missing("cubemate", missing)

HERE = Path(__file__).resolve().parent
#: Read when --config names no other file; an installed engine has none beside it and takes
#: the built-in defaults, which are this file's values.
DEFAULT_CONFIG = HERE / "engine_config.toml"
#: What the logs name as the config when no file was read.
BUILT_IN = Path("<built-in defaults>")
HISTORY_FILE = Path.home() / ".cubemate_history"
#: How much input is read at a time.
READ_CHUNK = 1 << 16


class OneLineErrorParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"cubemate: {message} (try --help)\n")


def engine_version() -> str:
    """Read the version from pyproject.toml beside this file (quick: tomllib is loaded for
    the config anyway), else from the installed package's metadata (slow to load)."""
    import tomllib

    try:
        with (HERE / "pyproject.toml").open("rb") as file:
            return str(tomllib.load(file)["project"]["version"])
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        from kernel.kernel import package_version

        return package_version()


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = OneLineErrorParser(
        description="cubemate: chess on an n×n×n cube, over a GTP-style protocol. Commands come "
        "on stdin, one per line (try `help`); each answer goes to stdout, ending in an empty "
        "line. At a terminal: line editing, history and tab-completion; Ctrl-C stops a "
        "search; quit, Ctrl-D or Ctrl-C at the prompt ends the session. SIGUSR1 stops a "
        "search; SIGTERM and SIGHUP end the engine.",
        epilog="The protocol: docs/protocol.md. Both logs go to the log folder: logs/ beside "
        "main.py in a source tree, $XDG_STATE_HOME/cubemate/logs (~/.local/state/cubemate/logs) "
        "for an installed engine.",
    )
    parser.add_argument(
        "--config",
        type=Path,
        help="config file (default: engine_config.toml beside main.py, else built-in defaults)",
    )
    parser.add_argument("--log-dir", type=Path, help="folder for both logs (overrides config)")
    parser.add_argument(
        "--tablebases",
        type=Path,
        help="folder of the endgame tables (docs/tablebases.md; overrides config)",
    )
    parser.add_argument(
        "--version", action="store_true", help="print the version and exit (no engine started)"
    )
    return parser.parse_args(argv)


class TooLong(NamedTuple):
    """A line that exceeded the limit: its first bytes and its full size."""

    prefix: bytes
    size: int


def pipe_lines(fd: int, limit: int) -> Generator[bytes | TooLong, None, None]:
    """Yield input lines without their newline, holding at most about `limit` bytes.

    A signal always interrupts the wait for input at once, even one that lands just before
    the read would block: the wait is a select on the input and on a wakeup pipe that the
    C-level signal handler writes to, so no signal can slip in between Python's check for
    signals and the blocking call and sit there until more input comes.
    """
    pending = bytearray()
    dropped = 0  # bytes of a too-long line thrown away so far
    prefix = b""
    with signal_wakeup() as wakeup:
        while True:
            ready, _, _ = select.select([fd, wakeup], [], [])
            if wakeup in ready:
                # The signal's Python handler runs at the next bytecode boundary, which
                # raises if the signal ends the engine; other signals just wait again.
                drain(wakeup)
                if fd not in ready:
                    continue
            chunk = os.read(fd, READ_CHUNK)
            if not chunk:
                break
            pieces = chunk.split(b"\n")
            for index, piece in enumerate(pieces):
                if dropped:
                    dropped += len(piece)
                else:
                    pending += piece
                    # One byte of slack: a CR before the newline is not part of the line.
                    if len(pending) > limit + 1:
                        prefix, dropped = bytes(pending[:LOGGED_PREFIX]), len(pending)
                        pending.clear()
                if index == len(pieces) - 1:
                    break  # no newline yet: the line goes on in the next chunk
                yield finish_line(pending, dropped, prefix, limit)
                pending.clear()
                dropped = 0
    if pending or dropped:
        yield finish_line(pending, dropped, prefix, limit)


@contextlib.contextmanager
def signal_wakeup() -> Iterator[int]:
    """Have every signal write a byte to a pipe while inside; yield the pipe's read end."""
    read_end, write_end = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    # Set before the call: a signal's handler may raise right after set_wakeup_fd returns,
    # before its result is stored, and ours must still be taken out again below, or later
    # signals would be written to a closed pipe.
    previous = -1
    try:
        previous = signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
        yield read_end
    finally:
        current = signal.set_wakeup_fd(previous)
        if current != write_end:  # someone else's replaced ours meanwhile: leave it there
            signal.set_wakeup_fd(current)
        os.close(read_end)
        os.close(write_end)


def drain(fd: int) -> None:
    """Read a non-blocking pipe empty."""
    with contextlib.suppress(BlockingIOError):
        while os.read(fd, 256):
            pass


def finish_line(pending: bytearray, dropped: int, prefix: bytes, limit: int) -> bytes | TooLong:
    """Turn what was gathered of one line into the line, or into a TooLong."""
    if dropped:
        return TooLong(prefix, dropped)
    line = bytes(pending)
    if len(line.removesuffix(b"\r")) > limit:
        return TooLong(line[:LOGGED_PREFIX], len(line))
    return line


#: The board on which the greeting starts a game.
GREETING_SIZE = 5
#: The commands whose argument is a move, which Tab completes from the legal moves.
MOVE_COMMANDS = ("play",)
#: The commands whose argument is a file, which Tab completes from the file names.
FILE_COMMANDS = ("loadgame", "savegame")


def greeting(variant_name: str) -> str:
    """What a person at the terminal is told first, after the name and version: a move that
    `play` takes as it stands after `new_game 5` in the configured variant."""
    return (
        f"new_game {GREETING_SIZE} starts a game, play {first_move(variant_name)} moves (Tab"
        " completes), genmove has the engine move; type help, quit or Ctrl-D"
    )


def first_move(variant_name: str) -> str:
    """A legal move of the start position of the greeting's board, short: a knight's if any
    (the move a first game most often opens with), the shortest name, then the first."""
    from kernel.cube.rules import Analysis
    from kernel.cube.start import start_position
    from kernel.cube.variants import variant_named
    from kernel.text.short_notation import short_names

    position = start_position(GREETING_SIZE, variant_named(variant_name))
    names = short_names(position, Analysis(position))
    knights = [name for name, move in names.items() if move.piece == "N"] or list(names)
    return min(knights, key=lambda name: (len(name), name))


def terminal_lines(
    limit: int, moves: Callable[[str], list[str]] = lambda text: []
) -> Generator[bytes | TooLong, None, None]:
    """Yield lines typed at a terminal, with line editing, history and tab-completion: of the
    command names, after `play` of the moves `moves(text)` names (the legal ones that start
    so), and after `loadgame` and `savegame` of file names."""
    import readline

    names = [spec.name for spec in COMMANDS]
    # Worked out when a completion starts (state 0) and kept for the states after it.
    matches: list[str] = []

    def complete(text: str, state: int) -> str | None:
        if state == 0:
            words = readline.get_line_buffer()[: readline.get_begidx()].split()
            if words and words[0].isdigit():
                words = words[1:]  # an id before the command
            if not words:
                matches[:] = [name + " " for name in names if name.startswith(text)]
            elif words[-1] in MOVE_COMMANDS and len(words) == 1:
                matches[:] = sorted(moves(text))
            elif words[-1] in FILE_COMMANDS and len(words) == 1:
                matches[:] = file_completions(text)
            else:
                matches[:] = []
        return matches[state] if state < len(matches) else None

    readline.set_completer(complete)
    readline.set_completer_delims(" ")
    readline.parse_and_bind("tab: complete")
    with contextlib.suppress(OSError):
        readline.read_history_file(HISTORY_FILE)
    try:
        with signals_wake_readline():
            while True:
                try:
                    line = input().encode("utf-8", errors="surrogateescape")
                except EOFError:
                    return
                yield line if len(line) <= limit else TooLong(line[:LOGGED_PREFIX], len(line))
    finally:
        with contextlib.suppress(OSError):
            readline.write_history_file(HISTORY_FILE)


#: The signals that end the engine at the prompt, which readline's wait must never sit on.
ENDING_SIGNALS: tuple[int, ...] = (signal.SIGINT.value, signal.SIGTERM.value, signal.SIGHUP.value)
#: How long a signal may wait for its handler before the main thread is woken to run it.
WAKE_AFTER = 0.05
#: What wakes the main thread: a signal nobody else sends, whose handler does nothing.
WAKE_SIGNAL = signal.SIGRTMIN


def do_nothing(signum: int, frame: FrameType | None) -> None:
    """Handle WAKE_SIGNAL: its arrival alone is what counts."""


@contextlib.contextmanager
def signals_wake_readline() -> Iterator[None]:
    """Make Ctrl-C (and SIGTERM, SIGHUP) end readline's wait, even when it lands just before it.

    readline waits for a key in a select() that only a signal arriving during it interrupts;
    one that lands between Python's check for signals and that select is handled at the next
    key. So a watcher thread hears every signal through a wakeup pipe and, a moment after an
    ending one, sends the main thread WAKE_SIGNAL: that interrupts the select, and readline
    runs the handlers of every signal waiting. If the first was handled already, nothing is
    waiting and the wake does nothing, so the watcher never needs to know which it was.
    """
    main_thread = threading.get_ident()
    stop_read, stop_write = os.pipe2(os.O_CLOEXEC)

    def watch(wakeup: int) -> None:
        while True:
            ready, _, _ = select.select([wakeup, stop_read], [], [])
            if stop_read in ready:
                return
            if any(signum in ENDING_SIGNALS for signum in os.read(wakeup, 64)):
                stopping, _, _ = select.select([stop_read], [], [], WAKE_AFTER)
                if stopping:
                    return
                signal.pthread_kill(main_thread, WAKE_SIGNAL)

    original = signal.signal(WAKE_SIGNAL, do_nothing)
    try:
        with signal_wakeup() as wakeup:
            watcher = threading.Thread(target=watch, args=(wakeup,), daemon=True)
            watcher.start()
            try:
                yield
            finally:
                # Before WAKE_SIGNAL's handler goes: a wake sent after that would kill.
                os.write(stop_write, b"x")
                watcher.join()
    finally:
        signal.signal(WAKE_SIGNAL, original)
        os.close(stop_read)
        os.close(stop_write)


def move_completions(kernel: Kernel, text: str) -> list[str]:
    """The legal moves of the game's position that start with `text`, for Tab, in one form:
    the one the person writes (short until they write long), or the other where none of
    those starts so (`Nb1(` is long). Check signs are left out: they would cost a look at
    every move's answers."""
    from kernel.text.notation import get_move_name
    from kernel.text.short_notation import short_names

    try:
        analysis = kernel.game_analysis()
    except CommandError:
        return []  # no game position: nothing to play
    position = kernel.position
    named = short_names(position, analysis)
    forms = [list(named), [get_move_name(position, move) for move in named.values()]]
    if kernel.person_notation == "long":
        forms.reverse()
    for form in forms:
        found = [move for move in form if move.startswith(text)]
        if found:
            return found
    return []


def file_completions(text: str) -> list[str]:
    """The file and folder names that start with `text` (`~/` the home folder, as savegame
    and loadgame read it), a folder's with `/` after it so that Tab goes on into it."""
    import glob

    expanded = os.path.expanduser(text)
    found = []
    for path in sorted(glob.glob(glob.escape(expanded) + "*")):
        name = text + path[len(expanded) :]
        found.append(name + "/" if os.path.isdir(path) else name + " ")
    return found


def leading_id(prefix: str) -> str | None:
    """The id a too-long line began with, if its first bytes hold a whole one."""
    # Only a number followed by more of the line counts: the prefix may end inside an id.
    head, space, _ = prefix.lstrip().partition(" ")
    if not space:
        return None
    command = parse_command(head + " x")
    return None if command is None else command.id


@contextlib.contextmanager
def own_terminal(fd: int) -> Iterator[None]:
    """Be the terminal's foreground process group while inside, then hand it back.

    Under `make run` the engine shares make's process group, so Ctrl-C reached make too,
    which then died of it (exit 130) however quietly the engine ended. In a group of its
    own that is the terminal's foreground, Ctrl-C reaches the engine alone, and make exits
    with the engine's 0. Ctrl-Z is ignored meanwhile: a stopped engine in its own group
    could not be resumed from this terminal, since make, not the shell, waits for it.
    """
    try:
        previous = os.tcgetpgrp(fd)
        os.setpgid(0, 0)
    except OSError:
        yield
        return
    # Changing the foreground group from outside it sends SIGTTOU; ignore it meanwhile.
    old_ttou = signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    old_tstp = signal.signal(signal.SIGTSTP, signal.SIG_IGN)
    try:
        with contextlib.suppress(OSError):
            os.tcsetpgrp(fd, os.getpgrp())
        yield
    finally:
        with contextlib.suppress(OSError):
            os.tcsetpgrp(fd, previous)
        signal.signal(signal.SIGTTOU, old_ttou)
        signal.signal(signal.SIGTSTP, old_tstp)


def serve(kernel: Kernel, log: ExchangeLog, lines: Iterator[bytes | TooLong], out: BinaryIO) -> str:
    """Answer every line until `quit` or the end of input; return which of the two it was."""
    limit = kernel.config.max_line_bytes
    comments = kernel.config.comments
    for raw in lines:
        if isinstance(raw, TooLong):
            prefix = prepare_line(raw.prefix)
            command_id = leading_id(prefix)
            log.too_long(prefix, raw.size, command_id)
            started = perf_counter_ns()
            response = frame(command_id, line_too_long(limit))
            duration = (perf_counter_ns() - started) // 1000
            log.output(response, command_id, None, ok=False, duration_us=duration)
            out.write(response.encode())
            out.flush()
            continue
        line = prepare_line(raw)
        command = parse_command(line, comments)
        if command is None:
            continue
        # While the command runs, SIGUSR1 (and Ctrl-C at a terminal) stops its search.
        with COMMAND:
            # Logged as it arrives: a command that never answers (ended by a signal, killed
            # for its memory) still shows in both logs what was asked.
            log.input(line, command.id, command.name)
            started = perf_counter_ns()
            exchange = kernel.answer(command)
            duration = (perf_counter_ns() - started) // 1000
        # An ending signal that came meanwhile stopped the command: end now, answering nothing.
        COMMAND.end_if_asked()
        reply = exchange.reply
        # Log before answering: a signal that ends the engine right after the answer has
        # gone out must not take the answer's log line with it.
        log.output(exchange.response, command.id, command.name, reply.ok, reply.traceback, duration)
        out.write(exchange.response.encode())
        out.flush()
        if kernel.quit_requested:
            return "quit"
    return "end of input"


def silence_stdout() -> None:
    """Point stdout at /dev/null so that the exit's flush of a closed or full pipe neither
    complains nor blocks."""
    with contextlib.suppress(OSError, ValueError):  # a stdout with no file behind it
        fd = sys.stdout.fileno()
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)


def installed_log_dir() -> Path:
    """Where an engine with no config file beside it logs: the XDG state folder."""
    state = os.environ.get("XDG_STATE_HOME", "")
    base = Path(state) if Path(state).is_absolute() else Path.home() / ".local" / "state"
    return base / "cubemate" / "logs"


def read_config(arguments: argparse.Namespace) -> tuple[EngineConfig, Path]:
    """Read the config named, or the one beside main.py, or take the built-in defaults (an
    installed engine); return it, its log folder settled, and the file it came from."""
    path: Path | None = arguments.config
    if path is None and DEFAULT_CONFIG.is_file():
        path = DEFAULT_CONFIG
    if path is None:
        config, source, log_dir = EngineConfig(), BUILT_IN, installed_log_dir()
    else:
        config, source = load_config(path), path.resolve()
        # A log folder in the config is relative to the config file, one on the command line
        # to the current folder, as each reader would expect.
        log_dir = source.parent / config.log_dir
        if config.tablebase_path:  # relative to the config file, as the log folder
            config = replace(config, tablebase_path=str(source.parent / config.tablebase_path))
    if arguments.tablebases is not None:
        config = replace(config, tablebase_path=str(arguments.tablebases))
    if config.tablebase_path and not Path(config.tablebase_path).is_dir():
        where = "--tablebases" if arguments.tablebases is not None else "tablebase.path"
        raise ConfigError(f"{where}: {config.tablebase_path} is not a folder")
    return replace(config, log_dir=str(arguments.log_dir or log_dir)), source


def main(argv: list[str] | None = None) -> int:
    """Read the options and the config, open the logs, and answer stdin until it ends."""
    arguments = parse_arguments(argv)
    if arguments.version:
        sys.stdout.write(f"cubemate {engine_version()}\n")
        return 0
    try:
        config, config_path = read_config(arguments)
    except ConfigError as error:
        write_stderr(f"cubemate: config error: {error}")
        return 2
    log_dir = Path(config.log_dir)
    require("cubemate", ("structlog",))  # imported by the logs only, not at start
    try:
        log = ExchangeLog(log_dir, config.console_log, config.json_log, config.echo_stderr)
    except LogPathError as error:  # a FIFO there would hold the engine before its first answer
        write_stderr(f"cubemate: {error}")
        return 2
    version = engine_version()
    log.start(version, config_path, log_dir.resolve(), config.board_size)
    at_terminal = sys.stdin is not None and sys.stdin.isatty()
    with interrupt.handlers(at_terminal):
        try:
            run(config, version, log, at_terminal)
        except (KeyboardInterrupt, EndingSignal) as ending:
            # A signal that cut a write to a full pipe short leaves the rest of the answer in
            # stdout's buffer, and flushing that at exit would block as long as nobody reads.
            silence_stdout()
            log.exit("signal", ending.name if isinstance(ending, EndingSignal) else "SIGINT")
        except BrokenPipeError:
            silence_stdout()
            log.exit("output closed")
        finally:
            log.close()
    return 0


def run(config: EngineConfig, version: str, log: ExchangeLog, at_terminal: bool) -> None:
    """Answer stdin until it ends or `quit`, and log which."""
    kernel = Kernel(config)
    kernel.log_event = log.event
    if sys.stdin is None or sys.stdout is None:
        # Started with fd 0 or 1 closed: no question can come in, or no answer go out.
        log.exit("end of input" if sys.stdin is None else "output closed")
        return
    limit = config.max_line_bytes
    if at_terminal and sys.stderr is not None and sys.stderr.isatty():
        # For a person only: stdout carries nothing but answers, and a program that runs
        # the engine on a terminal's stdin with stderr elsewhere sees no greeting.
        write_stderr(f"cubemate {version} — {greeting(config.variant)}")
    if at_terminal and config.comments != COMMENTS_ANYWHERE:
        # A person types here (a program speaking strict GTP is answered as configured):
        # genmove answers in the notation they write moves in, short until they write long.
        kernel.person_notation = "short"
    lines = (
        terminal_lines(limit, lambda text: move_completions(kernel, text))
        if at_terminal
        else pipe_lines(sys.stdin.fileno(), limit)
    )
    take = at_terminal and os.environ.get("CUBEMATE_OWN_TERMINAL") == "1"  # set by `make run`
    terminal = own_terminal(sys.stdin.fileno()) if take else contextlib.nullcontext()
    try:
        with terminal:
            log.exit(serve(kernel, log, lines, sys.stdout.buffer))
    finally:
        # Now, not whenever it is collected: the signal wakeup pipe is handed back.
        lines.close()


if __name__ == "__main__":
    sys.exit(main())
