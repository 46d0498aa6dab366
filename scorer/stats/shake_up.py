"""Shake-up: how far Private can move from Public under random re-splits."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from scorer.errors import HostVisibleError
from scorer.per_user import MeasureValues
from scorer.result import ScoreResult
from scorer.stats.resampling import (
    check_paired,
    check_settings,
    quantiles,
    ratio_of_sums,
    resplit_public_sums,
    seeded_generator,
)
from scorer.stats.sessions import session_parts, session_split, type_weights, weighted_total


@dataclass(frozen=True)
class ShakeUp:
    """Private - Public of one submission under random re-splits of its users.

    Attributes
    ----------
    observed : float
        Private - Public with the real split.
    mean, low, high : float
        The mean and the 5 % and 95 % quantiles of Private - Public over re-splits.
    n_splits : int
        Re-splits drawn.
    """

    observed: float
    mean: float
    low: float
    high: float
    n_splits: int


@dataclass(frozen=True)
class Standing:
    """One submission's place in a shake-up of several.

    Attributes
    ----------
    public, private : float
        Its Public and Private values with the real split.
    public_rank, private_rank : int
        Its ranks with the real split (1 = best; ties share the better rank).
    expected_private_rank : float
        Its mean Private rank over re-splits.
    private_rank_low, private_rank_high : float
        The 5 % and 95 % quantiles of its Private rank over re-splits.
    """

    public: float
    private: float
    public_rank: int
    private_rank: int
    expected_private_rank: float
    private_rank_low: float
    private_rank_high: float


@dataclass(frozen=True)
class ShakeUpTable:
    """Several submissions under random re-splits of the same users.

    Attributes
    ----------
    standings : dict of str to Standing
        Per submission, in the order given.
    swap_probability : dict of (str, str) to float
        Per pair, the share of re-splits in which the two submissions' order on
        Private is the reverse of their order on Public (ties are no swap).
    n_splits : int
        Re-splits drawn.
    """

    standings: dict[str, Standing]
    swap_probability: dict[tuple[str, str], float]
    n_splits: int


def shake_up(
    results: ScoreResult | Mapping[str, ScoreResult],
    metric: str | None = None,
    *,
    n_splits: int = 1000,
    seed: int = 0,
) -> ShakeUp | ShakeUpTable:
    """How much could Public and Private differ by chance? Re-split the scored users.

    Each re-split draws a new Public set of the real Public size from the scored
    users (the rest is Private), the same users for every submission. A measure with
    ``avg=micro`` recomputes each side's ratio of sums. With several targets per row
    id, whole sessions (row ids with all their types) are re-split, their real Public
    number of them on the Public side, and each side's weighted total is recomputed.

    Parameters
    ----------
    results : ScoreResult or mapping of str to ScoreResult
        One result, or several submissions (by name) scored against one solution.
    metric : str, optional
        A measure computed for the result(s), by any name the registry parses;
        default the leaderboard's (first) measure.
    n_splits : int, default 1000
    seed : int, default 0

    Returns
    -------
    ShakeUp
        For one result: the distribution of Private - Public.
    ShakeUpTable
        For a mapping: swap probabilities and Private ranks.

    Raises
    ------
    HostVisibleError
        The solution has no ``Usage`` split with users on both sides, or the results
        come from different solutions or options.
    """
    check_settings(n_splits, 0.5, seed, count_name="number of re-splits")
    single = isinstance(results, ScoreResult)
    named = {"": results} if single else dict(results)
    if not named:
        raise HostVisibleError("shake_up needs at least one result.")
    results_list = list(named.values())
    for other in results_list[1:]:
        check_paired(results_list[0], other)
    columns = [r.measure_values(metric) for r in results_list]
    first = columns[0]
    public, private = _split_sizes(first)
    if results_list[0].by_type is not None:
        public_means, private_means = _typed_resplits(results_list, columns, n_splits, seed)
    else:
        public_means, private_means = _resplits(columns, public, private, n_splits, seed)
    observed_public = np.array([c.means["public"] for c in columns], dtype=float)
    observed_private = np.array([c.means["private"] for c in columns], dtype=float)
    if single:
        shift = private_means[:, 0] - public_means[:, 0]
        low, high = quantiles(shift, (0.05, 0.95))
        observed = float(observed_private[0] - observed_public[0])
        return ShakeUp(observed, float(shift.mean()), low, high, n_splits)
    return _shake_up_table(
        list(named), public_means, private_means, observed_public, observed_private, n_splits
    )


def _resplits(
    columns: list[MeasureValues], public: int, private: int, n_splits: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Each submission's Public and Private means per re-split of the scored users."""
    first = columns[0]
    scored = first.scored
    if first.micro:  # each submission's numerators and denominators, side by side
        matrix = np.hstack([c.parts(scored) for c in columns])
    else:
        matrix = np.column_stack([c.values[scored] for c in columns])
    public_sums = resplit_public_sums(matrix, public, n_splits, seeded_generator(seed))
    private_sums = matrix.sum(axis=0) - public_sums
    if first.micro:
        public_means = ratio_of_sums(public_sums[:, 0::2], public_sums[:, 1::2])
        private_means = ratio_of_sums(private_sums[:, 0::2], private_sums[:, 1::2])
        return public_means, private_means
    return public_sums / public, private_sums / private


