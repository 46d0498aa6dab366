"""Paired comparison of two submissions scored against one solution."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from scorer.per_user import MeasureValues
from scorer.result import ScoreResult
from scorer.stats.resampling import (
    PAIRED_RESAMPLES,
    check_paired,
    check_settings,
    percentile_interval,
    ratio_of_sums,
    resampled_column_sums,
    resampled_sums,
    sign_flip_p_value,
    swap_p_value,
)
from scorer.stats.sessions import complete, session_parts, type_weights, weighted_total


@dataclass(frozen=True)
class Comparison:
    """Submission B against submission A on one measure (B - A).

    Attributes
    ----------
    metric : str
        The measure's canonical name.
    a, b : float
        The two submissions' values.
    difference : float
        ``b - a``.
    low, high : float
        The paired percentile bootstrap interval of the difference.
    p_value : float
        Two-sided paired sign-flip randomisation test of "no difference".
    exact : bool
        Whether ``p_value`` enumerates all 2^n sign patterns (else Monte-Carlo
        with the +1 correction).
    wins, ties, losses : int
        Scored users where B is better than, equal to, worse than A.
    n_resamples : int
        Resamples drawn for the interval and (when not exact) the test.
    level : float
        The interval's confidence level.
    """

    metric: str
    a: float
    b: float
    difference: float
    low: float
    high: float
    p_value: float
    exact: bool
    wins: int
    ties: int
    losses: int
    n_resamples: int
    level: float


#: P-values below this print as ``< 0.0001``: more digits would be noise of the draws.
SMALLEST_P_VALUE_SHOWN = 1e-4


def format_level(level: float) -> str:
    """An interval's level as a percentage, exactly as given (not rounded to a whole
    percent), the same in every output.

    Examples
    --------
    >>> format_level(0.95), format_level(0.975), format_level(0.999)
    ('95%', '97.5%', '99.9%')
    """
    return f"{round(100 * level, 10):g}%"


def format_p_value(p_value: float) -> str:
    """A p-value for people, the same in ``scorer compare`` and the report.

    Four decimals; below 0.0001, ``< 0.0001`` (the full value stays in the JSON and in
    the report's ``data-value``).

    Examples
    --------
    >>> format_p_value(0.0312), format_p_value(1.0), format_p_value(9.999e-05)
    ('0.0312', '1.0000', '< 0.0001')
    """
    if p_value < SMALLEST_P_VALUE_SHOWN:
        return "< 0.0001"
    return f"{p_value:.4f}"


def compare(
    result_a: ScoreResult,
    result_b: ScoreResult,
    metric: str | None = None,
    *,
    n_resamples: int = PAIRED_RESAMPLES,
    level: float = 0.95,
    seed: int = 0,
) -> Comparison:
    """Does submission B beat submission A? A paired analysis over the scored users.

    Parameters
    ----------
    result_a, result_b : ScoreResult
        Two submissions scored against the same solution with the same options.
    metric : str, optional
        A measure computed for the result(s), by any name the registry parses;
        default the leaderboard's (first) measure.
    n_resamples : int, default 10000
        Paired bootstrap resamples, and sign-flip patterns when more than
        :data:`EXACT_SIGN_FLIP_MAX_USERS` users differ.
    level : float, default 0.95
    seed : int, default 0

    Returns
    -------
    Comparison

    Raises
    ------
    HostVisibleError
        The results come from different solutions, row orders or options, or the
        measure was not computed for both.

    Notes
    -----
    A measure with ``avg=micro`` is a ratio of sums: the bootstrap resamples users with
    both submissions' numerators and denominators and recomputes the two ratios, and
    the test swaps each user's parts between A and B (:func:`swap_p_value`); wins,
    ties and losses compare each user's own ratios.

    With several targets per row id the statistic is the weighted total over the
    types, and what is drawn, flipped and counted is a session (a row id with all its
    types): :func:`_typed_comparison`.

    ``compare(b, a)`` is exactly ``compare(a, b)`` mirrored: both are computed in one
    canonical order of the pair (the lower value first) and mirrored for the other.

    Examples
    --------
    >>> import pandas as pd, scorer
    >>> solution = pd.DataFrame({"id": list("abc"), "items": ["x", "x", "x"]})
    >>> a = scorer.evaluate(solution, pd.DataFrame({"id": list("abc"), "items": ["y"] * 3}), k=1)
    >>> b = scorer.evaluate(solution, pd.DataFrame({"id": list("abc"), "items": ["x"] * 3}), k=1)
    >>> c = compare(a, b)
    >>> c.difference, c.wins, c.ties, c.losses, c.p_value, c.exact  # 2 of 8 patterns
    (1.0, 3, 0, 0, 0.25, True)
    """
    check_settings(n_resamples, level, seed)
    check_paired(result_a, result_b)
    values_a = result_a.measure_values(metric)
    values_b = result_b.measure_values(metric)
    orientation = _orientation(result_a, values_a, values_b)
    if orientation < 0:
        return _mirrored(_compare(result_b, result_a, values_b, values_a, n_resamples, level, seed))
    comparison = _compare(result_a, result_b, values_a, values_b, n_resamples, level, seed)
    if orientation == 0:  # the same pair both ways: an interval that is its own mirror
        low, high = comparison.low, comparison.high
        return replace(comparison, low=min(low, 0.0 - high), high=max(high, 0.0 - low))
    return comparison


def _orientation(result: ScoreResult, values_a: MeasureValues, values_b: MeasureValues) -> int:
    """1 when (A, B) is the pair's canonical order, -1 when (B, A) is, 0 when the pair
    is the same both ways (each submission's drawn rows are the other's).

    The statistics are computed in the canonical order and mirrored for the other, so
    that ``compare(b, a)`` is exactly ``compare(a, b)`` mirrored: the lower value
    first, then the lexicographically smaller multiset of the rows the bootstrap draws
    (both submissions' side by side), split by split.
    """
    a, b = values_a.means["score"], values_b.means["score"]
    if a != b and not (np.isnan(a) or np.isnan(b)):
        return 1 if a < b else -1
    for rows_a, rows_b in zip(
        _drawn_rows(result, values_a), _drawn_rows(result, values_b), strict=True
    ):
        forward, backward = (
            _sorted_rows(np.hstack(pair)) for pair in ((rows_a, rows_b), (rows_b, rows_a))
        )
        differing = np.flatnonzero(forward != backward)  # row by row: lexicographic
        if len(differing):
            first = differing[0]
            return 1 if forward.flat[first] < backward.flat[first] else -1
    return 0


def _drawn_rows(result: ScoreResult, values: MeasureValues) -> list[np.ndarray]:
    """Per split with a scored row, one submission's rows as the bootstrap draws them:
    a user's value, a user's parts (``avg=micro``) or a session's per-type parts (its
    rows' counts too, which the bootstrap draws with them)."""
    masks = [mask for mask in values.masks().values() if mask.any()]
    if result.by_type is not None:
        return [session_parts(result, values, mask) for mask in masks]
    if values.micro:
        return [values.parts(mask) for mask in masks]
    return [values.values[mask][:, None] for mask in masks]


def _sorted_rows(rows: np.ndarray) -> np.ndarray:
    return rows[np.lexsort(rows.T[::-1])]


def _mirrored(comparison: Comparison) -> Comparison:
    """The comparison of A against B from that of B against A (``0.0 - x``: a zero
    stays +0.0, as the other order computes it)."""
    return replace(
        comparison,
        a=comparison.b,
        b=comparison.a,
        difference=0.0 - comparison.difference,
        low=0.0 - comparison.high,
        high=0.0 - comparison.low,
        wins=comparison.losses,
        losses=comparison.wins,
    )


def _compare(
    result_a: ScoreResult,
    result_b: ScoreResult,
    values_a: MeasureValues,
    values_b: MeasureValues,
    n_resamples: int,
    level: float,
    seed: int,
) -> Comparison:
    """:func:`compare` of B against A in this order."""
    if result_a.by_type is not None:
        return _typed_comparison(result_a, result_b, values_a, values_b, n_resamples, level, seed)
    differences = values_b.values - values_a.values
    paired = MeasureValues(values_a.name, differences, values_a.scored, values_a.split, {})
    strata = {label: v for label, v in paired.strata().items() if len(v)}
    bootstrap_seed, flip_seed = np.random.SeedSequence(seed).spawn(2)
    rng = np.random.Generator(np.random.PCG64(bootstrap_seed))
    flip_rng = np.random.Generator(np.random.PCG64(flip_seed))
    differences = np.concatenate(list(strata.values()))
    if values_a.micro:
        low, high = _micro_interval(values_a, values_b, n_resamples, level, rng)
        scored = values_a.scored
        p_value, exact = swap_p_value(
            values_a.parts(scored), values_b.parts(scored), n_resamples, flip_rng
        )
    else:
        sums = [resampled_sums(v, n_resamples, rng) for v in strata.values()]
        low, high = percentile_interval(np.sum(sums, axis=0) / len(differences), level)
        p_value, exact = sign_flip_p_value(differences, n_resamples, flip_rng)
    a, b = values_a.means["score"], values_b.means["score"]
    return Comparison(
        metric=values_a.name,
        a=a,
        b=b,
        difference=b - a,
        low=low,
        high=high,
        p_value=p_value,
        exact=exact,
        wins=int(np.count_nonzero(differences > 0)),
        ties=int(np.count_nonzero(differences == 0)),
        losses=int(np.count_nonzero(differences < 0)),
        n_resamples=n_resamples,
        level=level,
    )


def _micro_interval(
    values_a: MeasureValues,
    values_b: MeasureValues,
    n_resamples: int,
    level: float,
    rng: np.random.Generator,
) -> tuple[float, float]:
    """The paired bootstrap interval of B - A for ratios of sums: per split, users drawn
    with both submissions' parts, and the two ratios recomputed on each resample."""
    masks = [mask for mask in values_a.masks().values() if mask.any()]
    both = [np.hstack([values_a.parts(mask), values_b.parts(mask)]) for mask in masks]
    total = np.sum([resampled_column_sums(p, n_resamples, rng) for p in both], axis=0)
    differences = ratio_of_sums(total[:, 2], total[:, 3]) - ratio_of_sums(total[:, 0], total[:, 1])
    return percentile_interval(differences, level)


def _typed_comparison(
    result_a: ScoreResult,
    result_b: ScoreResult,
    values_a: MeasureValues,
    values_b: MeasureValues,
    n_resamples: int,
    level: float,
    seed: int,
) -> Comparison:
    """:func:`compare` of weighted totals over target types, session by session.

    The bootstrap draws sessions within each ``Usage`` split with both submissions'
    per-type sums and recomputes both weighted totals (a resample without a row of
    some type has no total and is left out); the test swaps whole sessions between A
    and B (:func:`swap_p_value` with the type weights); a session wins, ties or loses
    by its own weighted total, each type's value the mean (or ratio of sums) of the
    session's rows of that type.
    """
    weights = type_weights(result_a)
    n_types = len(weights)
    bootstrap_seed, flip_seed = np.random.SeedSequence(seed).spawn(2)
    rng = np.random.Generator(np.random.PCG64(bootstrap_seed))
    flip_rng = np.random.Generator(np.random.PCG64(flip_seed))
    sums = []
    for mask in values_a.masks().values():
        if mask.any():
            parts_a = session_parts(result_a, values_a, mask)
            parts_b = session_parts(result_b, values_b, mask)[:, : 2 * n_types]
            sums.append(resampled_column_sums(np.hstack([parts_a, parts_b]), n_resamples, rng))
    total = np.sum(sums, axis=0)
    total = total[complete(total, n_types)]
    differences = weighted_total(total[:, 3 * n_types :], weights) - weighted_total(total, weights)
    low, high = percentile_interval(differences, level) if len(differences) else (np.nan, np.nan)
    scored = values_a.scored
    parts_a = session_parts(result_a, values_a, scored)[:, : 2 * n_types]
    parts_b = session_parts(result_b, values_b, scored)[:, : 2 * n_types]
    p_value, exact = swap_p_value(parts_a, parts_b, n_resamples, flip_rng, weights)
    own = weighted_total(parts_b, weights) - weighted_total(parts_a, weights)
    a, b = values_a.means["score"], values_b.means["score"]
    return Comparison(
        metric=values_a.name,
        a=a,
        b=b,
        difference=b - a,
        low=float(low),
        high=float(high),
        p_value=p_value,
        exact=exact,
        wins=int(np.count_nonzero(own > 0)),
        ties=int(np.count_nonzero(own == 0)),
        losses=int(np.count_nonzero(own < 0)),
        n_resamples=n_resamples,
        level=level,
    )
