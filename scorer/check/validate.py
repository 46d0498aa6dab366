"""Column and row checks: collect every problem, then raise once.

Solution and configuration problems raise :class:`HostVisibleError`; submission
problems raise :class:`ParticipantVisibleError`. A participant-visible message shows
row ids (public: they are in the sample submission), counts and the participant's own
input, never a solution value. Where a mistake is recognisable (ids read as numbers, a
spreadsheet's rounding, another delimiter, a missing header, an open quote, lists joined
by commas), the problem or a warning from :mod:`scorer.check.hints` says so.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from scorer.align.candidates import CandidateRule, PairIndex, candidate_problems, token_rows
from scorer.align.item_lists import ListCells, SplitLists, as_text_cells, split_lists
from scorer.align.joins import StringIndex, first_index_of
from scorer.arrays import (
    BLOCK_ROWS,
    empty_strings,
    holds_any_byte,
    string_bytes,
    to_arrow,
    to_numpy,
    to_strings,
)
from scorer.check.findings import (
    MAX_EXPONENTIAL_GRADE,
    MAX_GRADE,
    USAGE_VALUES,
    Wording,
    as_finding,
    problems,
    raise_findings,
)
from scorer.check.scored import ScoredCells
from scorer.errors import (
    MAX_EXAMPLES,
    Finding,
    HostVisibleError,
    ParticipantVisibleError,
    Problem,
    closest,
    format_count,
    format_example,
    raise_if_any,
    smallest_values,
)
from scorer.options import Options, row_bound
from scorer.read.columns import StringTable

USAGE_COLUMN = "Usage"
SUBMISSION = "The submission"
SOLUTION = "The solution"


@dataclass(frozen=True)
class Solution:
    """The solution's columns, checked.

    Attributes
    ----------
    row_id_name, target_name : str
        Column names the submission must use.
    row_ids : pyarrow.Array
        Row ids, in solution order. (The relevant-item lists are not kept: once
        encoded they are not needed, and a column of them can be most of the input.)
    usage : ndarray of int8 or None
        Each row's Usage as its index in :data:`USAGE_VALUES`, when the solution has a
        ``Usage`` column (see :meth:`marked`).
    row_id_index : StringIndex
        The row ids' hash index, which submissions are joined with.
    left_out : ndarray of bool, optional
        Rows left out of the mean, as unscored: a trec_eval run's missing queries
        (``missing_rows="skip"``).
    """

    row_id_name: str
    target_name: str
    row_ids: pa.Array
    usage: np.ndarray | None
    row_id_index: StringIndex
    left_out: np.ndarray | None = None

    @property
    def n_rows(self) -> int:
        """Number of solution rows."""
        return len(self.row_ids)

    def marked(self, value: str) -> np.ndarray:
        """Which rows have this Usage (none when the solution has no Usage column)."""
        if self.usage is None:
            return np.zeros(self.n_rows, dtype=bool)
        return self.usage == USAGE_VALUES.index(value)


@dataclass(frozen=True)
class Submission:
    """A valid submission, aligned with the solution.

    Attributes
    ----------
    user_of_row : ndarray of int64
        The solution row of each submission row, ``-1`` for an ignored unknown row.
    predictions : SplitLists
        The split prediction lists, in submission row order.
    notes : tuple of Finding
        Records that are no problem alone: cells spanning several lines, a problem
        only beside missing rows, which another part of a run may have
        (``every_quote``; ``scorer.partial``).
    confidence : ndarray of float64, or None
        With scored predictions (``scored``), each submission row's confidence (NaN
        for an empty cell); ``predictions`` then hold each row's label alone.
    """

    user_of_row: np.ndarray
    predictions: SplitLists
    notes: tuple[Finding, ...] = ()
    confidence: np.ndarray | None = None


@dataclass(frozen=True)
class SolutionColumns:
    """The solution's column roles, found from its header alone.

    Attributes
    ----------
    row_id_name, target_name : str
        The row-id column and the relevant-items column.
    """

    row_id_name: str
    target_name: str


def solution_columns(names: Sequence[str], row_id_column_name: str | None) -> SolutionColumns:
    """Find the row-id, target and Usage columns of a solution header.

    Raises
    ------
    HostVisibleError
        Listing every problem with the header.

    Examples
    --------
    >>> solution_columns(["id", "items", "Usage"], None)
    SolutionColumns(row_id_name='id', target_name='items')
    """
    names = tuple(names)
    problems: list[Problem] = []
    if not names:
        raise_if_any([_no_columns_problem("the solution")], HostVisibleError, SOLUTION)
    row_id_name = names[0] if row_id_column_name is None else row_id_column_name
    meant = row_id_name
    if row_id_name not in names:
        meant = closest(row_id_name, names) or row_id_name  # not a target column too
        problems.append(
            Problem(
                "Row-id column not found",
                f"a column named {row_id_name!r}",
                f"columns {list(names)}" + _did_you_mean(row_id_name, names),
                "pass the right row_id_column_name, or fix the solution's header",
            )
        )
    duplicated = sorted(n for n, count in Counter(names).items() if count > 1)
    if duplicated:
        problems.append(
            Problem(
                "Duplicated columns",
                "each column name once",
                f"{duplicated} more than once",
                "rename or drop the extra columns in the solution",
            )
        )
    targets = [n for n in dict.fromkeys(names) if n not in (meant, USAGE_COLUMN)]
    if row_id_name == USAGE_COLUMN:
        problems.append(
            Problem(
                "Usage as the row-id column",
                "a row-id column other than 'Usage' (the name Kaggle reserves for the "
                "Public/Private split)",
                f"row_id_column_name={row_id_name!r}",
                "pass the name of the column that holds the row ids, or rename the "
                "solution's 'Usage' column if it really holds ids",
            )
        )
    elif len(targets) != 1:
        problems.append(
            Problem(
                "Target column not found" if not targets else "Ambiguous target column",
                f"exactly one column besides {row_id_name!r} and an optional 'Usage'",
                f"{len(targets)}: {targets}",
                "drop the extra columns from the solution",
            )
        )
    raise_if_any(problems, HostVisibleError, SOLUTION)
    return SolutionColumns(row_id_name, targets[0])


def check_solution(
    table: StringTable, columns: SolutionColumns, found: Sequence[Problem | Finding] = ()
) -> Solution:
    """Check the solution's rows: row ids present and unique, Usage values known.

    Parameters
    ----------
    table : StringTable
        The solution.
    columns : SolutionColumns
        Its column roles (:func:`solution_columns` of its header).
    found : sequence of Problem or Finding
        Problems already found in the solution (a long one's pivot: records; a header's:
        words), raised with these.

    Raises
    ------
    HostVisibleError
        Listing every problem with the solution's rows.
    """
    findings, solution = solution_findings(table, columns, found)
    raise_findings(findings, HostVisibleError, SOLUTION, wording(columns))
    return solution


def wording(
    columns: SolutionColumns, options: Options | None = None, grade_name: str = ""
) -> Wording:
    """What the problems' sentences need: the column names and ``k``."""
    k = 10 if options is None else row_bound(options.k)
    return Wording(k, columns.row_id_name, columns.target_name, grade_name)


