"""Global average precision (GAP, micro AP): one scored prediction per row, ranked
across the whole test set.

Every row with a prediction (one label and its confidence) takes a place in one global
order: confidence descending, ties by row id ascending in byte order, so no bit of the
value depends on the rows' order. With ``rel(i)`` whether the i-th prediction's label
is in its row's truth and ``P(i)`` the precision of the first ``i`` predictions,

    GAP = (1/M) Σ_i P(i)·rel(i),

``M`` the rows with a non-empty truth among those counted. A prediction on a row whose
truth is empty is a false positive: it takes a place and lowers every later ``P(i)``.
A row without a prediction adds nothing to the sum and still counts in ``M``.

GAP is a whole-data measure, not a mean of per-row values: over a group of rows (a
split, a resample) it is recomputed within that group, in the global order restricted
to it. The value is the correctly rounded float of the exact rational
(:func:`rounded_sum_of_quotients`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from scorer.align.judgements import Judgements
from scorer.errors import HostVisibleError
from scorer.measures.exact_means import SplitMeans

NOT_A_MEAN = (
    "GAP ranks every row's prediction against every other row's, so it is no sum of per-row parts: "
)


@dataclass(frozen=True)
class GlobalPrecision:
    """The judged predictions of a GAP run, from which GAP over any group of rows follows.

    Attributes
    ----------
    order : ndarray of int64
        The rows with a prediction, in the global order (confidence descending, then
        row id ascending in byte order).
    hit : ndarray of bool, shape (n_rows,)
        Whether each row's predicted label is in its truth (False without a prediction).
    has_truth : ndarray of bool, shape (n_rows,)
        Whether each row's truth is non-empty (the rows ``M`` counts).

    Examples
    --------
    >>> gap = GlobalPrecision(np.array([2, 0, 1]), np.array([False, True, True]),
    ...                       np.array([True, True, True]))
    >>> gap.exact_mean()  # places 1 (row 2, hit), 2 (row 0), 3 (row 1, hit): (1 + 2/3) / 3
    Fraction(5, 9)
    >>> gap.mean(np.array([True, True, False]))  # rows 0, 1 only: (1/2) / 2
    0.25
    """

    order: np.ndarray
    hit: np.ndarray
    has_truth: np.ndarray

    exact = True

    def _terms(self, chosen: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
        """The hits' running counts and 1-based places in the order restricted to
        ``chosen``, and ``M`` there."""
        kept = self.order[chosen[self.order]]
        hits = self.hit[kept]
        places = np.flatnonzero(hits).astype(np.int64) + 1
        running = np.arange(1, len(places) + 1, dtype=np.int64)
        return running, places, int(np.count_nonzero(self.has_truth & chosen))

    def exact_mean(self, mask: np.ndarray | None = None) -> Fraction:
        """The exact GAP over the rows where ``mask`` holds (0 when ``M`` is 0).

        A sum of Fractions: for tests and small data; :meth:`mean` is the fast path."""
        running, places, m = self._terms(_chosen(len(self.hit), mask))
        if not m:
            return Fraction(0)
        total = sum(
            (Fraction(c, p) for c, p in zip(running.tolist(), places.tolist(), strict=True)),
            Fraction(0),
        )
        return total / m

    def mean(self, mask: np.ndarray | None = None) -> float:
        """GAP over the rows where ``mask`` holds, correctly rounded (0.0 when ``M`` is 0)."""
        running, places, m = self._terms(_chosen(len(self.hit), mask))
        return rounded_sum_of_quotients(running, places, m) if m else 0.0

    def values(self) -> np.ndarray:
        """Each row's term ``P(i)·rel(i)`` in the global order of every row (0 without a
        hit): GAP over all rows is their sum divided by ``M``, not their mean."""
        running, places, _ = self._terms(np.ones(len(self.hit), dtype=bool))
        terms = np.zeros(len(self.hit), dtype=np.float64)
        terms[self.order[places - 1]] = running / places
        return terms

    def split_means(self, labels: np.ndarray, n_labels: int) -> SplitMeans:
        """GAP within each label's rows, and over every labelled row (label
        ``n_labels``: not counted); ``None`` for a label without rows.

        Examples
        --------
        >>> gap = GlobalPrecision(np.array([0, 1, 2]), np.array([True, False, True]),
        ...                       np.array([True, True, True]))
        >>> gap.split_means(np.array([0, 1, 1]), 2)  # (1 + 2/3) / 3; 1/1; (1/2) / 2
        SplitMeans(overall=0.5555555555555556, by_label=(1.0, 0.25))
        """
        labelled = labels < n_labels
        by_label = tuple(
            self.mean(labels == label) if np.any(labels == label) else None
            for label in range(n_labels)
        )
        return SplitMeans(self.mean(labelled) if labelled.any() else None, by_label)

    def resampled_means(self, weights: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """GAP of each row of ``weights`` (resamples x rows: how often each row is
        drawn) over the rows where ``rows`` holds (default all), in float64: a row drawn
        ``w`` times is ``w`` equal predictions side by side in the global order, so a
        hit adds Σ_{j=1..w} (H + j) / (N + j), ``H`` and ``N`` the hits and predictions
        before it. One pass per draw count up to the largest (about ten for a million
        rows) over the drawn hits only, never a pass per row or resample.

        Examples
        --------
        >>> gap = GlobalPrecision(np.array([0, 1]), np.array([True, False]),
        ...                       np.array([True, True]))
        >>> gap.resampled_means(np.array([[1, 1], [2, 0], [0, 2]])).tolist()  # 1/2, 1, 0
        [0.5, 1.0, 0.0]
        >>> gap.resampled_means(np.array([[1, 1]]), rows=np.array([False, True])).tolist()
        [0.0]
        """
        weights = np.asarray(weights, dtype=np.int64)
        chosen = _chosen(len(self.hit), rows)
        order = self.order[chosen[self.order]]
        drawn = weights[:, order]
        hits = drawn * self.hit[order]
        resample, place = np.nonzero(hits)  # the drawn hits, by resample then place
        before = (np.cumsum(drawn, axis=1) - drawn)[resample, place].astype(np.float64)
        hits_before = (np.cumsum(hits, axis=1) - hits)[resample, place].astype(np.float64)
        copies = hits[resample, place]
        total = np.zeros(len(weights))
        for copy in range(1, int(copies.max(initial=0)) + 1):  # draw counts, not rows
            terms = (hits_before + copy) / (before + copy)
            total += np.bincount(resample, weights=terms, minlength=len(weights))
            more = copies > copy
            resample, before, hits_before = resample[more], before[more], hits_before[more]
            copies = copies[more]
        m = weights[:, self.has_truth & chosen].sum(axis=1)
        return np.where(m > 0, total / np.maximum(m, 1), 0.0)

    def split_sums(self, labels: np.ndarray, n_labels: int) -> None:
        """Refused: GAP has no parts that add up across groups of rows."""
        raise HostVisibleError(
            NOT_A_MEAN + "a part of a run cannot give sums that merge into the whole run's "
            "GAP. Score GAP in one run (scorer.evaluate or the command line on whole files)."
        )


def _chosen(n_rows: int, mask: np.ndarray | None) -> np.ndarray:
    return np.ones(n_rows, dtype=bool) if mask is None else np.asarray(mask, dtype=bool)


def global_average_precision(j: Judgements, cutoff: int) -> GlobalPrecision:
    """GAP's parts from the judgements: each row's first prediction and the global
    order of the scored predictions (``cutoff`` is unused: one prediction per row).

    Raises
    ------
    HostVisibleError
        The judgements hold no confidences (the submission was not read as scored
        predictions).

    Examples
    --------
    >>> hits = np.array([[True], [False], [False]])  # row 2 has no truth: a false positive
    >>> j = Judgements(hits, np.array([1, 2, 0]), k=1, scored_order=np.array([1, 0, 2]))
    >>> global_average_precision(j, 1).exact_mean()  # a miss, then a hit at place 2; M = 2
    Fraction(1, 4)
    """
    if j.scored_order is None:
        raise HostVisibleError(
            "GAP needs one scored prediction per row ('label confidence'): request it with "
            "metrics=['GAP'] (-m GAP) so that the submission is read that way."
        )
    if j.flat is not None:
        users, _ = j.flat.hit_entries(1)
        hit = np.zeros(j.n_users, dtype=bool)
        hit[users] = True
    elif j.width:
        hit = np.asarray(j.hits_at(1)[:, 0], dtype=bool).copy()
    else:
        hit = np.zeros(j.n_users, dtype=bool)
    return GlobalPrecision(np.asarray(j.scored_order, np.int64), hit, j.n_relevant > 0)


def rounded_sum_of_quotients(numerators: np.ndarray, denominators: np.ndarray, m: int) -> float:
    """The correctly rounded float of ``(Σ n_j / d_j) / m``, for ``0 ≤ n_j ≤ d_j``.

    Long division in binary digits, all terms at once: each limb is one integer
    division per term, ``B`` more bits of every quotient, summed exactly in int64
    (``B`` chosen so that no shifted remainder nor limb sum overflows). After ``L``
    limbs the exact sum ``S`` lies in ``[s, s + z) · 2^-BL``, ``s`` the integer sum so
    far and ``z`` the terms whose remainder is not 0. Rounding is monotone, so when
    both ends of that interval divided by ``m`` round to the same float (Python's int
    division is correctly rounded) that float is the value; with ``z = 0`` the sum is
    exact. Otherwise one more limb narrows the interval ``2^B`` times.

    It ends for any input with fewer than 2^27 terms: ``S/m`` in lowest terms has a
    power of two in its denominator of at most ``n·m < 2^54`` (the places are at most
    ``n``), and a value of [0, 1] halfway between two floats needs at least ``2^54``,
    so ``S/m`` lies a positive distance from every rounding boundary. Two limbs (over
    80 bits for a million terms) decide all but values within about ``2^-80`` of a
    boundary; each further limb costs one pass over the terms.

    Examples
    --------
    >>> rounded_sum_of_quotients(np.array([1, 2]), np.array([1, 3]), 3) == 5 / 9
    True
    >>> rounded_sum_of_quotients(np.array([1, 1]), np.array([2, 2]), 2)  # exact: 1/2
    0.5
    """
    numerators = np.asarray(numerators, dtype=np.int64)
    denominators = np.asarray(denominators, dtype=np.int64)
    n = len(numerators)
    if not n:
        return 0.0
    top = int(denominators.max())
    bits = min(63 - top.bit_length(), 62 - n.bit_length())
    if bits < 8:
        raise ValueError("too many terms for exact int64 limbs")
    quotient, remainder = np.divmod(numerators, denominators)
    scaled, shift = int(quotient.sum()), 0
    while True:
        open_terms = int(np.count_nonzero(remainder))
        low = scaled / (m << shift)
        if not open_terms:
            return low
        if low == (scaled + open_terms) / (m << shift):
            return low
        quotient, remainder = np.divmod(remainder << bits, denominators)
        scaled, shift = (scaled << bits) + int(quotient.sum()), shift + bits
