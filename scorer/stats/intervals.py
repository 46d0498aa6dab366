"""Bootstrap confidence intervals of a result's measures, per split."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from scorer.arrays import byte_order
from scorer.per_user import SPLITS, MeasureValues
from scorer.result import ScoreResult, whole_data_values
from scorer.stats.resampling import (
    INTERVAL_RESAMPLES,
    check_settings,
    percentile_interval,
    ratio_of_sums,
    resampled_column_sums,
    resampled_sums,
    seeded_generator,
)
from scorer.stats.sessions import complete, session_parts, type_weights, weighted_total


@dataclass(frozen=True)
class Interval:
    """A point value and its bootstrap interval.

    Attributes
    ----------
    value : float
        The measure's value on the real users (the result's own value).
    low, high : float
        The interval's bounds.
    method : str
        ``"percentile"``: the percentile bootstrap of one machine (:func:`bootstrap`);
        ``"poisson"``: the sharded Poisson bootstrap of a run scored in parts
        (:func:`scorer.partial.finish`).
    """

    value: float
    low: float
    high: float
    method: str = "percentile"


def bootstrap(
    result: ScoreResult,
    metric: str | None = None,
    *,
    n_resamples: int = INTERVAL_RESAMPLES,
    level: float = 0.95,
    seed: int = 0,
) -> dict[str, Interval]:
    """Percentile bootstrap intervals of a measure, per split.

    Scored users are resampled with replacement within each ``Usage`` split; the
    overall value of a resample combines its splits' resamples (a stratified
    bootstrap), so all three intervals come from the same draws. A measure with
    ``avg=micro`` resamples users with their numerators and denominators and
    recomputes the ratio of sums on each resample; GAP resamples rows and recomputes
    GAP on each resample (:func:`_whole_data_bootstrap`).

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

    Notes
    -----
    With several targets per row id, the statistic is the weighted total
    Σ w_t · value_t, and what is resampled is a row id (a session) with all its
    target types together, so the interval reflects that a session's types move
    together (:func:`_typed_bootstrap`).

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
    whole = whole_data_values(result, metric)
    if whole is not None:
        return _whole_data_bootstrap(result, *whole, n_resamples, level, seed)
    if result.by_type is not None:
        return _typed_bootstrap(result, metric, n_resamples, level, seed)
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


#: Cells of the resamples x rows matrices of :func:`_whole_data_bootstrap` (16 MiB each).
_WHOLE_DATA_CELLS = 2**21


def _whole_data_bootstrap(
    result: ScoreResult, name: str, gap: Any, n_resamples: int, level: float, seed: int
) -> dict[str, Interval]:
    """:func:`bootstrap` of GAP: the scored rows of each split drawn with replacement
    (a multinomial per split and resample), and GAP recomputed on each resample over
    all its rows and within each split (``gap.resampled_means``), in blocks of
    resamples. Its cost is resamples x rows, with no grouping of equal values."""
    scored = np.asarray(result.user_scored, dtype=bool)
    usage = result.user_usage
    masks = (
        {"score": scored}
        if usage is None
        else {label: scored & (usage == code) for code, label in enumerate(SPLITS)}
    )
    # Rows drawn in their row ids' byte order: the same draws under any row order.
    by_row_id = byte_order(result.row_ids)
    strata = {label: by_row_id[mask[by_row_id]] for label, mask in masks.items() if mask.any()}
    rng = seeded_generator(seed)
    n_rows = len(scored)
    block = max(1, _WHOLE_DATA_CELLS // max(n_rows, 1))
    found: dict[str, list[np.ndarray]] = {label: [] for label in ["score", *strata]}
    for start in range(0, n_resamples, block):  # blocks of resamples, never one at a time
        size = min(block, n_resamples - start)
        weights = np.zeros((size, n_rows), dtype=np.int64)
        for rows in strata.values():
            weights[:, rows] = _draw_counts(rng, size, len(rows))
        found["score"].append(gap.resampled_means(weights))
        if usage is not None:
            for label, mask in masks.items():
                if label in strata:
                    found[label].append(gap.resampled_means(weights, mask))
    means = {"score": result.metrics[name]}
    splits = {"public": result.public_metrics, "private": result.private_metrics}
    means |= {label: (splits[label] or {}).get(name) for label in strata if label in splits}
    return {
        label: Interval(means[label], *percentile_interval(np.concatenate(parts), level))
        for label, parts in found.items()
        if parts and means.get(label) is not None
    }


def _draw_counts(rng: np.random.Generator, size: int, n: int) -> np.ndarray:
    """How often each of ``n`` rows is drawn in each of ``size`` resamples of ``n`` draws
    with replacement (one ``bincount`` of all the draws)."""
    draws = rng.integers(0, n, size=(size, n)) + (np.arange(size) * n)[:, None]
    return np.bincount(draws.ravel(), minlength=size * n).reshape(size, n)


def _typed_bootstrap(
    result: ScoreResult, metric: str | None, n_resamples: int, level: float, seed: int
) -> dict[str, Interval]:
    """The bootstrap of a weighted total over target types.

    Within each ``Usage`` split (or over all scored rows without ``Usage``), the row ids
    (sessions) are resampled with replacement, each bringing its scored rows of every
    type. A resample's value of type t is the sum of its type-t values over its number
    of type-t rows (for ``avg=micro``: the sum of their numerators over the sum of
    their denominators), and its total is Σ w_t · value_t. The overall statistic adds
    the splits' resampled sums, as the untyped bootstrap does. A resample without a row
    of some type has no total and is left out of the quantiles (only possible with very
    few sessions).
    """
    values = result.measure_values(metric)
    weights = type_weights(result)
    rng = seeded_generator(seed)
    sums = {}
    for label, mask in values.masks().items():
        if mask.any():
            parts = session_parts(result, values, mask)
            sums[label] = resampled_column_sums(parts, n_resamples, rng)
    intervals = {}
    total = np.sum(list(sums.values()), axis=0)
    intervals["score"] = Interval(values.means["score"], *_weighted_interval(total, weights, level))
    for label, found in sums.items():
        if label in SPLITS and values.means.get(label) is not None:
            bounds = _weighted_interval(found, weights, level)
            intervals[label] = Interval(values.means[label], *bounds)  # type: ignore[arg-type]
    return intervals


def _weighted_interval(sums: np.ndarray, weights: np.ndarray, level: float) -> tuple[float, float]:
    statistics = weighted_total(sums[complete(sums, len(weights))], weights)
    if not len(statistics):
        return float("nan"), float("nan")
    return percentile_interval(statistics, level)
