"""Which slots of a ranking hold an item's first occurrence: a repeated item is
credited once, at its best rank.

A ranking is a row of a ``users x width`` matrix of integer item codes, best first,
padded with :data:`PAD`.
"""

from __future__ import annotations

import numpy as np

from scorer.arrays import parallel_map

PAD = -1
_PAIRWISE_MAX_WIDTH = 32
_BLOCK_USERS = 1 << 14


def first_occurrence(codes: np.ndarray) -> np.ndarray:
    """Mark the first occurrence of each item in each row; padding is never marked.

    Parameters
    ----------
    codes : ndarray of int, shape (n_users, width)
        Item codes, ``-1`` for an empty slot.

    Returns
    -------
    ndarray of bool, shape (n_users, width)

    Examples
    --------
    >>> first_occurrence(np.array([[3, 3, 5, -1], [1, 2, 1, 2]]))
    array([[ True, False,  True, False],
           [ True,  True, False, False]])
    """
    codes = np.asarray(codes)
    if codes.shape[1] <= _PAIRWISE_MAX_WIDTH:
        # Compare rank columns, each contiguous (3x faster than strided columns): a
        # transposed copy unless the matrix is stored rank-major already; the result
        # is stored rank-major too.
        columns = np.ascontiguousarray(codes.T)
        first = columns != PAD

        def mark(start: int) -> None:
            # A block of users at a time, in cache for all the pairs of ranks (each
            # pair otherwise streams two whole columns from memory), two at a time.
            block = slice(start, start + _BLOCK_USERS)
            ranks, marked = columns[:, block], first[:, block]
            differs = np.empty(ranks.shape[1], dtype=bool)
            for later in range(1, len(ranks)):
                for earlier in range(later):
                    np.not_equal(ranks[later], ranks[earlier], out=differs)
                    marked[later] &= differs

        parallel_map(mark, range(0, columns.shape[1], _BLOCK_USERS))
        return first.T
    order = np.argsort(codes, axis=1, kind="stable")
    ordered = np.take_along_axis(codes, order, axis=1)
    repeated_sorted = np.zeros(codes.shape, dtype=bool)
    repeated_sorted[:, 1:] = ordered[:, 1:] == ordered[:, :-1]
    first = np.empty(codes.shape, dtype=bool)
    np.put_along_axis(first, order, ~repeated_sorted, axis=1)
    return first & (codes != PAD)
