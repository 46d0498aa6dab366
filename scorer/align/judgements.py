"""The shared arrays every measure reads: one alignment, many measures.

:class:`Judgements` holds what the scorer computed once per run (credited hits, each
user's number of relevant items and, with graded relevance, the grades); a measure
is a pure function of it and of its own cut-off and parameters.

Rankings far wider than most rows (one long row under a large ``k``) keep their
credited hits flat (:class:`FlatHits`, one entry per hit) instead of a
``users x width`` matrix; every measure gives the same values bit for bit from
either form. Every pass over either form is whole-array: no loop runs once per rank
or per user, however wide a row a file makes.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np

from scorer.arrays import first_positions, lexicographic_order, run_starts_of

_Derived = TypeVar("_Derived")


def by_grade(users: np.ndarray, grades: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each user's items by grade, best first (ties in the order given): the users, the
    0-based ranks in that order and the grades.

    Examples
    --------
    >>> [part.tolist() for part in by_grade(np.array([1, 0, 1, 1]), np.array([1, 2, 3, 1]))]
    [[0, 1, 1, 1], [0, 0, 1, 2], [2, 3, 1, 1]]
    """
    order = lexicographic_order(users, -grades)
    users = users[order]
    return users, np.arange(len(users)) - first_positions(users), grades[order]


