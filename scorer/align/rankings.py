"""From split lists to integer matrices: relevant sets and rankings, item codes shared.

Everything here is Arrow compute or numpy over whole columns (or blocks of them that
bound memory); nothing loops over rows or ranks. Predicted items are coded by their
place among the relevant items, found by the join of strings
(:class:`~scorer.align.joins.StringIndex`) or, when every item is a canonical decimal
integer, by value (:mod:`scorer.align.integer_items`). It never decides whether an
input is valid: :mod:`scorer.check.validate` does.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from scorer.align.integer_items import encode_values, integer_codes
from scorer.align.item_lists import SplitLists
from scorer.align.joins import StringIndex, all_distinct, encode, sorted_codes
from scorer.align.judgements import Distinct
from scorer.align.occurrences import PAD, first_occurrence
from scorer.arrays import BLOCK_ROWS, parallel_map, to_arrow


@dataclass(frozen=True)
class GroundTruth:
    """The solution's relevant sets as (user, item code) pairs.

    Attributes
    ----------
    vocabulary : pyarrow.Array
        Every distinct relevant item, once; an item's code is its index here.
    users, codes : ndarray of int64, ndarray of int32
        The user and the item code of every relevant pair, each pair once, sorted by
        user then code.
    n_relevant : ndarray of int64, shape (n_users,)
        ``|R_u|``, unique items only.
    n_duplicates : ndarray of int64, shape (n_users,)
        How many listed items repeated an earlier one in the same row.
    """

    vocabulary: pa.Array
    users: np.ndarray
    codes: np.ndarray
    n_relevant: np.ndarray
    n_duplicates: np.ndarray

    @classmethod
    def from_lists(cls, lists: SplitLists) -> GroundTruth:
        """Encode the split solution lists.

        Examples
        --------
        >>> from scorer.align.item_lists import split_lists
        >>> truth = GroundTruth.from_lists(split_lists(pa.array(["a b a", "", "b"])))
        >>> truth.vocabulary.to_pylist(), truth.users, truth.codes
        (['a', 'b'], array([0, 0, 2]), array([0, 1, 1], dtype=int32))
        >>> truth.n_relevant, truth.n_duplicates
        (array([2, 0, 1]), array([1, 0, 0]))
        """
        n_users = len(lists.lengths)
        # Canonical integers are numbered by value, with no hash of a string.
        by_value = None if lists.values is None else encode_values(lists.values)
        codes, vocabulary = by_value if by_value is not None else encode(lists.tokens)
        size = max(len(vocabulary), 1)
        keys = lists.row_of_token  # a new array: made the keys in place
        keys *= size
        keys += codes
        # Rows are already in order, so the keys are nearly sorted: a stable sort
        # (timsort) takes a fraction of the time of a general sort or a hash.
        keys.sort(kind="stable")
        if len(keys) > 1:
            keys = keys[np.concatenate(([True], keys[1:] != keys[:-1]))]
        users = keys // size
        keys -= users * size  # now the codes
        n_relevant = np.bincount(users, minlength=n_users).astype(np.int64)
        return cls(vocabulary, users, keys.astype(np.int32), n_relevant, lists.lengths - n_relevant)

    def contains(self, users: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """Whether each ``(user, code)`` pair is relevant.

        A code is an index in :attr:`vocabulary`; any other code (``-1`` padding, a
        code past the vocabulary for an item outside it) is never relevant.

        Examples
        --------
        >>> from scorer.align.item_lists import split_lists
        >>> truth = GroundTruth.from_lists(split_lists(pa.array(["a b", "b"])))
        >>> truth.contains(np.array([[0], [1]]), np.array([[1, 0, -1], [0, 1, 2]]))
        array([[ True,  True, False],
               [False,  True, False]])
        """
        codes = np.asarray(codes)
        users = np.broadcast_to(users, codes.shape)
        result = np.zeros(codes.shape, dtype=bool)
        if len(self.users) == 0 or codes.size == 0:
            return result
        size = max(len(self.vocabulary), 1)
        keys = self.users * size + self.codes  # sorted: users first, then codes
        # A chunk of rows at a time: the probes' four int64 temporaries stay a few MiB.
        row_size = codes[0].size if codes.ndim > 1 else 1
        step = max(1, BLOCK_ROWS // max(row_size, 1))
        for first in range(0, len(codes), step):
            rows = slice(first, first + step)
            valid = (codes[rows] >= 0) & (codes[rows] < len(self.vocabulary))
            probe = np.where(valid, users[rows] * size + codes[rows], -1)
            position = np.searchsorted(keys, probe)
            np.minimum(position, len(keys) - 1, out=position)
            result[rows] = valid & (keys[position] == probe)
        return result

    def contains_rows(self, codes: np.ndarray) -> np.ndarray:
        """:meth:`contains` for a ``users x width`` matrix whose row ``u`` is user ``u``.

        For a narrow matrix, each relevant pair is compared with its user's ``width``
        predictions (``width`` passes over the pairs, in memory order) instead of
        searching a sorted table once per prediction: several times faster.

        Examples
        --------
        >>> from scorer.align.item_lists import split_lists
        >>> truth = GroundTruth.from_lists(split_lists(pa.array(["a b", "b"])))
        >>> truth.contains_rows(np.array([[1, 0, -1], [0, 1, 1]]))
        array([[ True,  True, False],
               [False,  True,  True]])
        """
        codes = np.asarray(codes)
        n_users, width = codes.shape
        if width > _DENSE_MAX_WIDTH or n_users != len(self.n_relevant):
            return self.contains(np.arange(n_users, dtype=np.int64)[:, None], codes)
        keys = self.codes.astype(codes.dtype, copy=False)
        result = np.zeros(codes.shape, dtype=bool, order="F")  # contiguous rank columns
        for rank, pairs in _rank_hits(codes, self.users, keys):
            result[self.users[pairs], rank] = True
        return result

    def relevance(self, rankings: Rankings | SparseRankings) -> np.ndarray:
        """Whether each prediction of ``rankings`` is a relevant item of its user.

        Examples
        --------
        >>> from scorer.align.item_lists import split_lists
        >>> truth = GroundTruth.from_lists(split_lists(pa.array(["a b", "b"])))
        >>> rankings = build_rankings(split_lists(pa.array(["b x", "a b"])), np.array([0, 1]),
        ...                           2, 2, truth.vocabulary)
        >>> truth.relevance(rankings)
        array([[ True, False],
               [False,  True]])
        """
        if isinstance(rankings, SparseRankings):
            return self.contains(rankings.users, rankings.items)
        return self.contains_rows(rankings.items)

    def hit_pairs(self, rankings: Rankings) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every prediction that is a ground-truth pair: its user, rank and pair index
        (the pair's position in :attr:`users` and :attr:`codes`).

        Examples
        --------
        >>> from scorer.align.item_lists import split_lists
        >>> truth = GroundTruth.from_lists(split_lists(pa.array(["a b", "b"])))
        >>> rankings = build_rankings(split_lists(pa.array(["b x", "a b"])), np.array([0, 1]),
        ...                           2, 2, truth.vocabulary)
        >>> truth.hit_pairs(rankings)
        (array([0, 1]), array([0, 1]), array([1, 2]))
        """
        codes = rankings.items
        users, ranks = np.nonzero(self.contains_rows(codes))
        return users, ranks, self.pair_index(users, codes[users, ranks])

    def pair_index(self, users: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """The position in :attr:`users` and :attr:`codes` of each relevant pair.

        Examples
        --------
        >>> from scorer.align.item_lists import split_lists
        >>> truth = GroundTruth.from_lists(split_lists(pa.array(["a b", "b"])))
        >>> truth.pair_index(np.array([1, 0]), np.array([1, 0])).tolist()
        [2, 0]
        """
        size = max(len(self.vocabulary), 1)
        keys = self.users * size + self.codes
        return np.searchsorted(keys, users * size + codes)


_DENSE_MAX_WIDTH = 64


def _rank_hits(
    matrix: np.ndarray, pair_users: np.ndarray, pair_keys: np.ndarray
) -> Iterator[tuple[int, np.ndarray]]:
    """Rank by rank, every pair with ``matrix[pair_users[pair], rank] == pair_keys[pair]``,
    a chunk of pairs at a time (several chunks of one rank may come in turn: ranks in
    order, pairs in order).

    One pass over the pairs per rank, in memory order, each rank's column contiguous
    (a copy unless the matrix is rank-major already): several times faster than
    searching a table once per prediction.

    Examples
    --------
    >>> [(rank, pairs.tolist()) for rank, pairs in
    ...  _rank_hits(np.array([[5, 6], [7, 5]]), np.array([0, 1, 1]), np.array([6, 5, 9]))]
    [(0, []), (1, [0, 1])]
    """
    for rank in range(matrix.shape[1]):
        column = np.ascontiguousarray(matrix[:, rank])
        # When every prediction matches (one relevant item repeated along each row),
        # no rank's matches are ever held all at once.
        for start in range(0, len(pair_users), BLOCK_ROWS):
            chunk = slice(start, start + BLOCK_ROWS)
            yield rank, np.flatnonzero(column[pair_users[chunk]] == pair_keys[chunk]) + start


@dataclass(frozen=True)
class Rankings:
    """The submission as a ``users x width`` matrix, rows in solution order.

    Attributes
    ----------
    items : ndarray of int32
        Item codes: an item's index in the ground-truth vocabulary, or for any other
        item a code past the vocabulary (never relevant, equal for equal items),
        ``-1`` padding.
    lengths : ndarray of int64, shape (n_users,)
        Number of predictions scored per user (at most ``width``).
    n_known : int
        Size of the vocabulary: item codes below it are vocabulary items.
    """

    items: np.ndarray
    lengths: np.ndarray
    n_known: int

    def first_occurrence(self) -> np.ndarray:
        """Mark the first occurrence of each item in each row (padding never).

        Examples
        --------
        >>> from scorer.align.item_lists import split_lists
        >>> lists = split_lists(pa.array(["x y x", "", "y"]))
        >>> build_rankings(lists, np.array([1, -1, 0]), 2, 3, pa.array(["y"])).first_occurrence()
        array([[ True, False, False],
               [ True,  True, False]])
        """
        return first_occurrence(self.items)

    def n_first(self, first: np.ndarray) -> np.ndarray:
        """Each user's number of distinct items, from :meth:`first_occurrence`."""
        return first.sum(axis=1)

    @property
    def truth_codes(self) -> np.ndarray:
        """Each prediction's vocabulary index, ``-1`` when absent."""
        return np.where(self.items < self.n_known, self.items, PAD)


@dataclass(frozen=True)
class SparseRankings:
    """The submission as one entry per scored prediction, for rankings far wider than
    most rows (one long row under a large ``k``): no ``users x width`` matrix.

    The same interface as :class:`Rankings`, every per-prediction array in flat
    (user, rank) entries instead of matrix cells, and the same values bit for bit.

    Attributes
    ----------
    users, ranks : ndarray of int64
        The user and the 0-based rank of each prediction, each user's in rank order.
    items : ndarray of int64
        Item codes as in :class:`Rankings` (vocabulary index, or a code past it).
    lengths : ndarray of int64, shape (n_users,)
        Number of predictions scored per user.
    n_known : int
        Size of the vocabulary.
    width : int
        The width a matrix of the same rankings would have (``k``, or less when every
        row is shorter); 0 when not given.
    """

    users: np.ndarray
    ranks: np.ndarray
    items: np.ndarray
    lengths: np.ndarray
    n_known: int
    width: int = 0

    def first_occurrence(self) -> np.ndarray:
        """Mark the first occurrence of each item in each row (a sort, no matrix).

        Examples
        --------
        >>> sparse = SparseRankings(np.array([0, 0, 0, 1]), np.array([0, 1, 2, 0]),
        ...                         np.array([3, 4, 3, 3]), np.array([3, 1]), 4)
        >>> sparse.first_occurrence()
        array([ True,  True, False,  True])
        """
        size = int(self.items.max(initial=0)) + 1
        keys = self.users * size + self.items
        order = np.argsort(keys, kind="stable")  # equal keys stay in rank order
        repeated = np.zeros(len(keys), dtype=bool)
        repeated[order[1:]] = keys[order[1:]] == keys[order[:-1]]
        return ~repeated

    def n_first(self, first: np.ndarray) -> np.ndarray:
        """Each user's number of distinct items, from :meth:`first_occurrence`."""
        return np.bincount(self.users[first], minlength=len(self.lengths)).astype(np.int64)


def distinct_items(rankings: Rankings | SparseRankings, first: np.ndarray) -> Distinct:
    """Where each row's distinct items first appear (the set measures' ``|S|``), from
    :meth:`Rankings.first_occurrence`: the matrix itself, or flat entries when sparse."""
    if isinstance(rankings, SparseRankings):
        return Distinct(None, rankings.users[first], rankings.ranks[first])
    return Distinct(first)


#: Rankings wider than this, and mostly padding, are kept sparse (:class:`SparseRankings`).
SPARSE_MIN_WIDTH = 4


def _sparse_rankings(
    lists: SplitLists, user_of_row: np.ndarray, n_users: int, width: int, vocabulary: pa.Array
) -> SparseRankings:
    """The first ``width`` predictions of every kept row, as flat entries."""
    rows = lists.row_of_token
    ranks = lists.position_of_token
    users = user_of_row[rows]
    del rows
    kept = np.flatnonzero((users >= 0) & (ranks < width))
    users, ranks = users[kept], ranks[kept]
    codes = _item_codes(lists, vocabulary, kept).astype(np.int64)
    lengths = np.bincount(users, minlength=n_users).astype(np.int64)
    return SparseRankings(users, ranks, codes, lengths, len(vocabulary), width)


def _is_sparse(lists: SplitLists, user_of_row: np.ndarray, n_users: int, width: int) -> bool:
    """Whether a ``n_users x width`` matrix would be wider than :data:`SPARSE_MIN_WIDTH`
    and mostly padding (as wide as one long row, say): more than four cells per
    prediction."""
    if width <= SPARSE_MIN_WIDTH:
        return False
    kept_rows = user_of_row >= 0
    return n_users * width > 4 * int(np.minimum(lists.lengths[kept_rows], width).sum())


def build_rankings(
    lists: SplitLists,
    user_of_row: np.ndarray,
    n_users: int,
    width: int,
    vocabulary: pa.Array,
) -> Rankings | SparseRankings:
    """Place each submission row's first ``width`` predictions in its user's row.

    Rankings wider than :data:`SPARSE_MIN_WIDTH` and mostly padding are kept sparse.

    Parameters
    ----------
    lists : SplitLists
        The split submission predictions, in submission row order.
    user_of_row : ndarray of int64
        The solution row of each submission row, ``-1`` for rows to leave out.
    n_users : int
        Number of solution rows.
    width : int
        Columns of the matrix (``k``, or less when every row is shorter).
    vocabulary : pyarrow.Array
        The ground-truth vocabulary (:attr:`GroundTruth.vocabulary`).

    Examples
    --------
    >>> from scorer.align.item_lists import split_lists
    >>> lists = split_lists(pa.array(["x y x", "", "y"]))
    >>> r = build_rankings(lists, np.array([1, -1, 0]), 2, 3, pa.array(["y"]))
    >>> r.items.tolist()
    [[0, -1, -1], [1, 0, 1]]
    >>> r.truth_codes.tolist()
    [[0, -1, -1], [-1, 0, -1]]
    >>> full = build_rankings(split_lists(pa.array(["x y", "y z"])), np.array([1, 0]), 2, 2,
    ...                       pa.array(["y"]))
    >>> full.items.tolist(), full.truth_codes.tolist(), full.lengths.tolist()
    ([[0, 2], [1, 0]], [[0, -1], [-1, 0]], [2, 2])
    """
    if _is_sparse(lists, user_of_row, n_users, width):
        return _sparse_rankings(lists, user_of_row, n_users, width, vocabulary)
    kept_rows = user_of_row >= 0
    lengths = np.zeros(n_users, dtype=np.int64)
    lengths[user_of_row[kept_rows]] = np.minimum(lists.lengths[kept_rows], width)
    codes = _item_codes(lists, vocabulary)
    if _is_full(lists, user_of_row, n_users, width):  # the codes already form a matrix
        row_of_user = np.empty(n_users, dtype=np.int64)
        row_of_user[user_of_row] = np.arange(n_users, dtype=np.int64)
        return Rankings(
            np.take(codes.reshape(-1, width), row_of_user, axis=0), lengths, len(vocabulary)
        )
    return Rankings(
        _placed(codes, lists.lengths, user_of_row, n_users, width), lengths, len(vocabulary)
    )


def _placed(
    codes: np.ndarray, row_lengths: np.ndarray, user_of_row: np.ndarray, n_users: int, width: int
) -> np.ndarray:
    """The ``n_users x width`` matrix of each kept row's first ``width`` codes (rows
    flat in ``codes``, ``row_lengths`` each), ``PAD`` after a row's end.

    Stored rank-major, as the column passes read it. A block of rows at a time (about
    :data:`~scorer.arrays.BLOCK_ROWS` cells, the blocks on the thread pool: kept rows
    are distinct users, so no two write one cell), each row's ``width`` codes gathered
    at once and written to its user's column: no loop over ranks or rows, however wide.

    Examples
    --------
    >>> _placed(np.array([7, 8, 9, 5]), np.array([3, 1, 0]), np.array([1, 0, -1]), 3, 2)
    array([[ 5, -1],
           [ 7,  8],
           [-1, -1]], dtype=int32)
    """
    kept = np.flatnonzero(user_of_row >= 0)
    if len(codes) == 0 or width == 0:
        return np.full((width, n_users), PAD, dtype=np.int32).T
    # Each kept row writes all its user's cells (PAD past its end); only users without
    # a row are filled here, so no pass writes the whole matrix twice.
    columns = np.empty((width, n_users), dtype=np.int32)
    unranked = np.ones(n_users, dtype=bool)
    unranked[user_of_row[kept]] = False
    columns[:, unranked] = PAD
    starts = (np.cumsum(row_lengths) - row_lengths)[kept]
    reached = np.minimum(row_lengths[kept], width)
    ranks = np.arange(width)
    step = max(1, BLOCK_ROWS // width)

    def place(first: int) -> None:
        block = slice(first, first + step)
        cells = codes[np.minimum(starts[block, None] + ranks, len(codes) - 1)]
        cells[ranks >= reached[block, None]] = PAD
        columns[:, user_of_row[kept[block]]] = cells.T

    parallel_map(place, range(0, len(kept), step))
    return columns.T


def _is_full(lists: SplitLists, user_of_row: np.ndarray, n_users: int, width: int) -> bool:
    """Whether every user has exactly one row, of exactly ``width`` predictions."""
    return bool(width) and _is_permutation(user_of_row, n_users) and (lists.lengths == width).all()


def _item_codes(
    lists: SplitLists, vocabulary: pa.Array, kept: np.ndarray | None = None
) -> np.ndarray:
    """Each token's (or each ``kept`` token's) index in the vocabulary, or for an item
    outside it a code past the vocabulary, equal for equal items (int32): by value
    when every item is a canonical decimal integer
    (:func:`~scorer.align.integer_items.integer_codes`), else by the join of strings."""
    values = lists.values
    if values is not None:
        codes = integer_codes(values if kept is None else values[kept], vocabulary)
        if codes is not None:
            return codes
    tokens = lists.tokens if kept is None else lists.take(kept)
    codes = StringIndex(vocabulary).find(tokens, np.int32)
    n_unknown = int(np.count_nonzero(codes < 0))
    if 2 * n_unknown > len(codes):
        # Mostly unknown items: all coded at once (equal codes for equal items, known
        # ones' codes unused), not through an index and a copy of most of them.
        past = sorted_codes(tokens)
        past += len(vocabulary)
        np.copyto(codes, past, where=codes < 0)
    elif n_unknown:
        unknown = np.flatnonzero(codes < 0)
        codes[unknown] = sorted_codes(tokens.take(to_arrow(unknown))) + len(vocabulary)
    return codes


def _is_permutation(user_of_row: np.ndarray, n_users: int) -> bool:
    """Whether every user appears exactly once in ``user_of_row``."""
    return len(user_of_row) == n_users and all_distinct(user_of_row, n_users)
