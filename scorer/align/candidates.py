"""Re-ranking competitions: rankings checked against each row's candidates, and
predictions the solution does not judge dropped (trec_eval ``-J``).

Both compare (row, item) pairs of two flat lists: a submission's predicted items and
the candidates (or the solution's judged items) of the same rows. The host's pairs are
numbered once, sorted (:class:`PairIndex`); the submission's are looked up among them a
chunk at a time, never by an unseeded hash of the participant's strings, and counted with
numpy: no loop over rows or items, and no temporary the size of both lists together.

Candidates are public in these competitions (participants are given them), so a
problem may quote the submitted items that are not candidates; it never says which
candidates are relevant. Problems are returned as records, not raised, so that validation can
report them with every other problem at once.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from scorer.align.item_lists import SplitLists
from scorer.align.joins import StringIndex, encode
from scorer.arrays import BLOCK_ROWS, search_sorted, text_column, to_arrow
from scorer.errors import Finding, smallest_of, smallest_values
from scorer.options import CandidateRule

#: Pairs looked up at a time: a quarter of a chunk, since each takes some 40 bytes of
#: temporaries (its row, item number, print, key and position).
LOOKUP_ROWS = BLOCK_ROWS // 4


class PairIndex:
    """The distinct (row, item) pairs of a host's lists (candidates, judged or relevant
    items), sorted, for looking pairs up a chunk at a time.

    The host's items are numbered by a dictionary (:func:`~scorer.align.joins.encode`),
    each pair becomes one integer key (row times the dictionary's size plus the item's
    number), and the keys are sorted and deduplicated in place. A looked-up item is
    found among the dictionary's strings by keyed prints (never an unseeded hash of a
    participant's strings) and its key by a binary search: no temporary holds more than
    a chunk of the looked-up pairs, and the index itself takes 4 bytes a distinct pair
    (8 past 2**31 keys).

    Parameters
    ----------
    rows : ndarray of int
        The row of each of the host's pairs.
    items : pyarrow.Array
        The item of each pair.

    Examples
    --------
    >>> pairs = PairIndex(np.array([1, 0, 1, 1]), pa.array(["b", "a", "a", "b"]))
    >>> pairs.n_pairs, pairs.rows().tolist()
    (3, [0, 1, 1])
    >>> pairs.find(np.array([1, 1, 0, -1, 0]), pa.array(["a", "z", "b", "a", "a"])).tolist()
    [2, -1, -1, -1, 0]
    """

    def __init__(self, rows: np.ndarray, items: pa.Array) -> None:
        codes, dictionary = encode(text_column(items))
        self._items = StringIndex(dictionary)
        self._width = max(len(dictionary), 1)
        #: Keys run up to (the largest row + 1) times the width: int32 when that fits.
        self._end = (int(rows.max(initial=-1)) + 1) * self._width
        keys = np.empty(len(codes), dtype=np.int32 if self._end < 2**31 else np.int64)
        for start in range(0, len(keys), LOOKUP_ROWS):
            chunk = keys[start : start + LOOKUP_ROWS]
            chunk[:] = rows[start : start + LOOKUP_ROWS]
            chunk *= self._width
            chunk += codes[start : start + LOOKUP_ROWS]
        del codes
        keys.sort()
        self._keys = _distinct_in_place(keys)

    @property
    def n_pairs(self) -> int:
        """The number of distinct pairs."""
        return len(self._keys)

    def rows(self, selected: np.ndarray | None = None) -> np.ndarray:
        """The row of each distinct pair (of the selected ones, a boolean mask)."""
        keys = self._keys if selected is None else self._keys[selected]
        return keys // self._width

    def find(self, rows: np.ndarray, items: pa.Array) -> np.ndarray:
        """The number of each (row, item) pair among the distinct pairs, or -1 (a row
        below 0 is never found). For a chunk of pairs at a time (:data:`LOOKUP_ROWS`):
        the temporaries are a few times its size."""
        if self.n_pairs == 0 or len(rows) == 0:
            return np.full(len(rows), -1, dtype=np.int64)
        codes = self._items.find(items)
        keys = rows.astype(np.int64)
        keys *= self._width
        keys += codes
        hit = (codes >= 0) & (rows >= 0) & (keys < self._end)
        del codes
        keys[~hit] = 0  # in range for the keys' type; never counted as found
        keys = keys.astype(self._keys.dtype, copy=False)
        # Searched in the order of their leading bits: each search then starts near
        # where the last one ended, several times faster than random probes.
        found = search_sorted(self._keys, keys, span=self._end).astype(np.int64, copy=False)
        np.minimum(found, self.n_pairs - 1, out=found)
        hit &= self._keys[found] == keys
        found[~hit] = -1
        return found

    def find_in_chunks(
        self, rows: np.ndarray, items: pa.Array
    ) -> Iterator[tuple[int, np.ndarray, pa.Array, np.ndarray]]:
        """:meth:`find` over long lists, :data:`LOOKUP_ROWS` pairs at a time: for each
        chunk, its first position, its rows, its items and what :meth:`find` gives."""
        for start in range(0, len(rows), LOOKUP_ROWS):
            chunk_rows = rows[start : start + LOOKUP_ROWS]
            chunk_items = items.slice(start, len(chunk_rows))
            yield start, chunk_rows, chunk_items, self.find(chunk_rows, chunk_items)


def _distinct_in_place(keys: np.ndarray) -> np.ndarray:
    """The distinct values of a sorted array, moved to its front a chunk at a time
    (a view of that front, or a copy when far smaller).

    Examples
    --------
    >>> _distinct_in_place(np.array([1, 1, 2, 5, 5, 5])).tolist()
    [1, 2, 5]
    """
    n_kept = 0
    for start in range(0, len(keys), LOOKUP_ROWS):
        chunk = keys[start : start + LOOKUP_ROWS + 1]
        if start == 0:
            new = np.concatenate(([True], chunk[1:] != chunk[:-1]))
        else:
            new = chunk[1:] != chunk[:-1]
            chunk = chunk[1:]
        kept = chunk[new]  # a copy: the front it is written to may overlap the chunk
        keys[n_kept : n_kept + len(kept)] = kept
        n_kept += len(kept)
    return keys[:n_kept].copy() if 2 * n_kept < len(keys) else keys[:n_kept]


def _add_counts(counts: np.ndarray, found: np.ndarray) -> None:
    """Add to ``counts`` one for each entry of ``found`` (a chunk of pair numbers), by
    a sort of the chunk: no temporary the size of ``counts``.

    Examples
    --------
    >>> counts = np.zeros(4, dtype=np.int32)
    >>> _add_counts(counts, np.array([3, 0, 3]))
    >>> counts.tolist()
    [1, 0, 0, 2]
    """
    if len(found) == 0:
        return
    found = np.sort(found)
    starts = np.flatnonzero(np.concatenate(([True], found[1:] != found[:-1])))
    counts[found[starts]] += np.diff(np.append(starts, len(found))).astype(counts.dtype)


def candidate_problems(
    rule: CandidateRule,
    row_ids: pa.Array,
    submitted_rows: np.ndarray,
    submitted_items: pa.Array,
    candidates: PairIndex,
    skipped: np.ndarray | None = None,
) -> list[Finding]:
    """What breaks ``rule`` in a submission's rankings, given each row's candidates, as
    records (docs/shapes.md, "Candidates", for their words).

    Parameters
    ----------
    rule : {"permutation", "subset", "none"}
        ``"permutation"``: every candidate exactly once and nothing else;
        ``"subset"``: only candidates, each at most once; ``"none"``: no check.
    row_ids : pyarrow.Array
        The public row id of each row number (for examples: the smallest in byte order).
    submitted_rows, submitted_items : ndarray of int, pyarrow.Array
        The row number and item of each submitted prediction (a row below 0: not checked).
    candidates : PairIndex
        Each row's candidates, numbered (a candidate listed twice counts once).
    skipped : ndarray of bool, optional
        Rows not checked at all (their row id is duplicated in the submission: that is
        a problem of its own, and which of its rankings to check is no question to
        answer by the order of the file).

    Returns
    -------
    list of Finding
        Items that are not candidates (quoted: they are the participant's own, and
        candidates are public), candidates ranked twice, and for a permutation the rows
        missing candidates (counts only).

    Examples
    --------
    >>> ids = pa.array(["s1", "s2"])
    >>> found = candidate_problems("permutation", ids, np.array([0, 0, 1, 1]),
    ...                            pa.array(["a", "z", "c", "c"]),
    ...                            PairIndex(np.array([0, 0, 1]), pa.array(["a", "b", "c"])))
    >>> [f.kind for f in found]
    ['not_candidates', 'candidates_repeated', 'candidates_missing']
    >>> found[0]
    Finding(kind='not_candidates', counts=(('items', 1), ('rows', 1)), examples=('s1',), \
values=('z',))
    """
    if rule == "none":
        return []
    n_rows = len(row_ids)
    if skipped is None:
        skipped = np.zeros(n_rows, dtype=bool)
    ranked, foreign = _ranked_candidates(candidates, submitted_rows, submitted_items, skipped)
    found = [] if foreign is None else [foreign.with_examples(row_ids)]
    repeated = ranked > 1
    if repeated.any():
        rows = _marked(candidates.rows(repeated), n_rows)
        n_extra = int(ranked[repeated].sum(dtype=np.int64)) - int(np.count_nonzero(repeated))
        counts = (("rows", int(np.count_nonzero(rows))), ("extra", n_extra))
        found.append(Finding("candidates_repeated", counts, smallest_values(row_ids, rows)))
    missing = candidates.rows(ranked == 0) if rule == "permutation" else np.zeros(0, np.int64)
    missing = missing[~skipped[missing]]
    if len(missing):
        rows = _marked(missing, n_rows)
        counts = (("rows", int(np.count_nonzero(rows))), ("candidates", len(missing)))
        found.append(Finding("candidates_missing", counts, smallest_values(row_ids, rows)))
    return found


@dataclass(frozen=True)
class _Foreign:
    """Submitted items that are not their row's candidates, gathered chunk by chunk."""

    n_items: int
    rows: np.ndarray  # of each solution row, whether it ranks one
    items: tuple[str, ...]  # the five smallest, in byte order

    def with_examples(self, row_ids: pa.Array) -> Finding:
        counts = (("items", self.n_items), ("rows", int(np.count_nonzero(self.rows))))
        return Finding("not_candidates", counts, smallest_values(row_ids, self.rows), self.items)


