"""Set measures, micro averages, DCG and linear gains past 30: the issue's pins, the
edge cases the definitions leave open, and the statistics of a ratio of sums against
brute force over every resample, swap pattern and re-split."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from scorer import HostVisibleError, evaluate, stats
from scorer.measures import REGISTRY, parse
from tests.reference import inverted_cdf


def one_row(truth: str, prediction: str, **options):
    solution = pd.DataFrame({"id": ["u"], "items": [truth]})
    submission = pd.DataFrame({"id": ["u"], "items": [prediction]})
    return evaluate(solution, submission, "id", **options)


def rows(truths: list[str], predictions: list[str], usage: list[str] | None = None, **options):
    ids = [f"u{i}" for i in range(len(truths))]
    solution = pd.DataFrame({"id": ids, "items": truths})
    if usage is not None:
        solution["Usage"] = usage
    submission = pd.DataFrame({"id": ids, "items": predictions})
    return evaluate(solution, submission, "id", **options)


# --- set measures ----------------------------------------------------------------------


def test_set_f1_is_two_fifths_where_f1_at_10_is_two_twelfths() -> None:
    """The issue's pin: |P| = 3, |T| = 2, one hit, K = 10."""
    result = one_row("a b", "a x y", k=10, metrics=["SetF", "F1@10", "SetP", "SetR", "Jaccard"])
    exact = {name: value.exact_mean() for name, value in result.exact_values.items()}
    assert exact == {
        "SetF": Fraction(2, 5),
        "F1@10": Fraction(2, 12),
        "SetP": Fraction(1, 3),
        "SetR": Fraction(1, 2),
        "Jaccard": Fraction(1, 4),
    }


def test_a_repeated_item_counts_once_in_the_set() -> None:
    result = one_row("a b", "a x a x b", k=5, metrics=["SetP", "SetF", "Jaccard", "SetP@3"])
    exact = {name: value.exact_mean() for name, value in result.exact_values.items()}
    # S = {a, x, b}: 2 hits of 3; the first three predictions are {a, x}
    assert exact == {
        "SetP": Fraction(2, 3),
        "SetF": Fraction(4, 5),
        "Jaccard": Fraction(2, 3),
        "SetP@3": Fraction(1, 2),
    }


def test_an_empty_submission_scores_zero_on_every_set_measure() -> None:
    names = ["SetP", "SetR", "SetF", "Jaccard", "SetF(avg=micro)"]
    result = one_row("a b", "", k=3, metrics=names)
    assert result.metrics == dict.fromkeys(names, 0.0)


@pytest.mark.parametrize("prediction", ["", "a"])
def test_an_empty_truth_row_follows_empty_ground_truth(prediction: str) -> None:
    """S = R = ∅ (or R = ∅ alone) is an empty-truth row: skipped by default, 0 with
    ``zero``; under ``avg=micro`` it adds its parts (0 over |S| for SetP)."""
    names = ["SetP", "SetR", "SetF", "Jaccard", "SetP(avg=micro)", "Jaccard(avg=micro)"]
    skip = rows(["", "a"], [prediction, "a"], k=3, metrics=names)
    assert skip.n_skipped == 1 and skip.metrics == dict.fromkeys(names, 1.0)
    zero = rows(["", "a"], [prediction, "a"], k=3, metrics=names, empty_ground_truth="zero")
    assert zero.metrics["SetP"] == zero.metrics["Jaccard"] == 0.5
    micro = Fraction(1, 1 + len(prediction))  # the empty row's |S| joins the denominator
    assert zero.exact_values["SetP(avg=micro)"].exact_mean() == micro
    assert zero.exact_values["Jaccard(avg=micro)"].exact_mean() == micro


def test_set_measures_without_a_cut_off_read_the_whole_row() -> None:
    assert str(parse("setf", k=12)) == "SetF" and parse("setf", k=12).cutoff is None
    assert str(parse("SetF@5", k=12)) == "SetF@5"
    assert parse("iou", k=12).key == "jaccard"
    result = one_row("a b c", "x y a b c", k=5, metrics=["SetR", "SetR@3"])
    assert result.metrics == {"SetR": 1.0, "SetR@3": 1 / 3}


