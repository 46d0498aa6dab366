"""The public entry points: :func:`evaluate` (the full result) and :func:`score` (a float)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pyarrow as pa

from scorer.columns import TableLike, as_string_table
from scorer.errors import (
    HostVisibleError,
    ParticipantVisibleError,
    example_values,
    format_count,
)
from scorer.hints import Hint, prediction_hints
from scorer.io import ReadLimits
from scorer.metrics import AveragePrecision
from scorer.options import (
    EmptyGroundTruth,
    ExtraPredictions,
    Normalization,
    Options,
    UnknownRowIds,
)
from scorer.result import ScoreResult, ScoreWarning
from scorer.tokens import GroundTruth, build_rankings, item_prints, split_lists
from scorer.validate import Solution, check_solution, check_submission, solution_columns


def evaluate(
    solution: TableLike,
    submission: TableLike,
    row_id_column_name: str | None = None,
    *,
    k: int = 10,
    empty_ground_truth: EmptyGroundTruth = "skip",
    extra_predictions: ExtraPredictions = "error",
    normalization: Normalization = "min_k",
    unknown_row_ids: UnknownRowIds = "error",
    per_user: bool = False,
    limits: ReadLimits | None = None,
) -> ScoreResult:
    """Validate a submission and compute MAP@K with every detail.

    Parameters
    ----------
    solution : DataFrame, pyarrow.Table or path
        One row per row id: the row-id column, the relevant items (space-separated)
        and optionally ``Usage`` (``Public``, ``Private`` or ``Ignored``).
    submission : DataFrame, pyarrow.Table or path
        Exactly the solution's row-id and target columns; up to ``k`` item ids per
        row, best first, separated by spaces.
    row_id_column_name : str, optional
        The row-id column; by default the solution's first column.
    k : int, default 10
        The cut-off.
    empty_ground_truth : {"skip", "zero"}, default "skip"
        Users with no relevant item are left out of the mean, or score 0.
    extra_predictions : {"error", "truncate"}, default "error"
        More than ``k`` predictions in a row is invalid, or only the first ``k`` count.
    normalization : {"min_k", "relevant", "hits"}, default "min_k"
        AP's denominator: ``min(|R|, k)``, ``|R|`` or the number of hits.
    unknown_row_ids : {"error", "ignore"}, default "error"
        Submission rows whose id is not in the solution are invalid, or dropped.
    per_user : bool, default False
        Also return each user's AP, hits and ``|R|`` in ``result.per_user``.
    limits : ReadLimits, optional
        Bounds on input files (size, decompressed size, line and cell length,
        columns); :class:`scorer.io.ReadLimits` defaults otherwise.

    Returns
    -------
    ScoreResult

    Raises
    ------
    ParticipantVisibleError
        The submission is invalid; the message lists every problem.
    HostVisibleError
        The solution or an option is invalid, or no user can be scored.

    Examples
    --------
    >>> import pandas as pd
    >>> solution = pd.DataFrame({"id": ["u1", "u2", "u3"], "items": ["a b", "c", ""],
    ...                          "Usage": ["Public", "Private", "Public"]})
    >>> submission = pd.DataFrame({"id": ["u3", "u2", "u1"], "items": ["", "x c", "a z b"]})
    >>> result = evaluate(solution, submission, "id", k=3)
    >>> result.score, result.public_score, result.private_score  # (5/6 + 1/2) / 2
    (0.6666666666666666, 0.8333333333333334, 0.5)
    >>> result.n_scored, result.n_skipped
    (2, 1)
    >>> [w.code for w in result.warnings]
    ['short_rows', 'empty_rows']
    """
    options = Options(k, empty_ground_truth, extra_predictions, normalization, unknown_row_ids)
    solution_table = as_string_table(solution, HostVisibleError, limits)
    columns = solution_columns(solution_table.names, row_id_column_name)
    with ThreadPoolExecutor(max_workers=1) as other_core:
        # The solution's lists are encoded on the other core while this one checks the
        # solution's rows, reads and checks the submission and makes the predictions'
        # prints (numpy and Arrow release the GIL). All are pure, so the result is the
        # same whatever the timing. An invalid solution or submission still raises
        # here, once the other core is done. At H&M scale the two cores' shares now
        # take about as long (README, "Where the time goes").
        truth_later = other_core.submit(_ground_truth, solution_table.column(columns.target_name))
        checked_solution = check_solution(solution_table, columns)
        del solution_table  # at H&M scale, free the raw cells early
        submission_table = as_string_table(submission, ParticipantVisibleError, limits)
        checked_submission = check_submission(submission_table, checked_solution, options)
        del submission_table
        n_users = checked_solution.n_rows
        predictions = checked_submission.predictions
        width = int(min(options.k, predictions.lengths.max(initial=0)))
        # Made while the other core may still be encoding: prints need no vocabulary.
        prints = item_prints(predictions, checked_submission.user_of_row, n_users, width)
        truth = truth_later.result()

    rankings = build_rankings(
        predictions, checked_submission.user_of_row, n_users, width, truth.vocabulary, prints
    )
    hints = prediction_hints(predictions, checked_submission.user_of_row, n_users, truth.vocabulary)
    del checked_submission, predictions
    first = rankings.first_occurrence()
    relevance = first & truth.relevance(rankings)
    ap = rankings.average_precision(relevance, truth.n_relevant, options.k, options.normalization)

    has_usage = checked_solution.usage is not None
    ignored = checked_solution.marked("Ignored")
    empty_truth = truth.n_relevant == 0
    skipped = empty_truth & ~ignored & (options.empty_ground_truth == "skip")
    scored = ~ignored & ~skipped
    if not scored.any():
        raise HostVisibleError(
            f"No user can be scored: of {format_count(n_users, 'solution row')}, "
            f"{int(ignored.sum()):,} are Ignored and {int(skipped.sum()):,} have no relevant "
            "item. Check the solution's target column, or use empty_ground_truth='zero'."
        )
    split_scores = {
        split: _mean_or_none(ap, scored & checked_solution.marked(split)) if has_usage else None
        for split in ("Public", "Private")
    }
    warnings = _submission_warnings(
        checked_solution, rankings.lengths, rankings.n_first(first), hints, ~ignored, options.k
    )
    warnings += _solution_warnings(checked_solution, truth, split_scores, has_usage)
    per_user_table = None
    if per_user:
        import pandas as pd  # only here: the CLI's hot path never imports pandas

        per_user_table = pd.DataFrame(
            {
                "ap": np.where(scored, ap.values(), np.nan),
                "hits": ap.hits,
                "n_relevant": truth.n_relevant,
                "scored": scored,
            },
            index=pd.Index(checked_solution.row_ids.to_pylist(), name=checked_solution.row_id_name),
        )
    return ScoreResult(
        score=ap.mean(scored),
        public_score=split_scores["Public"],
        private_score=split_scores["Private"],
        n_users=n_users,
        n_scored=int(scored.sum()),
        n_skipped=int(skipped.sum()),
        n_ignored=int(ignored.sum()),
        options=options,
        warnings=tuple(warnings),
        per_user=per_user_table,
    )


def score(
    solution: TableLike,
    submission: TableLike,
    row_id_column_name: str | None = None,
    *,
    k: int = 10,
    empty_ground_truth: EmptyGroundTruth = "skip",
    extra_predictions: ExtraPredictions = "error",
    normalization: Normalization = "min_k",
    unknown_row_ids: UnknownRowIds = "error",
    limits: ReadLimits | None = None,
) -> float:
    """MAP@K of a submission, with Kaggle's metric signature.

    Takes the same arguments as :func:`evaluate` (but ``per_user``) and returns
    ``evaluate(...).score``: a finite float in [0, 1].

    Examples
    --------
    >>> import pandas as pd
    >>> solution = pd.DataFrame({"customer_id": ["c1", "c2"], "prediction": ["a b", "c"]})
    >>> submission = pd.DataFrame({"customer_id": ["c1", "c2"], "prediction": ["b a", "d c"]})
    >>> score(solution, submission, "customer_id")  # (1 + 1/2) / 2
    0.75
    """
    return evaluate(
        solution,
        submission,
        row_id_column_name,
        k=k,
        empty_ground_truth=empty_ground_truth,
        extra_predictions=extra_predictions,
        normalization=normalization,
        unknown_row_ids=unknown_row_ids,
        limits=limits,
    ).score


def _ground_truth(targets: pa.Array) -> GroundTruth:
    """The solution's relevant sets, from its target column."""
    return GroundTruth.from_lists(split_lists(targets))


