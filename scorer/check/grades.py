"""Graded relevance (docs/measures.md#measures): the solution's grade column, and the judgements
the measures read when grades are given.

Binary relevance never comes here: its fast path is :meth:`GroundTruth.relevance`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from scorer.align.item_lists import split_lists
from scorer.align.joins import encode
from scorer.align.judgements import FlatHits, Judgements, NonRelevant
from scorer.align.rankings import GroundTruth, Rankings, SparseRankings, distinct_items
from scorer.arrays import lexicographic_order
from scorer.check.validate import check_grades


@dataclass(frozen=True)
class GradedTruth:
    """The ground truth with a grade per judged (user, item) pair.

    Attributes
    ----------
    truth : GroundTruth
        Every judged pair (grade-0 items included); its ``n_relevant`` counts the
        pairs whose grade reaches the threshold.
    pair_grades : ndarray of int64
        The grade of each pair of ``truth`` (an item listed twice keeps its largest).
    threshold : int
        The smallest grade that counts as relevant.
    """

    truth: GroundTruth
    pair_grades: np.ndarray
    threshold: int

    @classmethod
    def from_columns(
        cls,
        targets: pa.Array,
        grades: pa.Array,
        row_ids: pa.Array,
        names: tuple[str, str],
        threshold: int,
        exponential: tuple[str, ...] = (),
    ) -> GradedTruth:
        """Split, check and encode the target and grade columns.

        ``exponential`` names the requested measures whose gains are exponential
        (``2^grade - 1``): with any, grades stop at 30 instead of 2^31.

        Examples
        --------
        >>> g = GradedTruth.from_columns(pa.array(["a b a", "c"]), pa.array(["1 0 2", "0"]),
        ...                              pa.array(["u1", "u2"]), ("grades", "items"), 1)
        >>> g.truth.users, g.truth.codes, g.pair_grades, g.truth.n_relevant
        (array([0, 0, 1]), array([0, 1, 2], dtype=int32), array([2, 0, 0]), array([1, 0]))
        """
        lists = split_lists(targets)
        values = check_grades(split_lists(grades), lists.lengths, row_ids, *names, exponential)
        n_users = len(lists.lengths)
        codes, vocabulary = encode(lists.tokens)
        size = max(len(vocabulary), 1)
        keys = lists.row_of_token * size + codes
        order = lexicographic_order(keys, -values)  # by pair, the largest grade first
        keys, values = keys[order], values[order]
        first = np.r_[True, keys[1:] != keys[:-1]] if len(keys) else np.zeros(0, dtype=bool)
        keys, values = keys[first], values[first]
        users = keys // size
        relevant = np.bincount(users[values >= threshold], minlength=n_users).astype(np.int64)
        judged = np.bincount(users, minlength=n_users).astype(np.int64)
        truth = GroundTruth(
            vocabulary,
            users,
            (keys - users * size).astype(np.int32),
            relevant,
            lists.lengths - judged,
        )
        return cls(truth, values, threshold)

    def judgements(
        self, rankings: Rankings | SparseRankings, first: np.ndarray, k: int
    ) -> Judgements:
        """The shared arrays of the measures: grades of credited first occurrences,
        hits where the grade reaches the threshold (flat for sparse rankings)."""
        if isinstance(rankings, SparseRankings):
            return self._flat_judgements(rankings, first, k)
        users, ranks, pairs = self.truth.hit_pairs(rankings)
        grades = np.zeros(first.shape, dtype=np.int64, order="F")
        grades[users, ranks] = self.pair_grades[pairs]
        grades *= first  # a repeat keeps its rank and earns nothing
        below = first[users, ranks] & (self.pair_grades[pairs] < self.threshold)
        non_relevant = self._non_relevant(users[below], ranks[below])
        return Judgements(
            grades >= self.threshold,
            self.truth.n_relevant,
            k,
            grades,
            self.truth.users,
            self.pair_grades,
            int(self.pair_grades.max(initial=0)),
            distinct=distinct_items(rankings, first),
            non_relevant=non_relevant,
        )

    def _non_relevant(self, users: np.ndarray, ranks: np.ndarray) -> NonRelevant:
        """The judged pairs below the threshold: those ranked (given), and each user's count."""
        n_users = len(self.truth.n_relevant)
        judged = np.bincount(self.truth.users, minlength=n_users).astype(np.int64)
        return NonRelevant.from_unsorted(users, ranks, judged - self.truth.n_relevant)

    def _flat_judgements(self, rankings: SparseRankings, first: np.ndarray, k: int) -> Judgements:
        entries = np.flatnonzero(first & self.truth.contains(rankings.users, rankings.items))
        users = rankings.users[entries]
        grades = self.pair_grades[self.truth.pair_index(users, rankings.items[entries])]
        graded = grades > 0
        below = grades < self.threshold
        non_relevant = self._non_relevant(users[below], rankings.ranks[entries][below])
        flat = FlatHits.from_unsorted(
            users[graded],
            rankings.ranks[entries][graded],
            grades[graded],
            grades[graded] >= self.threshold,
            width=rankings.width,
        )
        return Judgements(
            None,
            self.truth.n_relevant,
            k,
            None,
            self.truth.users,
            self.pair_grades,
            int(self.pair_grades.max(initial=0)),
            flat,
            distinct_items(rankings, first),
            non_relevant,
        )
