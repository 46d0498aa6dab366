"""The bounded-cost routes of alignment against plain Python: the join of strings and
its codes, blank cells squeezed on their bytes, sparse wide rankings, a huge k."""

from __future__ import annotations

import sys
from fractions import Fraction
from itertools import pairwise

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer import ParticipantVisibleError, evaluate
from scorer.align import item_lists, joins
from scorer.align import rankings as rankings_module
from scorer.align.item_lists import ListCells, split_lists
from scorer.align.joins import StringIndex, sorted_codes
from tests.arrow_collisions import colliding_ids
from tests.declared import choices
from tests.seams import collide_prints

short_texts = st.text(alphabet="ab\u00e9 ", max_size=3)


@pytest.mark.parametrize("prints", ["keyed", "colliding"])
@given(
    st.lists(st.one_of(short_texts, st.none()), max_size=10),
    st.lists(short_texts, max_size=8),
    st.booleans(),
)
@settings(max_examples=60)
def test_string_index_is_a_first_match_lookup(
    prints: str, values: list, candidates: list[str], nulls: bool
) -> None:
    values = values if nulls else [v for v in values if v is not None]
    with pytest.MonkeyPatch.context() as patch:
        if prints == "colliding":
            collide_prints(patch)
        found = StringIndex(pa.array(candidates)).find(pa.array(values, pa.string()))
        itself = StringIndex(pa.array(values, pa.large_string())).first_of_self()
    expected = [candidates.index(v) if v in candidates else -1 for v in values]
    assert found.tolist() == expected
    assert itself.tolist() == [-1 if v is None else values.index(v) for v in values]


def test_string_prints_are_equal_for_equal_strings_only_and_keyed() -> None:
    strings = pa.array(["", "a", "ab", "ab", "abcdefghij", "abcdefghik", "a"], pa.large_string())
    key = joins.print_key()
    prints = joins.string_prints(strings, key).tolist()
    assert [[a == b for b in prints] for a in prints] == [
        [a == b for b in strings.to_pylist()] for a in strings.to_pylist()
    ]
    assert joins.string_prints(strings, key).tolist() == prints
    assert joins.string_prints(strings, joins.print_key()).tolist() != prints


def _reference_print(text: bytes, key: tuple[int, int]) -> int:
    """The documented print of one string, in plain Python: from the start mixed with
    the length, each 8-byte little-endian word (zero padded under 8 bytes; else at 0,
    8, ... and the last 8 bytes) XORed in, multiplied by the key's odd multiplier and
    XORed with itself shifted right by 29, modulo 2**64; as a signed 64-bit integer.
    A string of more than 512 bytes: the print of its 512-byte pieces' prints (the
    last piece shorter), 8 bytes each in the machine's order, as one string."""
    mask = 2**64 - 1
    if len(text) > 512:
        pieces = [text[at : at + 512] for at in range(0, len(text), 512)]
        prints = [
            (_reference_print(piece, key) & mask).to_bytes(8, sys.byteorder) for piece in pieces
        ]
        return _reference_print(b"".join(prints), key)
    width = len(text)
    value = key[1] ^ (width * 0x9E3779B97F4A7C15 & mask)
    if width < 8:
        words = [text.ljust(8, b"\0")] if width else []
    else:
        words = [text[at : at + 8] for at in [*range(0, width - 8, 8), width - 8]]
    for word in words:
        value = ((value ^ int.from_bytes(word, "little")) * key[0]) & mask
        value ^= value >> 29
    return value - 2**64 if value >= 2**63 else value


@given(
    st.lists(
        st.one_of(
            st.text(max_size=12),
            st.text(alphabet="ab\u00e9", min_size=250, max_size=400),
            st.builds(  # two levels of pieces
                lambda n, tail: "ab" * n + tail, st.integers(16_500, 17_000), st.text("ab")
            ),
        ),
        max_size=40,
    ),
    st.integers(0, 20),
    st.integers(0, 3),
    st.sampled_from([1, 2, 5, 1 << 18]),
)
@settings(max_examples=200, deadline=None)
def test_string_prints_are_the_documented_print_in_any_blocks(
    texts: list[str], width: int, offset: int, block_rows: int
) -> None:
    # Strings of many lengths (some of more than 64 words, mixed once every block is
    # done) and runs of one length (a whole block of them takes the bytes as they lie),
    # from a slice of a larger array.
    texts = [*texts, *(["x" * width] * len(texts))]
    strings = pa.array(["pad"] * offset + texts, pa.large_string()).slice(offset)
    key = joins.print_key()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(joins, "BLOCK_ROWS", block_rows)
        found = joins.string_prints(strings, key).tolist()
    assert found == [_reference_print(text.encode(), key) for text in texts]


