"""Measures of graded relevance: nDCG (float64) and ERR, nERR (exact fractions).

With binary relevance every relevant item has grade 1, so these read the same
shared arrays as the binary measures; the ideal ordering is built from the **full**
ground truth, never from the hits inside the predicted list.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from scorer.errors import HostVisibleError
from scorer.measures.arrays import Judgements
from scorer.metrics import Floats, Ratios

# Exact ERR numerators stay int64 while lcm(1..K) * 2**(G*K) is below this.
_INT64_SAFE = 2**62


def _discounts(cutoff: int) -> np.ndarray:
    """log2(i + 1) for ranks i = 1..cutoff."""
    return np.log2(np.arange(2, cutoff + 2, dtype=np.float64))


def _dcg(columns: Iterable[np.ndarray], discounts: np.ndarray, gain: str) -> np.ndarray:
    """Σ_i gain_i / log2(i + 1), summed rank by rank in rank order (a fixed order)."""
    total = np.zeros(0)
    for rank, grades in enumerate(columns):
        gains = grades.astype(np.float64)
        if gain == "exp":
            gains = np.exp2(gains) - 1.0
        total = total + gains / discounts[rank] if rank else gains / discounts[rank]
    return total


def ndcg(j: Judgements, cutoff: int, gain: str = "exp") -> Floats:
    """DCG@K / IDCG@K, IDCG@K from the full ground truth sorted by grade, cut at K.

    Examples
    --------
    >>> j = Judgements(np.array([[1, 0, 1, 1, 0, 1, 0, 0]], bool), np.array([4]), k=8)
    >>> round(float(ndcg(j, 3).mean()), 12), round(float(ndcg(j, 8).mean()), 12)
    (0.703918089034, 0.89275379077)
    """
    discounts = _discounts(cutoff)
    ranks = range(min(cutoff, j.width))
    dcg = _dcg((j.grade_column(r) for r in ranks), discounts, gain)
    if not len(dcg):
        dcg = np.zeros(j.n_users)
    if j.pair_grades is None:  # binary: the ideal is min(|R|, K) ones, from a table
        table = np.zeros(cutoff + 1)
        for rank in range(cutoff):  # the same operations, in the same order, as _dcg
            table[rank + 1] = table[rank] + 1.0 / discounts[rank]
        ideal = table[np.minimum(j.n_relevant, cutoff)]
    else:
        grades = j.ideal_grades(cutoff)
        ideal = _dcg((grades[:, r] for r in range(cutoff)), discounts, gain)
    safe = np.where(ideal > 0, ideal, 1.0)
    return Floats(np.where(ideal > 0, dcg / safe, 0.0))


def _err_numerators(
    columns: Iterable[np.ndarray], n_users: int, max_grade: int, n_ranks: int
) -> tuple[np.ndarray, int]:
    """ERR@n_ranks of each user from its grades by rank, as ``numerator / denominator``.

    With B = 2**G, Pr_i = (2**g_i - 1) / B, and L = lcm(1..n), every term
    (1/i)·Pr_i·Π_{j<i}(1 - Pr_j) is an integer over the common denominator L·B**n.
    Numerators are int64 while that denominator fits, Python ints otherwise.
    """
    base = 2**max_grade
    lcm = math.lcm(*range(1, n_ranks + 1))
    denominator = lcm * base**n_ranks
    kind = np.int64 if denominator < _INT64_SAFE else object
    probability = np.array([2**g - 1 for g in range(max_grade + 1)], dtype=kind)
    numerator = np.zeros(n_users, dtype=kind)
    survive = np.ones(n_users, dtype=kind)
    for rank, grades in enumerate(columns):
        hit = probability[grades]
        term = hit * survive  # <= B**(rank + 1)
        term *= lcm // (rank + 1)
        term *= base ** (n_ranks - rank - 1)
        numerator += term
        survive *= base - hit
    return numerator, denominator


def _max_grade(j: Judgements, max_grade: int | None) -> int:
    if max_grade is None:
        return j.max_grade
    if max_grade < j.max_grade:
        raise HostVisibleError(
            f"The 'max_grade' parameter of ERR must be at least the largest grade in the "
            f"solution, {j.max_grade}. Got {max_grade!r} instead."
        )
    return max_grade


def err(j: Judgements, cutoff: int, max_grade: int | None = None) -> Ratios:
    """Expected reciprocal rank, Pr = (2**grade - 1) / 2**G, exact.

    Examples
    --------
    >>> j = Judgements(np.array([[1, 0, 0]], bool), np.array([1]), k=3)
    >>> err(j, 3).exact_mean(), err(j, 3, max_grade=2).exact_mean()
    (Fraction(1, 2), Fraction(1, 4))
    """
    grade_scale = _max_grade(j, max_grade)
    n_ranks = min(cutoff, j.width)
    columns = (j.grade_column(r) for r in range(n_ranks))
    numerator, denominator = _err_numerators(columns, j.n_users, grade_scale, n_ranks)
    return Ratios(numerator, np.full(j.n_users, denominator, dtype=numerator.dtype))


def normalized_err(j: Judgements, cutoff: int, max_grade: int | None = None) -> Ratios:
    """ERR@K / ERR@K of the ideal ordering of the full ground truth (0 when that is 0).

    Examples
    --------
    >>> j = Judgements(np.array([[0, 1, 0]], bool), np.array([2]), k=3)
    >>> normalized_err(j, 3).exact_mean()  # (1/2·1/2) / (1/2 + 1/2·1/2·1/2)
    Fraction(2, 5)
    """
    grade_scale = _max_grade(j, max_grade)
    columns = (j.grade_column(r) for r in range(min(cutoff, j.width)))
    numerator, _ = _err_numerators(columns, j.n_users, grade_scale, cutoff)
    if j.pair_grades is None:  # binary: the ideal depends on min(|R|, K) only
        ones = np.tril(np.ones((cutoff + 1, cutoff), dtype=np.intp), -1)
        table, _ = _err_numerators(ones.T, cutoff + 1, grade_scale, cutoff)
        ideal = table[np.minimum(j.n_relevant, cutoff)]
    else:
        grades = j.ideal_grades(cutoff).astype(np.intp)
        ideal, _ = _err_numerators(grades.T, j.n_users, grade_scale, cutoff)
    return Ratios(numerator, ideal)
