"""Candidate checks, unjudged items dropped (trec_eval -J), and target types (OTTO),
each against a slow reference written from the rules."""

from __future__ import annotations

import re
from fractions import Fraction
from unittest import mock

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scorer.align.candidates as candidates_module
from scorer import HostVisibleError, ParticipantVisibleError, evaluate
from scorer.align import target_types
from scorer.align.candidates import (
    PairIndex,
    candidate_problems,
    drop_unjudged,
    non_relevant_counts,
)
from scorer.align.item_lists import split_lists
from scorer.align.target_types import (
    TypedRows,
    rows_by_type,
    solution_types,
    split_row_id_types,
    typed_by_column,
)
from scorer.check.findings import Wording, problems
from scorer.errors import Problem
from scorer.read.columns import StringTable

ITEMS = ["a", "b", "c", "B", "é", "z"]
ROW_IDS = ["r0", "r1", "r2", "r3"]


def reference_candidate_problems(rule, submitted, candidates):
    """Titles -> (example row ids, the count in the message), one row at a time."""
    found = {}
    foreign_rows, foreign_items, n_foreign = set(), set(), 0
    repeat_rows, n_extra = set(), 0
    missing_rows, n_missing = set(), 0
    for row, items in enumerate(submitted):
        allowed = set(candidates[row])
        for item in items:
            if item not in allowed:
                foreign_rows.add(ROW_IDS[row])
                foreign_items.add(item)
                n_foreign += 1
        for item in set(items) & allowed:
            if items.count(item) > 1:
                repeat_rows.add(ROW_IDS[row])
                n_extra += items.count(item) - 1
        left_out = allowed - set(items)
        if left_out:
            missing_rows.add(ROW_IDS[row])
            n_missing += len(left_out)

    def examples(rows):
        return tuple(sorted(rows, key=str.encode)[:5])

    if foreign_rows:
        shown = sorted(foreign_items, key=str.encode)[:5]
        found["Items that are not candidates"] = (examples(foreign_rows), n_foreign, shown)
    if repeat_rows:
        found["Candidates ranked more than once"] = (examples(repeat_rows), n_extra, None)
    if rule == "permutation" and missing_rows:
        found["Candidates missing"] = (examples(missing_rows), n_missing, None)
    return found


lists = st.lists(st.lists(st.sampled_from(ITEMS), max_size=6), min_size=4, max_size=4)


def _flat(rows_of_items):
    rows = np.array([r for r, items in enumerate(rows_of_items) for _ in items], dtype=np.int64)
    items = pa.array([i for items in rows_of_items for i in items], pa.large_string())
    return rows, items


def _pairs(rows_of_items):
    return PairIndex(*_flat(rows_of_items))


@settings(max_examples=300, deadline=None)
@given(lists, lists, st.sampled_from(["permutation", "subset"]))
def test_candidate_problems_match_the_reference(submitted, candidates, rule):
    expected = reference_candidate_problems(rule, submitted, candidates)
    records = candidate_problems(rule, pa.array(ROW_IDS), *_flat(submitted), _pairs(candidates))
    found = problems(records, Wording())  # the records in words
    assert [p.title for p in found] == list(expected)
    for problem in found:
        rows, count, items = expected[problem.title]
        assert problem.examples == rows
        numbers = [int(n.replace(",", "")) for n in re.findall("[0-9][0-9,]*", problem.found)]
        assert count in numbers
        if items is not None:
            assert problem.found.endswith(", ".join(repr(i) for i in items))


@settings(max_examples=200, deadline=None)
@given(lists, lists, st.sampled_from(["permutation", "subset"]), st.integers(1, 4))
def test_candidate_problems_are_the_same_a_few_pairs_at_a_time(submitted, candidates, rule, chunk):
    # The pairs are numbered and looked up a chunk at a time: chunks of 1 to 4 pairs
    # cross every boundary these small lists have.
    whole = candidate_problems(rule, pa.array(ROW_IDS), *_flat(submitted), _pairs(candidates))
    with mock.patch.object(candidates_module, "LOOKUP_ROWS", chunk):
        chunked = candidate_problems(rule, pa.array(ROW_IDS), *_flat(submitted), _pairs(candidates))
    assert chunked == whole


@settings(max_examples=200, deadline=None)
@given(lists, lists, st.integers(1, 4))
def test_non_relevant_candidates_are_counted_as_the_reference(candidates, relevant, chunk):
    with mock.patch.object(candidates_module, "LOOKUP_ROWS", chunk):
        counts = non_relevant_counts(_pairs(candidates), *_flat(relevant), len(ROW_IDS))
    expected = [len(set(c) - set(r)) for c, r in zip(candidates, relevant, strict=True)]
    assert counts.tolist() == expected


