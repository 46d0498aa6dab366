"""GAP (global average precision): the fast path against a slow Fraction reference,
its exact rounding, its order and tie rules, how a scored cell is read, and where it is
refused (parts, statistics, target types)."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer import HostVisibleError, ParticipantVisibleError, evaluate, stats
from scorer.measures.global_precision import GlobalPrecision, rounded_sum_of_quotients
from scorer.partial import score_part


def reference_gap(
    truth: dict[str, set[str]], predictions: dict[str, tuple[str, str]], rows: set[str]
) -> Fraction:
    """GAP as defined, slowly: every prediction of ``rows`` sorted by float confidence
    descending, ties by row id ascending (Python's string order), a loop summing
    P(i)·rel(i) as Fractions, divided by the rows of ``rows`` with a non-empty truth."""
    scored = [(row, label, float(text)) for row, (label, text) in predictions.items()]
    ordered = sorted((p for p in scored if p[0] in rows), key=lambda p: (-p[2], p[0]))
    total, hits = Fraction(0), 0
    for place, (row, label, _) in enumerate(ordered, start=1):
        if label in truth[row]:
            hits += 1
            total += Fraction(hits, place)
    m = sum(1 for row in rows if truth[row])
    return total / m if m else Fraction(0)


CONFIDENCES = ["0.5", "0.25", "1", "-0.0", "0.0", "0", "5e-1", "1e308", "4.9e-324", ".75", "-2"]

landmark_rows = st.lists(
    st.tuples(
        st.sets(st.sampled_from("abc"), max_size=2),  # truth, maybe empty
        st.one_of(st.none(), st.tuples(st.sampled_from("abcd"), st.sampled_from(CONFIDENCES))),
        st.sampled_from(["Public", "Private", "Ignored"]),
    ),
    min_size=1,
    max_size=40,
)


def frames(rows: list, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame, dict, dict]:
    ids = [f"r{n:02d}" if n % 3 else f"R{n}" for n in range(len(rows))]  # not in byte order
    truth = {row: labels for row, (labels, _, _) in zip(ids, rows, strict=True)}
    predictions = {row: p for row, (_, p, _) in zip(ids, rows, strict=True) if p is not None}
    solution = pd.DataFrame(
        {
            "id": ids,
            "landmarks": [" ".join(sorted(labels)) for labels, _, _ in rows],
            "Usage": [usage for _, _, usage in rows],
        }
    )
    cells = ["" if p is None else f"{p[0]} {p[1]}" for _, p, _ in rows]
    submission = pd.DataFrame({"id": ids, "landmarks": cells})
    order = random.Random(seed).sample(range(len(rows)), len(rows))
    return solution, submission.iloc[order], truth, predictions


@settings(max_examples=120, deadline=None)
@given(landmark_rows, st.integers(0, 2**16))
def test_gap_equals_the_slow_reference_overall_and_per_split(rows: list, seed: int) -> None:
    solution, submission, truth, predictions = frames(rows, seed)
    usage = dict(zip(solution["id"], solution["Usage"], strict=True))
    kept = {row for row, split in usage.items() if split != "Ignored"}
    if not kept:
        return
    result = evaluate(solution, submission, "id", metrics=["GAP"], k=1, empty_ground_truth="zero")
    assert result.score == float(reference_gap(truth, predictions, kept))
    for split, value in (("Public", result.public_score), ("Private", result.private_score)):
        rows_of_split = {row for row in kept if usage[row] == split}
        expected = (
            float(reference_gap(truth, predictions, rows_of_split)) if rows_of_split else None
        )
        assert value == expected, split
    mask = (result.user_usage != 2).astype(bool)
    exact = result.exact_values["GAP"].exact_mean(mask)
    assert exact == reference_gap(truth, predictions, kept)


@settings(max_examples=60, deadline=None)
@given(landmark_rows, st.integers(0, 2**16), st.integers(0, 2**16))
def test_gap_is_bit_identical_under_any_row_order(rows: list, one: int, two: int) -> None:
    solution, first, _, _ = frames(rows, one)
    _, second, _, _ = frames(rows, two)
    shuffled = solution.sample(frac=1, random_state=two)
    if (solution["Usage"] == "Ignored").all():
        return
    a = evaluate(solution, first, "id", metrics=["GAP"], k=1, empty_ground_truth="zero")
    b = evaluate(shuffled, second, "id", metrics=["GAP"], k=1, empty_ground_truth="zero")
    for x, y in ((a.score, b.score), (a.public_score, b.public_score)):
        assert np.float64(x).tobytes() == np.float64(y).tobytes()


def long_frame(submission: pd.DataFrame, seed: int) -> pd.DataFrame:
    """The wide submission as a long file: a line per row id, its label and its
    confidence in a column of their own (a row id without a prediction: empty cells),
    the lines in another order."""
    pairs = [cell.split() or ["", ""] for cell in submission["landmarks"]]
    long = pd.DataFrame(
        {
            "id": submission["id"].tolist(),
            "landmarks": [label for label, _ in pairs],
            "confidence": [f" {text}" for _, text in pairs],  # padded: trimmed as a score
        }
    )
    return long.sample(frac=1, random_state=seed)


@settings(max_examples=60, deadline=None)
@given(landmark_rows, st.integers(0, 2**16))
def test_a_long_file_with_a_confidence_column_scores_as_the_wide_cells(rows, seed) -> None:
    """One line per prediction (layout="long", score_column_name=...) is the same
    prediction as a wide 'label confidence' cell: the same GAP, bit for bit, overall and
    per split (it was refused as "Not one scored prediction")."""
    solution, submission, _, _ = frames(rows, seed)
    if (solution["Usage"] == "Ignored").all():
        return
    options = {"metrics": ["GAP"], "k": 1, "empty_ground_truth": "zero"}
    wide = evaluate(solution, submission, "id", **options)
    long = evaluate(
        solution, long_frame(submission, seed), "id", layout="long",
        score_column_name="confidence", **options,
    )  # fmt: skip
    for mine, theirs in zip(
        (long.score, long.public_score, long.private_score),
        (wide.score, wide.public_score, wide.private_score),
        strict=True,
    ):
        assert mine == theirs and (mine is None or mine.hex() == theirs.hex())


def test_a_long_gap_file_needs_its_confidence_column_and_one_line_per_row_id() -> None:
    solution = pd.DataFrame({"id": ["a", "b"], "landmarks": ["1", "2"]})
    long = pd.DataFrame({"id": ["a", "b", "b"], "landmarks": ["1", "2", "3"], "c": ["1", "2", "3"]})
    for ranked_by in ({}, {"rank_column_name": "c"}):
        with pytest.raises(HostVisibleError, match=r"confidence.*score_column_name"):
            evaluate(solution, long, "id", metrics=["GAP"], k=1, layout="long", **ranked_by)
    with pytest.raises(ParticipantVisibleError, match=r"Not one scored prediction[\s\S]*'b'"):
        evaluate(solution, long, "id", metrics=["GAP"], layout="long", score_column_name="c")


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 10**6), st.integers(0, 10**6)), min_size=1, max_size=60),
    st.integers(1, 10**6),
)
def test_the_rounded_sum_is_the_correctly_rounded_exact_rational(
    pairs: list[tuple[int, int]], m: int
) -> None:
    denominators = [d for d, _ in pairs]
    numerators = [min(n, d) for d, n in pairs]
    exact = sum((Fraction(n, d) for n, d in zip(numerators, denominators, strict=True)), Fraction())
    fast = rounded_sum_of_quotients(np.array(numerators), np.array(denominators), m)
    assert fast == float(exact / m)


def test_a_sum_that_floats_round_twice_is_still_exact() -> None:
    """Many thirds: a float running sum drifts; the integer limbs do not."""
    n = 200_001
    numerators, denominators = np.ones(n, np.int64), np.full(n, 3, np.int64)
    expected = float(Fraction(n, 3) / 7)
    assert rounded_sum_of_quotients(numerators, denominators, 7) == expected
    places = np.arange(1, n + 1, dtype=np.int64)
    exact = float(sum((Fraction(1, p) for p in range(1, 2001)), Fraction()) / 3)
    assert rounded_sum_of_quotients(np.ones(2000, np.int64), places[:2000], 3) == exact


def test_worked_example_and_false_positives() -> None:
    """By confidence: b (hit), a (miss), c (no landmark: a false positive), d (hit);
    e has no prediction and counts in M: (1/1 + 2/4) / 4 = 3/8."""
    solution = pd.DataFrame({"id": list("abcde"), "landmarks": ["1", "2", "", "3 4", "5"]})
    submission = pd.DataFrame(
        {"id": list("abcde"), "landmarks": ["9 0.8", "2 0.9", "7 .5", "4 0.1", ""]}
    )
    result = evaluate(solution, submission, "id", metrics=["GAP"], k=1, empty_ground_truth="zero")
    assert result.exact_values["GAP"].exact_mean() == Fraction(3, 8)
    assert result.score == 3 / 8
    assert result.user_values["GAP"].tolist() == [0, 1, 0, 0.5, 0]
    skipped = evaluate(solution, submission, "id", metrics=["GAP"], k=1)  # c left out
    assert skipped.score == float((Fraction(1) + Fraction(2, 3)) / 4)


def test_negative_zero_ties_with_zero_and_the_row_id_decides() -> None:
    solution = pd.DataFrame({"id": ["b", "a"], "landmarks": ["1", "2"]})
    for cells in (["1 -0.0", "9 0.0"], ["1 0", "9 -0"], ["1 0e5", "9 -0.000"]):
        submission = pd.DataFrame({"id": ["b", "a"], "landmarks": cells})
        result = evaluate(solution, submission, "id", metrics=["GAP"], k=1)
        assert result.score == 0.25  # a (miss) first, then b (hit): (1/2) / 2


def test_two_spellings_of_one_double_tie() -> None:
    solution = pd.DataFrame({"id": ["b", "a"], "landmarks": ["1", "2"]})
    submission = pd.DataFrame({"id": ["b", "a"], "landmarks": ["1 0.5", "9 5e-1"]})
    assert evaluate(solution, submission, "id", metrics=["GAP"], k=1).score == 0.25
    denormal = pd.DataFrame({"id": ["b", "a"], "landmarks": ["1 4.9e-324", "9 0"]})
    assert evaluate(solution, denormal, "id", metrics=["GAP"], k=1).score == 0.5


def test_other_measures_read_the_label_as_a_one_item_ranking() -> None:
    solution = pd.DataFrame({"id": ["a", "b"], "landmarks": ["1", "2"]})
    submission = pd.DataFrame({"id": ["a", "b"], "landmarks": ["1 0.2", "3 0.9"]})
    result = evaluate(solution, submission, "id", metrics=["GAP", "P@1"], k=1)
    assert result.metrics == {"GAP": 0.25, "P@1": 0.5}


def test_malformed_cells_are_one_participant_error_with_examples_and_totals() -> None:
    ids = [f"u{n}" for n in range(9)]
    solution = pd.DataFrame({"id": ids, "landmarks": ["1"] * 9})
    cells = ["1", "1 0.5 2", "1 nan", "1 inf", "1 -inf", "1 1e999", "1 0x10", "1 1_0", "1 0.5"]
    submission = pd.DataFrame({"id": ids, "landmarks": cells})
    with pytest.raises(ParticipantVisibleError) as raised:
        evaluate(solution, submission, "id", metrics=["GAP"], k=1)
    text = str(raised.value)
    assert "2 problems" in text
    assert "Not one scored prediction" in text and "2 rows with one token alone" in text
    assert "'u0', 'u1'" in text
    assert "Invalid confidences" in text and "6 rows whose confidence" in text
    assert "'u2', 'u3', 'u4', 'u5', 'u6'" in text and "'u7'" not in text  # five smallest
    with pytest.raises(ParticipantVisibleError, match=r"Invalid confidences(.|\n)*'u2'"):
        evaluate(solution, submission, "id", metrics=["GAP"], k=1)


def test_gap_cannot_be_scored_in_parts() -> None:
    solution = pd.DataFrame({"id": ["a"], "landmarks": ["1"]})
    submission = pd.DataFrame({"id": ["a"], "landmarks": ["1 0.5"]})
    with pytest.raises(HostVisibleError, match=r"GAP cannot be scored in parts: it ranks"):
        score_part(solution, submission, "id", metrics=["GAP"], k=1)


def resampled_reference(gap: GlobalPrecision, weights: list[int]) -> Fraction:
    """GAP of a resample, slowly: each row repeated as often as drawn, the copies side by
    side in the global order, then the loop of P(i)·rel(i) as Fractions."""
    expanded = [row for row in gap.order.tolist() for _ in range(weights[row])]
    total, hits = Fraction(0), 0
    for place, row in enumerate(expanded, start=1):
        if gap.hit[row]:
            hits += 1
            total += Fraction(hits, place)
    m = sum(w for w, truth in zip(weights, gap.has_truth.tolist(), strict=True) if truth)
    return total / m if m else Fraction(0)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.booleans(),
            st.booleans(),
            st.booleans(),
            st.lists(st.integers(0, 4), min_size=3, max_size=3),
        ),
        min_size=1,
        max_size=12,
    ),
    st.randoms(),
)
def test_a_resamples_gap_equals_the_expanded_reference(rows: list, order_rng) -> None:
    """Row u: (has a prediction, its label is right, its truth is non-empty, three
    resamples' draw counts)."""
    predicted = [u for u, row in enumerate(rows) if row[0]]
    order_rng.shuffle(predicted)
    hit = np.array([row[0] and row[1] and row[2] for row in rows])
    gap = GlobalPrecision(np.array(predicted, np.int64), hit, np.array([row[2] for row in rows]))
    weights = np.array([row[3] for row in rows]).T  # resamples x rows
    fast = gap.resampled_means(weights)
    for resample, value in zip(weights.tolist(), fast.tolist(), strict=True):
        assert value == pytest.approx(float(resampled_reference(gap, resample)), rel=1e-12)
    assert gap.resampled_means(np.ones((1, len(rows)), np.int64))[0] == pytest.approx(gap.mean())


def test_the_bootstrap_recomputes_gap_per_split_and_ignores_row_order() -> None:
    rng = np.random.default_rng(3)
    n = 400
    ids = [f"i{n:03d}" for n in range(n)]
    truth = [str(rng.integers(4)) if rng.random() < 0.7 else "" for _ in ids]
    solution = pd.DataFrame(
        {"id": ids, "landmarks": truth, "Usage": rng.choice(["Public", "Private"], n)}
    )
    cells = [f"{rng.integers(4)} {rng.random():.2f}" for _ in ids]
    submission = pd.DataFrame({"id": ids, "landmarks": cells})
    options = {"metrics": ["GAP"], "k": 1, "empty_ground_truth": "zero"}
    result = evaluate(solution, submission, "id", **options)
    intervals = stats.bootstrap(result, "GAP", n_resamples=200, seed=5)
    assert set(intervals) == {"score", "public", "private"}
    for label, value in (
        ("score", result.score),
        ("public", result.public_score),
        ("private", result.private_score),
    ):
        assert intervals[label].value == value
        assert intervals[label].low < value < intervals[label].high
    shuffled = evaluate(solution.sample(frac=1, random_state=1), submission, "id", **options)
    assert stats.bootstrap(shuffled, "GAP", n_resamples=200, seed=5) == intervals


def test_other_statistics_refuse_gap_and_say_why() -> None:
    solution = pd.DataFrame({"id": ["a", "b"], "landmarks": ["1", "2"]})
    submission = pd.DataFrame({"id": ["a", "b"], "landmarks": ["1 0.5", "2 0.4"]})
    result = evaluate(solution, submission, "id", metrics=["GAP", "P@1"], k=1)
    with pytest.raises(HostVisibleError, match=r"Only bootstrap intervals of GAP .* per-row parts"):
        stats.compare(result, result, "GAP", n_resamples=10)
    assert stats.compare(result, result, "P@1", n_resamples=10)  # the per-row measure beside it
    with pytest.raises(HostVisibleError, match=r"no sum of per-row parts: a part of a run"):
        result.exact_values["GAP"].split_sums(np.zeros(2, np.int64), 1)


def test_gap_with_target_types_is_refused() -> None:
    solution = pd.DataFrame({"id": ["a_x", "a_y"], "landmarks": ["1", "2"]})
    submission = pd.DataFrame({"id": ["a_x", "a_y"], "landmarks": ["1 0.5", "2 0.4"]})
    with pytest.raises(HostVisibleError, match=r"cannot be weighted over target types"):
        evaluate(solution, submission, "id", metrics=["GAP"], k=1, row_id_type_separator="_")


def test_no_landmark_anywhere_scores_zero() -> None:
    gap = GlobalPrecision(np.array([0]), np.array([False]), np.array([False]))
    assert gap.mean() == 0.0 and gap.exact_mean() == 0
