"""python -m tablebase: build, count and check endgame tables (docs/tablebases.md).

    python -m tablebase build --size N --pieces K --out DIR [--python] [--dask ADDRESS]
    python -m tablebase stats DIR
    python -m tablebase verify FILE... [--python]

Exit status 0 on success, 1 when verify finds a fault, 2 on a usage error or an unusable file.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from kernel.tablebase import TableError


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
    return parser.parse_args(argv)


def progress(message: str) -> None:
    """Progress lines on stderr."""
    print(f"tablebase: {message}", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    arguments = parse(argv)
    try:
        if arguments.command == "build":
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
                )
            except BuildError as error:
                print(f"tablebase: {error}", file=sys.stderr)
                return 2
            made = sum(1 for table in done if table.built)
            progress(
                f"{made} tables built, {len(done) - made} kept, {time.perf_counter() - start:.1f} s"
            )
            return 0
        if arguments.command == "stats":
            from tablebase.stats import HEADING, stats_of, table_files

            if not arguments.folder.is_dir():
                print(f"tablebase: {arguments.folder}: not a folder", file=sys.stderr)
                return 2
            files = table_files(arguments.folder)
            if not files:
                print(f"tablebase: {arguments.folder}: no tables", file=sys.stderr)
                return 2
            print(HEADING)
            for path in files:
                print(stats_of(path).row(), flush=True)
            return 0
        from tablebase.verify import verify

        status = 0
        for path in arguments.files:
            faults = verify(path, compiled=not arguments.python)
            for fault in faults:
                print(f"{path}: {fault}")
            print(f"{path}: {'sound' if not faults else 'FAULTY'}", flush=True)
            status = status or (1 if faults else 0)
        return status
    except TableError as error:
        print(f"tablebase: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        # The tables written are whole; the one being written is at most a `.part`.
        print("tablebase: interrupted (the same command goes on from there)", file=sys.stderr)
        return 130
    except OSError as error:
        print(f"tablebase: {error.filename}: {error.strerror}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
