"""The worked examples of docs/getting-started.md#what-it-computes, exact, and the pure maths
against the reference."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer import evaluate, score
from scorer.align import occurrences
from scorer.align.occurrences import first_occurrence
from scorer.measures.average_precision import EXACT_MAX_WIDTH, average_precision
from scorer.measures.exact_means import _sums_by_denominator
from tests.declared import choices
from tests.paths import FIXTURES
from tests.reference import reference_ap

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
    assert score(solution, submission, "user_id") == float(expected)  # correctly rounded


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
    assert fast.values()[0] == float(expected)


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
    assert value == float(expected)


def test_shipped_example_scores_as_documented() -> None:
    folder = FIXTURES / "example"
    result = evaluate(folder / "solution.csv", folder / "submission.csv")
    assert result.score == float(Fraction(39, 60))
    assert result.public_score == float(Fraction(11, 12))
    assert result.private_score == float(Fraction(17, 36))
    assert (result.n_scored, result.n_skipped, result.n_ignored) == (5, 1, 1)


codes_matrices = st.integers(1, 40).flatmap(
    lambda width: st.lists(
        st.lists(st.integers(-1, 6), min_size=width, max_size=width), min_size=1, max_size=6
    )
)


@given(codes_matrices, st.sampled_from([1, 2, 1 << 14]))
def test_first_occurrence_matches_a_plain_loop(rows: list[list[int]], block_users: int) -> None:
    expected = [[c != -1 and c not in row[:j] for j, c in enumerate(row)] for row in rows]
    with pytest.MonkeyPatch.context() as patch:  # users a block at a time
        patch.setattr(occurrences, "_BLOCK_USERS", block_users)
        assert first_occurrence(np.array(rows)).tolist() == expected


@given(
    st.integers(1, 26).flatmap(
        lambda k: st.tuples(
            st.just(k),
            st.lists(
                st.tuples(st.lists(st.booleans(), min_size=k, max_size=k), st.integers(0, 30)),
                min_size=1,
                max_size=6,
            ),
        )
    ),
    choices("normalization"),
    st.data(),
)
def test_average_precision_matches_the_reference(
    case: tuple[int, list[tuple[list[bool], int]]], normalization: str, data: st.DataObject
) -> None:
    k, users = case
    users = [(bits, max(n, sum(bits))) for bits, n in users]
    relevance = np.array([bits for bits, _ in users], dtype=bool).reshape(len(users), k)
    n_relevant = np.array([n for _, n in users], dtype=np.int64)
    fast = average_precision(relevance, n_relevant, k, normalization)
    exact = []
    for bits, n in users:
        predictions = [f"hit{i}" if b else f"miss{i}" for i, b in enumerate(bits)]
        relevant = {p for p in predictions if p.startswith("hit")}
        relevant |= {f"unseen{i}" for i in range(n - len(relevant))}
        exact.append(reference_ap(predictions, relevant, k, normalization))
    mask = np.array(data.draw(st.lists(st.booleans(), min_size=len(users), max_size=len(users))))
    chosen = [e for e, m in zip(exact, mask, strict=True) if m]
    if k <= EXACT_MAX_WIDTH:  # correctly rounded, not merely close
        assert fast.values().tolist() == [float(e) for e in exact]
        assert fast.mean() == float(sum(exact) / len(exact))
        if chosen:
            assert fast.mean(mask) == float(sum(chosen) / len(chosen))
    else:
        assert np.allclose(fast.values(), [float(e) for e in exact], rtol=0, atol=TOLERANCE)
        assert abs(fast.mean() - float(sum(exact) / len(exact))) <= TOLERANCE
    assert fast.hits.tolist() == [sum(bits) for bits, _ in users]


def test_average_precision_rejects_a_matrix_wider_than_k() -> None:
    with pytest.raises(ValueError, match="more than k=2"):
        average_precision(np.ones((1, 3), dtype=bool), np.array([3]), k=2)


@settings(max_examples=50)
@given(
    st.lists(st.tuples(st.booleans(), st.booleans(), st.integers(2, 9)), min_size=1), st.randoms()
)
def test_mean_ignores_order(users: list[tuple[bool, bool, int]], random) -> None:
    shuffled = list(users)
    random.shuffle(shuffled)
    means = []
    for rows in (users, shuffled):
        relevance = np.array([[a, b] for a, b, _ in rows], dtype=bool)
        ap = average_precision(relevance, np.array([n for *_, n in rows]), k=2)
        means.append(ap.mean())
    assert means[0] == means[1]


def test_mean_of_nothing_is_an_error() -> None:
    ap = average_precision(np.ones((2, 1), dtype=bool), np.array([1, 1]), k=1)
    with pytest.raises(ValueError, match="no value"):
        ap.mean(np.zeros(2, dtype=bool))


@settings(max_examples=200)
@given(
    st.lists(st.tuples(st.integers(0, 2**39), st.integers(0, 3000)), min_size=1, max_size=40),
    st.sampled_from([1, 2520, 232_792_560]),
)
def test_sums_by_denominator_are_exact_on_both_routes(pairs, scale: int) -> None:
    """Few users with large denominators take the sort; many small ones the bincount."""
    numerator = np.array([n for n, _ in pairs], dtype=np.int64)
    denominator = np.array([d * scale for _, d in pairs], dtype=np.int64)
    expected: dict[int, int] = {}
    for n, d in zip(numerator.tolist(), denominator.tolist(), strict=True):
        expected[d] = expected.get(d, 0) + n
    assert _sums_by_denominator(numerator, denominator, scale) == expected


def _narrow_rows(n_users: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``n_users`` users, 10 predictions each from 30 items, 1 to 6 relevant: Public."""
    rng = np.random.default_rng(seed)
    truth = [
        " ".join(f"i{j}" for j in rng.choice(30, rng.integers(1, 7), replace=False))
        for _ in range(n_users)
    ]
    ranked = [" ".join(f"i{j}" for j in rng.choice(30, 10, replace=False)) for _ in range(n_users)]
    ids = [f"u{i}" for i in range(n_users)]
    solution = pd.DataFrame({"id": ids, "items": truth, "Usage": "Public"})
    return solution, pd.DataFrame({"id": ids, "items": ranked})


