"""The configuration: the shipped file, bad files and options (one line, exit 2), overrides."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import fields
from importlib.metadata import version
from pathlib import Path

import pytest

from kernel.config import (
    LARGEST_SUPPORTED_SIZE,
    MAX_LINE_BYTES,
    MAX_NODES,
    MAX_RESIGN_CP,
    ConfigError,
    EngineConfig,
    config_from_document,
    load_config,
)
from tests.conftest import MAIN, REPO, TIMEOUT, engine_command, read_json_log

SHIPPED = REPO / "engine_config.toml"


def run_main(*arguments: str, data: bytes = b"name\n") -> subprocess.CompletedProcess[bytes]:
    """Run main.py with these arguments, from the repository root."""
    return subprocess.run(
        [sys.executable, str(MAIN), *arguments],
        input=data,
        capture_output=True,
        cwd=REPO,
        timeout=TIMEOUT,
        check=False,
    )


def assert_one_line_error(result: subprocess.CompletedProcess[bytes], *needles: str) -> None:
    """Exit 2, nothing on stdout, exactly one line on stderr holding every needle."""
    assert result.returncode == 2, result
    assert result.stdout == b""
    stderr = result.stderr.decode()
    assert stderr.endswith("\n") and stderr.count("\n") == 1, stderr
    assert stderr.startswith("cubemate: "), stderr
    for needle in needles:
        assert needle in stderr, stderr


def test_shipped_config_is_the_defaults() -> None:
    """engine_config.toml loads and says what the built-in defaults say."""
    assert load_config(SHIPPED) == EngineConfig()


def test_every_field_is_reachable_from_the_file() -> None:
    """Each EngineConfig field has a key in the TOML layout (checked by setting them all)."""
    document = {
        "engine": {"name": "x", "board_size": 4, "max_board_size": 8},
        "protocol": {"max_line_bytes": 5000, "comments": "anywhere", "notation": "short"},
        "log": {"dir": "d", "console_file": "c.log", "json_file": "j.jsonl", "echo_stderr": True},
        "search": {
            "max_nodes": 1000,
            "max_mate_moves": 3,
            "compiled": False,
            "max_solutions": 7,
            "null_move": True,
            "late_move_reductions": True,
            "futility": True,
            "aspiration": True,
            "counter_moves": True,
            "history_malus": True,
        },
        "play": {
            "depth": 3,
            "nodes": 500,
            "move_time": 2,
            "resign_cp": 900,
            "hash_mb": 8,
            "keep_table": True,
            "thinking": "always",
        },
        "evaluation": {
            "queen": 1.1,
            "rook": 0.9,
            "bishop": 1.2,
            "knight": 0.8,
            "unicorn": 2.0,
            "pawn": 1.5,
            "placement": 4,
            "raumschach_placement": 5,
            "exposure": 20,
            "king_reach": 3,
            "cornering": 15,
            "drawish": 4,
            "mating_pieces": 5,
            "contempt": 40,
            "pawn_advance": 5,
            "pawn_near": 60,
            "pawn_passed": 90,
        },
        "tablebase": {"path": "tables"},
        "rules": {"variant": "raumschach"},
    }
    config = config_from_document(document)
    defaults = EngineConfig()
    for field in fields(EngineConfig):
        assert getattr(config, field.name) != getattr(defaults, field.name), field.name


BAD_CONFIGS: list[tuple[str, str]] = [
    ("[engine]\ncolour = 'white'\n", "engine.colour"),
    ("[engines]\nname = 'x'\n", "engines"),
    ("engine = 3\n", "engine"),
    ("[engine]\nboard_size = '3'\n", "engine.board_size"),
    ("[engine]\nboard_size = 3.0\n", "engine.board_size"),
    ("[engine]\nboard_size = true\n", "engine.board_size"),
    ("[log]\necho_stderr = 'yes'\n", "log.echo_stderr"),
    ("[engine]\nname = 7\n", "engine.name"),
    ("[engine]\nboard_size = 1\n", "engine.board_size"),
    ("[play]\ndepth = 65\n", "play.depth"),
    ("[play]\nnodes = -1\n", "play.nodes"),
    ("[play]\nmove_time = nan\n", "play.move_time"),
    ("[play]\nmove_time = -1.0\n", "play.move_time"),
    ("[play]\nmove_time = 'fast'\n", "play.move_time"),
    ("[play]\nmove_time = true\n", "play.move_time"),
    ("[play]\nresign_cp = -5\n", "play.resign_cp"),
    ("[play]\nhash_mb = 0\n", "play.hash_mb"),
    ("[play]\nthinking = 'sometimes'\n", "play.thinking"),
    ("[play]\nlevel = 3\n", "play.level"),
    ("[evaluation]\nknight = 0.0\n", "evaluation.knight"),
    ("[evaluation]\nqueen = nan\n", "evaluation.queen"),
    ("[evaluation]\nunicorn = 0.0\n", "evaluation.unicorn"),
    ("[evaluation]\npawn = 10.5\n", "evaluation.pawn"),
    ("[evaluation]\npawn = 'high'\n", "evaluation.pawn"),
    ("[evaluation]\nexposure = -1\n", "evaluation.exposure"),
    ("[evaluation]\nplacement = 1001\n", "evaluation.placement"),
    ("[evaluation]\ncontempt = -10\n", "evaluation.contempt"),
    ("[engine]\nboard_size = 65\n", "engine.board_size"),
    ("[rules]\nvariant = 'chess'\n", "rules.variant"),
    ("[rules]\nvariant = 5\n", "rules.variant"),
    ("[engine]\nmax_board_size = 1000\n", "engine.max_board_size"),
    # Past every bound the engine can use (issue 38): 10**20 positions failed every search.
    ("[engine]\nmax_board_size = 201\n", "engine.max_board_size"),
    ("[search]\nmax_nodes = 100000000000000000000\n", "search.max_nodes"),
    ("[search]\nmax_nodes = 1000000000001\n", "search.max_nodes"),
    ("[play]\nnodes = 100000000000000000000\n", "play.nodes"),
    ("[play]\nresign_cp = 1000001\n", "play.resign_cp"),
    ("[protocol]\nmax_line_bytes = 16777217\n", "protocol.max_line_bytes"),
    ("[engine]\nmax_board_size = 1\nboard_size = 1\n", "engine.max_board_size"),
    ("[protocol]\nmax_line_bytes = 100\n", "protocol.max_line_bytes"),
    ("[protocol]\nmax_line_bytes = -1\n", "protocol.max_line_bytes"),
    ("[engine]\nname = 'two words'\n", "engine.name"),
    ("[engine]\nname = ''\n", "engine.name"),
    ("[log]\ndir = ''\n", "log.dir"),
    ("[log]\njson_file = 'a/b.jsonl'\n", "log"),
    ("[engine\nname = 'x'\n", "TOML"),
]


def test_the_upper_bounds_are_taken() -> None:
    """Each integer key at its upper bound is a config the engine starts with."""
    document = {
        "engine": {"max_board_size": LARGEST_SUPPORTED_SIZE},
        "protocol": {"max_line_bytes": MAX_LINE_BYTES},
        "search": {"max_nodes": MAX_NODES, "max_mate_moves": 100},
        "play": {"nodes": MAX_NODES, "resign_cp": MAX_RESIGN_CP, "depth": 64, "hash_mb": 4096},
    }
    config = config_from_document(document)
    assert (config.max_nodes, config.play_nodes, config.resign_cp) == (
        MAX_NODES,
        MAX_NODES,
        MAX_RESIGN_CP,
    )


@pytest.mark.parametrize(("text", "key"), BAD_CONFIGS)
def test_bad_config_is_one_line_naming_the_key(tmp_path: Path, text: str, key: str) -> None:
    """Unknown key, wrong type, impossible value, bad TOML: one line on stderr, exit 2."""
    path = tmp_path / "bad.toml"
    path.write_text(text)
    assert_one_line_error(run_main("--config", str(path)), key)
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        load_config(path)


def test_config_that_is_not_utf8(tmp_path: Path) -> None:
    """A config file with bytes that are not UTF-8 is a config error, not a traceback."""
    path = tmp_path / "latin1.toml"
    path.write_bytes(b'[engine]\nname = "cube\xe9mate"\n')
    assert_one_line_error(run_main("--config", str(path)), str(path))


def test_missing_config_file(tmp_path: Path) -> None:
    """A config file that is not there: one line naming it, exit 2."""
    missing = tmp_path / "nowhere.toml"
    assert_one_line_error(run_main("--config", str(missing)), str(missing))


def test_config_that_is_a_folder(tmp_path: Path) -> None:
    """A folder given as the config: one line naming it, exit 2."""
    assert_one_line_error(run_main("--config", str(tmp_path)), str(tmp_path))


@pytest.mark.parametrize(
    ("arguments", "needle"),
    [
        (["--bogus"], "--bogus"),
        (["--config"], "--config"),
        (["--log-dir"], "--log-dir"),
        (["extra"], "extra"),
    ],
)
def test_bad_option_is_one_line(arguments: list[str], needle: str) -> None:
    """A bad command-line option: one line naming it, exit 2, nothing answered."""
    assert_one_line_error(run_main(*arguments), needle)


def test_help_option() -> None:
    """--help describes the options, says that commands come on stdin, and exits 0 without
    starting the engine."""
    result = run_main("--help")
    assert result.returncode == 0
    assert b"--config" in result.stdout and b"--log-dir" in result.stdout
    assert b"--version" in result.stdout
    assert b"Commands come on stdin" in result.stdout.replace(b"\n", b" ")


def test_version_option() -> None:
    """--version prints the package version on stdout and exits 0, reading no input."""
    result = run_main("--version")
    assert (result.stdout, result.stderr, result.returncode) == (
        f"cubemate {version('cubemate')}\n".encode(),
        b"",
        0,
    )


def write_config(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "engine.toml"
    path.write_text(text)
    return path


def test_log_dir_of_config_is_relative_to_the_config_file(tmp_path: Path) -> None:
    """log.dir in a config file is taken relative to that file, not to the current folder."""
    config = write_config(tmp_path / "conf", "[log]\ndir = 'from_config'\n")
    result = run_main("--config", str(config))
    assert (result.stdout, result.stderr, result.returncode) == (b"= cubemate\n\n", b"", 0)
    assert [event["event"] for event in read_json_log(tmp_path / "conf" / "from_config")] == [
        "input",
        "output",
    ]


def test_log_dir_option_overrides_the_config(tmp_path: Path) -> None:
    """--log-dir wins over log.dir: the logs go there and the config's folder stays unmade."""
    config = write_config(tmp_path / "conf", "[log]\ndir = 'from_config'\n")
    chosen = tmp_path / "chosen"
    result = subprocess.run(
        engine_command(chosen, "--config", str(config)),
        input=b"name\n",
        capture_output=True,
        cwd=REPO,
        timeout=TIMEOUT,
        check=False,
    )
    assert (result.stdout, result.stderr, result.returncode) == (b"= cubemate\n\n", b"", 0)
    assert len(read_json_log(chosen)) == 2
    assert not (tmp_path / "conf" / "from_config").exists()


