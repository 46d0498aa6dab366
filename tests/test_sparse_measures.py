"""Every measure on sparse rankings (flat credited hits, no ``users x width`` matrix)
gives the dense route's values bit for bit, and ERR's cost stays bounded at depth."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer import evaluate
from scorer.align import rankings
from scorer.measures import graded as graded_measures
from scorer.measures import parse
from scorer.measures.exact_means import Ratios
from tests.declared import MEASURES, binary_names, choices
from tests.measure_cases import evaluate_or_none, expected_means, frames, users

WIDE_ITEMS = [f"i{n}" for n in range(30)]

wide_users = st.lists(
    st.tuples(
        st.dictionaries(st.sampled_from(WIDE_ITEMS), st.integers(0, 3), max_size=12),
        st.lists(st.sampled_from([*WIDE_ITEMS, "x", "y"]), max_size=40),
        st.sampled_from(["Public", "Private", "Ignored"]),
    ),
    min_size=1,
    max_size=6,
)


def _names(cutoffs: list[int]) -> list[str]:
    return [variant.at(c) for variant, c in zip(MEASURES, cutoffs, strict=True)]


def _evaluate(
    rows, graded: bool, usage: bool, empty: str, names, k: int, sparse: bool, threshold: int = 1
):
    solution, submission = frames(rows, graded, usage)
    names = names if graded else binary_names(names)
    decisions: list[bool] = []
    dense_decision = rankings._is_sparse

    def decide(*args: object) -> bool:
        decisions.append(sparse)
        return sparse or dense_decision(*args)  # type: ignore[arg-type]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rankings, "_is_sparse", decide)
        result = evaluate_or_none(solution, submission, k, names, empty, graded, threshold)
    if result is None:
        return None
    assert decisions, "the rankings were never built"
    return result


def _assert_same(
    rows, graded: bool, usage: bool, empty: str, names, k: int, threshold: int = 1
) -> None:
    dense = _evaluate(rows, graded, usage, empty, names, k, False, threshold)
    sparse = _evaluate(rows, graded, usage, empty, names, k, True, threshold)
    if dense is None or sparse is None:
        assert dense is sparse
        return
    assert sparse.metrics == dense.metrics
    assert sparse.public_metrics == dense.public_metrics
    assert sparse.private_metrics == dense.private_metrics
    for name, values in dense.user_values.items():
        np.testing.assert_array_equal(sparse.user_values[name], values, err_msg=name)
    np.testing.assert_array_equal(sparse.user_hits, dense.user_hits)
    np.testing.assert_array_equal(sparse.hits_at_rank, dense.hits_at_rank)


cutoff_lists = st.lists(st.integers(1, 5), min_size=len(MEASURES), max_size=len(MEASURES))
wide_cutoffs = st.lists(st.integers(1, 40), min_size=len(MEASURES), max_size=len(MEASURES))


@settings(max_examples=40, deadline=None)
@given(users, st.booleans(), st.booleans(), choices("empty_ground_truth"), cutoff_lists)
def test_every_measure_is_the_same_on_sparse_rankings(rows, graded, usage, empty, cutoffs) -> None:
    _assert_same(rows, graded, usage, empty, _names(cutoffs), k=5)


@settings(max_examples=20, deadline=None)
@given(users, st.integers(2, 3), cutoff_lists)
def test_graded_entries_below_the_threshold_are_the_same(rows, threshold, cutoffs) -> None:
    """Grades under the threshold: in nDCG and ERR, not hits for the binary measures."""
    _assert_same(rows, True, True, "zero", _names(cutoffs), 5, threshold)


@settings(max_examples=25, deadline=None)
@given(wide_users, st.booleans(), choices("empty_ground_truth"), wide_cutoffs)
def test_wide_rows_are_the_same_on_sparse_rankings(rows, graded, empty, cutoffs) -> None:
    """Up to 40 predictions: AP's exact route up to 20 ranks and its float route past it."""
    _assert_same(rows, graded, True, empty, _names(cutoffs), k=40)


