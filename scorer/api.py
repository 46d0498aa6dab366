"""The public entry points: :func:`evaluate` (the full result) and :func:`score` (a float)."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, TypeVar

from scorer.measures import Measure
from scorer.options import (
    CandidateRule,
    Dialect,
    EmptyGroundTruth,
    ExtraPredictions,
    InputFormat,
    Layout,
    MissingRows,
    Normalization,
    Unjudged,
    UnknownRowIds,
    format_defaults,
    row_bound,
)
from scorer.pipeline import (
    Inputs,
    align,
    assemble_result,
    options_and_measures,
    read_and_check,
    refuse_dropped_candidates,
    scored_predictions,
)
from scorer.policy import users_to_score
from scorer.read.files import ReadLimits
from scorer.read.inputs import TableLike
from scorer.recipes import Override, apply_recipe, find_recipe, override_message
from scorer.result import ScoreResult, ScoreWarning

_Scoring = TypeVar("_Scoring", bound=Callable[..., Any])

# Only a wrapper sees which keywords were given: a keyword given with a recipe wins even
# when it equals its default (``empty_ground_truth="skip"`` against a recipe's ``"zero"``).


def _evaluate_takes_recipes(function: _Scoring) -> _Scoring:
    """Apply ``recipe=`` before :func:`evaluate` runs; the options given that replaced
    the recipe's are named in a host warning, ``recipe_overrides``."""

    @functools.wraps(function)
    def evaluate_with_recipe(*args: Any, **given: Any) -> Any:
        if given.get("recipe") is None:
            return function(*args, **format_defaults(given))
        settings, overrides, message = _apply_recipe(given)
        result = function(*args, **format_defaults(settings))
        if not overrides:
            return result
        note = ScoreWarning("recipe_overrides", message, len(overrides), (), "host")
        return replace(result, warnings=(*result.warnings, note))

    return evaluate_with_recipe  # type: ignore[return-value]


def _score_takes_recipes(function: _Scoring) -> _Scoring:
    """Apply ``recipe=`` before :func:`score` runs (its ``metric`` replaces the recipe's
    measures); the options given that replaced the recipe's are named in a
    :class:`UserWarning`, since a float carries no warnings."""

    @functools.wraps(function)
    def score_with_recipe(*args: Any, **given: Any) -> Any:
        if given.get("recipe") is None:
            return function(*args, **format_defaults(given))
        if "metric" in given:
            metric = given.pop("metric")
            given["metrics"] = None if metric is None else [metric]
        settings, overrides, message = _apply_recipe(given)
        if overrides:
            warnings.warn(message, UserWarning, stacklevel=2)
        return evaluate(*args, **format_defaults(settings)).score

    return score_with_recipe  # type: ignore[return-value]


def _apply_recipe(given: dict[str, Any]) -> tuple[dict[str, Any], list[Override], str]:
    """The keywords once the recipe that ``given`` names is applied, the options that
    replaced the recipe's, and the sentence naming them."""
    name = given.pop("recipe")
    settings, overrides = apply_recipe(name, given)
    return settings, overrides, override_message(find_recipe(name).name, overrides)


