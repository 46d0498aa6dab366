"""The pair measure AUC (docs/measures.md#measures): MIND's per-impression AUC, exact, against a
slow pair-by-pair reference; its sources of non-relevant items; its invariants and boundary."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer import HostVisibleError, ParticipantVisibleError, evaluate
from scorer.align import rankings as ranking_module
from tests.reference_measures import reference_auc

ITEMS = [f"n{j}" for j in range(12)]

rows = st.lists(
    st.tuples(
        st.dictionaries(st.sampled_from(ITEMS), st.integers(0, 2), max_size=10),  # item -> grade
        st.lists(st.sampled_from([*ITEMS, "x"]), max_size=14),  # repeats, unjudged, empty
        st.sampled_from(["Public", "Private"]),
    ),
    min_size=1,
    max_size=8,
)


def _frames(drawn) -> tuple[pd.DataFrame, pd.DataFrame]:
    ids = [f"imp{i}" for i in range(len(drawn))]
    solution = pd.DataFrame(
        {
            "id": ids,
            "items": [" ".join(truth) for truth, _, _ in drawn],
            "grades": [" ".join(map(str, truth.values())) for truth, _, _ in drawn],
            "Usage": [split for *_, split in drawn],
        }
    )
    submission = pd.DataFrame({"id": ids, "items": [" ".join(p) for _, p, _ in drawn]})
    return solution, submission


def _expected(drawn, threshold: int, split: str | None = None) -> Fraction | None:
    values = [
        reference_auc(predictions, truth, threshold)
        for truth, predictions, usage in drawn
        if any(g >= threshold for g in truth.values()) and split in (None, usage)
    ]
    return sum(values, Fraction(0)) / len(values) if values else None


@settings(max_examples=80, deadline=None)
@given(rows, st.integers(1, 2), st.sampled_from([14, 40]))
def test_auc_is_the_exact_mean_of_the_pair_by_pair_reference(drawn, threshold, k) -> None:
    """Dense rankings (k = 14) and sparse ones (k = 40, mostly padding) alike."""
    solution, submission = _frames(drawn)
    expected = _expected(drawn, threshold)
    options = {"k": k, "metrics": ["AUC"], "grade_column_name": "grades"}
    if expected is None:
        with pytest.raises(HostVisibleError, match="No user can be scored"):
            evaluate(solution, submission, "id", relevance_threshold=threshold, **options)
        return
    result = evaluate(solution, submission, "id", relevance_threshold=threshold, **options)
    assert result.exact_values["AUC"].exact_mean(result.user_scored) == expected
    assert result.score == float(expected)  # the correctly rounded exact mean
    for split, value in (("Public", result.public_score), ("Private", result.private_score)):
        exact = _expected(drawn, threshold, split)
        assert value == (None if exact is None else float(exact))


@settings(max_examples=40, deadline=None)
@given(rows, st.randoms())
def test_auc_is_bit_identical_under_row_shuffles(drawn, random) -> None:
    solution, submission = _frames(drawn)
    options = {"k": 14, "metrics": ["AUC"], "grade_column_name": "grades"}
    options["empty_ground_truth"] = "zero"
    before = evaluate(solution, submission, "id", **options)
    order = list(range(len(drawn)))
    random.shuffle(order)
    after = evaluate(solution.iloc[order], submission.iloc[order[::-1]], "id", **options)
    assert (after.score, after.public_score, after.private_score) == (
        before.score,
        before.public_score,
        before.private_score,
    )
    by_id = dict(zip(before.row_ids.to_pylist(), before.user_values["AUC"], strict=True))
    assert dict(zip(after.row_ids.to_pylist(), after.user_values["AUC"], strict=True)) == by_id


def test_an_empty_ranking_ties_every_pair_as_minds_empty_line() -> None:
    """MIND's scorer fills an empty line with equal ranks: every pair tied, AUC 1/2."""
    solution = pd.DataFrame({"id": ["i1"], "items": ["a b c"], "g": ["1 0 0"]})
    submission = pd.DataFrame({"id": ["i1"], "items": [""]})
    result = evaluate(solution, submission, "id", metrics=["AUC"], grade_column_name="g")
    assert result.exact_values["AUC"].exact_mean() == Fraction(1, 2)


