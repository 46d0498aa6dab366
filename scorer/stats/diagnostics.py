"""Diagnostics: hit rate by rank, and measures by |R| bucket and by segment."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from scorer.errors import HostVisibleError
from scorer.per_user import MeasureValues
from scorer.result import ScoreResult, require_arrays
from scorer.stats.resampling import ratio_of_sums

RELEVANT_BUCKETS: tuple[tuple[str, int, float], ...] = (
    ("0", 0, 0),
    ("1", 1, 1),
    ("2", 2, 2),
    ("3-5", 3, 5),
    ("6-10", 6, 10),
    (">10", 11, math.inf),
)
"""|R| buckets: label, smallest and largest |R| (the ``"0"`` bucket only with users)."""


@dataclass(frozen=True)
class HitRateByRank:
    """The "hit rate by rank" figure, as numbers, over the scored users.

    Attributes
    ----------
    rank : ndarray of int
        1 … K.
    hit_share : ndarray of float
        Share of scored users whose prediction at this rank is a credited hit.
    cumulative_precision : ndarray of float
        Mean over scored users of (credited hits in the first ``rank``) / ``rank``.
    n_users : int
        Scored users.
    """

    rank: np.ndarray
    hit_share: np.ndarray
    cumulative_precision: np.ndarray
    n_users: int


@dataclass(frozen=True)
class Breakdown:
    """A measure's mean over one group of scored users.

    Attributes
    ----------
    label : str
        The group: an |R| bucket or a segment.
    n_users : int
        Scored users in it.
    mean : float
        The measure's mean over them.
    """

    label: str
    n_users: int
    mean: float


def hit_rate_by_rank(result: ScoreResult) -> HitRateByRank:
    """Per rank, the share of scored users with a credited hit, and cumulative precision.

    Examples
    --------
    >>> import pandas as pd, scorer
    >>> solution = pd.DataFrame({"id": ["a", "b"], "items": ["x y", "z"]})
    >>> submission = pd.DataFrame({"id": ["a", "b"], "items": ["x q y", "q z"]})
    >>> figure = hit_rate_by_rank(scorer.evaluate(solution, submission, k=3))
    >>> figure.hit_share.tolist(), figure.cumulative_precision.tolist()  # (1/1+0/1)/2, ...
    ([0.5, 0.5, 0.5], [0.5, 0.5, 0.5])
    """
    require_arrays(result)
    hits_at_rank = result.hits_at_rank
    if hits_at_rank is None:
        raise HostVisibleError(
            "This result keeps no hits per rank; use the result of scorer.evaluate()."
        )
    n_users = int(np.count_nonzero(result.user_scored))
    rank = np.arange(1, len(hits_at_rank) + 1)
    hit_share = hits_at_rank / n_users
    cumulative = np.cumsum(hits_at_rank) / (n_users * rank)
    return HitRateByRank(rank, hit_share, cumulative, n_users)


def by_relevant_count(result: ScoreResult, metric: str | None = None) -> list[Breakdown]:
    """A measure's mean over the scored users of each |R| bucket (1, 2, 3-5, 6-10, >10).

    The bucket ``"0"`` appears only when users without a relevant item are scored
    (``empty_ground_truth="zero"``); empty buckets are listed with 0 users.

    Examples
    --------
    >>> import pandas as pd, scorer
    >>> solution = pd.DataFrame({"id": ["a", "b", "c"], "items": ["x", "x y", "x y z"]})
    >>> result = scorer.evaluate(solution, solution, k=3)
    >>> [(b.label, b.n_users, b.mean) for b in by_relevant_count(result)][:3]
    [('1', 1, 1.0), ('2', 1, 1.0), ('3-5', 1, 1.0)]
    """
    values = result.measure_values(metric)
    n_relevant = result.user_n_relevant[values.scored]
    edges = np.array([lowest for _, lowest, _ in RELEVANT_BUCKETS[1:]])
    bucket = np.searchsorted(edges, n_relevant, side="right")
    rows = _group_means(bucket, values, len(RELEVANT_BUCKETS))
    labels = [label for label, _, _ in RELEVANT_BUCKETS]
    return [
        Breakdown(labels[i], count, mean)
        for i, (count, mean) in enumerate(rows)
        if i > 0 or count > 0
    ]


def by_segment(result: ScoreResult, metric: str | None = None) -> list[Breakdown]:
    """A measure's mean over the scored users of each segment, by segment name.

    Raises
    ------
    HostVisibleError
        The result was scored without ``segment_column_name=``.

    Examples
    --------
    >>> import pandas as pd, scorer
    >>> solution = pd.DataFrame({"id": ["a", "b", "c"], "items": ["x", "y", "z"],
    ...                          "country": ["se", "de", "se"]})
    >>> submission = pd.DataFrame({"id": ["a", "b", "c"], "items": ["x", "q", "q"]})
    >>> result = scorer.evaluate(solution, submission, k=1, segment_column_name="country")
    >>> [(b.label, b.n_users, b.mean) for b in by_segment(result)]
    [('de', 1, 0.0), ('se', 2, 0.5)]
    """
    values = result.measure_values(metric)
    if result.segments is None:
        raise HostVisibleError(
            "This result has no segment column: score with segment_column_name=NAME "
            "(a column of the solution) to break the measures down by segment."
        )
    codes, names = result.segments.codes, result.segments.names
    rows = _group_means(codes[values.scored], values, len(names))
    breakdown = [Breakdown(names[i], count, mean) for i, (count, mean) in enumerate(rows)]
    return sorted(breakdown, key=lambda row: row.label)


def _group_means(
    group: np.ndarray, values: MeasureValues, n_groups: int
) -> list[tuple[int, float]]:
    """Each group's count of scored users and the measure's value over them: the mean
    of their values, or for ``avg=micro`` their ratio of sums (NaN for an empty group)."""
    counts = np.bincount(group, minlength=n_groups)
    if values.micro:
        parts = values.parts(values.scored)
        sums = np.bincount(group, weights=parts[:, 0], minlength=n_groups)
        denominators = np.bincount(group, weights=parts[:, 1], minlength=n_groups)
        means = np.where(counts > 0, ratio_of_sums(sums, denominators), np.nan)
        return [(int(c), float(m)) for c, m in zip(counts, means, strict=True)]
    sums = np.bincount(group, weights=values.values[values.scored], minlength=n_groups)
    means = np.divide(sums, counts, out=np.full(n_groups, np.nan), where=counts > 0)
    return [(int(c), float(m)) for c, m in zip(counts, means, strict=True)]
