"""Measures of binary relevance: one small pure function per family.

Each takes the shared :class:`~scorer.align.judgements.Judgements`, its cut-off and
its parameters, and returns the per-user values as exact fractions
(:class:`~scorer.measures.exact_means.Ratios`), so every mean is the correctly rounded float of
the exact rational mean.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from scorer.align.judgements import Judgements
from scorer.measures.average_precision import (
    EXACT_MAX_WIDTH,
    AveragePrecision,
    hits_average_precision,
)
from scorer.measures.exact_means import INT64_MAX, Ratios


def mean_average_precision(j: Judgements, cutoff: int, norm: str = "min_k") -> AveragePrecision:
    """AP@K (docs/getting-started.md#what-it-computes) with denominator ``min(|R|, K)``, ``|R|`` or
    the hits.

    Examples
    --------
    >>> j = Judgements(np.array([[1, 0, 1, 1, 0, 1, 0, 0]], bool), np.array([4]), k=8)
    >>> mean_average_precision(j, 4).exact_mean(), mean_average_precision(j, 8).exact_mean()
    (Fraction(29, 48), Fraction(37, 48))
    """
    users, ranks = j.hit_entries(cutoff)
    return hits_average_precision(users, ranks, j.n_relevant, cutoff, norm, min(cutoff, j.width))


def _exact_sum(
    numerator: np.ndarray, counts: np.ndarray, cutoff: int
) -> tuple[np.ndarray, np.ndarray]:
    """``numerator`` and ``counts + cutoff``: Python ints (object arrays) when a cut-off
    is past int64 (a host may pass any ``k``), int64 otherwise.

    Examples
    --------
    >>> _exact_sum(np.array([1]), np.array([2]), 2**64)[1].tolist()
    [18446744073709551618]
    """
    if cutoff + int(counts.max(initial=0)) <= INT64_MAX:
        return numerator, counts + cutoff
    return numerator.astype(object), counts.astype(object) + cutoff


def precision(j: Judgements, cutoff: int) -> Ratios:
    """hits / K: a short row still divides by K (trec_eval's ``P_K``).

    Examples
    --------
    >>> j = Judgements(np.array([[1, 0, 1, 1, 0, 1, 0, 0]], bool), np.array([4]), k=8)
    >>> precision(j, 4).exact_mean(), precision(j, 8).exact_mean()
    (Fraction(3, 4), Fraction(1, 2))
    """
    hits, cutoffs = _exact_sum(j.n_hits(cutoff), np.zeros(j.n_users, dtype=np.int64), cutoff)
    return Ratios(hits, cutoffs, cutoff)


def recall(j: Judgements, cutoff: int, norm: str = "relevant") -> Ratios:
    """hits / ``|R|`` (trec_eval's ``recall_K``), or hits / ``min(|R|, K)`` (OTTO).

    Examples
    --------
    >>> j = Judgements(np.array([[1, 0, 1, 1, 0, 1, 0, 0]], bool), np.array([4]), k=8)
    >>> recall(j, 2).exact_mean(), recall(j, 2, "min_k").exact_mean()
    (Fraction(1, 4), Fraction(1, 2))
    """
    n_relevant = j.n_relevant
    if norm != "relevant":
        n_relevant = np.minimum(n_relevant, min(cutoff, INT64_MAX))
    return Ratios(j.n_hits(cutoff), n_relevant)


def f1(j: Judgements, cutoff: int) -> Ratios:
    """2·P·R / (P + R) = 2·hits / (K + ``|R|``), 0 without a hit.

    Examples
    --------
    >>> j = Judgements(np.array([[1, 0, 1, 1, 0, 1, 0, 0]], bool), np.array([4]), k=8)
    >>> f1(j, 4).exact_mean(), f1(j, 8).exact_mean()  # 2·3/8, 2·4/12
    (Fraction(3, 4), Fraction(2, 3))
    """
    return Ratios(*_exact_sum(2 * j.n_hits(cutoff), j.n_relevant, cutoff))


def reciprocal_rank(j: Judgements, cutoff: int, ranks: str = "first") -> Ratios:
    """1 / the rank of the first hit within K, 0 without one; with ``ranks="all"``,
    Σ 1 / rank over every hit within K, over |R| (MIND's and EB-NeRD's ``mrr_score``):
    exact up to K = 20, past it float64 added in rank order (as AP).

    Examples
    --------
    >>> j = Judgements(np.array([[1, 0, 0], [0, 0, 1], [0, 0, 0]], bool), np.ones(3, int), k=3)
    >>> reciprocal_rank(j, 3).exact_mean(), reciprocal_rank(j, 2).exact_mean()
    (Fraction(4, 9), Fraction(1, 3))
    >>> j = Judgements(np.array([[0, 1, 1]], bool), np.array([3]), k=3)
    >>> reciprocal_rank(j, 3, "all").exact_mean()  # (1/2 + 1/3) / 3
    Fraction(5, 18)
    """
    if ranks == "first":
        return Ratios((j.n_hits(cutoff) > 0).astype(np.int64), j.first_hit_rank(cutoff))
    users, places = j.hit_entries(cutoff)
    if cutoff > EXACT_MAX_WIDTH:
        total = np.zeros(j.n_users)
        np.add.at(total, users, 1.0 / (places + 1))
        return Ratios(total, j.n_relevant.astype(np.int64))
    scale = math.lcm(*range(1, min(cutoff, max(j.width, 1)) + 1))
    numerator = np.zeros(j.n_users, dtype=np.int64)
    np.add.at(numerator, users, scale // (places + 1))
    return Ratios(numerator, j.n_relevant * scale, scale)


def hit_rate(j: Judgements, cutoff: int) -> Ratios:
    """1 when there is a hit within K, else 0.

    Examples
    --------
    >>> j = Judgements(np.array([[1, 0, 0], [0, 0, 1], [0, 0, 0]], bool), np.ones(3, int), k=3)
    >>> hit_rate(j, 2).exact_mean(), hit_rate(j, 3).exact_mean()
    (Fraction(1, 3), Fraction(2, 3))
    """
    return Ratios((j.n_hits(cutoff) > 0).astype(np.int64), np.ones(j.n_users, dtype=np.int64))


def r_precision(j: Judgements, cutoff: int, mult: Fraction = Fraction(1)) -> Ratios:
    """hits within the first |R| predictions / |R| (``cutoff`` is unused); with ``mult``
    x, hits within the first c / c, c = x·|R| + 0.9 truncated in float64 (trec_eval's
    ``Rprec_mult``; x = 1 is ``Rprec``).

    Examples
    --------
    >>> j = Judgements(np.array([[1, 0, 1, 1, 0, 1, 0, 0]], bool), np.array([4]), k=8)
    >>> r_precision(j, 8).exact_mean(), r_precision(j, 8, Fraction(3, 2)).exact_mean()
    (Fraction(3, 4), Fraction(2, 3))
    """
    depth = j.n_relevant
    if mult != 1:
        depth = np.trunc(float(mult) * depth.astype(np.float64) + 0.9).astype(np.int64)
    return Ratios(j.n_hits_within(depth), depth)
