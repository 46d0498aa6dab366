"""Statistics over any measure of the family, not only MAP@K.

Per-user values come from the slow reference of the measures (``reference_measures``),
never from the package; the statistics must read the measure they are asked for.
"""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from scorer import HostVisibleError, evaluate, stats
from tests.commands import run_scorer
from tests.paths import EXAMPLE
from tests.reference import brute_force_p, inverted_cdf, mean_distribution
from tests.reference_measures import reference_value
from tests.reports import parse_report

SOLUTION = EXAMPLE / "solution.csv"
SUBMISSION = EXAMPLE / "submission.csv"

K = 5

# (relevant items, prediction, Usage): MAP, nDCG, R and MRR all differ on these users.
USERS = [
    ("a b", "a x b", "Public"),
    ("a", "x y", "Public"),
    ("a b c", "x a", "Private"),
    ("a", "a", "Private"),
    ("a b", "x y b", "Private"),
]


def frames(users, with_usage: bool = True) -> tuple[pd.DataFrame, pd.DataFrame]:
    ids = [f"u{i}" for i in range(len(users))]
    solution = pd.DataFrame({"id": ids, "items": [u[0] for u in users]})
    if with_usage:
        solution["Usage"] = [u[2] for u in users]
    submission = pd.DataFrame({"id": ids, "items": [u[1] for u in users]})
    return solution, submission


def reference(name: str, users, cutoff: int = K, **params) -> list[Fraction | float]:
    """Each user's value of a measure, from the slow reference."""
    return [
        reference_value(name, cutoff, params, prediction.split(), dict.fromkeys(truth.split(), 1))
        for truth, prediction, *_ in users
    ]


# --- bootstrap of nDCG and recall ----------------------------------------------------


@pytest.mark.parametrize(("name", "family"), [("nDCG@5", "nDCG"), ("R@5", "R")])
def test_bootstrap_of_a_measure_equals_the_exact_stratified_bootstrap(name, family) -> None:
    """2 Public and 3 Private users: all 2^2 x 3^3 resamples of the measure's values."""
    solution, submission = frames(USERS)
    result = evaluate(solution, submission, "id", k=K, metrics=["MAP", "nDCG@5", "R@5"])
    values = [Fraction(float(v)) for v in reference(family, USERS)]  # nDCG: its exact float
    public, private = values[:2], values[2:]
    overall: dict[Fraction, Fraction] = {}
    for left in itertools.product(public, repeat=2):
        for right in itertools.product(private, repeat=3):
            mean = (sum(left, Fraction(0)) + sum(right, Fraction(0))) / 5
            overall[mean] = overall.get(mean, 0) + Fraction(1, 4 * 27)
    expected = {
        "score": overall,
        "public": mean_distribution(public),
        "private": mean_distribution(private),
    }
    intervals = stats.bootstrap(result, name, n_resamples=40_000, level=0.9, seed=5)
    assert intervals["score"].value == result.metrics[name]
    assert intervals["private"].value == result.private_metrics[name]
    for split, distribution in expected.items():
        low, room_low = inverted_cdf(distribution, Fraction(1, 20))
        high, room_high = inverted_cdf(distribution, Fraction(19, 20))
        assert min(room_low, room_high) > Fraction(1, 200)  # the data leave room for noise
        assert intervals[split].low == pytest.approx(float(low), abs=1e-12), split
        assert intervals[split].high == pytest.approx(float(high), abs=1e-12), split
    assert intervals != stats.bootstrap(result, n_resamples=40_000, level=0.9, seed=5)  # MAP


@pytest.mark.parametrize("name", ["nDCG@5", "R@5", "MRR@3"])
def test_bootstrap_equals_numpy_on_the_reference_values(name) -> None:
    """Without Usage the bootstrap is the percentile interval of the resampled means of
    the measure's per-user values: computed here from the reference's values."""
    rng = np.random.Generator(np.random.PCG64(11))
    users = []
    for _ in range(40):
        truth = rng.choice(list("abcdefg"), size=int(rng.integers(1, 4)), replace=False)
        prediction = rng.choice(list("abcdefghij"), size=K, replace=False)
        users.append((" ".join(truth), " ".join(prediction), "Public"))
    solution, submission = frames(users, with_usage=False)
    result = evaluate(solution, submission, "id", k=K, metrics=["MAP", "nDCG@5", "R@5", "MRR@3"])
    family, cutoff = name.split("@")
    expected_values = np.array([float(v) for v in reference(family, users, int(cutoff))])
    got = result.measure_values(name)
    np.testing.assert_allclose(got.values, expected_values, rtol=1e-14, atol=0)
    sums = stats.resampled_sums(expected_values, 500, np.random.Generator(np.random.PCG64(3)))
    low, high = stats.percentile_interval(sums / len(users), 0.9)
    interval = stats.bootstrap(result, name, n_resamples=500, level=0.9, seed=3)["score"]
    assert interval.value == result.metrics[name]
    assert interval.low == pytest.approx(low, rel=1e-13)
    assert interval.high == pytest.approx(high, rel=1e-13)