def solution_findings(
    table: StringTable, columns: SolutionColumns, found: Sequence[Problem | Finding] = ()
) -> tuple[list[Finding], Solution]:
    """:func:`check_solution` without raising: the records of every problem found (those
    already ``found`` kept in words, first), and the solution (whose ``usage`` is
    ``None`` when a Usage value is unknown)."""
    findings: list[Finding] = [as_finding(problem) for problem in found]
    row_ids = table.column(columns.row_id_name)
    findings += _empty_row_id_findings(row_ids, "solution")
    findings += _list_like_row_id_findings(row_ids)
    row_id_index = StringIndex(row_ids)
    first = row_id_index.first_of_self()
    findings += _duplicate_findings(row_ids, first, _own_firsts(first), "solution")
    usage = None
    if USAGE_COLUMN in table.names:
        usage_column = table.column(USAGE_COLUMN)
        codes = pc.index_in(usage_column, value_set=to_strings(USAGE_VALUES))
        unknown = codes.is_null()
        n_unknown = codes.null_count
        if n_unknown:
            findings.append(
                Finding(
                    "unknown_usage",
                    (("rows", n_unknown),),
                    smallest_values(row_ids, to_numpy(unknown)),
                    smallest_values(pc.filter(usage_column, unknown)),
                )
            )
        else:
            usage = to_numpy(codes).astype(np.int8)
    solution = Solution(columns.row_id_name, columns.target_name, row_ids, usage, row_id_index)
    return findings, solution


