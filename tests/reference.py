"""Deliberately slow, obviously correct references, in Fractions: MAP@K (the definition
of AP@K, docs/getting-started.md#what-it-computes, read literally), and the exact
bootstrap distribution of a mean and sign-flip p-value (every resample, every sign).

Nothing here is shared with the package: the point is an independent second opinion.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction


def reference_ap(
    predictions: list[str], relevant: set[str], k: int, normalization: str = "min_k"
) -> Fraction:
    """AP@K of one user, exactly."""
    hits = 0
    total = Fraction(0)
    for i, item in enumerate(predictions[:k], start=1):
        earlier = predictions[: i - 1]
        rel = 1 if item in relevant and item not in earlier else 0
        hits += rel
        total += Fraction(hits, i) * rel
    denominator = {
        "min_k": min(len(relevant), k),
        "relevant": len(relevant),
        "hits": hits,
    }[normalization]
    return total / denominator if denominator else Fraction(0)


def reference_scores(
    solution: dict[str, str],
    submission: dict[str, str],
    k: int,
    *,
    normalization: str = "min_k",
    empty_ground_truth: str = "skip",
    usage: dict[str, str] | None = None,
) -> dict[str, Fraction | None]:
    """Overall, Public and Private MAP@K from ``row id -> space-separated items`` maps."""
    values: dict[str, list[Fraction]] = {"overall": [], "Public": [], "Private": []}
    for row_id, truth in solution.items():
        split = usage[row_id] if usage else None
        if split == "Ignored":
            continue
        relevant = set(truth.split())
        if not relevant and empty_ground_truth == "skip":
            continue
        ap = reference_ap(submission[row_id].split(), relevant, k, normalization)
        values["overall"].append(ap)
        if split:
            values[split].append(ap)
    return {
        name: (sum(aps, Fraction(0)) / len(aps) if aps else None) for name, aps in values.items()
    }


# The final leaderboard's statistics, from their definitions (docs/leaderboard.md).


def reference_ranks(values: dict[str, Fraction]) -> dict[str, int]:
    """Competition ranks: one plus the number of strictly larger values."""
    return {
        name: 1 + sum(other > value for other in values.values()) for name, value in values.items()
    }


def reference_sign_flip_p(differences: list[Fraction]) -> Fraction:
    """The two-sided paired sign-flip test, exactly: the share of all 2^n sign patterns
    of the n users whose |sum of signed differences| is at least the real one."""
    from itertools import product

    observed = abs(sum(differences, Fraction(0)))
    patterns = list(product((1, -1), repeat=len(differences)))
    extreme = sum(
        abs(sum((s * d for s, d in zip(signs, differences, strict=True)), Fraction(0))) >= observed
        for signs in patterns
    )
    return Fraction(extreme, len(patterns))


def reference_holm(p_values: dict[tuple[str, str], Fraction], alpha: Fraction) -> set:
    """Holm's step-down procedure: test the smallest p-value at alpha / m, the next at
    alpha / (m - 1), ..., and stop at the first that is not rejected."""
    ordered = sorted(p_values, key=p_values.__getitem__)
    rejected = set()
    for i, pair in enumerate(ordered):
        if p_values[pair] > alpha / (len(ordered) - i):
            break
        rejected.add(pair)
    return rejected


def reference_tiers(values: dict[str, Fraction], rejected: set) -> dict[str, int]:
    """Tier 1: every entry not significantly worse than any of the best; then the same
    among those left."""

    def worse(a: str, b: str) -> bool:
        return ((a, b) in rejected or (b, a) in rejected) and values[a] < values[b]

    tiers: dict[str, int] = {}
    tier = 0
    while len(tiers) < len(values):
        tier += 1
        left = [name for name in values if name not in tiers]
        top = max(values[name] for name in left)
        best = [name for name in left if values[name] == top]
        for name in left:
            if not any(worse(name, leader) for leader in best):
                tiers[name] = tier
    return tiers


def inverted_cdf(distribution: dict[Fraction, Fraction], share: Fraction):
    """The smallest value whose CDF reaches ``share``, and how far the CDF steps are
    from ``share`` (the room a Monte-Carlo estimate has to land on the same value)."""
    cumulative = Fraction(0)
    for value in sorted(distribution):
        before = cumulative
        cumulative += distribution[value]
        if cumulative >= share:
            return value, min(share - before, cumulative - share)
    raise AssertionError("shares are at most 1")


def mean_distribution(values: list[Fraction]) -> dict[Fraction, Fraction]:
    """The exact bootstrap distribution of the mean: all n^n resamples."""
    n = len(values)
    counts: dict[Fraction, int] = {}
    for draw in itertools.product(values, repeat=n):
        mean = sum(draw, Fraction(0)) / n
        counts[mean] = counts.get(mean, 0) + 1
    return {value: Fraction(c, n**n) for value, c in counts.items()}


def brute_force_p(differences: list[Fraction]) -> Fraction:
    """Every sign pattern, in exact integers (the differences over a common denominator)."""
    scale = math.lcm(*(d.denominator for d in differences)) if differences else 1
    integers = [int(d * scale) for d in differences]
    observed = abs(sum(integers))
    extreme = sum(
        abs(sum(s * d for s, d in zip(signs, integers, strict=True))) >= observed
        for signs in itertools.product((1, -1), repeat=len(integers))
    )
    return Fraction(extreme, 2 ** len(integers))
