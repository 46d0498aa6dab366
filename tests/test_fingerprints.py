"""Fingerprints and the numpy hash table against plain Python, collisions forced."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.align import fingerprints
from scorer.align.fingerprints import KeyIndex

INT64 = st.integers(-(2**63), 2**63 - 1)


def _check_against_a_dict(keys: list[int], probes: list[int], multiplier=None) -> None:
    index = KeyIndex(np.array(keys, dtype=np.int64), multiplier)
    assert index.unique == (len(set(keys)) == len(keys))
    if not index.unique:
        with pytest.raises(ValueError, match="repeated keys cannot be probed"):
            index.find(np.array(probes, dtype=np.int64))
        return
    position = {key: i for i, key in enumerate(keys)}
    found = index.find(np.array(probes, dtype=np.int64))
    assert found.dtype == np.int32
    assert found.tolist() == [position.get(p, -1) for p in probes]


@settings(max_examples=300)
@given(st.lists(INT64, max_size=60), st.lists(INT64, max_size=30), st.data())
def test_key_index_is_a_dict(keys: list[int], others: list[int], data) -> None:
    probes = others + data.draw(st.lists(st.sampled_from(keys), max_size=30)) if keys else others
    _check_against_a_dict(keys, probes)


def _last_slot(index: KeyIndex, keys: np.ndarray) -> np.ndarray:
    return np.full(len(keys), index._last_slot, dtype=np.int64)


@pytest.mark.parametrize("slot", ["first", "last"])
@settings(max_examples=100)
@given(st.lists(st.integers(-50, 50), max_size=80), st.lists(st.integers(-60, 60), max_size=80))
def test_key_index_with_every_key_in_one_slot(slot: str, keys, probes) -> None:
    """Every key in the same slot: long probe chains (from the last slot: wrapping)."""
    if slot == "first":
        _check_against_a_dict(keys, probes, multiplier=0)
        return
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(KeyIndex, "_slots", _last_slot)
        _check_against_a_dict(keys, probes)


def test_an_empty_key_index_finds_nothing() -> None:
    index = KeyIndex(np.array([], dtype=np.int64))
    assert index.unique
    assert index.find(np.array([0, 5])).tolist() == [-1, -1]


@settings(max_examples=100)
@given(st.integers(1, 20), st.integers(1, 4), st.integers(1, 30), st.data())
def test_fingerprints_of_strings_per_row_are_those_of_each_string(n, m, width, data) -> None:
    raw = data.draw(st.binary(min_size=n * m * width, max_size=n * m * width))
    strings = np.frombuffer(raw, dtype=np.uint8).reshape(n, m, width)
    together = fingerprints.fingerprints(strings)
    assert together.shape == (n, m)
    for column in range(m):
        alone = fingerprints.fingerprints(np.ascontiguousarray(strings[:, column]))
        assert together[:, column].tolist() == alone.tolist()
    flat = strings.reshape(n * m, width)
    equal = {(i, j) for i in range(n * m) for j in range(n * m) if bytes(flat[i]) == bytes(flat[j])}
    prints = together.reshape(-1)
    assert all(prints[i] == prints[j] for i, j in equal)


@settings(max_examples=200)
@given(st.integers(1, 40), st.data())
def test_rows_equal_but_for_the_last_word_never_share_a_fingerprint(width, data) -> None:
    """Why rows_match(same_prints=True) may skip the last word: with the previous words
    equal, the fingerprint is a bijection of the last one."""
    n = 50
    raw = data.draw(st.binary(min_size=n * width, max_size=n * width))
    rows = np.frombuffer(raw, dtype=np.uint8).reshape(n, width).copy()
    last = slice(max(width - 8, 0), width)  # the bytes the last word covers
    other = rows.copy()
    other[:, last] = np.random.default_rng(width).integers(0, 256, other[:, last].shape)
    differ = (rows != other).any(axis=1)
    prints, other_prints = fingerprints.fingerprints(rows), fingerprints.fingerprints(other)
    assert not (differ & (prints == other_prints)).any()


def test_keys_crafted_into_one_slot_under_one_multiplier_spread_under_the_next() -> None:
    """A submission can choose its row ids, hence their fingerprints; it cannot know
    the multiplier a table will draw, so it cannot pile them into one slot."""
    multiplier = int(KeyIndex(np.array([1], dtype=np.int64))._multiplier)
    # Keys that multiplier sends to slot 0 of any table: k * m mod 2**64 is tiny.
    inverse = pow(multiplier, -1, 2**64)
    crafted = np.array([(i * inverse) % 2**64 for i in range(1, 2_001)], dtype=np.uint64)
    crafted = crafted.view(np.int64)
    piled = KeyIndex(crafted, multiplier)
    assert (piled._slots(crafted) == 0).all()
    index = KeyIndex(crafted)
    assert np.bincount(index._slots(crafted)).max() < 50
    assert index.unique and index.find(crafted).tolist() == list(range(2_000))


@settings(max_examples=100)
@given(st.integers(0, 20), st.integers(1, 4), st.integers(1, 12), st.integers(0, 3), st.data())
def test_short_fingerprints_of_strided_rows_in_any_order(n, m, width, gap, data) -> None:
    """Rank-major low halves of the fingerprints of ``rows[order]``, where the rows are
    a strided view of strings with ``gap`` bytes between them (as in split lists)."""
    row_bytes = m * (width + gap) + 3
    raw = data.draw(st.binary(min_size=n * row_bytes, max_size=n * row_bytes))
    cells = np.frombuffer(raw, dtype=np.uint8).reshape(n, row_bytes)
    strings = np.lib.stride_tricks.as_strided(cells, (n, m, width), (row_bytes, width + gap, 1))
    order = np.array(data.draw(st.lists(st.integers(0, max(n - 1, 0)), max_size=30)) if n else [])
    order = order.astype(np.int64)
    taken = fingerprints.take_rows(strings, order)
    assert taken.tolist() == strings[order].tolist()
    expected = fingerprints.fingerprints(np.ascontiguousarray(strings[order]))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fingerprints, "_BLOCK_ROWS", 4)  # several blocks
        short = fingerprints.short_fingerprints(strings, order)
    assert short.shape == (m, len(order)) and short.dtype == np.int32
    assert short.tolist() == expected.T.astype(np.int32).tolist()
    assert fingerprints.short_fingerprints(strings).tolist() == (
        fingerprints.fingerprints(strings).T.astype(np.int32).tolist()
    )


@settings(max_examples=100)
@given(st.integers(1, 20), st.integers(1, 4), st.integers(1, 12), st.integers(0, 3), st.data())
def test_take_strings_of_strided_rows(n, m, width, gap, data) -> None:
    """Strings picked by (row, rank) from a strided view with ``gap`` bytes between
    them, as numpy's fancy indexing picks them."""
    row_bytes = m * (width + gap) + 3
    raw = data.draw(st.binary(min_size=n * row_bytes, max_size=n * row_bytes))
    cells = np.frombuffer(raw, dtype=np.uint8).reshape(n, row_bytes)
    strings = np.lib.stride_tricks.as_strided(cells, (n, m, width), (row_bytes, width + gap, 1))
    picks = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, m - 1))))
    rows = np.array([r for r, _ in picks], dtype=np.int64)
    ranks = np.array([c for _, c in picks], dtype=np.int64)
    taken = fingerprints.take_strings(strings, rows, ranks)
    assert taken.shape == (len(picks), width)
    assert taken.tolist() == strings[rows, ranks].tolist()


