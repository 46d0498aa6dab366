"""Run values that are not the mean of the rows' values: sums (trec_eval's ``num_ret``,
``num_rel``, ...) and geometric means (``gm_map``, ``gm_bpref``).

Each wraps the rows' values as a measure computes them and answers the questions the
result asks of every measure (:meth:`values`, :meth:`mean`, :meth:`split_means`), so
the run's value, its splits and its target types follow; the statistics, which add
rows' values, and scoring in parts refuse them (:data:`NOT_A_MEAN`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from scorer.measures.exact_means import SplitMeans, float_mean

#: trec_eval's floor under a row's value before its logarithm (``MIN_GEO_MEAN``).
GEOMETRIC_FLOOR = 0.00001

NOT_A_MEAN = "its value is no mean of per-row values (a sum, or a geometric mean): "


def _chosen(n_rows: int, mask: np.ndarray | None) -> np.ndarray:
    return np.ones(n_rows, dtype=bool) if mask is None else np.asarray(mask, dtype=bool)


def _by_label(labels: np.ndarray, n_labels: int) -> list[np.ndarray]:
    return [labels == label for label in range(n_labels)]


@dataclass(frozen=True)
class Total:
    """Per-row counts whose run value is their sum.

    Examples
    --------
    >>> from scorer.measures.exact_means import Ratios
    >>> total = Total(Ratios(np.array([3, 0, 2]), np.ones(3, dtype=np.int64)))
    >>> total.mean(), total.split_means(np.array([0, 1, 2]), 2)
    (5.0, SplitMeans(overall=3.0, by_label=(3.0, 0.0)))
    """

    rows: Any

    exact = True

    def values(self) -> np.ndarray:
        """Each row's count."""
        return self.rows.values()

    def exact_mean(self, mask: np.ndarray | None = None) -> Fraction:
        """The exact sum over the rows where ``mask`` holds (the name every measure's
        run value has)."""
        chosen = _chosen(len(self.rows.denominator), mask)
        count = int(np.count_nonzero(chosen))
        return self.rows.exact_mean(chosen) * count if count else Fraction(0)

    def mean(self, mask: np.ndarray | None = None) -> float:
        """The sum over the rows where ``mask`` holds."""
        return float(self.exact_mean(mask))

    def exact_label_means(self, labels: np.ndarray, n_labels: int) -> list[Fraction | None]:
        """Each label's exact sum (``None`` for a label without rows)."""
        by_label = _by_label(labels, n_labels)
        return [self.exact_mean(rows) if rows.any() else None for rows in by_label]

    def split_means(self, labels: np.ndarray, n_labels: int) -> SplitMeans:
        """Each label's sum, and the sum over every labelled row."""
        labelled = labels < n_labels
        found = self.exact_label_means(labels, n_labels)
        return SplitMeans(
            self.mean(labelled) if labelled.any() else None,
            tuple(None if value is None else float(value) for value in found),
        )


@dataclass(frozen=True)
class GeometricMean:
    """Per-row values whose run value is their geometric mean, as trec_eval takes it:
    exp of the mean of log(max(value, 0.00001)), the mean of the logarithms correctly
    rounded (trec_eval adds them in query order).

    Examples
    --------
    >>> from scorer.measures.exact_means import Floats
    >>> round(GeometricMean(Floats(np.array([0.5, 0.125, 0.0]))).mean(), 7)  # (1/16 · 1e-5)^(1/3)
    0.0085499
    """

    rows: Any

    exact = False

    def values(self) -> np.ndarray:
        """Each row's own value (trec_eval prints none per query)."""
        return self.rows.values()

    def mean(self, mask: np.ndarray | None = None) -> float:
        """The geometric mean over the rows where ``mask`` holds."""
        values = self.values()[_chosen(len(self.values()), mask)]
        if not len(values):
            raise ValueError("the geometric mean of no rows is undefined")
        return math.exp(float_mean(np.log(np.maximum(values, GEOMETRIC_FLOOR))))

    def split_means(self, labels: np.ndarray, n_labels: int) -> SplitMeans:
        """The geometric mean within each label, and over every labelled row."""
        labelled = labels < n_labels
        return SplitMeans(
            self.mean(labelled) if labelled.any() else None,
            tuple(self.mean(rows) if rows.any() else None for rows in _by_label(labels, n_labels)),
        )
