"""trec_eval's measures that the older families do not cover: one small pure function
each, read from trec_eval 10's source (``m_*.c``) and computed per user over flat
entries (:mod:`scorer.measures.ranked`), never looping over users or ranks.

Rational measures return their exact parts (:class:`Ratios`); the others are float64
with trec_eval's own operations in its order (each user's terms added one by one in
rank order). A ranking is read whole: these measures take no cut-off. As in trec_eval,
``|R|`` counts the items whose grade reaches the relevance threshold, and the gains of
the graded measures are the grades themselves, whatever the threshold.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from scorer.align.judgements import Judgements, NonRelevant
from scorer.measures.exact_means import INT64_MAX, Floats, Ratios
from scorer.measures.ranked import (
    count_before,
    non_relevant_entries,
    ordinals,
    per_user_sum,
    powers,
    retrieved,
    running_sums,
    unjudged_entries,
    within_users,
)
from scorer.options import WHOLE_ROW

#: trec_eval's ``INFAP_EPSILON``.
INFAP_EPSILON = 0.00001
#: trec_eval's recall levels of ``iprec_at_recall`` and ``11pt_avg``.
RECALL_LEVELS = tuple(Fraction(n, 10) for n in range(11))

_OBJECT_LCM = np.frompyfunc(math.lcm, 2, 1)


def _ones(n: int) -> np.ndarray:
    return np.ones(n, dtype=np.int64)


def bpref(j: Judgements, cutoff: int) -> Ratios:
    """Each relevant item ranked scores 1 - min(n, |R|) / min(N, |R|), n the judged
    non-relevant items ranked above it and N all the user's judged non-relevant items
    (1 while n = 0); the sum over |R|. As integers over min(N, |R|)·|R|.

    Examples
    --------
    >>> from scorer.align.judgements import NonRelevant
    >>> non_relevant = NonRelevant(np.array([0]), np.array([1]), np.array([2]))
    >>> j = Judgements(np.array([[1, 0, 1]], bool), np.array([3]), k=3, non_relevant=non_relevant)
    >>> bpref(j, 3).exact_mean()  # (1 + (1 - 1/2)) / 3
    Fraction(1, 2)
    """
    users, ranks = j.hit_entries(j.width)
    judged_users, judged_ranks, n_judged = non_relevant_entries(j)
    above = count_before(users, ranks, judged_users, judged_ranks)
    scale = np.maximum(np.minimum(n_judged, j.n_relevant), 1)
    terms = scale[users] - np.minimum(above, j.n_relevant[users])
    numerator = np.bincount(users, weights=terms, minlength=j.n_users).astype(np.int64)
    return Ratios(numerator, scale * j.n_relevant)


def inferred_average_precision(j: Judgements, cutoff: int) -> Floats:
    """infAP (Yilmaz and Aslam), in trec_eval's operations: each relevant item ranked
    at 0-based rank i > 0 adds 1/(i+1) + (i/(i+1))·((r-1+n+u)/i)·((r-1+ε)/(r-1+n+2ε)),
    r its place among the hits, n the judged non-relevant items above it, u the items
    above it in the pool but not judged (qrels' -1), ε = 0.00001 (the item at rank 0
    adds 1); the sum over |R|.

    Examples
    --------
    >>> from scorer.align.judgements import NonRelevant
    >>> non_relevant = NonRelevant(np.array([0]), np.array([0]), np.array([1]))
    >>> j = Judgements(np.array([[0, 1]], bool), np.array([1]), k=2, non_relevant=non_relevant)
    >>> round(float(inferred_average_precision(j, 2).mean()), 6)  # 1/2 + 1/2·1·ε/(1+2ε)
    0.500005
    """
    users, ranks = j.hit_entries(j.width)
    judged_users, judged_ranks, _ = non_relevant_entries(j)
    above = count_before(users, ranks, judged_users, judged_ranks).astype(np.float64)
    pool = j.pool if j.pool is not None else NonRelevant(*(np.zeros(0, np.int64),) * 3)
    pooled = count_before(users, ranks, pool.users, pool.ranks).astype(np.float64)
    before = (ordinals(users) - 1).astype(np.float64)
    rank = ranks.astype(np.float64)
    safe = np.maximum(rank, 1.0)
    terms = 1.0 / (rank + 1.0) + (rank / (rank + 1.0)) * ((before + above + pooled) / safe) * (
        (before + INFAP_EPSILON) / (before + above + 2 * INFAP_EPSILON)
    )
    terms = np.where(ranks == 0, 1.0, terms)
    total = per_user_sum(terms, users, j.n_users)
    return Floats(np.where(j.n_relevant > 0, total / np.maximum(j.n_relevant, 1), total))


def _lround(values: np.ndarray) -> np.ndarray:
    """C's ``lround`` of non-negative float64 values: halves away from zero."""
    whole = np.floor(values)
    return (whole + (values - whole >= 0.5)).astype(np.int64)