@pytest.mark.parametrize(
    ("written", "canonical", "beta_squared"),
    [
        ("SetF(beta=2)", "SetF(beta=2)", Fraction(4)),
        ("SetF(beta=0.5)", "SetF(beta=0.5)", Fraction(1, 4)),
        ("SetF(beta=2.0)", "SetF(beta=2)", Fraction(4)),
        ("SetF(beta=1)", "SetF", Fraction(1)),
        ("SetF(beta=0.1250,avg=micro)@3", "SetF(beta=0.125,avg=micro)@3", Fraction(1, 64)),
    ],
)
def test_beta_is_an_exact_decimal(written: str, canonical: str, beta_squared: Fraction) -> None:
    measure = parse(written, k=5)
    assert str(measure) == canonical
    assert dict(measure.params)["beta"] ** 2 == beta_squared
    result = one_row("a b", "a x y", k=5, metrics=[written])
    hits, n_relevant, n_set = 1, 2, min(3, measure.cutoff or 3)
    expected = (1 + beta_squared) * hits / (beta_squared * n_relevant + n_set)
    assert result.exact_values[canonical].exact_mean() == expected


@pytest.mark.parametrize("beta", ["0", "0.0", "-1", "x", "1e3", "12345", "0.12345", "1/2"])
def test_a_bad_beta_is_a_host_error_naming_the_form(beta: str) -> None:
    with pytest.raises(HostVisibleError, match=r"'beta' parameter of SetF must be a positive"):
        parse(f"SetF(beta={beta})", k=5)


def test_a_huge_beta_stays_exact() -> None:
    result = one_row("a b", "a x y", k=5, metrics=["SetF(beta=9999.9999)"])
    square = Fraction("9999.9999") ** 2
    expected = (1 + square) / (square * 2 + 3)
    assert result.exact_values["SetF(beta=9999.9999)"].exact_mean() == expected


# --- micro averages ---------------------------------------------------------------------


def test_ottos_recall_is_a_ratio_of_sums() -> None:
    """Two sessions, truths of 1 and 10 items, hits 1 and 0: micro 1/11, macro 1/2."""
    truths = ["a", " ".join(f"t{i}" for i in range(10))]
    names = ["R(norm=min_k,avg=micro)@20", "R(norm=min_k)@20"]
    result = rows(truths, ["a", "x"], k=20, metrics=names, per_user=True)
    micro = result.exact_values[names[0]]
    assert micro.exact_mean() == Fraction(1, 11)
    assert result.metrics == {names[0]: 1 / 11, names[1]: 0.5}
    # per user: each row's own ratio; the parts are there for statistics
    assert result.per_user[names[0]].tolist() == [1.0, 0.0]
    values = result.measure_values(names[0])
    assert values.numerator.tolist() == [1.0, 0.0] and values.denominator.tolist() == [1.0, 10.0]


def test_micro_is_per_split_and_exact() -> None:
    truths = ["a", "a b c", "a b", "a b c d"]
    predictions = ["a", "x a", "x y", "a b c"]
    usage = ["Public", "Public", "Private", "Private"]
    name = "SetR(avg=micro)"
    result = rows(truths, predictions, usage, k=3, metrics=[name])
    assert result.public_metrics[name] == float(Fraction(1 + 1, 1 + 3))
    assert result.private_metrics[name] == float(Fraction(0 + 3, 2 + 4))
    assert result.score == float(Fraction(5, 10))


def test_micro_equals_macro_when_every_denominator_is_equal() -> None:
    names = ["P(avg=micro)@3", "P@3", "HitRate(avg=micro)@3", "HitRate@3"]
    result = rows(["a b", "c", "d e f"], ["a x b", "y", "d"], k=3, metrics=names)
    assert result.metrics["P(avg=micro)@3"] == result.metrics["P@3"]
    assert result.metrics["HitRate(avg=micro)@3"] == result.metrics["HitRate@3"]


@pytest.mark.parametrize("family", [f.name for f in REGISTRY if not f.micro])
def test_avg_is_declared_only_where_the_value_is_a_ratio_of_counts(family: str) -> None:
    with pytest.raises(HostVisibleError, match=rf"parameters of {family} must be among"):
        parse(f"{family}(avg=micro)@3", k=3)


# --- DCG and linear gains past 30 -------------------------------------------------------


