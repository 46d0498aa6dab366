"""Re-ranking competitions: rankings checked against each row's candidates, and
predictions the solution does not judge dropped (trec_eval ``-J``).

Both compare (row, item) pairs of two flat lists: a submission's predicted items and
the candidates (or the solution's judged items) of the same rows. The pairs are
matched by one sort over integer codes (:func:`pair_groups`), never by a hash of the
participant's strings, and counted with numpy: no loop over rows or items.

Candidates are public in these competitions (participants are given them), so a
problem may quote the submitted items that are not candidates; it never says which
candidates are relevant. Problems are returned as records, not raised, so that validation can
report them with every other problem at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from scorer.align.item_lists import SplitLists
from scorer.align.joins import byte_order_codes, sorted_codes
from scorer.arrays import text_column, to_arrow
from scorer.errors import MAX_EXAMPLES, Finding, smallest_values
from scorer.options import CandidateRule


@dataclass(frozen=True)
class PairGroups:
    """Each (row, item) pair of two flat lists, numbered.

    Attributes
    ----------
    left, right : ndarray of int32 (int64 past 2**31 entries)
        The pair number of each entry of the first and of the second list.
    n_left, n_right : ndarray of int64
        For each pair number, how many entries of each list hold it.
    """

    left: np.ndarray
    right: np.ndarray
    n_left: np.ndarray
    n_right: np.ndarray


def pair_groups(
    left_rows: np.ndarray, left_items: pa.Array, right_rows: np.ndarray, right_items: pa.Array
) -> PairGroups:
    """Number the distinct (row, item) pairs of two flat lists by one sort.

    Examples
    --------
    >>> groups = pair_groups(np.array([0, 0, 1]), pa.array(["a", "a", "a"]),
    ...                      np.array([0, 1, 1]), pa.array(["a", "b", "a"]))
    >>> groups.left.tolist(), groups.right.tolist()
    ([0, 0, 1], [0, 2, 1])
    >>> groups.n_left.tolist(), groups.n_right.tolist()
    ([2, 1, 0], [1, 1, 1])
    """
    n_left = len(left_rows)
    items = pa.concat_arrays([text_column(left_items), text_column(right_items)])
    codes = sorted_codes(items)  # equal items, equal codes: the numbering itself is unused
    del items
    width = int(codes.max(initial=0)) + 1
    keys = np.concatenate([left_rows, right_rows]).astype(np.int64)
    keys *= width
    keys += codes
    del codes
    order = np.argsort(keys)
    keys = keys[order]
    starts = np.ones(len(keys), dtype=bool)
    np.not_equal(keys[1:], keys[:-1], out=starts[1:])
    del keys
    kind = np.int32 if len(order) < 2**31 else np.int64
    numbers = np.empty(len(order), dtype=kind)
    numbers[order] = np.cumsum(starts, dtype=kind) - 1
    del order
    n_pairs = int(np.count_nonzero(starts))
    left, right = numbers[:n_left], numbers[n_left:]
    return PairGroups(
        left,
        right,
        np.bincount(left, minlength=n_pairs),
        np.bincount(right, minlength=n_pairs),
    )


def candidate_problems(
    rule: CandidateRule,
    row_ids: pa.Array,
    submitted_rows: np.ndarray,
    submitted_items: pa.Array,
    candidate_rows: np.ndarray,
    candidate_items: pa.Array,
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
        The row number and item of each submitted prediction.
    candidate_rows, candidate_items : ndarray of int, pyarrow.Array
        The row number and item of each candidate (a candidate listed twice counts once).

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
    ...                            np.array([0, 0, 1]), pa.array(["a", "b", "c"]))
    >>> [f.kind for f in found]
    ['not_candidates', 'candidates_repeated', 'candidates_missing']
    >>> found[0]
    Finding(kind='not_candidates', counts=(('items', 1), ('rows', 1)), examples=('s1',), \
values=('z',))
    """
    if rule == "none":
        return []
    n_rows = len(row_ids)
    groups = pair_groups(submitted_rows, submitted_items, candidate_rows, candidate_items)
    found = []
    foreign = groups.n_right[groups.left] == 0
    if foreign.any():
        rows = _rows_of(submitted_rows, foreign, n_rows)
        counts = (("items", int(np.count_nonzero(foreign))), ("rows", int(np.count_nonzero(rows))))
        items = tuple(_smallest_items(submitted_items, foreign))
        found.append(Finding("not_candidates", counts, smallest_values(row_ids, rows), items))
    repeated = ~foreign & (groups.n_left[groups.left] > 1)
    if repeated.any():
        rows = _rows_of(submitted_rows, repeated, n_rows)
        n_extra = int(np.count_nonzero(repeated)) - int(
            np.count_nonzero(np.bincount(groups.left[repeated]))
        )
        counts = (("rows", int(np.count_nonzero(rows))), ("extra", n_extra))
        found.append(Finding("candidates_repeated", counts, smallest_values(row_ids, rows)))
    if rule == "permutation":
        missing = groups.n_left[groups.right] == 0
        if missing.any():
            left_out = np.zeros(len(groups.n_left), dtype=bool)
            left_out[groups.right[missing]] = True  # a candidate listed twice counts once
            rows = _rows_of(candidate_rows, missing, n_rows)
            counts = (
                ("rows", int(np.count_nonzero(rows))),
                ("candidates", int(np.count_nonzero(left_out))),
            )
            found.append(Finding("candidates_missing", counts, smallest_values(row_ids, rows)))
    return found


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
    token_rows = predictions.row_of_token
    users = user_of_row[token_rows]
    groups = pair_groups(users, predictions.tokens, judged.row_of_token, judged.tokens)
    keep = (groups.n_right[groups.left] > 0) & (users >= 0)
    lengths = np.bincount(token_rows[keep], minlength=len(predictions.lengths)).astype(np.int64)
    return SplitLists(lengths, predictions.tokens.filter(to_arrow(keep)))


