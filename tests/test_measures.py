"""The metric family (docs/measures.md#measures): every measure against a slow reference, end to
end."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer import HostVisibleError, evaluate
from scorer.align.judgements import Judgements
from scorer.measures import REGISTRY, parse
from scorer.measures.ranked import contains, count_before
from tests.declared import MEASURES, binary_names, choices, judged_by, refused_by_the_data, variants
from tests.measure_cases import evaluate_or_none, expected_means, frames, users
from tests.reference_measures import reference_value
from tests.seams import collide_prints, small_blocks


def check_against_reference(rows, graded, usage, threshold, empty, cutoffs, width=1):
    k = 5
    chosen = [(v, c) for v, c in zip(MEASURES, cutoffs, strict=True) if judged_by(v, graded)]
    names = [variant.at(c) for variant, c in chosen]
    solution, submission = frames(rows, graded, usage, width)
    result = evaluate_or_none(solution, submission, k, names, empty, graded, threshold)
    if result is None:
        return
    for (variant, cutoff), name in zip(chosen, names, strict=True):
        measure, _, params = variant
        canonical = list(result.metrics)[names.index(name)]
        expected = expected_means(
            rows,
            measure,
            cutoff if variant.family.has_cutoff else k,
            params,
            graded,
            usage,
            threshold,
            empty,
        )
        got = {
            "all": result.metrics[canonical],
            "Public": (result.public_metrics or {}).get(canonical),
            "Private": (result.private_metrics or {}).get(canonical),
        }
        for split, value in got.items():
            exact = expected[split] if (usage or split == "all") else None
            if exact is None:
                assert value is None, (name, split)
            elif not parse(name, k=k).exact:  # float64 per user: equal to 1e-12
                assert abs(value - float(exact)) <= 1e-12, (name, split, value, exact)
            else:  # the correctly rounded float of the exact mean
                assert value == float(exact), (name, split, value, exact)


cutoff_lists = st.lists(st.integers(1, 5), min_size=len(MEASURES), max_size=len(MEASURES))


@settings(max_examples=60)
@given(users, st.booleans(), st.booleans(), choices("empty_ground_truth"), cutoff_lists)
def test_every_measure_matches_the_reference(rows, graded, usage, empty, cutoffs) -> None:
    check_against_reference(rows, graded, usage, 1, empty, cutoffs)


@settings(max_examples=30)
@given(users, st.integers(1, 3), cutoff_lists)
def test_relevance_threshold_matches_the_reference(rows, threshold, cutoffs) -> None:
    check_against_reference(rows, True, True, threshold, "zero", cutoffs)


@settings(max_examples=15)
@given(users, st.booleans(), cutoff_lists)
def test_small_blocks_and_colliding_prints_match_the_reference(rows, graded, cutoffs) -> None:
    with pytest.MonkeyPatch.context() as patch:
        small_blocks(patch, 3)
        collide_prints(patch)
        check_against_reference(rows, graded, True, 1, "zero", cutoffs, width=10)


@settings(max_examples=25)
@given(users, st.randoms())
def test_every_value_is_bit_identical_under_row_permutations(rows, random) -> None:
    names = [variant.name for variant in MEASURES]
    solution, submission = frames(rows, True, True)
    kwargs = {"k": 5, "metrics": names, "grade_column_name": "grades", "empty_ground_truth": "zero"}
    try:
        before = evaluate(solution, submission, "id", **kwargs)
    except HostVisibleError:
        return
    order = list(range(len(rows)))
    random.shuffle(order)
    after = evaluate(solution.iloc[order], submission.iloc[order[::-1]], "id", **kwargs)
    assert after.metrics == before.metrics
    assert after.public_metrics == before.public_metrics
    assert after.private_metrics == before.private_metrics


def test_perfect_rankings_score_one_everywhere() -> None:
    solution = pd.DataFrame({"id": ["u1", "u2"], "items": ["a b c", "d"], "g": ["3 2 1", "2"]})
    submission = pd.DataFrame({"id": ["u1", "u2"], "items": ["a b c", "d"]})
    # the measures whose perfect value is 1 at |R| = 3 and |R| = 1 with K = 3
    names = [
        v.name
        for v in MEASURES
        if not v.family.summed  # a run's sum of per-user ones is no one
        and all(parse(v.name, k=3).perfect(relevant, 3) == 1 for relevant in (3, 1))
    ]
    result = evaluate(solution, submission, k=3, metrics=names, grade_column_name="g")
    assert set(result.metrics.values()) == {1.0}


@settings(max_examples=25)
@given(users)
def test_grades_all_one_equal_binary_relevance_bit_for_bit(rows) -> None:
    rows = [(dict.fromkeys(truth, 1), predictions, split) for truth, predictions, split in rows]
    names = binary_names([variant.name for variant in MEASURES])
    solution, submission = frames(rows, True, True)
    kwargs = {"k": 5, "metrics": names, "empty_ground_truth": "zero"}
    if all(split == "Ignored" for *_, split in rows):
        return  # no user to score: a host error either way
    graded = evaluate(solution, submission, "id", grade_column_name="grades", **kwargs)
    binary = evaluate(solution.drop(columns="grades"), submission, "id", **kwargs)
    assert graded.metrics == binary.metrics
    assert graded.public_metrics == binary.public_metrics
    assert graded.measures == binary.measures
    for name in graded.measures:
        assert np.array_equal(graded.user_values[name], binary.user_values[name], equal_nan=True)


@settings(max_examples=30)
@given(users, st.integers(1, 5))
def test_invariants_bounds_and_one_relevant_item(rows, cutoff) -> None:
    """Every value lies in [0, 1]; with one relevant item per user AP@K is MRR@K
    (Outbrain's MAP@12), and MRR never exceeds HitRate."""
    rows = [({"a": 1}, predictions, split) for _, predictions, split in rows]
    if all(split == "Ignored" for *_, split in rows):
        return
    solution, submission = frames(rows, False, True)
    names = [variant.at(cutoff) for variant in MEASURES]
    result = evaluate(solution, submission, "id", k=5, metrics=binary_names(names))
    for variant, name in zip(MEASURES, names, strict=True):
        if not variant.family.bounded or not judged_by(variant, graded=False):
            continue
        scored = result.user_values[name][result.user_scored]
        assert ((scored >= 0) & (scored <= 1)).all()
    assert np.array_equal(
        result.user_values[f"MAP@{cutoff}"], result.user_values[f"MRR@{cutoff}"], equal_nan=True
    )
    assert result.metrics[f"MAP@{cutoff}"] == result.metrics[f"MRR@{cutoff}"]
    assert result.metrics[f"MRR@{cutoff}"] <= result.metrics[f"HitRate@{cutoff}"]


def test_wide_rankings_match_the_reference() -> None:
    """K = 70: AP's float fallback, ERR's Python-int fractions and the sorted-table
    lookup of relevant pairs (rankings wider than the pairwise comparison)."""
    rng = np.random.default_rng(5)
    items = [f"i{n}" for n in range(120)]
    rows = []
    for user in range(20):
        judged = rng.choice(items, size=int(rng.integers(1, 40)), replace=False).tolist()
        grades = dict(zip(judged, rng.integers(0, 4, size=len(judged)).tolist(), strict=True))
        grades[judged[0]] = 3
        size = 70 if user == 0 else int(rng.integers(0, 71))
        predictions = rng.choice(items, size=size).tolist()  # with repeats
        rows.append((grades, predictions, "Public" if user % 3 else "Private"))
    solution, submission = frames(rows, True, True)
    defaults = [variants(family)[0] for family in REGISTRY if not family.scored]
    chosen = {v.at(cutoff): v for v in defaults for cutoff in (70, 65)}
    result = evaluate(
        solution, submission, "id", k=70, metrics=list(chosen), grade_column_name="grades"
    )
    for name, variant in chosen.items():
        measure = parse(name, k=70)
        cutoff = measure.cutoff or 70
        values = [
            reference_value(variant.measure, cutoff, variant.params, predictions, grades, 1, 3)
            for grades, predictions, _ in rows
        ]
        exact = sum((Fraction(v) for v in values), Fraction(0)) / (
            1 if measure.family.summed else len(values)
        )
        tolerance = 0 if measure.exact else 1e-12  # float64 past the family's exact depth
        assert abs(result.metrics[name] - float(exact)) <= tolerance, name


@pytest.mark.parametrize(("name", "param"), refused_by_the_data())
def test_a_sampled_value_the_data_refuses_is_refused_in_its_own_words(name, param) -> None:
    """A parameter value within its declared bounds that only the data can refuse (ERR's
    ``max_grade`` below the solution's largest grade) is a host error naming it."""
    solution = pd.DataFrame({"id": ["u"], "items": ["a b"], "g": ["3 0"]})
    submission = pd.DataFrame({"id": ["u"], "items": ["a"]})
    with pytest.raises(HostVisibleError, match=rf"^The {param!r} parameter"):
        evaluate(solution, submission, "id", metrics=[name], grade_column_name="g")


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(-1, 3)), max_size=30),
    st.lists(st.integers(0, 6), min_size=1, max_size=5),
)
def test_the_ideal_ranking_is_each_users_grades_in_descending_order(pairs, cutoffs):
    # Made once per run and cut at each cut-off, asked in any order.
    users = np.array([user for user, _ in pairs], dtype=np.int64)
    grades = np.array([grade for _, grade in pairs], dtype=np.int64)
    n_users = 4
    j = Judgements(
        np.zeros((n_users, 1), bool),
        np.bincount(users[grades > 0], minlength=n_users),
        k=1,
        grades=np.zeros((n_users, 1), np.int64),
        pair_users=users,
        pair_grades=grades,
        max_grade=3,
    )
    for cutoff in cutoffs:
        expected = [
            (user, rank, grade)
            for user in range(n_users)
            for rank, grade in enumerate(sorted(grades[users == user].tolist(), reverse=True))
            if rank < cutoff and grade > 0
        ]
        found = zip(*(part.tolist() for part in j.ideal_entries(cutoff)), strict=True)
        assert list(found) == expected


def _entries(pairs: set[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    ordered = sorted(pairs)
    return (
        np.array([user for user, _ in ordered], dtype=np.int64),
        np.array([rank for _, rank in ordered], dtype=np.int64),
    )


@settings(max_examples=300, deadline=None)
@given(
    st.sets(st.tuples(st.integers(0, 6), st.sampled_from([0, 1, 2, 3, 7, 2**31, 2**62]))),
    st.sets(st.tuples(st.integers(0, 6), st.integers(0, 9))),
)
def test_entries_before_and_in_others_are_counted_as_one_by_one(a: set, b: set) -> None:
    """``a`` may rank at any depth (a whole ranking's included); ``b`` holds ranks."""
    users_a, ranks_a = _entries(a)
    users_b, ranks_b = _entries(b)
    before = count_before(users_a, ranks_a, users_b, ranks_b).tolist()
    assert before == [sum(u == user and r < rank for u, r in sorted(b)) for user, rank in sorted(a)]
    found = contains(users_a, ranks_a, users_b, ranks_b).tolist()
    assert found == [pair in b for pair in sorted(a)]