def test_config_values_reach_the_engine(tmp_path: Path) -> None:
    """Name, sizes, line limit and log file names from the config are what the engine uses."""
    config = write_config(
        tmp_path,
        "[engine]\nname = 'othermate'\nboard_size = 2\nmax_board_size = 4\n"
        "[protocol]\nmax_line_bytes = 200\n"
        "[log]\nconsole_file = 'talk.txt'\njson_file = 'talk.jsonl'\n",
    )
    result = subprocess.run(
        engine_command(tmp_path / "logs", "--config", str(config)),
        input=b"name\nget_board\nboardsize 5\nboardsize 4\n" + b"x" * 201 + b"\n",
        capture_output=True,
        cwd=REPO,
        timeout=TIMEOUT,
        check=False,
    )
    assert result.stdout == (
        b"= othermate\n\n= [##,##],[##,##]\n\n? unacceptable size (2 ... 4)\n\n= \n\n"
        b"? line too long (limit 200 bytes)\n\n"
    )
    assert result.returncode == 0
    assert sorted(path.name for path in (tmp_path / "logs").iterdir()) == [
        "talk.jsonl",
        "talk.txt",
    ]


def test_echo_stderr_copies_the_console_log(tmp_path: Path) -> None:
    """With log.echo_stderr the console log also goes to stderr, and stdout stays clean."""
    config = write_config(tmp_path, "[log]\necho_stderr = true\n")
    result = subprocess.run(
        engine_command(tmp_path / "logs", "--config", str(config)),
        input=b"1 name\n",
        capture_output=True,
        cwd=REPO,
        timeout=TIMEOUT,
        check=False,
    )
    assert result.stdout == b"=1 cubemate\n\n"
    assert result.stderr.decode() == (tmp_path / "logs" / "cubemate.log").read_text()
    texts = [line.split(" ", 2)[2] for line in result.stderr.decode().splitlines()]
    assert texts[0].startswith("start: cubemate ")
    assert texts[1:] == ["# 1 name", "=1 cubemate", "exit: end of input"]


