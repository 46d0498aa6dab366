"""The public entry points: :func:`evaluate` (the full result) and :func:`score` (a float).

Their keywords are the declared options (:data:`scorer.options.OPTIONS`), given to them
by :func:`~scorer.options.takes_options`: signatures and docstrings included.
"""

from __future__ import annotations

import warnings
from dataclasses import replace
from typing import Any

from scorer.constraints import CheckedWhereUsed
from scorer.options import DEFAULTS, Option, format_defaults, row_bound, takes_options
from scorer.pipeline import (
    Inputs,
    align,
    assemble_result,
    keeps_candidates,
    options_and_measures,
    read_and_check,
    scored_predictions,
)
from scorer.policy import users_to_score
from scorer.read.inputs import TableLike
from scorer.recipes import apply_recipe, find_recipe, override_message
from scorer.result import ScoreResult, ScoreWarning


@takes_options()
def evaluate(
    solution: TableLike, submission: TableLike, *, per_user: bool = False, **options: Any
) -> ScoreResult:
    """Validate a submission and compute MAP@K (or other measures) with every detail.

    Parameters
    ----------
    solution : DataFrame, pyarrow.Table or path
        One row per row id: the row-id column, the relevant items (space-separated)
        and optionally ``Usage`` (``Public``, ``Private`` or ``Ignored``).
    submission : DataFrame, pyarrow.Table or path
        Exactly the solution's row-id and target columns; up to ``k`` item ids per
        row, best first, separated by spaces.
    per_user : bool, default False
        Also return a DataFrame of each user's values, hits and ``|R|`` in
        ``result.per_user`` (the arrays are always in ``result.user_values``).

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
    >>> many = evaluate(solution, submission, "id", k=3, metrics=["MAP", "nDCG@2", "P@1"])
    >>> many.metrics
    {'MAP@3': 0.6666666666666666, 'nDCG@2': 0.622038473168458, 'P@1': 0.5}
    >>> many.public_metrics["P@1"], many.private_metrics["P@1"]
    (1.0, 0.0)
    """
    settings, message, count = _with_recipe(options)
    result = _evaluate(solution, submission, per_user, settings)
    if message is None:
        return result
    note = ScoreWarning("recipe_overrides", message, count, (), "host")
    return replace(result, warnings=(*result.warnings, note))


def _with_recipe(given: dict[str, Any]) -> tuple[dict[str, Any], str | None, int]:
    """Every option: those ``given``, then the recipe's they name (a keyword given with a
    recipe wins, even when it equals its default), then the defaults; and the sentence
    naming the options given that replaced the recipe's, and their count."""
    recipe = given.pop("recipe", None)
    if recipe is None:
        return {**DEFAULTS, **format_defaults(given)}, None, 0
    settings, overrides = apply_recipe(recipe, given)
    message = override_message(find_recipe(recipe).name, overrides) if overrides else None
    return {**DEFAULTS, **format_defaults(settings)}, message, len(overrides)


def _evaluate(
    solution: TableLike, submission: TableLike, per_user: bool, settings: dict[str, Any]
) -> ScoreResult:
    """:func:`evaluate` with every option in ``settings``, as named stages."""
    options, measures = options_and_measures(settings)
    exponential = tuple(str(m) for m in measures if m.exponential)  # grades up to 30
    candidates = settings["candidates"]
    inputs = Inputs(
        solution,
        submission,
        settings["row_id_column_name"],
        settings["segment_column_name"],
        candidates,
    )
    pairs = keeps_candidates(measures, options, candidates)
    scored = scored_predictions(measures, options)
    checked = read_and_check(
        inputs, options, settings["limits"], exponential, keep_candidates=pairs, scored=scored
    )
    options = checked.options
    aligned = align(checked, row_bound(options.k))  # takes the submission: freed once ranked
    values = {str(m): m.compute(aligned.judgements) for m in measures}
    users = users_to_score(checked.solution, aligned.truth.n_relevant, options.empty_ground_truth)
    legacy = settings["metrics"] is None
    return assemble_result(checked, aligned, values, users, measures, options, per_user, legacy)


#: :func:`score`'s one measure, in place of ``metrics``.
METRIC = Option(
    "metric",
    CheckedWhereUsed("a measure name, e.g. `MAP@12`", "MRR@3", "str | Measure | None"),
    None,
    "the measure computed (see [Measures](measures.md#measures)); MAP@K by default",
)


@takes_options(replace={"metrics": METRIC})
def score(solution: TableLike, submission: TableLike, **options: Any) -> float:
    """MAP@K (or ``metric``) of a submission, with Kaggle's metric signature.

    ``evaluate(...).score``: the same arguments as :func:`evaluate` but ``per_user``,
    and one ``metric`` instead of ``metrics`` (default ``MAP@k``); a finite float in
    [0, 1]. The options given that replaced a recipe's are named in a
    :class:`UserWarning`, since a float carries no warnings.

    Parameters
    ----------
    solution : DataFrame, pyarrow.Table or path
        As :func:`evaluate` takes it.
    submission : DataFrame, pyarrow.Table or path
        As :func:`evaluate` takes it.

    Examples
    --------
    >>> import pandas as pd
    >>> solution = pd.DataFrame({"customer_id": ["c1", "c2"], "prediction": ["a b", "c"]})
    >>> submission = pd.DataFrame({"customer_id": ["c1", "c2"], "prediction": ["b a", "d c"]})
    >>> score(solution, submission, "customer_id")  # (1 + 1/2) / 2
    0.75
    >>> score(solution, submission, "customer_id", metric="MRR")
    0.75
    """
    if "metric" in options:
        metric = options.pop("metric")
        options["metrics"] = None if metric is None else [metric]
    settings, message, _ = _with_recipe(options)
    if message is not None:
        warnings.warn(message, UserWarning, stacklevel=3)
    return _evaluate(solution, submission, False, settings).score
