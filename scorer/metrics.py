"""Pure MAP@K maths on plain numpy arrays: no DataFrames, no column names, no I/O.

A ranking is a row of a ``users x width`` matrix of integer item codes, best first,
padded with ``-1``. Every function here is vectorised over users; loops run over
the (small) width only, in a fixed order, so each user's value is bit-identical
wherever the user sits in the matrix.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

PAD = -1
_PAIRWISE_MAX_WIDTH = 32


def first_occurrence(codes: np.ndarray) -> np.ndarray:
    """Mark the first occurrence of each item in each row; padding is never marked.

    Parameters
    ----------
    codes : ndarray of int, shape (n_users, width)
        Item codes, ``-1`` for an empty slot.

    Returns
    -------
    ndarray of bool, shape (n_users, width)

    Examples
    --------
    >>> first_occurrence(np.array([[3, 3, 5, -1], [1, 2, 1, 2]]))
    array([[ True, False,  True, False],
           [ True,  True, False, False]])
    """
    codes = np.asarray(codes)
    if codes.shape[1] <= _PAIRWISE_MAX_WIDTH:
        # Compare rank columns, each contiguous (3x faster than strided columns): a
        # transposed copy unless the matrix is stored rank-major already; the result
        # is stored rank-major too.
        columns = np.ascontiguousarray(codes.T)
        first = columns != PAD
        for later in range(1, len(columns)):
            for earlier in range(later):
                first[later] &= columns[later] != columns[earlier]
        return first.T
    order = np.argsort(codes, axis=1, kind="stable")
    ordered = np.take_along_axis(codes, order, axis=1)
    repeated_sorted = np.zeros(codes.shape, dtype=bool)
    repeated_sorted[:, 1:] = ordered[:, 1:] == ordered[:, :-1]
    first = np.empty(codes.shape, dtype=bool)
    np.put_along_axis(first, order, ~repeated_sorted, axis=1)
    return first & (codes != PAD)


# Up to this width, every AP@K is an int64 fraction over lcm(1..width) * denominator
# (lcm(1..20) = 232,792,560), and a sum of 10^9 numerators still fits in int64.
EXACT_MAX_WIDTH = 20


@dataclass(frozen=True)
class AveragePrecision:
    """AP@K of every user as a fraction ``numerator / denominator`` (0 when 0/0).

    For rankings at most :data:`EXACT_MAX_WIDTH` wide both parts are exact integers,
    so :meth:`values` and :meth:`mean` are the correctly rounded floats of the exact
    rationals. Wider rankings fall back to float numerators and a correctly rounded
    sum of the per-user floats.

    Attributes
    ----------
    numerator : ndarray of int64 (float64 when wider than EXACT_MAX_WIDTH)
    denominator : ndarray of int64
    hits : ndarray of int64
        Credited hits per user.
    scale : int
        Every denominator is a multiple of it (lcm(1..width) when exact).
    """

    numerator: np.ndarray
    denominator: np.ndarray
    hits: np.ndarray
    scale: int = 1

    @property
    def exact(self) -> bool:
        """Whether numerators are exact integers."""
        return self.numerator.dtype.kind == "i"

    def values(self) -> np.ndarray:
        """Each user's AP@K as float64.

        Examples
        --------
        >>> rel = np.array([[0, 1, 0, 0, 1, 0, 1, 0, 1, 0]], dtype=bool)
        >>> average_precision(rel, np.array([4]), k=10).values()  # 1117/2520
        array([0.44325397])
        """
        safe = np.maximum(self.denominator, 1)
        return np.where(self.denominator > 0, self.numerator / safe, 0.0)

    def mean(self, mask: np.ndarray | None = None) -> float:
        """MAP over the users where ``mask`` holds, independent of their order.

        Examples
        --------
        >>> rel = np.array([[1, 1, 0, 0, 1, 0, 0], [0, 1, 1, 0, 0, 1, 1]], dtype=bool)
        >>> ap = average_precision(rel, np.array([3, 4]), k=7)
        >>> ap.mean() == 599 / 840  # (13/15 + 47/84) / 2, correctly rounded
        True
        """
        chosen = np.ones(len(self.denominator), dtype=bool) if mask is None else mask
        count = int(np.count_nonzero(chosen))
        if count == 0:
            raise ValueError("the mean of no value is undefined")
        if not self.exact:
            return math.fsum(self.values()[chosen].tolist()) / count
        sums = _sums_by_denominator(self.numerator[chosen], self.denominator[chosen], self.scale)
        total = sum((Fraction(s, d) for d, s in sums.items() if d > 0), Fraction(0))
        return float(total / count)


def _sums_by_denominator(
    numerator: np.ndarray, denominator: np.ndarray, scale: int
) -> dict[int, int]:
    """The exact sum of the int64 numerators sharing each denominator.

    Denominators are few distinct multiples of ``scale``, so the sums are counted
    with ``bincount`` over ``denominator // scale``: exact, because each numerator is
    split into two 20-bit halves whose float64 sums stay below 2**53. A sort groups
    them otherwise.

    Examples
    --------
    >>> _sums_by_denominator(np.array([1, 2, 3, 2**39]), np.array([6, 0, 6, 12]), 6)
    {0: 2, 6: 4, 12: 549755813888}
    """
    groups = denominator // scale
    small = len(numerator) < 2**32 and int(groups.max(initial=0)) <= 4 * len(groups) + 1024
    if small and int(numerator.min(initial=0)) >= 0 and int(numerator.max(initial=0)) < 2**40:
        low = np.bincount(groups, weights=numerator & (2**20 - 1))
        high = np.bincount(groups, weights=numerator >> 20)
        present = np.flatnonzero(np.bincount(groups))
        return {int(g) * scale: int(low[g]) + (int(high[g]) << 20) for g in present.tolist()}
    order = np.argsort(denominator, kind="stable")
    ordered = denominator[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    sums = np.add.reduceat(numerator[order], starts) if len(starts) else []
    return {int(d): int(s) for d, s in zip(ordered[starts], sums, strict=True)}


def average_precision(
    relevance: np.ndarray, n_relevant: np.ndarray, k: int, normalization: str = "min_k"
) -> AveragePrecision:
    """AP@K of every user from a matrix of binary relevance.

    Parameters
    ----------
    relevance : ndarray of bool, shape (n_users, width)
        ``rel(i)`` of SPEC §1.1: a hit that is the first occurrence of its item.
        ``width`` must be at most ``k``.
    n_relevant : ndarray of int, shape (n_users,)
        ``|R_u|``, the number of unique relevant items.
    k : int
        The cut-off.
    normalization : {"min_k", "relevant", "hits"}
        Denominator: ``min(|R|, k)``, ``|R|`` or the number of hits. A user whose
        denominator is 0 scores 0.

    Returns
    -------
    AveragePrecision

    Examples
    --------
    >>> rel = np.array([[1, 0, 1]], dtype=bool)  # sum of P(i) rel(i) = 1 + 2/3
    >>> [average_precision(rel, np.array([5]), 3, n).values()[0].item() for n in
    ...  ("min_k", "relevant", "hits")]  # 5/9, 1/3, 5/6
    [0.5555555555555556, 0.3333333333333333, 0.8333333333333334]
    """
    relevance = np.asarray(relevance, dtype=bool)
    n_users, width = relevance.shape
    if width > k:
        raise ValueError(f"relevance has {width} columns, more than k={k}")
    exact = width <= EXACT_MAX_WIDTH
    scale = math.lcm(*range(1, width + 1)) if exact else 1
    numerator = np.zeros(n_users, dtype=np.int64 if exact else np.float64)
    hits = np.zeros(n_users, dtype=np.int64)
    for rank in range(width):
        column = relevance[:, rank]
        hits += column
        # P(i) = hits / i (scaled to an integer when exact), added where rel(i) = 1:
        # for the few users with a hit at this rank only.
        credited = np.flatnonzero(column)
        precision = hits[credited] * (scale // (rank + 1)) if exact else hits[credited] / (rank + 1)
        numerator[credited] += precision
    denominator = _denominator(n_relevant, hits, k, normalization)
    return AveragePrecision(numerator, denominator * scale, hits, scale)


def sparse_average_precision(
    users: np.ndarray,
    ranks: np.ndarray,
    n_relevant: np.ndarray,
    k: int,
    normalization: str = "min_k",
) -> AveragePrecision:
    """:func:`average_precision` of rankings wider than :data:`EXACT_MAX_WIDTH`, from
    the credited predictions alone (no ``users x width`` matrix).

    Bit for bit the float path of :func:`average_precision`: each user's precisions
    are added one by one in rank order (``np.add.at`` adds in index order).

    Parameters
    ----------
    users, ranks : ndarray of int64
        The user and the 0-based rank of every credited prediction (``rel(i) = 1``),
        each user's in rank order.
    n_relevant : ndarray of int, shape (n_users,)
        ``|R_u|``.
    k : int
        The cut-off (every rank below it).
    normalization : {"min_k", "relevant", "hits"}
        As in :func:`average_precision`.

    Examples
    --------
    >>> rel = np.zeros((2, 30), dtype=bool)
    >>> rel[0, [0, 2, 29]] = rel[1, 5] = True
    >>> users, ranks = np.nonzero(rel)
    >>> sparse = sparse_average_precision(users, ranks, np.array([4, 2]), 30)
    >>> dense = average_precision(rel, np.array([4, 2]), 30)
    >>> bool((sparse.values() == dense.values()).all()), sparse.hits.tolist()
    (True, [3, 1])
    """
    n_users = len(n_relevant)
    by_user = np.argsort(users, kind="stable")  # keeps each user's ranks in order
    users, ranks = users[by_user], ranks[by_user]
    hits = np.bincount(users, minlength=n_users).astype(np.int64)
    group_start = np.cumsum(hits) - hits
    hit_number = np.arange(1, len(users) + 1, dtype=np.int64) - group_start[users]
    numerator = np.zeros(n_users, dtype=np.float64)
    np.add.at(numerator, users, hit_number / (ranks + 1))
    return AveragePrecision(numerator, _denominator(n_relevant, hits, k, normalization), hits, 1)


def _denominator(
    n_relevant: np.ndarray, hits: np.ndarray, k: int, normalization: str
) -> np.ndarray:
    """AP's denominator of every user, before scaling."""
    n_relevant = np.asarray(n_relevant, dtype=np.int64)
    if normalization == "min_k":
        # A k past int64 (a host may choose any) caps nothing an int64 count can reach.
        return np.minimum(n_relevant, min(k, _INT64_MAX))
    if normalization == "relevant":
        return n_relevant.copy()
    if normalization == "hits":
        return hits.copy()
    raise ValueError(f"unknown normalization {normalization!r}")


_INT64_MAX = int(np.iinfo(np.int64).max)