def check_submission(
    table: StringTable,
    solution: Solution,
    options: Options,
    found: Sequence[Problem | Finding] = (),
    candidates: Candidates | None = None,
    *,
    every_quote: bool = False,
    scored: bool = False,
) -> Submission:
    """Check the submission's columns and rows against the solution.

    With ``missing_rows="empty"`` a solution row id that the submission lacks is no
    problem: it is scored as an empty ranking.

    Parameters
    ----------
    table : StringTable
        The submission, in the wide form.
    solution : Solution
        The checked solution.
    options : Options
        The scoring options.
    found : sequence of Problem or Finding
        Problems already found in the submission (a long one's pivot: records; a
        header's: words), raised with these.
    candidates : Candidates, optional
        Each row's candidates: the rankings are checked against them once aligned.
    every_quote : bool
        Look for cells spanning several lines even without missing rows, and keep them
        in the submission's ``notes`` when nothing is raised.
    scored : bool
        Read each cell as one scored prediction, ``label confidence`` (for ``GAP``).

    Raises
    ------
    ParticipantVisibleError
        Listing every problem found, each with counts, examples and the fix.
    """
    findings, submission = submission_findings(
        table, solution, options, found, candidates, every_quote=every_quote, scored=scored
    )
    columns = SolutionColumns(solution.row_id_name, solution.target_name)
    raise_findings(findings, ParticipantVisibleError, SUBMISSION, wording(columns, options))
    if submission is None:  # unreachable: a missing column is raised above
        raise RuntimeError("submission checked without its row id or prediction column")
    return replace(submission, notes=tuple(findings))


def submission_findings(
    table: StringTable,
    solution: Solution,
    options: Options,
    found: Sequence[Problem | Finding] = (),
    candidates: Candidates | None = None,
    *,
    every_quote: bool = False,
    scored: bool = False,
) -> tuple[list[Finding], Submission | None]:
    """:func:`check_submission` without raising: the records of every problem found,
    and the submission when both its columns are there.

    Cells spanning several lines are named only beside missing rows; they are looked
    for only then, or always with ``every_quote`` (a part of a run cannot know whether
    another part misses rows)."""
    expected = (solution.row_id_name, solution.target_name)
    # With unknown_row_ids="ignore" the solution may list only some users: not public.
    public_ids = solution.row_ids if options.unknown_row_ids == "error" else solution.row_ids[:0]
    header = column_problems(table.names, expected, public_ids)
    findings = [as_finding(p) for p in (*found, *header)]
    user_of_row = valid_id = None
    row_ids = ids = None
    if solution.row_id_name in table.names:
        row_ids = table.column(solution.row_id_name)
        row_findings, ids = _row_id_findings(row_ids, solution, options)
        findings += row_findings
        user_of_row, valid_id = ids.user_of_row, ids.valid
    cells, confidence = None, None
    if solution.target_name in table.names:
        cells = table.column(solution.target_name)
        missing = any(f.kind == "missing_rows" for f in findings)
        if row_ids is not None and (missing or every_quote):
            findings += _open_quote_findings(cells, row_ids)
        if scored:  # one "label confidence" per row: the label is the row's ranking
            pairs = ScoredCells.parse(as_text_cells(cells))
            if row_ids is not None and valid_id is not None:
                findings += pairs.findings(row_ids, valid_id)
            cells, confidence = pairs.labels, pairs.confidence
        # Items are counted from the bytes: a row over k is refused before any is split.
        cells = ListCells(cells)
        if options.extra_predictions == "error" and row_ids is not None and valid_id is not None:
            findings += _too_many_findings(cells.lengths, row_ids, valid_id, row_bound(options.k))
    predictions = None
    if candidates is not None and cells is not None and ids is not None:
        predictions = cells.split()
        findings += _candidate_findings(predictions, ids, solution, options, candidates)
    if cells is None or user_of_row is None or problems(findings, Wording()):
        return findings, None
    split = cells.split() if predictions is None else predictions
    return findings, Submission(user_of_row, split, confidence=confidence)


@dataclass(frozen=True)
class Candidates:
    """Each row's candidates, as (solution row, item) pairs.

    Attributes
    ----------
    rule : {"permutation", "subset"}
        What a row may rank.
    pairs : PairIndex
        The distinct (solution row, item) pairs, numbered once as they are read, so
        that the candidates' text is freed before the submission is read.
    """

    rule: CandidateRule
    pairs: PairIndex


def _candidate_findings(
    predictions: SplitLists,
    ids: _RowIds,
    solution: Solution,
    options: Options,
    candidates: Candidates,
) -> list[Finding]:
    """The aligned rankings against each row's candidates. A row id listed twice is
    left out (its duplication is a problem of its own; which listing to check is no
    question for the order of the file). With unknown_row_ids="ignore" no example is
    given: they would tell which submitted row ids the solution holds."""
    found = candidate_problems(
        candidates.rule,
        solution.row_ids,
        token_rows(predictions.lengths, ids.user_of_row),
        predictions.tokens,
        candidates.pairs,
        skipped=ids.repeated,
    )
    if options.unknown_row_ids != "error":
        found = [replace(finding, examples=()) for finding in found]
    return found


