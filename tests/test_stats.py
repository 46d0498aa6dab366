"""Intervals, paired comparison, shake-up and diagnostics against brute force
(docs/statistics.md#how-sure-is-a-score-intervals-comparisons-shake-up)."""

from __future__ import annotations

import dataclasses
import itertools
import math
import re
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer import HostVisibleError, evaluate, stats
from tests.reference import brute_force_p, inverted_cdf, mean_distribution

K = 5


def ranked_result(ranks, usage=None, k=K, order=None, segments=None, **options):
    """A result whose user i has one relevant item, predicted at rank ``ranks[i]``
    (0: not predicted), so that AP = 1/rank. ``order`` permutes both files' rows."""
    n = len(ranks)
    ids = [f"u{i:03d}" for i in range(n)]
    fillers = [f"f{j}" for j in range(k)]
    rows = []
    for rank in ranks:
        items = fillers[: k - 1]
        if rank:
            items = [*items[: rank - 1], "hit", *items[rank - 1 :]]
        rows.append(" ".join(items[:k]))
    solution = pd.DataFrame({"id": ids, "items": ["hit"] * n})
    if usage is not None:
        solution["Usage"] = usage
    if segments is not None:
        solution["segment"] = segments
    submission = pd.DataFrame({"id": ids, "items": rows})
    if order is not None:
        solution, submission = solution.iloc[order], submission.iloc[order[::-1]]
    segment = "segment" if segments is not None else None
    return evaluate(solution, submission, "id", k=k, segment_column_name=segment, **options)


def exact_ap(rank: int) -> Fraction:
    return Fraction(1, rank) if rank else Fraction(0)


# --- the sign-flip test ---------------------------------------------------------------


@settings(max_examples=60)
@given(st.lists(st.integers(-6, 6), min_size=0, max_size=10))
def test_sign_flip_is_exact_over_all_patterns(eighths: list[int]) -> None:
    differences = [Fraction(e, 8) for e in eighths]
    rng = np.random.Generator(np.random.PCG64(0))
    p_value, exact = stats.sign_flip_p_value(np.array(eighths) / 8, 100, rng)
    assert exact
    assert p_value == brute_force_p(differences)  # every pattern counted, zeros included


def test_sign_flip_sixteen_users_is_exact_and_seventeen_is_monte_carlo() -> None:
    rng = np.random.Generator(np.random.PCG64(0))
    sixteen = np.array([1.0] * 15 + [2.0])
    p_value, exact = stats.sign_flip_p_value(sixteen, 10, rng)
    expected = brute_force_p([Fraction(int(d)) for d in sixteen])
    assert exact and p_value == expected
    p_value, exact = stats.sign_flip_p_value(np.ones(17), 999, rng)
    assert not exact
    assert p_value == 1 / 1000  # only the observed pattern is as extreme: the +1 correction


def test_monte_carlo_sign_flip_agrees_with_all_patterns() -> None:
    """20 users: the exact p-value over 2^20 patterns, and the seeded Monte-Carlo one."""
    differences = np.array([1, 2, 3, 1, 1, 2, -1, 0.5, 1, 2, 1, -2, 1, 3, 1, 1, -1, 2, 1, 0.5])
    patterns = (np.arange(2**20)[:, None] >> np.arange(20)) & 1
    statistics = np.abs((2 * patterns - 1) @ differences)
    exact = np.mean(statistics >= abs(differences.sum()) - 1e-9)
    rng = np.random.Generator(np.random.PCG64(3))
    p_value, is_exact = stats.sign_flip_p_value(differences, 20_000, rng)
    assert not is_exact
    assert 0.001 < exact < 0.5
    assert abs(p_value - exact) < 5 * math.sqrt(exact * (1 - exact) / 20_000)


# --- the bootstrap --------------------------------------------------------------------


