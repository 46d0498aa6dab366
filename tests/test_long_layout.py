"""The long layout's pivot to the wide form, against a slow reference written from the
rules: ranks (whole numbers >= 1, no duplicate within a row id), scores (finite numbers,
higher first, ties by item id in byte order) or file order; long solutions with grades.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer import ParticipantVisibleError, evaluate
from scorer.align.long_layout import long_solution_to_wide, long_to_wide, sort_order
from scorer.check.findings import Wording, problems
from tests.long_cases import RANKS, ROW_IDS, grouped_ranked_rows, rows_strategy


def words(records):
    """The pivot's records in words, as a message gives them."""
    return problems(records, Wording())


SCORES = ["0", "1", "-1", "0.5", "1e308", "-1e308", "1e-320", "4.9e-324", "-0", "+2", ".5", "5."]
BAD_SCORES = ["nan", "NaN", "inf", "-inf", "1e999", "abc", "", "0x10", "1_0"]
DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def reference_long_to_wide(rows, mode):
    """(row ids in byte order, lists best first, problem titles with their example row
    ids): one row at a time, in Python."""
    by_id: dict[str, list] = {}
    flagged: dict[str, set] = {}

    def flag(title, row_id):
        flagged.setdefault(title, set()).add(row_id)

    for position, (row_id, cell, value) in enumerate(rows):
        entries = by_id.setdefault(row_id, [])
        tokens = cell.split()
        if len(tokens) > 1:
            flag("Several items in one cell", row_id)
        if len(tokens) != 1:
            continue
        if mode == "rank":
            text = value.strip()
            if not (re.fullmatch(r"[0-9]{1,18}", text) and int(text) >= 1):
                flag("Invalid ranks", row_id)
                key = (0,)
            else:
                key = (int(text),)
        elif mode == "score":
            text = value.strip()
            if not (DECIMAL.fullmatch(text) and math.isfinite(float(text))):
                flag("Invalid scores", row_id)
                number = 0.0
            else:
                number = float(text)
            key = (-number, tokens[0].encode())
        else:
            key = (position,)
        entries.append((key, tokens[0]))
    if mode == "rank":
        for row_id, entries in by_id.items():
            ranks = [key[0] for key, _ in entries if key[0] > 0]
            if len(ranks) != len(set(ranks)):
                flag("Duplicated ranks", row_id)
    order = sorted(by_id, key=str.encode)
    lists = [[item for _, item in sorted(by_id[r], key=lambda e: e[0])] for r in order]
    problems = {t: tuple(sorted(ids, key=str.encode)[:5]) for t, ids in flagged.items()}
    return order, lists, problems


def fast(rows, mode):
    ids = pa.array([r[0] for r in rows], pa.large_string())
    cells = pa.array([r[1] for r in rows], pa.large_string())
    values = pa.array([r[2] for r in rows], pa.large_string())
    wide = long_to_wide(
        ids,
        cells,
        ranks=values if mode == "rank" else None,
        scores=values if mode == "score" else None,
    )
    return wide


def _check(rows, mode):
    expected_ids, expected_lists, expected_problems = reference_long_to_wide(rows, mode)
    wide = fast(rows, mode)
    # Row ids in byte order, or in the file's order when it is grouped and ranked.
    ids = wide.row_ids.to_pylist()
    assert sorted(ids) == expected_ids
    found = {p.title: p.examples for p in words(wide.problems)}
    assert found == expected_problems
    if not expected_problems:
        assert dict(zip(ids, wide.items.to_pylist(), strict=True)) == dict(
            zip(expected_ids, expected_lists, strict=True)
        )
    return wide


@settings(max_examples=300, deadline=None)
@given(grouped_ranked_rows(), st.randoms())
def test_grouped_ranked_files_pivot_as_the_reference_without_a_sort(rows, rnd):
    wide = _check(rows, "rank")
    ids = [r[0] for r in rows]
    assert wide.row_ids.to_pylist() == list(dict.fromkeys(ids))  # the file's order: no sort
    shuffled = list(rows)
    rnd.shuffle(shuffled)  # no longer grouped: the general path, the same pivot
    _assert_same_pivot(wide, fast(shuffled, "rank"))


@settings(max_examples=300, deadline=None)
@given(rows_strategy(RANKS))
def test_ranks_pivot_as_the_reference(rows):
    _check(rows, "rank")


@settings(max_examples=300, deadline=None)
@given(rows_strategy(SCORES + BAD_SCORES))
def test_scores_pivot_as_the_reference(rows):
    _check(rows, "score")


@settings(max_examples=200, deadline=None)
@given(rows_strategy([""]))
def test_file_order_pivots_as_the_reference(rows):
    _check(rows, "file")


@settings(max_examples=200, deadline=None)
@given(rows_strategy(RANKS + SCORES), st.sampled_from(["rank", "score"]), st.randoms())
def test_pivot_is_bit_identical_under_row_shuffles(rows, mode, rnd):
    shuffled = list(rows)
    rnd.shuffle(shuffled)
    one, other = fast(rows, mode), fast(shuffled, mode)
    _assert_same_pivot(one, other)