@settings(max_examples=20, deadline=None)
@given(wide_users, st.booleans(), wide_cutoffs)
def test_err_past_its_exact_depth_is_float_the_same_on_both_routes(rows, graded, cutoffs) -> None:
    """ERR and nERR past ERR_EXACT_MAX_RANKS: float64 on both routes, close to exact
    (as every measure is, whatever route it takes)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(graded_measures, "ERR_EXACT_MAX_RANKS", 2)
        names = _names(cutoffs) if graded else binary_names(_names(cutoffs))
        _assert_same(rows, graded, False, "zero", names, k=40)
        result = _evaluate(rows, graded, False, "zero", names, 40, sparse=True)
    assert result is not None  # "zero": every user is scored
    for (measure, _, params), cutoff, name in zip(MEASURES, cutoffs, _names(cutoffs), strict=True):
        if name not in names:
            continue
        depth = cutoff if parse(name, k=40).cutoff else 40
        exact = expected_means(rows, measure, depth, params, graded, False, 1, "zero")["all"]
        expected = float(exact)  # type: ignore[arg-type]
        assert abs(result.metrics[list(result.metrics)[names.index(name)]] - expected) <= 1e-12


def test_err_at_a_deep_hit_stays_small() -> None:
    """A hit at rank 5,000 under k = 10**6: ERR is float64 (no lcm(1..5000) fraction),
    and stays float64 when the only hit is shallow: the cut-off decides, never the data
    (a user's value does not depend on how deep the other users' hits are)."""
    items = " ".join(f"i{j}" for j in range(5000))
    solution = pd.DataFrame({"id": ["u1", "u2"], "items": ["i4999", "i0"]})
    submission = pd.DataFrame({"id": ["u1", "u2"], "items": [items, "i0"]})
    result = evaluate(solution, submission, "id", k=10**6, metrics=["ERR", "nERR", "MRR"])
    assert isinstance(result.exact_values["ERR@1000000"], graded_measures.Floats)
    deep_err = 0.5 * 1.0 / 5000  # Pr · survival / rank, in float64
    assert result.metrics == {
        "ERR@1000000": float((Fraction(deep_err) + Fraction(1, 2)) / 2),
        "nERR@1000000": float((Fraction(deep_err / 0.5) + 1) / 2),
        "MRR@1000000": float((Fraction(1, 5000) + 1) / 2),
    }
    shallow = evaluate(solution.iloc[1:], submission.iloc[1:], "id", k=10**6, metrics=["ERR"])
    assert isinstance(shallow.exact_values["ERR@1000000"], graded_measures.Floats)
    assert shallow.metrics == {"ERR@1000000": 0.5}
    at_256 = evaluate(solution.iloc[1:], submission.iloc[1:], "id", k=256, metrics=["ERR"])
    assert at_256.exact_values["ERR@256"].exact_mean() == Fraction(1, 2)


def test_large_int64_fractions_are_correctly_rounded() -> None:
    """Parts past 2**53 are divided exactly, so a value never depends on its scaling."""
    numerator, denominator = 2940737266113669191, 1250748792389900941
    ratios = Ratios(np.array([numerator, 1]), np.array([denominator, 3]))
    assert ratios.values().tolist() == [float(Fraction(numerator, denominator)), 1 / 3]


@pytest.mark.parametrize("k", [2**63 - 1, 2**63, 2**64 + 7])
def test_every_measure_takes_a_k_past_int64(k: int) -> None:
    """Only the measures that divide by K (P, F1, Unjudged) read K itself; every other
    measure scores as under any K past every row (here 10**6)."""
    solution = pd.DataFrame({"id": ["u1", "u2"], "items": ["a b c", "d"]})
    submission = pd.DataFrame({"id": ["u1", "u2"], "items": ["a x c", "y d"]})
    names = binary_names([variant.name for variant in MEASURES])
    huge = evaluate(solution, submission, "id", k=k, metrics=names).metrics
    usual = evaluate(solution, submission, "id", k=10**6, metrics=names).metrics
    assert huge[f"P@{k}"] == float(Fraction(2 + 1, 2 * k))
    assert huge[f"F1@{k}"] == float((Fraction(4, k + 3) + Fraction(2, k + 1)) / 2)
    for variant in MEASURES:
        at_k, at_usual = parse(variant.name, k=k), parse(variant.name, k=10**6)
        if str(at_k) not in huge:
            continue  # refused under binary relevance: tested with grades elsewhere
        if not at_k.family.needs_cutoff:  # it does not divide by K
            assert huge[str(at_k)] == usual[str(at_usual)], variant.name