def test_dcg_is_ndcgs_numerator() -> None:
    solution = pd.DataFrame({"id": ["u"], "items": ["a b c"], "g": ["3 2 1"]})
    submission = pd.DataFrame({"id": ["u"], "items": ["c x a"]})
    names = ["DCG@3", "DCG(gain=linear)@3", "nDCG@3"]
    result = evaluate(solution, submission, "id", k=3, metrics=names, grade_column_name="g")
    dcg = (2**1 - 1) / math.log2(2) + (2**3 - 1) / math.log2(4)
    ideal = 7 / math.log2(2) + 3 / math.log2(3) + 1 / math.log2(4)
    assert result.metrics["DCG@3"] == pytest.approx(dcg, rel=1e-15)
    assert result.metrics["DCG(gain=linear)@3"] == pytest.approx(1 + 3 / 2, rel=1e-15)
    assert result.metrics["nDCG@3"] == pytest.approx(dcg / ideal, rel=1e-15)


def test_esci_grades_with_linear_gain_equal_the_float_gains() -> None:
    """ESCI's gains 1, 0.1, 0.01, 0 are grades 100, 10, 1, 0 with gain=linear: nDCG
    is scale-free, so it equals a float reference computed on the gains themselves."""
    gains = {"e": 1.0, "s": 0.1, "c": 0.01, "i": 0.0}
    grades = {"e": 100, "s": 10, "c": 1, "i": 0}
    rng = np.random.default_rng(7)
    truths, grade_cells, predictions, expected = [], [], [], []
    for user in range(30):
        labels = rng.choice(list(gains), size=int(rng.integers(1, 8)))
        items = [f"{user}_{n}" for n in range(len(labels))]
        ranking = list(rng.permutation(items))[: int(rng.integers(0, len(items) + 1))]
        truths.append(" ".join(items))
        grade_cells.append(" ".join(str(grades[label]) for label in labels))
        predictions.append(" ".join(ranking))
        gain_of = dict(zip(items, (gains[label] for label in labels), strict=True))
        dcg = sum(gain_of[item] / math.log2(i + 2) for i, item in enumerate(ranking[:10]))
        ideal_gains = sorted(gain_of.values(), reverse=True)[:10]
        ideal = sum(g / math.log2(i + 2) for i, g in enumerate(ideal_gains))
        if any(grades[label] >= 1 for label in labels):  # a user with a relevant item
            expected.append(dcg / ideal if ideal else 0.0)
    ids = [f"u{n}" for n in range(30)]
    solution = pd.DataFrame({"id": ids, "items": truths, "g": grade_cells})
    submission = pd.DataFrame({"id": ids, "items": predictions})
    name = "nDCG(gain=linear)@10"
    result = evaluate(solution, submission, "id", k=10, metrics=[name], grade_column_name="g")
    scored = result.user_values[name][result.user_scored]
    np.testing.assert_allclose(scored, expected, rtol=1e-12, atol=1e-15)


def test_grades_up_to_two_to_the_31_with_linear_gains() -> None:
    solution = pd.DataFrame({"id": ["u"], "items": ["a b"], "g": [f"{2**31} 1"]})
    submission = pd.DataFrame({"id": ["u"], "items": ["b a"]})
    result = evaluate(
        solution,
        submission,
        "id",
        k=2,
        metrics=["DCG(gain=linear)@2", "MAP"],
        grade_column_name="g",
    )
    assert result.metrics["DCG(gain=linear)@2"] == 1 + 2**31 / math.log2(3)
    too_large = solution.assign(g=[f"{2**31 + 1} 1"])
    with pytest.raises(HostVisibleError, match=r"(?s)Invalid grades.*from 0 to 2,147,483,648"):
        evaluate(too_large, submission, "id", k=2, grade_column_name="g")


def test_a_grade_above_30_with_exponential_gains_names_the_measures_and_the_fix() -> None:
    solution = pd.DataFrame({"id": ["u1", "u2"], "items": ["a b", "c"], "g": ["31 1", "100"]})
    submission = pd.DataFrame({"id": ["u1", "u2"], "items": ["b a", "c"]})
    names = ["nDCG@2", "nDCG(gain=linear)@2", "ERR@2", "DCG@2", "nERR@2"]
    with pytest.raises(
        HostVisibleError,
        match=(
            r"(?s)Grades too large for exponential gains.*up to 30 for nDCG@2, ERR@2, DCG@2, "
            r"nERR@2.*2 rows with a grade above 30 \(up to 100\).*'u1', 'u2'.*gain=linear"
        ),
    ):
        evaluate(solution, submission, "id", k=2, metrics=names, grade_column_name="g")
    linear = evaluate(solution, submission, "id", k=2, metrics=names[1:2], grade_column_name="g")
    assert 0 < linear.score <= 1


# --- statistics of a ratio of sums: brute force -----------------------------------------

