"""The long layout: one row per (row id, item), turned into the wide form.

A long submission ranks each row id's items by a rank column (integers >= 1, best
first, gaps allowed), by a score column (finite numbers, higher first, ties broken
by item id in byte order) or by the file's order of its rows. A long solution lists
one row per (row id, relevant item), with an optional grade per row; a row id with no
relevant item is listed once with an empty item cell. Both become one row per row id
with a list cell of items (best first for a submission; in byte order, with aligned
grades, for a solution), which the rest of the scorer already takes.

Everything is a sort over integer codes (:func:`~scorer.align.joins.byte_order_codes`,
never a hash of the participant's strings) and numpy over whole columns: no loop over
rows. Row ids come out in byte order, so the wide form is the same bit for bit in any
row order. Problems are returned as :class:`~scorer.errors.Finding` records (a kind,
counts, the smallest example row ids in byte order, the column's name), never raised
and put into words only at the end (:mod:`scorer.check.findings`), so that validation
can report them with every other problem at once and a run scored in parts adds its
parts' records up into the whole run's words.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from scorer.align.item_lists import ListCells
from scorer.align.joins import StringIndex, byte_order_codes, run_starts
from scorer.arrays import (
    BLOCK_ROWS,
    offsets_of,
    parallel_all,
    sort_with_order,
    string_bytes,
    string_offsets,
    text_column,
    to_arrow,
    to_numpy,
)
from scorer.constraints import DECIMAL
from scorer.errors import MAX_EXAMPLES, Finding

#: A rank or a grade: a whole number of at most this many digits (fits an int64),
#: leading zeros aside.
MAX_RANK_DIGITS = 18
_WHOLE_NUMBER = rf"^0*[0-9]{{1,{MAX_RANK_DIGITS}}}$"
_TOO_MANY_DIGITS = rf"^0*[1-9][0-9]{{{MAX_RANK_DIGITS},}}$"


@dataclass(frozen=True)
class WideRankings:
    """A long submission in the wide form.

    Attributes
    ----------
    row_ids : pyarrow.Array
        Each row id once (``large_string``): in byte order, or, for a file grouped by
        row id and ranked (:func:`_ranked_runs`), in the file's order.
    items : pyarrow.LargeListArray
        For each row id, its items best first (a repeated item keeps its slot).
    n_repeated_pairs : int or None
        Rows that repeat an earlier (row id, item) pair (None unless asked for).
    repeated : ndarray of bool or None
        Which row ids hold a repeated pair (None unless asked for).
    problems : tuple of Finding
        What is wrong with the ranks, scores or item cells (empty when valid).
    """

    row_ids: pa.Array
    items: pa.LargeListArray
    n_repeated_pairs: int | None
    repeated: np.ndarray | None
    problems: tuple[Finding, ...]


@dataclass(frozen=True)
class WideSolution:
    """A long solution in the wide form.

    Attributes
    ----------
    row_ids : pyarrow.Array
        Each row id once, in byte order.
    items : pyarrow.LargeListArray
        For each row id, its listed items in byte order (empty for a row id listed
        only with an empty item cell; a pair listed twice stays twice).
    grades : pyarrow.LargeListArray or None
        The grade text of each item, aligned with ``items`` (the form of the wide
        solution's grade column); None without a grade column.
    n_repeated_pairs : int
        Rows that repeat an earlier (row id, item) pair (a host warning: counted once).
    repeated : ndarray of bool
        Which row ids hold a repeated pair.
    problems : tuple of Finding
        What is wrong with the item or grade cells (empty when valid).
    """

    row_ids: pa.Array
    items: pa.LargeListArray
    grades: pa.LargeListArray | None
    n_repeated_pairs: int
    repeated: np.ndarray
    problems: tuple[Finding, ...]


@dataclass
class _LongRows:
    """The long table's rows, coded: each row's row id (byte-order code), and the rows
    that hold an item with their item (and its byte-order code)."""

    row_ids: pa.Array
    row_code: np.ndarray
    with_item: np.ndarray
    items: pa.Array
    problems: list[Finding]

    @cached_property
    def item_code(self) -> np.ndarray:
        """Each item row's item as a byte-order code (made only when asked for: a
        valid ranking by rank needs none)."""
        return byte_order_codes(self.items)[0]

    @classmethod
    def from_columns(cls, row_ids: pa.Array, cells: pa.Array, item_name: str) -> _LongRows:
        row_code, distinct = byte_order_codes(row_ids)
        cells = ListCells(text_column(cells))
        lengths = cells.lengths
        problems = []
        several = lengths > 1
        if several.any():
            problems.append(
                Finding(
                    "several_items_in_cell",
                    (("rows", int(np.count_nonzero(several))),),
                    smallest_flagged(distinct, row_code, several),
                    (item_name,),
                )
            )
        one = lengths == 1
        with_item = np.flatnonzero(one)
        split = cells.split()
        if one.all():  # one item a row, as a valid long file has: the tokens are the items
            items = split.tokens
        else:
            starts = np.cumsum(lengths) - lengths
            items = split.take(starts[with_item])
        return cls(distinct, row_code, with_item, items, problems)

    @property
    def n_rows(self) -> int:
        """The number of distinct row ids."""
        return len(self.row_ids)

    def repeats(self) -> tuple[int, np.ndarray]:
        """How many item rows repeat an earlier (row id, item) pair, and which row
        ids hold one."""
        # Row ids and items number at most the rows each (far below 2**31): no overflow.
        width = int(self.item_code.max(initial=0)) + 1
        pairs = self.row_code[self.with_item] * width + self.item_code
        pairs.sort()  # equal pairs side by side: a sort of one integer key, no hash
        same = pairs[1:] == pairs[:-1]
        repeated = np.zeros(self.n_rows, dtype=bool)
        repeated[pairs[1:][same] // width] = True
        return int(np.count_nonzero(same)), repeated

    def lists(self, values: pa.Array, order: np.ndarray | None) -> pa.LargeListArray:
        """Item rows' ``values`` (aligned with :attr:`items`) taken in ``order`` (item
        rows sorted by row id first; None: already in that order) as one list per row id."""
        counts = np.bincount(self.row_code[self.with_item], minlength=self.n_rows)
        offsets = offsets_of(counts)
        if order is not None:
            values = values.take(to_arrow(order))
        return pa.LargeListArray.from_arrays(to_arrow(offsets), values)


def long_to_wide(
    row_ids: pa.Array,
    items: pa.Array,
    ranks: pa.Array | None = None,
    scores: pa.Array | None = None,
    *,
    item_name: str = "item",
    rank_name: str = "rank",
    score_name: str = "score",
    find_repeats: bool = True,
    scored: bool = False,
) -> WideRankings:
    """A long submission's rankings, one list of items per row id, best first.

    Parameters
    ----------
    row_ids, items : pyarrow.Array
        The row-id and item columns (strings; an empty item cell lists the row id
        without an item).
    ranks : pyarrow.Array, optional
        Whole numbers >= 1 as text, best first; gaps are allowed, a rank given twice
        within a row id is a problem.
    scores : pyarrow.Array, optional
        Finite decimal numbers as text, higher first; items with equal scores in item
        id order (byte order, ascending). Without ranks or scores, the file's order.
    item_name, rank_name, score_name : str
        Column names, for messages.
    find_repeats : bool, default True
        Count the repeated (row id, item) pairs (a sort of all pairs); without, the
        wide form's own repeated-item check finds them.
    scored : bool, default False
        With ``scores``: each item with its score as written, ``'item score'``, as a
        scored cell holds a label and its confidence (``GAP``).

    Returns
    -------
    WideRankings

    Examples
    --------
    >>> ids = pa.array(["u2", "u1", "u2", "u1", "u3"])
    >>> items = pa.array(["b", "x", "a", "y", ""])
    >>> wide = long_to_wide(ids, items, scores=pa.array(["0.5", "1", "0.5", "2", ""]))
    >>> wide.row_ids.to_pylist(), wide.items.to_pylist()
    (['u1', 'u2', 'u3'], [['y', 'x'], ['a', 'b'], []])
    >>> long_to_wide(ids, items, ranks=pa.array(["9", "1", "3", "2", ""])).items.to_pylist()
    [['x', 'y'], ['a', 'b'], []]
    >>> long_to_wide(ids, items).items.to_pylist()
    [['x', 'y'], ['b', 'a'], []]
    >>> long_to_wide(ids, items, ranks=pa.array(["1", "1", "0", "1", ""])).problems[0]
    Finding(kind='invalid_ranks', counts=(('rows', 1),), examples=('u2',), values=('rank',))
    """
    if ranks is not None and scores is not None:
        raise ValueError("give ranks or scores, not both")
    if ranks is not None and not find_repeats:
        grouped = _grouped_and_ranked(row_ids, items, text_column(ranks))
        if grouped is not None:
            return grouped
    rows = _LongRows.from_columns(row_ids, items, item_name)
    starts = None if ranks is None else _ranked_runs(rows, text_column(ranks))
    if starts is not None:
        return _wide_from_runs(rows, starts, find_repeats)
    problems = rows.problems
    item_rows = rows.row_code[rows.with_item]
    values = rows.items
    if ranks is not None:
        order, found = _rank_order(
            rows, text_column(ranks).take(to_arrow(rows.with_item)), rank_name
        )
    elif scores is not None:
        texts = pc.utf8_trim_whitespace(text_column(scores).take(to_arrow(rows.with_item)))
        order, found = _score_order(rows, texts, score_name)
        if scored:
            values = pc.binary_join_element_wise(rows.items, texts, pa.scalar(" ", texts.type))
    else:
        order, found = np.argsort(item_rows, kind="stable"), []
    problems += found
    n_repeated, repeated = rows.repeats() if find_repeats else (None, None)
    in_order = len(order) == 0 or (order[0] == 0 and np.all(order[1:] - order[:-1] == 1))
    return WideRankings(
        rows.row_ids,
        rows.lists(values, None if in_order else order),
        n_repeated,
        repeated,
        tuple(problems),
    )


def _ranked_runs(rows: _LongRows, ranks: pa.Array) -> np.ndarray | None:
    """Where each row id's rows start, when the file is written as most are: one item
    on every row, each row id's rows side by side, plain ranks (digits only) rising
    within each row id; None for any other file, which the general path sorts.

    Such a file is already in the wide form's order: its rankings are its rows, and
    no sort, take or rank check is needed to pivot it.

    Examples
    --------
    >>> rows = _LongRows.from_columns(pa.array(["b", "b", "a"]), pa.array(["x", "y", "z"]), "i")
    >>> _ranked_runs(rows, pa.array(["1", "2", "7"], pa.large_string())).tolist()
    [0, 2]
    >>> _ranked_runs(rows, pa.array(["2", "1", "7"], pa.large_string())) is None
    True
    """
    code = rows.row_code
    if len(code) == 0 or len(rows.with_item) != len(code):
        return None
    starts = np.flatnonzero(np.concatenate(([True], code[1:] != code[:-1])))
    if len(starts) != rows.n_rows:  # a row id in two places
        return None
    return starts if _ranks_rise(ranks, starts) else None


def _ranks_rise(ranks: pa.Array, starts: np.ndarray) -> bool:
    """Whether the ranks are plain whole numbers from 1, rising within each run of rows
    that begins at ``starts``.

    Examples
    --------
    >>> _ranks_rise(pa.array(["1", "3", "2"], pa.large_string()), np.array([0, 2]))
    True
    """

    def chunk_rises(start: int) -> bool:
        first = max(start - 1, 0)  # with the rank before: whether the chunk's first rises
        stop = min(start + BLOCK_ROWS, len(ranks))
        values = _plain_whole_numbers(ranks.slice(first, stop - first))
        if values is None or values.min() < 1:
            return False
        rising = values[1:] > values[:-1]  # rising[i]: row first + i + 1 over the row before
        heads = starts[np.searchsorted(starts, first + 1) : np.searchsorted(starts, stop)]
        rising[heads - (first + 1)] = True  # a row id's first rank follows none of its own
        return bool(rising.all())

    # A chunk at a time: no number or flag per row of the whole file is ever made.
    return len(ranks) > 0 and parallel_all(chunk_rises, range(0, len(ranks), BLOCK_ROWS))


def _grouped_and_ranked(row_ids: pa.Array, items: pa.Array, ranks: pa.Array) -> WideRankings | None:
    """The rankings of a file written as most are (:func:`_ranked_runs`), found without
    coding its row ids in byte order: each run of equal row ids side by side (read as
    runs, or found by comparing neighbours) is checked to be its row id's only one
    (:attr:`~scorer.align.joins.StringIndex.distinct`: a sort, no hash); None for any other
    file, or one with a problem to report.

    The same rankings as :func:`_wide_from_runs` gives the same file: its runs' row
    ids in the file's order, each with its items in the file's order.

    Examples
    --------
    >>> ids = pa.RunEndEncodedArray.from_arrays([2, 3], pa.array(["u2", "u1"], pa.large_string()))
    >>> ranks = pa.array(["1", "2", "1"], pa.large_string())
    >>> wide = _grouped_and_ranked(ids, pa.array(["a", "b", "c"]), ranks)
    >>> wide.row_ids.to_pylist(), wide.items.to_pylist()
    (['u2', 'u1'], [['a', 'b'], ['c']])
    >>> _grouped_and_ranked(pa.array(["u2", "u1", "u2"]), pa.array(["a", "b", "c"]), ranks) is None
    True
    """
    cells = ListCells(text_column(items))
    if len(cells.lengths) == 0 or (cells.lengths != 1).any():
        return None
    if pa.types.is_run_end_encoded(row_ids.type) and row_ids.offset == 0:
        heads = row_ids.values
        starts = np.concatenate(([0], to_numpy(row_ids.run_ends)[:-1])).astype(np.int64)
    else:
        row_ids = text_column(row_ids)
        starts = run_starts(row_ids)
        heads = row_ids.take(to_arrow(starts))
    if heads.null_count or not pa.types.is_large_string(heads.type):
        return None
    if not StringIndex(heads).distinct:  # a row id's rows in two places: the general path's
        return None
    if not _ranks_rise(ranks, starts):
        return None
    offsets = to_arrow(np.append(starts, len(ranks)))
    return WideRankings(
        # A cell of one item, once single-spaced, is that item: the cells are the items.
        heads,
        pa.LargeListArray.from_arrays(offsets, text_column(cells.cells)),
        None,
        None,
        (),
    )


def _plain_whole_numbers(texts: pa.Array) -> np.ndarray | None:
    """The values of ``texts`` (``large_string``) when every one is 1 to 18 plain
    digits (no sign, space or null), checked on the bytes with no regular expression;
    None when any is not (the general check then says which and why).

    Examples
    --------
    >>> _plain_whole_numbers(pa.array(["12", "007"], pa.large_string())).tolist()
    [12, 7]
    >>> _plain_whole_numbers(pa.array(["12", " 7"], pa.large_string())) is None
    True
    """
    offsets = string_offsets(texts)
    if offsets is None or texts.null_count or len(texts) == 0:
        return None
    lengths = np.diff(offsets)
    if lengths.min() < 1 or lengths.max() > 18:
        return None
    digits = string_bytes(texts) - np.uint8(ord("0"))  # wraps below "0": above 9 too
    if (digits > 9).any():
        return None
    return to_numpy(pc.cast(texts, pa.int64()))


def _wide_from_runs(rows: _LongRows, starts: np.ndarray, find_repeats: bool) -> WideRankings:
    """The rankings of a file grouped by row id and ranked (:func:`_ranked_runs`): each
    run of rows is one row id's list, in the file's order of row ids."""
    offsets = np.append(starts, len(rows.row_code))
    codes = rows.row_code[starts]
    n_repeated, repeated = rows.repeats() if find_repeats else (None, None)
    return WideRankings(
        rows.row_ids.take(to_arrow(codes)),
        pa.LargeListArray.from_arrays(to_arrow(offsets), rows.items),
        n_repeated,
        None if repeated is None else repeated[codes],
        tuple(rows.problems),
    )


def long_solution_to_wide(
    row_ids: pa.Array,
    items: pa.Array,
    grades: pa.Array | None = None,
    *,
    item_name: str = "item",
    grade_name: str = "grade",
) -> WideSolution:
    """A long solution's relevant items (and grades), one list per row id.

    Parameters
    ----------
    row_ids, items : pyarrow.Array
        One row per (row id, relevant item); a row id with no relevant item is listed
        once with an empty item cell.
    grades : pyarrow.Array, optional
        One grade per row with an item (checked as a wide grade column is, once in
        the wide form); ignored on rows with an empty item cell.
    item_name, grade_name : str
        Column names, for messages.

    Returns
    -------
    WideSolution

    Examples
    --------
    >>> wide = long_solution_to_wide(pa.array(["q2", "q1", "q1", "q3", "q1"]),
    ...                              pa.array(["d", "b", "a", "", "b"]),
    ...                              pa.array(["1", "2", "0", "", "1"]))
    >>> wide.row_ids.to_pylist(), wide.items.to_pylist(), wide.grades.to_pylist()
    (['q1', 'q2', 'q3'], [['a', 'b', 'b'], ['d'], []], [['0', '1', '2'], ['1'], []])
    >>> wide.n_repeated_pairs, wide.repeated.tolist()
    (1, [True, False, False])
    """
    rows = _LongRows.from_columns(row_ids, items, item_name)
    problems = rows.problems
    item_rows = rows.row_code[rows.with_item]
    grade_values = None
    if grades is None:
        order = sort_order(item_rows, rows.item_code)
    else:
        grade_values, found = _one_value_each(
            rows, text_column(grades).take(to_arrow(rows.with_item)), grade_name
        )
        problems += found
        # A pair listed twice: its grades in numeric order (so in any row order the same).
        numeric = _whole_numbers(grade_values)[1]
        order = np.lexsort((numeric, rows.item_code, item_rows))
    n_repeated, repeated = rows.repeats()
    return WideSolution(
        rows.row_ids,
        rows.lists(rows.items, order),
        None if grade_values is None else rows.lists(grade_values, order),
        n_repeated,
        repeated,
        tuple(problems),
    )


def _rank_order(
    rows: _LongRows, ranks: pa.Array, rank_name: str
) -> tuple[np.ndarray, list[Finding]]:
    """Item rows in order of row id, then rank; problems with the ranks."""
    item_rows = rows.row_code[rows.with_item]
    ranks = pc.utf8_trim_whitespace(ranks)
    valid, values = _whole_numbers(ranks)
    valid &= values >= 1
    problems = []
    if not valid.all():
        too_large = np.zeros(len(valid), dtype=bool)
        too_large[~valid] = to_numpy(
            pc.match_substring_regex(ranks.filter(to_arrow(~valid)), _TOO_MANY_DIGITS), fill=False
        )
        for kind, flagged in (
            ("invalid_ranks", ~valid & ~too_large),
            ("ranks_too_large", too_large),
        ):
            if flagged.any():
                counts = (("rows", int(np.count_nonzero(flagged))),)
                examples = smallest_flagged(rows.row_ids, item_rows, flagged)
                problems.append(Finding(kind, counts, examples, (rank_name,)))
    values = np.where(valid, values, 0)
    order = sort_order(item_rows, values)
    ordered_rows, ordered_ranks = item_rows[order], values[order]
    tied = (ordered_rows[1:] == ordered_rows[:-1]) & (ordered_ranks[1:] == ordered_ranks[:-1])
    if tied.any():  # items in byte order among equal ranks: the same order in any file order
        order = sort_order(item_rows, values, rows.item_code)
    twice = tied
    twice &= ordered_ranks[1:] > 0
    if twice.any():
        flagged = np.zeros(rows.n_rows, dtype=bool)
        flagged[ordered_rows[1:][twice]] = True
        counts = (("row_ids", int(np.count_nonzero(flagged))), ("extra", int(twice.sum())))
        problems.append(
            Finding("duplicated_ranks", counts, _smallest(rows.row_ids, flagged), (rank_name,))
        )
    return order, problems


def sort_order(*keys: np.ndarray) -> np.ndarray:
    """The stable order of rows sorted by ``keys`` (non-negative integers, the first
    most significant): the keys packed into one int64 above room for each row's index,
    sorted by :func:`~scorer.arrays.sort_with_order` (several times faster than an
    argsort), when they fit in 63 bits; else ``np.lexsort``. Rows whose keys are all
    equal keep their order.

    Examples
    --------
    >>> sort_order(np.array([1, 0, 1, 0]), np.array([0, 5, 0, 2])).tolist()
    [3, 1, 0, 2]
    >>> sort_order(np.array([1, 0]), np.array([2**62, 0])).tolist()
    [1, 0]
    """
    n = len(keys[0])
    index_bits = max(n - 1, 1).bit_length()
    widths = [int(key.max(initial=0)).bit_length() for key in keys]
    if sum(widths) + index_bits > 63:
        return np.lexsort(keys[::-1])
    packed = np.zeros(n, dtype=np.int64)
    for key, width in zip(keys, widths, strict=True):
        packed <<= width
        packed |= key
    packed <<= index_bits  # room below the keys for each row's index: no value shared
    return sort_with_order(packed)  # already in order (grouped and ranked): no sort


def _score_order(
    rows: _LongRows, scores: pa.Array, score_name: str
) -> tuple[np.ndarray, list[Finding]]:
    """Item rows in order of row id, then score (higher first), then item id
    (``scores``: each item row's score, trimmed)."""
    item_rows = rows.row_code[rows.with_item]
    valid = to_numpy(pc.match_substring_regex(scores, DECIMAL), fill=False)
    values = np.zeros(len(scores), dtype=np.float64)
    if valid.any():
        values[valid] = to_numpy(pc.cast(scores.filter(to_arrow(valid)), pa.float64()))
    valid &= np.isfinite(values)
    problems = []
    if not valid.all():
        problems.append(
            Finding(
                "invalid_scores",
                (("rows", int(np.count_nonzero(~valid))),),
                smallest_flagged(rows.row_ids, item_rows, ~valid),
                (score_name,),
            )
        )
    values = np.where(valid, values, 0.0)
    return np.lexsort((rows.item_code, -values, item_rows)), problems


def _one_value_each(rows: _LongRows, cells: pa.Array, name: str) -> tuple[pa.Array, list[Finding]]:
    """Each item row's one value of a cell column (trimmed); problems with cells that
    hold none or several."""
    lists = ListCells(cells)
    wrong = lists.lengths != 1
    if not wrong.any():
        return pc.utf8_trim_whitespace(cells), []
    item_rows = rows.row_code[rows.with_item]
    problem = Finding(
        "not_one_grade",
        (("rows", int(np.count_nonzero(wrong))),),
        smallest_flagged(rows.row_ids, item_rows, wrong),
        (name,),
    )
    return pc.if_else(to_arrow(wrong), "", pc.utf8_trim_whitespace(cells)), [problem]


def _whole_numbers(texts: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Which texts are whole numbers (up to 18 digits, leading zeros aside), and their values
    (0 elsewhere)."""
    valid = to_numpy(pc.match_substring_regex(texts, _WHOLE_NUMBER), fill=False)
    values = np.zeros(len(texts), dtype=np.int64)
    if valid.any():
        values[valid] = to_numpy(pc.cast(texts.filter(to_arrow(valid)), pa.int64()))
    return valid, values


def smallest_flagged(distinct: pa.Array, codes: np.ndarray, flags: np.ndarray) -> tuple[str, ...]:
    """Up to five of the (byte-ordered) ``distinct`` strings whose code has a flagged
    row, the smallest first.

    Examples
    --------
    >>> smallest_flagged(pa.array(["a", "b", "c"]), np.array([2, 1, 2]), np.array([1, 0, 1]) > 0)
    ('c',)
    """
    flagged = np.zeros(len(distinct), dtype=bool)
    flagged[codes[flags]] = True
    return _smallest(distinct, flagged)


def _smallest(distinct: pa.Array, flagged: np.ndarray) -> tuple[str, ...]:
    """The first five flagged strings of byte-ordered ``distinct`` ones."""
    chosen = np.flatnonzero(flagged)[:MAX_EXAMPLES]
    return tuple(str(v) for v in distinct.take(to_arrow(chosen)).to_pylist())
