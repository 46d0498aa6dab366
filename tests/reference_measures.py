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
    if name in TREC_REFERENCES:
        return TREC_REFERENCES[name](
            trec_levels(predictions[:cutoff], grades), grades, threshold, cutoff, params
        )
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
    if name == "MRR" and params.get("ranks") == "all":  # MIND's mrr_score
        total = sum((Fraction(1, i + 1) for i, r in enumerate(rel) if r), Fraction(0))
        return total / n_relevant if n_relevant else Fraction(0)
    if name == "MRR":
        return next((Fraction(1, i + 1) for i, r in enumerate(rel) if r), Fraction(0))
    if name == "HitRate":
        return Fraction(1 if hits else 0)
    if name == "RPrec":
        depth = math.trunc(float(Fraction(params.get("mult", "1"))) * n_relevant + 0.9)
        depth = n_relevant if Fraction(params.get("mult", "1")) == 1 else depth
        within = judged(predictions, grades, depth)
        found = sum(1 for g in within if g >= threshold)
        return Fraction(found, depth) if depth else Fraction(0)
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
    if name == "IDCG":  # nDCG's ideal, whatever is ranked
        return discounted_gain(sorted(grades.values(), reverse=True)[:cutoff], params)
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
    if name == "SetP" and params.get("norm") == "min":  # trec_eval's set_relative_P
        return Fraction(found), Fraction(min(len(submitted), len(relevant)))
    if name == "SetP":
        return Fraction(found), Fraction(len(submitted))
    if name == "SetR":
        return Fraction(found), Fraction(len(relevant))
    if name == "SetF":
        square = Fraction(str(params.get("beta", 1))) ** 2
        square = Fraction(params["beta2"]) if "beta2" in params else square
        return (1 + square) * found, square * len(relevant) + len(submitted)
    if name == "Jaccard":
        return Fraction(found), Fraction(len(submitted | relevant))
    raise ValueError(name)


# trec_eval's measures, read from its m_*.c: each ranking as trec_eval's list of
# relevance values by rank (the grade of a judged item, -1 for one not judged), a
# repeated item a rank that is no document (None: trec_eval refuses repeats).


def trec_levels(predictions: list[str], grades: dict[str, int]) -> list[int | None]:
    """Each rank's relevance value: the grade, -1 when not judged, None for a repeat."""
    levels: list[int | None] = []
    for i, item in enumerate(predictions):
        levels.append(None if item in predictions[:i] else grades.get(item, -1))
    return levels


def lround(value: float) -> int:
    """C's lround of a non-negative double: halves away from zero, exactly."""
    return math.floor(Fraction(value) + Fraction(1, 2))


def _bpref(levels, grades, threshold, cutoff, params):
    n_relevant = sum(1 for g in grades.values() if g >= threshold)
    n_judged = sum(1 for g in grades.values() if g < threshold)
    total, non_relevant = Fraction(0), 0
    for level in levels:
        if level is None or level < 0:
            continue
        if level < threshold:
            non_relevant += 1
        elif non_relevant:
            total += 1 - Fraction(min(non_relevant, n_relevant), min(n_judged, n_relevant))
        else:
            total += 1
    return total / n_relevant if n_relevant else Fraction(0)


def _infap(levels, grades, threshold, cutoff, params):
    n_relevant = sum(1 for g in grades.values() if g >= threshold)
    total, found, non_relevant, epsilon = 0.0, 0, 0, 0.00001
    for j, level in enumerate(levels):
        if level is None or level < 0:
            continue
        if level < threshold:
            non_relevant += 1
            continue
        found += 1
        if j == 0:
            total += 1.0
        else:
            fj = float(j)
            total += 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * ((found - 1 + non_relevant) / fj) * (
                (found - 1 + epsilon) / (found - 1 + non_relevant + 2 * epsilon)
            )
    return total / n_relevant if n_relevant else total


def _iprec_at(levels, grades, threshold, recall: Fraction) -> Fraction:
    """iprec_at_recall's loop: from the last rank up, the best precision so far."""
    n_relevant = sum(1 for g in grades.values() if g >= threshold)
    hits = [i for i, level in enumerate(levels) if level is not None and level >= threshold]
    needed = lround(float(recall) * n_relevant)
    if needed > len(hits) or not hits:
        return Fraction(0)
    best = Fraction(len(hits), len(levels))
    for place in range(len(hits), max(needed, 1) - 1, -1):
        best = max(best, Fraction(place, hits[place - 1] + 1))
    return best


def _iprec(levels, grades, threshold, cutoff, params):
    return _iprec_at(levels, grades, threshold, Fraction(params["recall"]))


def _iprec_mean(levels, grades, threshold, cutoff, params):
    points = [_iprec_at(levels, grades, threshold, Fraction(n, 10)) for n in range(11)]
    return sum(points, Fraction(0)) / 11


def _bing(levels, grades, threshold, cutoff, params):
    n_relevant = sum(1 for g in grades.values() if g >= threshold)
    total, found = 0.0, 0
    for i, level in enumerate(levels):
        if level is not None and level >= threshold:
            found += 1
            total += 1.0 / math.log2(3 + i - found)
    return total / n_relevant if found else 0.0


def _gains(levels):
    return [0 if level is None or level < 0 else level for level in levels]


def _ideal(grades):
    return sorted((g for g in grades.values() if g > 0), reverse=True)


def _g(levels, grades, threshold, cutoff, params):
    ideal = _ideal(grades)
    total, earned, cost = 0.0, 0.0, 0.0
    for i, gain in enumerate(_gains(levels)):
        earned += gain
        cost += max(ideal[i] if i < len(ideal) else 0, 1)
        if gain:
            total += gain / math.log2(2 + cost - earned)
    return total / sum(ideal) if sum(ideal) > 0 else 0.0


