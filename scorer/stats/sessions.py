"""Results with several targets per row id: the statistics resample sessions.

With target types (OTTO's clicks, carts and orders of one session), a row id (a
session) has one scored row per type, and the leaderboard's value is the weighted total
Σ_t w_t · value_t, value_t the mean (or, with ``avg=micro``, the ratio of sums) of the
type-t rows. The rows of one session move together, so every statistic (bootstrap,
paired comparison, shake-up) draws sessions, each with all its types: a session is one
row of a matrix holding, for each type, the sum of its rows' values (or numerators),
then of 1 per row (or denominators), then its number of rows.
"""

from __future__ import annotations

import numpy as np

from scorer.errors import HostVisibleError
from scorer.per_user import MeasureValues
from scorer.result import ScoreResult
from scorer.stats.resampling import ratio_of_sums


def type_weights(result: ScoreResult) -> np.ndarray:
    """The result's type weights, in the order of ``result.types``."""
    weights = result.weights or {}
    return np.array([weights[kind] for kind in result.types], dtype=np.float64)


def session_parts(result: ScoreResult, values: MeasureValues, mask: np.ndarray) -> np.ndarray:
    """Per session with a row in ``mask`` (in the order of the sessions' codes), for
    each type: the sum of its rows' values (or numerators), then of 1 per row (or
    denominators), then its number of rows: ``3 * n_types`` columns.

    Examples
    --------
    >>> import pandas as pd, scorer
    >>> table = pd.DataFrame({"id": ["1_a", "1_b", "2_a"], "items": ["x", "y", "x"]})
    >>> sub = pd.DataFrame({"id": ["1_a", "1_b", "2_a"], "items": ["x", "z", "z"]})
    >>> result = scorer.evaluate(table, sub, row_id_type_separator="_", k=1)
    >>> values = result.measure_values("MAP@1")
    >>> session_parts(result, values, values.scored).tolist()  # types a, b
    [[1.0, 0.0, 1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 1.0, 0.0, 1.0, 0.0]]
    """
    n_types = len(result.types)
    group, row_type = result.user_group[mask], result.user_type[mask]  # type: ignore[index]
    sessions, session = np.unique(group, return_inverse=True)
    cells = session.reshape(-1) * n_types + row_type
    size = len(sessions) * n_types

    def per_type(weights: np.ndarray | None) -> np.ndarray:
        return np.bincount(cells, weights=weights, minlength=size).reshape(-1, n_types)

    count = per_type(None).astype(np.float64)
    if values.micro:
        parts = values.parts(mask)
        tops, bottoms = per_type(parts[:, 0]), per_type(parts[:, 1])
    else:
        tops, bottoms = per_type(values.values[mask]), count
    return np.hstack([tops, bottoms, count])


def weighted_total(sums: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Σ_t w_t · top_t / bottom_t for each row of ``sums`` (its first ``2 * n_types``
    columns: tops, then bottoms; 0 / 0 reads as 0).

    Examples
    --------
    >>> weighted_total(np.array([[1.0, 3.0, 2.0, 4.0]]), np.array([0.5, 1.0])).tolist()
    [1.0]
    """
    n_types = len(weights)
    return ratio_of_sums(sums[:, :n_types], sums[:, n_types : 2 * n_types]) @ weights


def complete(sums: np.ndarray, n_types: int) -> np.ndarray:
    """Which resamples hold a row of every type (the others have no total)."""
    return (sums[:, 2 * n_types : 3 * n_types] > 0).all(axis=1)


def session_split(result: ScoreResult, values: MeasureValues) -> np.ndarray:
    """Each scored session's ``Usage`` split (0 Public, 1 Private; the order of
    :func:`session_parts` over the scored rows).

    Raises
    ------
    HostVisibleError
        A session's scored rows are in different splits: a re-split of sessions
        would be ill-defined.
    """
    scored = values.scored
    group = result.user_group[scored]  # type: ignore[index]
    split = values.split[scored]  # type: ignore[index]
    sessions, session = np.unique(group, return_inverse=True)
    lowest = np.full(len(sessions), 127, dtype=np.int64)
    highest = np.full(len(sessions), -1, dtype=np.int64)
    np.minimum.at(lowest, session.reshape(-1), split)
    np.maximum.at(highest, session.reshape(-1), split)
    mixed = int(np.count_nonzero(lowest != highest))
    if mixed:
        raise HostVisibleError(
            f"A shake-up re-splits whole row ids, but {mixed:,} row ids have target types "
            "in different Usage splits. Give every type of a row id the same Usage."
        )
    return lowest