def test_names_resolve_by_case_alias_and_key() -> None:
    solution, submission = frames(USERS)
    result = evaluate(solution, submission, "id", k=K, metrics=["MAP", "nDCG@5", "R@5"])
    by_name = stats.bootstrap(result, "R@5", n_resamples=200)
    assert stats.bootstrap(result, "recall@5", n_resamples=200) == by_name
    assert stats.bootstrap(result, "r_at_5", n_resamples=200) == by_name
    assert stats.bootstrap(result, "NDCG@5", n_resamples=200) == stats.bootstrap(
        result, "nDCG@5", n_resamples=200
    )
    assert stats.bootstrap(result, "map", n_resamples=200) == stats.bootstrap(
        result, n_resamples=200
    )
    leaderboard = evaluate(solution, submission, "id", k=K, metrics=["R@5", "MAP"])
    assert stats.bootstrap(leaderboard, n_resamples=200) == by_name  # the first measure


# --- compare on MRR -------------------------------------------------------------------

BASELINE = [
    ("a b", "x a b", "Public"),
    ("a b c", "b x y", "Private"),
    ("a", "x y a", "Public"),
    ("a b", "y x", "Private"),
    ("a b c d", "x y c d a", "Public"),
    ("a", "a", "Private"),
]
CANDIDATE = [
    ("a b", "a x y", "Public"),
    ("a b c", "x b c", "Private"),
    ("a", "x a", "Public"),
    ("a b", "y x", "Private"),
    ("a b c d", "x a b c d", "Public"),
    ("a", "x a", "Private"),
]


def test_compare_on_mrr_against_the_reference() -> None:
    solution, first = frames(BASELINE)
    _, second = frames(CANDIDATE)
    metrics = ["MAP", "MRR@10"]
    a = evaluate(solution, first, "id", k=10, metrics=metrics)
    b = evaluate(solution, second, "id", k=10, metrics=metrics)
    differences = [
        y - x
        for x, y in zip(
            reference("MRR", BASELINE, 10), reference("MRR", CANDIDATE, 10), strict=True
        )
    ]
    c = stats.compare(a, b, "mrr@10", n_resamples=2000, seed=1)
    assert c.metric == "MRR@10"
    assert (c.a, c.b) == (a.metrics["MRR@10"], b.metrics["MRR@10"])
    assert c.difference == b.metrics["MRR@10"] - a.metrics["MRR@10"]
    assert c.wins == sum(d > 0 for d in differences)
    assert c.losses == sum(d < 0 for d in differences)
    assert c.ties == sum(d == 0 for d in differences)
    assert c.exact and c.p_value == brute_force_p([d for d in differences if d])
    assert c.low <= c.difference <= c.high
    assert stats.compare(a, b, "recip_rank@10", n_resamples=2000, seed=1) == c
    on_map = stats.compare(a, b, n_resamples=2000, seed=1)
    assert on_map.metric == "MAP@10"
    assert (on_map.difference, on_map.p_value) != (c.difference, c.p_value)


def test_compare_needs_the_measure_in_both_results_and_the_same_graded_options() -> None:
    solution, first = frames(BASELINE)
    _, second = frames(CANDIDATE)
    a = evaluate(solution, first, "id", k=10, metrics=["MAP", "MRR@10"])
    b = evaluate(solution, second, "id", k=10)
    with pytest.raises(
        HostVisibleError, match=r"'MRR@10' \(MRR@10\) was not computed.*\['MAP@10'\]"
    ):
        stats.compare(a, b, "MRR@10")
    graded = solution.assign(grades=[" ".join("1" * len(t.split())) for t, *_ in BASELINE])
    with_grades = evaluate(graded, second, "id", k=10, grade_column_name="grades")
    with pytest.raises(HostVisibleError, match="different options"):  # grades of 1: same |R|
        stats.compare(b, with_grades)
    threshold_two = graded.assign(grades=[" ".join("2" * len(t.split())) for t, *_ in BASELINE])
    one = evaluate(threshold_two, first, "id", k=10, grade_column_name="grades")
    two = evaluate(
        threshold_two, second, "id", k=10, grade_column_name="grades", relevance_threshold=2
    )
    with pytest.raises(HostVisibleError, match="different options"):
        stats.compare(one, two)


# --- refusals ---------------------------------------------------------------------------


