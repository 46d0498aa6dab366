"""trec_eval's qrels and run, read, judged and checked: every problem of a file at once.

The qrels are the solution (their problems are the host's), the run the submission
(the participant's). Under ``format="trec"`` the options keep trec_eval's meanings
(:data:`scorer.options.TREC_DEFAULTS`): ``k`` is ``-M``, ``unjudged="drop"`` is ``-J``,
``relevance_threshold`` is ``-l``, ``missing_rows="empty"`` is ``-c`` and ``"skip"``
(the default) leaves a query the run lacks out of the mean; a run query the qrels lack
is ignored (``unknown_row_ids="ignore"``) or, with ``"error"``, refused. The qrels'
qids are the queries every participant retrieves for, so messages name them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from scorer.align.joins import StringIndex, byte_order_codes
from scorer.align.rankings import GroundTruth
from scorer.align.trec_runs import TrecJudged, TrecRules, judge_run
from scorer.arrays import to_strings
from scorer.check.findings import (
    MAX_EXPONENTIAL_GRADE,
    MAX_GRADE,
    Wording,
    raise_findings,
    stated,
)
from scorer.check.validate import SOLUTION, SUBMISSION, Solution
from scorer.errors import (
    Finding,
    HostVisibleError,
    ParticipantVisibleError,
    Problem,
    smallest_values,
)
from scorer.options import Options
from scorer.read.files import ReadLimits
from scorer.read.inputs import TableLike
from scorer.read.trec import QRELS_COLUMNS, TREC_FORMATS, TrecFile, TrecKind, read_trec

#: The words trec_eval's files are described with: the qid, the docno, the rel.
TREC_WORDING = Wording(0, *QRELS_COLUMNS)


@dataclass(frozen=True)
class TrecChecked:
    """A valid run judged against valid qrels.

    Attributes
    ----------
    solution : Solution
        The qrels' queries as the solution's rows (``left_out``: those the run lacks,
        with ``missing_rows="skip"``).
    truth : GroundTruth
        Each query's relevant documents counted (``n_relevant``) and its docnos judged
        twice (``n_duplicates``).
    judged : TrecJudged
    """

    solution: Solution
    truth: GroundTruth
    judged: TrecJudged


def check_trec(
    qrels_path: TableLike,
    run_path: TableLike,
    options: Options,
    limits: ReadLimits | None,
    exponential: tuple[str, ...] = (),
    copy_key: tuple[int, int] | None = None,
) -> TrecChecked:
    """Read both files, judge the run and raise every problem: the qrels' first (a
    :class:`HostVisibleError`), then the run's (a :class:`ParticipantVisibleError`).

    ``exponential`` names the requested measures with exponential gains (``rel`` then
    stops at 30); ``copy_key``: also print each query's ranking under that key
    (:attr:`TrecJudged.row_prints`).

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> qrels, run = os.path.join(folder, "qrels"), os.path.join(folder, "run")
    >>> _ = open(qrels, "w").write("q1 0 d1 1\\nq2 0 d2 1\\n")
    >>> _ = open(run, "w").write("q1 Q0 d1 1 2.5 tag\\n")
    >>> checked = check_trec(qrels, run, Options(format="trec", missing_rows="skip"), None)
    >>> checked.solution.row_ids.to_pylist(), checked.solution.left_out.tolist()
    (['q1', 'q2'], [False, True])
    >>> check_trec(qrels, run, Options(format="trec"), None)
    Traceback (most recent call last):
    ...
    scorer.errors.ParticipantVisibleError: The submission is invalid (1 problem):
    1. Queries missing from the run
    ...
    """
    qrels = read_trec(_path(qrels_path, "qrels"), "qrels", HostVisibleError, limits)
    unjudged = _no_judgement(qrels)
    rules = TrecRules(options.relevance_threshold, options.k, options.unjudged == "drop")
    # The run is handed over, no reference kept: judge_run frees its columns as it goes.
    run_file = _path(run_path, "run")
    judged = judge_run(
        qrels, read_trec(run_file, "run", ParticipantVisibleError, limits), rules, copy_key
    )
    host = [*unjudged, *judged.qrels_problems, *_rel_problems(qrels, exponential)]
    raise_findings(host, HostVisibleError, SOLUTION, TREC_WORDING)
    raise_findings(
        _run_problems(judged, options), ParticipantVisibleError, SUBMISSION, TREC_WORDING
    )
    queries = judged.queries
    left_out = ~judged.in_run if options.missing_rows == "skip" else None
    solution = Solution(*QRELS_COLUMNS[:2], queries, None, StringIndex(queries), left_out)
    no_pairs = np.zeros(0, dtype=np.int64)
    truth = GroundTruth(
        to_strings([]),
        no_pairs,
        no_pairs.astype(np.int32),
        judged.judgements.n_relevant,
        judged.n_repeated_judgements,
    )
    return TrecChecked(solution, truth, judged)


def qrels_queries(qrels_path: TableLike, limits: ReadLimits | None) -> pa.Array:
    """The qrels' qids, each once, in byte order."""
    qrels = read_trec(_path(qrels_path, "qrels"), "qrels", HostVisibleError, limits)
    return byte_order_codes(qrels.qids)[1]