# (truth, prediction, Usage): recall@3 with norm=min_k as a ratio of sums
USERS = [
    ("a b c d", "a x b", "Public"),
    ("a", "x y", "Public"),
    ("a b", "a b", "Public"),
    ("a b c", "x a", "Private"),
    ("a", "a", "Private"),
    ("a b c d e", "y x z", "Private"),
]
MICRO = "R(norm=min_k,avg=micro)@3"


def micro_result(users, predictions=None, usage=True):
    truths = [u[0] for u in users]
    predictions = predictions or [u[1] for u in users]
    splits = [u[2] for u in users] if usage else None
    return rows(truths, predictions, splits, k=3, metrics=[MICRO, "MAP"])


def parts_of(users, predictions=None) -> list[tuple[int, int]]:
    """Each user's (hits, min(|R|, 3)) from the definition."""
    predictions = predictions or [u[1] for u in users]
    found = []
    for (truth, *_), prediction in zip(users, predictions, strict=True):
        relevant = set(truth.split())
        hits = len(set(prediction.split()[:3]) & relevant)
        found.append((hits, min(len(relevant), 3)))
    return found


def ratio(numerator, denominator) -> Fraction:
    return Fraction(numerator, denominator) if denominator else Fraction(0)


def ratio_of(parts) -> Fraction:
    """Σ numerators / Σ denominators of (numerator, denominator) pairs."""
    parts = list(parts)
    return ratio(sum(p[0] for p in parts), sum(p[1] for p in parts))


def ratio_distribution(parts, combine=None) -> dict[Fraction, Fraction]:
    """The exact distribution of Σnum*/Σden* over all n^n resamples of the rows."""
    n = len(parts)
    counts: dict = {}
    for draw in itertools.product(parts, repeat=n):
        key = (sum(p[0] for p in draw), sum(p[1] for p in draw))
        counts[key] = counts.get(key, 0) + 1
    if combine is None:
        found: dict[Fraction, Fraction] = {}
        for (num, den), count in counts.items():
            value = ratio(num, den)
            found[value] = found.get(value, 0) + Fraction(count, n**n)
        return found
    return {key: Fraction(count, n**n) for key, count in counts.items()}


def assert_interval(interval, distribution, level: Fraction = Fraction(9, 10)) -> None:
    low, room_low = inverted_cdf(distribution, (1 - level) / 2)
    high, room_high = inverted_cdf(distribution, (1 + level) / 2)
    assert min(room_low, room_high) > Fraction(1, 200)  # the data leave room for noise
    assert interval.low == pytest.approx(float(low), abs=1e-12)
    assert interval.high == pytest.approx(float(high), abs=1e-12)


@pytest.mark.parametrize("path", ["grouped", "indices"])
def test_bootstrap_of_a_micro_measure_is_the_exact_stratified_one(monkeypatch, path) -> None:
    if path == "indices":  # draw indices into the rows instead of counts per atom
        monkeypatch.setattr(stats.resampling, "GROUPED_MIN_ATOMS", 0)
        monkeypatch.setattr(stats.resampling, "GROUPED_MAX_ATOMS_SHARE", 0.0)
    result = micro_result(USERS)
    parts = parts_of(USERS)
    public, private = parts[:3], parts[3:]
    sums_public = ratio_distribution(public, combine=True)
    sums_private = ratio_distribution(private, combine=True)
    overall: dict[Fraction, Fraction] = {}
    for (num_a, den_a), p_a in sums_public.items():
        for (num_b, den_b), p_b in sums_private.items():
            value = ratio(num_a + num_b, den_a + den_b)
            overall[value] = overall.get(value, 0) + p_a * p_b
    intervals = stats.bootstrap(result, MICRO, n_resamples=40_000, level=0.65, seed=3)
    assert intervals["score"].value == result.metrics[MICRO] == float(ratio_of(parts)) == 6 / 13
    level = Fraction(13, 20)  # where every distribution leaves room for noise
    assert_interval(intervals["score"], overall, level)
    assert_interval(intervals["public"], ratio_distribution(public), level)
    assert_interval(intervals["private"], ratio_distribution(private), level)


