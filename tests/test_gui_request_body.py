"""The relay request's JSON body, read strictly (gui/request_body.py), in process."""

from __future__ import annotations

import json

import pytest

from gui.request_body import MAX_BATCH, BadBody, RelayRequest, parse_relay_body


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
