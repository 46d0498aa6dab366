"""How sure is a score: bootstrap intervals, paired comparison, shake-up, diagnostics.

Everything here is numpy over the per-user values a :class:`~scorer.result.ScoreResult`
keeps (:attr:`~scorer.result.ScoreResult.user_values`, read through
:meth:`~scorer.result.ScoreResult.measure_values`); nothing reads a file or knows a
measure's formula. Every function takes any measure computed for the result, by any
name the registry parses (``"nDCG@5"``, ``"ndcg@5"``, ``"Recall@5"``), and defaults to
the leaderboard's (first) measure. Per-user values are float64: the intervals and p-values are
estimates, and the exactness of the leaderboard score does not extend to them.

The modules, by concern: :mod:`~scorer.stats.intervals` (bootstrap),
:mod:`~scorer.stats.comparison` (paired comparison), :mod:`~scorer.stats.shake_up`,
:mod:`~scorer.stats.diagnostics` (hit rate by rank, breakdowns), the draws they share in
:mod:`~scorer.stats.resampling`, and the HTML :mod:`~scorer.stats.report`.
"""

from scorer.stats.comparison import Comparison, compare, format_level, format_p_value
from scorer.stats.diagnostics import (
    RELEVANT_BUCKETS,
    Breakdown,
    HitRateByRank,
    by_relevant_count,
    by_segment,
    hit_rate_by_rank,
)
from scorer.stats.intervals import Interval, bootstrap
from scorer.stats.resampling import (
    EXACT_SIGN_FLIP_MAX_USERS,
    GROUPED_MAX_ATOMS_SHARE,
    GROUPED_MIN_ATOMS,
    INTERVAL_RESAMPLES,
    PAIRED_RESAMPLES,
    check_paired,
    fair_coin_heads,
    percentile_interval,
    ratio_of_sums,
    resampled_column_sums,
    resampled_sums,
    resplit_public_sums,
    sign_flip_p_value,
    swap_p_value,
)
from scorer.stats.shake_up import ShakeUp, ShakeUpTable, Standing, shake_up

__all__ = [
    "EXACT_SIGN_FLIP_MAX_USERS",
    "GROUPED_MAX_ATOMS_SHARE",
    "GROUPED_MIN_ATOMS",
    "INTERVAL_RESAMPLES",
    "PAIRED_RESAMPLES",
    "RELEVANT_BUCKETS",
    "Breakdown",
    "Comparison",
    "HitRateByRank",
    "Interval",
    "ShakeUp",
    "ShakeUpTable",
    "Standing",
    "bootstrap",
    "by_relevant_count",
    "by_segment",
    "check_paired",
    "compare",
    "fair_coin_heads",
    "format_level",
    "format_p_value",
    "hit_rate_by_rank",
    "percentile_interval",
    "ratio_of_sums",
    "resampled_column_sums",
    "resampled_sums",
    "resplit_public_sums",
    "shake_up",
    "sign_flip_p_value",
    "swap_p_value",
]