@_evaluate_takes_recipes
def evaluate(
    solution: TableLike,
    submission: TableLike,
    row_id_column_name: str | None = None,
    *,
    k: int | None = None,
    metrics: str | Measure | Sequence[str | Measure] | None = None,
    dialect: Dialect | None = None,
    empty_ground_truth: EmptyGroundTruth = "skip",
    extra_predictions: ExtraPredictions = "error",
    normalization: Normalization = "min_k",
    unknown_row_ids: UnknownRowIds = "error",
    missing_rows: MissingRows = "error",
    target_type_column_name: str | None = None,
    row_id_type_separator: str | None = None,
    type_weights: Mapping[str, float] | None = None,
    grade_column_name: str | None = None,
    relevance_threshold: int = 1,
    layout: Layout = "wide",
    solution_layout: Layout = "wide",
    rank_column_name: str | None = None,
    score_column_name: str | None = None,
    format: InputFormat = "table",
    candidates_column_name: str | None = None,
    candidates: TableLike | None = None,
    candidate_rule: CandidateRule = "none",
    unjudged: Unjudged = "keep",
    empty_token: str | None = None,
    segment_column_name: str | None = None,
    limits: ReadLimits | None = None,
    recipe: str | None = None,
    per_user: bool = False,
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
    row_id_column_name : str, optional
        The row-id column; by default the solution's first column.
    k : int, optional
        The cut-off, and the most predictions a row may hold. By default 10, raised to
        the largest cut-off among ``metrics`` (``["MAP@12"]`` alone: 12).
    metrics : str or list of str, optional
        Measures to compute in one pass, e.g. ``["MAP@12", "nDCG@12", "R@20"]``
        (docs/measures.md, "Measures"); the first is ``result.score``. Default ``MAP@k``.
        trec_eval's names (``"map"``, ``"ndcg_cut.10"``, ``"P_5"``) are accepted too.
    dialect : {"kaggle", "trec", "ir_measures"}, optional
        Whose meaning a name borrowed from another tool takes (``AP@10``, ``nDCG@10``,
        ``map``; docs/measures.md, "trec_eval and ir_measures names"). By default
        ``"trec"`` with ``format="trec"``, else ``"kaggle"``.
    empty_ground_truth : {"skip", "zero"}, default "skip"
        Users with no relevant item are left out of the mean, or score 0.
    extra_predictions : {"error", "truncate"}, default "error"
        More than ``k`` predictions in a row is invalid, or only the first ``k`` count.
    normalization : {"min_k", "relevant", "hits"}, default "min_k"
        AP's denominator: ``min(|R|, k)``, ``|R|`` or the number of hits (the
        default ``norm`` of every ``MAP`` measure).
    unknown_row_ids : {"error", "ignore"}, default "error"
        Submission rows whose id is not in the solution are invalid, or dropped.
    missing_rows : {"error", "empty", "skip"}, default "error"
        A row id (or row id and type) missing from the submission is invalid, or
        scored as an empty ranking; their count is a warning for the participant.
    target_type_column_name : str, optional
        A column of the solution and the submission holding each row's target type
        (several targets per row id): each type is scored on its own rows, and
        ``result.score`` is the weighted total (docs/shapes.md, "Several targets per row id").
    row_id_type_separator : str, optional
        Instead of a type column: split each row id at its last separator into the row
        id and its type (OTTO: ``"_"``, ``42_clicks``).
    type_weights : mapping of str to float, optional
        Each type's weight w_t in Σ w_t · value_t; by default 1 / (number of types).
    grade_column_name : str, optional
        A solution column of space-separated non-negative integer grades, one per
        target item; by default every listed item has grade 1.
    relevance_threshold : int, default 1
        The smallest grade the binary measures count as relevant.
    layout : {"wide", "long"}, default "wide"
        The submission's shape: one row per row id with its items separated by
        spaces, or one row per (row id, item) (docs/shapes.md, "Long layout").
    solution_layout : {"wide", "long"}, default "wide"
        The solution's shape: one row per row id, or one row per (row id, relevant
        item) with an optional grade; a row id with no relevant item listed once with
        an empty item.
    rank_column_name : str, optional
        A long submission's ranks (whole numbers from 1, best first, gaps allowed).
    score_column_name : str, optional
        A long submission's scores (finite, higher first; equal scores by item id
        ascending). With neither, each row id's rows in file order.
    format : {"table", "trec"}, default "table"
        Tables with a header (CSV, gzip, zip, Parquet, DataFrames), or paths of
        trec_eval's qrels (solution) and run (submission) files (docs/shapes.md, "TREC files").
    candidates_column_name : str, optional
        A solution column of each row's candidate items (docs/shapes.md, "Candidates").
    candidates : DataFrame, pyarrow.Table or path, optional
        The candidates as a table of their own: the row-id column and one column of
        items.
    candidate_rule : {"none", "permutation", "subset"}, default "none"
        Every candidate exactly once and nothing else, or only candidates, each at
        most once.
    unjudged : {"keep", "drop"}, default "keep"
        Predicted items the solution does not list (neither relevant nor graded 0)
        are kept, or dropped and the ranks closed up before scoring (trec_eval ``-J``).
    empty_token : str, optional
        An empty solution cell and an empty submission cell both stand for this one
        item (Instacart: ``"None"``; docs/measures.md#empty-cells-as-a-token).
    segment_column_name : str, optional
        A solution column of segment labels (e.g. a country), set aside before
        validation and kept in ``result.segments`` for :func:`scorer.stats.by_segment`.
    limits : ReadLimits, optional
        Bounds on input files (size, decompressed size, line and cell length,
        columns); :class:`scorer.read.files.ReadLimits` defaults otherwise.
    recipe : str, optional
        A real competition's measures and options in one word (``"otto-2023"``;
        :func:`scorer.list_recipes`, docs/recipes.md). Options given with it win;
        each one that replaced the recipe's is named in a host warning
        (``recipe_overrides``).
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
    options, measures = options_and_measures(
        metrics,
        k=k,
        dialect=dialect,
        empty_ground_truth=empty_ground_truth,
        extra_predictions=extra_predictions,
        normalization=normalization,
        unknown_row_ids=unknown_row_ids,
        missing_rows=missing_rows,
        target_type_column_name=target_type_column_name,
        row_id_type_separator=row_id_type_separator,
        type_weights=type_weights,
        grade_column_name=grade_column_name,
        relevance_threshold=relevance_threshold,
        layout=layout,
        solution_layout=solution_layout,
        rank_column_name=rank_column_name,
        score_column_name=score_column_name,
        format=format,
        candidates_column_name=candidates_column_name,
        candidate_rule=candidate_rule,
        unjudged=unjudged,
        empty_token=empty_token,
    )
    exponential = tuple(str(m) for m in measures if m.exponential)  # grades up to 30
    inputs = Inputs(solution, submission, row_id_column_name, segment_column_name, candidates)
    pairs = any(m.family.needs_non_relevant for m in measures)  # AUC: keep the candidates
    if pairs:
        refuse_dropped_candidates(options, candidates)
    scored = scored_predictions(measures, options)
    checked = read_and_check(
        inputs, options, limits, exponential, keep_candidates=pairs, scored=scored
    )
    options = checked.options
    aligned = align(checked, row_bound(options.k))  # takes the submission: freed once ranked
    values = {str(m): m.compute(aligned.judgements) for m in measures}
    users = users_to_score(checked.solution, aligned.truth.n_relevant, options.empty_ground_truth)
    return assemble_result(
        checked, aligned, values, users, measures, options, per_user, metrics is None
    )


