"""Measures of binary relevance: one small pure function per family.

Each takes the shared :class:`~scorer.measures.arrays.Judgements`, its cut-off and
its parameters, and returns the per-user values as exact fractions
(:class:`~scorer.metrics.Ratios`), so every mean is the correctly rounded float of
the exact rational mean.
"""

from __future__ import annotations

import numpy as np

from scorer.measures.arrays import Judgements
from scorer.metrics import AveragePrecision, Ratios, average_precision


def mean_average_precision(j: Judgements, cutoff: int, norm: str = "min_k") -> AveragePrecision:
    """AP@K (SPEC §1.1) with denominator ``min(|R|, K)``, ``|R|`` or the hits.

    Examples
    --------
    >>> j = Judgements(np.array([[1, 0, 1, 1, 0, 1, 0, 0]], bool), np.array([4]), k=8)
    >>> mean_average_precision(j, 4).exact_mean(), mean_average_precision(j, 8).exact_mean()
    (Fraction(29, 48), Fraction(37, 48))
    """
    return average_precision(j.hits_at(cutoff), j.n_relevant, cutoff, norm)


def precision(j: Judgements, cutoff: int) -> Ratios:
    """hits / K: a short row still divides by K (trec_eval's ``P_K``).

    Examples
    --------
    >>> j = Judgements(np.array([[1, 0, 1, 1, 0, 1, 0, 0]], bool), np.array([4]), k=8)
    >>> precision(j, 4).exact_mean(), precision(j, 8).exact_mean()
    (Fraction(3, 4), Fraction(1, 2))
    """
    return Ratios(j.n_hits(cutoff), np.full(j.n_users, cutoff, dtype=np.int64), cutoff)


def recall(j: Judgements, cutoff: int, norm: str = "relevant") -> Ratios:
    """hits / ``|R|`` (trec_eval's ``recall_K``), or hits / ``min(|R|, K)`` (OTTO).

    Examples
    --------
    >>> j = Judgements(np.array([[1, 0, 1, 1, 0, 1, 0, 0]], bool), np.array([4]), k=8)
    >>> recall(j, 2).exact_mean(), recall(j, 2, "min_k").exact_mean()
    (Fraction(1, 4), Fraction(1, 2))
    """
    n_relevant = j.n_relevant if norm == "relevant" else np.minimum(j.n_relevant, cutoff)
    return Ratios(j.n_hits(cutoff), n_relevant)


def f1(j: Judgements, cutoff: int) -> Ratios:
    """2·P·R / (P + R) = 2·hits / (K + ``|R|``), 0 without a hit.

    Examples
    --------
    >>> j = Judgements(np.array([[1, 0, 1, 1, 0, 1, 0, 0]], bool), np.array([4]), k=8)
    >>> f1(j, 4).exact_mean(), f1(j, 8).exact_mean()  # 2·3/8, 2·4/12
    (Fraction(3, 4), Fraction(2, 3))
    """
    return Ratios(2 * j.n_hits(cutoff), cutoff + j.n_relevant)


def reciprocal_rank(j: Judgements, cutoff: int) -> Ratios:
    """1 / the rank of the first hit within K, 0 without one.

    Examples
    --------
    >>> j = Judgements(np.array([[1, 0, 0], [0, 0, 1], [0, 0, 0]], bool), np.ones(3, int), k=3)
    >>> reciprocal_rank(j, 3).exact_mean(), reciprocal_rank(j, 2).exact_mean()
    (Fraction(4, 9), Fraction(1, 3))
    """
    hits = j.hits_at(cutoff)
    first = np.ones(j.n_users, dtype=np.int64)
    for rank in range(hits.shape[1] - 1, -1, -1):  # ranks only: the last write wins
        first[hits[:, rank]] = rank + 1
    return Ratios((j.n_hits(cutoff) > 0).astype(np.int64), first)


def hit_rate(j: Judgements, cutoff: int) -> Ratios:
    """1 when there is a hit within K, else 0.

    Examples
    --------
    >>> j = Judgements(np.array([[1, 0, 0], [0, 0, 1], [0, 0, 0]], bool), np.ones(3, int), k=3)
    >>> hit_rate(j, 2).exact_mean(), hit_rate(j, 3).exact_mean()
    (Fraction(1, 3), Fraction(2, 3))
    """
    return Ratios((j.n_hits(cutoff) > 0).astype(np.int64), np.ones(j.n_users, dtype=np.int64))


def r_precision(j: Judgements, cutoff: int) -> Ratios:
    """hits within the first ``|R|`` predictions / ``|R|`` (``cutoff`` is unused).

    Examples
    --------
    >>> j = Judgements(np.array([[1, 0, 1, 1, 0, 1, 0, 0]], bool), np.array([4]), k=8)
    >>> r_precision(j, 8).exact_mean()
    Fraction(3, 4)
    """
    return Ratios(j.n_hits_within(j.n_relevant), j.n_relevant)