def _mean_or_none(ap: AveragePrecision, mask: np.ndarray) -> float | None:
    return ap.mean(mask) if mask.any() else None


def _row_warning(
    code: str, sentence: str, mask: np.ndarray, solution: Solution, audience: str = "participant"
) -> list[ScoreWarning]:
    count = int(mask.sum())
    if not count:
        return []
    message = sentence.format(rows=format_count(count, "row"), have="has" if count == 1 else "have")
    examples = example_values(solution.row_ids, mask)
    return [ScoreWarning(code, message, count, examples, audience)]  # type: ignore[arg-type]


def _submission_warnings(
    solution: Solution,
    lengths: np.ndarray,
    n_first: np.ndarray,
    hints: list[Hint],
    counted: np.ndarray,
    k: int,
) -> list[ScoreWarning]:
    """Warnings about the submission, over the ``counted`` (not Ignored) users only."""
    present = lengths > 0
    checks = [
        (
            "repeated_items",
            "{rows} {have} a repeated item id; a repeat keeps its rank but earns nothing.",
            present & (n_first < lengths),
        ),
        (
            "short_rows",
            f"{{rows}} {{have}} fewer than {k} predictions; an unused slot can never earn credit.",
            present & (lengths < k),
        ),
        ("empty_rows", "{rows} {have} no prediction and score 0.", ~present),
        *hints,
    ]
    return [
        warning
        for code, sentence, mask in checks
        for warning in _row_warning(code, sentence, mask & counted, solution)
    ]


def _solution_warnings(
    solution: Solution, truth: GroundTruth, split_scores: dict, has_usage: bool
) -> list[ScoreWarning]:
    warnings = _row_warning(
        "duplicate_ground_truth",
        "{rows} of the solution {have} a relevant item listed twice; it counts once.",
        truth.n_duplicates > 0,
        solution,
        "host",
    )
    if has_usage:
        for split, value in split_scores.items():
            if value is None:
                message = f"The {split} split has no scorable user; its score is not reported."
                warnings.append(ScoreWarning(f"no_{split.lower()}_users", message, 0, (), "host"))
    return warnings
