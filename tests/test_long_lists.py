"""A long file's pivoted item lists reach the checks as lists, never joined into text
and split again: every outcome (score, warnings, problems) equals the one the joined
text gives, whatever the options that read a cell's text; the lists' own split
(:class:`~scorer.align.item_lists.ListCells` of a ``large_list``) equals the text's;
run heads are told distinct by their fingerprints, and by their bytes once two meet.
"""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorer import HostVisibleError, ParticipantVisibleError, evaluate
from scorer.align import item_lists, joins
from scorer.align.item_lists import ListCells, joined_lists
from scorer.check.shapes import read_submission
from scorer.read.columns import StringTable

BUDGET = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TOKENS = ["a", "b", "ab", "0706016001", "é", "x,y", "None"]
LISTS = pa.large_list(pa.large_string())


def _joined_reference(read_submission):
    """``read_submission`` as it was: the pivot's lists joined into text."""

    def joined(*args, **kwargs):
        table, found = read_submission(*args, **kwargs)
        columns = tuple(
            joined_lists(c) if pa.types.is_large_list(c.type) else c for c in table.columns
        )
        return StringTable(table.names, columns), found

    return joined


def _outcome(solution: pd.DataFrame, submission: pd.DataFrame, options: dict) -> tuple:
    try:
        result = evaluate(solution, submission, "id", layout="long", **options)
    except (ParticipantVisibleError, HostVisibleError) as exc:
        return (type(exc).__name__, str(exc))
    warnings = tuple((w.code, w.count, w.examples) for w in result.warnings)
    return (result.metrics, warnings)


@st.composite
def long_cases(draw: st.DrawFn) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    ids = [f"u{i}" for i in range(draw(st.integers(1, 6)))]
    truth = [" ".join(draw(st.lists(st.sampled_from(TOKENS[:5]), max_size=3))) for _ in ids]
    rows = []
    listed = draw(st.lists(st.sampled_from([*ids, "stranger"]), unique=True, max_size=7))
    for row_id in listed:
        items = draw(st.lists(st.sampled_from(TOKENS), max_size=5))
        if not items:
            rows.append((row_id, "", ""))  # a row id listed without an item
        ranks = st.lists(st.integers(1, 30), min_size=len(items), max_size=len(items), unique=True)
        ranks = sorted(draw(ranks))
        rows += [(row_id, item, str(rank)) for item, rank in zip(items, ranks, strict=True)]
    if draw(st.booleans()):
        rows = draw(st.permutations(rows))
    options = {
        "k": draw(st.integers(1, 4)),
        "rank_column_name": "rank",
        "empty_token": draw(st.sampled_from([None, "None"])),
        "missing_rows": draw(st.sampled_from(["error", "empty"])),
        "extra_predictions": draw(st.sampled_from(["error", "truncate"])),
        "unknown_row_ids": draw(st.sampled_from(["error", "ignore"])),
        "metrics": ["MAP@4", "P@2"],
    }
    solution = pd.DataFrame({"id": ids, "items": truth})
    submission = pd.DataFrame(rows, columns=["id", "items", "rank"]).astype(str)
    return solution, submission, options


@BUDGET
@given(long_cases())
def test_pivoted_lists_score_as_their_joined_text_under_every_option(case) -> None:
    solution, submission, options = case
    got = _outcome(solution, submission, options)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("scorer.pipeline.read_submission", _joined_reference(read_submission))
        expected = _outcome(solution, submission, options)
    assert got == expected


@st.composite
def item_lists_of(draw: st.DrawFn) -> list[list[str]]:
    if draw(st.booleans()):  # m items of w bytes in every list: the byte-view route
        width, m = draw(st.integers(1, 3)), draw(st.integers(0, 3))
        token = st.text("ab01", min_size=width, max_size=width)
        return draw(st.lists(st.lists(token, min_size=m, max_size=m), min_size=1, max_size=8))
    token = st.text("ab01é,", min_size=1, max_size=3)
    return draw(st.lists(st.lists(token, max_size=4), max_size=8))


@settings(max_examples=200, deadline=None)
@given(item_lists_of(), st.integers(0, 2))
def test_list_cells_of_lists_split_as_the_joined_text(lists, skip) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(item_lists, "FIXED_WIDTH_MIN_ROWS", 1)  # the byte view at any size
        array = pa.array(lists, LISTS).slice(min(skip, len(lists)))
        from_lists = ListCells(array)
        from_text = ListCells(joined_lists(array))
        split, expected = from_lists.split(), from_text.split()
    assert from_lists.lengths.tolist() == from_text.lengths.tolist()
    assert split.tokens.to_pylist() == expected.tokens.to_pylist()
    assert split.tokens.type == pa.large_string()
    widths = {len(t.encode()) for row in lists[skip:] for t in row}
    uniform = len(widths) == 1 and len({len(row) for row in lists[skip:]}) == 1
    assert (split.uniform is not None) == uniform


def test_a_missing_list_is_not_taken_for_an_empty_one() -> None:
    with pytest.raises(ValueError, match="no missing list"):
        ListCells(pa.array([["a"], None], LISTS))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["aa", "ab", "ba", "bb", "b", ""]), max_size=12), st.booleans())
def test_strings_distinct_is_whether_no_two_are_equal(strings, colliding) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(joins, "FIXED_WIDTH_MIN_ROWS", 1)
        if colliding:  # as if two fingerprints met: the bytes decide
            patch.setattr(joins, "_prints_distinct", lambda rows: False)
        got = joins.strings_distinct(pa.array(strings, pa.large_string()))
    assert got == (len(set(strings)) == len(strings))