def _ideal_order(
    users: np.ndarray, grades: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every user's judged items by grade, best first, as entries of grade above 0:
    users, 0-based ranks in that order and grades (the whole ideal ranking)."""
    users, ranks, grades = by_grade(users, grades)
    return graded_entries(users, ranks, grades, len(users))


@dataclass(frozen=True)
class FlatHits:
    """Credited first occurrences one entry each, sorted by user then rank.

    Attributes
    ----------
    users, ranks : ndarray of int64
        The user and the 0-based rank of each entry.
    grades : ndarray of int64, or None
        The grade of each entry (every one at least 1); ``None`` for binary
        relevance, where every entry is a hit of grade 1.
    hit : ndarray of bool, or None
        Whether each entry's grade reaches the threshold (``None``: all do).
    width : int
        The rankings' width (``k``, or less when every row is shorter).

    Examples
    --------
    >>> flat = FlatHits.from_unsorted(np.array([1, 0, 1]), np.array([0, 4, 2]), width=5)
    >>> flat.users.tolist(), flat.ranks.tolist()
    ([0, 1, 1], [4, 0, 2])
    """

    users: np.ndarray
    ranks: np.ndarray
    grades: np.ndarray | None
    hit: np.ndarray | None
    width: int

    @classmethod
    def from_unsorted(
        cls,
        users: np.ndarray,
        ranks: np.ndarray,
        grades: np.ndarray | None = None,
        hit: np.ndarray | None = None,
        *,
        width: int,
    ) -> FlatHits:
        """Sort entries given each user's in rank order (one row per user) by user."""
        order = np.argsort(users, kind="stable")
        return cls(
            np.asarray(users, dtype=np.int64)[order],
            np.asarray(ranks, dtype=np.int64)[order],
            None if grades is None else np.asarray(grades, dtype=np.int64)[order],
            None if hit is None else hit[order],
            width,
        )

    def hit_entries(self, cutoff: int) -> tuple[np.ndarray, np.ndarray]:
        """Users and ranks of the hits within the first ``cutoff`` ranks."""
        kept = self.ranks < cutoff
        if self.hit is not None:
            kept &= self.hit
        return self.users[kept], self.ranks[kept]


@dataclass(frozen=True)
class Distinct:
    """Where each row's distinct predicted items first appear, for the set measures'
    ``|S|``: the first-occurrence matrix of dense rankings, or flat entries.

    Attributes
    ----------
    first : ndarray of bool, shape (n_users, width), or None
        Whether the prediction at each rank is its item's first occurrence in the row.
    users, ranks : ndarray of int64, or None
        The user and 0-based rank of each first occurrence (sparse rankings).
    lengths : ndarray of int64, or None
        Each row's length, for rankings that never repeat an item (a trec_eval run).

    Examples
    --------
    >>> Distinct(np.array([[True, False, True], [True, True, False]])).count(2, 2).tolist()
    [1, 2]
    >>> Distinct(None, np.array([1, 1, 0]), np.array([0, 5, 0])).count(3, 3).tolist()
    [1, 1, 0]
    >>> Distinct(lengths=np.array([4, 1, 0])).count(2, 3).tolist()
    [2, 1, 0]
    """

    first: np.ndarray | None = None
    users: np.ndarray | None = None
    ranks: np.ndarray | None = None
    lengths: np.ndarray | None = None

    def count(self, cutoff: int, n_users: int) -> np.ndarray:
        """Each user's distinct items within the first ``cutoff`` ranks (int64)."""
        if self.lengths is not None:
            return np.minimum(self.lengths, cutoff).astype(np.int64)
        if self.first is not None:
            return self.first[:, :cutoff].sum(axis=1, dtype=np.int64)
        if self.users is None or self.ranks is None:
            raise ValueError("a Distinct holds either the matrix or the flat entries")
        kept = self.users[self.ranks < cutoff]
        return np.bincount(kept, minlength=n_users).astype(np.int64)


@dataclass(frozen=True)
class NonRelevant:
    """Each row's judged, non-relevant items (a grade below the threshold, or a
    candidate that is not relevant): how many there are, and where the ranking puts
    those it ranks (first occurrences only), for the pair measures (``AUC``).

    Attributes
    ----------
    users, ranks : ndarray of int64
        The user and 0-based rank of each ranked one, sorted by user then rank.
    counts : ndarray of int64, shape (n_users,)
        Each user's judged, non-relevant items, ranked or not.

    Examples
    --------
    >>> NonRelevant.from_unsorted(np.array([1, 0, 1]), np.array([3, 0, 1]), np.array([1, 2])).users
    array([0, 1, 1])
    """

    users: np.ndarray
    ranks: np.ndarray
    counts: np.ndarray

    @classmethod
    def from_unsorted(cls, users: np.ndarray, ranks: np.ndarray, counts: np.ndarray) -> NonRelevant:
        """Sort the ranked entries by user, then rank."""
        users, ranks = np.asarray(users, np.int64), np.asarray(ranks, np.int64)
        order = user_rank_order(users, ranks)
        return cls(users[order], ranks[order], np.asarray(counts, np.int64))


def user_rank_order(users: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """The order of entries by user, then rank: one stable sort of an int64 key, which
    runs already in order (a matrix's rows, each rank's users) merge in near-linear time.

    Examples
    --------
    >>> user_rank_order(np.array([1, 0, 1, 0]), np.array([0, 2, 1, 0])).tolist()
    [3, 1, 0, 2]
    """
    width = int(ranks.max(initial=0)) + 1
    if int(users.max(initial=0)) >= (2**63 - 1) // width:  # no int64 key: sort both
        return np.lexsort((ranks, users))
    return np.argsort(users * width + ranks, kind="stable")


def scored_order(confidence: np.ndarray, by_row_id: np.ndarray) -> np.ndarray:
    """The rows with a confidence (not NaN), by confidence descending, then by row id
    ascending: one stable sort of the rows taken in row-id order (``by_row_id``: every
    row, its row ids in byte order). ``-0.0`` and ``0.0`` are equal confidences (a tie,
    broken by the row id), as they are as numbers.

    Examples
    --------
    >>> confidence = np.array([0.5, np.nan, -0.0, 0.9, 0.0, 0.5])
    >>> scored_order(confidence, np.array([5, 2, 4, 3, 1, 0])).tolist()
    [3, 5, 0, 2, 4]
    """
    rows = by_row_id[~np.isnan(confidence[by_row_id])]
    descending = -(confidence[rows] + 0.0)  # + 0.0: -0.0 becomes 0.0
    return rows[np.argsort(descending, kind="stable")].astype(np.int64)


def graded_entries(
    users: np.ndarray, ranks: np.ndarray, grades: np.ndarray, cutoff: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The entries of rank below ``cutoff`` and grade above 0 (their order kept)."""
    kept = (ranks < cutoff) & (grades > 0)
    return users[kept], ranks[kept], grades[kept]


@dataclass(frozen=True)
class Judgements:
    """The aligned rankings, as the measures see them.

    Attributes
    ----------
    hits : ndarray of bool, shape (n_users, width), or None
        ``rel(i)``: the prediction at rank ``i`` is a relevant item (grade at least
        the threshold) and its first occurrence in the row. Best stored rank-major
        (Fortran order), as the alignment makes it. ``None`` when ``flat`` holds them.
    n_relevant : ndarray of int64, shape (n_users,)
        ``|R_u|``: the user's distinct relevant items.
    k : int
        The run's ``k``: no row holds more predictions, no cut-off exceeds it.
    grades : ndarray of int64, shape (n_users, width), or None
        The grade of each credited first occurrence (0 for a repeat, an unjudged item
        or padding); ``None`` for binary relevance, where it is ``hits``, or when flat.
    pair_users, pair_grades : ndarray of int64, or None
        Every judged (user, item) pair's user and grade, with graded relevance: the
        full ground truth, from which the ideal orderings are built.
    max_grade : int
        The largest grade in the solution (1 for binary relevance).
    flat : FlatHits, optional
        The credited first occurrences of grade above 0 as flat entries, instead of
        ``hits`` and ``grades``: for rankings far wider than most rows.
    distinct : Distinct, optional
        Where each row's distinct predicted items first appear (every one, relevant
        or not): the set measures' ``|S|``.
    non_relevant : NonRelevant, optional
        The judged, non-relevant items (from grades below the threshold or from the
        candidates): the pair measures' other side. ``None`` when the solution judges
        none (binary relevance without candidates).
    scored_order : ndarray of int64, optional
        With scored predictions (one ``label confidence`` per row, read for ``GAP``):
        the rows with a prediction in the global order, confidence descending, then
        row id ascending in byte order (:func:`scored_order`).
    pool : NonRelevant, optional
        The ranked items in the pool but not judged (trec_eval's qrels lines judged
        ``-1``): neither relevant nor judged, and read apart by ``infAP``.

    Examples
    --------
    >>> j = Judgements(np.array([[True, False]]), np.array([3]), k=2)
    >>> j.width, [part.tolist() for part in j.ideal_entries(3)]
    (2, [[0, 0, 0], [0, 1, 2], [1, 1, 1]])
    >>> flat = FlatHits(np.array([0]), np.array([0]), None, None, width=2)
    >>> Judgements(None, np.array([3]), k=2, flat=flat).n_hits(2)
    array([1])
    """

    hits: np.ndarray | None
    n_relevant: np.ndarray
    k: int
    grades: np.ndarray | None = None
    pair_users: np.ndarray | None = None
    pair_grades: np.ndarray | None = None
    max_grade: int = 1
    flat: FlatHits | None = None
    distinct: Distinct | None = None
    non_relevant: NonRelevant | None = None
    scored_order: np.ndarray | None = None
    pool: NonRelevant | None = None
    _derived: dict[Hashable, object] = field(default_factory=dict, repr=False, compare=False)

    def derived(self, key: Hashable, make: Callable[[], _Derived]) -> _Derived:
        """What ``make()`` derives from these judgements, made once and kept under
        ``key``: several measures (and cut-offs) read the same counts, orders and
        entries, and each is a pure function of the judgements. The arrays made are
        read-only: every reader shares them.

        Examples
        --------
        >>> j = Judgements(np.array([[True]]), np.array([1]), k=1)
        >>> made = []
        >>> [j.derived("twice", lambda: made.append(1) or 2) for _ in range(2)], made
        ([2, 2], [1])
        """
        if key not in self._derived:
            made = make()
            for array in made if isinstance(made, tuple) else (made,):
                if isinstance(array, np.ndarray):
                    array.flags.writeable = False
            self._derived[key] = made
        return self._derived[key]  # type: ignore[return-value]

    @property
    def width(self) -> int:
        """Columns of the rankings (at most ``k``; less when every row is shorter)."""
        if self.flat is not None:
            return self.flat.width
        return int(self._matrix.shape[1])

    @property
    def n_users(self) -> int:
        """Every solution row."""
        return len(self.n_relevant)

    @property
    def _matrix(self) -> np.ndarray:
        if self.hits is None:
            raise ValueError("flat judgements have no hits matrix")
        return self.hits

    def hits_at(self, cutoff: int) -> np.ndarray:
        """``hits`` cut at rank ``cutoff`` (a view; dense judgements only)."""
        return self._matrix[:, :cutoff]

    def n_hits(self, cutoff: int) -> np.ndarray:
        """Credited hits within the first ``cutoff`` ranks, per user (kept per cut-off:
        several measures share it).

        Examples
        --------
        >>> Judgements(np.array([[1, 0, 1], [0, 1, 1]], bool), np.array([2, 2]), k=3).n_hits(2)
        array([1, 1])
        """
        cutoff = min(cutoff, self.width)

        def count() -> np.ndarray:
            if self.flat is not None:
                users, _ = self.flat.hit_entries(cutoff)
                return np.bincount(users, minlength=self.n_users).astype(np.int64)
            return self.hits_at(cutoff).sum(axis=1, dtype=np.int64)

        return self.derived(("n_hits", cutoff), count)

    def hit_entries(self, cutoff: int) -> tuple[np.ndarray, np.ndarray]:
        """Users and 0-based ranks of the credited hits within the first ``cutoff``
        ranks, sorted by user then rank (int64; either form).

        Examples
        --------
        >>> j = Judgements(np.array([[0, 1, 1], [1, 0, 0]], bool), np.array([2, 2]), k=3)
        >>> [part.tolist() for part in j.hit_entries(3)]
        [[0, 0, 1], [1, 2, 0]]
        """
        if self.flat is not None:
            return self.flat.hit_entries(cutoff)
        users, ranks = np.nonzero(self.hits_at(cutoff))  # row-major: by user, then rank
        return users.astype(np.int64), ranks.astype(np.int64)

    def n_distinct(self, cutoff: int) -> np.ndarray:
        """Each user's distinct predicted items within the first ``cutoff`` ranks (``|S|``),
        kept per cut-off as :meth:`n_hits`.

        Examples
        --------
        >>> distinct = Distinct(np.array([[True, False, True]]))
        >>> j = Judgements(np.array([[1, 0, 0]], bool), np.array([2]), k=3, distinct=distinct)
        >>> j.n_distinct(3).tolist(), j.n_distinct(1).tolist()
        ([2], [1])
        """
        if self.distinct is None:
            raise ValueError("these judgements hold no first occurrences (a set measure's |S|)")
        distinct, cutoff = self.distinct, min(cutoff, self.width)
        return self.derived(("n_distinct", cutoff), lambda: distinct.count(cutoff, self.n_users))

    def n_hits_within(self, depths: np.ndarray) -> np.ndarray:
        """Credited hits within each user's own first ``depths[u]`` ranks.

        Examples
        --------
        >>> j = Judgements(np.array([[1, 0, 1], [0, 1, 1]], bool), np.array([2, 2]), k=3)
        >>> j.n_hits_within(np.array([3, 1]))
        array([2, 0])
        """
        users, ranks = self.hit_entries(self.width)
        within = users[ranks < depths[users]]
        return np.bincount(within, minlength=self.n_users).astype(np.int64)

    def first_hit_rank(self, cutoff: int) -> np.ndarray:
        """The 1-based rank of each user's first hit within ``cutoff`` (1 without one).

        Examples
        --------
        >>> j = Judgements(np.array([[0, 0, 1], [0, 1, 1]], bool), np.array([2, 2]), k=3)
        >>> j.first_hit_rank(3).tolist(), j.first_hit_rank(2).tolist()
        ([3, 2], [1, 2])
        """
        first = np.ones(self.n_users, dtype=np.int64)
        users, ranks = self.hit_entries(cutoff)
        starts = run_starts_of(users)
        first[users[starts]] = ranks[starts] + 1
        return first

    def hits_by_rank(self, counted: np.ndarray, length: int) -> np.ndarray:
        """Per rank ``0 .. length - 1``, the counted users with a credited hit there.

        Examples
        --------
        >>> j = Judgements(np.array([[0, 0, 1], [0, 1, 1]], bool), np.array([2, 2]), k=3)
        >>> j.hits_by_rank(np.array([True, True]), 4).tolist()
        [0, 1, 2, 0]
        """
        users, ranks = self.hit_entries(length)
        return np.bincount(ranks[counted[users]], minlength=length).astype(np.int64)

    def ranked_misses(self) -> tuple[np.ndarray, np.ndarray]:
        """Users and ranks of every first occurrence that is no hit (a distinct
        predicted item that is not relevant), sorted by user then rank.

        Examples
        --------
        >>> first = np.array([[True, True, False, True]])  # "a x a y", a relevant
        >>> j = Judgements(np.array([[1, 0, 0, 0]], bool), np.array([1]), k=4,
        ...                distinct=Distinct(first))
        >>> [part.tolist() for part in j.ranked_misses()]
        [[0, 0], [1, 3]]
        >>> flat = FlatHits(np.array([1]), np.array([1]), None, None, width=3)
        >>> j = Judgements(None, np.array([0, 1]), k=3, flat=flat,
        ...                distinct=Distinct(lengths=np.array([1, 3])))
        >>> [part.tolist() for part in j.ranked_misses()]
        [[0, 1, 1], [0, 0, 2]]
        """
        if self.distinct is None:
            raise ValueError("these judgements hold no first occurrences")
        if self.distinct.first is not None:
            users, ranks = np.nonzero(self.distinct.first & ~self._matrix)
            return users.astype(np.int64), ranks.astype(np.int64)
        users, ranks = self.distinct.users, self.distinct.ranks
        if self.distinct.lengths is not None:  # every rank of each row, none repeated
            lengths = self.distinct.lengths
            users = np.repeat(np.arange(self.n_users, dtype=np.int64), lengths)
            ranks = np.arange(len(users), dtype=np.int64) - np.repeat(
                np.cumsum(lengths) - lengths, lengths
            )
        hit_users, hit_ranks = self.flat.hit_entries(self.width) if self.flat else ([], [])
        width = max(self.width, 1)
        keys = np.asarray(users, np.int64) * width + ranks
        hit_keys = np.asarray(hit_users, np.int64) * width + np.asarray(hit_ranks, np.int64)
        kept = ~np.isin(keys, hit_keys)
        users, ranks = users[kept].astype(np.int64), ranks[kept].astype(np.int64)
        order = user_rank_order(users, ranks)
        return users[order], ranks[order]

    def entries(self, cutoff: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every credited first occurrence of grade above 0 within ``cutoff``: users,
        0-based ranks and grades, sorted by user then rank (either form).

        Examples
        --------
        >>> j = Judgements(np.array([[0, 1, 1], [1, 0, 0]], bool), np.array([2, 2]), k=3)
        >>> [part.tolist() for part in j.entries(2)]
        [[0, 1], [1, 0], [1, 1]]
        """
        if self.flat is not None:
            flat = self.flat
            grades = np.ones(len(flat.users), np.int64) if flat.grades is None else flat.grades
            return graded_entries(flat.users, flat.ranks, grades, cutoff)
        source = self._matrix if self.grades is None else self.grades
        users, ranks = np.nonzero(source[:, :cutoff])  # row-major: by user, then rank
        return users, ranks, source[users, ranks].astype(np.int64)

    def ideal_entries(self, cutoff: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The ideal ranking of the **full** ground truth, cut at ``cutoff``, as entries
        of grade above 0: users, 0-based ranks and grades, by user then rank.

        Examples
        --------
        >>> j = Judgements(np.zeros((2, 1), bool), np.array([2, 1]), k=3,
        ...                grades=np.zeros((2, 1), np.int64), pair_users=np.array([0, 0, 1]),
        ...                pair_grades=np.array([1, 3, 2]), max_grade=3)
        >>> [part.tolist() for part in j.ideal_entries(3)]
        [[0, 0, 1], [0, 1, 0], [3, 1, 2]]
        """
        if self.pair_users is None or self.pair_grades is None:
            counts = np.minimum(self.n_relevant, min(cutoff, 2**62))  # any cut-off
            users = np.repeat(np.arange(self.n_users, dtype=np.int64), counts)
            starts = np.cumsum(counts) - counts
            ranks = np.arange(len(users), dtype=np.int64) - starts[users]
            return users, ranks, np.ones(len(users), dtype=np.int64)
        users, grades = self.pair_users, self.pair_grades
        ideal = self.derived("ideal", lambda: _ideal_order(users, grades))
        return graded_entries(*ideal, cutoff)