def test_no_rule_checks_nothing_and_a_valid_permutation_passes():
    rows, items = _flat([["a", "b"], [], [], []])
    nothing = PairIndex(rows[:0], items[:0])
    assert candidate_problems("none", pa.array(ROW_IDS), rows, items, nothing) == []
    cands = _pairs([["b", "a", "a"], [], [], []])
    assert candidate_problems("permutation", pa.array(ROW_IDS), rows, items, cands) == []


def test_messages_do_not_depend_on_which_candidates_are_relevant():
    # The check never sees the solution: its only inputs are public.
    sub = _flat([["a", "x"], ["b"], [], []])
    cands = _pairs([["a", "b"], ["b", "c"], [], []])
    records = candidate_problems("permutation", pa.array(ROW_IDS), *sub, cands)
    texts = [p.render() for p in problems(records, Wording())]
    assert texts == [
        "Items that are not candidates\n"
        "   expected: only each row's own candidates\n"
        "   found:    1 item in 1 row that is not among its row's candidates, e.g. 'x'\n"
        "   examples (row ids): 'r0'\n"
        "   fix:      rank only the candidates given for each row",
        "Candidates missing\n"
        "   expected: every candidate of each row ranked exactly once\n"
        "   found:    2 rows leaving out 2 candidates\n"
        "   examples (row ids): 'r0', 'r1'\n"
        "   fix:      rank every candidate given for each row",
    ]


@settings(max_examples=300, deadline=None)
@given(lists, lists, st.lists(st.integers(-1, 3), min_size=4, max_size=4))
def test_unjudged_items_are_dropped_and_ranks_closed_up(predicted, judged, users):
    cells = pa.array([" ".join(items) for items in predicted])
    kept = drop_unjudged(
        split_lists(cells), np.array(users), split_lists(pa.array([" ".join(j) for j in judged]))
    )
    expected = [
        [i for i in items if u >= 0 and i in judged[u]]
        for items, u in zip(predicted, users, strict=True)
    ]
    assert kept.lengths.tolist() == [len(e) for e in expected]
    assert kept.tokens.to_pylist() == [i for e in expected for i in e]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.text(alphabet="ab_é-", max_size=6), max_size=20),
    st.sampled_from(["_", "-", "_é", "__"]),
    st.sampled_from([(1, 1 << 22), (3, 2), (1 << 20, 1), (1 << 20, 5), (1 << 20, 1 << 22)]),
)
def test_row_ids_split_at_their_last_separator(row_ids, separator, chunks):
    with pytest.MonkeyPatch.context() as patch:  # the cuts found a chunk at a time
        patch.setattr(target_types, "BLOCK_ROWS", chunks[0])  # of rows
        patch.setattr(target_types, "_SPLIT_BYTES", chunks[1])  # of bytes
        typed = split_row_id_types(pa.array(row_ids, pa.large_string()), separator)
    expected = [r.rpartition(separator) for r in row_ids]
    assert typed.row_ids.to_pylist() == [
        h if s else r for (h, s, _), r in zip(expected, row_ids, strict=True)
    ]
    assert typed.types.to_pylist() == [t if s else "" for h, s, t in expected]
    bad = sorted(
        {r for (h, s, t), r in zip(expected, row_ids, strict=True) if not (s and h and t)},
        key=str.encode,
    )
    assert [p.examples for p in typed.problems] == ([tuple(bad[:5])] if bad else [])


def tables_by_type(
    table: StringTable,
    row_id_name: str,
    typed: TypedRows,
    known: tuple[str, ...],
    type_column: str | None = None,
) -> tuple[dict[str, StringTable], list[Problem]]:
    """The table's rows of each known type, their row-id column holding the bare row
    id (and without ``type_column``), and a problem naming rows of an unknown type:
    each type's part of a run, to be scored alone (the reference for typed runs)."""
    positions, problems = rows_by_type(typed.types, known, typed.row_ids)
    kept = [
        (name, typed.row_ids if name == row_id_name else column)
        for name, column in zip(table.names, table.columns, strict=True)
        if name != type_column
    ]
    names = tuple(name for name, _ in kept)
    tables = {
        kind: StringTable(names, tuple(column.take(pa.array(rows)) for _, column in kept))
        for kind, rows in positions.items()
    }
    return tables, problems


