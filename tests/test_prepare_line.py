"""The fast path of line preparation gives exactly what the plain definition gives.

500 examples a run, always the same ones; `make sweep` draws ten times as many fresh ones.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kernel.protocol import clean_line, decode_line, prepare_line
from tests.sweep import SWEEP

# Bytes that matter here: controls, tab, CR, DEL, C1 controls in UTF-8, broken UTF-8.
INTERESTING = st.sampled_from(
    [b"\x00", b"\t", b"\r", b"\n", b"\x1b", b"\x7f", b"\xc2\x85", b"\xc2\x9f", b"\xff", b"\xe2"]
)
CHUNKS = st.one_of(st.binary(max_size=8), INTERESTING, st.text(max_size=6).map(str.encode))


@settings(max_examples=500 * SWEEP)
@given(st.lists(CHUNKS, max_size=12).map(b"".join))
def test_prepare_line_is_clean_line_of_the_decoded_bytes(raw: bytes) -> None:
    assert prepare_line(raw) == clean_line(decode_line(raw))


def test_controls_go_and_tabs_become_spaces() -> None:
    assert prepare_line(b"1\tname\r") == "1 name"
    assert prepare_line(b"na\x00me\x1b") == "name"
    assert prepare_line("n\u0085ame".encode()) == "name"
    assert prepare_line(b"\xffname") == "\ufffdname"
