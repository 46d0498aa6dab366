"""Measures of graded relevance: nDCG, DCG (float64) and ERR, nERR (exact fractions).

With binary relevance every relevant item has grade 1, so these read the same
shared arrays as the binary measures; the ideal ordering is built from the **full**
ground truth, never from the hits inside the predicted list, unless nDCG is asked for
exactly that (``ideal=hits``, Spotify's RecSys Challenge 2018).

Only credited entries of grade above 0 change a value (a zero gain adds 0.0, a zero
probability multiplies by 1), so every measure here reads them as flat entries
(:meth:`Judgements.entries`), whichever form the judgements take: whole-array passes
over the entries, each user's terms added in rank order.
"""

from __future__ import annotations

import math
from itertools import pairwise

import numpy as np

from scorer.align.judgements import Judgements, by_grade
from scorer.arrays import first_positions
from scorer.errors import HostVisibleError
from scorer.measures.exact_means import Floats, Ratios

# Exact ERR numerators stay int64 while lcm(1..n) * 2**(G*n) is below this.
_INT64_SAFE = 2**62

#: ERR and nERR are exact fractions over lcm(1..n) * 2**(G*n), n the last rank that
#: holds a credited grade (or an ideal one); for a cut-off K past this many ranks that
#: denominator could grow without bound, so they are float64, each user's terms added
#: in rank order (as AP past :data:`~scorer.measures.average_precision.EXACT_MAX_WIDTH`).
#: The switch reads K alone, never the data, so no user's value depends on the others.
ERR_EXACT_MAX_RANKS = 256


#: The discount of rank i: ``log2_i_plus_1`` divides gain_i by log2(i + 1) (the usual
#: DCG); ``log2_i`` by log2(i) from rank 2 on, rank 1 undiscounted (Järvelin and
#: Kekäläinen's first DCG, base 2: rel_1 + Σ_{i≥2} rel_i / log2(i), Spotify's 2018 rules).
DISCOUNTS = ("log2_i_plus_1", "log2_i")


def _discounts(cutoff: int, discount: str = "log2_i_plus_1") -> np.ndarray:
    """The divisor of each rank i = 1..cutoff: log2(i + 1), or log2(max(i, 2)).

    Examples
    --------
    >>> _discounts(4).tolist(), _discounts(4, "log2_i").tolist()
    ([1.0, 1.584962500721156, 2.0, 2.321928094887362], [1.0, 1.0, 1.584962500721156, 2.0])
    """
    ranks = np.arange(1, cutoff + 1, dtype=np.float64)
    return np.log2(ranks + 1.0 if discount == "log2_i_plus_1" else np.maximum(ranks, 2.0))


def _gains(grades: np.ndarray, gain: str) -> np.ndarray:
    gains = grades.astype(np.float64)
    return np.exp2(gains) - 1.0 if gain == "exp" else gains


def _flat_dcg(
    entries: tuple[np.ndarray, np.ndarray, np.ndarray],
    n_users: int,
    discounts: np.ndarray,
    gain: str,
) -> np.ndarray:
    """Σ_i gain_i / log2(i + 1) from entries sorted by user then rank: ``np.add.at``
    adds each user's terms one by one in that order (the zero terms left out add 0.0)."""
    users, ranks, grades = entries
    total = np.zeros(n_users)
    np.add.at(total, users, _gains(grades, gain) / discounts[ranks])
    return total


def _retrieved_dcg(j: Judgements, n_ranks: int, discounts: np.ndarray, gain: str) -> np.ndarray:
    """Each user's DCG over its first ``n_ranks`` ranks (``n_ranks <= j.width``), rank
    by rank in rank order: nDCG's numerator, and DCG itself."""
    return _flat_dcg(j.entries(n_ranks), j.n_users, discounts, gain)


def dcg(j: Judgements, cutoff: int, gain: str = "exp", discount: str = "log2_i_plus_1") -> Floats:
    """DCG@K = Σ_{i<=K} gain_i / log2(i + 1) (or the ``log2_i`` discount), unnormalised
    (nDCG's numerator).

    Examples
    --------
    >>> j = Judgements(np.array([[1, 0, 1]], bool), np.array([4]), k=3)
    >>> float(dcg(j, 3).mean())  # 1 + 1/2
    1.5
    >>> float(dcg(j, 3, discount="log2_i").mean())  # 1 + 1/log2(3)
    1.6309297535714575
    """
    n_ranks = min(cutoff, j.width)
    return Floats(_retrieved_dcg(j, n_ranks, _discounts(n_ranks, discount), gain))


