"""From split lists to integer matrices: relevant sets and rankings, item codes shared.

Everything here is Arrow compute or numpy over whole columns (or large chunks of
them); nothing loops over rows. Fixed-width items (10-digit item ids) take faster
routes through fingerprints of their bytes (:mod:`scorer.align.fingerprints`), every
match confirmed byte for byte, with the exact Arrow path as fallback. It never
decides whether an input is valid: :mod:`scorer.check.validate` does.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from scorer.align.fingerprints import (
    FIXED_WIDTH_MIN_ROWS,
    first_of_strings,
    fixed_width_bytes,
    rows_match,
    short_fingerprints,
    take_rows,
    take_strings,
)
from scorer.align.integer_items import (
    code_table,
    encode_values,
    integer_codes,
    integer_codes_of_values,
)
from scorer.align.item_lists import SplitLists
from scorer.align.joins import StringIndex, all_distinct, encode, sorted_codes
from scorer.align.judgements import Distinct
from scorer.align.occurrences import PAD, first_occurrence
from scorer.arrays import (
    CHUNK_ROWS,
    full_on_two_cores,
    on_two_cores,
    to_arrow,
)


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
        # Items read as their values are numbered by value, with no hash of a string.
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
        step = max(1, CHUNK_ROWS // max(row_size, 1))
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
        if rankings.item_bytes is None:
            return self.contains_rows(rankings.items)
        result = np.zeros(rankings.items.shape, dtype=bool, order="F")
        for rank, users, _ in self._fingerprint_rank_hits(rankings):
            result[users, rank] = True
        return result

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
        if rankings.item_bytes is not None:
            return self._fingerprint_hits(rankings)
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

    def _fingerprint_hits(self, rankings: Rankings) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        found = [
            (users, np.full(len(users), rank), pairs)
            for rank, users, pairs in self._fingerprint_rank_hits(rankings)
        ]
        if not found:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
        users, ranks, pairs = zip(*found, strict=True)
        return np.concatenate(users), np.concatenate(ranks), np.concatenate(pairs)

    def _fingerprint_rank_hits(
        self, rankings: Rankings
    ) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
        """Rank by rank, the users whose prediction there is relevant, and the pairs:
        each relevant pair's fingerprint compared with its user's prediction, every
        equal one confirmed byte for byte. A chunk of pairs at a time, so that a file
        whose every prediction matches (one relevant item repeated along each row)
        never holds all its matches at once."""
        vocabulary = fixed_width_bytes(self.vocabulary)
        if vocabulary is None:
            raise ValueError("fingerprinted rankings need a fixed-width vocabulary")
        keys = short_fingerprints(vocabulary)[self.codes]
        for rank, pairs in _rank_hits(rankings.items, self.users, keys):
            users = self.users[pairs]
            ranks = np.full(len(users), rank)
            same = rows_match(rankings.item_bytes.at(users, ranks), vocabulary, self.codes[pairs])
            yield rank, users[same], pairs[same]


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
        for start in range(0, len(pair_users), CHUNK_ROWS):
            chunk = slice(start, start + CHUNK_ROWS)
            yield rank, np.flatnonzero(column[pair_users[chunk]] == pair_keys[chunk]) + start


@dataclass(frozen=True)
class ItemBytes:
    """The bytes of each prediction of a fixed-width submission, by user and rank.

    Attributes
    ----------
    uniform : ndarray of uint8, shape (n_rows, m, w)
        :attr:`SplitLists.uniform`, in submission row order.
    row_of_user : ndarray of int64, shape (n_users,)
        The submission row of each user.
    """

    uniform: np.ndarray
    row_of_user: np.ndarray

    def at(self, users: np.ndarray, ranks: np.ndarray) -> np.ndarray:
        """The ``w`` bytes of the prediction at ``ranks`` of each of ``users``."""
        return take_strings(self.uniform, self.row_of_user[users], ranks)

    def rows(self, users: np.ndarray, width: int) -> np.ndarray:
        """The bytes of the first ``width`` predictions of each of ``users``."""
        return take_rows(self.uniform, self.row_of_user[users])[:, :width]


_RECHECK_USERS = 1 << 16


@dataclass(frozen=True)
class Rankings:
    """The submission as a ``users x width`` matrix, rows in solution order.

    Attributes
    ----------
    items : ndarray of int32
        A key per predicted item, equal keys for equal items. Without
        :attr:`item_bytes`, item codes: an item's index in the ground-truth
        vocabulary, or for any other item a code past the
        vocabulary (never relevant), ``-1`` padding. With it, 32-bit fingerprints
        of the items' bytes (:func:`~scorer.align.fingerprints.short_fingerprints`), rows
        in user order too: unequal items may share one, so every use confirms equal
        keys byte for byte.
    lengths : ndarray of int64, shape (n_users,)
        Number of predictions scored per user (at most ``width``).
    n_known : int
        Size of the vocabulary: item codes below it are vocabulary items.
    item_bytes : ItemBytes or None
        The items' bytes, when :attr:`items` are fingerprints.
    """

    items: np.ndarray
    lengths: np.ndarray
    n_known: int
    item_bytes: ItemBytes | None = None

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
        first = first_occurrence(self.items)
        if self.item_bytes is None:
            return first
        # A repeated fingerprint is almost always a repeated item, and rows with one
        # are few: recheck those rows byte for byte.
        users = np.flatnonzero(~first.all(axis=1))
        # A chunk of users at a time: in a hostile file every row may need it.
        for start in range(0, len(users), _RECHECK_USERS):
            chunk = users[start : start + _RECHECK_USERS]
            first[chunk] = first_of_strings(self.item_bytes.rows(chunk, self.items.shape[1]))
        return first

    def n_first(self, first: np.ndarray) -> np.ndarray:
        """Each user's number of distinct items, from :meth:`first_occurrence`."""
        return first.sum(axis=1)

    @property
    def truth_codes(self) -> np.ndarray:
        """Each prediction's vocabulary index, ``-1`` when absent (item codes only)."""
        if self.item_bytes is not None:
            raise ValueError("fingerprinted rankings have no item codes")
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