@pytest.mark.parametrize("path", ["grouped", "indices"])
def test_resampled_sums_follow_the_exact_bootstrap_distribution(monkeypatch, path) -> None:
    if path == "indices":
        monkeypatch.setattr(stats, "GROUPED_MIN_ATOMS", 0)
        monkeypatch.setattr(stats, "GROUPED_MAX_ATOMS_SHARE", 0.0)
    values = [Fraction(0), Fraction(1, 2), Fraction(1), Fraction(1)]
    exact = mean_distribution(values)
    draws = 50_000
    sums = stats.resampled_sums(
        np.array([float(v) for v in values]), draws, np.random.Generator(np.random.PCG64(1))
    )
    observed = pd.Series(sums / 4).value_counts(normalize=True)
    assert {Fraction(v) for v in observed.index} <= set(exact)
    for value, probability in exact.items():
        share = observed.get(float(value), 0.0)
        assert abs(share - probability) < 5 * math.sqrt(probability / draws) + 1e-4


def test_percentile_bookkeeping_on_every_resample() -> None:
    """Given the n^n resample means themselves, the interval is the exact bootstrap's."""
    values = [Fraction(0), Fraction(1, 3), Fraction(1), Fraction(1, 2), Fraction(0)]
    exact = mean_distribution(values)
    every = []
    for draw in itertools.product(values, repeat=len(values)):
        every.append(float(sum(draw, Fraction(0)) / len(values)))
    for level in (0.5, 0.8, 0.9, 0.95, 0.99):
        share = Fraction(1 - Fraction(str(level)), 2)
        low, _ = inverted_cdf(exact, share)
        high, _ = inverted_cdf(exact, 1 - share)
        assert stats.percentile_interval(np.array(every), level) == (float(low), float(high))


@pytest.mark.parametrize("level", [0.5, 0.8, 0.9, 0.95, 0.99])
def test_percentile_positions_on_distinct_values(level: float) -> None:
    """The bounds are the j-th smallest statistics, j the first with j / B >= the share."""
    share = (1 - Fraction(str(level))) / 2
    for count in range(1, 201):
        statistics = np.random.Generator(np.random.PCG64(count)).permutation(count) + 1.0
        low = next(j for j in range(1, count + 1) if Fraction(j, count) >= share)
        high = next(j for j in range(1, count + 1) if Fraction(j, count) >= 1 - share)
        assert stats.percentile_interval(statistics, level) == (low, high), count


def test_stratified_bootstrap_equals_the_exact_one() -> None:
    """2 Public and 3 Private users: all 2^2 x 3^3 resamples, by split and overall."""
    ranks = [1, 0, 2, 0, 1]
    usage = ["Public", "Public", "Private", "Private", "Private"]
    result = ranked_result(ranks, usage)
    aps = [exact_ap(r) for r in ranks]
    public, private = aps[:2], aps[2:]
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
    intervals = stats.bootstrap(result, n_resamples=40_000, level=0.9, seed=5)
    assert list(intervals) == ["score", "public", "private"]
    assert intervals["score"].value == result.score
    assert intervals["public"].value == result.public_score
    for split, distribution in expected.items():
        low, room_low = inverted_cdf(distribution, Fraction(1, 20))
        high, room_high = inverted_cdf(distribution, Fraction(19, 20))
        assert min(room_low, room_high) > Fraction(1, 200)  # the data leave room for noise
        got = intervals[split]
        assert got.low == pytest.approx(float(low), abs=1e-12), split
        assert got.high == pytest.approx(float(high), abs=1e-12), split


def test_bootstrap_coverage_by_simulation() -> None:
    """A 95 % interval covers a known population mean in about 95 % of 200 trials."""
    population = np.random.Generator(np.random.PCG64(42))
    support = np.linspace(0, 1, 11)
    weights = np.array([30, 5, 5, 5, 5, 5, 5, 5, 5, 5, 20], dtype=float)
    weights /= weights.sum()
    truth = float(support @ weights)
    covered = 0
    for trial in range(200):
        sample = population.choice(support, size=150, p=weights)
        rng = np.random.Generator(np.random.PCG64(trial))
        sums = stats.resampled_sums(sample, 1000, rng)
        low, high = stats.percentile_interval(sums / len(sample), 0.95)
        covered += low <= truth <= high
    assert 0.88 <= covered / 200 <= 0.99


