"""The random draws behind every statistic, and the checks they share.

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
from typing import Any

import numpy as np

from scorer.errors import HostVisibleError
from scorer.result import ScoreResult, require_arrays

#: Bootstrap resamples of an interval when none are given (``stats.bootstrap``,
#: ``scorer --ci``, the report's intervals).
INTERVAL_RESAMPLES = 1000
#: Resamples and sign patterns of a paired comparison when none are given: its p-value's
#: resolution is 1 / 10,001 (``stats.compare``, ``scorer compare``, the report's
#: comparisons alike, so one pair gets one p-value).
PAIRED_RESAMPLES = 10_000

EXACT_SIGN_FLIP_MAX_USERS = 16
"""Up to this many non-zero differences, the sign-flip test enumerates all 2^n patterns."""


GROUPED_MAX_ATOMS_SHARE = 0.25


GROUPED_MIN_ATOMS = 64
"""Draw per atom while the distinct values are at most this share of the users (or
at most this many); otherwise draw indices into the sorted values."""


_BLOCK_ELEMENTS = 2**20  # draws held in memory at once (8 MiB of int64)


#: Relative: a resampled statistic this close to the real one counts as at least as extreme.
TIE_TOLERANCE = 1e-9


def resampled_sums(values: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Sums of ``n_resamples`` resamples of ``values`` with replacement (same size).

    Depends only on the multiset of ``values`` (not their order) and the generator.

    Examples
    --------
    >>> sums = resampled_sums(np.array([0.0, 1.0]), 1000, np.random.Generator(np.random.PCG64(0)))
    >>> sorted(set(sums.tolist())), bool(0.4 < (sums == 1).mean() < 0.6)
    ([0.0, 1.0, 2.0], True)
    """
    return resampled_column_sums(np.asarray(values)[:, None], n_resamples, rng)[:, 0]