def _hit_entries_by_grade(j: Judgements, n_ranks: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The credited entries within ``n_ranks``, each user's sorted by grade, best first,
    and ranked 0, 1, ... in that order: the ideal ordering of the retrieved relevant items."""
    users, _, grades = j.entries(n_ranks)
    return by_grade(users, grades)


def _binary_ideal(counts: np.ndarray, discounts: np.ndarray) -> np.ndarray:
    """IDCG of ``counts`` ones per user: a table of running sums (a cumulative sum adds
    in rank order), the same operations in the same order as :func:`_flat_dcg`.

    Examples
    --------
    >>> _binary_ideal(np.array([0, 2]), _discounts(2)).tolist()  # 1 + 1/log2(3)
    [0.0, 1.6309297535714575]
    """
    longest = int(counts.max(initial=0))
    table = np.zeros(longest + 1)
    np.cumsum(1.0 / discounts[:longest], out=table[1:])
    return table[counts]


def ndcg(
    j: Judgements,
    cutoff: int,
    gain: str = "exp",
    discount: str = "log2_i_plus_1",
    ideal: str = "truth",
) -> Floats:
    """DCG@K / IDCG@K, IDCG@K from the full ground truth sorted by grade, cut at K
    (``ideal="truth"``), or from the relevant items retrieved within K alone
    (``ideal="hits"``: Spotify's |G ∩ R|); 0 when the IDCG is 0.

    Examples
    --------
    >>> j = Judgements(np.array([[1, 0, 1, 1, 0, 1, 0, 0]], bool), np.array([4]), k=8)
    >>> round(float(ndcg(j, 3).mean()), 12), round(float(ndcg(j, 8).mean()), 12)
    (0.703918089034, 0.89275379077)
    >>> round(float(ndcg(j, 3, ideal="hits").mean()), 12)  # (1 + 1/2) / (1 + 1/log2(3))
    0.919720789148
    """
    n_ranks = min(cutoff, j.width)
    discounts = _discounts(n_ranks, discount)
    dcg = _retrieved_dcg(j, n_ranks, discounts, gain)
    if ideal == "truth":
        best = _truth_ideal(j, cutoff, gain, discount)
    elif j.pair_grades is None:  # the hits within K, ones
        best = _binary_ideal(j.n_hits(n_ranks), discounts)
    else:
        best = _flat_dcg(_hit_entries_by_grade(j, n_ranks), j.n_users, discounts, gain)
    safe = np.where(best > 0, best, 1.0)
    return Floats(np.where(best > 0, dcg / safe, 0.0))


def _truth_ideal(j: Judgements, cutoff: int, gain: str, discount: str) -> np.ndarray:
    """Each user's IDCG@K: the DCG of the full ground truth sorted by grade, cut at K
    (binary: ``min(|R|, K)`` ones)."""
    if j.pair_grades is None:
        ideal_ranks = min(cutoff, int(j.n_relevant.max(initial=0)))
        counts = np.minimum(j.n_relevant, ideal_ranks)
        return _binary_ideal(counts, _discounts(ideal_ranks, discount))
    entries = j.ideal_entries(cutoff)
    ideal_ranks = int(entries[1].max(initial=-1)) + 1
    return _flat_dcg(entries, j.n_users, _discounts(ideal_ranks, discount), gain)


def ideal_dcg(
    j: Judgements, cutoff: int, gain: str = "exp", discount: str = "log2_i_plus_1"
) -> Floats:
    """IDCG@K: the DCG of the ideal ordering of the full ground truth (every judged
    item by grade, best first), cut at K: nDCG's denominator, whatever was ranked.

    Examples
    --------
    >>> j = Judgements(np.array([[1, 0, 1]], bool), np.array([4]), k=3)
    >>> float(ideal_dcg(j, 3).mean())  # 1 + 1/log2(3) + 1/2
    2.1309297535714578
    """
    return Floats(_truth_ideal(j, cutoff, gain, discount))


def _by_ordinal(users: np.ndarray) -> list[np.ndarray]:
    """The positions of every user's 1st entry, then of every 2nd one, ... (users
    sorted): each group holds a user at most once.

    Examples
    --------
    >>> [group.tolist() for group in _by_ordinal(np.array([0, 0, 2, 3, 3, 3]))]
    [[0, 2, 3], [1, 4], [5]]
    """
    if not len(users):
        return []
    ordinal = np.arange(len(users)) - first_positions(users)
    order = np.argsort(ordinal, kind="stable")
    bounds = np.searchsorted(ordinal[order], np.arange(int(ordinal.max()) + 2)).tolist()
    return [order[a:b] for a, b in pairwise(bounds)]


def _err_numerators(
    entries: tuple[np.ndarray, np.ndarray, np.ndarray], n_users: int, max_grade: int, n_ranks: int
) -> tuple[np.ndarray, int]:
    """ERR@n_ranks of each user from its entries, as ``numerator / denominator``.

    With B = 2**G, Pr = (2**g - 1) / B, and L = lcm(1..n), the term of a user's
    t-th entry (0-based), at rank i, is (1/i)·Pr·Π(1 - Pr_s) over the earlier
    entries s (the other ranks have Pr = 0): Pr·Π(1 - Pr_s)·B**(t + 1) is an integer,
    so the term is an integer over the common denominator L·B**n. Numerators are
    int64 while that denominator fits, Python ints otherwise.
    """
    users, ranks, grades = entries
    base = 2**max_grade
    lcm = math.lcm(*range(1, n_ranks + 1))
    denominator = lcm * base**n_ranks
    kind = np.int64 if denominator < _INT64_SAFE else object
    top = int(grades.max(initial=0))
    probability = np.array([2**g - 1 for g in range(top + 1)], dtype=kind)
    numerator = np.zeros(n_users, dtype=kind)
    survive = np.ones(n_users, dtype=kind)
    for ordinal, index in enumerate(_by_ordinal(users)):
        user = users[index]
        hit = probability[grades[index]]
        term = hit * survive[user]  # <= B**(ordinal + 1)
        term *= lcm // (ranks[index] + 1).astype(kind)
        term *= base ** (n_ranks - ordinal - 1)
        numerator[user] += term
        survive[user] *= base - hit
    return numerator, denominator


def _err_floats(
    entries: tuple[np.ndarray, np.ndarray, np.ndarray], n_users: int, max_grade: int
) -> np.ndarray:
    """ERR of each user in float64: its terms Pr·survive/i added in rank order."""
    users, ranks, grades = entries
    probability = np.ldexp(np.exp2(grades.astype(np.float64)) - 1.0, -min(max_grade, 2048))
    value = np.zeros(n_users)
    survive = np.ones(n_users)
    for index in _by_ordinal(users):
        user = users[index]
        value[user] += probability[index] * survive[user] / (ranks[index] + 1)
        survive[user] *= 1.0 - probability[index]
    return value


#: The largest grade ERR's scale may reach (the bound of its ``max_grade`` parameter): grades
#: stop at 30 (exponential gains), and a larger scale would only make every stopping
#: probability vanish at a cost in work.
ERR_MAX_GRADE = 30


def _max_grade(j: Judgements, max_grade: int | None) -> int:
    if max_grade is None:
        return j.max_grade
    if max_grade < j.max_grade:
        raise HostVisibleError(
            f"The 'max_grade' parameter of ERR must be at least the largest grade in the "
            f"solution, {j.max_grade}. Got {max_grade!r} instead."
        )
    return max_grade


def _last_rank(*entries: tuple[np.ndarray, np.ndarray, np.ndarray]) -> int:
    """One past the last rank of any entry (0 without entries)."""
    return max(int(ranks.max(initial=-1)) + 1 for _, ranks, _ in entries)


def err(j: Judgements, cutoff: int, max_grade: int | None = None) -> Ratios | Floats:
    """Expected reciprocal rank, Pr = (2**grade - 1) / 2**G: exact for a cut-off of at
    most :data:`ERR_EXACT_MAX_RANKS`, float64 past it.

    Examples
    --------
    >>> j = Judgements(np.array([[1, 0, 0]], bool), np.array([1]), k=3)
    >>> err(j, 3).exact_mean(), err(j, 3, max_grade=2).exact_mean()
    (Fraction(1, 2), Fraction(1, 4))
    """
    grade_scale = _max_grade(j, max_grade)
    entries = j.entries(min(cutoff, j.width))
    if cutoff > ERR_EXACT_MAX_RANKS:
        return Floats(_err_floats(entries, j.n_users, grade_scale))
    n_ranks = _last_rank(entries)
    numerator, denominator = _err_numerators(entries, j.n_users, grade_scale, n_ranks)
    return Ratios(numerator, np.full(j.n_users, denominator, dtype=numerator.dtype))


def normalized_err(j: Judgements, cutoff: int, max_grade: int | None = None) -> Ratios | Floats:
    """ERR@K / ERR@K of the ideal ordering of the full ground truth (0 when that is 0).

    Examples
    --------
    >>> j = Judgements(np.array([[0, 1, 0]], bool), np.array([2]), k=3)
    >>> normalized_err(j, 3).exact_mean()  # (1/2·1/2) / (1/2 + 1/2·1/2·1/2)
    Fraction(2, 5)
    """
    grade_scale = _max_grade(j, max_grade)
    entries = j.entries(min(cutoff, j.width))
    ideal_entries = j.ideal_entries(cutoff)
    if cutoff > ERR_EXACT_MAX_RANKS:
        value = _err_floats(entries, j.n_users, grade_scale)
        ideal = _err_floats(ideal_entries, j.n_users, grade_scale)
        safe = np.where(ideal > 0, ideal, 1.0)
        return Floats(np.where(ideal > 0, value / safe, 0.0))
    n_ranks = _last_rank(entries, ideal_entries)
    numerator, _ = _err_numerators(entries, j.n_users, grade_scale, n_ranks)
    ideal, _ = _err_numerators(ideal_entries, j.n_users, grade_scale, n_ranks)
    return Ratios(numerator, ideal)
