"""Pair measures: how a row's ranking orders its (relevant, non-relevant) pairs.

``AUC`` (MIND's per-impression AUC) is the share of a row's (relevant, non-relevant)
pairs of judged items that the ranking orders correctly. Items the row does not rank
come after every ranked one, tied with each other: a pair of two unranked items counts
half. Only first occurrences count (a repeat keeps its rank slot, as everywhere), and
an item the solution does not judge is in no pair.

The pairs are counted, never listed: one sort of the ranked judged items by user and
rank, then cumulative sums, so a row of a million candidates costs O(n log n).
"""

from __future__ import annotations

import numpy as np

from scorer.align.judgements import Judgements
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
    positive_users, positive_ranks = _hit_entries(j)
    negative_users, negative_ranks = j.non_relevant.users, j.non_relevant.ranks
    users = np.concatenate([positive_users, negative_users])
    ranks = np.concatenate([positive_ranks, negative_ranks])
    negative = np.r_[np.zeros(len(positive_users), bool), np.ones(len(negative_users), bool)]
    order = np.lexsort((ranks, users))  # a user's judged items in rank order
    users, negative = users[order], negative[order]
    starts = np.searchsorted(users, np.arange(n_users + 1))  # each user's first entry
    # Non-relevant items ranked above each relevant one: a running count within the user.
    seen = np.r_[0, np.cumsum(negative, dtype=np.int64)]
    above = seen[1:] - seen[starts[users]]
    wrong = _sums_by_user(np.where(negative, 0, above), starts)
    n_positive, n_negative = j.n_relevant, j.non_relevant.counts
    ranked_positive = _sums_by_user(~negative, starts)
    ranked_negative = _sums_by_user(negative, starts)
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


def _hit_entries(j: Judgements) -> tuple[np.ndarray, np.ndarray]:
    """Users and ranks of every credited hit (first occurrences of relevant items)."""
    if j.flat is not None:
        return j.flat.hit_entries(j.width)
    users, ranks = np.nonzero(j.hits_at(j.width))
    return users.astype(np.int64), ranks.astype(np.int64)


def _sums_by_user(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Exact int64 sums of ``values`` over each user's entries (``starts``: each user's
    first entry, then the end)."""
    running = np.r_[0, np.cumsum(values, dtype=np.int64)]
    return running[starts[1:]] - running[starts[:-1]]
