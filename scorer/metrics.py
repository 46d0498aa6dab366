"""Pure MAP@K maths on plain numpy arrays: no DataFrames, no column names, no I/O.

A ranking is a row of a ``users x width`` matrix of integer item codes, best first,
padded with ``-1``. Every function here is vectorised over users; loops run over
the (small) width only, in a fixed order, so each user's value is bit-identical
wherever the user sits in the matrix.
"""

from __future__ import annotations

import math

import numpy as np

PAD = -1
_PAIRWISE_MAX_WIDTH = 32


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
        first = codes != PAD
        for later in range(1, codes.shape[1]):
            for earlier in range(later):
                first[:, later] &= codes[:, later] != codes[:, earlier]
        return first
    order = np.argsort(codes, axis=1, kind="stable")
    ordered = np.take_along_axis(codes, order, axis=1)
    repeated_sorted = np.zeros(codes.shape, dtype=bool)
    repeated_sorted[:, 1:] = ordered[:, 1:] == ordered[:, :-1]
    first = np.empty(codes.shape, dtype=bool)
    np.put_along_axis(first, order, ~repeated_sorted, axis=1)
    return first & (codes != PAD)


def average_precision(
    relevance: np.ndarray, n_relevant: np.ndarray, k: int, normalization: str = "min_k"
) -> np.ndarray:
    """AP@K of every user from a matrix of binary relevance.

    Parameters
    ----------
    relevance : ndarray of bool, shape (n_users, width)
        ``rel(i)`` of SPEC §1.1: a hit that is the first occurrence of its item.
        ``width`` must be at most ``k``.
    n_relevant : ndarray of int, shape (n_users,)
        ``|R_u|``, the number of unique relevant items.
    k : int
        The cut-off.
    normalization : {"min_k", "relevant", "hits"}
        Denominator: ``min(|R|, k)``, ``|R|`` or the number of hits. A user whose
        denominator is 0 scores 0.

    Returns
    -------
    ndarray of float64, shape (n_users,)

    Examples
    --------
    >>> rel = np.array([[0, 1, 0, 0, 1, 0, 1, 0, 1, 0]], dtype=bool)
    >>> average_precision(rel, np.array([4]), k=10)  # 1117/2520
    array([0.44325397])
    >>> average_precision(rel, np.array([4]), k=10, normalization="hits")
    array([0.44325397])
    >>> average_precision(rel, np.array([8]), k=10, normalization="relevant")
    array([0.22162698])
    """
    relevance = np.asarray(relevance, dtype=bool)
    n_users, width = relevance.shape
    if width > k:
        raise ValueError(f"relevance has {width} columns, more than k={k}")
    summed_precision = np.zeros(n_users)
    hits = np.zeros(n_users, dtype=np.int64)
    for rank in range(width):
        column = relevance[:, rank]
        hits += column
        summed_precision += np.where(column, hits / (rank + 1), 0.0)
    n_relevant = np.asarray(n_relevant, dtype=np.int64)
    if normalization == "min_k":
        denominator = np.minimum(n_relevant, k)
    elif normalization == "relevant":
        denominator = n_relevant
    elif normalization == "hits":
        denominator = hits
    else:
        raise ValueError(f"unknown normalization {normalization!r}")
    safe = np.maximum(denominator, 1)
    return np.where(denominator > 0, summed_precision / safe, 0.0)


def hit_counts(relevance: np.ndarray) -> np.ndarray:
    """Number of credited hits per user.

    Examples
    --------
    >>> hit_counts(np.array([[True, False, True]]))
    array([2])
    """
    return np.asarray(relevance, dtype=bool).sum(axis=1, dtype=np.int64)


def exact_mean(values: np.ndarray) -> float:
    """Mean computed with a correctly rounded sum, so it ignores the order of ``values``.

    Examples
    --------
    >>> exact_mean(np.array([0.25, 0.5, 0.75]))
    0.5
    >>> exact_mean(np.array([1e16, 1.0, -1e16])) == 1 / 3  # a naive sum gives 0
    True
    """
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0:
        raise ValueError("the mean of no value is undefined")
    return math.fsum(values.tolist()) / values.size