def test_ap_past_20_is_float_whatever_the_rows_widths() -> None:
    """MAP@30 reads K, not the widest row: adding one Ignored user with 25 predictions
    changes no bit of anyone's value, and the mean is the correctly rounded mean of the
    per-user float64 APs (before, rows all at most 20 wide took the exact route, and the
    one wide row flipped every user to floats)."""
    solution, submission = _narrow_rows(400, seed=3)
    narrow = evaluate(solution, submission, "id", k=30)
    wide_solution = pd.concat(
        [solution, pd.DataFrame({"id": ["w"], "items": ["i0"], "Usage": ["Ignored"]})]
    )
    wide_ranked = " ".join(f"i{j}" for j in range(25))
    wide_submission = pd.concat([submission, pd.DataFrame({"id": ["w"], "items": [wide_ranked]})])
    wide = evaluate(wide_solution, wide_submission, "id", k=30)
    assert narrow.score.hex() == wide.score.hex() == wide.public_score.hex()
    assert (narrow.user_values["MAP@30"] == wide.user_values["MAP@30"][:-1]).all()
    floats = [
        sum(hit / rank for hit, rank in zip(range(1, 31), ranks, strict=False)) / min(n, 30)
        for ranks, n in _hit_ranks(solution, submission)
    ]
    exact_of_floats = sum((Fraction(v) for v in floats), Fraction(0)) / len(floats)
    assert narrow.score == float(exact_of_floats)


def _hit_ranks(solution: pd.DataFrame, submission: pd.DataFrame) -> list[tuple[list[int], int]]:
    """Each user's 1-based hit ranks and |R| (no repeats in these rows)."""
    found = []
    for truth, ranked in zip(solution["items"], submission["items"], strict=True):
        relevant = set(truth.split())
        ranks = [r for r, item in enumerate(ranked.split(), start=1) if item in relevant]
        found.append((ranks, len(relevant)))
    return found


def test_ap_up_to_20_is_exact_whatever_the_rows_widths() -> None:
    """MAP@20: exact, the correctly rounded rational mean, with or without short rows."""
    solution, submission = _narrow_rows(300, seed=4)
    result = evaluate(solution, submission, "id", k=20)
    exact = [
        sum((Fraction(h, r) for h, r in zip(range(1, 21), ranks, strict=False)), Fraction(0))
        / min(n, 20)
        for ranks, n in _hit_ranks(solution, submission)
    ]
    assert result.score == float(sum(exact, Fraction(0)) / len(exact))
    assert result.exact_values["MAP@20"].exact
