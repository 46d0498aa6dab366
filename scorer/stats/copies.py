"""Copies among submissions: rankings identical in every row, and pairs identical in most.

A submission's ranking of a row is its first ``k`` items as read (whitespace, line
endings and row order do not count; repeats count as written). Each row's ranking is
summarised by a 64-bit print of its items under a key derived from the solution's bytes
(:func:`copy_key`), which no participant can know, so no one can make two different
rankings print alike; two different rows print alike about once in 2**64. Rankings are
"identical" when every row's print agrees; near copies compare the low 32 bits of the
prints row by row. Nothing here is shown to participants (docs/leaderboard.md, "How it is decided").
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from scorer.align.item_lists import SplitLists
from scorer.align.joins import byte_prints
from scorer.arrays import offsets_of, string_offsets, to_arrow

#: Pairs whose rankings agree in at least this share of rows are listed.
NEAR_COPY_SHARE = 0.9


@dataclass(frozen=True)
class Copies:
    """The copies found among the valid submissions (names in byte order).

    Attributes
    ----------
    identical : tuple of tuple of str
        Groups of two or more submissions whose rankings agree in every row.
    similar : tuple of (str, str, float)
        Pairs (not in one group) whose rankings agree in at least
        :data:`NEAR_COPY_SHARE` of the solution's rows, with that share.
    """

    identical: tuple[tuple[str, ...], ...] = ()
    similar: tuple[tuple[str, str, float], ...] = ()


def copy_key(solution_digest: bytes) -> tuple[int, int]:
    """The print key (an odd multiplier and a start) from a digest of the solution.

    Examples
    --------
    >>> multiplier, start = copy_key(bytes(range(16)))
    >>> multiplier % 2, copy_key(bytes(range(16))) == (multiplier, start)
    (1, True)
    """
    words = np.frombuffer(solution_digest[:16], dtype="<u8")
    return int(words[0]) | 1, int(words[1])


def row_prints(
    predictions: SplitLists,
    user_of_row: np.ndarray,
    n_users: int,
    k: int | None,
    key: tuple[int, int],
) -> np.ndarray:
    """Each solution row's print of the ranking a submission gives it (its first ``k``
    items; a row the submission lacks ranks nothing): uint64.

    A row's print joins two keyed prints (:func:`~scorer.align.joins.byte_prints`):
    of its items' bytes one after the other, read where the split left them, and of
    the items' lengths (4 bytes each), which tell ``ab c`` from ``a bc``. No text of
    a row is made: the items are cut to their first ``k`` only in a row that has more.

    Examples
    --------
    >>> from scorer.align.item_lists import split_lists
    >>> lists = split_lists(pa.array(["ab c", "b", "ab  c\tx", "a bc"]))
    >>> prints = row_prints(lists, np.array([0, 1, 2, 3]), 5, 2, (3, 5))
    >>> bool(prints[0] == prints[2]), len(set(prints.tolist()))
    (True, 4)
    """
    lengths = predictions.lengths
    tokens = predictions.tokens.cast(pa.large_string())
    if k is not None and lengths.max(initial=0) > k:  # truncate: the first k count
        tokens = pc.list_flatten(pc.list_slice(_lists(tokens, lengths), 0, k))
        lengths = np.minimum(lengths, k)
    data = tokens.buffers()[2]
    memory = np.frombuffer(data, np.uint8) if data is not None else np.zeros(0, np.uint8)
    prints = _ranking_prints(memory, string_offsets(tokens), offsets_of(lengths), key)
    empty = _ranking_prints(memory[:0], np.zeros(1, np.int64), np.zeros(2, np.int64), key)
    found = np.full(n_users, empty[0], dtype=np.uint64)
    kept = user_of_row >= 0
    found[user_of_row[kept]] = prints[kept]
    return found


def _lists(tokens: pa.Array, lengths: np.ndarray) -> pa.LargeListArray:
    """The items as one list per row."""
    return pa.LargeListArray.from_arrays(to_arrow(offsets_of(lengths)), tokens)


def _ranking_prints(
    memory: np.ndarray, token_offsets: np.ndarray, row_starts: np.ndarray, key: tuple[int, int]
) -> np.ndarray:
    """The print of each row's items (``row_starts``: the first item of each row, and
    the end) from their bytes and their lengths (uint64)."""
    text = byte_prints(memory, token_offsets[row_starts], key).view(np.uint64)
    widths = np.diff(token_offsets).astype("<u4").view(np.uint8)
    cuts = byte_prints(widths, 4 * row_starts, key).view(np.uint64)
    text *= np.uint64(key[0])
    text ^= cuts
    return text


def ranking_digest(prints: np.ndarray) -> str:
    """One digest of a submission's rankings of every row (its rows' prints in the
    solution's order): equal for identical rankings."""
    return hashlib.blake2b(prints.astype("<u8").tobytes(), digest_size=16).hexdigest()


def find_copies(names: list[str], digests: list[str], rows: np.ndarray) -> Copies:
    """Group identical rankings and list the near copies.

    Parameters
    ----------
    names : list of str
        The valid submissions.
    digests : list of str
        Their :func:`ranking_digest`.
    rows : ndarray of uint32, shape (submissions, rows)
        The low 32 bits of each row's print, one line per submission.

    Notes
    -----
    Each pair of distinct rankings is compared row by row (a vectorised comparison of
    two contiguous lines): about submissions**2 / 2 * rows comparisons.

    Examples
    --------
    >>> rows = np.array([[1, 2] * 10, [1, 2] * 10, [1, 5] * 10, [7, 8] * 10], dtype=np.uint32)
    >>> found = find_copies(["a", "b", "c", "d"], ["x", "x", "y", "z"], rows)
    >>> found.identical, found.similar
    ((('a', 'b'),), ())
    >>> rows[2, 0] = 9; rows[2, 1:] = rows[0, 1:]
    >>> find_copies(["a", "b", "c", "d"], ["x", "x", "y", "z"], rows).similar
    (('a', 'c', 0.95), ('b', 'c', 0.95))
    """
    order = sorted(range(len(names)), key=lambda i: names[i])
    groups: dict[str, list[int]] = {}
    for index in order:
        groups.setdefault(digests[index], []).append(index)
    members = list(groups.values())
    identical = tuple(tuple(names[i] for i in group) for group in members if len(group) > 1)
    n_rows = rows.shape[1] if rows.ndim == 2 else 0
    similar = []
    for a, first in enumerate(members):  # every pair of distinct rankings
        for second in members[a + 1 :]:
            shared = int(np.count_nonzero(rows[first[0]] == rows[second[0]]))
            if shared >= NEAR_COPY_SHARE * n_rows:
                similar += [
                    (*sorted((names[i], names[j])), shared / n_rows) for i in first for j in second
                ]
    return Copies(identical, tuple(sorted(similar)))  # type: ignore[arg-type]