def _open_quote_findings(cells: pa.Array, row_ids: pa.Array) -> list[Finding]:
    """Cells holding a line break: with rows missing, probably a quote left open.
    Lists of items (a long file pivoted) hold none: an item is never whitespace."""
    if pa.types.is_large_list(cells.type):
        return []
    # A column in the parser's chunks is looked at a chunk at a time, never joined.
    chunks = cells.chunks if isinstance(cells, pa.ChunkedArray) else [cells]
    data = [string_bytes(chunk) for chunk in chunks]
    if all(d is not None and not holds_any_byte(d, b"\n\r") for d in data):
        return []
    spans = to_numpy(pc.match_substring_regex(cells, "[\\r\\n]"), fill=False)
    n_cells = int(spans.sum())
    if not n_cells:
        return []
    return [Finding("open_quotes", (("cells", n_cells),), smallest_values(row_ids, spans))]


def _no_columns_problem(what: str) -> Problem:
    return Problem(
        "No columns",
        "a header row naming the row-id and prediction columns",
        f"no column in {what}",
        "export the file again with its header row",
    )


def column_problems(
    names: tuple[str, ...], expected: tuple[str, ...], solution_ids: pa.Array
) -> list[Problem]:
    """Missing, extra and duplicated columns of a submission's header."""
    problems: list[Problem] = []
    if not names:
        return [_no_columns_problem("the submission")]
    missing = [n for n in expected if n not in names]
    extra = [n for n in dict.fromkeys(names) if n not in expected]
    duplicated = [n for n, count in Counter(names).items() if count > 1]
    header = f"exactly the columns {list(expected)} (any order)"
    delimiter = _other_delimiter(names, expected)
    if delimiter is not None:  # one column of all the names: no name is misspelt
        return [
            Problem(
                "Missing columns",
                header,
                f"no column {missing}; the header is one column, {_show_names(names)}: the "
                f"file looks separated by {delimiter}",
                "write the file with commas between the columns, as the sample submission",
            )
        ]
    misnamed = _misnamed(missing, extra)  # a typo is one problem, not a missing and an extra
    extra = [n for n in extra if n not in misnamed]
    if missing:
        hints = _near_names(misnamed) + _header_hints(names, expected, solution_ids)
        problems.append(
            Problem(
                "Missing columns",
                header,
                f"no column {missing}; the header is {_show_names(names)}" + hints,
                "name the columns exactly as in the sample submission's header",
            )
        )
    if extra:
        empty = _empty_name_hint(names)
        problems.append(
            Problem(
                "Extra columns",
                header,
                f"{format_count(len(extra), 'extra column')}: {_show_names(extra, MAX_EXAMPLES)}"
                + empty,
                "drop every column that is not in the sample submission (an index column "
                "written by pandas: use to_csv(index=False))",
            )
        )
    if duplicated:
        problems.append(
            Problem(
                "Duplicated columns",
                "each column name once",
                f"{_show_names(duplicated, MAX_EXAMPLES)} more than once",
                "keep one column of each name",
            )
        )
    return problems


_MAX_NAMES = 10
_DELIMITERS = {"\t": "tabs", ";": "semicolons", "|": "vertical bars"}


def _show_names(names: Sequence[str], limit: int = _MAX_NAMES) -> str:
    """Column names as a list, cut after ``limit`` names, each long name shortened
    (a hostile header can hold a name of a megabyte).

    Examples
    --------
    >>> _show_names(("id", "items"))
    "['id', 'items']"
    >>> _show_names(tuple(f"c{i}" for i in range(12)))
    "['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8', 'c9', ...] (12 columns)"
    >>> len(_show_names(["x" * 100_000])) < 120
    True
    """
    shown = ", ".join(format_example(name) for name in names[:limit])
    if len(names) <= limit:
        return f"[{shown}]"
    return f"[{shown}, ...] ({format_count(len(names), 'column')})"


_PANDAS_INDEX = "Unnamed: 0"  # what pandas calls a nameless first column when it reads one