def _no_judgement(qrels: TrecFile) -> list[Finding]:
    """A qrels file of comments and blank lines only: the host's problem, not a run
    that names no query of it (malformed lines are told as such)."""
    if qrels.n_lines or qrels.problems:
        return []
    problem = Problem(
        "No judgement in the qrels",
        f"lines '{TREC_FORMATS['qrels']}'",
        "only comments (a first field that starts with #) and blank lines",
        "check that this is the qrels file and that it was written whole",
    )
    return [stated(problem)]


def _rel_problems(qrels: TrecFile, exponential: tuple[str, ...]) -> list[Finding]:
    """Lines whose ``rel`` passes the largest grade (30 with exponential gains): their
    count and the smallest qids."""
    kind, bound = (
        ("exponential_grades", MAX_EXPONENTIAL_GRADE)
        if exponential
        else (
            "rels_too_large",
            MAX_GRADE,
        )
    )
    above = qrels.values > bound
    if not above.any():
        return []
    runs = np.bincount(qrels.qid_codes()[above], minlength=len(qrels.qids)) > 0
    counts = (("rows", int(above.sum())), ("max_grade", int(qrels.values.max())))
    return [Finding(kind, counts, smallest_values(qrels.qids, runs), exponential)]


def _run_problems(judged: TrecJudged, options: Options) -> list[Finding]:
    """The run's problems: its lines', a query of the qrels missing (``missing_rows=
    "error"``), a query the qrels lack (``unknown_row_ids="error"``), or no query of the
    qrels at all (trec_eval: "No queries with both results and relevance info")."""
    findings = list(judged.run_problems)
    missing = ~judged.in_run
    queries = judged.queries
    if options.missing_rows == "error" and missing.any():
        counts = (("qids", int(missing.sum())), ("queries", len(queries)))
        findings.append(Finding("missing_queries", counts, smallest_values(queries, missing)))
    unknown = judged.unknown_qids
    if options.unknown_row_ids == "error" and len(unknown):
        findings.append(
            Finding("unknown_queries", (("qids", len(unknown)),), smallest_values(unknown))
        )
    if not judged.in_run.any() and options.missing_rows != "empty":
        counts = (("queries", len(queries)),)
        findings.append(Finding("no_query_in_run", counts, smallest_values(unknown)))
    return findings


def _path(data: TableLike, kind: TrecKind) -> str | os.PathLike:
    """A trec_eval file's path; anything else is the host's mistake."""
    if isinstance(data, (str, os.PathLike)):
        return data
    raise HostVisibleError(
        f"format='trec' reads trec_eval's own files: pass the path of the {kind} file, "
        f"not a {type(data).__name__} (or read it into the long layout: layout='long', "
        "score_column_name=...)."
    )