# --- determinism ------------------------------------------------------------------------


RANKS = [1, 0, 0, 2, 3, 0, 1, 5, 0, 0, 4, 1, 0, 2, 0, 0, 1, 0, 3, 0]
USAGE = ["Public", "Private"] * 10
OTHER = [1, 1, 0, 2, 0, 0, 2, 5, 0, 1, 4, 1, 0, 1, 0, 3, 1, 0, 3, 0]


@pytest.mark.parametrize("path", ["grouped", "indices"])
def test_same_numbers_under_row_permutations_and_repeats(monkeypatch, path) -> None:
    if path == "indices":
        monkeypatch.setattr(stats, "GROUPED_MIN_ATOMS", 0)
        monkeypatch.setattr(stats, "GROUPED_MAX_ATOMS_SHARE", 0.0)
    order = np.random.Generator(np.random.PCG64(9)).permutation(len(RANKS))

    def everything(permutation):
        a = ranked_result(RANKS, USAGE, order=permutation)
        b = ranked_result(OTHER, USAGE, order=permutation)
        return (
            stats.bootstrap(a, n_resamples=300, seed=4),
            stats.compare(a, b, n_resamples=300, seed=4),
            stats.shake_up(a, n_splits=300, seed=4),
            stats.shake_up({"a": a, "b": b}, n_splits=300, seed=4),
        )

    first = everything(None)
    assert everything(order) == first
    assert everything(None) == first


def test_different_seeds_draw_different_resamples() -> None:
    values = np.array([exact_ap(r) for r in RANKS], dtype=float)
    draws = [
        stats.resampled_sums(values, 200, np.random.Generator(np.random.PCG64(seed)))
        for seed in (0, 1)
    ]
    assert not np.array_equal(*draws)
    result = ranked_result(RANKS, USAGE)
    assert stats.bootstrap(result, seed=0) != stats.bootstrap(result, seed=1)


# --- the paired comparison -----------------------------------------------------------


def test_compare_with_itself() -> None:
    a = ranked_result(RANKS, USAGE)
    same = stats.compare(a, a)
    assert (same.difference, same.low, same.high, same.p_value) == (0.0, 0.0, 0.0, 1.0)
    assert (same.wins, same.ties, same.losses) == (0, len(RANKS), 0)


def test_compare_counts_and_exact_p_value() -> None:
    a = ranked_result(RANKS, USAGE)
    b = ranked_result(OTHER, USAGE)
    result = stats.compare(a, b, n_resamples=2000)
    differences = [exact_ap(o) - exact_ap(r) for r, o in zip(RANKS, OTHER, strict=True)]
    assert result.wins == sum(d > 0 for d in differences)
    assert result.losses == sum(d < 0 for d in differences)
    assert result.ties == sum(d == 0 for d in differences)
    assert result.difference == b.score - a.score
    assert result.exact  # 7 users differ
    assert result.p_value == brute_force_p([d for d in differences if d])
    assert result.low <= result.difference <= result.high


def mirrored(comparison: stats.Comparison) -> stats.Comparison:
    """B against A, written from A against B."""
    return dataclasses.replace(
        comparison,
        a=comparison.b,
        b=comparison.a,
        difference=-comparison.difference,
        low=-comparison.high,
        high=-comparison.low,
        wins=comparison.losses,
        losses=comparison.wins,
    )


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_compare_b_a_is_exactly_compare_a_b_mirrored(data) -> None:
    n = data.draw(st.integers(2, 40), label="users")
    ranks = st.lists(st.integers(0, K), min_size=n, max_size=n)
    usage = data.draw(st.lists(st.sampled_from(["Public", "Private"]), min_size=n, max_size=n))
    measure = data.draw(st.sampled_from(["MAP@5", "R(avg=micro)@5"]))
    a, b = (ranked_result(data.draw(ranks), usage, metrics=[measure]) for _ in "ab")
    forward = stats.compare(a, b, n_resamples=300, seed=2)
    assert stats.compare(b, a, n_resamples=300, seed=2) == mirrored(forward)