def _ranked_candidates(
    pairs: PairIndex, submitted_rows: np.ndarray, submitted_items: pa.Array, skipped: np.ndarray
) -> tuple[np.ndarray, _Foreign | None]:
    """How often each candidate is ranked, and the items that are no candidate of their
    row, looked up a chunk of predictions at a time."""
    ranked = np.zeros(pairs.n_pairs, dtype=np.int32 if len(submitted_rows) < 2**31 else np.int64)
    foreign_rows = np.zeros(len(skipped), dtype=bool)
    n_foreign, shown, skip_any = 0, (), bool(skipped.any())
    for _, rows, items, found in pairs.find_in_chunks(submitted_rows, submitted_items):
        if skip_any:  # a skipped row's predictions are neither found nor foreign
            checked = ~skipped[np.maximum(rows, 0)]
            rows, found = np.where(checked, rows, -1), np.where(checked, found, -1)
        foreign = (found < 0) & (rows >= 0)
        if foreign.any():
            foreign_rows[rows[foreign]] = True
            n_foreign += int(np.count_nonzero(foreign))
            shown = smallest_of(shown, smallest_values(items, foreign))
        _add_counts(ranked, found[found >= 0])
    return ranked, _Foreign(n_foreign, foreign_rows, shown) if n_foreign else None


