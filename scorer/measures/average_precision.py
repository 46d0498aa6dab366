"""AP@K of every user, exactly: integer numerators over lcm(1..width) times the denominator.

A ranking's credited predictions are read as (user, rank) entries, each user's in rank
order: whole-array passes over them, with no loop over users or ranks, and each user's
terms added in rank order, so a user's value is bit-identical wherever the user sits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from scorer.measures.exact_means import INT64_MAX, ExactMean

# Up to this cut-off, every AP@K is an int64 fraction over lcm(1..width) * denominator
# (lcm(1..20) = 232,792,560), and a sum of 10^9 numerators still fits in int64. Past it,
# AP is float64 per user. The switch reads K alone, never the data: a user's value must
# not depend on how wide the other users' rows are (nor on which rows share a part).
EXACT_MAX_WIDTH = 20


@dataclass(frozen=True)
class AveragePrecision(ExactMean):
    """AP@K of every user as a fraction ``numerator / denominator`` (0 when 0/0).

    For a cut-off K of at most :data:`EXACT_MAX_WIDTH` both parts are exact integers,
    so :meth:`values` and :meth:`mean` are the correctly rounded floats of the exact
    rationals. A larger K falls back to float numerators (whatever the rows' widths)
    and a correctly rounded sum of the per-user floats.

    Attributes
    ----------
    numerator : ndarray of int64 (float64 when K is over EXACT_MAX_WIDTH)
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


def average_precision(
    relevance: np.ndarray, n_relevant: np.ndarray, k: int, normalization: str = "min_k"
) -> AveragePrecision:
    """AP@K of every user from a matrix of binary relevance: :func:`hits_average_precision`
    of its credited cells.

    Parameters
    ----------
    relevance : ndarray of bool, shape (n_users, width)
        ``rel(i)`` of the definition (docs/getting-started.md#what-it-computes): a hit that is
        the first occurrence of its item.
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
    width = relevance.shape[1]
    if width > k:
        raise ValueError(f"relevance has {width} columns, more than k={k}")
    users, ranks = np.nonzero(relevance)  # row-major: each user's in rank order
    return hits_average_precision(users, ranks, n_relevant, k, normalization, width)


def hits_average_precision(
    users: np.ndarray,
    ranks: np.ndarray,
    n_relevant: np.ndarray,
    k: int,
    normalization: str = "min_k",
    width: int | None = None,
) -> AveragePrecision:
    """AP@K of every user from its credited predictions alone, in whole-array passes
    (no loop over ranks or users, however wide the rankings).

    A cut-off K of at most :data:`EXACT_MAX_WIDTH` gives exact integer fractions over
    lcm(1..width); a larger one float numerators, each user's precisions added one by
    one in rank order (``np.add.at`` adds in index order), so that a user's value
    never depends on the other users.

    Parameters
    ----------
    users, ranks : ndarray of int
        The user and the 0-based rank of every credited prediction (``rel(i) = 1``),
        each user's in rank order.
    n_relevant : ndarray of int, shape (n_users,)
        ``|R_u|``.
    k : int
        The cut-off (every rank below it).
    normalization : {"min_k", "relevant", "hits"}
        As in :func:`average_precision`.
    width : int, optional
        The rankings' width (by default ``k``): the exact fractions' scale is
        lcm(1..width).

    Examples
    --------
    >>> users, ranks = np.array([0, 0, 0, 1]), np.array([0, 2, 29, 5])
    >>> ap = hits_average_precision(users, ranks, np.array([4, 2]), 30)
    >>> ap.values().tolist(), ap.hits.tolist()  # (1 + 2/3 + 3/30) / 4 and (1/6) / 2
    ([0.44166666666666665, 0.08333333333333333], [3, 1])
    >>> kept = ranks < 3  # AP@3: the entries within the cut-off
    >>> hits_average_precision(users[kept], ranks[kept], np.array([4, 2]), 3).exact_mean()
    Fraction(5, 18)
    """
    n_users = len(n_relevant)
    users = np.asarray(users, dtype=np.int64)
    ranks = np.asarray(ranks, dtype=np.int64)
    by_user = np.argsort(users, kind="stable")  # keeps each user's ranks in order
    users, ranks = users[by_user], ranks[by_user]
    hits = np.bincount(users, minlength=n_users).astype(np.int64)
    group_start = np.cumsum(hits) - hits
    hit_number = np.arange(1, len(users) + 1, dtype=np.int64) - group_start[users]
    denominator = _denominator(n_relevant, hits, k, normalization)
    if k <= EXACT_MAX_WIDTH:
        scale = math.lcm(*range(1, (k if width is None else width) + 1))
        exact = np.zeros(n_users, dtype=np.int64)
        np.add.at(exact, users, hit_number * (scale // (ranks + 1)))
        return AveragePrecision(exact, denominator * scale, hits, scale)
    numerator = np.zeros(n_users, dtype=np.float64)
    np.add.at(numerator, users, hit_number / (ranks + 1))
    return AveragePrecision(numerator, denominator, hits, 1)


def _denominator(
    n_relevant: np.ndarray, hits: np.ndarray, k: int, normalization: str
) -> np.ndarray:
    """AP's denominator of every user, before scaling."""
    n_relevant = np.asarray(n_relevant, dtype=np.int64)
    if normalization == "min_k":
        # A k past int64 (a host may choose any) caps nothing an int64 count can reach.
        return np.minimum(n_relevant, min(k, INT64_MAX))
    if normalization == "relevant":
        return n_relevant.copy()
    if normalization == "hits":
        return hits.copy()
    raise ValueError(f"unknown normalization {normalization!r}")