def test_a_row_without_a_non_relevant_item_scores_one_and_without_relevant_follows_the_policy():
    solution = pd.DataFrame({"id": ["i1", "i2", "i3"], "items": ["a b", "c", "d e"]})
    solution["g"] = ["1 1", "0", "1 0"]
    submission = pd.DataFrame({"id": ["i1", "i2", "i3"], "items": ["b", "c", "e d"]})
    kwargs = {"metrics": ["AUC"], "grade_column_name": "g"}
    skipped = evaluate(solution, submission, "id", **kwargs)
    assert skipped.exact_values["AUC"].exact_mean(skipped.user_scored) == Fraction(1, 2)  # 1, 0
    zero = evaluate(solution, submission, "id", empty_ground_truth="zero", **kwargs)
    assert zero.exact_values["AUC"].exact_mean() == Fraction(1, 3)


def test_binary_relevance_without_candidates_is_refused() -> None:
    solution = pd.DataFrame({"id": ["i1"], "items": ["a"]})
    submission = pd.DataFrame({"id": ["i1"], "items": ["a b"]})
    with pytest.raises(HostVisibleError, match=r"AUC needs each row's judged, non-relevant items"):
        evaluate(solution, submission, "id", metrics=["MAP", "AUC"])


def test_candidates_with_unjudged_items_dropped_are_refused_under_binary_relevance() -> None:
    # A binary solution lists only relevant items, so unjudged="drop" drops every
    # candidate that is not relevant: nothing is left to order, and the worst
    # permutation of the candidates scored AUC 1, as the best did.
    solution = pd.DataFrame({"id": ["i1"], "items": ["a"], "cands": ["a b c"]})
    worst = pd.DataFrame({"id": ["i1"], "items": ["b c a"]})
    options = {"metrics": ["AUC"], "candidate_rule": "permutation", "unjudged": "drop"}
    expected = r"^AUC with unjudged='drop' needs a grade column: a binary solution judges"
    with pytest.raises(HostVisibleError, match=expected):
        evaluate(solution, worst, "id", candidates_column_name="cands", **options)
    with pytest.raises(HostVisibleError, match=expected):
        evaluate(solution, worst, "id", candidates=solution[["id", "cands"]], **options)
    kept = evaluate(
        solution, worst, "id", **{**options, "unjudged": "keep"}, candidates_column_name="cands"
    )
    assert kept.score == 0.0
    graded = pd.DataFrame({"id": ["i1"] * 3, "items": ["a", "b", "c"], "g": ["1", "0", "0"]})
    long_worst = pd.DataFrame({"id": ["i1"] * 3, "items": ["b", "c", "a"]})
    dropped = evaluate(
        graded,
        long_worst,
        "id",
        metrics=["AUC"],
        unjudged="drop",
        grade_column_name="g",
        layout="long",
        solution_layout="long",
    )
    assert dropped.score == 0.0  # graded 0 is judged: kept and ordered


@pytest.mark.parametrize("k", [2**63 - 1, 2**64 + 7])
def test_auc_takes_a_k_past_int64(k: int) -> None:
    solution = pd.DataFrame({"id": ["i1", "i2"], "items": ["a b c", "d e"], "g": ["1 0 0", "0 2"]})
    submission = pd.DataFrame({"id": ["i1", "i2"], "items": ["b a x", "e"]})
    kwargs = {"metrics": ["AUC"], "grade_column_name": "g"}
    huge = evaluate(solution, submission, "id", k=k, **kwargs)
    assert huge.exact_values["AUC"].exact_mean() == (Fraction(1, 2) + Fraction(1)) / 2