@_score_takes_recipes
def score(
    solution: TableLike,
    submission: TableLike,
    row_id_column_name: str | None = None,
    *,
    k: int | None = None,
    metric: str | Measure | None = None,
    dialect: Dialect | None = None,
    empty_ground_truth: EmptyGroundTruth = "skip",
    extra_predictions: ExtraPredictions = "error",
    normalization: Normalization = "min_k",
    unknown_row_ids: UnknownRowIds = "error",
    missing_rows: MissingRows = "error",
    target_type_column_name: str | None = None,
    row_id_type_separator: str | None = None,
    type_weights: Mapping[str, float] | None = None,
    grade_column_name: str | None = None,
    relevance_threshold: int = 1,
    layout: Layout = "wide",
    solution_layout: Layout = "wide",
    rank_column_name: str | None = None,
    score_column_name: str | None = None,
    format: InputFormat = "table",
    candidates_column_name: str | None = None,
    candidates: TableLike | None = None,
    candidate_rule: CandidateRule = "none",
    unjudged: Unjudged = "keep",
    empty_token: str | None = None,
    segment_column_name: str | None = None,
    limits: ReadLimits | None = None,
    recipe: str | None = None,
) -> float:
    """MAP@K (or ``metric``) of a submission, with Kaggle's metric signature.

    Takes the same arguments as :func:`evaluate` (but ``per_user``, and one
    ``metric`` instead of ``metrics``; default ``MAP@k``) and returns
    ``evaluate(...).score``: a finite float in [0, 1].

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
    return evaluate(
        solution,
        submission,
        row_id_column_name,
        k=k,
        metrics=None if metric is None else [metric],
        dialect=dialect,
        empty_ground_truth=empty_ground_truth,
        extra_predictions=extra_predictions,
        normalization=normalization,
        unknown_row_ids=unknown_row_ids,
        missing_rows=missing_rows,
        target_type_column_name=target_type_column_name,
        row_id_type_separator=row_id_type_separator,
        type_weights=type_weights,
        grade_column_name=grade_column_name,
        relevance_threshold=relevance_threshold,
        layout=layout,
        solution_layout=solution_layout,
        rank_column_name=rank_column_name,
        score_column_name=score_column_name,
        format=format,
        candidates_column_name=candidates_column_name,
        candidates=candidates,
        candidate_rule=candidate_rule,
        unjudged=unjudged,
        empty_token=empty_token,
        segment_column_name=segment_column_name,
        limits=limits,
        recipe=recipe,
    ).score
