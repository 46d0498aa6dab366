"""A deliberately slow, obviously correct MAP@K: the definition of AP@K
(docs/getting-started.md#what-it-computes) read literally, in Fractions.

Nothing here is shared with the package: the point is an independent second opinion.
"""

from __future__ import annotations

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
