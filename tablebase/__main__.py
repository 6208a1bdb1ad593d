"""python -m tablebase: build, count, check and describe endgame tables (docs/tablebases.md).

    python -m tablebase build --size N --pieces K --out DIR [--variant NAME] [--compact]
                              [--endings NAMES] [--python] [--dask ADDRESS]
    python -m tablebase stats DIR
    python -m tablebase verify FILE... [--python]
    python -m tablebase info FILE... [--json]
    python -m tablebase compress FOLDER --out FOLDER [--block VALUES]

Exit status 0 on success; 1 when verify finds a fault or info a damaged file; 2 on a usage
error, an unusable file (stats, verify, compress: each named on stderr, the others still
done) or a build that cannot go on; 141 when the output is closed early (`stats DIR | head
-1`), quietly, as a Unix tool killed by SIGPIPE.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from kernel.tables.tablebase import TableError


class Parser(argparse.ArgumentParser):
    """Usage errors as one line and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"tablebase: {message}\n")


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = Parser(prog="python -m tablebase", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    build = commands.add_parser("build", help="build every ending of up to K pieces")
    build.add_argument("--size", type=int, required=True, help="the board's edge n (3 ... 31)")
    build.add_argument("--pieces", type=int, required=True, help="the most pieces, kings included")
    build.add_argument("--out", type=Path, required=True, help="the folder of the tables")
    build.add_argument(
        "--variant",
        default="cube",
        help="whose pieces: cube (the default) or raumschach (5×5×5 only)",
    )
    build.add_argument(
        "--endings",
        metavar="NAMES",
        help="of the largest piece count only these endings, by commas: KRRRK,KQQKQ",
    )
    build.add_argument(
        "--compact",
        action="store_true",
        help="number the positions by format version 3's compact index (issue 52)",
    )
    build.add_argument(
        "--python", action="store_true", help="solve in Python even where the core was built"
    )
    build.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="solve the endings of each piece count on this Dask scheduler",
    )
    stats = commands.add_parser("stats", help="count the tables of a folder")
    stats.add_argument("folder", type=Path)
    verify = commands.add_parser("verify", help="check every value of table files")
    verify.add_argument("files", type=Path, nargs="+")
    verify.add_argument(
        "--python", action="store_true", help="check in Python even where the core was built"
    )
    info = commands.add_parser("info", help="what table files say of themselves, checked")
    info.add_argument("files", type=Path, nargs="+")
    info.add_argument("--json", action="store_true", help="a JSON list, an object a file")
    compress = commands.add_parser(
        "compress", help="write a folder's tables compressed (format version 4) into another"
    )
    compress.add_argument("folder", type=Path, help="the folder of the tables to compress")
    compress.add_argument("--out", type=Path, required=True, help="the folder to write into")
    compress.add_argument(
        "--block",
        type=int,
        default=None,
        metavar="VALUES",
        help="values a block: a power of two, 4096 ... 1048576 (default 8192)",
    )
    return parser.parse_args(argv)


def progress(message: str) -> None:
    """Progress lines on stderr."""
    print(f"tablebase: {message}", file=sys.stderr, flush=True)


def run_build(arguments: argparse.Namespace) -> int:
    from tablebase.build import BuildError, build

    start = time.perf_counter()
    try:
        done = build(
            arguments.out,
            arguments.size,
            arguments.pieces,
            compiled=not arguments.python,
            report=progress,
            dask=arguments.dask,
            variant=arguments.variant,
            compact=arguments.compact,
            only=arguments.endings.split(",") if arguments.endings else None,
        )
    except BuildError as error:
        progress(str(error))
        return 2
    made = sum(1 for table in done if table.built)
    progress(f"{made} tables built, {len(done) - made} kept, {time.perf_counter() - start:.1f} s")
    return 0


def run_stats(folder: Path) -> int:
    from tablebase.stats import HEADING, stats_of, table_files, table_name

    if not folder.is_dir():
        progress(f"{folder}: not a folder")
        return 2
    files = table_files(folder)
    if not files:
        progress(f"{folder}: no tables")
        return 2
    status = 0
    print(HEADING, flush=True)
    for path in files:
        if table_name(path) is None:
            progress(f"{path}: not a table's name (ENDING.nN[.VARIANT].cubetb); left out")
            status = 2
            continue
        try:
            print(stats_of(path).row(), flush=True)
        except TableError as error:
            progress(f"{error}; left out")
            status = 2
    return status


def run_verify(files: list[Path], python: bool) -> int:
    from tablebase.verify import verify

    status = 0
    for path in files:
        try:
            faults = verify(path, compiled=not python)
        except TableError as error:
            progress(str(error))
            status = 2
            continue
        for fault in faults:
            print(f"{path}: {fault}")
        print(f"{path}: {'sound' if not faults else 'FAULTY'}", flush=True)
        status = max(status, 1 if faults else 0)
    return status


def run_info(files: list[Path], as_json: bool) -> int:
    from tablebase.info import info_of

    found = []
    for path in files:
        info = info_of(path)
        found.append(info)
        if not as_json:
            print(info.line(), flush=True)
    if as_json:
        print(json.dumps([info.document() for info in found], indent=1))
    return 1 if any(info.fault is not None for info in found) else 0


def run_compress(folder: Path, out: Path, block: int | None) -> int:
    from kernel.tables.blocks import DEFAULT_VALUES
    from tablebase.compress import CompressError, compress_folder

    start = time.perf_counter()
    try:
        done, faults = compress_folder(folder, out, block or DEFAULT_VALUES, progress)
    except CompressError as error:
        progress(str(error))
        return 2
    plain = sum(result.plain_bytes for result in done)
    packed = sum(result.packed_bytes for result in done)
    ratio = f" ({plain / packed:.2f}×)" if packed else ""
    written = sum(1 for result in done if not result.kept)
    progress(
        f"{written} tables compressed, {len(done) - written} kept, {len(faults)} left out: "
        f"{plain:,} → {packed:,} bytes{ratio}, {time.perf_counter() - start:.1f} s"
    )
    return 2 if faults else 0


def main(argv: list[str] | None = None) -> int:
    arguments = parse(argv)
    try:
        if arguments.command == "build":
            return run_build(arguments)
        if arguments.command == "stats":
            return run_stats(arguments.folder)
        if arguments.command == "info":
            return run_info(arguments.files, arguments.json)
        if arguments.command == "compress":
            return run_compress(arguments.folder, arguments.out, arguments.block)
        return run_verify(arguments.files, arguments.python)
    except BrokenPipeError:
        # The reader is gone (`| head -1`): stop as a Unix tool does, saying nothing, and keep
        # Python from complaining when it flushes stdout at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except TableError as error:
        progress(str(error))
        return 2
    except KeyboardInterrupt:
        # The tables written are whole; the one being written is removed.
        print("tablebase: interrupted (the same command goes on from there)", file=sys.stderr)
        return 130
    except OSError as error:
        where = f"{error.filename}: " if error.filename else ""
        progress(f"{where}{error.strerror or error}")
        return 2


if __name__ == "__main__":
    sys.exit(main())
