"""The worked examples of SPEC §1.2, exact, and the pure maths against the reference."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer import evaluate, score
from scorer.metrics import average_precision, exact_mean, first_occurrence
from tests.reference import reference_ap

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TOLERANCE = 1e-12


def read_pair(name: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    folder = FIXTURES / "worked" / name
    read = lambda path: pd.read_csv(path, dtype=str, keep_default_na=False)  # noqa: E731
    return read(folder / "solution.csv"), read(folder / "submission.csv")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("ap_1117_2520", Fraction(1117, 2520)),
        ("ap_34_45", Fraction(34, 45)),
        ("ap_133_360", Fraction(133, 360)),
        ("ap_37_48", Fraction(37, 48)),
        ("map_599_840", Fraction(599, 840)),
        ("ten_hits_of_fifteen", Fraction(1)),
        ("repeat_keeps_rank", Fraction(5, 6)),
    ],
)
def test_worked_examples_are_exact(name: str, expected: Fraction) -> None:
    solution, submission = read_pair(name)
    assert abs(score(solution, submission, "user_id") - float(expected)) <= TOLERANCE


@pytest.mark.parametrize(
    ("pattern", "n_relevant", "expected"),
    [
        ("0 1 0 0 1 0 1 0 1 0", 4, Fraction(1117, 2520)),
        ("1 0 1 0 1 0 0 0 0 0", 3, Fraction(34, 45)),
        ("0 0 1 0 1 0 0 1 0 0", 3, Fraction(133, 360)),
        ("1 0 1 1 0 1 0 0", 4, Fraction(37, 48)),
        ("1 1 0 0 1 0 0", 3, Fraction(13, 15)),
        ("0 1 1 0 0 1 1", 4, Fraction(47, 84)),
        ("1 1 1 1 1 1 1 1 1 1", 15, Fraction(1)),
    ],
)
def test_spec_values_agree_with_the_reference(
    pattern: str, n_relevant: int, expected: Fraction
) -> None:
    bits = pattern.split()
    predictions = [f"hit{i}" if b == "1" else f"miss{i}" for i, b in enumerate(bits)]
    relevant = {p for p in predictions if p.startswith("hit")}
    relevant |= {f"unseen{i}" for i in range(n_relevant - len(relevant))}
    assert reference_ap(predictions, relevant, 10) == expected
    relevance = np.array([[b == "1" for b in bits]])
    fast = average_precision(relevance, np.array([n_relevant]), k=10)
    assert abs(fast[0] - float(expected)) <= TOLERANCE


def test_published_mistakes_are_not_reproduced() -> None:
    solution, submission = read_pair("ap_34_45")
    assert round(score(solution, submission, "user_id"), 3) == 0.756  # not a tutorial's 0.757
    solution, submission = read_pair("ap_37_48")
    assert round(score(solution, submission, "user_id"), 6) == 0.770833  # not 0.8
    solution, submission = read_pair("map_599_840")
    assert score(solution, submission, "user_id") < 0.72  # 599/840, not 599/420


@pytest.mark.parametrize(
    ("normalization", "expected"),
    [("min_k", Fraction(5, 9)), ("relevant", Fraction(1, 3)), ("hits", Fraction(5, 6))],
)
def test_three_normalizations_give_three_numbers(normalization: str, expected: Fraction) -> None:
    folder = FIXTURES / "normalizations"
    value = score(
        folder / "solution.csv", folder / "submission.csv", k=3, normalization=normalization
    )
    assert abs(value - float(expected)) <= TOLERANCE


def test_shipped_example_scores_as_documented() -> None:
    folder = FIXTURES / "example"
    result = evaluate(folder / "solution.csv", folder / "submission.csv")
    assert result.score == pytest.approx(float(Fraction(39, 60)), abs=TOLERANCE)
    assert result.public_score == pytest.approx(float(Fraction(11, 12)), abs=TOLERANCE)
    assert result.private_score == pytest.approx(float(Fraction(17, 36)), abs=TOLERANCE)
    assert (result.n_scored, result.n_skipped, result.n_ignored) == (5, 1, 1)


codes_matrices = st.integers(1, 40).flatmap(
    lambda width: st.lists(
        st.lists(st.integers(-1, 6), min_size=width, max_size=width), min_size=1, max_size=6
    )
)


@given(codes_matrices)
def test_first_occurrence_matches_a_plain_loop(rows: list[list[int]]) -> None:
    expected = [[c != -1 and c not in row[:j] for j, c in enumerate(row)] for row in rows]
    assert first_occurrence(np.array(rows)).tolist() == expected


@given(
    st.lists(st.tuples(st.lists(st.booleans(), min_size=7, max_size=7), st.integers(0, 12))),
    st.sampled_from(["min_k", "relevant", "hits"]),
)
def test_average_precision_matches_the_reference(
    users: list[tuple[list[bool], int]], normalization: str
) -> None:
    k = 7
    users = [(bits, max(n, sum(bits))) for bits, n in users]
    relevance = np.array([bits for bits, _ in users], dtype=bool).reshape(len(users), k)
    n_relevant = np.array([n for _, n in users], dtype=np.int64)
    fast = average_precision(relevance, n_relevant, k, normalization)
    for (bits, n), value in zip(users, fast, strict=True):
        predictions = [f"hit{i}" if b else f"miss{i}" for i, b in enumerate(bits)]
        relevant = {p for p in predictions if p.startswith("hit")}
        relevant |= {f"unseen{i}" for i in range(n - len(relevant))}
        assert abs(value - float(reference_ap(predictions, relevant, k, normalization))) <= 1e-12


def test_average_precision_rejects_a_matrix_wider_than_k() -> None:
    with pytest.raises(ValueError, match="more than k=2"):
        average_precision(np.ones((1, 3), dtype=bool), np.array([3]), k=2)


@settings(max_examples=50)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=50), st.randoms())
def test_exact_mean_ignores_order(values: list[float], random) -> None:
    shuffled = list(values)
    random.shuffle(shuffled)
    assert exact_mean(np.array(values)) == exact_mean(np.array(shuffled))


def test_exact_mean_of_nothing_is_an_error() -> None:
    with pytest.raises(ValueError, match="no value"):
        exact_mean(np.array([]))
