"""The per-row work that bounds memory: the same answers a block at a time.

Duplicate and first-occurrence finding, emptiness, prints and hits are made in blocks
(docs/formats-and-limits.md, "Resource contract"); these tests compare them with plain references
at block sizes small enough for every loop to take several turns.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer import ParticipantVisibleError, evaluate
from scorer.align import joins
from scorer.align.joins import StringIndex
from scorer.arrays import empty_strings
from tests.seams import collide_prints, small_blocks

ids = st.sampled_from(["a", "b", "c", "x", "y", "", "ab"])


@given(st.lists(st.one_of(ids, st.none()), max_size=14), st.integers(1, 4))
@settings(max_examples=80, deadline=None)
def test_first_of_self_given_matches_is_the_first_equal_string(values, chunk_rows) -> None:
    solution = ["b", "a", "ab"]  # "x", "y", "c" and "" are unmatched
    strings = pa.array(values, pa.large_string())
    with pytest.MonkeyPatch.context() as patch:
        small_blocks(patch, chunk_rows)
        matches = StringIndex(pa.array(solution, pa.large_string())).find(strings)
        first = StringIndex(strings).first_of_self(matches)
    expected = [-1 if v is None else values.index(v) for v in values]
    assert first.tolist() == expected
    assert matches.tolist() == [solution.index(v) if v in solution else -1 for v in values]


@given(st.lists(st.one_of(st.sampled_from(["", "a", "bc"]), st.none()), max_size=12))
@settings(max_examples=40, deadline=None)
def test_empty_strings_of_sliced_arrays(values) -> None:
    strings = pa.array(["zz", *values, "q"], pa.large_string()).slice(1, len(values))
    with pytest.MonkeyPatch.context() as patch:
        small_blocks(patch, 2)
        empty = empty_strings(strings).tolist()
        strict = empty_strings(strings, null_is_empty=False).tolist()
    assert empty == [v is None or v == "" for v in values]
    assert strict == [v == "" for v in values]


def _duplicates_line(row_ids: list[str]) -> str:
    """The 'found' line and examples of the duplicated-ids problem, from plain Python."""
    seen: dict[str, int] = {}
    first_repeats: dict[str, int] = {}
    extra = 0
    for row, value in enumerate(row_ids):
        if value in seen:
            extra += 1
            first_repeats.setdefault(value, row)
        else:
            seen[value] = row
    examples = sorted(first_repeats, key=str.encode)[:5]  # the smallest, in byte order
    n_ids = len(first_repeats)
    ids_text = f"{n_ids:,} row id{'s' if n_ids != 1 else ''}"
    rows_text = f"{extra:,} extra row{'s' if extra != 1 else ''}"
    return f"{ids_text} repeated, {rows_text} in the submission", examples


@given(
    st.lists(st.sampled_from(["u1", "u2", "u3", "u4", "v1", "v2", "v3"]), min_size=1, max_size=30)
)
@settings(max_examples=80, deadline=None)
def test_duplicated_ids_are_counted_and_shown_as_from_a_plain_scan(row_ids) -> None:
    # "u5" is never submitted: every submission misses it, so every one is refused.
    solution = pd.DataFrame({"id": ["u1", "u2", "u3", "u4", "u5"], "items": "a"})
    submission = pd.DataFrame({"id": row_ids, "items": "a"})
    found, examples = _duplicates_line(row_ids)
    messages = []
    for chunk_rows in (2, 3, 1 << 20):
        with pytest.MonkeyPatch.context() as patch:
            small_blocks(patch, chunk_rows)
            with pytest.raises(
                ParticipantVisibleError, match=r"Unknown|Missing|Duplicated"
            ) as error:
                evaluate(solution, submission, "id", unknown_row_ids="ignore")
            messages.append(str(error.value))
    if examples:
        assert found in messages[0]
        assert "examples (row ids): " + ", ".join(map(repr, examples)) in messages[0]
    assert messages[0] == messages[1] == messages[2]


@pytest.mark.parametrize("block_rows", [1, 3, 1 << 13])
def test_string_prints_of_many_lengths_in_small_blocks(block_rows) -> None:
    values = [f"{i % 7}" * (i % 5) for i in range(60)]
    strings = pa.array(values, pa.large_string())
    key = joins.print_key()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(joins, "_MIX_ROWS", block_rows)
        prints = joins.string_prints(strings, key).tolist()
    patched_equal = [[a == b for b in prints] for a in prints]
    assert patched_equal == [[a == b for b in values] for a in values]
    assert prints == joins.string_prints(strings, key).tolist()  # the default blocks


@pytest.mark.parametrize("collide", [False, True])
def test_repeated_relevant_items_score_alike_in_any_chunks(collide) -> None:
    """Every prediction matches a relevant item (one repeated along the row): the hits,
    first occurrences and scores are the same a few pairs and users at a time."""
    n = 40
    ids = [f"{i:04d}" for i in range(n)]
    solution = pd.DataFrame({"id": ids, "items": ["a1 b2" if i % 3 else "a1" for i in range(n)]})
    rows = ["a1 a1 b2 a1", "b2 b2 b2", "a1 c3 a1", "c3 c3"]
    submission = pd.DataFrame({"id": ids[::-1], "items": [rows[i % 4] for i in range(n)]})
    results = []
    for chunk_rows in (1 << 20, 3, 1):
        with pytest.MonkeyPatch.context() as patch:
            small_blocks(patch, chunk_rows)
            if collide:
                collide_prints(patch)
            result = evaluate(solution, submission, "id", metrics=["MAP@4", "nDCG@4", "P@4"])
        results.append((result.metrics, result.warnings, result.user_hits.tolist()))
    assert results[0] == results[1] == results[2]
    truth = [{"a1", "b2"} if i % 3 else {"a1"} for i in range(n)]
    predicted = [set(rows[(n - 1 - i) % 4].split()) for i in range(n)]
    assert results[0][2] == [len(truth[i] & predicted[i]) for i in range(n)]


def test_first_of_runs_keeps_each_key_s_first_position() -> None:
    keys = np.array([5, 2, 5, 5, 0, 2, 9])
    selected = np.array([True, True, False, True, True, True, False])
    out = np.full(len(keys), -7)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(joins, "BLOCK_ROWS", 2)
        joins._first_of_runs(keys, selected, out)
    assert out.tolist() == [0, 1, -7, 0, 4, 1, -7]


def test_id_hints_are_the_same_a_chunk_at_a_time() -> None:
    """Unknown ids repaired and looked up two at a time give the same hints."""
    solution = pd.DataFrame({"id": [f"u{i:03d}" for i in range(9)], "items": "a"})
    submitted = [" u000", "U001", "u002 ", "U003", "x", "u005", "U006", "y", "u008"]
    submission = pd.DataFrame({"id": submitted, "items": "a"})
    messages = []
    for chunk_rows in (1 << 20, 2, 1):
        with pytest.MonkeyPatch.context() as patch:
            small_blocks(patch, chunk_rows)
            with pytest.raises(ParticipantVisibleError, match="Unknown row ids") as error:
                evaluate(solution, submission, "id")
            messages.append(str(error.value))
    assert "2 submitted row ids would match once surrounding whitespace is removed" in messages[0]
    assert "3 submitted row ids would match once case is ignored" in messages[0]
    assert messages[0] == messages[1] == messages[2]
