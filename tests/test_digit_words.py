"""Canonical integers read from the cells' bytes, eight digits at a time, against the
definition applied item by item."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.align import digit_words
from scorer.align.digit_words import cell_integers

# Every width the words read (1 to 10 digits and past them), the bytes just outside
# the digits ("/" and ":"), other digits, letters, a NUL and multi-byte characters.
_ITEM = st.one_of(
    st.integers(0, 10**11).map(str),
    st.sampled_from(
        ["0", "07", "2147483647", "2147483648", "4294967296", "1234567:90", "1/2345678"]
    ),
    st.text(alphabet="0123456789/:a\x00\u0663\u00e9\uffff", min_size=1, max_size=12),
)
_CELL = st.one_of(st.none(), st.lists(_ITEM, max_size=6).map(" ".join))


def _expected(cells: list[str | None]) -> tuple[list[int], list[int]] | None:
    """Per cell, its items split on single spaces; values only if every item is ASCII
    digits, canonical (``str(int(t)) == t``) and at most 2**31 - 1."""
    items = [[] if cell in (None, "") else cell.split(" ") for cell in cells]
    flat = [item for cell in items for item in cell]
    canonical = all(t.isascii() and t.isdigit() and str(int(t)) == t for t in flat)
    if not canonical or any(int(t) > 2**31 - 1 for t in flat):
        return None
    return [len(cell) for cell in items], [int(t) for t in flat]


@settings(max_examples=400, deadline=None)
@given(st.lists(_CELL, max_size=10), st.integers(0, 3), st.sampled_from([1, 2, 3, 1 << 16]))
def test_values_are_the_items_read_one_by_one(cells, skipped, at_once) -> None:
    """The words read near the end of the bytes and of a slice, in arrays that start
    at an offset, a few items at a time, give exactly what reading each item on its
    own gives."""
    array = pa.array([None] * skipped + cells, pa.large_string()).slice(skipped)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(digit_words, "ITEMS_AT_ONCE", at_once)
        found = cell_integers(array)
    expected = _expected(cells)
    assert (found is None) == (expected is None)
    if expected is not None:
        assert (found[0].tolist(), found[1].tolist()) == expected
        assert found[1].dtype.name == "int64"


@pytest.mark.parametrize(
    ("cells", "expected"),
    [
        (["1 23 456", "7890 12345", "678901 2345678 23456789"], [1, 23, 456, 7890, 12345]),
        (["123456789 1234567890 2147483647 0"], [123456789, 1234567890, 2147483647, 0]),
    ],
)
def test_every_width_to_ten_digits(cells, expected) -> None:
    lengths, values = cell_integers(pa.array(cells, pa.large_string()))
    assert values.tolist()[: len(expected)] == expected
    assert lengths.sum() == len(values)


@pytest.mark.parametrize(
    "item",
    ["2147483648", "12345678901", "0123", "12:4", "1/34", "9\u0663", "1234567:90", "1/2345678"],
)
def test_an_item_that_is_no_canonical_int32_is_refused(item) -> None:
    assert cell_integers(pa.array(["5 " + item + " 6"], pa.large_string())) is None


def test_a_null_cell_that_holds_bytes_is_refused() -> None:
    array = pa.array(["12", "34"], pa.large_string())
    with_null = pa.LargeStringArray.from_buffers(
        2, array.buffers()[1], array.buffers()[2], pa.py_buffer(bytes([0b01])), null_count=1
    )
    assert cell_integers(with_null) is None


def test_values_are_written_where_asked_if_they_fit() -> None:
    cells = pa.array(["3 1", "4"], pa.large_string())
    out = np.zeros(3, dtype=np.int32)
    lengths, values = cell_integers(cells, out)
    assert values is out
    assert (lengths.tolist(), out.tolist()) == ([2, 1], [3, 1, 4])
    assert cell_integers(cells, np.zeros(2, dtype=np.int32)) is None


@pytest.mark.parametrize("cells", [["1 2 ", "3"], ["1 "], [" 1"], ["1  2"], [" "]])
def test_cells_not_single_spaced_are_refused(cells) -> None:
    """Cells whose spaces are not single and between items (which the lists' reader
    rewrites before they come here) are refused, never read wrongly."""
    assert cell_integers(pa.array(cells, pa.large_string())) is None