def _interpolated(j: Judgements, recall: Fraction) -> tuple[np.ndarray, np.ndarray]:
    """Interpolated precision at a recall level, as trec_eval 10 finds it: the level
    times |R| rounded half away from zero (in float64) is a number c of relevant items;
    the value is the best precision m / rank over the hits from the max(c, 1)-th on, 0
    when fewer than c were retrieved. As a numerator and a denominator per user."""
    users, ranks = j.hit_entries(j.width)
    needed = _lround(float(recall) * j.n_relevant.astype(np.float64))
    place = ordinals(users)
    precision = place / (ranks + 1.0)
    counted = place >= np.maximum(needed[users], 1)
    best = np.full(j.n_users, -1.0)
    np.maximum.at(best, users[counted], precision[counted])
    winner = counted & (precision == best[users])
    first = np.full(j.n_users, len(users))
    np.minimum.at(first, users[winner], np.flatnonzero(winner))
    numerator, denominator = np.zeros(j.n_users, dtype=np.int64), _ones(j.n_users)
    found = (first < len(users)) & (needed <= j.n_hits(WHOLE_ROW))
    numerator[found] = place[first[found]]
    denominator[found] = ranks[first[found]] + 1
    return numerator, denominator


def interpolated_precision(j: Judgements, cutoff: int, recall: Fraction = Fraction(0)) -> Ratios:
    """trec_eval's ``iprec_at_recall``: the best precision at or past the point where
    the ranking reaches ``recall`` (:func:`_interpolated`).

    Examples
    --------
    >>> j = Judgements(np.array([[1, 0, 0, 1, 1]], bool), np.array([4]), k=5)
    >>> [interpolated_precision(j, 5, Fraction(r, 10)).exact_mean() for r in (0, 5, 9)]
    [Fraction(1, 1), Fraction(3, 5), Fraction(0, 1)]
    """
    return Ratios(*_interpolated(j, recall))