def _assert_same_pivot(one, other):
    """Each row id's list, the problems and the repeats the same, bit for bit (the row
    ids' order is byte order, or a grouped and ranked file's own: the wide form's
    results never depend on it)."""
    assert sorted(one.row_ids.to_pylist()) == sorted(other.row_ids.to_pylist())
    for wide in (one, other):
        assert len(set(wide.row_ids.to_pylist())) == len(wide.row_ids)

    def by_id(wide, values):
        return dict(zip(wide.row_ids.to_pylist(), values, strict=True))

    assert by_id(one, one.items.to_pylist()) == by_id(other, other.items.to_pylist())
    assert one.problems == other.problems
    assert one.n_repeated_pairs == other.n_repeated_pairs
    if one.repeated is not None:
        assert by_id(one, one.repeated.tolist()) == by_id(other, other.repeated.tolist())


def test_repeated_pairs_keep_their_slot_and_are_counted():
    wide = long_to_wide(
        pa.array(["u", "u", "u", "v"]),
        pa.array(["a", "b", "a", "a"]),
        pa.array(["1", "2", "3", "1"]),
    )
    assert wide.items.to_pylist() == [["a", "b", "a"], ["a"]]
    assert (wide.n_repeated_pairs, wide.repeated.tolist()) == (1, [True, False])


def test_score_ties_break_by_item_bytes_not_file_order():
    ids = pa.array(["q"] * 4)
    items = pa.array(["b", "é", "B", "a"])
    scores = pa.array(["1", "1", "1.0", "2"])
    assert long_to_wide(ids, items, scores=scores).items.to_pylist() == [["a", "B", "b", "é"]]


def test_extreme_scores_order_by_value():
    items = pa.array(["max", "tiny", "zero", "negzero", "low"])
    scores = pa.array(["1.7976931348623157e308", "4.9e-324", "0", "-0", "-1e308"])
    wide = long_to_wide(pa.array(["q"] * 5), items, scores=scores)
    assert wide.items.to_pylist() == [["max", "tiny", "negzero", "zero", "low"]]


def test_messages_are_exact():
    ids = pa.array(["u2", "u1", "u1", "u3", "u3", "u4"])
    items = pa.array(["a", "b c", "d", "e", "f", "g"])
    ranks = pa.array(["1", "1", "x", "2", "2", "0"])
    text = "\n".join(p.render() for p in words(long_to_wide(ids, items, ranks=ranks).problems))
    assert text == (
        "Several items in one cell\n"
        "   expected: one item id per row in 'item' (the long layout: one row per row id and "
        "item)\n"
        "   found:    1 row whose 'item' cell holds several whitespace-separated items\n"
        "   examples (row ids): 'u1'\n"
        "   fix:      write one row per item, or use the wide layout (one row per row id, items "
        "separated by spaces)\n"
        "Invalid ranks\n"
        "   expected: each 'rank' a whole number from 1, best first\n"
        "   found:    2 rows whose rank is not a whole number of at least 1\n"
        "   examples (row ids): 'u1', 'u4'\n"
        "   fix:      number each row id's items 1, 2, 3, ... from the best\n"
        "Duplicated ranks\n"
        "   expected: each 'rank' at most once within a row id\n"
        "   found:    1 row id giving a rank to several items (1 extra row)\n"
        "   examples (row ids): 'u3'\n"
        "   fix:      give each of a row id's items its own rank"
    )
    scores = pa.array(["nan", "1", "inf", "1e999", "", "2"])
    (problem,) = words(
        long_to_wide(ids, pa.array(["a"] * 6), scores=scores, score_name="s").problems
    )
    assert problem.render() == (
        "Invalid scores\n"
        "   expected: each 's' a finite decimal number (higher ranks first)\n"
        "   found:    4 rows whose score is not a finite number (empty, text, NaN, infinite or "
        "too large)\n"
        "   examples (row ids): 'u1', 'u2', 'u3'\n"
        "   fix:      write every score as a plain decimal number such as 0.25 or -1.5e-3"
    )


def test_ranks_and_scores_together_are_refused():
    with pytest.raises(ValueError, match=r"^give ranks or scores, not both$"):
        long_to_wide(pa.array(["u"]), pa.array(["a"]), pa.array(["1"]), pa.array(["1"]))


def reference_solution(rows):
    by_id: dict[str, list] = {}
    for row_id, cell, grade in rows:
        entries = by_id.setdefault(row_id, [])
        if cell.split():
            entries.append((cell.split()[0].encode(), int(grade), cell.split()[0]))
    order = sorted(by_id, key=str.encode)
    items = [[e[2] for e in sorted(by_id[r])] for r in order]
    grades = [[str(e[1]) for e in sorted(by_id[r])] for r in order]
    return order, items, grades


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(ROW_IDS),
            st.sampled_from(["x", "y", "X", "é", ""]),
            st.sampled_from(["0", "1", "2", "3"]),
        ),
        max_size=30,
    ),
    st.randoms(),
)
def test_long_solutions_pivot_as_the_reference(rows, rnd):
    ids, items, grades = (pa.array([r[i] for r in rows], pa.large_string()) for i in range(3))
    wide = long_solution_to_wide(ids, items, grades)
    assert (wide.row_ids.to_pylist(), wide.items.to_pylist(), wide.grades.to_pylist()) == (
        reference_solution(rows)
    )
    pairs = [(r, c) for r, c, _ in rows if c]
    assert wide.n_repeated_pairs == len(pairs) - len(set(pairs))
    shuffled = list(rows)
    rnd.shuffle(shuffled)
    if shuffled:
        again = long_solution_to_wide(*(pa.array(list(c)) for c in zip(*shuffled, strict=True)))
        assert again.items.equals(wide.items) and again.grades.equals(wide.grades)


