"""Many entries ranked at once over the same units: ranks with exact ties, one bootstrap
shared by every entry, a paired randomisation test of every pair, Holm's step-down and
tiers (docs/leaderboard.md).

The input is a :class:`Panel`: each submission's parts of one measure per unit (a scored
user, or a session with all its target types), the units in their row ids' byte order,
each ``Usage`` split a contiguous stratum. The bootstrap is a Poisson bootstrap (each
unit drawn a Poisson(1) number of times, independently, in every resample; a value is
then Σ count · value / Σ count); the paired tests swap each unit's parts between two
submissions with a fair coin. Every random draw is made per unit in that order, from a
stream derived from the seed and the stratum alone, so the same inputs and seed give the
same numbers whatever the entries' order, the machine or its threads. Sums over drawn
units are exact: the parts are written in fixed point, as integers small enough that a
float64 matrix product adds integers below 2**53, exactly and in any order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from fractions import Fraction

import numpy as np

from scorer.stats.resampling import (
    EXACT_SIGN_FLIP_MAX_USERS,
    TIE_TOLERANCE,
    ratio_of_sums,
    seeded_generator,
    sign_flip_p_value,
    swap_p_value,
)

#: Units drawn per matrix product; a constant, so the draws never depend on the machine.
BLOCK_UNITS = 4096
#: Resamples drawn at a time for a block of units (their counts stay in cache).
RESAMPLE_CHUNK = 256
_CHECK_UNITS = 65_536  # units compared at a time (a bounded copy of the panel)
_PAIR_BLOCK = 1024  # pairs tested at a time
_STRATUM_CODES = {"score": 0, "public": 1, "private": 2}


@dataclass(frozen=True)
class Panel:
    """Per-unit parts of one measure for several submissions.

    Attributes
    ----------
    tops : ndarray of float64, shape (units, submissions, types)
        Each unit's value of each target type (a ratio of sums: its numerator).
    bottoms : ndarray of float64 of the same shape, or None
        A ratio of sums' denominators; ``None`` when a type's value is the mean of its
        rows' values (divided by :attr:`counts`).
    counts : ndarray of float64, shape (units, types)
        The unit's scored rows of each type (1 without target types).
    strata : dict of str to slice
        The units of each ``Usage`` split (``"public"``, ``"private"``), or ``"score"``
        for all of them without ``Usage``.
    weights : ndarray of float64, shape (types,)
        Each type's weight in the value (``[1.0]`` without target types).
    """

    tops: np.ndarray
    bottoms: np.ndarray | None
    counts: np.ndarray
    strata: dict[str, slice]
    weights: np.ndarray

    def value(self, tops: np.ndarray, bottoms: np.ndarray | None, counts: np.ndarray) -> np.ndarray:
        """Σ_t w_t · tops_t / bottoms_t of summed parts (bottoms: the counts when None;
        0 / 0 reads as 0); ``tops`` of shape (..., submissions, types).

        Examples
        --------
        >>> panel = Panel(np.zeros((1, 2, 1)), None, np.ones((1, 1)), {}, np.ones(1))
        >>> panel.value(np.array([[3.0], [1.0]]), None, np.array([4.0])).tolist()
        [0.75, 0.25]
        """
        below = counts[..., None, :] if bottoms is None else bottoms
        return (ratio_of_sums(tops, below) * self.weights).sum(axis=-1)


@dataclass(frozen=True)
class Sums:
    """Exact fixed-point sums of a panel's parts over some units (one stratum or several).

    ``tops``/``bottoms`` are the real sums per submission and type; ``drawn_*`` the sums
    per bootstrap resample (each unit counted as often as it is drawn);
    ``moved_*`` the sums over the units a random swap pattern selects (the paired test
    swaps those units' parts between two submissions); ``differing[a, b]`` counts the
    units where submissions ``a`` and ``b`` have different parts.
    """

    n_units: int
    tops: np.ndarray
    bottoms: np.ndarray | None
    counts: np.ndarray
    drawn_tops: np.ndarray
    drawn_bottoms: np.ndarray | None
    drawn_counts: np.ndarray
    moved_tops: np.ndarray
    moved_bottoms: np.ndarray | None
    differing: np.ndarray

    def __add__(self, other: Sums) -> Sums:
        def add(a: np.ndarray | None, b: np.ndarray | None) -> np.ndarray | None:
            return None if a is None or b is None else a + b

        names = [item.name for item in fields(self)][1:]
        return Sums(  # type: ignore[arg-type]
            self.n_units + other.n_units,
            *(add(getattr(self, name), getattr(other, name)) for name in names),
        )


@dataclass(frozen=True)
class FixedPoint:
    """The scales that write a panel's parts as integers: ``round(part * scale)``."""

    top: float
    bottom: float

    @classmethod
    def of(cls, panel: Panel, columns: np.ndarray) -> FixedPoint:
        """Scales under which a sum of the parts of every unit, each counted up to
        :data:`MOST_DRAWN` times, stays below 2**52."""
        n_units = len(panel.counts)
        bits = 52 - math.ceil(math.log2(MOST_DRAWN * n_units + 1))

        def scale(parts: np.ndarray | None) -> float:
            # The whole panel's largest magnitude: a column never filled holds zeros, and
            # reductions make no copy of the panel.
            largest = 0.0 if parts is None else max(float(parts.max()), -float(parts.min()))
            return math.ldexp(1.0, bits - math.frexp(largest)[1]) if largest > 0 else 1.0

        return cls(scale(panel.tops), scale(panel.bottoms))


def panel_sums(panel: Panel, columns: np.ndarray, n_resamples: int, seed: int) -> dict[str, Sums]:
    """Each stratum's :class:`Sums` for the submissions ``columns`` (indices into the
    panel's submissions), with ``n_resamples`` bootstrap resamples and swap patterns."""
    fixed = FixedPoint.of(panel, columns)
    return {
        label: _stratum_sums(panel, rows, columns, fixed, n_resamples, seed, label)
        for label, rows in panel.strata.items()
        if rows.stop > rows.start
    }


def _stratum_sums(
    panel: Panel,
    rows: slice,
    columns: np.ndarray,
    fixed: FixedPoint,
    n_resamples: int,
    seed: int,
    label: str,
) -> Sums:
    """One stratum's sums. Units whose parts are the same for every submission change
    no difference and no rank: they are drawn as groups of equal rows (atoms), and the
    swap patterns leave them out. The others are drawn one by one, block by block, for
    a chunk of resamples at a time, and multiplied with their parts."""
    code = _STRATUM_CODES[label]
    draws = seeded_generator(np.random.SeedSequence([seed, code, 0]))
    swaps = seeded_generator(np.random.SeedSequence([seed, code, 1]))
    n_subs, n_types = len(columns), panel.counts.shape[1]
    width = n_subs * n_types
    live, atoms, atom_counts = _live_units(panel, rows, columns, fixed)
    blocks = [live[a : a + BLOCK_UNITS] for a in range(0, len(live), BLOCK_UNITS)]
    totals = atom_counts @ atoms
    differing = np.zeros((n_subs, n_subs), dtype=np.int64)
    drawn = draws.poisson(atom_counts, size=(n_resamples, len(atom_counts))) @ atoms
    moved = np.zeros((n_resamples, atoms.shape[1]))
    for block in blocks:
        parts = _fixed_parts(panel, block, columns, fixed)
        totals += parts.sum(axis=0)
        differing += _differing(panel, block, columns)
        for start in range(0, n_resamples, RESAMPLE_CHUNK):
            chunk = slice(start, min(start + RESAMPLE_CHUNK, n_resamples))
            size = chunk.stop - chunk.start
            drawn[chunk] += _poisson_counts(draws, size, len(block)) @ parts
            moved[chunk] += _swap_patterns(swaps, size, len(block)) @ parts

    def split(found: np.ndarray) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
        shape = (*found.shape[:-1], n_subs, n_types)
        tops = found[..., :width].reshape(shape) / fixed.top
        if panel.bottoms is None:
            return tops, None, found[..., width:]
        bottoms = found[..., width : 2 * width].reshape(shape) / fixed.bottom
        return tops, bottoms, found[..., 2 * width :]

    return Sums(rows.stop - rows.start, *split(totals), *split(drawn), *split(moved)[:2], differing)


def _live_units(
    panel: Panel, rows: slice, columns: np.ndarray, fixed: FixedPoint
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The stratum's units whose parts differ between submissions (in order), and the
    others grouped into atoms: each distinct row of parts (in the order of its first
    submission's parts, whatever the submissions' order) and its count."""
    same = np.concatenate(
        [np.zeros(0, dtype=bool)]
        + [
            _same_everywhere(panel, slice(a, min(a + _CHECK_UNITS, rows.stop)), columns)
            for a in range(rows.start, rows.stop, _CHECK_UNITS)
        ]
    )
    units = np.arange(rows.start, rows.stop)
    constant = units[same]
    if not len(constant):
        return units, _fixed_parts(panel, constant, columns, fixed), np.zeros(0)
    keys = [panel.tops[constant, columns[0]], panel.counts[constant]]
    if panel.bottoms is not None:
        keys.append(panel.bottoms[constant, columns[0]])
    first, counts = _groups(np.hstack(keys))
    atoms = _fixed_parts(panel, constant[first], columns, fixed)
    return units[~same], atoms, counts.astype(np.float64)


def _groups(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first of each group of equal rows (groups in lexicographic order) and the
    groups' sizes; columns equal throughout are left out of the sort.

    Examples
    --------
    >>> _groups(np.array([[2.0, 1.0], [1.0, 1.0], [2.0, 1.0]]))
    (array([1, 0]), array([1, 2]))
    """
    varying = rows[:, (rows != rows[:1]).any(axis=0)] if len(rows) else rows
    order = np.lexsort(varying.T[::-1]) if varying.shape[1] else np.arange(len(rows))
    ordered = varying[order]
    starts = np.flatnonzero(np.r_[True, (ordered[1:] != ordered[:-1]).any(axis=1)])
    return order[starts], np.diff(np.r_[starts, len(rows)])


def _same_everywhere(panel: Panel, rows: slice, columns: np.ndarray) -> np.ndarray:
    """Which of the units have the same parts in every submission."""
    tops = panel.tops[rows][:, columns]
    same = (tops == tops[:, :1]).all(axis=(1, 2))
    if panel.bottoms is not None:
        bottoms = panel.bottoms[rows][:, columns]
        same &= (bottoms == bottoms[:, :1]).all(axis=(1, 2))
    return same


def _fixed_parts(
    panel: Panel, units: np.ndarray, columns: np.ndarray, fixed: FixedPoint
) -> np.ndarray:
    """The units' parts as integer-valued float64: tops, bottoms (for a ratio of sums),
    then the counts."""
    shape = (len(units), len(columns) * panel.counts.shape[1])
    parts = [np.rint(panel.tops[units][:, columns] * fixed.top).reshape(shape)]
    if panel.bottoms is not None:
        parts.append(np.rint(panel.bottoms[units][:, columns] * fixed.bottom).reshape(shape))
    return np.hstack([*parts, panel.counts[units]])


def _poisson_thresholds() -> np.ndarray:
    """``floor(2**32 * P(X >= k))`` for X ~ Poisson(1), k = 1, 2, ... while above 0, from
    exact rationals (e⁻¹ by its series): the same on every machine."""
    inverse_e = sum((Fraction((-1) ** n, math.factorial(n)) for n in range(40)), Fraction(0))
    thresholds, tail = [], Fraction(1)
    for k in range(1, 40):
        tail -= inverse_e / math.factorial(k - 1)
        if int(tail * 2**32) == 0:
            break
        thresholds.append(int(tail * 2**32))
    return np.array(thresholds, dtype=np.uint32)


_AT_LEAST = _poisson_thresholds()
#: No unit is drawn more often in a resample (P(X >= 13) is below 2**-32).
MOST_DRAWN = len(_AT_LEAST)


def _poisson_counts(rng: np.random.Generator, n_resamples: int, n_units: int) -> np.ndarray:
    """How often each unit is drawn in each resample: Poisson(1) from a 32-bit uniform u,
    the number of k with u < floor(2**32 P(X >= k)) (exact to 2**-32). Counts of 4 or
    more (2 % of draws) are looked up one by one."""
    words = rng.bit_generator.random_raw(-(-n_resamples * n_units // 2))
    uniform = words.astype("<u8", copy=False).view("<u4")[: n_resamples * n_units]
    counts = (uniform < _AT_LEAST[0]).view(np.uint8)
    for threshold in _AT_LEAST[1:4]:
        counts += uniform < threshold
    rare = np.flatnonzero(uniform < _AT_LEAST[4])
    counts[rare] = MOST_DRAWN - np.searchsorted(_AT_LEAST[::-1], uniform[rare], side="right")
    return counts.reshape(n_resamples, n_units).astype(np.float64)


def _swap_patterns(rng: np.random.Generator, n_patterns: int, n_units: int) -> np.ndarray:
    """Which units each pattern swaps: fair coins, 64 to a random word (read as
    little-endian bits on every machine)."""
    words = rng.bit_generator.random_raw(-(-n_patterns * n_units // 64))
    bits = np.unpackbits(words.astype("<u8", copy=False).view(np.uint8), bitorder="little")
    return bits[: n_patterns * n_units].reshape(n_patterns, n_units).astype(np.float64)


def _differing(panel: Panel, units: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """Per pair of submissions, the units of the block whose parts differ."""
    parts = panel.tops[units][:, columns]
    if panel.bottoms is not None:
        parts = np.concatenate([parts, panel.bottoms[units][:, columns]], axis=2)
    by_submission = np.ascontiguousarray(parts.transpose(1, 0, 2))
    found = np.zeros((len(columns), len(columns)), dtype=np.int64)
    for first in range(len(columns) - 1):  # a submission against every later one
        later = by_submission[first + 1 :] != by_submission[first]
        found[first, first + 1 :] = later.any(axis=2).sum(axis=1)
    return found + found.T


def competition_ranks(values: np.ndarray) -> np.ndarray:
    """Rank 1 for the largest along the last axis; equal values share the better rank
    and the next rank skips (``1, 2, 2, 4``): one plus the number of larger values.

    Examples
    --------
    >>> competition_ranks(np.array([0.5, 0.7, 0.5, 0.1])).tolist()
    [2, 1, 2, 4]
    >>> competition_ranks(np.array([[1.0, 1.0], [0.0, 2.0]])).tolist()
    [[1, 1], [2, 1]]
    """
    order = np.argsort(-values, axis=-1, kind="stable")
    ordered = np.take_along_axis(values, order, axis=-1)
    positions = np.broadcast_to(np.arange(values.shape[-1]), values.shape)
    starts = np.where(np.diff(ordered, axis=-1, prepend=np.nan) != 0, positions, 0)
    ranks = np.empty(values.shape, dtype=np.int64)
    np.put_along_axis(ranks, order, np.maximum.accumulate(starts, axis=-1) + 1, axis=-1)
    return ranks


def holm(p_values: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values: the i-th smallest of m is multiplied by
    m - i + 1, then made non-decreasing and capped at 1 (tied p-values get the same).

    Examples
    --------
    >>> holm(np.array([0.01, 0.04, 0.03, 0.5])).tolist()
    [0.04, 0.09, 0.09, 0.5]
    """
    order = np.argsort(p_values, kind="stable")
    m = len(p_values)
    scaled = np.minimum(1.0, (m - np.arange(m)) * p_values[order])
    adjusted = np.empty(m)
    adjusted[order] = np.maximum.accumulate(scaled)
    return adjusted


def tiers(values: np.ndarray, worse: np.ndarray) -> np.ndarray:
    """Tier 1: every entry not significantly worse than the best (``worse[i, j]``: entry
    i is significantly worse than j); then the same among the entries left, from the
    best of them. With several best (equal values), an entry significantly worse than
    any of them is left for a later tier.

    Examples
    --------
    >>> worse = np.zeros((4, 4), dtype=bool)
    >>> worse[2, 0] = worse[3, 0] = worse[3, 1] = True
    >>> tiers(np.array([0.9, 0.8, 0.7, 0.1]), worse).tolist()
    [1, 1, 2, 2]
    """
    found = np.zeros(len(values), dtype=np.int64)
    left = np.ones(len(values), dtype=bool)
    tier = 0
    while left.any():  # at most one pass per entry
        tier += 1
        best = left & (values == values[left].max())
        members = left & ~worse[:, best].any(axis=1)
        found[members] = tier
        left &= ~members
    return found


def quantile_rows(
    samples: np.ndarray, shares: tuple[float, float], mirrored: bool = False
) -> np.ndarray:
    """The inverted-CDF quantiles (as :func:`~scorer.stats.resampling.quantiles`) of each
    column of ``samples``: shape (2, columns). With ``mirrored``, the upper one is the
    order statistic as far from the largest as the lower one is from the smallest, so
    that the interval of ``-samples`` is exactly minus this one (a pair's difference,
    whichever way it is taken).

    Examples
    --------
    >>> quantile_rows(np.arange(1.0, 41.0)[:, None], (0.025, 0.975)).ravel().tolist()
    [1.0, 39.0]
    >>> quantile_rows(np.arange(1.0, 41.0)[:, None], (0.025, 0.975), mirrored=True).ravel().tolist()
    [1.0, 40.0]
    """
    ordered = np.sort(samples, axis=0)
    low, high = (max(1, math.ceil(len(ordered) * share - 1e-9)) - 1 for share in shares)
    return ordered[[low, len(ordered) - 1 - low if mirrored else high]]


@dataclass(frozen=True)
class SplitStatistics:
    """The statistics of the entries on one split.

    Attributes
    ----------
    value_low, value_high : ndarray of float64
        Each entry's bootstrap interval of its value.
    rank_low, rank_high : ndarray of int64
        Each entry's bootstrap interval of its rank.
    first, second : ndarray of int64
        The pairs of entries tested (indices, first < second).
    difference_low, difference_high : ndarray of float64
        The bootstrap interval of ``second - first`` of each pair.
    p_value, adjusted : ndarray of float64
        Each pair's two-sided paired randomisation test, and Holm's adjustment over
        every pair.
    exact : ndarray of bool
        Whether the pair's p-value enumerates every swap pattern.
    tier : ndarray of int64
        Each entry's tier at the level ``alpha``.
    """

    value_low: np.ndarray
    value_high: np.ndarray
    rank_low: np.ndarray
    rank_high: np.ndarray
    first: np.ndarray
    second: np.ndarray
    difference_low: np.ndarray
    difference_high: np.ndarray
    p_value: np.ndarray
    adjusted: np.ndarray
    exact: np.ndarray
    tier: np.ndarray


def split_statistics(
    panel: Panel,
    sums: Sums,
    summed: np.ndarray,
    strata: list[str],
    entries: np.ndarray,
    values: np.ndarray,
    alpha: float,
) -> SplitStatistics | None:
    """The rank and value intervals, pairwise tests and tiers of ``entries`` (the
    panel's submissions) whose values on the split are ``values``; ``sums`` hold the
    panel's submissions ``summed`` (ascending), the entries among them.

    ``strata`` names the panel's strata the split covers (their sums are ``sums``);
    intervals are the ``alpha / 2`` and ``1 - alpha / 2`` quantiles over resamples.
    None when no resample gives the split a value (with few users and few resamples,
    none may draw a user of each of its target types).
    """
    shares = (alpha / 2, 1 - alpha / 2)
    columns = np.searchsorted(summed, entries)  # the entries' columns in the sums
    complete = (sums.drawn_counts > 0).all(axis=1)  # else a type has no row: no value
    if not complete.any():
        return None
    drawn = panel.value(
        sums.drawn_tops[:, columns],
        None if sums.drawn_bottoms is None else sums.drawn_bottoms[:, columns],
        sums.drawn_counts,
    )
    drawn = drawn[complete]
    value_low, value_high = quantile_rows(drawn, shares)
    rank_low, rank_high = quantile_rows(competition_ranks(drawn), shares)
    first, second = np.triu_indices(len(entries), 1)
    found = [  # pairs a block at a time: resamples x pairs arrays stay bounded
        (
            quantile_rows(drawn[:, second[block]] - drawn[:, first[block]], shares, True),
            _monte_carlo_p_values(panel, sums, columns[first[block]], columns[second[block]]),
        )
        for block in (slice(a, a + _PAIR_BLOCK) for a in range(0, len(first), _PAIR_BLOCK))
    ]
    difference_low, difference_high = np.hstack(
        [bounds for bounds, _ in found] or [np.zeros((2, 0))]
    )
    p_value = np.concatenate([p for _, p in found] or [np.zeros(0)])
    exact = sums.differing[columns[first], columns[second]] <= EXACT_SIGN_FLIP_MAX_USERS
    for pair in np.flatnonzero(exact):
        p_value[pair] = exact_p_value(panel, strata, entries[first[pair]], entries[second[pair]])
    adjusted = holm(p_value)
    significant = adjusted <= alpha
    worse = np.zeros((len(entries), len(entries)), dtype=bool)
    worse[first, second] = significant & (values[first] < values[second])
    worse[second, first] = significant & (values[second] < values[first])
    return SplitStatistics(
        value_low,
        value_high,
        rank_low.astype(np.int64),
        rank_high.astype(np.int64),
        first,
        second,
        difference_low,
        difference_high,
        p_value,
        adjusted,
        exact,
        tiers(values, worse),
    )


def _monte_carlo_p_values(
    panel: Panel, sums: Sums, first: np.ndarray, second: np.ndarray
) -> np.ndarray:
    """Each pair's p-value over the shared swap patterns: a pattern swaps the parts of
    the units it selects between the two submissions, and counts when the absolute
    difference of their values is at least the real one (within 1e-9, relative, at
    least absolute); ``(b + 1) / (N + 1)``."""
    n_resamples = len(sums.moved_tops)

    def values(tops: np.ndarray, bottoms: np.ndarray | None) -> np.ndarray:
        return panel.value(tops, bottoms, sums.counts)

    def pick(found: np.ndarray | None, which: np.ndarray) -> np.ndarray | None:
        return None if found is None else found[..., which, :]

    observed = np.abs(
        values(pick(sums.tops, second), pick(sums.bottoms, second))
        - values(pick(sums.tops, first), pick(sums.bottoms, first))
    )
    shift_tops = sums.moved_tops[:, first] - sums.moved_tops[:, second]
    shift_bottoms = (
        None
        if sums.moved_bottoms is None
        else sums.moved_bottoms[:, first] - sums.moved_bottoms[:, second]
    )

    def shifted(which: np.ndarray, sign: int) -> np.ndarray:
        bottoms = pick(sums.bottoms, which)
        return values(
            pick(sums.tops, which) + sign * shift_tops,
            None if bottoms is None else bottoms + sign * shift_bottoms,  # type: ignore[operator]
        )

    statistics = np.abs(shifted(second, 1) - shifted(first, -1))
    tolerance = TIE_TOLERANCE * np.maximum(1.0, observed)
    extreme = np.count_nonzero(statistics >= observed - tolerance, axis=0)
    return (extreme + 1) / (n_resamples + 1)


def exact_p_value(panel: Panel, strata: list[str], a: int, b: int) -> float:
    """The paired test of submissions ``a`` and ``b`` over every swap pattern of the
    units where they differ (at most :data:`EXACT_SIGN_FLIP_MAX_USERS`): the package's
    sign-flip test for a mean, its swap test for a ratio of sums or target types."""
    rows = np.concatenate([np.arange(len(panel.counts))[panel.strata[s]] for s in strata])
    if panel.bottoms is None and panel.counts.shape[1] == 1:
        differences = panel.tops[rows, b, 0] - panel.tops[rows, a, 0]
        return sign_flip_p_value(differences, 0, seeded_generator(0))[0]

    def parts(which: int) -> np.ndarray:
        below = panel.counts[rows] if panel.bottoms is None else panel.bottoms[rows, which]
        return np.hstack([panel.tops[rows, which], below])

    weights = panel.weights if panel.counts.shape[1] > 1 else None
    return swap_p_value(parts(a), parts(b), 0, seeded_generator(0), weights)[0]
