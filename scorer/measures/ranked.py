"""What trec_eval's measures read of each ranking, as flat entries: the ranks of the
hits, of the judged non-relevant items and of the unjudged ones, counts of entries
before others, and per-user running sums.

Entries are (user, 0-based rank) pairs sorted by user, then rank. Every helper is
vectorised over entries; a per-user running sum adds each user's terms one by one in
rank order, so no user's value depends on another's.
"""

from __future__ import annotations

import numpy as np

from scorer.align.judgements import Judgements
from scorer.arrays import first_positions, run_starts_of
from scorer.options import WHOLE_ROW

Entries = tuple[np.ndarray, np.ndarray]


def non_relevant_entries(j: Judgements) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ranked judged, non-relevant items (grade below the threshold) and each user's
    count of them, ranked or not (none without a grade column or candidates)."""
    if j.non_relevant is None:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(j.n_users, dtype=np.int64)
    found = j.non_relevant
    return found.users, found.ranks, found.counts


def unjudged_entries(j: Judgements) -> Entries:
    """The ranked items the solution does not judge (first occurrences that are neither
    a hit nor judged non-relevant: trec_eval's ``rel < 0``).

    Examples
    --------
    >>> from scorer.align.judgements import Distinct, NonRelevant
    >>> first = np.array([[True, True, True, False]])  # "a x y a": a relevant, x judged
    >>> j = Judgements(np.array([[1, 0, 0, 0]], bool), np.array([1]), k=4,
    ...                distinct=Distinct(first),
    ...                non_relevant=NonRelevant(np.array([0]), np.array([1]), np.array([1])))
    >>> [part.tolist() for part in unjudged_entries(j)]
    [[0], [2]]
    """

    def found() -> Entries:
        users, ranks = j.ranked_misses()
        judged_users, judged_ranks, _ = non_relevant_entries(j)
        kept = ~contains(users, ranks, judged_users, judged_ranks)
        return users[kept], ranks[kept]

    return j.derived(unjudged_entries, found)  # several measures read them


def retrieved(j: Judgements) -> np.ndarray:
    """Each user's distinct ranked items (trec_eval's ``num_ret``)."""
    return j.n_distinct(WHOLE_ROW)


def _merged(
    users_a: np.ndarray, ranks_a: np.ndarray, users_b: np.ndarray, ranks_b: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Both sets of entries in one order (user, rank, then ``a`` before ``b``): the
    order, the users in it, and whether each is from ``b``.

    Each entry becomes one int64 key, its user's first key plus its rank, a user's keys
    spanning its largest rank in ``b`` and two more: a rank of ``a`` past every rank of
    ``b`` (a depth such as a whole ranking's) is taken as just past them, which changes
    no order against ``b``. One stable sort of the keys, two sorted runs of them (the
    entries' own order), is then a merge: linear where sorting by three keys was not.

    Examples
    --------
    >>> order, users, from_b = _merged(np.array([0, 1]), np.array([2, 2**62]),
    ...                                np.array([0, 0, 1]), np.array([2, 5, 0]))
    >>> order.tolist(), users.tolist(), from_b.tolist()
    ([0, 2, 3, 4, 1], [0, 0, 0, 1, 1], [False, True, True, True, False])
    """
    users = np.concatenate([users_a, users_b]).astype(np.int64)
    n_users = int(users.max(initial=-1)) + 1
    top = np.zeros(n_users, dtype=np.int64)  # per user, its largest rank in b, plus one
    if len(users_b):  # each run of one user's entries reduced first: few scattered maxima
        runs = run_starts_of(users_b)
        tops = np.maximum.reduceat(ranks_b.astype(np.int64) + 1, runs)
        np.maximum.at(top, users_b[runs].astype(np.int64), tops)
    base = np.cumsum(top + 1) - (top + 1)
    keys = base[users]
    keys[: len(users_a)] += np.clip(ranks_a, 0, top[users_a])
    keys[len(users_a) :] += ranks_b
    from_b = np.r_[np.zeros(len(users_a), bool), np.ones(len(users_b), bool)]
    order = np.argsort(keys, kind="stable")
    return order, users[order], from_b[order]


def count_before(
    users_a: np.ndarray, ranks_a: np.ndarray, users_b: np.ndarray, ranks_b: np.ndarray
) -> np.ndarray:
    """For each entry of ``a`` (sorted), the entries of ``b`` of the same user at a
    smaller rank.

    Examples
    --------
    >>> count_before(np.array([0, 0, 1]), np.array([1, 5, 0]),
    ...              np.array([0, 0, 0, 1]), np.array([0, 2, 3, 4])).tolist()
    [1, 3, 0]
    """
    order, users, from_b = _merged(users_a, ranks_a, users_b, ranks_b)
    before = within_users(np.cumsum(from_b), users)
    found = np.empty(len(users_a), dtype=np.int64)
    is_a = ~from_b
    found[order[is_a]] = before[is_a]
    return found


