"""The stages of a scoring run, which :func:`scorer.evaluate` and
:func:`scorer.partial.score_part` both compose: :func:`options_and_measures`,
:func:`read_and_check`, :func:`align`, then :func:`measure_means`, :func:`row_findings`
and :func:`assemble_result`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import Future, wait
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from scorer.align.candidates import drop_unjudged, non_relevant_counts
from scorer.align.item_lists import ListCells, SplitLists, fill_empty_cells, split_lists
from scorer.align.judgements import FlatHits, NonRelevant, scored_order
from scorer.align.rankings import (
    GroundTruth,
    Rankings,
    SparseRankings,
    build_rankings,
    distinct_items,
)
from scorer.align.target_types import TargetTypes, typed_solution, typed_submission
from scorer.arrays import byte_order, submit
from scorer.check.findings import WARNING_WORDS, finding_order
from scorer.check.grades import GradedTruth
from scorer.check.hints import (
    Hint,
    lost_zeros,
    numbers_scoring_zero,
    prediction_hints,
    solution_hints,
)
from scorer.check.shapes import (
    candidate_source,
    read_candidates,
    read_solution,
    read_submission,
    take_column,
)
from scorer.check.trec import check_trec
from scorer.check.validate import (
    SOLUTION,
    SUBMISSION,
    Candidates,
    Solution,
    Submission,
    check_solution,
    check_submission,
    grade_columns,
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
from scorer.measures import Judgements, Measure, UserValues, parse_all
from scorer.options import DEFAULT_K, SETTINGS, WHOLE_ROW, Options, row_bound
from scorer.per_user import Segments, take_segment_column
from scorer.policy import (
    SPLITS,
    ScoredUsers,
    split_labels,
    type_weights,
    typed_means,
    unscored_as_nan,
)
from scorer.read.columns import StringTable
from scorer.read.files import ReadLimits
from scorer.read.inputs import TableLike
from scorer.read.trec import QRELS_COLUMNS
from scorer.result import ScoreResult, ScoreWarning

if TYPE_CHECKING:
    import pandas as pd


def scored_predictions(measures: Sequence[Measure], options: Options) -> bool:
    """Whether the submission's cells are scored predictions (a measure such as ``GAP``
    reads them; a long file's lines their label and its score, ``score_column_name``);
    refused with target types, where each type would need its own global order."""
    scored = any(m.family.scored for m in measures)
    if scored and (options.target_type_column_name or options.row_id_type_separator):
        raise HostVisibleError(
            "GAP ranks every row's prediction in one order across the test set, so it "
            "cannot be weighted over target types. Score each type as a run of its own "
            "without target_type_column_name / row_id_type_separator."
        )
    if scored and options.layout == "long" and options.score_column_name is None:
        raise HostVisibleError(
            "GAP reads each prediction's confidence: a long submission gives it in a "
            "column of its own, one line per row id with its label and confidence. Name "
            "that column: score_column_name (--score-column)."
        )
    return scored


def keeps_candidates(
    measures: Sequence[Measure], options: Options, candidates: TableLike | None
) -> bool:
    """Whether a pair measure (AUC) reads the candidates as the non-relevant items,
    which :func:`read_and_check` then keeps. Refuses them when unjudged items are
    dropped on binary relevance: a binary solution lists only relevant items, so every
    candidate that is not relevant would be dropped and no ranking could order a pair
    wrongly (each would score as the best)."""
    if not any(m.family.needs_non_relevant for m in measures):
        return False
    given = options.candidates_column_name is not None or candidates is not None
    binary = options.grade_column_name is None and options.format != "trec"
    if given and binary and options.unjudged == "drop":
        raise HostVisibleError(
            "AUC with unjudged='drop' needs a grade column: a binary solution judges only "
            "its relevant items, so dropping the unjudged ones drops every candidate that "
            "is not relevant, and every ranking of the candidates would score as the best. "
            "Leave unjudged at 'keep' (the candidates that are not relevant are the "
            "non-relevant items), or give the solution a grade column (grade_column_name, "
            "--grade-column) that judges them with grade 0."
        )
    return True


def options_and_measures(given: Mapping[str, Any]) -> tuple[Options, tuple[Measure, ...]]:
    """The options among ``given`` (:func:`scorer.evaluate`'s keywords), checked, and the
    measures, with ``k`` settled (:func:`_default_k`)."""
    if given.get("recipe") is not None:  # evaluate and score apply it before this
        raise HostVisibleError(
            "recipe= is not supported when scoring in parts yet: pass the recipe's options "
            "(`scorer recipes NAME` lists them)."
        )
    options = Options(**{o.name: given[o.name] for o in SETTINGS if o.name in given})
    metrics = given.get("metrics")
    if options.dialect is None:
        options = replace(options, dialect="trec" if options.format == "trec" else "kaggle")
    if options.format == "trec":  # k is -M: no bound on a cut-off; none written, the whole run
        return options, parse_all(metrics, WHOLE_ROW, options.normalization, options.dialect)
    if options.k is None:
        options = replace(options, k=_default_k(metrics, options.dialect))
    measures = parse_all(metrics, row_bound(options.k), options.normalization, options.dialect)
    return options, measures


# Larger than any cut-off a name can write: a cut-off parsed as this one was not written.
_UNWRITTEN = 10**100


def _default_k(
    metrics: str | Measure | Sequence[str | Measure] | None, dialect: str = "kaggle"
) -> int | None:
    """``k`` when not given: :data:`DEFAULT_K`, raised to the largest cut-off among the
    measures (``MAP@12`` alone: 12). Never lowered: a smaller cut-off (``MAP@5``) still
    accepts rows of 10, as it always has. ``None`` when no measure has a cut-off (``SetF``,
    ``RPrec``, ``AUC``): rows are read whole (:func:`~scorer.options.row_bound`).

    A name the parser refuses is left to the parse with the settled ``k``, which refuses
    it with the message it always gave (a bound ``k`` only adds refusals).

    Examples
    --------
    >>> _default_k(["MAP@12"]), _default_k(["P@3", "nDCG@20", "RPrec"]), _default_k(["MAP@5"])
    (12, 20, 10)
    >>> _default_k(None), _default_k(["MAP"]), _default_k(["mapp@12"])
    (10, 10, 10)
    >>> _default_k(["SetF", "Jaccard", "RPrec"]), _default_k(["SetF", "SetP@3"])
    (None, 10)
    """
    try:
        measures = parse_all(metrics, _UNWRITTEN, dialect=dialect)
    except HostVisibleError:
        return DEFAULT_K
    if all(m.cutoff is None for m in measures):
        return None
    written = [m.cutoff for m in measures if m.cutoff is not None and m.cutoff != _UNWRITTEN]
    return max([DEFAULT_K, *written])


@dataclass(frozen=True)
class Inputs:
    """What :func:`evaluate` is given to read: the two inputs and the names and tables
    that go with them."""

    solution: TableLike
    submission: TableLike
    row_id_column_name: str | None
    segment_column_name: str | None
    candidates: TableLike | None


@dataclass
class Checked:
    """The read and checked inputs, and the solution's relevant items (or grades).

    ``judged`` holds the solution's listed items when unjudged ones are dropped;
    ``options`` are the options as applied (a trec_eval file sets some of them).
    """

    solution: Solution
    submission: Submission | None
    truth: GroundTruth | GradedTruth
    width: int
    segments: Segments | None
    options: Options
    judged: SplitLists | None
    n_unjudged_lines: int
    typed: TargetTypes | None = None
    candidates: Candidates | None = None
    aligned: Aligned | None = None  # trec_eval files: judged as they are read
    run_id: str | None = None  # a trec_eval run's tag
    row_prints: np.ndarray | None = None  # a trec_eval run's rankings' prints (copy_key)


def read_and_check(
    inputs: Inputs,
    options: Options,
    limits: ReadLimits | None,
    exponential: tuple[str, ...] = (),
    every_quote: bool = False,
    keep_candidates: bool = False,
    known_types: tuple[str, ...] | None = None,
    scored: bool = False,
    copy_key: tuple[int, int] | None = None,
    part: bool = False,
) -> Checked:
    """Read both inputs (any shape: docs/shapes.md, "Long layout", "TREC files") and check
    them; every problem is raised here, each input's problems at once (``exponential``:
    the requested measures with exponential gains, for the grades' bound;
    ``every_quote``: :func:`~scorer.check.validate.check_submission`'s;
    ``keep_candidates``: keep them for the pair measures' non-relevant items; ``known_types``:
    the whole solution's target types, for a part of a run; ``scored``: each submission
    cell is one ``label confidence`` pair, for ``GAP``; ``part``: the inputs are a part of
    a run, whose solution may have no row)."""
    # The solution's lists are encoded on the thread pool while this thread checks the
    # solution's rows, reads and checks the submission (numpy and Arrow release the
    # GIL). All are pure, so the result is the same whatever the timing. An invalid
    # solution or submission still raises here, once the encoding is done.
    if options.format == "trec":
        return _trec_checked(inputs, options, limits, exponential, copy_key)
    half = solution_half(inputs, options, limits, exponential, known_types)
    try:
        if not part:
            refuse_empty_solution(len(half.solution.row_ids))
        return checked_against(half, inputs, limits, every_quote, keep_candidates, scored)
    finally:
        wait([half.truth])  # an error raised here waits for the encoding to end


def refuse_empty_solution(n_rows: int) -> None:
    """A whole run's solution without a row (``n_rows`` 0) is the host's error (else
    every submission row would be an unknown row id, blamed on the participant); a part
    of a run may have none, the parts together may not."""
    if n_rows == 0:
        raise_if_any([_NO_SOLUTION_ROWS], HostVisibleError, SOLUTION)


_NO_SOLUTION_ROWS = Problem(
    "No rows",
    "one row per row id after the header",
    "a header and no row",
    "write the solution's rows (is it the right file?)",
)


def checked_against(
    half: SolutionHalf,
    inputs: Inputs,
    limits: ReadLimits | None,
    every_quote: bool = False,
    keep_candidates: bool = False,
    scored: bool = False,
) -> Checked:
    """:func:`read_and_check`'s submission half, against a solution read and checked once
    (``half`` is not changed: several submissions can be checked against it, as
    :func:`scorer.leaderboard` does)."""
    submission = _submission_half(inputs, half, limits, every_quote, scored)
    predictions = submission.predictions
    width = int(min(row_bound(half.options.k), predictions.lengths.max(initial=0)))
    kept = half.candidates if keep_candidates else None  # else checked against: not read again
    fields = {**vars(half), "truth": half.truth.result(), "candidates": kept}
    return Checked(**fields, submission=submission, width=width)


def _trec_checked(
    inputs: Inputs,
    options: Options,
    limits: ReadLimits | None,
    exponential: tuple[str, ...],
    copy_key: tuple[int, int] | None,
) -> Checked:
    """trec_eval's files read, checked and judged at once (docs/trec-eval.md): the
    judgements are made as the run is read, so the result holds them (and, with
    ``copy_key``, the prints of the run's rankings, :func:`scorer.leaderboard`'s)."""
    if inputs.row_id_column_name is not None or options.grade_column_name is not None:
        raise HostVisibleError(
            "format='trec' takes the row ids, items and grades from the fields of the "
            "qrels file (qid, docno, rel): leave row_id_column_name and "
            f"grade_column_name out. Got {inputs.row_id_column_name!r} and "
            f"{options.grade_column_name!r}."
        )
    options = trec_options(options)
    found = check_trec(inputs.solution, inputs.submission, options, limits, exponential, copy_key)
    judged = found.judged
    submitted = judged.in_run.astype(np.int64)  # the warnings read the run as submitted
    aligned = Aligned(
        judged.judgements, found.truth, np.flatnonzero(judged.in_run), submitted, submitted, [], []
    )
    return Checked(
        found.solution,
        None,
        found.truth,
        judged.judgements.width,
        None,
        options,
        None,
        judged.n_unjudged_lines,
        aligned=aligned,
        run_id=judged.run_id,
        row_prints=judged.row_prints,
    )


@dataclass
class SolutionHalf:
    """The solution read and its rows checked, its relevant items being encoded on the
    thread pool (``truth``); ``options`` as applied (a trec_eval file sets some)."""

    solution: Solution
    truth: Future[GroundTruth | GradedTruth]
    options: Options
    judged: SplitLists | None
    n_unjudged_lines: int
    typed: TargetTypes | None
    candidates: Candidates | None
    segments: Segments | None


def solution_half(
    inputs: Inputs,
    options: Options,
    limits: ReadLimits | None,
    exponential: tuple[str, ...],
    known_types: tuple[str, ...] | None,
) -> SolutionHalf:
    """Read the solution, set aside its segment, type and candidates columns, hand its
    relevant items to the thread pool to encode, check its rows and read the candidates."""
    candidate_column, candidate_table = candidate_source(options, inputs.candidates)
    shaped = read_solution(
        inputs.solution, options, inputs.row_id_column_name, inputs.segment_column_name, limits
    )
    table, segment_column = take_segment_column(shaped.table, inputs.segment_column_name)
    table, typed = _typed_solution(table, shaped.row_id_column_name, options, known_types)
    candidate_cells = None
    if candidate_column is not None:
        table, candidate_cells = take_column(table, candidate_column, "candidates_column_name")
    names, grade_name = grade_columns(table.names, options.grade_column_name)
    columns = solution_columns(names, shaped.row_id_column_name)
    table = _with_empty_token(table, columns.target_name, options)
    targets = table.column(columns.target_name)
    if grade_name is None:
        truth = submit(_ground_truth, targets)
    else:
        truth = submit(
            GradedTruth.from_columns,
            targets,
            table.column(grade_name),
            table.column(columns.row_id_name),
            (grade_name, columns.target_name),
            options.relevance_threshold,
            exponential,
        )
    try:
        judged = split_lists(targets) if options.unjudged == "drop" else None
        solution = check_solution(table, columns, shaped.problems)
        del table, targets  # at H&M scale, free the raw cells early
        candidates = read_candidates(
            candidate_cells,
            candidate_table,
            solution,
            options.candidate_rule,
            limits,
            typed,
            options.target_type_column_name,
        )
    except BaseException:
        wait([truth])  # the encoding ends before the error leaves
        raise
    segments = None if segment_column is None else Segments.from_column(*segment_column)
    return SolutionHalf(solution, truth, options, judged, 0, typed, candidates, segments)


def _submission_half(
    inputs: Inputs,
    half: SolutionHalf,
    limits: ReadLimits | None,
    every_quote: bool,
    scored: bool,
) -> Submission:
    """Read the submission in the solution's shape (its types and empty token) and check
    it against the checked solution and candidates."""
    options, solution = half.options, half.solution
    table, found = read_submission(inputs.submission, options, solution, limits, scored)
    table, typed_found = _typed_submission(table, solution.row_id_name, half.typed, options)
    table = _with_empty_token(table, solution.target_name, options)
    return check_submission(
        table,
        solution,
        options,
        [*found, *typed_found],
        half.candidates,
        every_quote=every_quote,
        scored=scored,
    )


def _with_empty_token(table: StringTable, target_name: str, options: Options) -> StringTable:
    """The table with each empty cell of its target column as ``empty_token``
    (docs/measures.md#empty-cells-as-a-token): the one place the option acts, for both
    inputs."""
    token = options.empty_token
    if token is None or target_name not in table.names:
        return table  # a missing column is the checks' to report
    position = table.names.index(target_name)
    columns = list(table.columns)
    columns[position] = fill_empty_cells(columns[position], token)
    return StringTable(table.names, tuple(columns))


def _typed_solution(
    table: StringTable,
    row_id_column_name: str | None,
    options: Options,
    known_types: tuple[str, ...] | None = None,
) -> tuple[StringTable, TargetTypes | None]:
    """The solution's target types (none unless asked for); the table keyed by (row id,
    type) when the types are a column of their own."""
    type_column, separator = options.target_type_column_name, options.row_id_type_separator
    if type_column is None and separator is None:
        return table, None
    if type_column is not None and type_column not in table.names:
        raise HostVisibleError(
            f"The solution has no target type column {type_column!r} "
            f"(target_type_column_name); its columns are {list(table.names)}."
            + did_you_mean(type_column, table.names)
        )
    others = [name for name in table.names if name != type_column]
    row_id_name = row_id_column_name if row_id_column_name is not None else others[0]
    if row_id_name not in table.names:
        return table, None  # the column check names the missing row-id column
    table, typed, problems = typed_solution(
        table, row_id_name, type_column=type_column, separator=separator, known=known_types
    )
    raise_if_any(problems, HostVisibleError, SOLUTION)
    return table, typed


def _typed_submission(
    table: StringTable, row_id_name: str, typed: TargetTypes | None, options: Options
) -> tuple[StringTable, list[Problem]]:
    """The submission keyed as the solution is, and its problems with target types
    (with types in the row ids, rows are matched by their whole row id: nothing to do)."""
    type_column = options.target_type_column_name
    if typed is None or type_column is None:
        return table, []
    table, problems = typed_submission(
        table, row_id_name, typed, type_column, options.unknown_row_ids == "ignore"
    )
    if any(p.title == "Missing target type column" for p in problems):
        raise_if_any(problems, ParticipantVisibleError, SUBMISSION)
    return table, problems


@dataclass(frozen=True)
class Aligned:
    """What the measures and the result need of the rankings, the rankings freed."""

    judgements: Judgements
    truth: GroundTruth
    user_of_row: np.ndarray
    lengths: np.ndarray
    n_first: np.ndarray
    hints: list[Hint]
    host_hints: list[Hint]


def align(checked: Checked, k: int, every_hint: bool = False) -> Aligned:
    """Rank each user's predictions and judge them against the truth (``every_hint``:
    record every hint's digit ids, for a part of a run: :func:`prediction_hints`).

    Takes the checked submission out of ``checked``: the predictions' keys and bytes
    are most of the memory per user, so they are freed once ranked (the resource
    contract, docs/formats-and-limits.md).
    """
    if checked.aligned is not None:
        return checked.aligned
    submission: Submission = checked.submission  # type: ignore[assignment]
    checked.submission = None
    graded = checked.truth if isinstance(checked.truth, GradedTruth) else None
    truth = graded.truth if graded is not None else checked.truth
    predictions, user_of_row = submission.predictions, submission.user_of_row
    confidence = submission.confidence  # scored predictions (GAP), else None
    n_users = checked.solution.n_rows
    rankings = build_rankings(predictions, user_of_row, n_users, checked.width, truth.vocabulary)
    hints = prediction_hints(predictions, user_of_row, n_users, every_hint)
    host_hints = solution_hints(predictions, user_of_row, truth)
    del submission
    first = rankings.first_occurrence()
    # The participant's warnings count the rows as submitted: counted after unjudged
    # items are dropped, they would tell which items the solution judges.
    lengths, n_first = rankings.lengths, rankings.n_first(first)
    if checked.judged is not None:
        rankings, first = _judged_rankings(checked, predictions, user_of_row, truth, k)
    del predictions
    if graded is None:
        judgements = _binary_judgements(rankings, first, truth, k)
        if checked.candidates is not None:
            found = _candidate_non_relevant(checked, judgements, truth)
            judgements = replace(judgements, non_relevant=found)
    else:
        judgements = graded.judgements(rankings, first, k)
    if confidence is not None:
        order = _scored_order(confidence, user_of_row, checked.solution.row_ids)
        judgements = replace(judgements, scored_order=order)
    return Aligned(judgements, truth, user_of_row, lengths, n_first, hints, host_hints)


def _scored_order(confidence: np.ndarray, user_of_row: np.ndarray, row_ids: pa.Array) -> np.ndarray:
    """The solution rows with a scored prediction in GAP's global order: confidence
    descending, then row id ascending in byte order (the solution's row order is
    hidden, the submission's means nothing)."""
    by_user = np.full(len(row_ids), np.nan)
    known = user_of_row >= 0
    by_user[user_of_row[known]] = confidence[known]
    return scored_order(by_user, byte_order(row_ids))


def _judged_rankings(
    checked: Checked,
    predictions: SplitLists,
    user_of_row: np.ndarray,
    truth: GroundTruth,
    k: int,
) -> tuple[Rankings | SparseRankings, np.ndarray]:
    """The rankings once the items the solution does not list are dropped and the
    ranks closed up (trec_eval ``-J``), and their first occurrences."""
    kept = drop_unjudged(predictions, user_of_row, checked.judged)  # type: ignore[arg-type]
    n_users = checked.solution.n_rows
    width = int(min(k, kept.lengths.max(initial=0)))
    rankings = build_rankings(kept, user_of_row, n_users, width, truth.vocabulary)
    return rankings, rankings.first_occurrence()


def _candidate_non_relevant(
    checked: Checked, judgements: Judgements, truth: GroundTruth
) -> NonRelevant:
    """The candidates that are not relevant, as the pair measures read them. Every
    ranked item is a candidate (candidates come with a rule that checked it), so the
    ranked ones are the first occurrences that are no hit."""
    candidates: Candidates = checked.candidates  # type: ignore[assignment]
    checked.candidates = None  # freed once used
    counts = non_relevant_counts(
        candidates.pairs,
        truth.users,
        truth.vocabulary.take(pa.array(truth.codes)),
        checked.solution.n_rows,
    )
    return NonRelevant(*judgements.ranked_misses(), counts)


def unjudged_lines_warnings(count: int) -> tuple[ScoreWarning, ...]:
    """The host's warning about the qrels lines left out as unjudged (none for 0)."""
    if not count:
        return ()
    message = (
        f"The qrels hold {format_count(count, 'line')} with a negative rel: in the pool but "
        "not judged, as trec_eval reads them (never relevant, counted apart by infAP; "
        "judged-only scoring drops them)."
    )
    return (ScoreWarning("qrels_unjudged_lines", message, count, (), "host"),)


def trec_options(options: Options) -> Options:
    """The options as a trec_eval run applies them: its file's own grade column."""
    return replace(options, grade_column_name=QRELS_COLUMNS[2])


def assemble_result(
    checked: Checked,
    aligned: Aligned,
    values: dict[str, UserValues],
    users: ScoredUsers,
    measures: tuple[Measure, ...],
    options: Options,
    per_user: bool,
    legacy: bool,
) -> ScoreResult:
    """The overall and split means, the warnings and the per-user arrays."""
    solution, truth, scored = checked.solution, aligned.truth, users.scored
    first_name = str(measures[0])
    means = measure_means(values, solution, scored, checked.typed, options)
    split_scores = means.split_scores(first_name)
    warnings = _warnings(solution, aligned, split_scores, means.overall[first_name], options)
    warnings += unjudged_lines_warnings(checked.n_unjudged_lines)
    user_values = {name: unscored_as_nan(value.values(), scored) for name, value in values.items()}
    hits = aligned.judgements.n_hits(row_bound(options.k))
    per_user_table = None
    if per_user:
        per_user_table = _per_user_table(
            solution, checked.typed, user_values, first_name, hits, truth, scored, legacy
        )
    typed = checked.typed
    return ScoreResult(
        **means.result_fields(first_name),
        n_users=solution.n_rows,
        n_scored=int(scored.sum()),
        n_skipped=int(users.skipped.sum()),
        n_ignored=int(users.ignored.sum()),
        options=options,
        warnings=warnings,
        per_user=per_user_table,
        measures=tuple(values),
        keys=leaderboard_keys(measures, legacy),
        user_values=user_values,
        exact_values=values,
        user_scored=scored,
        user_usage=solution.usage,
        row_ids=solution.row_ids,
        user_hits=hits,
        user_n_relevant=truth.n_relevant,
        hits_at_rank=_hits_at_rank(aligned.judgements, scored),
        segments=checked.segments,
        types=() if typed is None else typed.types,
        user_type=None if typed is None else typed.row_type,
        user_bare_row_ids=None if typed is None else typed.bare_row_ids,
        run_id=checked.run_id,
    )


def _per_user_table(
    solution: Solution,
    typed: TargetTypes | None,
    user_values: dict[str, np.ndarray],
    first_name: str,
    hits: np.ndarray,
    truth: GroundTruth,
    scored: np.ndarray,
    legacy: bool,
) -> pd.DataFrame:
    """One row per solution row: with target types, one per (row id, type), indexed by
    the solution's row id (``42_clicks``; the bare row id with a type column) and with
    a ``type`` column."""
    import pandas as pd  # only here: the CLI's hot path never imports pandas

    columns_by_name = {"ap": user_values[first_name]} if legacy else user_values
    columns = {**columns_by_name, "hits": hits, "n_relevant": truth.n_relevant, "scored": scored}
    row_ids = solution.row_ids
    if typed is not None:
        columns = {"type": typed.type_names.to_pylist(), **columns}
        if typed.joiner is not None:
            row_ids = typed.bare_row_ids
    return pd.DataFrame(columns, index=pd.Index(row_ids.to_pylist(), name=solution.row_id_name))


def _warnings(
    solution: Solution,
    aligned: Aligned,
    split_scores: dict,
    overall: float | None,
    options: Options,
) -> tuple[ScoreWarning, ...]:
    """The participant's warnings, then the host's."""
    typed = options.target_type_column_name or options.row_id_type_separator
    findings = run_findings(
        row_findings(solution, aligned, options), split_scores, overall, solution.usage is not None
    )
    return score_warnings(
        findings + split_findings(split_scores, solution.usage is not None, typed is not None),
        options.k,
    )


def run_findings(
    findings: Sequence[Finding], split_scores: dict, overall: float | None, has_usage: bool
) -> list[Finding]:
    """The records of the rows' warnings (one run's, or every part's merged) as the run's:
    the hints settled from their records (:func:`~scorer.check.hints.lost_zeros`,
    :func:`~scorer.check.hints.numbers_scoring_zero`, with the score the participant
    sees: the Public one with ``Usage``)."""
    shown = split_scores["Public"] if has_usage else overall
    settled = numbers_scoring_zero(lost_zeros(list(findings)), shown)
    return sorted(settled, key=finding_order)


def row_findings(solution: Solution, aligned: Aligned, options: Options) -> list[Finding]:
    """The records of the warnings about rows: the participant's, then the host's."""
    findings = _submission_findings(
        solution, aligned.user_of_row, aligned.lengths, aligned.n_first, aligned.hints, options
    )
    for code, rows, counts, values in aligned.host_hints:
        findings += _row_finding(code, rows, solution, counts=counts, values=values)
    repeated = "repeated_judgements" if options.format == "trec" else "duplicate_ground_truth"
    return findings + _row_finding(repeated, aligned.truth.n_duplicates > 0, solution)


def _ground_truth(targets: pa.Array) -> GroundTruth:
    """The solution's relevant sets, from its target column."""
    return GroundTruth.from_lists(ListCells(targets).split())


def leaderboard_keys(measures: Sequence[Measure], legacy: bool) -> dict[str, str]:
    """Each measure's leaderboard key. Without ``metrics`` the one MAP keeps today's
    key, ``map_at_K``, whatever its ``normalization=`` (hosts' leaderboards use it)."""
    keys = {str(m): m.key for m in measures}
    if legacy and measures[0].cutoff is not None:
        keys[str(measures[0])] = f"map_at_{measures[0].cutoff}"
    return keys


@dataclass(frozen=True)
class Means:
    """The overall and split values of every measure (weighted totals with target
    types), and with types each type's values and the weights."""

    overall: dict[str, float]
    splits: dict[str, dict[str, float] | None]
    by_type: dict[str, dict[str, float]] | None = None
    split_by_type: dict[str, Any] = field(default_factory=lambda: dict.fromkeys(SPLITS))
    weights: dict[str, float] | None = None

    @classmethod
    def of(cls, means: dict[str, Any], has_usage: bool) -> Means:
        """From each measure's split means (a split is ``None`` without ``Usage``, or
        when the first measure has no scored user there)."""
        first = next(iter(means.values()))
        splits = {
            split: None
            if not has_usage or first.by_label[label] is None
            else {name: mean.by_label[label] for name, mean in means.items()}
            for label, split in enumerate(SPLITS)
        }
        return cls({name: float(mean.overall) for name, mean in means.items()}, splits)

    def split_scores(self, first: str) -> dict[str, float | None]:
        """The measure ``first``'s value per split (``None`` without one)."""
        return {split: (found or {}).get(first) for split, found in self.splits.items()}

    def result_fields(self, first: str) -> dict[str, Any]:
        """:class:`~scorer.result.ScoreResult`'s fields of the values (``first``: the
        leaderboard's measure)."""
        scores = self.split_scores(first)
        public, private = scores["Public"], scores["Private"]
        return {
            "score": self.overall[first],
            "public_score": public,
            "private_score": private,
            "metrics": self.overall,
            "public_metrics": self.splits["Public"],
            "private_metrics": self.splits["Private"],
            "by_type": self.by_type,
            "public_by_type": self.split_by_type["Public"],
            "private_by_type": self.split_by_type["Private"],
            "weights": self.weights,
        }

    @classmethod
    def typed(cls, found: Any, weights: dict[str, Any]) -> Means:
        """From :func:`~scorer.policy.typed_means`' totals and the types' weights."""
        by_kind = {kind: float(weight) for kind, weight in weights.items()}
        return cls(found.overall, found.splits, found.by_type, found.split_by_type, by_kind)


def measure_means(
    values: dict[str, UserValues],
    solution: Solution,
    scored: np.ndarray,
    typed: TargetTypes | None,
    options: Options,
) -> Means:
    """Every measure's overall mean and its mean per split (``None`` for a split
    without a scorable user, or without ``Usage``), all splits in one pass each; with
    target types, each type's and the weighted totals (:func:`typed_means`)."""
    labels = split_labels(solution, scored)
    has_usage = solution.usage is not None
    if typed is not None:
        weights = type_weights(typed.types, options.type_weights)
        found = typed_means(values, typed.types, typed.row_type, labels, has_usage, weights)
        return Means.typed(found, weights)
    means = {name: value.split_means(labels, len(SPLITS)) for name, value in values.items()}
    return Means.of(means, has_usage)


def _binary_judgements(
    rankings: Rankings | SparseRankings, first: np.ndarray, truth: GroundTruth, k: int
) -> Judgements:
    """The measures' arrays for binary relevance: flat when the rankings are sparse."""
    relevance = first & truth.relevance(rankings)
    distinct = distinct_items(rankings, first)
    if not isinstance(rankings, SparseRankings):
        return Judgements(relevance, truth.n_relevant, k, distinct=distinct)
    flat = FlatHits.from_unsorted(
        rankings.users[relevance], rankings.ranks[relevance], width=rankings.width
    )
    return Judgements(None, truth.n_relevant, k, flat=flat, distinct=distinct)


def hits_at_rank_length(k: int, width: int) -> int:
    """How many ranks :attr:`ScoreResult.hits_at_rank` counts: ``k``, but only up to the
    widest row (``width``) once both are past 1,000 ranks, since ranks past the widest
    row hold no hit and no ``k`` a host may choose (up to 2**63 and beyond) may allocate
    ``k`` counts.

    Examples
    --------
    >>> [hits_at_rank_length(k, width) for k, width in [(12, 3), (10**30, 5), (10**30, 2000)]]
    [12, 1000, 2000]
    """
    return min(k, max(width, 1000))


def _hits_at_rank(judgements: Judgements, scored: np.ndarray) -> np.ndarray:
    """Per rank 1..k, the scored users whose prediction there is a credited hit
    (zero past the widest row)."""
    length = hits_at_rank_length(judgements.k, judgements.width)
    return judgements.hits_by_rank(scored, length)


def _row_finding(
    code: str,
    rows: np.ndarray | None,
    solution: Solution,
    hide_examples: bool = False,
    counts: tuple[tuple[str, int], ...] = (),
    values: tuple[str, ...] = (),
) -> list[Finding]:
    """The record of one warning about the ``rows`` marked (solution rows), or none; a
    record of ``counts`` alone when ``rows`` is None.

    The examples are the smallest marked row ids in byte order: neither the solution's
    order (hidden: a host may sort it by ``Usage``) nor the submission's, so that no
    example depends on row order or on how a run is split into parts.
    """
    if rows is None:
        return [Finding(code, counts, (), values)]
    count = int(rows.sum())
    if not count:
        return []
    examples = () if hide_examples else smallest_values(solution.row_ids, rows)
    return [Finding(code, (("rows", count), *counts), examples, values)]


def score_warnings(findings: Sequence[Finding], k: int | None) -> tuple[ScoreWarning, ...]:
    """The warnings' sentences, from their records (:func:`_row_finding`) and the
    words of their kind (:data:`~scorer.check.findings.WARNING_WORDS`; a split's own).

    Examples
    --------
    >>> record = Finding("empty_rows", (("rows", 2),), ("u1", "u3"))
    >>> str(score_warnings([record], 10)[0])
    "2 rows have no prediction and score 0. Examples: 'u1', 'u3'"
    """
    warnings = []
    for finding in findings:
        audience, sentence = WARNING_WORDS.get(finding.kind) or finding.values[::-1]
        count = finding.count("rows")
        message = sentence.format(
            rows=format_count(count, "row"),
            row_ids=format_count(count, "row id"),
            qids=format_count(count, "qid"),
            have="has" if count == 1 else "have",
            tokens=format_count(finding.count("tokens"), "predicted item id"),
            ids=format_count(finding.count("ids"), "predicted item id"),
            width=finding.count("width"),
            k=k,
        )
        warnings.append(ScoreWarning(finding.kind, message, count, finding.examples, audience))  # type: ignore[arg-type]
    return tuple(warnings)


def _submission_findings(
    solution: Solution,
    user_of_row: np.ndarray,
    lengths: np.ndarray,
    n_first: np.ndarray,
    hints: list[Hint],
    options: Options,
) -> list[Finding]:
    """Warnings for the participant: functions of the submission and the row ids alone.

    Every submitted row counts, ``Ignored`` rows and users with no relevant item
    included: counting only the scored rows would tell the participant which they are
    (docs/decisions.md#information-boundary). With ``unknown_row_ids="ignore"`` the solution's
    row ids are not public, so no example row id is given (as for "Missing rows").
    """
    k = options.k
    hide = options.unknown_row_ids != "error"
    covered = np.zeros(len(lengths), dtype=bool)
    covered[user_of_row[user_of_row >= 0]] = True
    missing = _missing_rows_finding(solution, ~covered, options)
    present = lengths > 0
    top_k = k is not None and options.format != "trec"  # a trec_eval run is no top-k list
    short = present & (lengths < row_bound(k)) if top_k else np.zeros_like(present)
    checks: list[Hint] = [
        ("repeated_items", present & (n_first < lengths), (), ()),
        ("short_rows", short, (), ()),
        ("empty_rows", covered & ~present, (), ()),
        *hints,
    ]
    return missing + [
        finding
        for code, rows, counts, values in checks
        for finding in _row_finding(code, rows, solution, hide, counts, values)
    ]


def _missing_rows_finding(
    solution: Solution, missing: np.ndarray, options: Options
) -> list[Finding]:
    """With ``missing_rows="empty"`` (or ``"skip"``, trec_eval files): the solution's row
    ids that the submission lacks, scored as empty rankings (or left out). A function of
    the submission and the solution's row ids (public: the sample submission lists them,
    or the topics a trec_eval run answers); without example ids when the solution may
    list only some users (``unknown_row_ids="ignore"`` on tables), as the error does."""
    if options.missing_rows == "error":
        return []
    if options.format == "trec":  # the qrels' qids are the topics every run answers
        code = "missing_queries_scored" if options.missing_rows == "empty" else "missing_queries"
        return _row_finding(code, missing, solution)
    hide = options.unknown_row_ids == "ignore"
    return _row_finding("missing_rows", missing, solution, hide_examples=hide)


def split_findings(split_scores: dict, has_usage: bool, typed: bool = False) -> list[Finding]:
    """A host warning for each split without a scorable user (decided on the whole run;
    with target types, without a scorable row of some type)."""
    if not has_usage:
        return []
    sentence = "The {split} split has no scorable user; its score is not reported."
    if typed:
        sentence = (
            "The {split} split has no scorable row of some target type; its weighted total "
            "is not reported."
        )
    return [
        Finding(f"no_{split.lower()}_users", (), (), (sentence.format(split=split), "host"))
        for split, value in split_scores.items()
        if value is None
    ]