def interpolated_precision_mean(j: Judgements, cutoff: int) -> Ratios:
    """trec_eval's ``11pt_avg``: the mean of :func:`interpolated_precision` at the 11
    recall levels 0, 0.1, ..., 1, exactly (Python ints: the levels' denominators are
    ranks).

    Examples
    --------
    >>> j = Judgements(np.array([[1, 0, 0, 1, 1]], bool), np.array([4]), k=5)
    >>> interpolated_precision_mean(j, 5).exact_mean()  # (4·1 + 5·3/5 + 2·0) / 11
    Fraction(7, 11)
    """
    parts = [_interpolated(j, level) for level in RECALL_LEVELS]
    numerators = np.stack([n for n, _ in parts], axis=1).astype(object)
    denominators = np.stack([d for _, d in parts], axis=1).astype(object)
    common = _OBJECT_LCM.reduce(denominators, axis=1) if len(denominators) else _ones(0)
    total = (numerators * (common[:, None] // denominators)).sum(axis=1)
    return Ratios(
        np.asarray(total, dtype=object), np.asarray(common * len(RECALL_LEVELS), dtype=object)
    )


def yet_another_average_precision(j: Judgements, cutoff: int) -> Floats:
    """trec_eval's ``yaap`` (Robertson's smoothed AP): log((1 + S) / (1 + |R| - S)), S the
    sum over the relevant items ranked of (the hits so far) / rank, added in rank order
    as trec_eval adds it.

    Examples
    --------
    >>> j = Judgements(np.array([[1, 0, 1]], bool), np.array([4]), k=3)
    >>> S = 1 + 2 / 3
    >>> bool(yet_another_average_precision(j, 3).mean() == math.log((1 + S) / (1 + 4 - S)))
    True
    """
    users, ranks = j.hit_entries(j.width)
    total = per_user_sum(ordinals(users) / (ranks + 1.0), users, j.n_users)
    return Floats(np.log((1.0 + total) / (1.0 + j.n_relevant - total)))


def binary_gain(j: Judgements, cutoff: int) -> Floats:
    """trec_eval's ``binG``: each relevant item ranked adds 1 / log2(2 + the items above
    it that are not relevant); the sum over |R|.

    Examples
    --------
    >>> j = Judgements(np.array([[1, 0, 1]], bool), np.array([2]), k=3)
    >>> round(float(binary_gain(j, 3).mean()), 12)  # (1 + 1/log2(3)) / 2
    0.815464876786
    """
    users, ranks = j.hit_entries(j.width)
    misses = (ranks + 1 - ordinals(users)).astype(np.float64)
    total = per_user_sum(1.0 / np.log2(2.0 + misses), users, j.n_users)
    return Floats(np.where(j.n_relevant > 0, total / np.maximum(j.n_relevant, 1), 0.0))


def _ideal(j: Judgements) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The ideal ordering of each user's judged grades above 0: its entries (users,
    ranks, grades), each user's first entry and count."""
    users, ranks, grades = j.ideal_entries(WHOLE_ROW)
    counts = np.bincount(users, minlength=j.n_users).astype(np.int64)
    return users, ranks, grades, counts


def gain(j: Judgements, cutoff: int) -> Floats:
    """trec_eval's ``G``: the item at 0-based rank i, of grade g > 0, adds
    g / log2(2 + C_i - S_i), S_i the grades of the ranks up to i and C_i the sum over
    those ranks of max(the ideal ordering's grade there, 1); the sum over the sum of the
    judged grades.

    Examples
    --------
    >>> j = Judgements(np.array([[0, 1]], bool), np.array([1]), k=2)
    >>> round(float(gain(j, 2).mean()), 12)  # 1 / log2(2 + 2 - 1)
    0.630929753571
    """
    users, ranks, grades = j.entries(WHOLE_ROW)
    ideal_users, _, ideal_grades, n_ideal = _ideal(j)
    sums = np.r_[0, np.cumsum(ideal_grades)]
    start = (np.cumsum(n_ideal) - n_ideal)[users]
    reached = np.minimum(ranks + 1, n_ideal[users])
    ideal_prefix = sums[start + reached] - sums[start]
    costs = (ranks + 1 + ideal_prefix - reached).astype(np.float64)
    # Each user's running integer sum (exact: integers add in any order).
    earned = within_users(np.cumsum(grades), users).astype(np.float64)
    terms = grades / np.log2(2.0 + costs - earned)
    total = per_user_sum(terms, users, j.n_users)
    best = np.bincount(ideal_users, weights=ideal_grades, minlength=j.n_users)
    return Floats(np.where(best > 0, total / np.where(best > 0, best, 1.0), 0.0))


def _dcg_terms(grades: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    return grades.astype(np.float64) / np.log2(ranks + 2.0)


def _prefix_lookup(
    prefix: np.ndarray,
    users: np.ndarray,
    ranks: np.ndarray,
    at_users: np.ndarray,
    depth: np.ndarray,
) -> np.ndarray:
    """A user's running sum over its entries of rank below ``depth`` (0 without one)."""
    count = count_before(at_users, depth, users, ranks)
    if not len(prefix):
        return np.zeros(len(at_users))
    last = np.searchsorted(users, at_users) + count - 1
    return np.where(count > 0, prefix[np.clip(last, 0, len(prefix) - 1)], 0.0)


def ndcg_at_relevant(j: Judgements, cutoff: int) -> Floats:
    """trec_eval's ``ndcg_rel``: nDCG (linear gains) taken at each ranked item of grade
    above 0, each relevant item not ranked counting the nDCG of the whole ranking, over
    P, the judged items of grade above 0.

    Examples
    --------
    >>> j = Judgements(np.array([[0, 1]], bool), np.array([2]), k=2)
    >>> round(float(ndcg_at_relevant(j, 2).mean()), 12)  # (a + a) / 2, a = d/(1 + d), d = 1/log2 3
    0.386852807235
    """
    users, ranks, grades = j.entries(WHOLE_ROW)
    ideal_users, ideal_ranks, ideal_grades, n_ideal = _ideal(j)
    dcg = running_sums(_dcg_terms(grades, ranks), users)
    ideal = running_sums(_dcg_terms(ideal_grades, ideal_ranks), ideal_users)
    start = np.cumsum(n_ideal) - n_ideal
    at = start[users] + np.minimum(ranks, n_ideal[users] - 1)
    total = per_user_sum(dcg / ideal[at], users, j.n_users)
    final_dcg = _last_of(dcg, users, j.n_users)
    final_ideal = _last_of(ideal, ideal_users, j.n_users)
    missed = (n_ideal - np.bincount(users, minlength=j.n_users)).astype(np.float64)
    safe = np.where(final_ideal > 0, final_ideal, 1.0)
    total = total + np.where(final_ideal > 0, missed * final_dcg / safe, 0.0)
    return Floats(np.where(total > 0, total / np.maximum(n_ideal, 1), 0.0))


def _last_of(prefix: np.ndarray, users: np.ndarray, n_users: int) -> np.ndarray:
    """Each user's last running sum (0 without entries)."""
    found = np.zeros(n_users)
    if len(users):
        last = np.r_[users[1:] != users[:-1], True]
        found[users[last]] = prefix[last]
    return found


def ndcg_at_levels(j: Judgements, cutoff: int) -> Floats:
    """trec_eval's ``Rndcg``: the mean of nDCG (linear gains) at each R-level b, where
    the ideal ordering's grade drops (the last at P, the judged items of grade above 0;
    the ranking's DCG stops at its length), and at the ranking's length when it holds
    more than P + 1 items; 0 without a relevant item.

    Examples
    --------
    >>> from scorer.align.judgements import Distinct
    >>> j = Judgements(np.array([[0, 1, 0, 1]], bool), np.array([2]), k=4,
    ...                distinct=Distinct(np.ones((1, 4), bool)))
    >>> round(float(ndcg_at_levels(j, 4).mean()), 12)  # nDCG@2, and @4 (4 > 2 + 1)
    0.518886868521
    """
    users, ranks, grades = j.entries(WHOLE_ROW)
    ideal_users, ideal_ranks, ideal_grades, n_ideal = _ideal(j)
    dcg = running_sums(_dcg_terms(grades, ranks), users)
    ideal = running_sums(_dcg_terms(ideal_grades, ideal_ranks), ideal_users)
    n_ret = retrieved(j)
    drops = np.ones(len(ideal_users), dtype=bool)  # the last entry of each run of a grade
    drops[:-1] = (ideal_grades[1:] != ideal_grades[:-1]) | (ideal_users[1:] != ideal_users[:-1])
    level_users, level_depth = ideal_users[drops], ideal_ranks[drops] + 1
    tail = (n_ret > n_ideal + 1) & (n_ideal > 0)
    tail_users = np.flatnonzero(tail)
    point_users = np.r_[level_users, tail_users]
    depth = np.r_[level_depth, np.full(len(tail_users), WHOLE_ROW)]  # DCG stops at the end
    ideal_depth = np.r_[level_depth, n_ideal[tail_users]]
    order = np.lexsort((np.r_[level_depth, np.full(len(tail_users), WHOLE_ROW)], point_users))
    point_users, depth, ideal_depth = point_users[order], depth[order], ideal_depth[order]
    start = np.cumsum(n_ideal) - n_ideal
    terms = (
        _prefix_lookup(dcg, users, ranks, point_users, depth)
        / ideal[start[point_users] + ideal_depth - 1]
    )
    total = per_user_sum(terms, point_users, j.n_users)
    count = np.bincount(point_users, minlength=j.n_users)
    return Floats(np.where((j.n_relevant > 0) & (count > 0), total / np.maximum(count, 1), 0.0))


def _graded_gains(j: Judgements) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ranked items of grade above 0 with trec_eval's RBP gains: the grade over
    the user's largest judged grade when that is above 1."""
    users, ranks, grades = j.entries(WHOLE_ROW)
    top = np.ones(j.n_users)
    if j.pair_users is not None and j.pair_grades is not None:
        np.maximum.at(top, j.pair_users, j.pair_grades.astype(np.float64))
    return users, ranks, grades / top[users]


def rank_biased_precision(
    j: Judgements, cutoff: int, p: Fraction = Fraction(9, 10), gain: str = "graded"
) -> Floats:
    """RBP = (1 - p) Σ_i gain_i p^i (0-based ranks), gains the grades scaled to [0, 1]
    as trec_eval 10 scales them (over the user's largest judged grade when that is
    above 1), or with ``gain="binary"`` 1 for each hit; p^i made by repeated
    multiplication, as trec_eval.

    Examples
    --------
    >>> j = Judgements(np.array([[1, 0, 1]], bool), np.array([2]), k=3)
    >>> float(rank_biased_precision(j, 3, Fraction(1, 2)).mean())  # 1/2 (1 + 1/4)
    0.625
    """
    persistence = float(p)
    if gain == "binary":
        users, ranks = j.hit_entries(j.width)
        gains = np.ones(len(users))
    else:
        users, ranks, gains = _graded_gains(j)
    weights = powers(persistence, int(ranks.max(initial=-1)) + 1)
    total = per_user_sum(gains * weights[ranks], users, j.n_users)
    return Floats((1.0 - persistence) * total)


def rank_biased_residual(j: Judgements, cutoff: int, p: Fraction = Fraction(9, 10)) -> Floats:
    """trec_eval's ``rbp_resid``: with any unjudged item ranked, p^n + (1 - p) Σ p^i
    over the unjudged items' 0-based ranks i, n the ranking's length: how much RBP
    could still rise; 0 without an unjudged item.

    Examples
    --------
    >>> from scorer.align.judgements import Distinct
    >>> first = np.array([[True, True]])
    >>> j = Judgements(np.array([[1, 0]], bool), np.array([1]), k=2, distinct=Distinct(first))
    >>> float(rank_biased_residual(j, 2, Fraction(1, 2)).mean())  # 1/4 + 1/2 · 1/2
    0.5
    """
    persistence = float(p)
    users, ranks = unjudged_entries(j)
    n_ret = retrieved(j)
    weights = powers(persistence, max(int(ranks.max(initial=0)), int(n_ret.max(initial=0))) + 1)
    total = per_user_sum(weights[ranks], users, j.n_users)
    residual = weights[n_ret] + (1 - persistence) * total
    unjudged = np.bincount(users, minlength=j.n_users) > 0
    return Floats(np.where(unjudged, residual, 0.0))


def unjudged_share(j: Judgements, cutoff: int) -> Ratios:
    """trec_eval's ``unj``: the unjudged items within the first K ranks, over K.

    Examples
    --------
    >>> from scorer.align.judgements import Distinct
    >>> j = Judgements(np.array([[1, 0, 0]], bool), np.array([1]), k=3,
    ...                distinct=Distinct(np.array([[True, True, True]])))
    >>> unjudged_share(j, 2).exact_mean(), unjudged_share(j, 5).exact_mean()
    (Fraction(1, 2), Fraction(2, 5))
    """
    users, ranks = unjudged_entries(j)
    count = np.bincount(users[ranks < cutoff], minlength=j.n_users).astype(np.int64)
    return Ratios(*_with_cutoff(count, cutoff))


def _with_cutoff(numerator: np.ndarray, cutoff: int) -> tuple[np.ndarray, np.ndarray]:
    if cutoff > INT64_MAX:
        return numerator.astype(object), np.full(len(numerator), cutoff, dtype=object)
    return numerator, np.full(len(numerator), cutoff, dtype=np.int64)


def judged_share(j: Judgements, cutoff: int) -> Ratios:
    """ir_measures' ``Judged@K``: the judged items among the first min(K, n) ranked, n
    the ranking's length, over min(K, n) (0 for an empty ranking).

    Examples
    --------
    >>> from scorer.align.judgements import Distinct
    >>> j = Judgements(np.array([[1, 0, 0]], bool), np.array([1]), k=3,
    ...                distinct=Distinct(np.array([[True, True, True]])))
    >>> judged_share(j, 2).exact_mean(), judged_share(j, 5).exact_mean()
    (Fraction(1, 2), Fraction(1, 3))
    """
    users, ranks = unjudged_entries(j)
    shown = j.n_distinct(cutoff)
    unjudged = np.bincount(users[ranks < cutoff], minlength=j.n_users).astype(np.int64)
    return Ratios(shown - unjudged, shown)


def utility(
    j: Judgements,
    cutoff: int,
    a: Fraction = Fraction(1),
    b: Fraction = Fraction(-1),
    c: Fraction = Fraction(0),
    d: Fraction = Fraction(0),
) -> Ratios:
    """trec_eval's ``utility``: a·(relevant ranked) + b·(non-relevant ranked) +
    c·(relevant not ranked) + d·(non-relevant not ranked), the last with trec_eval's
    collection size of 0 (its ``-N``), so d·(-(ranked + |R| - relevant ranked)).

    Examples
    --------
    >>> from scorer.align.judgements import Distinct
    >>> j = Judgements(np.array([[1, 0, 1]], bool), np.array([3]), k=3,
    ...                distinct=Distinct(np.ones((1, 3), bool)))
    >>> utility(j, 3).exact_mean(), utility(j, 3, c=Fraction(-1, 2)).exact_mean()
    (Fraction(1, 1), Fraction(1, 2))
    """
    hits, n_ret, n_relevant = j.n_hits(WHOLE_ROW), retrieved(j), j.n_relevant
    counts = (hits, n_ret - hits, n_relevant - hits, hits - n_ret - n_relevant)
    coefficients = [Fraction(x) for x in (a, b, c, d)]
    common = math.lcm(*(x.denominator for x in coefficients))
    scaled = [int(x * common) for x in coefficients]
    largest = int(n_ret.max(initial=0)) + int(n_relevant.max(initial=0)) + 1
    kind = object if 4 * max(map(abs, scaled)) * largest > INT64_MAX else np.int64
    total = sum(w * np.asarray(n, dtype=kind) for w, n in zip(scaled, counts, strict=True))
    return Ratios(np.asarray(total, dtype=kind), np.full(j.n_users, common, dtype=kind))


def count_query(j: Judgements, cutoff: int) -> Ratios:
    """1 per user: summed, trec_eval's ``num_q``."""
    return Ratios(_ones(j.n_users), _ones(j.n_users))


def count_retrieved(j: Judgements, cutoff: int) -> Ratios:
    """The ranked items: summed, trec_eval's ``num_ret``."""
    return Ratios(retrieved(j), _ones(j.n_users))


def count_relevant(j: Judgements, cutoff: int) -> Ratios:
    """|R|: summed, trec_eval's ``num_rel``."""
    return Ratios(j.n_relevant.astype(np.int64), _ones(j.n_users))


def count_relevant_retrieved(j: Judgements, cutoff: int) -> Ratios:
    """The relevant items ranked: summed, trec_eval's ``num_rel_ret``."""
    return Ratios(j.n_hits(WHOLE_ROW), _ones(j.n_users))


def count_non_relevant_retrieved(j: Judgements, cutoff: int) -> Ratios:
    """The judged, non-relevant items ranked: summed, trec_eval's ``num_nonrel_judged_ret``."""
    users, _, _ = non_relevant_entries(j)
    return Ratios(np.bincount(users, minlength=j.n_users).astype(np.int64), _ones(j.n_users))