@dataclass(frozen=True)
class ItemPrints:
    """Every user's predictions as fingerprints, for :func:`build_rankings`.

    Attributes
    ----------
    columns : ndarray of int32, shape (width, n_users)
        :func:`~scorer.align.fingerprints.short_fingerprints` of the items, rank-major, users
        in solution order.
    item_bytes : ItemBytes
        The items' bytes.
    """

    columns: np.ndarray
    item_bytes: ItemBytes


def item_prints(
    lists: SplitLists, user_of_row: np.ndarray, n_users: int, width: int
) -> ItemPrints | None:
    """The fingerprints :func:`build_rankings` keys the items by, when every user has
    one full row of many fixed-width items (the usual case); ``None`` otherwise.

    Needs no vocabulary, so it can be made while the solution is still being encoded.

    Examples
    --------
    >>> from scorer.align.item_lists import split_lists
    >>> item_prints(split_lists(pa.array(["ab", "cd"])), np.array([1, 0]), 2, 1) is None
    True
    """
    if not (_is_full(lists, user_of_row, n_users, width) and _many_fixed_width(lists, width)):
        return None
    # Made in user order (rows gathered block by block) and rank-major, so that each
    # rank's column is contiguous for the column passes.
    row_of_user = np.empty(n_users, dtype=np.int64)
    row_of_user[user_of_row] = np.arange(n_users, dtype=np.int64)
    columns = short_fingerprints(lists.uniform, row_of_user)
    return ItemPrints(columns, ItemBytes(lists.uniform, row_of_user))


