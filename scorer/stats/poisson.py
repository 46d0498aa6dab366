"""The Poisson bootstrap of a run scored in parts: weights that any part can draw alone.

Each (row id, replicate) pair gets a weight drawn from Poisson(1) by a counter-based
hash: the splitmix64 finaliser of the row id's fixed 64-bit fingerprint mixed with the
seed and the replicate's number, its top 53 bits compared with the integer thresholds
of Poisson(1)'s distribution function. No generator state is carried from row to row,
so a row's weights are the same in whichever part it is scored, and a part's weighted
sums are exact integers (:class:`ReplicateSums`) that add up to the whole run's in any
order. The bootstrap statistic of a replicate is the weighted mean Σ w·x / Σ w, divided
once, correctly rounded. Vectorised over rows x replicates in bounded blocks: no Python
loop over rows or replicates (the loops are over blocks and over the binary exponents
of the values, at most 2,100).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import factorial

import numpy as np

#: Draws held at once: rows x replicates of a block.
_BLOCK_ELEMENTS = 2**21
#: The float64 mantissa split in two so that a block's weighted sums stay in int64.
_LOW_BITS = 26
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _poisson_thresholds() -> np.ndarray:
    """``floor(2**53 * P(X <= k))`` for X ~ Poisson(1), k = 0, 1, ... while below 2**53,
    from exact rationals (e⁻¹ by its series to 1e-48): the same on every machine."""
    inverse_e = sum((Fraction((-1) ** n, factorial(n)) for n in range(40)), Fraction(0))
    thresholds, cdf = [], Fraction(0)
    for k in range(40):
        cdf += inverse_e / factorial(k)
        threshold = int(cdf * 2**53)
        if threshold >= 2**53:
            break
        thresholds.append(threshold)
    return np.array(thresholds, dtype=np.uint64)


_THRESHOLDS = _poisson_thresholds()


def mix(z: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: every input bit moves about half the output bits.

    Examples
    --------
    >>> int(mix(np.array([1], dtype=np.uint64))[0]) == int(mix(np.array([2], np.uint64))[0])
    False
    """
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def poisson_weights(prints: np.ndarray, seed: int, start: int, stop: int) -> np.ndarray:
    """The Poisson(1) weights of rows (their fingerprints ``prints``) in replicates
    ``start .. stop - 1``: shape ``(len(prints), stop - start)``, uint8.

    Examples
    --------
    >>> prints = np.arange(20_000, dtype=np.uint64)
    >>> weights = poisson_weights(prints, 0, 0, 50)
    >>> bool(abs(weights.mean() - 1) < 0.01), bool(abs(weights.var() - 1) < 0.02)
    (True, True)
    >>> bool((poisson_weights(prints[5:9], 0, 10, 12) == weights[5:9, 10:12]).all())
    True
    """
    with np.errstate(over="ignore"):
        key = mix(np.array([seed % 2**64], dtype=np.uint64) ^ _GOLDEN)
        counters = mix(key ^ (np.arange(start, stop, dtype=np.uint64) * _GOLDEN))
        hashed = mix(prints.astype(np.uint64)[:, None] ^ counters[None, :])
    drawn = np.searchsorted(_THRESHOLDS, hashed >> np.uint64(11), side="right")
    return drawn.astype(np.uint8)


@dataclass(frozen=True, eq=False)
class ReplicateSums:
    """Per group and replicate, an exact weighted sum ``sums[g, r] * 2**exponent``.

    Attributes
    ----------
    exponent : int
    sums : ndarray of Python int (dtype object), shape (n_groups, n_replicates)

    Sums of several parts add exactly (:meth:`plus`), in any order.

    Examples
    --------
    >>> a = ReplicateSums(-1, np.array([[1, 2]], dtype=object))   # 0.5, 1
    >>> b = ReplicateSums(0, np.array([[1, 0]], dtype=object))    # 1, 0
    >>> a.plus(b).sums.tolist(), a.plus(b).exponent
    ([[3, 2]], -1)
    """

    exponent: int
    sums: np.ndarray

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, ReplicateSums)
            and self.exponent == other.exponent
            and self.sums.shape == other.sums.shape
            and self.sums.tolist() == other.sums.tolist()
        )

    __hash__ = None  # type: ignore[assignment]

    def plus(self, other: ReplicateSums) -> ReplicateSums:
        """Both parts' sums."""
        exponent = min(self.exponent, other.exponent)
        mine = self.sums * (1 << (self.exponent - exponent))
        theirs = other.sums * (1 << (other.exponent - exponent))
        return ReplicateSums(exponent, mine + theirs)

    def total(self, groups: list[int]) -> ReplicateSums:
        """The sums of some groups added, as one group."""
        return ReplicateSums(self.exponent, self.sums[groups].sum(axis=0, keepdims=True))

    def to_json(self) -> dict:
        return {
            "exponent": self.exponent,
            "sums": [[format(int(v), "x") for v in g] for g in self.sums],
        }