def test_take_strings_copies_what_it_cannot_view_as_records() -> None:
    matrix = np.arange(12, dtype=np.int64).reshape(3, 4)
    taken = fingerprints.take_strings(matrix, np.array([2, 0]))
    assert taken.tolist() == [[8, 9, 10, 11], [0, 1, 2, 3]]
    backwards = np.frombuffer(b"abcdef", dtype=np.uint8).reshape(2, 3)[::-1]
    assert fingerprints.take_strings(backwards, np.array([0])).tolist() == [[100, 101, 102]]


def test_take_rows_copies_what_it_cannot_view_as_spans() -> None:
    matrix = np.arange(12, dtype=np.int64).reshape(3, 4)
    assert fingerprints.take_rows(matrix, np.array([2, 0])).tolist() == matrix[[2, 0]].tolist()
    backwards = np.frombuffer(b"abcdef", dtype=np.uint8).reshape(2, 3)[:, ::-1]
    assert fingerprints.take_rows(backwards, np.array([1])).tolist() == [[102, 101, 100]]


@pytest.mark.parametrize("collide", [False, True])
@settings(max_examples=100)
@given(st.integers(0, 12), st.integers(1, 5), st.integers(1, 20), st.data())
def test_first_of_strings_is_a_first_occurrence_by_bytes(collide, n, m, width, data) -> None:
    """Strings from a two-letter alphabet repeat often; with every fingerprint equal
    (``collide``), only the byte comparison can tell them apart."""
    raw = data.draw(
        st.lists(st.sampled_from(b"ab"), min_size=n * m * width, max_size=n * m * width)
    )
    rows = np.array(raw, dtype=np.uint8).reshape(n, m, width)
    expected = [
        [bytes(row[j]) not in {bytes(row[i]) for i in range(j)} for j in range(m)] for row in rows
    ]
    with pytest.MonkeyPatch.context() as patch:
        if collide:
            patch.setattr(fingerprints, "_FINGERPRINT_MULTIPLIER", np.uint64(0))
            patch.setattr(fingerprints, "fingerprints", lambda r: np.zeros(r.shape[:-1], np.int64))
        assert fingerprints.first_of_strings(rows).tolist() == expected
