"""How sure is a score: bootstrap intervals, paired comparison, shake-up, diagnostics.

Everything here is numpy over the per-user values a :class:`~scorer.result.ScoreResult`
keeps (:attr:`~scorer.result.ScoreResult.user_values`, read through
:meth:`~scorer.result.ScoreResult.measure_values`); nothing reads a file or knows a
measure's formula. Every function takes any measure computed for the result, by any
name the registry parses (``"nDCG@5"``, ``"ndcg@5"``, ``"Recall@5"``), and defaults to
the leaderboard's (first) measure. Per-user values are float64: the intervals and p-values are
estimates, and the exactness of the leaderboard score does not extend to them.

Determinism. Every random draw comes from ``numpy.random.Generator(PCG64(seed))``.
A mean over resampled users depends only on the multiset of the users' values, so the
values are put in a canonical form before any draw: sorted, and grouped into distinct
values ("atoms") with their counts. The same inputs and seed therefore give the same
numbers under any row order, on any machine with the same numpy version.

Speed. Resampling n users with replacement is drawing how many times each atom is
drawn: a multinomial over the atoms; re-splitting users into Public and Private is a
multivariate hypergeometric draw; flipping the signs of users' differences is one
binomial per atom. At H&M scale a measure such as MAP@12 has a few thousand atoms
for 1.37 M users, so 1,000 resamples cost a few million draws, in blocks of
resamples (no Python loop over users or resamples). With many atoms (more than a
quarter of the users), the draws are indices into the sorted values, in blocks.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from scorer.detail import SPLITS, MeasureValues
from scorer.errors import HostVisibleError
from scorer.result import ScoreResult, require_arrays

EXACT_SIGN_FLIP_MAX_USERS = 16
"""Up to this many non-zero differences, the sign-flip test enumerates all 2^n patterns."""

GROUPED_MAX_ATOMS_SHARE = 0.25
GROUPED_MIN_ATOMS = 64
"""Draw per atom while the distinct values are at most this share of the users (or
at most this many); otherwise draw indices into the sorted values."""

_BLOCK_ELEMENTS = 2**20  # draws held in memory at once (8 MiB of int64)
_TIE_TOLERANCE = 1e-9  # relative: a resampled statistic this close counts as extreme

RELEVANT_BUCKETS: tuple[tuple[str, int, float], ...] = (
    ("0", 0, 0),
    ("1", 1, 1),
    ("2", 2, 2),
    ("3-5", 3, 5),
    ("6-10", 6, 10),
    (">10", 11, math.inf),
)
"""|R| buckets: label, smallest and largest |R| (the ``"0"`` bucket only with users)."""


@dataclass(frozen=True)
class Interval:
    """A point value and its percentile bootstrap interval.

    Attributes
    ----------
    value : float
        The measure's value on the real users (the result's own value).
    low, high : float
        The interval's bounds.
    """

    value: float
    low: float
    high: float


@dataclass(frozen=True)
class Comparison:
    """Submission B against submission A on one measure (B - A).

    Attributes
    ----------
    metric : str
        The measure's canonical name.
    a, b : float
        The two submissions' values.
    difference : float
        ``b - a``.
    low, high : float
        The paired percentile bootstrap interval of the difference.
    p_value : float
        Two-sided paired sign-flip randomisation test of "no difference".
    exact : bool
        Whether ``p_value`` enumerates all 2^n sign patterns (else Monte-Carlo
        with the +1 correction).
    wins, ties, losses : int
        Scored users where B is better than, equal to, worse than A.
    n_resamples : int
        Resamples drawn for the interval and (when not exact) the test.
    level : float
        The interval's confidence level.
    """

    metric: str
    a: float
    b: float
    difference: float
    low: float
    high: float
    p_value: float
    exact: bool
    wins: int
    ties: int
    losses: int
    n_resamples: int
    level: float


@dataclass(frozen=True)
class ShakeUp:
    """Private - Public of one submission under random re-splits of its users.

    Attributes
    ----------
    observed : float
        Private - Public with the real split.
    mean, low, high : float
        The mean and the 5 % and 95 % quantiles of Private - Public over re-splits.
    n_splits : int
        Re-splits drawn.
    """

    observed: float
    mean: float
    low: float
    high: float
    n_splits: int


@dataclass(frozen=True)
class Standing:
    """One submission's place in a shake-up of several.

    Attributes
    ----------
    public, private : float
        Its Public and Private values with the real split.
    public_rank, private_rank : int
        Its ranks with the real split (1 = best; ties share the better rank).
    expected_private_rank : float
        Its mean Private rank over re-splits.
    private_rank_low, private_rank_high : float
        The 5 % and 95 % quantiles of its Private rank over re-splits.
    """

    public: float
    private: float
    public_rank: int
    private_rank: int
    expected_private_rank: float
    private_rank_low: float
    private_rank_high: float


@dataclass(frozen=True)
class ShakeUpTable:
    """Several submissions under random re-splits of the same users.

    Attributes
    ----------
    standings : dict of str to Standing
        Per submission, in the order given.
    swap_probability : dict of (str, str) to float
        Per pair, the share of re-splits in which the two submissions' order on
        Private is the reverse of their order on Public (ties are no swap).
    n_splits : int
        Re-splits drawn.
    """

    standings: dict[str, Standing]
    swap_probability: dict[tuple[str, str], float]
    n_splits: int


@dataclass(frozen=True)
class HitRateByRank:
    """The "hit rate by rank" figure, as numbers, over the scored users.

    Attributes
    ----------
    rank : ndarray of int
        1 … K.
    hit_share : ndarray of float
        Share of scored users whose prediction at this rank is a credited hit.
    cumulative_precision : ndarray of float
        Mean over scored users of (credited hits in the first ``rank``) / ``rank``.
    n_users : int
        Scored users.
    """

    rank: np.ndarray
    hit_share: np.ndarray
    cumulative_precision: np.ndarray
    n_users: int


@dataclass(frozen=True)
class Breakdown:
    """A measure's mean over one group of scored users.

    Attributes
    ----------
    label : str
        The group: an |R| bucket or a segment.
    n_users : int
        Scored users in it.
    mean : float
        The measure's mean over them.
    """

    label: str
    n_users: int
    mean: float


def bootstrap(
    result: ScoreResult,
    metric: str | None = None,
    *,
    n_resamples: int = 1000,
    level: float = 0.95,
    seed: int = 0,
) -> dict[str, Interval]:
    """Percentile bootstrap intervals of a measure, per split.

    Scored users are resampled with replacement within each ``Usage`` split; the
    overall value of a resample combines its splits' resamples (a stratified
    bootstrap), so all three intervals come from the same draws.

    Parameters
    ----------
    result : ScoreResult
        From :func:`scorer.evaluate`.
    metric : str, optional
        A measure computed for the result(s), by any name the registry parses;
        default the leaderboard's (first) measure.
    n_resamples : int, default 1000
    level : float, default 0.95
        The intervals' confidence level.
    seed : int, default 0

    Returns
    -------
    dict of str to Interval
        ``"score"``, and ``"public"`` and ``"private"`` when the solution has
        ``Usage`` (a split without a scored user is left out).

    Examples
    --------
    >>> import pandas as pd, scorer
    >>> solution = pd.DataFrame({"id": list("abcd"), "items": ["x", "x", "x", "x"]})
    >>> submission = pd.DataFrame({"id": list("abcd"), "items": ["x", "y", "x", "y"]})
    >>> result = scorer.evaluate(solution, submission, k=1)
    >>> interval = bootstrap(result, n_resamples=200)["score"]
    >>> interval.value, 0.0 <= interval.low <= 0.5 <= interval.high <= 1.0
    (0.5, True)
    """
    _check_settings(n_resamples, level, seed)
    values = result.measure_values(metric)
    strata = {label: v for label, v in values.strata().items() if len(v)}
    rng = _generator(seed)
    sums = {label: resampled_sums(v, n_resamples, rng) for label, v in strata.items()}
    n_scored = sum(len(v) for v in strata.values())
    overall = np.sum(list(sums.values()), axis=0) / n_scored
    intervals = {"score": Interval(values.means["score"], *percentile_interval(overall, level))}
    for label, stratum in strata.items():
        if label in SPLITS:
            bounds = percentile_interval(sums[label] / len(stratum), level)
            intervals[label] = Interval(values.means[label], *bounds)
    return intervals


def compare(
    result_a: ScoreResult,
    result_b: ScoreResult,
    metric: str | None = None,
    *,
    n_resamples: int = 10_000,
    level: float = 0.95,
    seed: int = 0,
) -> Comparison:
    """Does submission B beat submission A? A paired analysis over the scored users.

    Parameters
    ----------
    result_a, result_b : ScoreResult
        Two submissions scored against the same solution with the same options.
    metric : str, optional
        A measure computed for the result(s), by any name the registry parses;
        default the leaderboard's (first) measure.
    n_resamples : int, default 10000
        Paired bootstrap resamples, and sign-flip patterns when more than
        :data:`EXACT_SIGN_FLIP_MAX_USERS` users differ.
    level : float, default 0.95
    seed : int, default 0

    Returns
    -------
    Comparison

    Raises
    ------
    HostVisibleError
        The results come from different solutions, row orders or options, or the
        measure was not computed for both.

    Examples
    --------
    >>> import pandas as pd, scorer
    >>> solution = pd.DataFrame({"id": list("abc"), "items": ["x", "x", "x"]})
    >>> a = scorer.evaluate(solution, pd.DataFrame({"id": list("abc"), "items": ["y"] * 3}), k=1)
    >>> b = scorer.evaluate(solution, pd.DataFrame({"id": list("abc"), "items": ["x"] * 3}), k=1)
    >>> c = compare(a, b)
    >>> c.difference, c.wins, c.ties, c.losses, c.p_value, c.exact  # 2 of 8 patterns
    (1.0, 3, 0, 0, 0.25, True)
    """
    _check_settings(n_resamples, level, seed)
    check_paired(result_a, result_b)
    values_a = result_a.measure_values(metric)
    values_b = result_b.measure_values(metric)
    differences = values_b.values - values_a.values
    paired = MeasureValues(values_a.name, differences, values_a.scored, values_a.split, {})
    strata = {label: v for label, v in paired.strata().items() if len(v)}
    bootstrap_seed, flip_seed = np.random.SeedSequence(seed).spawn(2)
    rng = np.random.Generator(np.random.PCG64(bootstrap_seed))
    sums = [resampled_sums(v, n_resamples, rng) for v in strata.values()]
    differences = np.concatenate(list(strata.values()))
    low, high = percentile_interval(np.sum(sums, axis=0) / len(differences), level)
    p_value, exact = sign_flip_p_value(
        differences, n_resamples, np.random.Generator(np.random.PCG64(flip_seed))
    )
    a, b = values_a.means["score"], values_b.means["score"]
    return Comparison(
        metric=values_a.name,
        a=a,
        b=b,
        difference=b - a,
        low=low,
        high=high,
        p_value=p_value,
        exact=exact,
        wins=int(np.count_nonzero(differences > 0)),
        ties=int(np.count_nonzero(differences == 0)),
        losses=int(np.count_nonzero(differences < 0)),
        n_resamples=n_resamples,
        level=level,
    )


def shake_up(
    results: ScoreResult | Mapping[str, ScoreResult],
    metric: str | None = None,
    *,
    n_splits: int = 1000,
    seed: int = 0,
) -> ShakeUp | ShakeUpTable:
    """How much could Public and Private differ by chance? Re-split the scored users.

    Each re-split draws a new Public set of the real Public size from the scored
    users (the rest is Private), the same users for every submission.

    Parameters
    ----------
    results : ScoreResult or mapping of str to ScoreResult
        One result, or several submissions (by name) scored against one solution.
    metric : str, optional
        A measure computed for the result(s), by any name the registry parses;
        default the leaderboard's (first) measure.
    n_splits : int, default 1000
    seed : int, default 0

    Returns
    -------
    ShakeUp
        For one result: the distribution of Private - Public.
    ShakeUpTable
        For a mapping: swap probabilities and Private ranks.

    Raises
    ------
    HostVisibleError
        The solution has no ``Usage`` split with users on both sides, or the results
        come from different solutions or options.
    """
    _check_settings(n_splits, 0.5, seed, count_name="number of re-splits")
    single = isinstance(results, ScoreResult)
    named = {"": results} if single else dict(results)
    if not named:
        raise HostVisibleError("shake_up needs at least one result.")
    results_list = list(named.values())
    for other in results_list[1:]:
        check_paired(results_list[0], other)
    columns = [r.measure_values(metric) for r in results_list]
    first = columns[0]
    public, private = _split_sizes(first)
    scored = first.scored
    matrix = np.column_stack([c.values[scored] for c in columns])
    public_sums = resplit_public_sums(matrix, public, n_splits, _generator(seed))
    totals = matrix.sum(axis=0)
    public_means = public_sums / public
    private_means = (totals - public_sums) / private
    observed_public = np.array([c.means["public"] for c in columns], dtype=float)
    observed_private = np.array([c.means["private"] for c in columns], dtype=float)
    if single:
        shift = private_means[:, 0] - public_means[:, 0]
        low, high = _quantiles(shift, (0.05, 0.95))
        observed = float(observed_private[0] - observed_public[0])
        return ShakeUp(observed, float(shift.mean()), low, high, n_splits)
    return _shake_up_table(
        list(named), public_means, private_means, observed_public, observed_private, n_splits
    )


def hit_rate_by_rank(result: ScoreResult) -> HitRateByRank:
    """Per rank, the share of scored users with a credited hit, and cumulative precision.

    Examples
    --------
    >>> import pandas as pd, scorer
    >>> solution = pd.DataFrame({"id": ["a", "b"], "items": ["x y", "z"]})
    >>> submission = pd.DataFrame({"id": ["a", "b"], "items": ["x q y", "q z"]})
    >>> figure = hit_rate_by_rank(scorer.evaluate(solution, submission, k=3))
    >>> figure.hit_share.tolist(), figure.cumulative_precision.tolist()  # (1/1+0/1)/2, ...
    ([0.5, 0.5, 0.5], [0.5, 0.5, 0.5])
    """
    require_arrays(result)
    hits_at_rank = result.hits_at_rank
    if hits_at_rank is None:
        raise HostVisibleError(
            "This result keeps no hits per rank; use the result of scorer.evaluate()."
        )
    n_users = int(np.count_nonzero(result.user_scored))
    rank = np.arange(1, len(hits_at_rank) + 1)
    hit_share = hits_at_rank / n_users
    cumulative = np.cumsum(hits_at_rank) / (n_users * rank)
    return HitRateByRank(rank, hit_share, cumulative, n_users)


def by_relevant_count(result: ScoreResult, metric: str | None = None) -> list[Breakdown]:
    """A measure's mean over the scored users of each |R| bucket (1, 2, 3-5, 6-10, >10).

    The bucket ``"0"`` appears only when users without a relevant item are scored
    (``empty_ground_truth="zero"``); empty buckets are listed with 0 users.

    Examples
    --------
    >>> import pandas as pd, scorer
    >>> solution = pd.DataFrame({"id": ["a", "b", "c"], "items": ["x", "x y", "x y z"]})
    >>> result = scorer.evaluate(solution, solution, k=3)
    >>> [(b.label, b.n_users, b.mean) for b in by_relevant_count(result)][:3]
    [('1', 1, 1.0), ('2', 1, 1.0), ('3-5', 1, 1.0)]
    """
    values = result.measure_values(metric)
    n_relevant = result.user_n_relevant[values.scored]
    edges = np.array([lowest for _, lowest, _ in RELEVANT_BUCKETS[1:]])
    bucket = np.searchsorted(edges, n_relevant, side="right")
    rows = _group_means(bucket, values.values[values.scored], len(RELEVANT_BUCKETS))
    labels = [label for label, _, _ in RELEVANT_BUCKETS]
    return [
        Breakdown(labels[i], count, mean)
        for i, (count, mean) in enumerate(rows)
        if i > 0 or count > 0
    ]


def by_segment(result: ScoreResult, metric: str | None = None) -> list[Breakdown]:
    """A measure's mean over the scored users of each segment, by segment name.

    Raises
    ------
    HostVisibleError
        The result was scored without ``segment_column_name=``.

    Examples
    --------
    >>> import pandas as pd, scorer
    >>> solution = pd.DataFrame({"id": ["a", "b", "c"], "items": ["x", "y", "z"],
    ...                          "country": ["se", "de", "se"]})
    >>> submission = pd.DataFrame({"id": ["a", "b", "c"], "items": ["x", "q", "q"]})
    >>> result = scorer.evaluate(solution, submission, k=1, segment_column_name="country")
    >>> [(b.label, b.n_users, b.mean) for b in by_segment(result)]
    [('de', 1, 0.0), ('se', 2, 0.5)]
    """
    values = result.measure_values(metric)
    if result.segments is None:
        raise HostVisibleError(
            "This result has no segment column: score with segment_column_name=NAME "
            "(a column of the solution) to break the measures down by segment."
        )
    codes, names = result.segments.codes, result.segments.names
    rows = _group_means(codes[values.scored], values.values[values.scored], len(names))
    breakdown = [Breakdown(names[i], count, mean) for i, (count, mean) in enumerate(rows)]
    return sorted(breakdown, key=lambda row: row.label)


def resampled_sums(values: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Sums of ``n_resamples`` resamples of ``values`` with replacement (same size).

    Depends only on the multiset of ``values`` (not their order) and the generator.

    Examples
    --------
    >>> sums = resampled_sums(np.array([0.0, 1.0]), 1000, np.random.Generator(np.random.PCG64(0)))
    >>> sorted(set(sums.tolist())), bool(0.4 < (sums == 1).mean() < 0.6)
    ([0.0, 1.0, 2.0], True)
    """
    atoms, counts = np.unique(values, return_counts=True)
    n = len(values)
    sums = np.empty(n_resamples)
    if _grouped(len(atoms), n):
        shares = counts / n
        block = max(1, _BLOCK_ELEMENTS // len(atoms))
        for start in range(0, n_resamples, block):
            size = min(block, n_resamples - start)
            sums[start : start + size] = rng.multinomial(n, shares, size=size) @ atoms
        return sums
    ordered = np.sort(values)
    block = max(1, _BLOCK_ELEMENTS // n)
    for start in range(0, n_resamples, block):
        size = min(block, n_resamples - start)
        sums[start : start + size] = ordered[rng.integers(0, n, size=(size, n))].sum(axis=1)
    return sums


def resplit_public_sums(
    matrix: np.ndarray, n_public: int, n_splits: int, rng: np.random.Generator
) -> np.ndarray:
    """Column sums over a random ``n_public`` of the rows of ``matrix``, per re-split.

    Returns an array of shape ``(n_splits, n_columns)``; it depends only on the
    multiset of rows and the generator.

    Examples
    --------
    >>> rows = np.array([[1.0], [0.0], [0.0], [1.0]])
    >>> sums = resplit_public_sums(rows, 2, 500, np.random.Generator(np.random.PCG64(0)))
    >>> sorted(set(sums[:, 0].tolist()))
    [0.0, 1.0, 2.0]
    """
    atoms, counts = _row_atoms(matrix)
    n = len(matrix)
    out = np.empty((n_splits, matrix.shape[1]))
    if _grouped(len(atoms), n):
        block = max(1, _BLOCK_ELEMENTS // len(atoms))
        for start in range(0, n_splits, block):
            size = min(block, n_splits - start)
            drawn = rng.multivariate_hypergeometric(counts, n_public, size=size)
            out[start : start + size] = drawn @ atoms
        return out
    ordered = np.repeat(atoms, counts, axis=0)
    block = max(1, _BLOCK_ELEMENTS // n)
    for start in range(0, n_splits, block):
        size = min(block, n_splits - start)
        chosen = np.argpartition(rng.random((size, n)), n_public - 1, axis=1)[:, :n_public]
        out[start : start + size] = ordered[chosen].sum(axis=1)
    return out


def sign_flip_p_value(
    differences: np.ndarray, n_resamples: int, rng: np.random.Generator
) -> tuple[float, bool]:
    """Two-sided paired sign-flip randomisation test that the differences centre on 0.

    The statistic is ``|sum of differences|``; each pattern flips the sign of every
    user's difference independently. With at most
    :data:`EXACT_SIGN_FLIP_MAX_USERS` non-zero differences all 2^n patterns are
    enumerated (``exact`` is True); otherwise ``n_resamples`` random patterns give
    ``(b + 1) / (n_resamples + 1)``, b counting those at least as extreme. Statistics
    within a relative 1e-9 of the observed one count as at least as extreme.

    Examples
    --------
    >>> rng = np.random.Generator(np.random.PCG64(0))
    >>> sign_flip_p_value(np.array([0.5, 0.25, 0.0]), 100, rng)  # 2 of 4 patterns
    (0.5, True)
    >>> sign_flip_p_value(np.zeros(3), 100, rng)
    (1.0, True)
    """
    nonzero = differences[differences != 0]
    magnitudes = np.sort(np.abs(nonzero))
    observed = abs(math.fsum(nonzero.tolist()))
    tolerance = _TIE_TOLERANCE * float(magnitudes.sum())
    if len(nonzero) <= EXACT_SIGN_FLIP_MAX_USERS:
        patterns = np.arange(2 ** len(nonzero))[:, None] >> np.arange(len(nonzero)) & 1
        statistics = (2 * patterns - 1) @ magnitudes if len(nonzero) else np.zeros(1)
        extreme = np.count_nonzero(np.abs(statistics) >= observed - tolerance)
        return float(extreme / len(statistics)), True
    atoms, counts = np.unique(magnitudes, return_counts=True)
    block = max(1, _BLOCK_ELEMENTS // len(atoms))
    extreme = 0
    for start in range(0, n_resamples, block):
        size = min(block, n_resamples - start)
        statistics = (2 * fair_coin_heads(counts, size, rng) - counts) @ atoms
        extreme += int(np.count_nonzero(np.abs(statistics) >= observed - tolerance))
    return float((extreme + 1) / (n_resamples + 1)), False


def fair_coin_heads(counts: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """Binomial(c, 1/2) draws for each count c, ``size`` rows of them.

    For c <= 64 the draw is the number of ones among c random bits of one 64-bit
    word (exactly Binomial(c, 1/2), and far cheaper than numpy's binomial for small
    c); larger counts use ``rng.binomial``.

    Examples
    --------
    >>> heads = fair_coin_heads(np.array([1, 3, 100]), 4, np.random.Generator(np.random.PCG64(0)))
    >>> heads.shape, bool((heads <= [1, 3, 100]).all())
    ((4, 3), True)
    """
    counts = np.asarray(counts, dtype=np.int64)
    heads = np.empty((size, len(counts)), dtype=np.int64)
    small = counts <= 64
    if small.any():
        widths = counts[small].astype(np.uint64)
        masks = np.where(
            widths == 64, np.uint64(2**64 - 1), (np.uint64(1) << (widths % 64)) - np.uint64(1)
        )
        words = rng.bit_generator.random_raw((size, len(widths))) & masks
        heads[:, small] = _popcount(words)
    if not small.all():
        heads[:, ~small] = rng.binomial(counts[~small], 0.5, size=(size, int((~small).sum())))
    return heads


_BYTE_POPCOUNT = np.array([bin(byte).count("1") for byte in range(256)], dtype=np.int64)


def _popcount(words: np.ndarray) -> np.ndarray:
    """Ones in each uint64 (numpy's bitwise_count where it exists, else a byte table)."""
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(words).astype(np.int64)
    per_byte = _BYTE_POPCOUNT[np.ascontiguousarray(words).view(np.uint8)]
    return per_byte.reshape(*words.shape, 8).sum(axis=-1)


def percentile_interval(statistics: np.ndarray, level: float) -> tuple[float, float]:
    """The ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles, inverted-CDF rule.

    The lower bound is the smallest statistic whose empirical CDF reaches
    ``(1 - level) / 2``; likewise the upper bound (numpy's ``"inverted_cdf"``).

    Examples
    --------
    >>> percentile_interval(np.arange(1.0, 41.0), 0.95)  # CDF 1/40 at 1, 39/40 at 39
    (1.0, 39.0)
    """
    return _quantiles(statistics, ((1 - level) / 2, (1 + level) / 2))


def _quantiles(statistics: np.ndarray, shares: tuple[float, float]) -> tuple[float, float]:
    """Inverted-CDF quantiles; ``shares`` are nudged down by 1e-9 resample so that a
    share written as ``(1 - 0.95) / 2`` still finds the CDF step it means."""
    ordered = np.sort(statistics)
    count = len(ordered)
    positions = [max(1, math.ceil(count * share - 1e-9)) - 1 for share in shares]
    return float(ordered[positions[0]]), float(ordered[positions[1]])


def _grouped(n_atoms: int, n_values: int) -> bool:
    return n_atoms <= max(GROUPED_MIN_ATOMS, GROUPED_MAX_ATOMS_SHARE * n_values)


def _row_atoms(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of ``matrix`` in lexicographic order, and their counts."""
    if matrix.shape[1] == 1:
        atoms, counts = np.unique(matrix[:, 0], return_counts=True)
        return atoms[:, None], counts
    ordered = matrix[np.lexsort(matrix.T[::-1])]
    starts = np.flatnonzero(np.r_[True, np.any(ordered[1:] != ordered[:-1], axis=1)])
    return ordered[starts], np.diff(np.r_[starts, len(ordered)])


def _group_means(group: np.ndarray, values: np.ndarray, n_groups: int) -> list[tuple[int, float]]:
    counts = np.bincount(group, minlength=n_groups)
    sums = np.bincount(group, weights=values, minlength=n_groups)
    means = np.divide(sums, counts, out=np.full(n_groups, np.nan), where=counts > 0)
    return [(int(c), float(m)) for c, m in zip(counts, means, strict=True)]


def _shake_up_table(
    names: list[str],
    public_means: np.ndarray,
    private_means: np.ndarray,
    observed_public: np.ndarray,
    observed_private: np.ndarray,
    n_splits: int,
) -> ShakeUpTable:
    private_ranks = _ranks(private_means)
    real_public_ranks = _ranks(observed_public[None, :])[0]
    real_private_ranks = _ranks(observed_private[None, :])[0]
    standings = {}
    for column, name in enumerate(names):
        low, high = _quantiles(private_ranks[:, column], (0.05, 0.95))
        standings[name] = Standing(
            public=float(observed_public[column]),
            private=float(observed_private[column]),
            public_rank=int(real_public_ranks[column]),
            private_rank=int(real_private_ranks[column]),
            expected_private_rank=float(private_ranks[:, column].mean()),
            private_rank_low=low,
            private_rank_high=high,
        )
    swaps = {}
    for i, first in enumerate(names):
        for j in range(i + 1, len(names)):
            public_order = public_means[:, i] - public_means[:, j]
            private_order = private_means[:, i] - private_means[:, j]
            swaps[(first, names[j])] = float(np.mean(public_order * private_order < 0))
    return ShakeUpTable(standings, swaps, n_splits)


def _ranks(means: np.ndarray) -> np.ndarray:
    """Rank 1 for the highest value in each row; ties share the better rank."""
    return 1 + np.sum(means[:, None, :] > means[:, :, None], axis=2)


def _split_sizes(values: MeasureValues) -> tuple[int, int]:
    if values.split is not None:
        scored_splits = values.split[values.scored]
        public = int(np.count_nonzero(scored_splits == 0))
        private = int(np.count_nonzero(scored_splits == 1))
        if public and private:
            return public, private
    raise HostVisibleError(
        "A shake-up needs a solution with a Usage column and scored users in both the "
        "Public and the Private split."
    )


def check_paired(result_a: ScoreResult, result_b: ScoreResult) -> None:
    """Raise a :class:`HostVisibleError` unless the two results' users pair up: the same
    solution rows in the same order, scored with the same options (graded relevance
    included; see :attr:`~scorer.result.ScoreResult.fingerprint`). Whether a measure
    was computed for both is checked when its values are read."""
    require_arrays(result_a)
    require_arrays(result_b)
    if result_a.fingerprint != result_b.fingerprint:
        raise HostVisibleError(
            "The results were scored against different solutions (or the same solution "
            "with its rows in another order) or with different options, so their users "
            "cannot be paired. Score both submissions against the same solution with the "
            "same options."
        )


def _check_settings(
    n_resamples: int, level: float, seed: int, count_name: str = "number of resamples"
) -> None:
    problems = []
    if (
        isinstance(n_resamples, bool)
        or not isinstance(n_resamples, int | np.integer)
        or n_resamples < 1
    ):
        problems.append(f"the {count_name} must be an int >= 1, not {n_resamples!r}")
    if not isinstance(level, float | int) or not 0 < level < 1:
        problems.append(f"the level must be a number strictly between 0 and 1, not {level!r}")
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        problems.append(f"the seed must be an int >= 0, not {seed!r}")
    if problems:
        raise HostVisibleError("Invalid statistics settings: " + "; ".join(problems) + ".")


def _generator(seed: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(seed))