def weighted_sums(
    columns: list[np.ndarray],
    groups: np.ndarray,
    n_groups: int,
    prints: np.ndarray,
    seed: int,
    n_replicates: int,
) -> tuple[ReplicateSums, list[ReplicateSums]]:
    """Per group and replicate: Σ w (the weighted row count) and, for each column of
    float64 values, Σ w·x exactly.

    Parameters
    ----------
    columns : list of ndarray of float64
        Per-row values (finite); rows whose group is ``n_groups`` or more are left out.
    groups : ndarray of int
        Each row's group.
    prints : ndarray of uint64
        Each row's fingerprint, which with ``seed`` sets its weights.

    Examples
    --------
    >>> prints = np.array([7, 8, 9], dtype=np.uint64)
    >>> counts, (sums,) = weighted_sums([np.array([0.5, 0.25, 1.0])], np.array([0, 0, 1]),
    ...                                 1, prints, 0, 4)
    >>> w = poisson_weights(prints, 0, 0, 4).astype(int)
    >>> [s * 2**counts.exponent for s in counts.sums[0]] == (w[0] + w[1]).tolist()
    True
    >>> [Fraction(s) * 2**sums.exponent for s in sums.sums[0]] == [
    ...     Fraction(a, 2) + Fraction(b, 4) for a, b in zip(w[0], w[1])]
    True
    """
    kept = groups < n_groups
    groups, prints = groups[kept], prints[kept]
    columns = [np.asarray(c, dtype=np.float64)[kept] for c in columns]
    ones = np.ones(len(groups), dtype=np.float64)
    found = [
        _column_sums(c, groups, n_groups, prints, seed, n_replicates) for c in [ones, *columns]
    ]
    return found[0], found[1:]


def _column_sums(
    values: np.ndarray,
    groups: np.ndarray,
    n_groups: int,
    prints: np.ndarray,
    seed: int,
    n_replicates: int,
) -> ReplicateSums:
    """Σ w·x per group and replicate, exactly: each float64 ``x = m · 2**e`` (``m`` an
    integer below 2**53) is split as ``m = high · 2**26 + low``; per (group, exponent)
    the weighted highs and lows are int64 sums (exact below 2**31 rows), combined once
    as Python integers at the smallest exponent."""
    mantissas, exponents = np.frexp(values)
    integers = (mantissas * 2.0**53).astype(np.int64)
    exponents = exponents.astype(np.int64) - 53
    nonzero = integers != 0
    integers, exponents = integers[nonzero], exponents[nonzero]
    groups, prints = groups[nonzero], prints[nonzero]
    smallest = int(exponents.min()) if len(exponents) else 0
    sums = np.zeros((n_groups, n_replicates), dtype=object)
    if not len(integers):
        return ReplicateSums(0, sums)
    distinct, key = np.unique(exponents, return_inverse=True)
    cell = groups.astype(np.int64) * len(distinct) + key
    order = np.argsort(cell, kind="stable")
    cell, prints = cell[order], prints[order]
    high = integers[order] >> _LOW_BITS
    low = integers[order] & ((1 << _LOW_BITS) - 1)
    cells, starts = np.unique(cell, return_index=True)
    n_rows = len(cell)
    rows_per_block = max(1, _BLOCK_ELEMENTS // max(1, n_replicates))
    width = max(1, min(n_replicates, _BLOCK_ELEMENTS // max(1, min(n_rows, rows_per_block))))
    for first in range(0, n_replicates, width):
        last = min(n_replicates, first + width)
        highs = np.zeros((len(cells), last - first), dtype=np.int64)
        lows = np.zeros_like(highs)
        for begin in range(0, n_rows, rows_per_block):
            end = min(n_rows, begin + rows_per_block)
            weights = poisson_weights(prints[begin:end], seed, first, last).astype(np.int64)
            inside = np.searchsorted(starts, begin, side="right") - 1
            bounds = np.r_[begin, starts[(starts > begin) & (starts < end)]]
            index = np.arange(inside, inside + len(bounds))
            highs[index] += np.add.reduceat(high[begin:end, None] * weights, bounds - begin)
            lows[index] += np.add.reduceat(low[begin:end, None] * weights, bounds - begin)
        for c, found in enumerate(cells.tolist()):  # at most groups x 2,100 exponents
            group, exponent = divmod(found, len(distinct))
            shift = int(distinct[exponent]) - smallest
            combined = (highs[c].astype(object) << (shift + _LOW_BITS)) + (
                lows[c].astype(object) << shift
            )
            sums[group, first:last] += combined
    return ReplicateSums(smallest, sums)


def ratios(numerators: ReplicateSums, denominators: ReplicateSums, empty: float) -> np.ndarray:
    """Each replicate's numerator over its denominator, correctly rounded (Python's
    integer division); ``empty`` where the denominator is 0. One group each."""
    shift = numerators.exponent - denominators.exponent
    tops, bottoms = numerators.sums[0], denominators.sums[0]
    if shift >= 0:
        tops = tops * (1 << shift)
    else:
        bottoms = bottoms * (1 << -shift)
    divide = np.frompyfunc(lambda top, bottom: top / bottom if bottom else empty, 2, 1)
    return divide(tops, bottoms).astype(np.float64)
