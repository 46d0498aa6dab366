"""Every input shape turned into the wide one the checks take.

A long table (one row per row id and item) is pivoted, and the candidates of a
re-ranking competition are gathered as (solution row, item) pairs. Nothing here raises
a problem found in the rows: each comes back as a record
(:class:`~scorer.errors.Finding`, put into words once, at the end; a header's as a
:class:`~scorer.errors.Problem`), and the caller reports it with every other problem of
the same input at once (docs/shapes.md, "Long layout", "Candidates"). A header that
stops a long table from being pivoted at all is raised here, with every problem of the
header. trec_eval's files are read by :mod:`scorer.check.trec`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from scorer.align.candidates import CandidateRule, PairIndex, token_rows
from scorer.align.item_lists import joined_lists, split_lists
from scorer.align.joins import StringIndex, byte_order_codes
from scorer.align.long_layout import long_solution_to_wide, long_to_wide
from scorer.align.target_types import TargetTypes, typed_submission
from scorer.arrays import offsets_of, text_column, to_arrow
from scorer.check.validate import (
    SUBMISSION,
    USAGE_COLUMN,
    Candidates,
    Solution,
    column_problems,
    solution_columns,
)
from scorer.errors import (
    Finding,
    HostVisibleError,
    ParticipantVisibleError,
    Problem,
    did_you_mean,
    format_count,
    raise_if_any,
    smallest_values,
)
from scorer.options import Options
from scorer.read.columns import StringTable
from scorer.read.files import ReadLimits
from scorer.read.inputs import TableLike, as_string_table


@dataclass(frozen=True)
class ShapedSolution:
    """A solution in the wide form.

    Attributes
    ----------
    table : StringTable
        One row per row id; a pivoted long solution keeps its side columns (``Usage``,
        segments, candidates) as one value (or list) per row id.
    problems : tuple of Finding
        What the pivot found wrong (host problems, reported with the solution's others).
    row_id_column_name, grade_column_name : str or None
        The columns to use.
    """

    table: StringTable
    problems: tuple[Finding, ...]
    row_id_column_name: str | None
    grade_column_name: str | None


def read_solution(
    data: TableLike,
    options: Options,
    row_id_column_name: str | None,
    segment_column_name: str | None,
    limits: ReadLimits | None,
) -> ShapedSolution:
    """The solution, read and (when long) pivoted to one row per row id.

    Examples
    --------
    >>> import pandas as pd
    >>> long = pd.DataFrame({"id": ["u2", "u1", "u1"], "items": ["c", "b", "a"],
    ...                      "Usage": ["Private", "Public", "Public"]})
    >>> shaped = read_solution(long, Options(solution_layout="long"), None, None, None)
    >>> [shaped.table.column(name).to_pylist() for name in shaped.table.names]
    [['u1', 'u2'], ['a b', 'c'], ['Public', 'Private']]
    """
    table = as_string_table(data, HostVisibleError, limits)
    if options.solution_layout == "wide":
        return ShapedSolution(table, (), row_id_column_name, options.grade_column_name)
    return _pivot_solution(table, options, row_id_column_name, segment_column_name)


def _pivot_solution(
    table: StringTable,
    options: Options,
    row_id_column_name: str | None,
    segment_column_name: str | None,
) -> ShapedSolution:
    """A long solution's rows gathered per row id: its items (and grades) as lists,
    its ``Usage`` and segment as one value per row id, its candidates as one list."""
    grade_name = options.grade_column_name
    side = [
        name
        for name in (USAGE_COLUMN, segment_column_name, options.candidates_column_name)
        if name is not None and name in table.names
    ]
    set_aside = {*side, grade_name}
    columns = solution_columns(
        [name for name in table.names if name not in set_aside], row_id_column_name
    )
    if grade_name is not None and grade_name not in table.names:
        return ShapedSolution(table, (), row_id_column_name, grade_name)  # reported later
    row_ids = table.column(columns.row_id_name)
    wide = long_solution_to_wide(
        row_ids,
        table.column(columns.target_name),
        None if grade_name is None else table.column(grade_name),
        item_name=columns.target_name,
        grade_name=grade_name or "grade",
    )
    names = [columns.row_id_name, columns.target_name]
    cells = [wide.row_ids, joined_lists(wide.items)]
    if grade_name is not None:
        names.append(grade_name)
        cells.append(joined_lists(wide.grades))
    problems = list(wide.problems)
    if side:
        codes, _ = byte_order_codes(row_ids)
        for name in side:
            if name == options.candidates_column_name:
                cells.append(joined_lists(_gathered(codes, table.column(name), len(wide.row_ids))))
            else:
                values, differ = _one_per_row_id(codes, table.column(name))
                cells.append(values)
                kind = "usage_differs" if name == USAGE_COLUMN else "segment_differs"
                problems += _differing_problem(kind, name, wide.row_ids, differ)
            names.append(name)
    return ShapedSolution(
        StringTable(tuple(names), tuple(cells)),
        tuple(problems),
        columns.row_id_name,
        grade_name,
    )


def _one_per_row_id(codes: np.ndarray, values: pa.Array) -> tuple[pa.Array, np.ndarray]:
    """Each row id's value of a side column (the smallest, in byte order), and which
    row ids give it several values; found by one sort, no hash."""
    value_codes, distinct = byte_order_codes(values)
    order = np.lexsort((value_codes, codes))
    sorted_rows, sorted_values = codes[order], value_codes[order]
    starts = np.flatnonzero(np.r_[True, sorted_rows[1:] != sorted_rows[:-1]])[: len(order)]
    ends = np.r_[starts[1:], len(order)][: len(starts)] - 1
    low, high = sorted_values[starts], sorted_values[ends]
    return distinct.take(to_arrow(low)), low != high


def _differing_problem(
    kind: str, name: str, row_ids: pa.Array, differ: np.ndarray
) -> list[Finding]:
    if not differ.any():
        return []
    counts = (("row_ids", int(np.count_nonzero(differ))),)
    return [Finding(kind, counts, smallest_values(row_ids, differ), (name,))]


def _gathered(codes: np.ndarray, cells: pa.Array, n_rows: int) -> pa.LargeListArray:
    """The items of every cell gathered into one list per row id (by code)."""
    lists = split_lists(text_column(cells))
    token_rows = codes[lists.row_of_token]
    order = np.argsort(token_rows, kind="stable")
    offsets = offsets_of(np.bincount(token_rows, minlength=n_rows))
    return pa.LargeListArray.from_arrays(to_arrow(offsets), lists.tokens.take(to_arrow(order)))


def read_submission(
    data: TableLike,
    options: Options,
    solution: Solution,
    limits: ReadLimits | None,
    scored: bool = False,
) -> tuple[StringTable, tuple[Problem | Finding, ...]]:
    """The submission in the wide form (a long one pivoted) and the pivot's problems
    (``scored``: a long file's lines are scored predictions, for ``GAP``).

    Raises
    ------
    ParticipantVisibleError
        The file cannot be read, or a long submission's header lacks a column the pivot
        needs (every problem of the header at once).
    """
    row_id_name, target_name = solution.row_id_name, solution.target_name
    long = options.layout == "long"
    # A long file's row ids may be read as runs: long_to_wide codes each run once.
    table = as_string_table(data, ParticipantVisibleError, limits, runs=long)
    if not long:
        return table, ()
    ranked_by = options.rank_column_name or options.score_column_name
    expected = (row_id_name, target_name) + ((ranked_by,) if ranked_by else ())
    public_ids = solution.row_ids if options.unknown_row_ids == "error" else solution.row_ids[:0]
    problems = column_problems(table.names, expected, public_ids)
    if not set(expected) <= set(table.names):
        raise_if_any(problems, ParticipantVisibleError, SUBMISSION)
    value = None if ranked_by is None else table.column(ranked_by)
    wide = long_to_wide(
        table.column(row_id_name),
        table.column(target_name),
        ranks=value if options.rank_column_name else None,
        scores=value if options.score_column_name else None,
        item_name=target_name,
        rank_name=ranked_by or "rank",
        score_name=ranked_by or "score",
        find_repeats=False,  # a repeat keeps its slot: the wide form's warning tells it
        scored=scored,  # each line's label and confidence, as a wide cell holds them
    )
    # The items stay lists: the checks take them as they are, never joined and split again.
    wide_table = StringTable((row_id_name, target_name), (wide.row_ids, wide.items))
    return wide_table, (*problems, *wide.problems)


def take_column(table: StringTable, name: str | None, option: str) -> tuple[StringTable, pa.Array]:
    """Set a side column of the solution aside (``name`` must be in it).

    Examples
    --------
    >>> table = StringTable(("id", "items", "cands"), (pa.array(["u"]),) * 3)
    >>> rest, cells = take_column(table, "cands", "candidates_column_name")
    >>> rest.names, cells.to_pylist()
    (('id', 'items'), ['u'])
    """
    if name not in table.names:
        raise HostVisibleError(
            f"The column {name!r} ({option}) is not in the solution, whose columns are "
            f"{list(table.names)}.{did_you_mean(name, table.names)} Pass one of them as "
            f"{option}, or add it."
        )
    keep = [i for i, column_name in enumerate(table.names) if column_name != name]
    rest = StringTable(tuple(table.names[i] for i in keep), tuple(table.columns[i] for i in keep))
    return rest, table.column(name)


def candidate_source(
    options: Options, candidates: TableLike | None
) -> tuple[str | None, TableLike | None]:
    """Which candidates the options name: a solution column, a table, or none.

    Raises
    ------
    HostVisibleError
        A rule without candidates, candidates without a rule, or both sources.

    Examples
    --------
    >>> candidate_source(Options(candidate_rule="subset"), None)
    Traceback (most recent call last):
    ...
    scorer.errors.HostVisibleError: candidate_rule='subset' needs each row's candidates: \
pass candidates_column_name (a solution column) or candidates (a table). Got neither.
    """
    column = options.candidates_column_name
    given = [
        name for name, value in (("column", column), ("table", candidates)) if value is not None
    ]
    if len(given) == 2:
        raise HostVisibleError(
            "Give the candidates once: candidates_column_name (a solution column) or "
            "candidates (a table), not both."
        )
    if options.candidate_rule == "none" and given:
        raise HostVisibleError(
            "Candidates were given but candidate_rule='none' checks nothing: pass "
            "candidate_rule='permutation' or 'subset', or leave the candidates out."
        )
    if options.candidate_rule != "none" and not given:
        raise HostVisibleError(
            f"candidate_rule={options.candidate_rule!r} needs each row's candidates: pass "
            "candidates_column_name (a solution column) or candidates (a table). Got neither."
        )
    return column, candidates


def read_candidates(
    cells: pa.Array | None,
    data: TableLike | None,
    solution: Solution,
    rule: CandidateRule,
    limits: ReadLimits | None,
    typed: TargetTypes | None = None,
    type_column: str | None = None,
) -> Candidates | None:
    """The candidates from the solution's column (one cell per solution row) or from a
    table of their own (the solution's row-id column and one column of items; a row id
    may be listed on several rows, whose items are gathered). When the solution's
    target types are a column of their own (``type_column``), the table holds that
    column too, and its rows are keyed by (row id, type) as the solution's are.

    Raises
    ------
    HostVisibleError
        The table's columns are not the row id and one other, or it names row ids the
        solution does not hold.
    """
    if cells is not None:
        lists = split_lists(text_column(cells))
        return Candidates(rule, PairIndex(token_rows(lists.lengths), lists.tokens))
    if data is None:
        return None
    table = as_string_table(data, HostVisibleError, limits)
    subject = "The candidates table"
    if typed is not None and type_column is not None and type_column in table.names:
        keyed, problems = typed_submission(table, solution.row_id_name, typed, type_column, False)
        raise_if_any(problems, HostVisibleError, subject)
        table = keyed
    others = [name for name in table.names if name != solution.row_id_name]
    if solution.row_id_name not in table.names or len(others) != 1:
        problem = Problem(
            "Unexpected columns",
            f"the row-id column {solution.row_id_name!r} and one column of candidate items",
            f"columns {list(table.names)}",
            "write the candidates as a table of row ids and items",
        )
        raise_if_any([problem], HostVisibleError, subject)
    row_ids = table.column(solution.row_id_name)
    rows = solution.row_id_index.find(StringIndex(row_ids))
    unknown = rows < 0
    if unknown.any():
        problem = Problem(
            "Unknown row ids",
            "only row ids of the solution",
            f"{format_count(int(np.count_nonzero(unknown)), 'row')} whose row id is not in "
            "the solution",
            "give candidates for the solution's row ids only",
            smallest_values(text_column(row_ids), unknown),
        )
        raise_if_any([problem], HostVisibleError, subject)
    lists = split_lists(text_column(table.column(others[0])))
    return Candidates(rule, PairIndex(token_rows(lists.lengths, rows), lists.tokens))
