"""Pair measures: how a row's ranking orders its (relevant, non-relevant) pairs.

``AUC`` (MIND's per-impression AUC) is the share of a row's (relevant, non-relevant)
pairs of judged items that the ranking orders correctly. Items the row does not rank
come after every ranked one, tied with each other: a pair of two unranked items counts
half. Only first occurrences count (a repeat keeps its rank slot, as everywhere), and
an item the solution does not judge is in no pair.

The pairs are counted, never listed: rank by rank over the users x width matrix of
dense rankings, or for flat entries (a few very long rows) one sort of the ranked judged
items by user and rank and then running sums, so a row of a million candidates costs
O(n log n).
"""

from __future__ import annotations

import numpy as np

from scorer.align.judgements import Judgements, user_rank_order
from scorer.errors import HostVisibleError
from scorer.measures.exact_means import INT64_MAX, Ratios

NEEDS_NON_RELEVANT = (
    "AUC needs each row's judged, non-relevant items, and the solution judges none: give "
    "it a grade column (grade_column_name, --grade-column; an item graded below "
    "relevance_threshold, such as 0, is judged and not relevant) or each row's candidates "
    "(candidates_column_name or candidates, --candidates-column or --candidates; the "
    "candidates that are not relevant are the non-relevant items)."
)


def auc(j: Judgements, cutoff: int) -> Ratios:
    """Each row's AUC as the fraction ``(2·correct + ties) / (2·|R|·|N|)``.

    ``|R|``: the row's relevant items, ``|N|``: its judged non-relevant ones. A row
    without a relevant item follows ``empty_ground_truth`` as for every measure (its
    value here is 0/0, i.e. 0); a row with relevant items but no non-relevant one has
    no pair to order wrongly and scores 1. ``cutoff`` is unused: the whole ranking
    counts.

    Raises
    ------
    HostVisibleError
        The solution judges no item non-relevant (binary relevance, no candidates).

    Examples
    --------
    >>> from scorer.align.judgements import NonRelevant
    >>> hits = np.array([[1, 0, 1, 1, 0, 1, 0, 0]], bool)  # ranks 2, 5, 7, 8: not relevant
    >>> others = NonRelevant(np.zeros(4, np.int64), np.array([1, 4, 6, 7]), np.array([4]))
    >>> auc(Judgements(hits, np.array([4]), k=8, non_relevant=others), 8).exact_mean()
    Fraction(3, 4)
    >>> second = np.array([[0, 1]], bool)  # one of two non-relevant items ranked first
    >>> missed = NonRelevant(np.zeros(1, np.int64), np.array([0]), np.array([2]))
    >>> auc(Judgements(second, np.array([1]), k=2, non_relevant=missed), 2).exact_mean()
    Fraction(1, 2)
    """
    if j.non_relevant is None:
        raise HostVisibleError(NEEDS_NON_RELEVANT)
    n_users = j.n_users
    positive_users, _ = j.hit_entries(j.width)
    negative_users = j.non_relevant.users
    wrong = _dense_wrong_pairs(j) if j.flat is None else _sparse_wrong_pairs(j)
    n_positive, n_negative = j.n_relevant, j.non_relevant.counts
    ranked_positive = np.bincount(positive_users, minlength=n_users).astype(np.int64)
    ranked_negative = np.bincount(negative_users, minlength=n_users).astype(np.int64)
    if int(n_positive.max(initial=0)) * int(n_negative.max(initial=0)) > INT64_MAX // 4:
        parts = (n_positive, n_negative, ranked_positive, ranked_negative, wrong)
        n_positive, n_negative, ranked_positive, ranked_negative, wrong = (
            part.astype(object) for part in parts
        )
    unranked_positive = n_positive - ranked_positive
    unranked_negative = n_negative - ranked_negative
    correct = ranked_positive * n_negative - wrong  # ranked above every unranked one too
    numerator = 2 * correct + unranked_positive * unranked_negative  # ties: half each
    denominator = 2 * n_positive * n_negative
    no_pair = (n_positive > 0) & (n_negative == 0)  # nothing to order wrongly
    numerator[no_pair] = 1
    denominator[no_pair] = 1
    return Ratios(numerator, denominator)


#: Matrix cells per block of users in :func:`_dense_wrong_pairs` (32 MiB of int64).
_BLOCK_CELLS = 2**22


def _dense_wrong_pairs(j: Judgements) -> np.ndarray:
    """Per user, the (relevant, non-relevant) pairs of ranked items in the wrong order:
    each hit adds the non-relevant items ranked above it, a running count along the
    ranks. Blocks of users, never one rank at a time: a single row a million ranks
    wide costs one cumulative sum, not a million Python steps."""
    hits = j.hits_at(j.width)
    n_users, width = hits.shape
    non_relevant = np.zeros(hits.shape, dtype=bool)
    non_relevant[j.non_relevant.users, j.non_relevant.ranks] = True  # type: ignore[union-attr]
    wrong = np.zeros(n_users, dtype=np.int64)
    block = max(1, _BLOCK_CELLS // max(width, 1))
    for start in range(0, n_users, block):  # blocks of a matrix's cells, not users
        rows = slice(start, start + block)
        above = np.cumsum(non_relevant[rows], axis=1, dtype=np.int64)
        above -= non_relevant[rows]  # strictly above each rank
        wrong[rows] = np.einsum("ij,ij->i", above, hits[rows], dtype=np.int64)
    return wrong


def _sparse_wrong_pairs(j: Judgements) -> np.ndarray:
    """:func:`_dense_wrong_pairs` for flat entries: one sort of the judged items by user
    and rank, then a running count of the non-relevant ones within each user."""
    positive_users, positive_ranks = j.hit_entries(j.width)
    users = np.concatenate([positive_users, j.non_relevant.users])  # type: ignore[union-attr]
    ranks = np.concatenate([positive_ranks, j.non_relevant.ranks])  # type: ignore[union-attr]
    negative = np.zeros(len(users), dtype=bool)
    negative[len(positive_users) :] = True
    order = user_rank_order(users, ranks)  # a user's judged items in rank order
    users, negative = users[order], negative[order]
    running = np.r_[0, np.cumsum(negative, dtype=np.int64)]  # before each entry, then all
    starts = np.searchsorted(users, np.arange(j.n_users))  # each user's first entry
    above = running[1:] - running[starts][users]  # within the user, up to each entry
    positive = ~negative
    return _sums_by_user(users[positive], above[positive], j.n_users)


def _sums_by_user(users: np.ndarray, values: np.ndarray, n_users: int) -> np.ndarray:
    """Exact int64 sums of non-negative ``values`` per user: a float ``bincount`` while
    no sum can pass 2**53, else running sums over the entries (sorted by user).

    Examples
    --------
    >>> _sums_by_user(np.array([0, 0, 2]), np.array([1, 2, 5]), 3).tolist()
    [3, 0, 5]
    """
    if int(values.max(initial=0)) * len(values) < 2**53:
        return np.bincount(users, weights=values, minlength=n_users).astype(np.int64)
    running = np.r_[0, np.cumsum(values, dtype=np.int64)]
    bounds = np.searchsorted(users, np.arange(n_users + 1))
    return running[bounds[1:]] - running[bounds[:-1]]
