"""Reading equal-layout CSV bodies without the parser gives exactly the parser's columns."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from scorer.errors import ParticipantVisibleError
from scorer.read import files
from scorer.read.files import parse_csv
from scorer.read.fixed_lines import split_fixed_lines

LAYOUT = b"id,items\n" + b"".join(b"u%d,%d0 %d1\n" % (i, i, i) for i in range(10))


def _outcome(data: bytes, fixed_lines: bool) -> tuple:
    """What parse_csv makes of the bytes, with or without the equal-layout route."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(files, "FIXED_LINES_MIN_ROWS", 1 if fixed_lines else 10**12)
        try:
            table = parse_csv(data, "submission.csv", ParticipantVisibleError)
        except ParticipantVisibleError as exc:
            return ("error", str(exc))
    return (
        table.names,
        [column.type for column in table.columns],
        [column.to_pylist() for column in table.columns],
    )


def _body(data: bytes) -> np.ndarray:
    return np.frombuffer(data[data.index(b"\n") + 1 :], dtype=np.uint8)


@pytest.mark.parametrize("line_end", [b"\n", b"\r\n"])
def test_an_equal_layout_is_read_without_the_parser(line_end) -> None:
    data = LAYOUT.replace(b"\n", line_end)
    columns = split_fixed_lines(_body(data), 2)
    assert columns is not None
    assert [c.to_pylist() for c in columns] == [
        [f"u{i}" for i in range(10)],
        [f"{i}0 {i}1" for i in range(10)],
    ]
    assert _outcome(data, True) == _outcome(data, False)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (b"u3,30 31\n", b"u3,30,31\n"),  # a comma elsewhere: another column count
        (b"u3,30 31\n", b"u3,3031 \n"),  # same length, same commas: still read right
        (b"u3,30 31\n", b"u3,30\t31\n"),  # a tab
        (b"u3,30 31\n", b"u3,30\r31\n"),  # a carriage return
        (b"u3,30 31\n", b'u3,"0 31\n'),  # a quote
        (b"u3,30 31\n", b"u3,30\x0031\n"),  # a NUL byte
        (b"u3,30 31\n", "u3,3é31\n".encode()),  # not ASCII (and one byte longer)
        (b"u3,30 31\n", b"u3,3\xff 31\n"),  # not UTF-8 at all
        (b"u3,30 31\n", b"u33,0 31\n"),  # the comma moved
        (b"u9,90 91\n", b"u9,90 91"),  # no newline at the end
        (b"u9,90 91\n", b"u9,90 91\r\n"),  # one CRLF line
        (b"u3,30 31\n", b"u3,30 3\r\n"),  # one CRLF line of the same length
        (b"id,items\n", b"id,items\r\n"),  # a CRLF header
        (b"id,items\n", b"id,items\r"),  # a header ended by a lone CR
        (b"id,items\n", b"id,items,x\n"),  # three columns in the header
        (b"u3,30 31\n", b"u3,30 31\n\n"),  # an empty line
    ],
)
def test_any_other_layout_is_left_to_the_parser_with_the_same_outcome(old, new) -> None:
    data = LAYOUT.replace(old, new)
    assert data != LAYOUT
    assert _outcome(data, True) == _outcome(data, False)


@pytest.mark.parametrize("byte", [b'"', b"\xff", b"\x7f", b"\xe9", b"\t", b"\r", b"\x00"])
def test_a_quote_a_control_or_a_non_ascii_byte_is_left_to_the_parser(byte) -> None:
    """Checked by the route itself, not only by its callers (read_table looks for quotes
    and at the first 64 KiB's encoding before it)."""
    body = _body(LAYOUT.replace(b"u7,70", b"u7," + byte + b"0"))
    assert len(body) == len(_body(LAYOUT))
    assert split_fixed_lines(_body(LAYOUT), 2) is not None
    assert split_fixed_lines(body, 2) is None


PLAIN = b"ab ,-"
ODD = b'\n\r\t"\x00\xc3\xa9\x7f'


@settings(max_examples=300)
@given(
    st.lists(st.sampled_from(PLAIN * 8 + ODD), max_size=8),
    st.integers(1, 30),
    st.lists(st.tuples(st.integers(0, 400), st.sampled_from(PLAIN + ODD)), max_size=3),
    st.sampled_from([0, 0, 0, 1, -1]),
    st.sampled_from([b"\n", b"\r\n"]),
)
@example([ord("a"), ord(",")], 5, [], 0, b"\n")
@example([ord("\r")], 3, [], 0, b"\n")
def test_equal_layout_route_matches_the_parser_on_any_bytes(
    line, n_lines, edits, extra_columns, line_end
):
    """Equal lines (mostly plain bytes), then a few bytes changed anywhere; a header
    mostly with as many columns as the unchanged lines."""
    n_columns = max(bytes(line).count(b",") + 1 + extra_columns, 1)
    header = b",".join(b"c%d" % i for i in range(n_columns)) + line_end
    body = bytearray((bytes(line) + line_end) * n_lines)
    for position, byte in edits:
        body[position % len(body)] = byte
    data = header + bytes(body)
    assert _outcome(data, True) == _outcome(data, False)


def test_a_large_equal_layout_file_takes_the_route(tmp_path) -> None:
    """At the default threshold (50,000 lines) and above, read_table skips the parser."""
    n = files.FIXED_LINES_MIN_ROWS
    path = tmp_path / "submission.csv"
    path.write_bytes(
        b"id,items\n" + b"".join(b"%09d,%010d %010d\n" % (i, i, -i % n) for i in range(n))
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(files.pacsv, "read_csv", None)  # the parser cannot be called
        table = files.read_table(path, ParticipantVisibleError)
    assert table.column("id").to_pylist()[-1] == f"{n - 1:09d}"
    assert table.column("items").to_pylist()[1] == f"{1:010d} {n - 1:010d}"
