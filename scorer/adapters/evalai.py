"""EvalAI evaluation script: ``evaluate(annotation_file, submission_file, phase_codename)``.

EvalAI imports the challenge's evaluation module and calls its ``evaluate`` with
the annotation (solution) file, the participant's file and the phase codename.
The returned ``result`` is a list of ``{split_codename: {metric: value}}``; the
``submission_result`` is what the participant is shown. A host wires the scorer in
with one line in the challenge's ``main.py``::

    from functools import partial
    from scorer.adapters.evalai import evaluate as _evaluate
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
from scorer.errors import HostVisibleError, closest, withheld
from scorer.options import OPTION
from scorer.result import ScoreResult

Which = Literal["score", "public", "private"]

# The keywords EvalAI's worker itself passes to evaluate() (its documentation and
# EvalAI-Starters' evaluation_script/main.py): accepted and ignored.
PLATFORM_KEYWORDS = ("submission_metadata",)


def evaluate(
    test_annotation_file: str | os.PathLike,
    user_submission_file: str | os.PathLike,
    phase_codename: str,
    *,
    splits: Mapping[str, Which] | None = None,
    metric_name: str | None = None,
    **options: Any,
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
    **options
        The options of :func:`scorer.evaluate` (``k``, ``metrics``,
        ``empty_ground_truth``, ... : every name in :data:`scorer.options.OPTIONS`,
        docs/options.md); every measure gets an entry in each split, labelled by its
        key (``ndcg_gain_linear_at_10``). What EvalAI itself passes
        (``submission_metadata``) is ignored. Any other keyword is a
        :class:`~scorer.errors.HostVisibleError`, so that a typo such as ``K=3`` or
        ``normalisation=`` cannot silently change the metric.

    Returns
    -------
    dict
        ``{"result": [{split: {metric: value}}, ...], "submission_result": {...}}``
        where ``submission_result``, which the participant sees, is the first
        split's metrics (empty when that split has no score).

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
    _check_keywords(options)
    given = {name: value for name, value in options.items() if name in OPTION}
    try:
        result = scorer.evaluate(test_annotation_file, user_submission_file, **given)
    except HostVisibleError as error:
        # EvalAI shows a failed submission's error to its participant
        # (docs/decisions.md#information-boundary).
        raise HostVisibleError(
            withheld(error, "EvalAI shows this message to participants")
        ) from None
    return to_evalai(result, splits, metric_name)


#: The keywords of :func:`evaluate`: its own, then every declared option.
KEYWORDS = ("splits", "metric_name", *OPTION)


def _check_keywords(keywords: Mapping[str, Any]) -> None:
    """Refuse keywords that are neither options nor EvalAI's own, suggesting the option meant.

    Examples
    --------
    >>> _check_keywords({"submission_metadata": {}, "k": 12})
    >>> _check_keywords({"K": 3})
    Traceback (most recent call last):
    ...
    scorer.errors.HostVisibleError: Unknown keyword argument 'K' (did you mean 'k'?) for ...
    """
    unknown = [name for name in keywords if name not in OPTION and name not in PLATFORM_KEYWORDS]
    if not unknown:
        return
    options = list(KEYWORDS)
    lines = []
    for name in unknown:
        close = closest(name, options)
        lines.append(f"{name!r}" + (f" (did you mean {close!r}?)" if close else ""))
    raise HostVisibleError(
        f"Unknown keyword argument{'s' if len(lines) > 1 else ''} {', '.join(lines)} for "
        f"scorer.adapters.evalai.evaluate. Its options are {options}; EvalAI's own "
        f"{list(PLATFORM_KEYWORDS)} is accepted and ignored."
    )


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
    # With target types, each type's values follow the weighted totals (``..._clicks``).
    by_type = {"score": "", "public": "public", "private": "private"}

    def shown_values(which: str) -> dict[str, float]:
        shown = values[which] or {}
        typed = result.typed_keys(by_type[which]) if shown else {}
        suffix = f"_{by_type[which]}" if by_type[which] else ""
        return {
            **{labels[name]: value for name, value in shown.items()},
            **{key.removesuffix(suffix): value for key, value in typed.items()},
        }

    entries = []
    for split, which in splits.items():
        if which not in values:
            raise HostVisibleError(
                f"The EvalAI split {split!r} must show one of {list(values)}. "
                f"Got {which!r} instead."
            )
        if values[which] is not None:
            entries.append({split: shown_values(which)})
    if not entries:
        raise HostVisibleError(f"None of the EvalAI splits {list(splits)} has a score.")
    # What the participant is shown: the first split's score, or nothing when it has
    # none; never the next split's (the Private score, when Public has no scorable user).
    submission_result = shown_values(next(iter(splits.values())))
    return {"result": entries, "submission_result": submission_result}