def test_target_type_messages_are_exact():
    typed = typed_by_column(pa.array(["1", "2"]), pa.array(["carts", ""]), "type")
    assert typed.problems[0].render() == (
        "Empty target types\n"
        "   expected: a target type in every row's 'type' cell\n"
        "   found:    1 row with an empty 'type'\n"
        "   examples (row ids): '2'\n"
        "   fix:      give every row its target type, as in the sample submission"
    )
    table = StringTable(
        ("id", "labels"), (pa.array(["1_carts", "2_views", "1_clicks"]), pa.array(["a", "b", "c"]))
    )
    typed = split_row_id_types(table.column("id"), "_")
    tables, problems = tables_by_type(table, "id", typed, ("carts", "clicks", "orders"))
    assert {t: s.column("id").to_pylist() for t, s in tables.items()} == {
        "carts": ["1"],
        "clicks": ["1"],
        "orders": [],
    }
    assert problems[0].render() == (
        "Unknown target types\n"
        "   expected: each type one of 'carts', 'clicks', 'orders'\n"
        "   found:    1 row whose type is not one of 'carts', 'clicks', 'orders': e.g. 'views'\n"
        "   examples (row ids): '2'\n"
        "   fix:      use the target types of the sample submission exactly"
    )
    assert solution_types(pa.array([f"t{i}" for i in range(1001)]))[1][0].title == (
        "Too many target types"
    )


def otto_reference(labels, predictions, k=20, weights=None):
    """OTTO's published scoring (otto-de/recsys-dataset, src/evaluate.py), rewritten from
    its definition: per type, Σ hits in the first k predictions (a set) over Σ min(k,
    |truth|), a missing session or type scoring 0; weights 0.1, 0.3, 0.6."""
    weights = weights or {
        "clicks": Fraction(1, 10),
        "carts": Fraction(3, 10),
        "orders": Fraction(6, 10),
    }
    total = Fraction(0)
    by_type = {}
    for kind, weight in weights.items():
        hits = sum(
            len(set(predictions.get((s, kind), [])[:k]) & truth[kind])
            for s, truth in labels.items()
        )
        events = sum(min(k, len(truth[kind])) for truth in labels.values())
        by_type[kind] = Fraction(hits, events)
        total += weight * by_type[kind]
    return total, by_type


def test_otto_scores_as_its_reference_once_split_by_type():
    rng = np.random.default_rng(5)
    aids = [str(a) for a in range(50)]
    labels, predictions, solution_rows, submission_rows = {}, {}, [], []
    for session in range(300):
        truth = {
            "clicks": set(rng.choice(aids, size=rng.integers(0, 2), replace=False)),
            "carts": set(rng.choice(aids, size=rng.integers(0, 4), replace=False)),
            "orders": set(rng.choice(aids, size=rng.integers(0, 25), replace=False)),
        }
        labels[str(session)] = truth
        for kind, items in truth.items():
            predicted = list(rng.choice(aids, size=rng.integers(0, 21), replace=True))
            predictions[(str(session), kind)] = predicted
            solution_rows.append((f"{session}_{kind}", " ".join(sorted(items))))
            submission_rows.append((f"{session}_{kind}", " ".join(predicted)))
    expected_total, expected_by_type = otto_reference(labels, predictions)
    order = rng.permutation(len(submission_rows))
    solution = StringTable(
        ("session_type", "labels"), tuple(pa.array(c) for c in zip(*solution_rows, strict=True))
    )
    submission = StringTable(
        ("session_type", "labels"),
        tuple(pa.array([submission_rows[i][c] for i in order]) for c in range(2)),
    )
    known, _ = solution_types(split_row_id_types(solution.column("session_type"), "_").types)
    parts = {}
    for name, table in (("solution", solution), ("submission", submission)):
        typed = split_row_id_types(table.column("session_type"), "_")
        parts[name], problems = tables_by_type(table, "session_type", typed, known)
        assert problems == []
    total = Fraction(0)
    weights = {"clicks": Fraction(1, 10), "carts": Fraction(3, 10), "orders": Fraction(6, 10)}
    for kind in known:
        result = evaluate(
            parts["solution"][kind],
            parts["submission"][kind],
            "session_type",
            k=20,
            metrics=["R(norm=min_k)@20"],
            empty_ground_truth="zero",
        )
        # The micro average, from the per-row hits and |R| the result already holds.
        events = np.minimum(result.user_n_relevant, 20)
        recall = Fraction(int(result.user_hits.sum()), int(events.sum()))
        assert recall == expected_by_type[kind]
        total += weights[kind] * recall
    assert total == expected_total
    pd.testing.assert_index_equal(pd.Index(known), pd.Index(["carts", "clicks", "orders"]))


def _outcome(solution, submission, **options):
    """What a run says: the error's words, or every value and warning."""
    try:
        result = evaluate(solution, submission, "id", k=6, **options)
    except ParticipantVisibleError as error:
        return str(error)
    return result.score, result.metrics, [(w.code, w.message) for w in result.warnings]