def test_the_evaluation_defaults_are_the_evaluations_own() -> None:
    """The config's [evaluation] defaults are the numbers kernel/play/evaluation.py documents."""
    from kernel.commands.session import weights_of
    from kernel.play.evaluation import DEFAULT_WEIGHTS

    assert weights_of(EngineConfig()) == DEFAULT_WEIGHTS


#: A Raumschach position (`set_board`) of white's king, unicorn and two pawns against black's
#: king and pawn: a unicorn and a pawn up.
UNICORN_AND_PAWN_UP = (
    "[K#U##,#####,#####,#####,#####],[#####,#P#P#,#####,#####,#####],[#####,#####,#####,#####,"
    "#####],[#####,#####,#####,###p#,#####],[#####,#####,#####,#####,####k]"
)


@pytest.mark.parametrize("compiled", ["true", "false"])
def test_the_unicorn_and_pawn_factors_reach_genmove(tmp_path: Path, compiled: str) -> None:
    """`evaluation.unicorn` and `.pawn` reach the player's search, compiled and in Python:
    with the unicorn at 2.0 and the pawn at 1.5, genmove's score at depth 2 in a quiet
    position a unicorn and a pawn up rises by the extra unicorn and half a pawn exactly."""
    from kernel.cube.variants import RAUMSCHACH
    from kernel.play.evaluation import DEFAULT_WEIGHTS, Weights

    scores = []
    for name, factors in (("plain", ""), ("factors", "unicorn = 2.0\npawn = 1.5\n")):
        config = tmp_path / f"{name}.toml"
        config.write_text(f"[search]\ncompiled = {compiled}\n[evaluation]\n{factors}")
        commands = f"new_game 5 raumschach\nset_board [{UNICORN_AND_PAWN_UP}] w\nlevel depth 2\n"
        result = run_main(
            "--config", str(config), "--log-dir", str(tmp_path / name),
            data=f"{commands}genmove\nquit\n".encode(),
        )  # fmt: skip
        assert result.returncode == 0 and b"?" not in result.stdout, result.stdout
        found = [e for e in read_json_log(tmp_path / name) if e["event"] == "search"]
        assert len(found) == 1, found
        scores.append(int(found[0]["score_cp"]))
    plain = DEFAULT_WEIGHTS.values(5, RAUMSCHACH)
    raised = Weights(unicorn=2.0, pawn=1.5).values(5, RAUMSCHACH)
    gain = raised["U"] - plain["U"] + raised["P"] - plain["P"]
    assert gain == 346 + 99
    assert scores[1] - scores[0] == gain, scores