def resampled_column_sums(
    matrix: np.ndarray, n_resamples: int, rng: np.random.Generator
) -> np.ndarray:
    """Column sums of ``n_resamples`` resamples of the rows of ``matrix`` with
    replacement (same size): shape ``(n_resamples, n_columns)``. A row is a user; its
    columns (a micro measure's numerator and denominator, or two submissions' parts)
    are drawn together.

    Depends only on the multiset of rows and the generator.

    Examples
    --------
    >>> rows = np.array([[1.0, 1.0], [0.0, 10.0]])  # OTTO's two sessions
    >>> sums = resampled_column_sums(rows, 1000, np.random.Generator(np.random.PCG64(0)))
    >>> sorted(set(map(tuple, sums.tolist())))
    [(0.0, 20.0), (1.0, 11.0), (2.0, 2.0)]
    """
    atoms, counts = _row_atoms(matrix)
    n, columns = matrix.shape
    weights = atoms[:, 0] if columns == 1 else atoms  # one column: a matrix-vector product
    sums = np.empty((n_resamples, columns))
    if _grouped(len(atoms), n):
        shares = counts / n
        block = max(1, _BLOCK_ELEMENTS // len(atoms))
        for start in range(0, n_resamples, block):
            size = min(block, n_resamples - start)
            drawn = rng.multinomial(n, shares, size=size) @ weights
            sums[start : start + size] = drawn.reshape(size, columns)
        return sums
    ordered = np.repeat(weights, counts, axis=0)
    block = max(1, _BLOCK_ELEMENTS // (n * columns))
    for start in range(0, n_resamples, block):
        size = min(block, n_resamples - start)
        drawn = ordered[rng.integers(0, n, size=(size, n))].sum(axis=1)
        sums[start : start + size] = drawn.reshape(size, columns)
    return sums


def ratio_of_sums(numerators: np.ndarray, denominators: np.ndarray) -> np.ndarray:
    """``numerators / denominators``, 0 where a denominator is 0 (a micro measure's
    value: no row with a denominator scores 0).

    Examples
    --------
    >>> ratio_of_sums(np.array([1.0, 0.0]), np.array([11.0, 0.0])).tolist()
    [0.09090909090909091, 0.0]
    """
    safe = np.where(denominators != 0, denominators, 1.0)
    return np.where(denominators != 0, numerators / safe, 0.0)


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
    tolerance = TIE_TOLERANCE * float(magnitudes.sum())
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


def swap_p_value(
    parts_a: np.ndarray,
    parts_b: np.ndarray,
    n_resamples: int,
    rng: np.random.Generator,
    weights: np.ndarray | None = None,
) -> tuple[float, bool]:
    """Two-sided paired randomisation test for a ratio of sums (``avg=micro``): under
    "no difference" each user's two rows of parts (numerator, denominator) are
    exchangeable, so each pattern swaps A's and B's parts of every user independently.

    The statistic is ``|ΣnumB/ΣdenB - ΣnumA/ΣdenA|`` (0/0 read as 0). As
    :func:`sign_flip_p_value` (to which it reduces when every denominator is 1): all
    2^n patterns of the n users whose parts differ when n <= 16, else ``n_resamples``
    random ones with the +1 correction; statistics within 1e-9 (relative, at least
    absolute) of the observed one count as at least as extreme.

    With ``weights`` (one per target type), each user is a session whose parts are its
    types' numerators, then their denominators, and the statistic is the difference of
    the weighted totals ``Σ_t w_t · Σnum_t / Σden_t``.

    Examples
    --------
    >>> rng = np.random.Generator(np.random.PCG64(0))
    >>> a = np.array([[0.0, 1.0], [0.0, 10.0], [1.0, 1.0]])
    >>> b = np.array([[1.0, 1.0], [0.0, 10.0], [1.0, 1.0]])
    >>> swap_p_value(a, b, 100, rng)  # one user differs: 2 patterns, both as extreme
    (1.0, True)
    """
    weights = np.ones(1) if weights is None else weights
    n_types = len(weights)

    def totals(sums: np.ndarray) -> np.ndarray:
        return ratio_of_sums(sums[:, :n_types], sums[:, n_types:]) @ weights

    totals_a, totals_b = parts_a.sum(axis=0), parts_b.sum(axis=0)
    observed = abs(float(totals(totals_b[None, :])[0]) - float(totals(totals_a[None, :])[0]))
    tolerance = TIE_TOLERANCE * max(1.0, observed)
    moved = parts_a - parts_b  # what swapping a user moves from A to B
    moved = moved[np.any(moved != 0, axis=1)]

    def extreme(shifts: np.ndarray) -> int:
        statistics = np.abs(totals(totals_b + shifts) - totals(totals_a - shifts))
        return int(np.count_nonzero(statistics >= observed - tolerance))

    if len(moved) <= EXACT_SIGN_FLIP_MAX_USERS:
        patterns = np.arange(2 ** len(moved))[:, None] >> np.arange(len(moved)) & 1
        return float(extreme(patterns @ moved) / len(patterns)), True
    atoms, counts = _row_atoms(moved)
    block = max(1, _BLOCK_ELEMENTS // len(atoms))
    found = 0
    for start in range(0, n_resamples, block):
        size = min(block, n_resamples - start)
        found += extreme(fair_coin_heads(counts, size, rng) @ atoms)
    return float((found + 1) / (n_resamples + 1)), False


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
    return quantiles(statistics, ((1 - level) / 2, (1 + level) / 2))


def quantiles(statistics: np.ndarray, shares: tuple[float, float]) -> tuple[float, float]:
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


def check_paired(result_a: ScoreResult, result_b: ScoreResult) -> None:
    """Raise a :class:`HostVisibleError` unless the two results' users pair up: the same
    solution rows in the same order, scored with the same options (graded relevance
    included; see :attr:`~scorer.result.ScoreResult.fingerprint`). Whether a measure
    was computed for both is checked when its values are read."""
    require_arrays(result_a)
    require_arrays(result_b)
    if result_a.fingerprint == result_b.fingerprint:
        return
    options = result_a.options
    skipped = options.format == "trec" and options.missing_rows == "skip"
    if skipped and options == result_b.options and result_a.n_users == result_b.n_users:
        raise HostVisibleError(
            "The runs leave out different queries of the qrels (missing_rows='skip', "
            "trec_eval's default: a query a run lacks is no part of its mean), so their "
            "queries cannot be paired. Score a query a run lacks as 0 to compare them "
            "(missing_rows='empty', --missing-rows empty, trec_eval's -c)."
        )
    raise HostVisibleError(
        "The results were scored against different solutions (or the same solution "
        "with its rows in another order) or with different options, so their users "
        "cannot be paired. Score both submissions against the same solution with the "
        "same options."
    )


#: The most resamples (and swap patterns) a statistic takes: a p-value's resolution of
#: 1e-7, far past what any test here needs; more would only run for hours or hold
#: arrays past any memory.
MAX_RESAMPLES = 10_000_000


def resamples_problem(resamples: Any, name: str, least: int) -> str | None:
    """What is wrong with a number of resamples, or None.

    Examples
    --------
    >>> resamples_problem(10**20, "resamples", 0)
    'resamples must be an int from 0 to 10,000,000, not 100000000000000000000'
    """
    whole = isinstance(resamples, int | np.integer) and not isinstance(resamples, bool)
    if whole and least <= resamples <= MAX_RESAMPLES:
        return None
    return f"{name} must be an int from {least} to {MAX_RESAMPLES:,}, not {resamples!r}"


def seed_problem(seed: Any, name: str) -> str | None:
    """What is wrong with a seed, or None.

    Examples
    --------
    >>> seed_problem(-1, "seed"), seed_problem(3, "seed")
    ('seed must be an int >= 0, not -1', None)
    """
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        return f"{name} must be an int >= 0, not {seed!r}"
    return None


def share_problem(share: Any, name: str) -> str | None:
    """What is wrong with a level or an alpha (a float or an int strictly between 0 and
    1: a ``Fraction`` would reach the pages' formatting and the JSON), or None.

    Examples
    --------
    >>> share_problem(1.0, "alpha"), share_problem(0.05, "alpha")
    ('alpha must be a number strictly between 0 and 1, not 1.0', None)
    """
    number = isinstance(share, float | int | np.floating | np.integer)
    if isinstance(share, bool) or not number or not 0 < share < 1:
        return f"{name} must be a number strictly between 0 and 1, not {share!r}"
    return None


def check_settings(
    n_resamples: int,
    level: float,
    seed: int,
    count_name: str = "number of resamples",
    least: int = 1,
) -> None:
    """Refuse, all at once, a number of resamples outside ``least`` to
    :data:`MAX_RESAMPLES`, a level outside (0, 1) and a seed that is no int >= 0.

    Examples
    --------
    >>> check_settings(0, 0.95, 0, least=0)
    >>> check_settings(0, 1.5, -1)
    Traceback (most recent call last):
    ...
    scorer.errors.HostVisibleError: Invalid statistics settings: the number of resamples \
must be an int from 1 to 10,000,000, not 0; the level must be a number strictly between \
0 and 1, not 1.5; the seed must be an int >= 0, not -1.
    """
    problems = [
        resamples_problem(n_resamples, f"the {count_name}", least),
        share_problem(level, "the level"),
        seed_problem(seed, "the seed"),
    ]
    found = [problem for problem in problems if problem is not None]
    if found:
        raise HostVisibleError("Invalid statistics settings: " + "; ".join(found) + ".")


def seeded_generator(seed: int | np.random.SeedSequence) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(seed))