rows_of_items = st.tuples(
    st.integers(0, len(ROW_IDS) - 1), st.lists(st.sampled_from([*ITEMS, "x"]), max_size=4)
)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(rows_of_items, min_size=1, max_size=8),
    st.lists(rows_of_items, min_size=1, max_size=8),
    st.sampled_from(["permutation", "subset"]),
    st.randoms(use_true_random=False),
)
def test_candidate_checks_do_not_depend_on_row_order(submitted, candidates, rule, random):
    # A row id may be listed twice in the submission (a problem of its own) and in a
    # table of candidates (its items gathered): whichever row comes first, the same words.
    solution = pd.DataFrame({"id": ROW_IDS, "items": ["a", "b", "c", "z"]})
    submission = pd.DataFrame(
        {"id": [ROW_IDS[r] for r, _ in submitted], "items": [" ".join(i) for _, i in submitted]}
    )
    table = pd.DataFrame(
        {"id": [ROW_IDS[r] for r, _ in candidates], "cands": [" ".join(i) for _, i in candidates]}
    )

    def shuffled(frame):
        order = list(range(len(frame)))
        random.shuffle(order)
        return frame.iloc[order].reset_index(drop=True)

    options = {"candidates": table, "candidate_rule": rule, "missing_rows": "empty"}
    once = _outcome(solution, submission, **options)
    again = _outcome(solution, shuffled(submission), **{**options, "candidates": shuffled(table)})
    assert once == again


def test_a_candidates_table_with_a_type_column_is_keyed_as_the_solution():
    """A candidates table beside a type column names each row's type too: checked and
    scored exactly as the same candidates given in a solution column."""
    solution = pd.DataFrame(
        {"id": ["1", "1", "2"], "kind": ["a", "b", "a"], "items": ["x", "y", "z"]}
    )
    candidates = pd.DataFrame(
        {
            "id": ["1", "1", "2", "1"],
            "kind": ["a", "b", "a", "a"],
            "items": ["x w", "y v", "z", "u"],
        }
    )
    submission = pd.DataFrame(
        {"id": ["1", "1", "2"], "kind": ["a", "b", "a"], "items": ["w u x", "v y", "z"]}
    )
    options = {
        "target_type_column_name": "kind",
        "candidate_rule": "permutation",
        "metrics": ["MRR@3"],
    }
    from_table = evaluate(solution, submission, "id", candidates=candidates, **options)
    in_column = solution.assign(candidates=["x w u", "y v", "z"])
    from_column = evaluate(
        in_column, submission, "id", candidates_column_name="candidates", **options
    )
    # 1_a finds x third, 1_b finds y second, 2_a finds z first; types weigh 1/2 each.
    assert from_table.by_type == from_column.by_type
    assert from_table.by_type["a"]["MRR@3"] == float((Fraction(1, 3) + 1) / 2)
    assert from_table.by_type["b"]["MRR@3"] == float(Fraction(1, 2))
    assert (
        from_table.score
        == from_column.score
        == float(((Fraction(1, 3) + 1) / 2 + Fraction(1, 2)) / 2)
    )
    foreign = submission.assign(items=["w u x", "v y q", "z"])
    for source in ({"candidates": candidates}, {"candidates_column_name": "candidates"}):
        table = in_column if "candidates_column_name" in source else solution
        with pytest.raises(ParticipantVisibleError, match=r"Items that are not candidates"):
            evaluate(table, foreign, "id", **source, **options)


def test_a_candidates_tables_types_are_checked_as_the_hosts():
    solution = pd.DataFrame({"id": ["1", "1"], "kind": ["a", "b"], "items": ["x", "y"]})
    submission = pd.DataFrame({"id": ["1", "1"], "kind": ["a", "b"], "items": ["x", "y"]})
    options = {"target_type_column_name": "kind", "candidate_rule": "subset"}
    bare = pd.DataFrame({"id": ["1"], "items": ["x y"]})  # no type: no row of the solution
    with pytest.raises(HostVisibleError, match=r"(?s)The candidates table.*Unknown row ids"):
        evaluate(solution, submission, "id", candidates=bare, **options)
    unknown = pd.DataFrame({"id": ["1", "1"], "kind": ["a", "c"], "items": ["x", "y"]})
    with pytest.raises(HostVisibleError, match=r"(?s)The candidates table.*'c'"):
        evaluate(solution, submission, "id", candidates=unknown, **options)
    empty = pd.DataFrame({"id": ["1", "1"], "kind": ["a", ""], "items": ["x", "y"]})
    with pytest.raises(HostVisibleError, match=r"(?s)The candidates table.*Empty target types"):
        evaluate(solution, submission, "id", candidates=empty, **options)
