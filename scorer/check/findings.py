"""Problems and warnings as records (kind, counts, examples), put into words once, at the end.

A check records what it found as a :class:`~scorer.errors.Finding`: a kind, named
counts and up to five example row ids, the smallest in byte order. Records of the same
kind from several parts of one run add up (:func:`merge_findings`: counts added, the
five smallest examples of the union), so a run split into parts says the same words as
one run; :func:`problems` and :func:`warnings` write the sentences.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from scorer.align.long_layout import MAX_RANK_DIGITS
from scorer.constraints import DECIMAL
from scorer.errors import (
    LINES,
    QID_DOCNO,
    ROW_IDS,
    Finding,
    Problem,
    ScorerError,
    format_count,
    format_example,
    format_problems,
)
from scorer.read.trec import TREC_FORMATS, TREC_LAYOUTS, TREC_NUMBERS, WHOLE, TrecKind

USAGE_VALUES: tuple[str, ...] = ("Public", "Private", "Ignored")
#: The largest grade a solution's grade column may hold: linear gains (``gain=linear``)
#: take grades up to 2^31.
MAX_GRADE = 2**31
#: The largest grade a measure with exponential gains (2^grade - 1: nDCG's and DCG's
#: ``gain=exp``, ERR, nERR) accepts: 2^30 gains stay exact in float64.
MAX_EXPONENTIAL_GRADE = 30

#: What each repair of a row id does (a near-miss hint on "Missing rows" and "Unknown
#: row ids"), in the order the repairs are tried (``scorer.check.validate``).
ID_REPAIRS: tuple[str, ...] = (
    "surrounding whitespace is removed",
    "case is ignored",
    "leading zeros are restored (the ids were probably read as numbers)",
    "a trailing '.0' is removed and leading zeros restored (the ids were read as decimal numbers)",
    "both are read as numbers rounded to 3 significant digits: the ids look written by a "
    "spreadsheet in scientific notation (like 7.06E+08), which loses digits for good; "
    "export the row ids as text",
)


@dataclass(frozen=True)
class Wording:
    """What the sentences need besides the records: the options and the column names.

    Attributes
    ----------
    k : int
        The run's cut-off.
    row_id_name, target_name, grade_name : str
        The solution's column names (``grade_name`` empty without grades).
    """

    k: int = 10
    row_id_name: str = ""
    target_name: str = ""
    grade_name: str = ""


def stated(problem: Problem) -> Finding:
    """A problem that reads no row (a header's), kept in words: equal in every part."""
    text = (problem.title, problem.expected, problem.found, problem.fix, problem.example_label)
    return Finding("stated", (), problem.examples, text)


def as_finding(problem: Problem | Finding) -> Finding:
    """A record as it is, a problem in words :func:`stated`."""
    return problem if isinstance(problem, Finding) else stated(problem)


def _id_hints(finding: Finding) -> str:
    return "".join(
        f"; {format_count(count, 'submitted row id')} would match once {description}"
        for index, description in enumerate(ID_REPAIRS)
        if (count := finding.count(f"repair_{index}"))
    )


def _empty_row_ids(where: str, fix: str) -> Callable[[Finding, Wording], Problem]:
    def render(finding: Finding, wording: Wording) -> Problem:
        rows = format_count(finding.count("rows"), "row")
        return Problem(
            "Empty row ids", "a row id in every row", f"{rows} of {where} with an empty row id", fix
        )

    return render


def _duplicates(where: str, fix: str) -> Callable[[Finding, Wording], Problem]:
    def render(finding: Finding, wording: Wording) -> Problem:
        return Problem(
            "Duplicated row ids",
            "each row id at most once",
            f"{format_count(finding.count('ids'), 'row id')} repeated, "
            f"{format_count(finding.count('rows'), 'extra row')} in the {where}",
            fix,
            finding.examples,
        )

    return render


def _list_like(finding: Finding, wording: Wording) -> Problem:
    return Problem(
        "Row ids that look like item lists",
        f"one id per cell in the row-id column {wording.row_id_name!r}",
        f"{format_count(finding.count('rows'), 'row')} whose row id holds several "
        "whitespace-separated tokens, like an item list",
        f"the row-id column is probably the item column: pass "
        f"row_id_column_name={wording.target_name!r} if that column holds the ids (by "
        "default the row-id column is the solution's first column)",
    )


def _unknown_usage(finding: Finding, wording: Wording) -> Problem:
    return Problem(
        "Unknown Usage values",
        f"each Usage one of {list(USAGE_VALUES)}",
        f"{format_count(finding.count('rows'), 'row')} with other values, e.g. "
        f"{list(finding.values)}",
        "write Public, Private or Ignored (case matters)",
        finding.examples,
    )


def _missing_rows(finding: Finding, wording: Wording) -> Problem:
    return Problem(
        "Missing rows",
        f"one row for each of the {finding.count('solution_rows'):,} row ids of the sample "
        "submission",
        f"{format_count(finding.count('ids'), 'row id')} with no row" + _id_hints(finding),
        "add a row for every row id of the sample submission (an empty prediction list is allowed)",
        finding.examples,
    )


def _unknown_row_ids(finding: Finding, wording: Wording) -> Problem:
    return Problem(
        "Unknown row ids",
        "only row ids of the sample submission",
        f"{format_count(finding.count('rows'), 'row')} whose row id is not in the sample "
        "submission" + _id_hints(finding),
        "copy the row ids from the sample submission exactly, as text",
        finding.examples,
    )


def _open_quotes(finding: Finding, wording: Wording) -> Problem:
    return Problem(
        "Cells that span several lines",
        "one line per row",
        f"{format_count(finding.count('cells'), 'prediction cell')} containing a line break: "
        "a quote left open swallows every line after it, so those rows seem missing",
        "close every quote, or remove the quotes around the prediction lists",
        finding.examples,
    )


def _too_many(finding: Finding, wording: Wording) -> Problem:
    k = wording.k
    return Problem(
        "Too many predictions",
        f"at most {format_count(k, 'item id')} per row, separated by spaces",
        f"{format_count(finding.count('rows'), 'row')} with more (up to "
        f"{finding.count('max_items'):,})",
        f"keep only your best {format_count(k, 'item id')} in each row",
        finding.examples,
    )


def _not_one_scored_pair(finding: Finding, wording: Wording) -> Problem:
    return Problem(
        "Not one scored prediction",
        "each cell empty or one label and its confidence, separated by a space "
        "(such as '123 0.87')",
        f"{format_count(finding.count('rows'), 'row')} with one token alone or more than two",
        "write one label and its confidence per row (in a long file, one line per row "
        "id), or leave the cell empty",
        finding.examples,
    )


def _bad_confidences(finding: Finding, wording: Wording) -> Problem:
    return Problem(
        "Invalid confidences",
        "each label's confidence as a finite decimal number (such as 0.87, 1, or 3e-5)",
        f"{format_count(finding.count('rows'), 'row')} whose confidence is not one "
        "(text, inf, nan, or past the float64 range)",
        "write each confidence as a plain decimal number",
        finding.examples,
    )


def _grades_mismatch(finding: Finding, wording: Wording) -> Problem:
    return Problem(
        "Grades do not match the items",
        f"in each row, one grade in {wording.grade_name!r} per item in {wording.target_name!r}",
        f"{format_count(finding.count('rows'), 'row')} with another number of grades",
        "write one space-separated grade per item, in the items' order",
        finding.examples,
    )


def _invalid_grades(finding: Finding, wording: Wording) -> Problem:
    return Problem(
        "Invalid grades",
        f"each grade in {wording.grade_name!r} an integer from 0 to {MAX_GRADE:,}",
        f"{format_count(finding.count('rows'), 'row')} with a negative, fractional, "
        "too large or non-numeric grade",
        f"write whole numbers from 0 (judged, not relevant) to {MAX_GRADE:,}",
        finding.examples,
    )


def _exponential_grades(finding: Finding, wording: Wording) -> Problem:
    return Problem(
        "Grades too large for exponential gains",
        f"grades up to {MAX_EXPONENTIAL_GRADE} for {', '.join(finding.values)}, whose "
        "gain 2^grade - 1 must stay exact",
        f"{format_count(finding.count('rows'), 'row')} with a grade above "
        f"{MAX_EXPONENTIAL_GRADE} (up to {finding.count('max_grade'):,})",
        "use linear gains (e.g. nDCG(gain=linear)@10; grades up to 2^31), drop "
        "ERR and nERR, or rescale the grades to 0..30",
        finding.examples,
    )


def _not_candidates(finding: Finding, wording: Wording) -> Problem:
    n_items = finding.count("items")
    shown = ", ".join(format_example(item) for item in finding.values)
    return Problem(
        "Items that are not candidates",
        "only each row's own candidates",
        f"{format_count(n_items, 'item')} in {format_count(finding.count('rows'), 'row')} that "
        f"{'is' if n_items == 1 else 'are'} not among its row's candidates, e.g. {shown}",
        "rank only the candidates given for each row",
        finding.examples,
    )


def _candidates_repeated(finding: Finding, wording: Wording) -> Problem:
    return Problem(
        "Candidates ranked more than once",
        "each candidate at most once in its row",
        f"{format_count(finding.count('rows'), 'row')} ranking a candidate more than once "
        f"({format_count(finding.count('extra'), 'extra entry')})",
        "remove the repeated items",
        finding.examples,
    )


def _candidates_missing(finding: Finding, wording: Wording) -> Problem:
    return Problem(
        "Candidates missing",
        "every candidate of each row ranked exactly once",
        f"{format_count(finding.count('rows'), 'row')} leaving out "
        f"{format_count(finding.count('candidates'), 'candidate')}",
        "rank every candidate given for each row",
        finding.examples,
    )


def _several_items_in_cell(finding: Finding, wording: Wording) -> Problem:
    (item_name,) = finding.values
    return Problem(
        "Several items in one cell",
        f"one item id per row in {item_name!r} (the long layout: one row per row id and item)",
        f"{format_count(finding.count('rows'), 'row')} whose {item_name!r} cell holds several "
        "whitespace-separated items",
        "write one row per item, or use the wide layout (one row per row id, items separated "
        "by spaces)",
        finding.examples,
    )


def _invalid_ranks(finding: Finding, wording: Wording) -> Problem:
    (rank_name,) = finding.values
    return Problem(
        "Invalid ranks",
        f"each {rank_name!r} a whole number from 1, best first",
        f"{format_count(finding.count('rows'), 'row')} whose rank is not a whole number of at "
        "least 1",
        "number each row id's items 1, 2, 3, ... from the best",
        finding.examples,
    )


def _ranks_too_large(finding: Finding, wording: Wording) -> Problem:
    (rank_name,) = finding.values
    return Problem(
        "Ranks too large",
        f"each {rank_name!r} at most {10**MAX_RANK_DIGITS - 1:,} (only the order counts)",
        f"{format_count(finding.count('rows'), 'row')} whose rank has more than "
        f"{MAX_RANK_DIGITS} digits",
        "number each row id's items 1, 2, 3, ... from the best",
        finding.examples,
    )


def _invalid_scores(finding: Finding, wording: Wording) -> Problem:
    (score_name,) = finding.values
    return Problem(
        "Invalid scores",
        f"each {score_name!r} a finite decimal number (higher ranks first)",
        f"{format_count(finding.count('rows'), 'row')} whose score is not a finite number "
        "(empty, text, NaN, infinite or too large)",
        "write every score as a plain decimal number such as 0.25 or -1.5e-3",
        finding.examples,
    )


def _duplicated_ranks(finding: Finding, wording: Wording) -> Problem:
    (rank_name,) = finding.values
    return Problem(
        "Duplicated ranks",
        f"each {rank_name!r} at most once within a row id",
        f"{format_count(finding.count('row_ids'), 'row id')} giving a rank to several items "
        f"({format_count(finding.count('extra'), 'extra row')})",
        "give each of a row id's items its own rank",
        finding.examples,
    )


def _docnos_repeated(finding: Finding, wording: Wording) -> Problem:
    return Problem(
        "Documents retrieved twice for a query",
        "each docno at most once per qid (trec_eval refuses a run that repeats one)",
        f"{format_count(finding.count('qids'), 'qid')} retrieving a docno more than once "
        f"({format_count(finding.count('extra'), 'extra line')})",
        "keep one line per qid and docno",
        finding.examples,
        QID_DOCNO,
    )


def _not_one_grade(finding: Finding, wording: Wording) -> Problem:
    (grade_name,) = finding.values
    return Problem(
        "Not one grade per item",
        f"one value in {grade_name!r} on each row with an item",
        f"{format_count(finding.count('rows'), 'row')} with an empty cell or several values",
        "write one whole-number grade on each row with an item",
        finding.examples,
    )


def _differing_values(finding: Finding, wording: Wording) -> Problem:
    (name,) = finding.values
    return Problem(
        f"Several values of {name!r} for one row id",
        f"one {name!r} value for all the rows of a row id (a long solution)",
        f"{format_count(finding.count('row_ids'), 'row id')} with different values",
        f"give every row of a row id the same {name!r}",
        finding.examples,
    )


def _malformed_lines(finding: Finding, wording: Wording) -> Problem:
    kind = _trec_kind(finding)
    n_fields, more_allowed, _ = TREC_LAYOUTS[kind]
    shape = f"the {n_fields} fields of {TREC_FORMATS[kind]}"
    fix = f"write each line as {TREC_FORMATS[kind]}"
    swapped = _swapped_hint(kind, finding.examples)
    if swapped:
        fix += swapped
    elif any(example.startswith("1: ") for example in finding.examples):
        fix += " (a trec_eval file has no header line: remove it)"
    return Problem(
        "Malformed lines",
        f"lines of {'at least' if more_allowed else 'exactly'} {shape}, separated by spaces "
        "or tabs" + (" (fields after the sixth are ignored)" if more_allowed else ""),
        f"{format_count(finding.count('lines'), 'line')} with "
        f"{'fewer' if more_allowed else 'another number of'} fields",
        fix,
        finding.examples,
        LINES,
    )


def _swapped_hint(kind: str, examples: tuple[str, ...]) -> str:
    r"""Whether every malformed line shown (as its example writes it: a tab escaped) has
    the other kind's fields: the qrels and the run given in each other's place.

    Examples
    --------
    >>> _swapped_hint("qrels", ("1: 'q1 Q0 d1 1 2.0 r'",))
    '; the lines look like a run: the qrels come first, then the run'
    >>> _swapped_hint("run", ("1: 'q1\t0\td1\t1'",))
    '; the lines look like qrels: the qrels come first, then the run'
    >>> _swapped_hint("run", ("1: 'q1 0 d1 1'", "2: 'q1 0 d2'"))
    ''
    >>> _swapped_hint("qrels", ("1: 'q1 0 d1 1 # a comment'",))  # no score: no run's line
    ''
    """
    lines = (example.partition(": ")[2].strip("'\"") for example in examples)
    fields = [re.split(r"(?:\\t|\s)+", line.strip()) for line in lines]  # tabs escaped
    # The other kind's lines: a run's have 6 fields or more, the fifth a score; qrels'
    # have 4, the fourth a rel.
    other, least, most, at, pattern = (
        ("a run", 6, None, 4, DECIMAL) if kind == "qrels" else ("qrels", 4, 4, 3, WHOLE)
    )
    swapped = bool(fields) and all(
        least <= len(words) <= (most or len(words)) and re.fullmatch(pattern, words[at])
        for words in fields
    )
    return f"; the lines look like {other}: the qrels come first, then the run" if swapped else ""


def _invalid_numbers(finding: Finding, wording: Wording) -> Problem:
    kind = _trec_kind(finding)
    name, what = TREC_NUMBERS[kind]
    fix = (
        "write each rel as a whole number (0 judged not relevant, a negative one in the "
        "pool but not judged)"
        if kind == "qrels"
        else "write each score as a plain decimal number such as 0.25 or -1.5e-3"
    )
    if any(example.startswith("1: ") for example in finding.examples):
        fix += " (a trec_eval file has no header line: remove it)"
    return Problem(
        f"Invalid {name}s",
        f"each line's {name} (field {TREC_LAYOUTS[kind][2][2] + 1} of {TREC_FORMATS[kind]}) {what}",
        f"{format_count(finding.count('lines'), 'line')} whose {name} is not {what}",
        fix,
        finding.examples,
        LINES,
    )


def _trec_kind(finding: Finding) -> TrecKind:
    """The trec_eval file a record is about (its first value that names one)."""
    return next(value for value in finding.values if value in TREC_LAYOUTS)  # type: ignore[return-value]


def _rels_too_large(finding: Finding, wording: Wording) -> Problem:
    return Problem(
        "Invalid rels",
        f"each rel at most {MAX_GRADE:,}",
        f"{format_count(finding.count('rows'), 'line')} with a larger rel (up to "
        f"{finding.count('max_grade'):,})",
        f"write rels from 0 (judged, not relevant) to {MAX_GRADE:,}",
        finding.examples,
    )


def _missing_queries(finding: Finding, wording: Wording) -> Problem:
    return Problem(
        "Queries missing from the run",
        f"lines for each of the {finding.count('queries'):,} queries of the qrels",
        f"{format_count(finding.count('qids'), 'query')} of the qrels with no line in the run",
        "retrieve at least one document for each query, or score the missing ones 0 "
        "(missing_rows='empty', trec_eval's -c) or leave them out of the mean "
        "(missing_rows='skip', the default for trec_eval files)",
        finding.examples,
    )


def _unknown_queries(finding: Finding, wording: Wording) -> Problem:
    return Problem(
        "Queries the qrels do not hold",
        "only queries of the qrels",
        f"{format_count(finding.count('qids'), 'qid')} of the run that the qrels do not hold",
        "remove their lines, or ignore them as trec_eval does (unknown_row_ids='ignore', "
        "the default for trec_eval files)",
        finding.examples,
    )


def _no_query_in_run(finding: Finding, wording: Wording) -> Problem:
    return Problem(
        "No query of the qrels in the run",
        f"lines for the queries of the qrels ({finding.count('queries'):,} queries)",
        'no line of the run names a query of the qrels (trec_eval: "No queries with '
        'both results and relevance info")'
        + ("; the run's qids are below" if finding.examples else "; the run has no line"),
        "check that the run and the qrels are of the same topics, and that the qid is the "
        "first field of each line",
        finding.examples,
    )


def _stated(finding: Finding, wording: Wording) -> Problem:
    title, expected, found, fix, label = finding.values
    return Problem(title, expected, found, fix, finding.examples, label or ROW_IDS)


#: Every kind of problem in the order a message lists them, with its words.
PROBLEMS: dict[str, Callable[[Finding, Wording], Problem]] = {
    "stated": _stated,
    # a long or trec_eval file's pivot to one row per row id
    "malformed_lines": _malformed_lines,
    "invalid_numbers": _invalid_numbers,
    "rels_too_large": _rels_too_large,
    "missing_queries": _missing_queries,
    "unknown_queries": _unknown_queries,
    "no_query_in_run": _no_query_in_run,
    "several_items_in_cell": _several_items_in_cell,
    "invalid_ranks": _invalid_ranks,
    "ranks_too_large": _ranks_too_large,
    "invalid_scores": _invalid_scores,
    "duplicated_ranks": _duplicated_ranks,
    "docnos_repeated": _docnos_repeated,
    "not_one_grade": _not_one_grade,
    "usage_differs": _differing_values,
    "segment_differs": _differing_values,
    "solution_empty_row_ids": _empty_row_ids("the solution", "fill in or drop those rows"),
    "list_like_row_ids": _list_like,
    "solution_duplicated_row_ids": _duplicates("solution", "keep one row per id"),
    "unknown_usage": _unknown_usage,
    "submission_empty_row_ids": _empty_row_ids(
        "the submission", "give every row the row id of the sample submission"
    ),
    "submission_duplicated_row_ids": _duplicates("submission", "keep exactly one row per row id"),
    "missing_rows": _missing_rows,
    "unknown_row_ids": _unknown_row_ids,
    "open_quotes": _open_quotes,
    "too_many_predictions": _too_many,
    "not_one_scored_pair": _not_one_scored_pair,
    "bad_confidences": _bad_confidences,
    # found once the rows are matched, after every other problem of the submission
    "not_candidates": _not_candidates,
    "candidates_repeated": _candidates_repeated,
    "candidates_missing": _candidates_missing,
    "grades_mismatch": _grades_mismatch,
    "invalid_grades": _invalid_grades,
    "exponential_grades": _exponential_grades,
}

#: Every warning code in the order a result lists them (with the records a hint is made
#: of, ``padded_ids``, ``bare_ids`` and ``numeric_ids``, where it comes).
WARNINGS: tuple[str, ...] = (
    "missing_queries",
    "missing_queries_scored",
    "repeated_items",
    "short_rows",
    "empty_rows",
    "padded_ids",
    "bare_ids",
    "leading_zeros_lost",
    "item_ids_as_numbers",
    "comma_separated_lists",
    "numeric_ids",
    "numbers_scoring_zero",
    "leading_zeros_lost_in_submission",
    "leading_zeros_lost_in_solution",
    "duplicate_ground_truth",
    "repeated_judgements",
    "no_public_users",
    "no_private_users",
)

_AS_TEXT = (
    "item ids are compared as exact strings, so keep them as text (for example pandas: dtype=str)."
)
#: Each warning about rows: its audience and its words, from its record's counts
#: (``{rows}``/``{row_ids}`` its rows, ``{have}``, ``{tokens}``/``{ids}`` its predicted ids,
#: ``{width}``) and the run's ``{k}``. Written here, never carried by a record: a part's
#: record says what it counted, not what to print.
WARNING_WORDS: dict[str, tuple[str, str]] = {
    "missing_rows": (
        "participant",
        "{row_ids} of the sample submission {have} no row in the submission; each is "
        "scored as an empty ranking (missing_rows='empty').",
    ),
    "missing_queries": (
        "participant",
        "{qids} of the qrels {have} no line in the run: left out of the mean, as trec_eval "
        "does (-c scores them 0).",
    ),
    "missing_queries_scored": (
        "participant",
        "{qids} of the qrels {have} no line in the run: scored 0 (missing_rows='empty', "
        "trec_eval's -c).",
    ),
    "repeated_items": (
        "participant",
        "{rows} {have} a repeated item id; a repeat keeps its rank but earns nothing.",
    ),
    "short_rows": (
        "participant",
        "{rows} {have} fewer than {k} predictions; an unused slot can never earn credit.",
    ),
    "empty_rows": ("participant", "{rows} {have} no prediction and score 0."),
    "leading_zeros_lost": (
        "participant",
        "{rows} {have} item ids of digits only that are one or two digits shorter than the "
        "submission's usual {width}-digit ids with leading zeros ({tokens} in all): they "
        "probably lost their leading zeros when read as numbers; " + _AS_TEXT,
    ),
    "item_ids_as_numbers": (
        "participant",
        "{rows} {have} item ids written as floating-point numbers, like '706016001.0' or "
        "'7.06016001e+08' ({tokens} in all): they were probably read as numbers, which also "
        "drops leading zeros; " + _AS_TEXT,
    ),
    "comma_separated_lists": (
        "participant",
        "{rows} {have} item ids containing a comma or semicolon: separate items with spaces, "
        "not commas ('a b c', not 'a,b,c'); 'a,b' counts as one item id and 'a,' does not "
        "match 'a'.",
    ),
    "numbers_scoring_zero": (
        "participant",
        "The leaderboard score is 0 and every predicted item id ({ids} in all) is a number "
        "written without leading zeros: if the sample submission's item ids have them (as "
        "H&M's 10-digit article ids do), yours probably lost them when read as numbers; "
        + _AS_TEXT,
    ),
    "leading_zeros_lost_in_submission": (
        "host",
        "{rows} of the submission {have} item ids ({tokens} in all) that match none of their "
        "row's relevant items as written but would match one with leading zeros restored: "
        "the participant's item ids were probably read as numbers.",
    ),
    "leading_zeros_lost_in_solution": (
        "host",
        "{rows} of the submission {have} item ids ({tokens} in all) that match none of their "
        "row's relevant items as written but would match one with their leading zeros "
        "removed: the solution's item ids probably lost their leading zeros (read as "
        "numbers when it was prepared), so correct predictions score 0; write the "
        "solution's item ids as text.",
    ),
    "duplicate_ground_truth": (
        "host",
        "{rows} of the solution {have} a relevant item listed twice; it counts once.",
    ),
    "repeated_judgements": (
        "host",
        "{qids} of the qrels {have} a docno judged on more than one line; its largest rel "
        "counts (trec_eval stops at it).",
    ),
}
_ORDER = {kind: index for index, kind in enumerate((*PROBLEMS, *WARNINGS))}


def finding_order(finding: Finding) -> int:
    """Where a record's words come among a message's problems or a result's warnings."""
    return _ORDER.get(finding.kind, len(_ORDER))


def merge_findings(*groups: Iterable[Finding]) -> list[Finding]:
    """The records of several parts as one run's: same kind (and words) merged, in order.

    Examples
    --------
    >>> a = Finding("missing_rows", (("ids", 2), ("solution_rows", 5)), ("u2", "u4"))
    >>> b = Finding("missing_rows", (("ids", 1), ("solution_rows", 3)), ("u1",))
    >>> merge_findings([a], [], [b])
    [Finding(kind='missing_rows', counts=(('ids', 3), ('solution_rows', 8)), \
examples=('u1', 'u2', 'u4'), values=())]
    """
    merged: dict[tuple[str, tuple[str, ...]], Finding] = {}
    for group in groups:
        for finding in group:
            key = (finding.kind, finding.values if finding.kind in _WORDED else ())
            merged[key] = merged[key].merged(finding) if key in merged else finding
    return sorted(merged.values(), key=finding_order)


#: Kinds whose values are their words (kept whole, never merged as examples): with a
#: long file's pivot, the column's name.
_WORDED = frozenset(
    {
        "stated",
        "exponential_grades",
        "malformed_lines",
        "invalid_numbers",
        "several_items_in_cell",
        "invalid_ranks",
        "ranks_too_large",
        "invalid_scores",
        "duplicated_ranks",
        "not_one_grade",
        "usage_differs",
        "segment_differs",
        "bare_ids",
        "no_public_users",
        "no_private_users",
    }
)


def problems(findings: Sequence[Finding], wording: Wording) -> list[Problem]:
    """The problems' words. Open quotes are named only beside missing rows (a quote
    left open swallows the lines after it, so rows seem missing)."""
    kinds = {f.kind for f in findings}
    listed = sorted(findings, key=finding_order)  # as merged
    return [
        PROBLEMS[f.kind](f, wording)
        for f in listed
        if f.kind in PROBLEMS and (f.kind != "open_quotes" or "missing_rows" in kinds)
    ]


def raise_findings(
    findings: Sequence[Finding], error: type[ScorerError], subject: str, wording: Wording
) -> None:
    """Raise ``error`` listing every problem in words, or do nothing when there is none."""
    found = problems(findings, wording)
    if found:
        raise error(format_problems(subject, found), found, findings)
