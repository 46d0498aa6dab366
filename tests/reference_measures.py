"""Deliberately slow, obviously correct measures: the definitions of docs/measures.md#measures read
literally, per user,
in Fractions (nDCG in floats). Nothing here is shared with the package."""

from __future__ import annotations

import math
from fractions import Fraction


def judged(predictions: list[str], grades: dict[str, int], k: int) -> list[int]:
    """The grade earned at each rank up to K: 0 for a repeat or an unjudged item."""
    earned = []
    for i, item in enumerate(predictions[:k]):
        earned.append(grades.get(item, 0) if item not in predictions[:i] else 0)
    return earned


def reference_value(
    name: str,
    cutoff: int,
    params: dict,
    predictions: list[str],
    grades: dict[str, int],
    threshold: int = 1,
    solution_max_grade: int = 1,
) -> Fraction | float:
    """One user's value of one measure (ERR's default G: the solution's largest grade)."""
    relevant = {item for item, grade in grades.items() if grade >= threshold}
    n_relevant = len(relevant)
    earned = judged(predictions, grades, cutoff)
    rel = [1 if g >= threshold else 0 for g in earned]
    hits = sum(rel)
    if name == "MAP":
        total = sum(
            (Fraction(sum(rel[: i + 1]), i + 1) for i in range(len(rel)) if rel[i]),
            start=Fraction(0),
        )
        denominator = {"min_k": min(n_relevant, cutoff), "relevant": n_relevant, "hits": hits}[
            params.get("norm", "min_k")
        ]
        return total / denominator if denominator else Fraction(0)
    if name == "P":
        return Fraction(hits, cutoff)
    if name == "R":
        denominator = (
            n_relevant if params.get("norm", "relevant") == "relevant" else min(n_relevant, cutoff)
        )
        return Fraction(hits, denominator) if denominator else Fraction(0)
    if name == "F1":
        p = Fraction(hits, cutoff)
        r = Fraction(hits, n_relevant) if n_relevant else Fraction(0)
        return 2 * p * r / (p + r) if p + r else Fraction(0)
    if name == "MRR":
        return next((Fraction(1, i + 1) for i, r in enumerate(rel) if r), Fraction(0))
    if name == "HitRate":
        return Fraction(1 if hits else 0)
    if name == "RPrec":
        within = judged(predictions, grades, n_relevant)
        found = sum(1 for g in within if g >= threshold)
        return Fraction(found, n_relevant) if n_relevant else Fraction(0)
    if name == "nDCG":
        dcg = discounted_gain(earned, params)
        if params.get("ideal", "truth") == "hits":  # the retrieved relevant items, best first
            ideal_grades = sorted((g for g in earned if g > 0), reverse=True)
        else:
            ideal_grades = sorted(grades.values(), reverse=True)[:cutoff]
        ideal = discounted_gain(ideal_grades, params)
        return dcg / ideal if ideal > 0 else 0.0
    if name in ("ERR", "nERR"):
        top = params.get("max_grade")
        top = solution_max_grade if top is None else top

        def err(ranked: list[int]) -> Fraction:
            total, survive = Fraction(0), Fraction(1)
            for i, g in enumerate(ranked):
                pr = Fraction(2**g - 1, 2**top)
                total += Fraction(1, i + 1) * pr * survive
                survive *= 1 - pr
            return total

        value = err(earned)
        if name == "ERR":
            return value
        ideal = err(sorted(grades.values(), reverse=True)[:cutoff])
        return value / ideal if ideal else Fraction(0)
    if name == "DCG":
        return discounted_gain(earned, params)
    if name == "AUC":
        return reference_auc(predictions, grades, threshold)
    if name in MICRO:
        numerator, denominator = reference_parts(name, cutoff, params, predictions, relevant)
        return numerator / denominator if denominator else Fraction(0)
    raise ValueError(name)


def discounted_gain(ranked: list[int], params: dict) -> float:
    """Σ gain(g_i) / discount(i) over the 1-based ranks i: log2(i + 1), or with
    ``discount=log2_i`` 1 at rank 1 and log2(i) after (rel_1 + Σ_{i≥2} rel_i / log2 i)."""
    linear = params.get("gain", "exp") == "linear"
    total = 0.0
    for i, g in enumerate(ranked, start=1):
        gain = g if linear else 2**g - 1
        if params.get("discount", "log2_i_plus_1") == "log2_i":
            total += gain if i == 1 else gain / math.log2(i)
        else:
            total += gain / math.log2(i + 1)
    return total


def reference_auc(predictions: list[str], grades: dict[str, int], threshold: int = 1) -> Fraction:
    """MIND's AUC read literally: every (relevant, judged non-relevant) pair, 1 when the
    relevant item ranks first, 1/2 when neither is ranked, 0 otherwise; 0 without a
    relevant item, 1 without a non-relevant one."""
    place = {}
    for i, item in enumerate(predictions):
        place.setdefault(item, i)  # the first occurrence
    unranked = len(predictions)  # after every ranked item, tied with each other
    relevant = [item for item, grade in grades.items() if grade >= threshold]
    others = [item for item, grade in grades.items() if grade < threshold]
    if not relevant:
        return Fraction(0)
    if not others:
        return Fraction(1)
    total = Fraction(0)
    for p in relevant:
        for n in others:
            mine, theirs = place.get(p, unranked), place.get(n, unranked)
            total += 1 if mine < theirs else Fraction(1, 2) if mine == theirs else 0
    return total / (len(relevant) * len(others))


#: Families with ``avg=micro``: their per-row value is a ratio of these natural parts.
MICRO = ("P", "R", "F1", "HitRate", "RPrec", "SetP", "SetR", "SetF", "Jaccard")


def reference_parts(
    name: str, cutoff: int, params: dict, predictions: list[str], relevant: set[str]
) -> tuple[Fraction, Fraction]:
    """One row's numerator and denominator of a measure with ``avg=micro`` (summed over
    rows for the micro mean), each read from its definition."""
    submitted = set(predictions[:cutoff])  # the first K as a set: repeats count once
    found = len(submitted & relevant)
    if name == "P":
        return Fraction(found), Fraction(cutoff)
    if name == "R":
        norm = params.get("norm", "relevant")
        return Fraction(found), Fraction(
            len(relevant) if norm == "relevant" else min(len(relevant), cutoff)
        )
    if name == "F1":
        return Fraction(2 * found), Fraction(cutoff + len(relevant))
    if name == "HitRate":
        return Fraction(1 if found else 0), Fraction(1)
    if name == "RPrec":
        within = set(predictions[: len(relevant)])
        return Fraction(len(within & relevant)), Fraction(len(relevant))
    if name == "SetP":
        return Fraction(found), Fraction(len(submitted))
    if name == "SetR":
        return Fraction(found), Fraction(len(relevant))
    if name == "SetF":
        square = Fraction(str(params.get("beta", 1))) ** 2
        return (1 + square) * found, square * len(relevant) + len(submitted)
    if name == "Jaccard":
        return Fraction(found), Fraction(len(submitted | relevant))
    raise ValueError(name)