def drop_unjudged(
    predictions: SplitLists, user_of_row: np.ndarray, judged: SplitLists
) -> SplitLists:
    """The predictions without the items their user's solution row does not list
    (neither relevant nor judged grade 0), the ranks closed up (trec_eval ``-J``).

    Parameters
    ----------
    predictions : SplitLists
        The submission's lists, in submission row order.
    user_of_row : ndarray of int
        The solution row of each submission row (-1 for none: all dropped).
    judged : SplitLists
        The solution's item lists (every judged item, any grade), in solution order.

    Returns
    -------
    SplitLists
        The kept items of each row, in their order.

    Examples
    --------
    >>> from scorer.align.item_lists import split_lists
    >>> kept = drop_unjudged(split_lists(pa.array(["x a y b", "a"])), np.array([1, 0]),
    ...                      split_lists(pa.array(["c", "b a"])))
    >>> kept.lengths.tolist(), kept.tokens.to_pylist()
    ([2, 0], ['a', 'b'])
    """
    pairs = PairIndex(judged.row_of_token, judged.tokens)
    users = token_rows(predictions.lengths, user_of_row)
    tokens = predictions.tokens
    keep = np.empty(len(users), dtype=bool)
    for start, rows, _, found in pairs.find_in_chunks(users, tokens):
        keep[start : start + len(rows)] = found >= 0
    del users
    rows = token_rows(predictions.lengths)[keep]
    lengths = np.bincount(rows, minlength=len(predictions.lengths)).astype(np.int64)
    return SplitLists(lengths, tokens.filter(to_arrow(keep)))