@pytest.mark.parametrize("route", ["prints", "collisions"])
@given(st.lists(st.sampled_from(["ab", "ba", "aa", "bb"]), max_size=12))
@settings(max_examples=40)
def test_sorted_codes_are_equal_exactly_for_equal_strings(route: str, strings: list[str]) -> None:
    with pytest.MonkeyPatch.context() as patch:
        if route == "collisions":
            collide_prints(patch)
        codes = sorted_codes(pa.array(strings, pa.large_string())).tolist()
    assert [[a == b for b in codes] for a in codes] == [[a == b for b in strings] for a in strings]
    assert sorted(set(codes)) == list(range(len(set(strings))))


def test_ids_sharing_arrow_hash_are_joined_exactly() -> None:
    ids = colliding_ids(2000)
    values = pa.array([*ids[::-1], "x", ids[0]], pa.large_string())  # not fixed-width
    index = StringIndex(pa.array(ids, pa.large_string()))
    assert index.find(values).tolist() == [*range(1999, -1, -1), -1, 0]
    assert StringIndex(values).first_of_self().tolist() == [*range(2001), 1999]


@settings(max_examples=300)
@given(
    st.lists(
        st.one_of(
            st.lists(
                st.sampled_from([" ", "  ", "\t", "\u3000", "a", "bc", "\u00e9"]), max_size=10
            ).map("".join),
            st.none(),
        ),
        min_size=1,
        max_size=8,
    )
)
def test_list_cells_squeeze_whitespace_and_count_items_as_str_split(values: list) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(item_lists, "BLOCK_ROWS", 3)  # the running counts cross blocks
        cells = ListCells(pa.array(values, pa.large_string()))
        lengths = cells.lengths.tolist()
        lists = cells.split()
    expected = [(v or "").split() for v in values]
    assert cells.cells.to_pylist() == [" ".join(e) or None for e in expected]
    assert lengths == lists.lengths.tolist() == [len(e) for e in expected]
    assert lists.tokens.to_pylist() == [t for e in expected for t in e]


@given(
    st.lists(
        st.tuples(st.sampled_from(["a b", " c ", "", "12 7", "d\te", "8"]), st.booleans()),
        min_size=1,
        max_size=8,
    )
)
def test_a_missing_cell_is_empty_whatever_its_slot_holds(cells: list[tuple[str, bool]]) -> None:
    # Arrow may leave bytes in a null's slot: they are no items, in any blocks.
    texts = [text for text, _ in cells]
    valid = np.packbits(np.array([ok for _, ok in cells]), bitorder="little")
    whole = pa.array(texts, pa.large_string())
    buffers = [pa.py_buffer(valid), *whole.buffers()[1:]]
    masked = pa.Array.from_buffers(pa.large_string(), len(texts), buffers)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(item_lists, "BLOCK_ROWS", 2)
        list_cells = ListCells(masked)
        lengths = list_cells.lengths.tolist()
        lists = list_cells.split()
    expected = [text.split() if ok else [] for text, ok in cells]
    assert lengths == lists.lengths.tolist() == [len(e) for e in expected]
    assert lists.tokens.to_pylist() == [t for e in expected for t in e]


@pytest.mark.parametrize("at", range(1, 40))
def test_two_spaces_are_found_across_every_block_boundary(at: int) -> None:
    # Blocks of 16 bytes: the two spaces straddle a boundary at 15 | 16 and 31 | 32.
    cell = "a" * at + "  " + "b" * (40 - at)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(item_lists, "BLOCK_ROWS", 1)
        cells = ListCells(pa.array(["c d", cell], pa.large_string()))
    assert cells.cells.to_pylist() == ["c d", " ".join(cell.split())]


def test_blank_cells_make_no_token() -> None:
    lists = split_lists(pa.array([" " * 1000, "  a  ", " " * 5], pa.large_string()))
    assert (lists.lengths.tolist(), len(lists.tokens)) == ([0, 1, 0], 1)


def test_a_row_over_k_is_refused_from_its_count_before_its_items_are_made(monkeypatch) -> None:
    def no_split(self):
        raise AssertionError("an invalid submission's items were split")

    monkeypatch.setattr(ListCells, "split", no_split)
    solution = pd.DataFrame({"id": ["u1", "u2"], "items": ["a", "b"]})
    submission = pd.DataFrame({"id": ["u1", "u2"], "items": ["a " * 11, " \t b  "]})
    with pytest.raises(ParticipantVisibleError, match=r"1 row with more \(up to 11\)"):
        evaluate(solution, submission, "id", k=10)


rankings = st.lists(st.lists(st.sampled_from("abcdefghij"), max_size=40), min_size=1, max_size=8)