def test_a_mirrored_zero_is_a_positive_zero() -> None:
    # B improves one user of 20 (a 0 bound: 36 % of resamples miss it); C is A with a
    # Public and a Private user swapped (equal means, not the same pair both ways). No
    # order prints -0.
    better = [1 if i == 1 else r for i, r in enumerate(RANKS)]
    swapped = [RANKS[1], RANKS[0], *RANKS[2:]]
    a, b, c = (ranked_result(r, USAGE) for r in (RANKS, better, swapped))
    for first, second in ((a, b), (b, a), (a, c), (c, a)):
        found = stats.compare(first, second, n_resamples=300)
        zeros = [v for v in (found.difference, found.low, found.high) if v == 0]
        assert zeros and all(math.copysign(1.0, v) == 1.0 for v in zeros), found


@pytest.mark.parametrize("measure", ["MAP@5", "R(avg=micro)@5"])
def test_a_pair_that_is_the_same_both_ways_has_an_interval_that_is_its_own_mirror(measure):
    # B is A with the two halves' users swapped (one split each way): every statistic
    # sees the same pair in both orders, so the interval is symmetric about 0.
    half = len(RANKS) // 2
    swapped = RANKS[half:] + RANKS[:half]
    usage = USAGE[:half] * 2
    a, b = (ranked_result(r, usage, metrics=[measure]) for r in (RANKS, swapped))
    forward = stats.compare(a, b, n_resamples=300)
    assert forward.difference == 0.0
    assert forward.low == -forward.high < 0
    assert stats.compare(b, a, n_resamples=300) == mirrored(forward)


def test_compare_refuses_results_of_different_solutions_or_options() -> None:
    a = ranked_result(RANKS, USAGE)
    with pytest.raises(HostVisibleError, match="different solutions"):
        stats.compare(a, ranked_result(RANKS, USAGE[::-1]))
    with pytest.raises(HostVisibleError, match="different options"):
        stats.compare(a, ranked_result(RANKS, USAGE, k=6))
    # Only the row ids tell these apart: same |R| and no Usage everywhere.
    order = list(range(len(RANKS)))[::-1]
    with pytest.raises(HostVisibleError, match="rows in another order"):
        stats.compare(ranked_result(RANKS), ranked_result(RANKS, order=order))


def test_unknown_measure_lists_the_available_ones() -> None:
    result = ranked_result(RANKS)
    assert stats.bootstrap(result, "MAP@5") == stats.bootstrap(result)
    with pytest.raises(HostVisibleError, match=r"'nDCG@5'.*\['MAP@5'\]"):
        stats.bootstrap(result, "nDCG@5")


@pytest.mark.parametrize(
    ("settings_", "message"),
    [
        ({"n_resamples": 0}, "resamples must be an int from 1 to 10,000,000, not 0"),
        ({"n_resamples": 2**64}, "resamples must be an int from 1 to 10,000,000, not 1844"),
        ({"level": 1.0}, "level must be a number strictly between 0 and 1, not 1.0"),
        # A float or an int only: a Fraction would reach the pages' formatting.
        (
            {"level": Fraction(19, 20)},
            "level must be a number strictly between 0 and 1, not Fraction(19, 20)",
        ),
        ({"level": True}, "level must be a number strictly between 0 and 1, not True"),
        ({"seed": -1}, "seed must be an int >= 0, not -1"),
        ({"seed": None}, "seed must be an int >= 0, not None"),
    ],
)
def test_settings_are_checked(settings_, message) -> None:
    with pytest.raises(HostVisibleError, match=re.escape(message)):
        stats.bootstrap(ranked_result(RANKS), **settings_)


# --- the shake-up ---------------------------------------------------------------------