def test_a_measure_not_computed_is_refused_by_every_statistic() -> None:
    solution, submission = frames(USERS)
    solution["segment"] = ["x", "y", "x", "y", "x"]
    result = evaluate(
        solution, submission, "id", k=K, metrics=["MAP", "R@5"], segment_column_name="segment"
    )
    not_computed = (
        r"'nDCG@5' \(nDCG@5\) was not computed for this result, which has \['MAP@5', 'R@5'\]"
    )
    calls = [
        lambda m: stats.bootstrap(result, m),
        lambda m: stats.compare(result, result, m),
        lambda m: stats.shake_up(result, m),
        lambda m: stats.shake_up({"a": result, "b": result}, m),
        lambda m: stats.by_relevant_count(result, m),
        lambda m: stats.by_segment(result, m),
        result.measure_values,
    ]
    for call in calls:
        with pytest.raises(HostVisibleError, match=not_computed):
            call("nDCG@5")
        with pytest.raises(HostVisibleError, match=r"among \['MAP'.*This result has \['MAP@5'"):
            call("mapp@5")
        with pytest.raises(HostVisibleError, match=r"cut-off.*This result has"):
            call("R@6")  # above k


# --- breakdowns -------------------------------------------------------------------------


def test_breakdowns_of_ndcg_are_the_reference_means() -> None:
    users = [
        ("a", "a", "Public"),
        ("a b", "b x", "Public"),
        ("a b c", "x y c", "Private"),
        ("a b c d", "d c", "Private"),
        ("a b c d e f g", "x a", "Public"),
        ("a", "x a", "Private"),
    ]
    solution, submission = frames(users)
    solution["segment"] = ["n", "s", "n", "s", "s", "n"]
    result = evaluate(
        solution, submission, "id", k=K, metrics=["MAP", "nDCG@5"], segment_column_name="segment"
    )
    values = reference("nDCG", users)
    rows = stats.by_relevant_count(result, "ndcg@5")
    expected = [("1", [0, 5]), ("2", [1]), ("3-5", [2, 3]), ("6-10", [4]), (">10", [])]
    for row, (label, members) in zip(rows, expected, strict=True):
        assert (row.label, row.n_users) == (label, len(members))
        if members:
            assert row.mean == pytest.approx(sum(values[i] for i in members) / len(members))
    on_map = stats.by_relevant_count(result)
    assert [r.mean for r in on_map][:2] != [r.mean for r in rows][:2]
    segments = {r.label: r for r in stats.by_segment(result, "nDCG@5")}
    assert segments["n"].mean == pytest.approx((values[0] + values[2] + values[5]) / 3)
    assert segments["s"].mean == pytest.approx((values[1] + values[3] + values[4]) / 3)


# --- the command line -------------------------------------------------------------------


def test_ci_gives_intervals_for_every_measure() -> None:
    done = run_scorer(
        SOLUTION, SUBMISSION, "--ci", "-m", "P@5", "-m", "map@5", "--json", "--seed", 2
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert list(data["intervals"]) == ["P@5", "MAP@5"]
    result = evaluate(SOLUTION, SUBMISSION, metrics=["P@5", "MAP@5"])
    for name, splits in data["intervals"].items():
        found = stats.bootstrap(result, name, seed=2)
        assert splits == {split: [i.low, i.high] for split, i in found.items()}
    assert data["intervals"]["P@5"] != data["intervals"]["MAP@5"]
    human = run_scorer(SOLUTION, SUBMISSION, "--ci", "-m", "P@5", "-m", "MAP@5").stdout
    assert "  P@5     overall " in human and "  MAP@5   overall " in human


def test_compare_compares_every_measure_named(tmp_path) -> None:
    better = tmp_path / "better.csv"
    better.write_text(SUBMISSION.read_text().replace("c06,\n", "c06,0399223001\n"))
    done = run_scorer(
        "compare", SOLUTION, SUBMISSION, better, "-m", "MRR", "-m", "ndcg@3", "--json"
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)["metrics"]
    assert list(data) == ["MRR@10", "nDCG@3"]
    a = evaluate(SOLUTION, SUBMISSION, metrics=["MRR", "nDCG@3"])
    b = evaluate(SOLUTION, better, metrics=["MRR", "nDCG@3"])
    for name, found in data.items():
        c = stats.compare(a, b, name)
        assert found["difference"] == c.difference and found["p_value"] == c.p_value
        assert found["interval"] == [c.low, c.high]


def test_report_tabulates_every_measure(tmp_path) -> None:
    pytest.importorskip("matplotlib")
    out = tmp_path / "report.html"
    done = run_scorer("report", SOLUTION, SUBMISSION, "--out", out, "-m", "MAP", "-m", "R@5")
    assert done.returncode == 0, done.stderr
    report = parse_report(out)
    headline = report.tables[0]
    assert sorted({row[1][1] for row in headline[1:]}) == ["MAP@10", "R@5"]
    buckets = next(t for t in report.tables if t[0][0][1] == "|R|")
    assert [cell[1] for cell in buckets[0]] == ["|R|", "scored users", "MAP@10", "R@5"]
    result = evaluate(SOLUTION, SUBMISSION, metrics=["MAP", "R@5"])
    recall = stats.by_relevant_count(result, "R@5")
    assert [float(row[3][0]) for row in buckets[1:] if row[3][0]] == [
        r.mean for r in recall if r.n_users
    ]
