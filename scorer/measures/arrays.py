"""The shared arrays every measure reads: one alignment, many measures.

:class:`Judgements` holds what the scorer computed once per run (credited hits, each
user's number of relevant items and, with graded relevance, the grades); a measure
is a pure function of it and of its own cut-off and parameters.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Judgements:
    """The aligned rankings, as the measures see them.

    Attributes
    ----------
    hits : ndarray of bool, shape (n_users, width)
        ``rel(i)``: the prediction at rank ``i`` is a relevant item (grade at least
        the threshold) and its first occurrence in the row. Best stored rank-major
        (Fortran order), as the alignment makes it.
    n_relevant : ndarray of int64, shape (n_users,)
        ``|R_u|``: the user's distinct relevant items.
    k : int
        The run's ``k``: no row holds more predictions, no cut-off exceeds it.
    grades : ndarray of int64, shape (n_users, width), or None
        The grade of each credited first occurrence (0 for a repeat, an unjudged item
        or padding); ``None`` for binary relevance, where it is ``hits``.
    pair_users, pair_grades : ndarray of int64, or None
        Every judged (user, item) pair's user and grade, with graded relevance: the
        full ground truth, from which the ideal orderings are built.
    max_grade : int
        The largest grade in the solution (1 for binary relevance).

    Examples
    --------
    >>> j = Judgements(np.array([[True, False]]), np.array([3]), k=2)
    >>> j.width, j.grade_column(0).tolist(), j.ideal_grades(3).tolist()
    (2, [1], [[1, 1, 1]])
    """

    hits: np.ndarray
    n_relevant: np.ndarray
    k: int
    grades: np.ndarray | None = None
    pair_users: np.ndarray | None = None
    pair_grades: np.ndarray | None = None
    max_grade: int = 1
    _n_hits: dict[int, np.ndarray] = field(default_factory=dict, repr=False, compare=False)

    @property
    def width(self) -> int:
        """Columns of the matrices (at most ``k``; less when every row is shorter)."""
        return int(self.hits.shape[1])

    @property
    def n_users(self) -> int:
        """Rows of the matrices: every solution row."""
        return int(self.hits.shape[0])

    def hits_at(self, cutoff: int) -> np.ndarray:
        """``hits`` cut at rank ``cutoff`` (a view)."""
        return self.hits[:, :cutoff]

    def n_hits(self, cutoff: int) -> np.ndarray:
        """Credited hits within the first ``cutoff`` ranks, per user (kept per cut-off:
        several measures share it).

        Examples
        --------
        >>> Judgements(np.array([[1, 0, 1], [0, 1, 1]], bool), np.array([2, 2]), k=3).n_hits(2)
        array([1, 1])
        """
        cutoff = min(cutoff, self.width)
        if cutoff not in self._n_hits:
            total = np.zeros(self.n_users, dtype=np.int64)
            for rank in range(cutoff):  # one contiguous column at a time
                total += self.hits[:, rank]
            self._n_hits[cutoff] = total
        return self._n_hits[cutoff]

    def n_hits_within(self, depths: np.ndarray) -> np.ndarray:
        """Credited hits within each user's own first ``depths[u]`` ranks.

        Examples
        --------
        >>> j = Judgements(np.array([[1, 0, 1], [0, 1, 1]], bool), np.array([2, 2]), k=3)
        >>> j.n_hits_within(np.array([3, 1]))
        array([2, 0])
        """
        total = np.zeros(self.n_users, dtype=np.int64)
        for rank in range(self.width):
            total += self.hits[:, rank] & (rank < depths)
        return total

    def grade_column(self, rank: int) -> np.ndarray:
        """The grades earned at one rank (``hits`` as 0/1 when binary), as intp."""
        source = self.hits if self.grades is None else self.grades
        return source[:, rank].astype(np.intp)

    def ideal_grades(self, cutoff: int) -> np.ndarray:
        """Each user's grades sorted from the largest, the first ``cutoff`` of them
        (0 past the end): the ideal ranking of the **full** ground truth.

        Examples
        --------
        >>> j = Judgements(np.zeros((2, 1), bool), np.array([2, 1]), k=3,
        ...                grades=np.zeros((2, 1), np.int64), pair_users=np.array([0, 0, 1]),
        ...                pair_grades=np.array([1, 3, 2]), max_grade=3)
        >>> j.ideal_grades(3).tolist()
        [[3, 1, 0], [2, 0, 0]]
        """
        if self.pair_users is None or self.pair_grades is None:
            ranks = np.arange(cutoff)
            return (ranks[None, :] < self.n_relevant[:, None]).astype(np.int64)
        order = np.lexsort((-self.pair_grades, self.pair_users))
        users = self.pair_users[order]
        starts = np.searchsorted(users, np.arange(self.n_users))
        rank = np.arange(len(users)) - starts[users]
        kept = rank < cutoff
        ideal = np.zeros((self.n_users, cutoff), dtype=np.int64)
        ideal[users[kept], rank[kept]] = self.pair_grades[order][kept]
        return ideal
