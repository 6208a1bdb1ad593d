"""Read the JSON body of a request strictly, refusing whatever is not plainly its shape.

The page sends ``{"line": "<protocol line>"}`` or ``{"lines": ["<line>", ...]}`` to the relay,
``{"game": N, "color": "b"}`` for the computer's move, ``{"game": N}`` to stop it and
``{"text": "<record>", "name": "<file name>"}`` to open a game record. Python's json module is
lenient where a hostile client can hurt: it takes ``NaN`` and ``Infinity``, keeps the last of two
equal keys, converts integers of any length (and fails past 4,300 digits), recurses once per
level of nesting, and yields strings with lone surrogates (``"\\ud800"``) that cannot be written
to the engine. Each of these is refused here with a message that names it, before any line is
sent; a number is converted only where one belongs (a game's version), and only when it is a
plain whole number of at most 18 digits.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

#: Lines one request may carry: the page sends a board and its analysis together.
MAX_BATCH = 16
USAGE = 'send {"line": "<one protocol line>"} or {"lines": ["<line>", ...]}'
#: Characters of a client's text quoted back in a message.
QUOTE_LIMIT = 40
#: A game's version: a plain whole number small enough for any counter.
VERSION = re.compile(r"[0-9]{1,18}")
#: The colours genmove takes.
COLOURS = ("w", "b", "white", "black")
#: The longest file name a record may be posted with (it is only ever quoted back).
MAX_NAME = 255


class BadBody(ValueError):
    """The body is not a relay request; the message says why."""


@dataclass(frozen=True)
class RelayRequest:
    """The protocol lines of a request, and whether they came as a batch (``"lines"``)."""

    lines: tuple[str, ...]
    batch: bool


@dataclass(frozen=True)
class MoveRequest:
    """The computer's move asked for one version of the game, for one colour."""

    game: int
    colour: str


@dataclass(frozen=True)
class StopRequest:
    """A stop of the search asked for one version of the game."""

    game: int


@dataclass(frozen=True)
class RecordRequest:
    """A game record's text, and the name of the file it came from."""

    text: str
    name: str


@dataclass(frozen=True)
class JsonNumber:
    """Stands for a JSON number, kept as its text: it is converted only where one belongs."""

    text: str


def parse_relay_body(body: bytes) -> RelayRequest:
    """Return the relay request in ``body``, or raise BadBody naming the first problem."""
    return _relay_request(_decode(body))


def parse_move_body(body: bytes) -> MoveRequest:
    """Return the request for the computer's move in ``body``, or raise BadBody."""
    data = _fields(_decode(body), ("game", "color"), '{"game": <version>, "color": "w" or "b"}')
    colour = _line(data["color"], '"color"')
    if colour not in COLOURS:
        raise BadBody(f'"color" is {quote(colour)}, not one of {", ".join(COLOURS)}')
    return MoveRequest(_version(data["game"]), colour)


def parse_stop_body(body: bytes) -> StopRequest:
    """Return the stop request in ``body``, or raise BadBody."""
    data = _fields(_decode(body), ("game",), '{"game": <version>}')
    return StopRequest(_version(data["game"]))


def parse_record_body(body: bytes) -> RecordRequest:
    """Return the record request in ``body``, or raise BadBody."""
    data = _fields(_decode(body), ("text", "name"), '{"text": <record>, "name": <file name>}')
    name = _line(data["name"], '"name"')
    if not name or len(name) > MAX_NAME or any(ord(char) < 0x20 for char in name):
        raise BadBody(f'"name" must be 1 to {MAX_NAME} characters with no control character')
    return RecordRequest(_line(data["text"], '"text"'), name)