def test_paired_comparison_of_a_micro_measure_against_brute_force() -> None:
    users = USERS[:5]
    better = ["a b c", "a y", "a b", "x a b", "a"]
    result_a = micro_result(users, usage=False)
    result_b = micro_result(users, better, usage=False)
    parts_a, parts_b = parts_of(users), parts_of(users, better)
    # the paired bootstrap: all 5^5 resamples of the users, both submissions' parts together
    differences: dict[Fraction, Fraction] = {}
    for draw in itertools.product(range(5), repeat=5):
        a = ratio(sum(parts_a[i][0] for i in draw), sum(parts_a[i][1] for i in draw))
        b = ratio(sum(parts_b[i][0] for i in draw), sum(parts_b[i][1] for i in draw))
        differences[b - a] = differences.get(b - a, 0) + Fraction(1, 5**5)
    # the swap test: every user's parts swapped or not
    observed = abs(ratio_of(parts_b) - ratio_of(parts_a))
    extreme = 0
    for swaps in itertools.product((False, True), repeat=5):
        new_a = [pb if s else pa for s, pa, pb in zip(swaps, parts_a, parts_b, strict=True)]
        new_b = [pa if s else pb for s, pa, pb in zip(swaps, parts_a, parts_b, strict=True)]
        statistic = abs(ratio_of(new_b) - ratio_of(new_a))
        extreme += statistic >= observed
    comparison = stats.compare(result_a, result_b, MICRO, n_resamples=40_000, level=0.6)
    assert comparison.difference == float(ratio_of(parts_b)) - float(ratio_of(parts_a))
    assert_interval(comparison, differences, Fraction(3, 5))
    assert comparison.exact and comparison.p_value == float(Fraction(extreme, 2**5))
    assert (comparison.wins, comparison.ties, comparison.losses) == (3, 2, 0)


def test_monte_carlo_swap_test_agrees_with_all_patterns() -> None:
    rng = np.random.default_rng(1)
    parts_a = np.column_stack([rng.integers(0, 3, 20), rng.integers(1, 4, 20)]).astype(float)
    parts_b = np.column_stack([rng.integers(0, 4, 20), rng.integers(1, 4, 20)]).astype(float)
    parts_b[:, 0] = np.minimum(parts_b[:, 0], parts_b[:, 1])
    parts_a[:, 0] = np.minimum(parts_a[:, 0], parts_a[:, 1])
    totals_a, totals_b = parts_a.sum(axis=0), parts_b.sum(axis=0)
    observed = abs(totals_b[0] / totals_b[1] - totals_a[0] / totals_a[1])
    patterns = (np.arange(2**20)[:, None] >> np.arange(20)) & 1
    moved = patterns @ (parts_a - parts_b)
    b, a = totals_b + moved, totals_a - moved
    exact = np.mean(np.abs(b[:, 0] / b[:, 1] - a[:, 0] / a[:, 1]) >= observed - 1e-9)
    generator = np.random.Generator(np.random.PCG64(4))
    p_value, is_exact = stats.resampling.swap_p_value(parts_a, parts_b, 20_000, generator)
    assert not is_exact
    assert abs(p_value - exact) < 4 * math.sqrt(exact * (1 - exact) / 20_000) + 1e-4


def test_shake_up_of_a_micro_measure_against_every_re_split() -> None:
    result = micro_result(USERS)
    parts = parts_of(USERS)
    shifts: dict[Fraction, Fraction] = {}
    splits = list(itertools.combinations(range(6), 3))
    for public in splits:
        private = [i for i in range(6) if i not in public]
        shift = ratio_of(parts[i] for i in private) - ratio_of(parts[i] for i in public)
        shifts[shift] = shifts.get(shift, 0) + Fraction(1, len(splits))
    shake = stats.shake_up(result, MICRO, n_splits=40_000, seed=2)
    observed = result.private_metrics[MICRO] - result.public_metrics[MICRO]
    assert shake.observed == observed
    mean = float(sum((s * p for s, p in shifts.items()), Fraction(0)))
    assert shake.mean == pytest.approx(mean, abs=0.01)
    low, _ = inverted_cdf(shifts, Fraction(1, 20))
    high, _ = inverted_cdf(shifts, Fraction(19, 20))
    assert (shake.low, shake.high) == pytest.approx((float(low), float(high)), abs=1e-12)
    table = stats.shake_up({"a": result, "b": micro_result(USERS)}, MICRO, n_splits=500)
    assert table.swap_probability[("a", "b")] == 0.0  # equal submissions never swap


def test_breakdowns_of_a_micro_measure_are_ratios_of_sums() -> None:
    result = micro_result(USERS)
    buckets = {b.label: b for b in stats.by_relevant_count(result, MICRO)}
    assert buckets["1"].mean == float(ratio(0 + 1, 1 + 1))  # the two users with |R| = 1
    assert buckets["3-5"].mean == float(ratio(2 + 1 + 0, 3 + 3 + 3))
