"""Bootstrap confidence intervals of a result's measures, per split."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scorer.per_user import SPLITS
from scorer.result import ScoreResult, measure_name
from scorer.stats.resampling import (
    check_settings,
    percentile_interval,
    resampled_row_sums,
    resampled_sums,
    seeded_generator,
)


@dataclass(frozen=True)
class Interval:
    """A point value and its percentile bootstrap interval.

    Attributes
    ----------
    value : float
        The measure's value on the real users (the result's own value).
    low, high : float
        The interval's bounds.
    """

    value: float
    low: float
    high: float


def bootstrap(
    result: ScoreResult,
    metric: str | None = None,
    *,
    n_resamples: int = 1000,
    level: float = 0.95,
    seed: int = 0,
) -> dict[str, Interval]:
    """Percentile bootstrap intervals of a measure, per split.

    Scored users are resampled with replacement within each ``Usage`` split; the
    overall value of a resample combines its splits' resamples (a stratified
    bootstrap), so all three intervals come from the same draws.

    Parameters
    ----------
    result : ScoreResult
        From :func:`scorer.evaluate`.
    metric : str, optional
        A measure computed for the result(s), by any name the registry parses;
        default the leaderboard's (first) measure.
    n_resamples : int, default 1000
    level : float, default 0.95
        The intervals' confidence level.
    seed : int, default 0

    With several targets per row id, the statistic is the weighted total
    Σ w_t · value_t, and what is resampled is a row id (a session) with all its
    target types together, so the interval reflects that a session's types move
    together (:func:`_typed_bootstrap`).

    Returns
    -------
    dict of str to Interval
        ``"score"``, and ``"public"`` and ``"private"`` when the solution has
        ``Usage`` (a split without a scored user is left out).

    Examples
    --------
    >>> import pandas as pd, scorer
    >>> solution = pd.DataFrame({"id": list("abcd"), "items": ["x", "x", "x", "x"]})
    >>> submission = pd.DataFrame({"id": list("abcd"), "items": ["x", "y", "x", "y"]})
    >>> result = scorer.evaluate(solution, submission, k=1)
    >>> interval = bootstrap(result, n_resamples=200)["score"]
    >>> interval.value, 0.0 <= interval.low <= 0.5 <= interval.high <= 1.0
    (0.5, True)
    """
    check_settings(n_resamples, level, seed)
    if result.by_type is not None:
        return _typed_bootstrap(result, metric, n_resamples, level, seed)
    values = result.measure_values(metric)
    strata = {label: v for label, v in values.strata().items() if len(v)}
    rng = seeded_generator(seed)
    sums = {label: resampled_sums(v, n_resamples, rng) for label, v in strata.items()}
    n_scored = sum(len(v) for v in strata.values())
    overall = np.sum(list(sums.values()), axis=0) / n_scored
    intervals = {"score": Interval(values.means["score"], *percentile_interval(overall, level))}
    for label, stratum in strata.items():
        if label in SPLITS:
            bounds = percentile_interval(sums[label] / len(stratum), level)
            intervals[label] = Interval(values.means[label], *bounds)
    return intervals


def _typed_bootstrap(
    result: ScoreResult, metric: str | None, n_resamples: int, level: float, seed: int
) -> dict[str, Interval]:
    """The bootstrap of a weighted total over target types.

    Within each ``Usage`` split (or over all scored rows without ``Usage``), the row ids
    (sessions) are resampled with replacement, each bringing its scored rows of every
    type; a resample's total is Σ w_t · (sum of its type-t values / its number of
    type-t rows). The overall statistic adds the splits' resampled sums, as the
    untyped bootstrap does. A resample without a row of some type has no total and is
    left out of the quantiles (only possible with very few sessions).
    """
    name = measure_name(result, metric)
    values = result.user_values[name]
    scored = result.user_scored
    n_types = len(result.types)
    weights = np.array([(result.weights or {})[kind] for kind in result.types])
    labels = (
        {"score": scored}
        if result.user_usage is None
        else {split: scored & (result.user_usage == code) for code, split in enumerate(SPLITS)}
    )
    rng = seeded_generator(seed)
    sums = {}
    for label, mask in labels.items():
        if mask.any():
            matrix = _session_matrix(values, mask, result.user_type, result.user_group, n_types)
            sums[label] = resampled_row_sums(matrix, n_resamples, rng)
    means = {"score": result.metrics[name]}
    for split, table in (("public", result.public_metrics), ("private", result.private_metrics)):
        means[split] = None if table is None else table[name]
    intervals = {}
    total = np.sum(list(sums.values()), axis=0)
    intervals["score"] = Interval(means["score"], *_weighted_interval(total, weights, level))
    for label, found in sums.items():
        if label in SPLITS and means[label] is not None:
            bounds = _weighted_interval(found, weights, level)
            intervals[label] = Interval(means[label], *bounds)  # type: ignore[arg-type]
    return intervals


def _session_matrix(
    values: np.ndarray, mask: np.ndarray, row_type: np.ndarray, group: np.ndarray, n_types: int
) -> np.ndarray:
    """Per session with a row in ``mask``: the sum of its values of each type, then its
    number of rows of each type (``2 * n_types`` columns)."""
    sessions, session = np.unique(group[mask], return_inverse=True)
    cells = session * n_types + row_type[mask]
    size = len(sessions) * n_types
    total = np.bincount(cells, weights=values[mask], minlength=size).reshape(-1, n_types)
    count = np.bincount(cells, minlength=size).reshape(-1, n_types)
    return np.hstack([total, count.astype(np.float64)])


def _weighted_interval(sums: np.ndarray, weights: np.ndarray, level: float) -> tuple[float, float]:
    n_types = len(weights)
    totals, counts = sums[:, :n_types], sums[:, n_types:]
    complete = (counts > 0).all(axis=1)
    statistics = (totals[complete] / counts[complete]) @ weights
    if not len(statistics):
        return float("nan"), float("nan")
    return percentile_interval(statistics, level)