def test_shake_up_of_one_submission_against_every_split() -> None:
    """4 users, 2 Public: all 6 re-splits are equally likely."""
    ranks = [1, 0, 2, 4]
    result = ranked_result(ranks, ["Public", "Private", "Private", "Public"])
    aps = [exact_ap(r) for r in ranks]
    shifts = []
    for public in itertools.combinations(range(4), 2):
        private = [i for i in range(4) if i not in public]
        shifts.append(sum(aps[i] for i in private) / 2 - sum(aps[i] for i in public) / 2)
    shake = stats.shake_up(result, n_splits=30_000, seed=2)
    assert shake.observed == result.private_score - result.public_score
    assert shake.mean == pytest.approx(float(sum(shifts) / 6), abs=0.01)
    distribution = {s: Fraction(shifts.count(s), 6) for s in shifts}
    assert shake.low == pytest.approx(float(inverted_cdf(distribution, Fraction(1, 20))[0]))
    assert shake.high == pytest.approx(float(inverted_cdf(distribution, Fraction(19, 20))[0]))


def test_shake_up_of_several_submissions() -> None:
    best = [1] * 20
    a = ranked_result(RANKS, USAGE)
    b = ranked_result(OTHER, USAGE)
    top = ranked_result(best, USAGE)
    table = stats.shake_up({"a": a, "b": b, "top": top, "a again": a}, n_splits=500)
    assert table.standings["top"].expected_private_rank == 1.0
    assert table.standings["top"].private_rank_high == 1.0
    assert table.swap_probability[("a", "top")] == 0.0
    assert table.swap_probability[("a", "a again")] == 0.0  # ties never swap
    assert 0.0 < table.swap_probability[("a", "b")] < 1.0
    assert table.standings["a"].public == a.public_score
    assert table.standings["b"].private == b.private_score
    assert 2.0 <= table.standings["a"].expected_private_rank <= 4.0


def test_shake_up_needs_both_splits() -> None:
    with pytest.raises(HostVisibleError, match="Usage column and scored users in both"):
        stats.shake_up(ranked_result(RANKS))
    with pytest.raises(HostVisibleError, match="Usage column and scored users in both"):
        stats.shake_up(ranked_result(RANKS[:4], ["Public"] * 3 + ["Ignored"]))


# --- diagnostics ----------------------------------------------------------------------


def test_hit_rate_by_rank_is_exact() -> None:
    ranks = [1, 1, 2, 0, 5, 0, 2, 3]
    usage = ["Public"] * 7 + ["Ignored"]  # the Ignored user's hit at rank 3 never counts
    figure = stats.hit_rate_by_rank(ranked_result(ranks, usage))
    n = 7
    assert figure.rank.tolist() == [1, 2, 3, 4, 5]
    assert figure.hit_share.tolist() == [2 / n, 2 / n, 0.0, 0.0, 1 / n]
    cumulative = [Fraction(2, n), Fraction(4, 2 * n), Fraction(4, 3 * n), Fraction(4, 4 * n)]
    cumulative.append(Fraction(5, 5 * n))
    assert figure.cumulative_precision.tolist() == [float(c) for c in cumulative]
    assert figure.n_users == n


def test_breakdown_by_relevant_count_is_exact() -> None:
    relevant = {"a": 1, "b": 2, "c": 4, "d": 5, "e": 7, "f": 12, "g": 0}
    solution = pd.DataFrame(
        {
            "id": list(relevant),
            "items": [" ".join(f"i{j}" for j in range(n)) for n in relevant.values()],
        }
    )
    submission = pd.DataFrame({"id": list(relevant), "items": ["i0 x"] * len(relevant)})
    for empty, has_zero in (("skip", False), ("zero", True)):
        result = evaluate(solution, submission, k=2, empty_ground_truth=empty)
        rows = [(b.label, b.n_users, b.mean) for b in stats.by_relevant_count(result)]
        expected = [("1", 1, 1.0), ("2", 1, 0.5), ("3-5", 2, 0.5), ("6-10", 1, 0.5)]
        expected = [("0", 1, 0.0)] * has_zero + expected + [(">10", 1, 0.5)]
        assert rows == expected