def _typed_resplits(
    results: list[ScoreResult], columns: list[MeasureValues], n_splits: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Each submission's Public and Private weighted totals per re-split of the scored
    sessions (a side without a row of some type counts that type as 0)."""
    weights = type_weights(results[0])
    width = 2 * len(weights)
    n_public = int(np.count_nonzero(session_split(results[0], columns[0]) == 0))
    matrix = np.hstack(
        [session_parts(r, c, c.scored)[:, :width] for r, c in zip(results, columns, strict=True)]
    )
    public_sums = resplit_public_sums(matrix, n_public, n_splits, seeded_generator(seed))
    private_sums = matrix.sum(axis=0) - public_sums

    def totals(sums: np.ndarray) -> np.ndarray:
        return np.column_stack(
            [
                weighted_total(sums[:, i : i + width], weights)
                for i in range(0, matrix.shape[1], width)
            ]
        )

    return totals(public_sums), totals(private_sums)


def _shake_up_table(
    names: list[str],
    public_means: np.ndarray,
    private_means: np.ndarray,
    observed_public: np.ndarray,
    observed_private: np.ndarray,
    n_splits: int,
) -> ShakeUpTable:
    private_ranks = _ranks(private_means)
    real_public_ranks = _ranks(observed_public[None, :])[0]
    real_private_ranks = _ranks(observed_private[None, :])[0]
    standings = {}
    for column, name in enumerate(names):
        low, high = quantiles(private_ranks[:, column], (0.05, 0.95))
        standings[name] = Standing(
            public=float(observed_public[column]),
            private=float(observed_private[column]),
            public_rank=int(real_public_ranks[column]),
            private_rank=int(real_private_ranks[column]),
            expected_private_rank=float(private_ranks[:, column].mean()),
            private_rank_low=low,
            private_rank_high=high,
        )
    swaps = {}
    for i, first in enumerate(names):
        for j in range(i + 1, len(names)):
            public_order = public_means[:, i] - public_means[:, j]
            private_order = private_means[:, i] - private_means[:, j]
            swaps[(first, names[j])] = float(np.mean(public_order * private_order < 0))
    return ShakeUpTable(standings, swaps, n_splits)


def _ranks(means: np.ndarray) -> np.ndarray:
    """Rank 1 for the highest value in each row; ties share the better rank."""
    return 1 + np.sum(means[:, None, :] > means[:, :, None], axis=2)


def _split_sizes(values: MeasureValues) -> tuple[int, int]:
    if values.split is not None:
        scored_splits = values.split[values.scored]
        public = int(np.count_nonzero(scored_splits == 0))
        private = int(np.count_nonzero(scored_splits == 1))
        if public and private:
            return public, private
    raise HostVisibleError(
        "A shake-up needs a solution with a Usage column and scored users in both the "
        "Public and the Private split."
    )
