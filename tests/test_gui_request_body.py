"""The relay request's JSON body, read strictly (gui/request_body.py), in process."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from gui.request_body import (
    MAX_BATCH,
    BadBody,
    MoveRequest,
    RecordRequest,
    RelayRequest,
    StopRequest,
    parse_move_body,
    parse_record_body,
    parse_relay_body,
    parse_stop_body,
)


@pytest.mark.parametrize(
    "body,request_",
    [
        (b'{"line": "status"}', RelayRequest(("status",), batch=False)),
        (b'{"lines": ["status"]}', RelayRequest(("status",), batch=True)),
        (b' {"lines" : ["a", "b"]}\n', RelayRequest(("a", "b"), batch=True)),
        # Escapes are decoded; a surrogate pair is one character, not a lone surrogate.
        (b'{"line": "name \\u00e9 \\ud83d\\ude00"}', RelayRequest(("name é 😀",), batch=False)),
        ('{"line": "name é"}'.encode(), RelayRequest(("name é",), batch=False)),
        (
            json.dumps({"lines": ["x"] * MAX_BATCH}).encode(),
            RelayRequest(("x",) * MAX_BATCH, batch=True),
        ),
    ],
)
def test_requests_are_read(body: bytes, request_: RelayRequest) -> None:
    """The two shapes the page sends are read as they are meant."""
    assert parse_relay_body(body) == request_


def test_a_number_is_never_converted() -> None:
    """An integer of a million digits is refused as a number, not converted (which Python
    refuses past 4,300 digits with a ValueError of its own)."""
    with pytest.raises(BadBody, match='"line" is a number, not a string'):
        parse_relay_body(b'{"line": ' + b"7" * 1_000_000 + b"}")


def test_messages_quote_the_clients_text_short_and_escaped() -> None:
    """A key named in a message is cut short and escaped, so that the message itself can
    always be sent back as UTF-8."""
    long_key = "k" * 1000
    with pytest.raises(BadBody) as refused:
        parse_relay_body(json.dumps({long_key: 1, "line": "x"}).encode())
    assert str(refused.value).startswith(f'unknown key "{"k" * 40}"…: send ')
    with pytest.raises(BadBody) as refused:
        parse_relay_body(b'{"\\ud800": 1, "\\ud800": 2}')
    assert str(refused.value) == 'the body has the key "\\ud800" twice'
    str(refused.value).encode("utf-8")


@pytest.mark.parametrize(
    "body,message",
    [
        (b'{"line": "a", "line": "a"}', 'the body has the key "line" twice'),
        (b'{"line": 1.5}', '"line" is a number, not a string'),
        (b'{"line": {}}', '"line" is an object, not a string'),
        (b'{"line": false}', '"line" is false, not a string'),
        (b'{"lines": [null]}', 'line 1 of "lines" is null, not a string'),
        (b'{"lines": ["a", "\\udfff"]}', 'line 2 of "lines" holds a lone surrogate \\udfff'),
        (b'{"line": Infinity}', "the body is not JSON: Infinity is not a JSON value"),
        (b"\xc3\x28", "the body is not UTF-8: byte 0xc3 at offset 0"),
        (b"[" * 5000, "the body nests arrays or objects too deeply"),
    ],
)
def test_refusals_name_the_problem(body: bytes, message: str) -> None:
    """Each refusal says what is wrong, and where."""
    with pytest.raises(BadBody) as refused:
        parse_relay_body(body)
    assert str(refused.value).startswith(message)


@pytest.mark.parametrize(
    "body,request_",
    [
        (b'{"game": 12, "color": "b"}', MoveRequest(12, "b")),
        (b'{"color": "white", "game": 0}', MoveRequest(0, "white")),
        (b'{"game": 999999999999999999, "color": "w"}', MoveRequest(999_999_999_999_999_999, "w")),
    ],
)
def test_move_requests_are_read(body: bytes, request_: MoveRequest) -> None:
    """The computer's move is asked with the game's version and a colour."""
    assert parse_move_body(body) == request_


@pytest.mark.parametrize(
    "parse,body,message",
    [
        (parse_move_body, b'{"game": 1}', 'the key "color" is missing: send {"game"'),
        (parse_move_body, b'{"game": 1, "color": "b", "x": 1}', 'unknown key "x": send'),
        (parse_move_body, b'{"game": 1, "color": "B"}', '"color" is "B", not one of w, b, white'),
        (parse_move_body, b'{"game": true, "color": "b"}', '"game" is true, not a number'),
        (parse_move_body, b'{"game": 1e3, "color": "b"}', '"game" must be a whole number'),
        (parse_move_body, b'{"game": -0, "color": "b"}', '"game" must be a whole number'),
        (
            parse_stop_body,
            b'{"game": ' + b"9" * 19 + b"}",
            '"game" must be a whole number of at most 18 digits',
        ),
        (parse_stop_body, b"[1]", "the body is an array, not an object"),
        (parse_stop_body, b'{"game": NaN}', "the body is not JSON: NaN is not a JSON value"),
        (parse_record_body, b'{"text": 1, "name": "a"}', '"text" is a number, not a string'),
        (parse_record_body, b'{"text": "", "name": ""}', '"name" must be 1 to 255 characters'),
        (parse_record_body, b'{"text": "", "name": "a\\nb"}', '"name" must be 1 to 255 characters'),
        (parse_record_body, b'{"text": "\\ud800", "name": "a"}', '"text" holds a lone surrogate'),
    ],
)
def test_other_requests_refuse_what_is_not_theirs(
    parse: Callable[[bytes], object], body: bytes, message: str
) -> None:
    """Each endpoint's body is read as strictly as the relay's, naming the problem."""
    with pytest.raises(BadBody) as refused:
        parse(body)
    assert str(refused.value).startswith(message)


def test_records_and_stops_are_read() -> None:
    """A record comes with its file name; a stop names a version."""
    assert parse_record_body(b'{"text": "Size: 3\\n", "name": "g.txt"}') == RecordRequest(
        "Size: 3\n", "g.txt"
    )
    assert parse_stop_body(b'{"game": 7}') == StopRequest(7)