def non_relevant_counts(
    candidates: PairIndex,
    truth_rows: np.ndarray,
    truth_items: pa.Array,
    n_users: int,
) -> np.ndarray:
    """Each row's distinct candidates that are not relevant (the pair measures'
    non-relevant items, under binary relevance).

    Parameters
    ----------
    candidates : PairIndex
        Each row's candidates, numbered.
    truth_rows, truth_items : ndarray of int, pyarrow.Array
        Each relevant pair's solution row and item.
    n_users : int
        The solution's rows.

    Examples
    --------
    >>> candidates = PairIndex(np.array([0, 0, 0, 0, 1, 1]),
    ...                        pa.array(["a", "b", "c", "b", "d", "e"]))
    >>> non_relevant_counts(candidates, np.array([0, 1]), pa.array(["a", "e"]), 2).tolist()
    [2, 1]
    """
    relevant = np.zeros(candidates.n_pairs, dtype=bool)
    for *_, found in candidates.find_in_chunks(truth_rows, truth_items):
        relevant[found[found >= 0]] = True
    return np.bincount(candidates.rows(~relevant), minlength=n_users).astype(np.int64)


def token_rows(lengths: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """The row of each item of lists of these lengths (``rows[i]`` for list ``i`` when
    given), in the narrowest integer type that holds them.

    Examples
    --------
    >>> token_rows(np.array([2, 0, 1])).tolist()
    [0, 0, 2]
    >>> token_rows(np.array([1, 2]), np.array([7, -1])).tolist()
    [7, -1, -1]
    """
    if rows is None:
        rows = np.arange(len(lengths))
    kind = np.int32 if len(lengths) < 2**31 and rows.max(initial=0) < 2**31 else np.int64
    return np.repeat(rows.astype(kind, copy=False), lengths)


def _marked(rows: np.ndarray, n_rows: int) -> np.ndarray:
    """Which of ``n_rows`` rows are listed in ``rows``."""
    marked = np.zeros(n_rows, dtype=bool)
    marked[rows] = True
    return marked