def _dcg_prefix(gains: list[int], n: int) -> float:
    """DCG over the first n ranks, each gain above 0 added in rank order."""
    total = 0.0
    for i, gain in enumerate(gains[:n]):
        if gain:
            total += gain / math.log2(i + 2)
    return total


def _ndcg_rel(levels, grades, threshold, cutoff, params):
    gains, ideal = _gains(levels), _ideal(grades)
    total, found = 0.0, 0
    for i, gain in enumerate(gains):
        if gain > 0:
            found += 1
            total += _dcg_prefix(gains, i + 1) / _dcg_prefix(ideal, min(i, len(ideal) - 1) + 1)
    if ideal:
        total += (
            (len(ideal) - found) * _dcg_prefix(gains, len(gains)) / _dcg_prefix(ideal, len(ideal))
        )
    return total / len(ideal) if total > 0 else 0.0


def _rndcg(levels, grades, threshold, cutoff, params):
    if not any(g >= threshold for g in grades.values()):
        return 0.0
    gains, ideal = _gains(levels), _ideal(grades)
    retrieved = sum(1 for level in levels if level is not None)  # trec_eval's num_ret
    points = [b for b in range(1, len(ideal) + 1) if b == len(ideal) or ideal[b] != ideal[b - 1]]
    values = [_dcg_prefix(gains, b) / _dcg_prefix(ideal, b) for b in points]
    if retrieved > len(ideal) + 1:
        values.append(_dcg_prefix(gains, len(gains)) / _dcg_prefix(ideal, len(ideal)))
    total = 0.0
    for value in values:
        total += value
    return total / len(values)


def _yaap(levels, grades, threshold, cutoff, params):
    n_relevant = sum(1 for g in grades.values() if g >= threshold)
    total, found = 0.0, 0
    for i, level in enumerate(levels):
        if level is not None and level >= threshold:
            found += 1
            total += found / (i + 1)
    return math.log((1.0 + total) / (1.0 + n_relevant - total))


def _rbp(levels, grades, threshold, cutoff, params):
    p = float(Fraction(params.get("p", "0.9")))
    top = max(1, max(grades.values(), default=0))
    total, weight = 0.0, 1.0
    for level in levels:
        if params.get("gain") == "binary":
            gain = 1.0 if level is not None and level >= threshold else 0.0
        else:
            gain = 0.0 if level is None or level < 0 else level / top
        if gain:
            total += gain * weight
        weight *= p
    return (1.0 - p) * total


def _rbp_residual(levels, grades, threshold, cutoff, params):
    """With n the distinct items ranked (a repeat adds no document)."""
    p = float(Fraction(params.get("p", "0.9")))
    total, unjudged = 0.0, 0
    powers = [1.0]
    for _ in levels:
        powers.append(powers[-1] * p)
    for i, level in enumerate(levels):
        if level == -1:
            unjudged += 1
            total += powers[i]
    distinct = sum(1 for level in levels if level is not None)
    return powers[distinct] + (1 - p) * total if unjudged else 0.0


def _unjudged(levels, grades, threshold, cutoff, params):
    return Fraction(sum(1 for level in levels[:cutoff] if level == -1), cutoff)


def _judged(levels, grades, threshold, cutoff, params):
    shown = [level for level in levels[:cutoff] if level is not None]
    return Fraction(sum(1 for level in shown if level >= 0), len(shown)) if shown else Fraction(0)


def _utility(levels, grades, threshold, cutoff, params):
    a, b, c, d = (
        Fraction(params.get(x, default))
        for x, default in zip("abcd", ["1", "-1", "0", "0"], strict=True)
    )
    n_relevant = sum(1 for g in grades.values() if g >= threshold)
    retrieved = sum(1 for level in levels if level is not None)
    found = sum(1 for level in levels if level is not None and level >= threshold)
    return (
        a * found
        + b * (retrieved - found)
        + c * (n_relevant - found)
        + d * (found - retrieved - n_relevant)
    )


def _set_ap(levels, grades, threshold, cutoff, params):
    n_relevant = sum(1 for g in grades.values() if g >= threshold)
    retrieved = sum(1 for level in levels if level is not None)
    found = sum(1 for level in levels if level is not None and level >= threshold)
    return (
        Fraction(found * found, retrieved * n_relevant) if retrieved and n_relevant else Fraction(0)
    )


def _count(kind: str):
    def count(levels, grades, threshold, cutoff, params):
        shown = [level for level in levels if level is not None]
        return Fraction(
            {
                "q": 1,
                "ret": len(shown),
                "rel": sum(1 for g in grades.values() if g >= threshold),
                "rel_ret": sum(1 for level in shown if level >= threshold),
                "nonrel_ret": sum(1 for level in shown if 0 <= level < threshold),
            }[kind]
        )

    return count


TREC_REFERENCES = {
    "Bpref": _bpref,
    "infAP": _infap,
    "IPrec": _iprec,
    "IPrecAvg": _iprec_mean,
    "BinG": _bing,
    "G": _g,
    "nDCGRel": _ndcg_rel,
    "RnDCG": _rndcg,
    "RBP": _rbp,
    "YAAP": _yaap,
    "RBPResidual": _rbp_residual,
    "Unjudged": _unjudged,
    "Judged": _judged,
    "Utility": _utility,
    "SetAP": _set_ap,
    "NumQ": _count("q"),
    "NumRet": _count("ret"),
    "NumRel": _count("rel"),
    "NumRelRet": _count("rel_ret"),
    "NumNonRelJudgedRet": _count("nonrel_ret"),
}