def test_breakdown_by_segment() -> None:
    segments = ["north", "south", "north", "", "south"] * 4
    result = ranked_result(RANKS, USAGE, segments=segments)
    rows = stats.by_segment(result)
    aps = [exact_ap(r) for r in RANKS]
    for row in rows:
        members = [ap for ap, s in zip(aps, segments, strict=True) if s == row.label]
        assert row.n_users == len(members)
        assert row.mean == pytest.approx(float(sum(members) / len(members)), rel=1e-15)
    assert [row.label for row in rows] == ["", "north", "south"]
    assert result.score == ranked_result(RANKS, USAGE).score  # not a target column
    with pytest.raises(HostVisibleError, match="segment_column_name=NAME"):
        stats.by_segment(ranked_result(RANKS, USAGE))
    with pytest.raises(HostVisibleError, match="segment column 'nope' is not in the solution"):
        evaluate(pd.DataFrame({"id": ["u"], "items": ["a"]}), "x.csv", segment_column_name="nope")


# --- the seam -------------------------------------------------------------------------


def test_measure_values_match_the_per_user_table_without_asking_for_it() -> None:
    usage = ["Public", "Private", "Ignored", "Public"] * 5
    ranks = RANKS
    plain = ranked_result(ranks, usage)
    table = ranked_result(ranks, usage, per_user=True).per_user
    assert plain.per_user is None
    values = plain.measure_values()
    assert values.name == "MAP@5"
    assert values.scored.tolist() == table["scored"].tolist()
    assert values.values[values.scored].tolist() == table["ap"][table["scored"]].tolist()
    assert values.split.tolist() == [{"Public": 0, "Private": 1, "Ignored": 2}[u] for u in usage]
    # views of the result's one set of per-user arrays, not copies
    assert values.values is plain.user_values["MAP@5"]
    assert values.scored is plain.user_scored and values.split is plain.user_usage
    assert values.means == {
        "score": plain.score,
        "public": plain.public_score,
        "private": plain.private_score,
    }
    assert plain.user_n_relevant.tolist() == table["n_relevant"].tolist()


def test_a_result_without_per_user_arrays_is_refused() -> None:
    full = ranked_result(RANKS)
    bare = dataclasses.replace(full, user_scored=None, row_ids=None)
    with pytest.raises(HostVisibleError, match="keeps no per-user values"):
        stats.bootstrap(bare)
    with pytest.raises(HostVisibleError, match="keeps no per-user values"):
        stats.compare(full, bare)


@pytest.mark.parametrize("table", [False, True])
def test_fair_coin_heads_are_binomial(monkeypatch, table: bool) -> None:
    if table:  # the byte-table popcount of numpy < 2
        monkeypatch.delattr(np, "bitwise_count", raising=False)
    counts = np.array([1, 3, 63, 64, 65, 400])
    draws = 40_000
    heads = stats.fair_coin_heads(counts, draws, np.random.Generator(np.random.PCG64(8)))
    assert heads.shape == (draws, len(counts))
    assert (heads >= 0).all() and (heads <= counts).all()
    three = np.bincount(heads[:, 1], minlength=4) / draws
    for got, exact in zip(three, (1 / 8, 3 / 8, 3 / 8, 1 / 8), strict=True):
        assert abs(got - exact) < 0.01
    assert heads[:, 0].mean() == pytest.approx(0.5, abs=0.01)
    for column, count in enumerate(counts):
        assert heads[:, column].mean() == pytest.approx(count / 2, abs=5 * math.sqrt(count) / 200)
        assert heads[:, column].var() == pytest.approx(count / 4, rel=0.05)


def test_shake_up_settings_are_checked() -> None:
    result = ranked_result(RANKS, USAGE)
    with pytest.raises(
        HostVisibleError, match="number of re-splits must be an int from 1 to 10,000,000, not 0"
    ):
        stats.shake_up(result, n_splits=0)
    assert stats.shake_up(result, n_splits=np.int64(10)).n_splits == 10