def build_rankings(
    lists: SplitLists,
    user_of_row: np.ndarray,
    n_users: int,
    width: int,
    vocabulary: pa.Array,
    prints: ItemPrints | None = None,
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
    prints : ItemPrints, optional
        :func:`item_prints` of the same arguments, if already made.

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
    if _same_width(vocabulary, lists.width):
        # Items are then keyed by fingerprints of their bytes, never looked up at all.
        prints = prints or item_prints(lists, user_of_row, n_users, width)
        if prints is not None:
            return Rankings(prints.columns.T, lengths, len(vocabulary), prints.item_bytes)
    full = _is_full(lists, user_of_row, n_users, width)
    # Items read as values are coded by the values' table as they are placed: no
    # array of every token's code is made.
    table = _value_table(lists, vocabulary)
    items = lists.values if table is not None else _item_codes(lists, vocabulary)
    if full:  # the tokens already form a matrix whose rows only need reordering
        row_of_user = np.empty(n_users, dtype=np.int64)
        row_of_user[user_of_row] = np.arange(n_users, dtype=np.int64)
        matrix = np.take(items.reshape(-1, width), row_of_user, axis=0)
        if table is not None:
            np.take(table, matrix, out=matrix, mode="clip")  # every value is in the table
        return Rankings(matrix, lengths, len(vocabulary))
    placed = _placed(items, lists.lengths, user_of_row, n_users, width, table)
    return Rankings(placed, lengths, len(vocabulary))


def _value_table(lists: SplitLists, vocabulary: pa.Array) -> np.ndarray | None:
    """The code of every value, by value (:func:`~scorer.align.integer_items.code_table`),
    when the lists were read as values; None otherwise."""
    return None if lists.values is None else code_table(lists.values, vocabulary)


def _placed(
    items: np.ndarray,
    row_lengths: np.ndarray,
    user_of_row: np.ndarray,
    n_users: int,
    width: int,
    table: np.ndarray | None = None,
) -> np.ndarray:
    """The ``n_users x width`` matrix of each kept row's first ``width`` codes (rows
    flat in ``items``, ``row_lengths`` each), ``PAD`` after a row's end; with a
    ``table``, ``items`` are values and each one's code is ``table[value]``.

    Stored rank-major, as the column passes read it, and filled a block of rows at a
    time, rank by rank: a block's codes stay in cache while its ranks are gathered
    (three times faster than gathering each rank from all the rows), and no array
    of every token's destination is made. Kept rows (``user_of_row >= 0``) are
    distinct users.

    Examples
    --------
    >>> _placed(np.array([7, 8, 9, 5]), np.array([3, 1, 0]), np.array([1, 0, -1]), 3, 2)
    array([[ 5, -1],
           [ 7,  8],
           [-1, -1]], dtype=int32)
    >>> table = np.array([-1, -1, -1, -1, -1, 50, -1, 70, 80, 90], dtype=np.int32)
    >>> _placed(np.array([7, 8, 9, 5]), np.array([3, 1, 0]), np.array([1, 0, -1]), 3, 2, table)
    array([[50, -1],
           [70, 80],
           [-1, -1]], dtype=int32)
    """
    columns = full_on_two_cores((width, n_users), PAD, np.int32)
    starts = np.cumsum(row_lengths) - row_lengths
    # Wide rankings (rare) are placed in one block: blocks * ranks numpy steps stay
    # at most one per 64 rows, whatever the width.
    block_rows = _PLACED_BLOCK_CODES // max(width, 1) if width <= 64 else len(row_lengths)
    block_rows = max(block_rows, 1)

    def place(first: int) -> None:  # blocks hold distinct users: no two write one place
        block = slice(first, first + block_rows)
        users, block_starts = user_of_row[block], starts[block]
        reached = np.where(users >= 0, np.minimum(row_lengths[block], width), 0)
        rows = np.flatnonzero(reached)
        for rank in range(width):
            if rank:
                rows = rows[reached[rows] > rank]
            if len(rows) == 0:
                break
            taken = items[block_starts[rows] + rank]
            columns[rank, users[rows]] = taken if table is None else table[taken]

    on_two_cores(place, range(0, len(row_lengths), block_rows))
    return columns.T


#: Codes placed per block by :func:`_placed` (1 MiB of int32: they stay in cache).
_PLACED_BLOCK_CODES = 1 << 18


def _is_full(lists: SplitLists, user_of_row: np.ndarray, n_users: int, width: int) -> bool:
    """Whether every user has exactly one row, of exactly ``width`` predictions."""
    return bool(width) and _is_permutation(user_of_row, n_users) and (lists.lengths == width).all()


def _many_fixed_width(lists: SplitLists, width: int) -> bool:
    """Whether the rankings can be keyed by fingerprints: many fixed-width items, in
    rows no wider than :meth:`GroundTruth.contains_rows` compares pairwise."""
    if lists.uniform is None or lists.uniform[..., 0].size < FIXED_WIDTH_MIN_ROWS:
        return False
    return width <= _DENSE_MAX_WIDTH


def _same_width(vocabulary: pa.Array, width: int) -> bool:
    """Whether every vocabulary item is ``width`` bytes long (else fingerprints of
    ``width``-byte items cannot be compared with it)."""
    rows = fixed_width_bytes(vocabulary)
    return width > 0 and rows is not None and rows.shape[1] == width


def _item_codes(
    lists: SplitLists, vocabulary: pa.Array, kept: np.ndarray | None = None
) -> np.ndarray:
    """Each token's (or each ``kept`` token's) index in the vocabulary, or for an item
    outside it a code past the vocabulary, equal for equal items (int32): by value
    when every item is a canonical decimal integer (from the lists' values if they
    were read as such, :func:`~scorer.align.integer_items.integer_codes` otherwise),
    else by the strings."""
    read_as_values = lists.values is not None  # then they alone decide: no second pass
    if read_as_values:
        values = lists.values if kept is None else lists.values[kept]
        codes = integer_codes_of_values(values, vocabulary)
        if codes is not None:
            return codes
    tokens = lists.tokens if kept is None else lists.take(kept)
    codes = None if read_as_values else integer_codes(tokens, vocabulary)
    if codes is not None:
        return codes
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