def _empty_name_hint(names: tuple[str, ...]) -> str:
    """Why a column has no name: the pandas index written first, or a trailing comma.

    Examples
    --------
    >>> _empty_name_hint(("", "id", "items"))
    ' (a first column with no name: the pandas index, written unless to_csv(index=False))'
    >>> _empty_name_hint(("id", "items", ""))
    ' (a column with an empty name: probably a comma at the end of every line)'
    >>> _empty_name_hint(("id", "items", "x"))
    ''
    """
    if names[0] in ("", _PANDAS_INDEX):
        return (
            " (a first column with no name: the pandas index, written unless to_csv(index=False))"
        )
    if "" in names:
        return " (a column with an empty name: probably a comma at the end of every line)"
    return ""


def _other_delimiter(names: tuple[str, ...], expected: tuple[str, ...]) -> str | None:
    """The delimiter (in words) that separates the expected names in a header read as
    one column, if one does.

    Examples
    --------
    >>> _other_delimiter(("id\\titems",), ("id", "items")), _other_delimiter(("id",), ("id", "x"))
    ('tabs', None)
    >>> _other_delimiter(("ID; items",), ("id", "items"))
    'semicolons'
    """
    wanted = {name.strip().casefold() for name in expected}
    for delimiter, plural in _DELIMITERS.items():
        found = {name.strip().casefold() for name in names[0].split(delimiter)}
        if len(names) == 1 and wanted <= found:  # "id; items" and "ID\titems" too
            return plural
    return None


def _header_hints(names: tuple[str, ...], expected: tuple[str, ...], solution_ids: pa.Array) -> str:
    """Say why the header probably lacks the expected names: it is no header."""
    texts = [n for n in names if n.isascii() or _encodable(n)]
    looks_like_data = first_index_of(pa.array(texts, pa.large_string()), solution_ids) >= 0
    if looks_like_data.any():
        shown = format_example(texts[int(np.argmax(looks_like_data))])
        return (
            f" (the first line looks like a data row: {shown} is a row id; the header row is "
            f"probably missing: write {','.join(expected)} as the first line)"
        )
    return ""