def test_long_solution_grade_cells_hold_one_value():
    wide = long_solution_to_wide(
        pa.array(["q1", "q2", "q3"]), pa.array(["a", "b", ""]), pa.array(["1 2", "", ""])
    )
    (problem,) = words(wide.problems)
    assert problem.render() == (
        "Not one grade per item\n"
        "   expected: one value in 'grade' on each row with an item\n"
        "   found:    2 rows with an empty cell or several values\n"
        "   examples (row ids): 'q1', 'q2'\n"
        "   fix:      write one whole-number grade on each row with an item"
    )


def _wide_submission(seed, n_users=60):
    rng = np.random.default_rng(seed)
    catalogue = [f"i{n:02d}" for n in range(30)]
    solution, submission = [], []
    for user in range(n_users):
        relevant = rng.choice(catalogue, size=rng.integers(0, 6), replace=False)
        ranked = rng.choice(catalogue, size=rng.integers(0, 11), replace=True)
        solution.append((f"u{user}", " ".join(relevant)))
        submission.append((f"u{user}", list(ranked)))
    return (
        pd.DataFrame(solution, columns=["id", "items"]),
        pd.DataFrame(submission, columns=["id", "items"]),
    )


@pytest.mark.parametrize("mode", ["rank", "score", "file"])
@pytest.mark.parametrize("seed", [0, 1])
def test_a_long_file_scores_exactly_as_its_wide_equivalent(mode, seed):
    solution, wide = _wide_submission(seed)
    rng = np.random.default_rng(seed + 10)
    long_rows = []
    for row_id, items in zip(wide["id"], wide["items"], strict=True):
        gaps = np.cumsum(rng.integers(1, 4, size=len(items)))
        for position, item in enumerate(items):
            value = {
                "rank": str(gaps[position]),
                "score": repr(100.0 - float(gaps[position])),
                "file": "",
            }
            long_rows.append((row_id, item, value[mode]))
        if not items:
            long_rows.append((row_id, "", ""))
    if mode != "file":
        long_rows = [long_rows[i] for i in rng.permutation(len(long_rows))]
    pivot = fast(long_rows, mode)
    assert not pivot.problems
    pivoted = pa.table({"id": pivot.row_ids, "items": pivot.items})
    metrics = ["MAP@10", "nDCG@10", "P@5", "MRR@10"]
    expected = evaluate(solution, wide, "id", metrics=metrics)
    got = evaluate(solution, pivoted, "id", metrics=metrics)
    assert got.metrics == expected.metrics


def test_a_rank_of_more_than_18_digits_is_refused_as_too_large():
    solution = pd.DataFrame({"id": ["u1", "u2", "u3"], "items": ["a", "c", "d"]})
    submission = pd.DataFrame(
        {
            "id": ["u1", "u1", "u2", "u3", "u3"],
            "items": ["a", "b", "c", "d", "e"],
            "rank": ["1", "1" + "0" * 18, "9" * 25, "0" * 30 + "2", "x"],
        }
    )
    options = {"layout": "long", "rank_column_name": "rank", "k": 3}
    too_large = (
        r"Ranks too large\n"
        r"   expected: each 'rank' at most 999,999,999,999,999,999 \(only the order counts\)\n"
        r"   found:    2 rows whose rank has more than 18 digits\n"
        r"   examples \(row ids\): 'u1', 'u2'\n"
        r"   fix:      number each row id's items 1, 2, 3, ... from the best"
    )
    with pytest.raises(ParticipantVisibleError, match=too_large) as caught:
        evaluate(solution, submission, "id", **options)
    # Only the 'x' is no whole number; leading zeros are no digits of the value.
    assert "1 row whose rank is not a whole number of at least 1\n   examples (row ids): 'u3'" in (
        str(caught.value)
    )


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 3).flatmap(
        lambda n_keys: st.lists(
            st.tuples(*[st.integers(0, 5) | st.integers(0, 2**62) for _ in range(n_keys)]),
            max_size=50,
        )
    ),
)
def test_sort_order_is_numpys_stable_lexsort(rows):
    """Packed with each row's index (small keys), or too wide for that (np.lexsort):
    the same stable order, equal keys in their rows' order."""
    keys = [np.array(column, dtype=np.int64) for column in zip(*rows, strict=True)]
    if not keys:
        keys = [np.zeros(0, dtype=np.int64)]
    assert sort_order(*keys).tolist() == np.lexsort(keys[::-1]).tolist()