@settings(max_examples=60, deadline=None)
@given(rankings, rankings, choices("normalization"))
def test_sparse_rankings_score_bit_for_bit_as_dense_ones(truth, predicted, normalization) -> None:
    """Forced sparse or dense, the same AP of every user, to the last bit, and the same
    warnings (wider than 20 columns, where both add floats in rank order)."""
    n = min(len(truth), len(predicted))
    # rows of at most k = 35 items (a longer one is refused), and one row of 30: width > 20
    predicted = [*(row[:35] for row in predicted[: n - 1]), list("abcdefghij" * 3)]
    ids = [f"u{i}" for i in range(n)]
    solution = pd.DataFrame({"id": ids, "items": [" ".join(r) for r in truth[:n]]})
    submission = pd.DataFrame({"id": ids[::-1], "items": [" ".join(r) for r in predicted][::-1]})
    results = {}
    for sparse in (False, True):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(rankings_module, "_is_sparse", lambda *args, sparse=sparse: sparse)
            results[sparse] = evaluate(
                solution, submission, "id", k=35, normalization=normalization,
                empty_ground_truth="zero", per_user=True,
            )  # fmt: skip
    dense, sparse = results[False], results[True]
    assert np.array_equal(dense.per_user["ap"].to_numpy(), sparse.per_user["ap"].to_numpy())
    assert dense.per_user["hits"].tolist() == sparse.per_user["hits"].tolist()
    assert dense.score == sparse.score
    assert dense.warnings == sparse.warnings


def test_one_wide_row_is_kept_sparse() -> None:
    lists = split_lists(pa.array(["a b", " ".join(f"i{j}" for j in range(300)), *[""] * 8]))
    ranked = rankings_module.build_rankings(lists, np.arange(10)[::-1], 10, 300, pa.array(["i299"]))
    assert isinstance(ranked, rankings_module.SparseRankings)
    assert ranked.lengths.tolist() == [0] * 8 + [300, 2]


@pytest.mark.parametrize("k", [2**63 - 1, 2**63, 2**64 + 7, 10**30])
def test_a_k_past_int64_scores_as_any_k_past_every_row(k: int) -> None:
    solution = pd.DataFrame({"id": ["u1", "u2"], "items": ["a b c", "d"]})
    submission = pd.DataFrame({"id": ["u1", "u2"], "items": ["a x c", "y d"]})
    result = evaluate(solution, submission, "id", k=k)
    assert result.options.k == k
    # K past 20: AP is float64 per user ((1/1 + 2/3) / 3 in floats), whatever the rows'
    # widths; the mean is the correctly rounded mean of those floats.
    first = (1 / 1 + 2 / 3) / 3
    expected = float((Fraction(first) + Fraction(1, 2)) / 2)
    assert result.score == evaluate(solution, submission, "id", k=1000).score == expected


def test_duplicated_row_id_examples_are_distinct_ids() -> None:
    solution = pd.DataFrame({"id": ["a", "b", "c"], "items": ["x", "y", "z"]})
    ids = ["a"] * 7 + ["b", "b", "c", "z", "z"]
    submission = pd.DataFrame({"id": ids, "items": [""] * len(ids)})
    with pytest.raises(ParticipantVisibleError) as error:
        evaluate(solution, submission, "id")
    message = str(error.value)
    assert "3 row ids repeated, 8 extra rows" in message
    assert "examples (row ids): 'a', 'b', 'z'\n" in message
    assert "examples (row ids): 'z'\n" in message  # an unknown id, shown once


def test_huge_k_on_the_command_line(tmp_path) -> None:
    from scorer.adapters.cli import main

    path = tmp_path / "s.csv"
    path.write_text("id,items\nu1,a b\n")
    assert main([str(path), str(path), "-k", str(2**64)]) == 0


@settings(max_examples=100, deadline=None)
@given(
    texts=st.lists(st.one_of(st.sampled_from(["a  b", "\t7 x", "", " é"]), st.none()), max_size=12),
    data=st.data(),
)
def test_list_cells_of_a_column_in_chunks_are_the_joined_cells(texts, data) -> None:
    cuts = sorted(data.draw(st.lists(st.integers(0, len(texts)), max_size=4)))
    bounds = [0, *cuts, len(texts)]
    column = pa.array(texts, pa.large_string())
    chunks = [column.slice(a, b - a) for a, b in pairwise(bounds)]
    chunked = ListCells(pa.chunked_array(chunks, pa.large_string()))
    whole = ListCells(column)
    assert chunked.lengths.tolist() == whole.lengths.tolist()
    assert chunked.cells.to_pylist() == whole.cells.to_pylist()
    assert chunked.split().tokens.to_pylist() == whole.split().tokens.to_pylist()