def contains(
    users_a: np.ndarray, ranks_a: np.ndarray, users_b: np.ndarray, ranks_b: np.ndarray
) -> np.ndarray:
    """Whether each entry of ``a`` is also an entry of ``b``.

    Examples
    --------
    >>> contains(np.array([0, 1]), np.array([3, 3]), np.array([1]), np.array([3])).tolist()
    [False, True]
    """
    order, users, from_b = _merged(users_a, ranks_a, users_b, ranks_b)
    ranks = np.concatenate([ranks_a, ranks_b])[order]
    same_next = np.zeros(len(order), dtype=bool)
    same_next[:-1] = (users[1:] == users[:-1]) & (ranks[1:] == ranks[:-1]) & from_b[1:]
    found = np.zeros(len(users_a), dtype=bool)
    is_a = ~from_b
    found[order[is_a]] = same_next[is_a]
    return found


def within_users(totals: np.ndarray, users: np.ndarray) -> np.ndarray:
    """A running total over all entries (users sorted) as each user's own: less the
    total before the user's first entry.

    Examples
    --------
    >>> within_users(np.cumsum([1, 2, 4, 8]), np.array([0, 0, 1, 1])).tolist()
    [1, 3, 4, 12]
    """
    start = first_positions(users)
    return totals - np.where(start > 0, totals[np.maximum(start - 1, 0)], 0)


def ordinals(users: np.ndarray) -> np.ndarray:
    """Each entry's 1-based place among its user's entries (users sorted).

    Examples
    --------
    >>> ordinals(np.array([0, 0, 2, 2, 2])).tolist()
    [1, 2, 1, 2, 3]
    """
    return np.arange(1, len(users) + 1, dtype=np.int64) - first_positions(users)


def running_sums(values: np.ndarray, users: np.ndarray) -> np.ndarray:
    """Each user's running sum of ``values`` (users sorted, each user's values in
    order), added one by one in that order: the running total at each entry.

    Users are grouped by how many entries they hold (up to 2^b, for each b), each group
    a matrix whose rows numpy's ``cumsum`` adds left to right; no user's sums depend
    on another's, and the matrices hold at most twice the entries.

    Examples
    --------
    >>> running_sums(np.array([0.5, 0.25, 1.0, 0.1, 0.2]), np.array([0, 0, 1, 3, 3])).tolist()
    [0.5, 0.75, 1.0, 0.1, 0.30000000000000004]
    """
    values = np.asarray(values, dtype=np.float64)
    found = np.empty(len(values))
    if not len(values):
        return found
    place = ordinals(users) - 1
    starts = run_starts_of(users)
    lengths = np.diff(np.r_[starts, len(users)])
    width_bits = np.frexp(np.maximum(lengths - 1, 0).astype(np.float64))[1]  # bit length
    group_of_user = np.repeat(width_bits, lengths)
    row_of_user = np.repeat(np.arange(len(starts)), lengths)
    for bits in np.unique(width_bits).tolist():  # at most 63 groups
        chosen = group_of_user == bits
        rows = np.unique(row_of_user[chosen], return_inverse=True)[1]
        matrix = np.zeros((int(rows.max()) + 1, 1 << bits))
        matrix[rows, place[chosen]] = values[chosen]
        np.cumsum(matrix, axis=1, out=matrix)
        found[chosen] = matrix[rows, place[chosen]]
    return found


def per_user_sum(values: np.ndarray, users: np.ndarray, n_users: int) -> np.ndarray:
    """Each user's sum of ``values``, added one by one in entry order (``np.add.at``
    adds in index order).

    Examples
    --------
    >>> per_user_sum(np.array([0.1, 0.2, 1.0]), np.array([0, 0, 2]), 3).tolist()
    [0.30000000000000004, 0.0, 1.0]
    """
    total = np.zeros(n_users)
    np.add.at(total, users, values)
    return total


def powers(base: float, n: int) -> np.ndarray:
    """``base ** i`` for i = 0 .. n - 1 as trec_eval makes them, each the last times
    ``base`` (``np.multiply.accumulate`` multiplies in order).

    Examples
    --------
    >>> powers(0.5, 4).tolist()
    [1.0, 0.5, 0.25, 0.125]
    """
    factors = np.full(max(n, 1), base)
    factors[0] = 1.0
    return np.multiply.accumulate(factors)[:n]