def _decode(body: bytes) -> object:
    """Decode a UTF-8 JSON body strictly."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadBody(
            f"the body is not UTF-8: byte 0x{body[exc.start]:02x} at offset {exc.start}"
        ) from None
    try:
        data = json.loads(
            text,
            object_pairs_hook=_object,
            parse_int=_number,
            parse_float=_number,
            parse_constant=_constant,
        )
    except json.JSONDecodeError as exc:
        raise BadBody(f"the body is not JSON: {exc}") from None
    except RecursionError:
        raise BadBody("the body nests arrays or objects too deeply") from None
    return data


def _fields(data: object, keys: tuple[str, ...], usage: str) -> dict[str, object]:
    """Check that ``data`` is an object with exactly ``keys``; return it."""
    if not isinstance(data, dict):
        raise BadBody(f"the body is {kind(data)}, not an object: send {usage}")
    unknown = sorted(set(data) - set(keys))
    if unknown:
        raise BadBody(f"unknown key {quote(unknown[0])}: send {usage}")
    for key in keys:
        if key not in data:
            raise BadBody(f"the key {quote(key)} is missing: send {usage}")
    return data


def _version(value: object) -> int:
    """Read a game's version: a whole number of at most 18 digits."""
    if not isinstance(value, JsonNumber):
        raise BadBody(f'"game" is {kind(value)}, not a number')
    if VERSION.fullmatch(value.text) is None:
        raise BadBody(f'"game" must be a whole number of at most 18 digits, got {value.text[:40]}')
    return int(value.text)


def _object(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """Build a JSON object, refusing a key given twice (json would keep the last silently)."""
    found: dict[str, object] = {}
    for key, value in pairs:
        if key in found:
            raise BadBody(f"the body has the key {quote(key)} twice")
        found[key] = value
    return found


def _number(text: str) -> JsonNumber:
    """Stand in for a number without converting it."""
    return JsonNumber(text)


def _constant(name: str) -> object:
    """Refuse NaN, Infinity and -Infinity, which Python reads but JSON does not have."""
    raise BadBody(f"the body is not JSON: {name} is not a JSON value")


def _relay_request(data: object) -> RelayRequest:
    """Check the shape of the decoded body and take its lines out."""
    if not isinstance(data, dict):
        raise BadBody(f"the body is {kind(data)}, not an object: {USAGE}")
    unknown = sorted(set(data) - {"line", "lines"})
    if unknown:
        raise BadBody(f"unknown key {quote(unknown[0])}: {USAGE}")
    if "line" in data and "lines" in data:
        raise BadBody('send "line" or "lines", not both')
    if "line" in data:
        return RelayRequest((_line(data["line"], '"line"'),), batch=False)
    if "lines" not in data:
        raise BadBody(f"the body is an empty object: {USAGE}")
    lines = data["lines"]
    if not isinstance(lines, list):
        raise BadBody(f'"lines" is {kind(lines)}, not an array of strings')
    if not 1 <= len(lines) <= MAX_BATCH:
        raise BadBody(f'"lines" holds {len(lines)} lines; send 1 to {MAX_BATCH}')
    return RelayRequest(
        tuple(_line(line, f'line {k} of "lines"') for k, line in enumerate(lines, 1)),
        batch=True,
    )


def _line(value: object, where: str) -> str:
    """Return ``value`` if it is a string that can be sent as UTF-8; else say what is wrong."""
    if not isinstance(value, str):
        raise BadBody(f"{where} is {kind(value)}, not a string")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        code = ord(value[exc.start])
        raise BadBody(
            f"{where} holds a lone surrogate \\u{code:04x} at character {exc.start}, "
            "which is not a character"
        ) from None
    return value


def kind(value: object) -> str:
    """Name the JSON type of a decoded value, with its article."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    names = {dict: "an object", list: "an array", str: "a string", JsonNumber: "a number"}
    return names.get(type(value), type(value).__name__)


def quote(text: str) -> str:
    """Quote a client's text in JSON form, shortened, with any odd character escaped."""
    return json.dumps(text[:QUOTE_LIMIT]) + ("…" if len(text) > QUOTE_LIMIT else "")