def non_relevant_counts(
    candidate_rows: np.ndarray,
    candidate_items: pa.Array,
    truth_rows: np.ndarray,
    truth_items: pa.Array,
    n_users: int,
) -> np.ndarray:
    """Each row's distinct candidates that are not relevant (the pair measures'
    non-relevant items, under binary relevance).

    Parameters
    ----------
    candidate_rows, candidate_items : ndarray of int64, pyarrow.Array
        Each candidate's solution row and item.
    truth_rows, truth_items : ndarray of int64, pyarrow.Array
        Each relevant pair's solution row and item.
    n_users : int
        The solution's rows.

    Examples
    --------
    >>> non_relevant_counts(np.array([0, 0, 0, 0, 1, 1]), pa.array(["a", "b", "c", "b", "d", "e"]),
    ...                     np.array([0, 1]), pa.array(["a", "e"]), 2).tolist()
    [2, 1]
    """
    groups = pair_groups(candidate_rows, candidate_items, truth_rows, truth_items)
    other = groups.n_right[groups.left] == 0  # a candidate that is not relevant
    first = np.zeros(len(other), dtype=bool)
    first[np.unique(groups.left, return_index=True)[1]] = True  # each pair once
    return np.bincount(candidate_rows[other & first], minlength=n_users).astype(np.int64)


def _rows_of(rows: np.ndarray, flags: np.ndarray, n_rows: int) -> np.ndarray:
    """Which of ``n_rows`` rows hold a flagged entry."""
    marked = np.zeros(n_rows, dtype=bool)
    marked[rows[flags]] = True
    return marked


def _smallest_items(items: pa.Array, flags: np.ndarray) -> list[str]:
    """Up to five distinct flagged items, the smallest first (byte order)."""
    _, distinct = byte_order_codes(text_column(items).filter(to_arrow(flags)))
    return [str(v) for v in distinct.slice(0, MAX_EXAMPLES).to_pylist()]