def _boundary_solutions(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two graded solutions with the same row ids, different items, grades and Usage."""
    rng = np.random.default_rng(seed)
    ids = [f"imp{i}" for i in range(6)]
    made = []
    for _ in range(2):
        items, grades = [], []
        for _ in ids:
            chosen = rng.choice(ITEMS, size=int(rng.integers(1, 6)), replace=False)
            items.append(" ".join(chosen))
            grades.append(" ".join(str(g) for g in rng.integers(0, 2, size=len(chosen))))
        usage = rng.choice(["Public", "Private", "Ignored"], size=len(ids)).tolist()
        usage[0] = "Public"
        made.append(pd.DataFrame({"id": ids, "items": items, "g": grades, "Usage": usage}))
    return made[0], made[1]


@pytest.mark.parametrize("seed", range(12))
def test_auc_non_interference_participant_text_ignores_hidden_data(seed: int) -> None:
    """The information boundary with AUC requested: the same submission against two
    solutions of the same row ids gives the same participant-visible text."""
    first, second = _boundary_solutions(seed)
    rng = np.random.default_rng(100 + seed)
    drawn = [rng.choice([*ITEMS, "x"], size=int(rng.integers(0, 9))) for _ in first.id]
    rows = [(row_id, " ".join(items)) for row_id, items in zip(first.id, drawn, strict=True)]
    if seed % 3 == 1:
        rows = rows[1:]  # a missing row
    if seed % 3 == 2:
        rows.append(("imp9", "n1"))  # an unknown row id
    submission = pd.DataFrame(rows, columns=["id", "items"])

    def seen(solution: pd.DataFrame) -> tuple:
        kwargs = {"k": 8, "metrics": ["AUC", "MAP"], "grade_column_name": "g"}
        try:
            result = evaluate(solution, submission, "id", **kwargs)
        except ParticipantVisibleError as error:
            return ("invalid", str(error))
        return ("scored", [str(w) for w in result.warnings if w.audience == "participant"])

    assert seen(first) == seen(second)


candidate_rows = st.lists(
    st.tuples(
        st.sets(st.sampled_from(ITEMS), max_size=4),  # relevant (some not candidates)
        st.lists(st.sampled_from(ITEMS), max_size=9, unique=True),  # candidates, ranked part
        st.integers(0, 9),  # how many candidates the row ranks
        st.randoms(),
    ),
    min_size=1,
    max_size=6,
)


@settings(max_examples=60, deadline=None)
@given(candidate_rows, st.sampled_from(["column", "table"]), st.booleans())
def test_auc_with_candidates_matches_the_reference(drawn, source, sparse) -> None:
    """Binary relevance with candidates: the candidates that are not relevant are the
    non-relevant items (candidate_rule='subset': a row ranks some of its candidates), on
    dense and on sparse rankings."""
    ids = [f"imp{i}" for i in range(len(drawn))]
    ranked_rows, expected = [], []
    for relevant, candidates, n_ranked, random in drawn:
        ranked = list(candidates)
        random.shuffle(ranked)
        ranked = ranked[:n_ranked]
        ranked_rows.append(" ".join(ranked))
        if relevant:
            grades = dict.fromkeys(candidates, 0) | dict.fromkeys(relevant, 1)
            expected.append(reference_auc(ranked, grades))
    solution = pd.DataFrame({"id": ids, "items": [" ".join(sorted(r)) for r, *_ in drawn]})
    listed = [" ".join(candidates) for _, candidates, *_ in drawn]
    submission = pd.DataFrame({"id": ids, "items": ranked_rows})
    options: dict = {"k": 9, "metrics": ["AUC"], "candidate_rule": "subset"}
    if source == "column":
        solution["cands"] = listed
        options["candidates_column_name"] = "cands"
    else:
        options["candidates"] = pd.DataFrame({"id": ids, "items": listed})
    with pytest.MonkeyPatch.context() as patch:
        if sparse:
            patch.setattr(ranking_module, "_is_sparse", lambda *args: True)
        if not expected:
            with pytest.raises(HostVisibleError, match="No user can be scored"):
                evaluate(solution, submission, "id", **options)
            return
        result = evaluate(solution, submission, "id", **options)
    mean = sum(expected, Fraction(0)) / len(expected)
    assert result.exact_values["AUC"].exact_mean(result.user_scored) == mean
    assert result.score == float(mean)


def test_the_benchmarks_two_sources_give_the_reference_auc() -> None:
    """``benchmarks/pairs.py``'s data: grades and candidates judge the same pairs, so both
    give the same exact AUC, the pair-by-pair reference's."""
    from tests.benchmark_modules import load

    tables = load("pairs").make_tables(300, seed=4)
    submission = tables["submission"]
    graded = evaluate(
        tables["graded"], submission, "id", metrics=["AUC"], grade_column_name="grades"
    )
    binary = evaluate(
        tables["candidates"],
        submission,
        "id",
        metrics=["AUC"],
        candidates_column_name="cands",
        candidate_rule="permutation",
    )
    expected = Fraction(0)
    rows = zip(
        tables["graded"].column("items").to_pylist(),
        tables["graded"].column("grades").to_pylist(),
        submission.column("items").to_pylist(),
        strict=True,
    )
    for items, grades, ranked in rows:
        judged = dict(zip(items.split(), map(int, grades.split()), strict=True))
        expected += reference_auc(ranked.split(), judged)
    expected /= 300
    assert graded.exact_values["AUC"].exact_mean() == expected
    assert binary.exact_values["AUC"].exact_mean() == expected
