"""Bootstrap confidence intervals of a result's measures, per split."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scorer.per_user import SPLITS, MeasureValues
from scorer.result import ScoreResult
from scorer.stats.resampling import (
    check_settings,
    percentile_interval,
    ratio_of_sums,
    resampled_column_sums,
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
    bootstrap), so all three intervals come from the same draws. A measure with
    ``avg=micro`` resamples users with their numerators and denominators and
    recomputes the ratio of sums on each resample.

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
    values = result.measure_values(metric)
    if values.micro:
        return _micro_bootstrap(values, n_resamples, level, seed)
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


def _micro_bootstrap(
    values: MeasureValues, n_resamples: int, level: float, seed: int
) -> dict[str, Interval]:
    """:func:`bootstrap` of a ratio of sums: Σ numerators* / Σ denominators* per resample."""
    strata = {label: values.parts(mask) for label, mask in values.masks().items() if mask.any()}
    rng = seeded_generator(seed)
    sums = {label: resampled_column_sums(p, n_resamples, rng) for label, p in strata.items()}
    total = np.sum(list(sums.values()), axis=0)
    overall = ratio_of_sums(total[:, 0], total[:, 1])
    intervals = {"score": Interval(values.means["score"], *percentile_interval(overall, level))}
    for label in strata:
        if label in SPLITS:
            ratios = ratio_of_sums(sums[label][:, 0], sums[label][:, 1])
            intervals[label] = Interval(values.means[label], *percentile_interval(ratios, level))
    return intervals