def _encodable(text: str) -> bool:
    """False for a str Arrow cannot hold (a lone surrogate from a DataFrame's column name)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _did_you_mean(name: str, names: Sequence[str]) -> str:
    found = closest(name, names)
    return "" if found is None else f"; did you mean {found!r}?"


def _misnamed(missing: list[str], extra: list[str]) -> dict[str, str]:
    """Each extra column that is a missing one misspelt (difflib's closest, or the same
    name in another case or with spaces), and the name it stands for. Only the expected
    names are suggested: the sample submission shows them.

    Examples
    --------
    >>> _misnamed(["items"], ["itemz", "Unnamed: 0"])
    {'itemz': 'items'}
    """
    found: dict[str, str] = {}
    for name in missing:
        match = closest(name, [e for e in extra[:_MAX_NAMES] if e not in found])
        if match is not None:
            found[match] = name
    return found


def _near_names(misnamed: dict[str, str]) -> str:
    if not misnamed:
        return ""
    shown = ", ".join(f"{e!r} looks like {m!r}" for e, m in misnamed.items())
    return f" ({shown}; names must match exactly)"


def _empty_row_id_findings(row_ids: pa.Array, where: str) -> list[Finding]:
    """Rows with an empty row id: counted, with no example (an empty id shows nothing,
    and a row number means nothing once a run is split into parts)."""
    n_empty = int(empty_strings(row_ids).sum())
    return [Finding(f"{where}_empty_row_ids", (("rows", n_empty),))] if n_empty else []


def _list_like_row_id_findings(row_ids: pa.Array) -> list[Finding]:
    """Row ids holding whitespace-separated tokens: the row-id column is probably the items.

    Scored so, item lists would be quoted to participants as "row ids"
    (docs/decisions.md#information-boundary). No example is given, for the same reason: a host
    error may end up in a log participants read.

    Examples
    --------
    >>> _list_like_row_id_findings(pa.array(["a b", "c"], pa.large_string()))
    [Finding(kind='list_like_row_ids', counts=(('rows', 1),), examples=(), values=())]
    >>> _list_like_row_id_findings(pa.array([" u1", "u2 "], pa.large_string()))
    []
    """
    data = string_bytes(row_ids)
    # Every byte printable ASCII: no whitespace at all (the usual case, two fast passes).
    if data is not None and (len(data) == 0 or (data.min() > 32 and data.max() < 128)):
        return []
    n_rows = int((split_lists(row_ids).lengths > 1).sum())
    return [Finding("list_like_row_ids", (("rows", n_rows),))] if n_rows else []


def _duplicate_findings(
    row_ids: pa.Array, first: np.ndarray, is_first: np.ndarray, where: str
) -> list[Finding]:
    """``first``: each row's first equal (or -1, never a repeat); ``is_first``: whether
    that is the row itself (:func:`_own_firsts`)."""
    repeated = ~is_first
    repeated &= first >= 0
    n_rows = int(np.count_nonzero(repeated))
    if not n_rows:
        return []
    repeated_ids = np.zeros(len(first), dtype=bool)
    for start in range(0, len(first), BLOCK_ROWS):
        chunk = slice(start, start + BLOCK_ROWS)
        repeated_ids[first[chunk][repeated[chunk]]] = True
    counts = (("ids", int(np.count_nonzero(repeated_ids))), ("rows", n_rows))
    return [Finding(f"{where}_duplicated_row_ids", counts, smallest_values(row_ids, repeated_ids))]


def _own_firsts(first: np.ndarray) -> np.ndarray:
    """Whether each row is its own first equal (``first``: each row's first equal, or
    -1), made a chunk at a time (no full-size temporary)."""
    own = np.empty(len(first), dtype=bool)
    for start in range(0, len(first), BLOCK_ROWS):
        chunk = first[start : start + BLOCK_ROWS]
        np.equal(chunk, np.arange(start, start + len(chunk)), out=own[start : start + len(chunk)])
    return own


def _row_id_findings(
    row_ids: pa.Array, solution: Solution, options: Options
) -> tuple[list[Finding], _RowIds]:
    findings = _empty_row_id_findings(row_ids, "submission")
    empty = empty_strings(row_ids)
    index = StringIndex(row_ids)
    user_of_row = solution.row_id_index.find(index)
    # Every row id is matched: what the solution's index keeps between probes (prints,
    # a hash table: up to about 24 bytes a row id) is freed before the cells are read.
    solution.row_id_index.release()
    first = index.first_of_self(user_of_row)
    is_first = _own_firsts(first)
    findings += _duplicate_findings(row_ids, first, is_first, "submission")
    unknown = (user_of_row < 0) & ~empty
    covered = np.zeros(solution.n_rows, dtype=bool)
    covered[user_of_row[user_of_row >= 0]] = True
    missing = ~covered
    n_missing, n_unknown = int(missing.sum()), int(unknown.sum())
    hints = _id_hints(row_ids, unknown, solution.row_ids, missing)
    if n_missing and options.missing_rows == "error":
        hide = options.unknown_row_ids == "ignore"
        counts = (("ids", n_missing), ("solution_rows", solution.n_rows), *hints)
        examples = () if hide else smallest_values(solution.row_ids, missing)
        findings.append(Finding("missing_rows", counts, examples))
    if n_unknown and options.unknown_row_ids == "error":
        examples = smallest_values(row_ids, unknown)
        findings.append(Finding("unknown_row_ids", (("rows", n_unknown), *hints), examples))
    repeated = np.zeros(solution.n_rows, dtype=bool)
    repeated[user_of_row[~is_first & (user_of_row >= 0)]] = True
    user_of_row = np.where(is_first, user_of_row, -1)
    # Examples may name any non-empty submitted id, known or not: leaving the unknown
    # ones out would tell which ids the solution holds (unknown_row_ids="ignore").
    return findings, _RowIds(user_of_row, ~empty, repeated)


@dataclass(frozen=True)
class _RowIds:
    """What a submission's row ids say about its rows.

    Attributes
    ----------
    user_of_row : ndarray of int64
        The solution row of each submission row: -1 for an unknown id and for every
        listing of a row id but its first.
    valid : ndarray of bool
        Whether each row's id is non-empty.
    repeated : ndarray of bool
        Whether each solution row's id is listed more than once.
    """

    user_of_row: np.ndarray
    valid: np.ndarray
    repeated: np.ndarray


# (the repair, a regex a submitted id must match for it to apply), in the order of
# ID_REPAIRS (what each does, in words)
_ID_REPAIRS: tuple[tuple[Callable[[pa.Array], pa.Array], str], ...] = (
    (pc.utf8_trim_whitespace, ""),
    (pc.utf8_lower, ""),
    (lambda ids: pc.utf8_ltrim(ids, characters="0"), ""),
    (
        lambda ids: pc.utf8_ltrim(pc.replace_substring_regex(ids, r"\.0*$", ""), characters="0"),
        r"\.0*$",
    ),
    (lambda ids: _rounded_number(ids), "[eE]"),
)

_NUMBER = r"^[0-9]+(\.[0-9]*)?([eE][+-]?[0-9]+)?$"


def _rounded_number(ids: pa.Array) -> pa.Array:
    """Ids that are numbers become their value to 3 significant digits; others stay as they are.

    Examples
    --------
    >>> _rounded_number(pa.array(["7.06E+08", "0706016001", "706516001", "u1", "0"])).to_pylist()
    ['706e6', '706e6', '707e6', 'u1', '0']
    """
    numeric = pc.fill_null(pc.match_substring_regex(ids, _NUMBER), False)
    text = pc.if_else(numeric, ids, "0")
    values = pc.cast(text, pa.float64()).to_numpy(zero_copy_only=False)
    usable = numeric.to_numpy(zero_copy_only=False) & np.isfinite(values) & (values > 0)
    safe = np.where(usable, values, 1.0)
    exponent = np.floor(np.log10(safe)) - 2
    mantissa = np.round(safe / 10.0**exponent)
    carry = mantissa >= 1000
    mantissa, exponent = np.where(carry, mantissa / 10, mantissa), exponent + carry
    keys = pc.binary_join_element_wise(
        pa.array(mantissa.astype(np.int64)).cast(pa.large_string()),
        pa.array(exponent.astype(np.int64)).cast(pa.large_string()),
        pa.scalar("e", pa.large_string()),
    )
    return pc.if_else(pa.array(usable), keys, ids.cast(pa.large_string()))


def _id_hints(
    row_ids: pa.Array, unknown: np.ndarray, solution_ids: pa.Array, missing: np.ndarray
) -> tuple[tuple[str, int], ...]:
    """How many unknown ids match missing ones after each repair (``repair_i``: the
    i-th of :data:`~scorer.check.findings.ID_REPAIRS`), when any does.

    For each repair, the unknown ids it applies to are found first (none: the repair is
    skipped), the repaired missing ids are indexed once, and those unknown ids are
    repaired and looked up a chunk at a time: a file of millions of unknown ids never
    holds a repaired copy of them all (the resource contract)."""
    if not unknown.any() or not missing.any():
        return ()
    unknown_ids = _where(row_ids, unknown)
    missing_ids = _where(solution_ids, missing)
    hints: list[tuple[str, int]] = []
    for number, (repair, applies_to) in enumerate(_ID_REPAIRS):
        applies = np.ones(len(unknown_ids), dtype=bool)
        if applies_to:
            applies = to_numpy(pc.match_substring_regex(unknown_ids, applies_to), fill=False)
        if not applies.any():
            continue
        index = StringIndex(_repaired(missing_ids, repair))
        matched = np.zeros(len(unknown_ids), dtype=bool)
        for start in range(0, len(unknown_ids), BLOCK_ROWS):
            block = applies[start : start + BLOCK_ROWS]
            ids = _where(unknown_ids.slice(start, BLOCK_ROWS), block)
            found = index.find(repair(ids)) >= 0
            matched[start + np.flatnonzero(block)[found]] = True
        del index
        if matched.any():
            hints.append((f"repair_{number}", int(matched.sum())))
            unknown_ids = unknown_ids.filter(to_arrow(~matched))
    return tuple(hints)


def _repaired(ids: pa.Array, repair: Callable[[pa.Array], pa.Array]) -> pa.Array:
    """``repair(ids)``, a chunk of ids at a time: a repair's temporaries (several
    numbers per id for the rounded one) never exist for every id at once."""
    chunks = [repair(ids.slice(start, BLOCK_ROWS)) for start in range(0, len(ids), BLOCK_ROWS)]
    return pa.concat_arrays([chunk.cast(pa.large_string()) for chunk in chunks]) if chunks else ids


def _where(strings: pa.Array, mask: np.ndarray) -> pa.Array:
    """The strings where ``mask`` is True: the array itself when it always is."""
    return strings if mask.all() else strings.filter(to_arrow(mask))


def _too_many_findings(
    lengths: np.ndarray, row_ids: pa.Array, valid_id: np.ndarray, k: int
) -> list[Finding]:
    too_long = lengths > k
    n_rows = int(too_long.sum())
    if not n_rows:
        return []
    counts = (("rows", n_rows), ("max_items", int(lengths.max())))
    return [Finding("too_many_predictions", counts, smallest_values(row_ids, too_long & valid_id))]


def check_grades(
    grades: SplitLists,
    n_items: np.ndarray,
    row_ids: pa.Array,
    grade_name: str,
    target_name: str,
    exponential: tuple[str, ...] = (),
) -> np.ndarray:
    """Check a solution's grade column against its target column (docs/measures.md#measures).

    Parameters
    ----------
    grades : SplitLists
        The split grade cells, in solution order.
    n_items : ndarray of int64
        The number of items in each row's target cell.
    row_ids : pyarrow.Array
        The solution's row ids, for examples.
    grade_name, target_name : str
        The two columns' names, for the message.
    exponential : tuple of str
        The requested measures with exponential gains: with any, a grade above
        :data:`MAX_EXPONENTIAL_GRADE` is a problem naming them.

    Returns
    -------
    ndarray of int64
        Every grade, row after row, aligned with the target items.

    Raises
    ------
    HostVisibleError
        Listing rows whose number of grades differs from their number of items, rows
        holding a grade that is not an integer in [0, MAX_GRADE], and rows holding a
        grade above MAX_EXPONENTIAL_GRADE when a measure with exponential gains is asked.

    Examples
    --------
    >>> from scorer.align.item_lists import split_lists
    >>> ids = pa.array(["u1", "u2"])
    >>> check_grades(split_lists(pa.array(["3 0", "100"])), np.array([2, 1]), ids, "g", "t")
    array([  3,   0, 100])
    >>> check_grades(split_lists(pa.array(["3", "-1"])), np.array([2, 1]), ids, "g", "t")
    Traceback (most recent call last):
    ...
    scorer.errors.HostVisibleError: The solution is invalid (2 problems):
    1. Grades do not match the items
    ...
    """
    findings: list[Finding] = []
    mismatch = grades.lengths != n_items
    if mismatch.any():
        counts = (("rows", int(mismatch.sum())),)
        findings.append(Finding("grades_mismatch", counts, smallest_values(row_ids, mismatch)))
    tokens = grades.tokens
    valid = to_numpy(pc.match_substring_regex(tokens, r"^[0-9]{1,10}$"), fill=False)
    values = np.zeros(len(tokens), dtype=np.int64)
    if valid.any():
        values[valid] = to_numpy(pc.cast(tokens.filter(to_arrow(valid)), pa.int64()))
    invalid = ~valid | (values > MAX_GRADE)
    if invalid.any():
        rows = _rows_of(grades, invalid)
        counts = (("rows", int(rows.sum())),)
        findings.append(Finding("invalid_grades", counts, smallest_values(row_ids, rows)))
    steep = ~invalid & (values > MAX_EXPONENTIAL_GRADE)
    if exponential and steep.any():
        rows = _rows_of(grades, steep)
        counts = (("rows", int(rows.sum())), ("max_grade", int(values[steep].max())))
        examples = smallest_values(row_ids, rows)
        findings.append(Finding("exponential_grades", counts, examples, tuple(exponential)))
    words = Wording(target_name=target_name, grade_name=grade_name)
    raise_findings(findings, HostVisibleError, SOLUTION, words)
    return values


def _rows_of(grades: SplitLists, tokens: np.ndarray) -> np.ndarray:
    """The rows holding any of the marked tokens."""
    rows = np.zeros(len(grades.lengths), dtype=bool)
    rows[grades.row_of_token[tokens]] = True
    return rows


def grade_columns(
    names: Sequence[str], grade_column_name: str | None
) -> tuple[list[str], str | None]:
    """The solution's header without its grade column (for :func:`solution_columns`).

    Raises
    ------
    HostVisibleError
        The grade column is not in the header, or is the only other column.

    Examples
    --------
    >>> grade_columns(["id", "items", "grades"], "grades")
    (['id', 'items'], 'grades')
    >>> grade_columns(["id", "grades"], "grades")
    Traceback (most recent call last):
    ...
    scorer.errors.HostVisibleError: The solution is invalid (1 problem):
    1. Grade column without a target column
    ...
    """
    names = list(names)
    if grade_column_name is None:
        return names, None
    problem = None
    if grade_column_name not in names:
        problem = Problem(
            "Grade column not found",
            f"a column named {grade_column_name!r}",
            f"columns {names}" + _did_you_mean(grade_column_name, names),
            "pass the right grade_column_name, or fix the solution's header",
        )
    elif len([n for n in names if n not in (grade_column_name, USAGE_COLUMN)]) < 2:
        problem = Problem(
            "Grade column without a target column",
            f"a target column of items besides the grade column {grade_column_name!r}",
            f"columns {names}",
            "add the items' column; the grades give one grade per item",
        )
    raise_if_any([problem] if problem else [], HostVisibleError, SOLUTION)
    return [n for n in names if n != grade_column_name], grade_column_name
