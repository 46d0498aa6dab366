"""EvalAI evaluation script: ``evaluate(annotation_file, submission_file, phase_codename)``.

EvalAI imports the challenge's evaluation module and calls its ``evaluate`` with
the annotation (solution) file, the participant's file and the phase codename.
The returned ``result`` is a list of ``{split_codename: {metric: value}}``; the
``submission_result`` is what the participant is shown. A host wires the scorer in
with one line in the challenge's ``main.py``::

    from functools import partial
    from scorer.evalai import evaluate as _evaluate
    evaluate = partial(_evaluate, k=12, splits={"public_split": "public",
                                                 "private_split": "private"})

An invalid submission raises :class:`~scorer.errors.ParticipantVisibleError`,
which EvalAI marks as a failed submission with the message in its stderr.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Literal

import scorer
from scorer.errors import HostVisibleError
from scorer.io import ReadLimits
from scorer.result import ScoreResult

Which = Literal["score", "public", "private"]


def evaluate(
    test_annotation_file: str | os.PathLike,
    user_submission_file: str | os.PathLike,
    phase_codename: str,
    *,
    splits: Mapping[str, Which] | None = None,
    metric_name: str | None = None,
    row_id_column_name: str | None = None,
    k: int = 10,
    empty_ground_truth: str = "skip",
    extra_predictions: str = "error",
    normalization: str = "min_k",
    unknown_row_ids: str = "error",
    limits: ReadLimits | None = None,
    metrics: str | list[str] | None = None,
    grade_column_name: str | None = None,
    relevance_threshold: int = 1,
    **platform_kwargs: Any,
) -> dict[str, Any]:
    """Score a submission in EvalAI's result shape.

    Parameters
    ----------
    test_annotation_file, user_submission_file : str or os.PathLike
        The solution and the submission (.csv, .csv.gz, .zip or .parquet).
    phase_codename : str
        Given by EvalAI; the same scoring is used for every phase.
    splits : mapping of str to {"score", "public", "private"}, optional
        EvalAI dataset-split codename -> which score it shows. By default
        ``{"public_split": "public", "private_split": "private"}`` when the solution
        has a ``Usage`` column, else ``{"test_split": "score"}``. A split whose
        score does not exist (no scorable user) is left out.
    metric_name : str, optional
        The leaderboard label of the first measure; its key (``"map_at_K"``) by default.
    row_id_column_name, k, empty_ground_truth, extra_predictions, normalization, \
unknown_row_ids, limits, metrics, grade_column_name, relevance_threshold
        As in :func:`scorer.evaluate`; every measure gets an entry in each split,
        labelled by its key (``ndcg_gain_linear_at_10``).
    **platform_kwargs
        Anything else EvalAI passes (e.g. ``submission_metadata``); ignored.

    Returns
    -------
    dict
        ``{"result": [{split: {metric: value}}, ...], "submission_result": {...}}``
        where ``submission_result`` is the first split's metrics.

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> solution, submission = (os.path.join(folder, n) for n in ("sol.csv", "sub.csv"))
    >>> _ = open(solution, "w").write("id,items,Usage\\nu1,a,Public\\nu2,b,Private\\n")
    >>> _ = open(submission, "w").write("id,items\\nu1,a\\nu2,x b\\n")
    >>> evaluate(solution, submission, "test", k=2)
    {'result': [{'public_split': {'map_at_2': 1.0}}, {'private_split': {'map_at_2': 0.5}}], \
'submission_result': {'map_at_2': 1.0}}
    """
    result = scorer.evaluate(
        test_annotation_file,
        user_submission_file,
        row_id_column_name,
        k=k,
        empty_ground_truth=empty_ground_truth,  # type: ignore[arg-type]
        extra_predictions=extra_predictions,  # type: ignore[arg-type]
        normalization=normalization,  # type: ignore[arg-type]
        unknown_row_ids=unknown_row_ids,  # type: ignore[arg-type]
        limits=limits,
        metrics=metrics,
        grade_column_name=grade_column_name,
        relevance_threshold=relevance_threshold,
    )
    return to_evalai(result, splits, metric_name)


def to_evalai(
    result: ScoreResult, splits: Mapping[str, Which] | None = None, metric_name: str | None = None
) -> dict[str, Any]:
    """Translate a :class:`~scorer.result.ScoreResult` to EvalAI's output dict."""
    has_usage = result.public_metrics is not None or result.private_metrics is not None
    if splits is None:
        splits = (
            {"public_split": "public", "private_split": "private"}
            if has_usage
            else {"test_split": "score"}
        )
    values = {
        "score": result.metrics,
        "public": result.public_metrics,
        "private": result.private_metrics,
    }
    labels = {name: result.key(name) for name in result.metrics}
    if metric_name and labels:
        labels[next(iter(labels))] = metric_name
    entries = []
    for split, which in splits.items():
        if which not in values:
            raise HostVisibleError(
                f"The EvalAI split {split!r} must show one of {list(values)}. "
                f"Got {which!r} instead."
            )
        shown = values[which]
        if shown is not None:
            entries.append({split: {labels[name]: value for name, value in shown.items()}})
    if not entries:
        raise HostVisibleError(f"None of the EvalAI splits {list(splits)} has a score.")
    first = next(iter(entries[0].values()))
    return {"result": entries, "submission_result": dict(first)}
