"""Exact means of per-user values: fractions ``numerator / denominator`` and floats.

Every mean here is the correctly rounded float of the exact mean (of the exact
rationals, or of the float64 values as they are), overall and per split, from integer
sums grouped by denominator. Plain numpy arrays in, Python floats out: no DataFrames,
no column names, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np


class ExactMean:
    """Per-user values held as fractions ``numerator / denominator`` (0 when 0/0).

    The mixin behind every rational measure: with integer parts (int64, or Python
    ints in an object array when they could overflow int64), :meth:`values` and
    :meth:`mean` are the correctly rounded floats of the exact rationals; float
    numerators fall back to a correctly rounded sum of the per-user floats.
    Subclasses are dataclasses with ``numerator``, ``denominator`` and ``scale``.
    """

    numerator: np.ndarray
    denominator: np.ndarray
    scale: int

    @property
    def exact(self) -> bool:
        """Whether numerators are exact integers."""
        return self.numerator.dtype.kind in "iO"

    def values(self) -> np.ndarray:
        """Each user's value as float64.

        Examples
        --------
        >>> from scorer.measures.average_precision import average_precision
        >>> rel = np.array([[0, 1, 0, 0, 1, 0, 1, 0, 1, 0]], dtype=bool)
        >>> average_precision(rel, np.array([4]), k=10).values()  # 1117/2520
        array([0.44325397])
        """
        if self.numerator.dtype.kind == "O":
            return _python_quotients(self.numerator, self.denominator)
        safe = np.maximum(self.denominator, 1)
        values = np.where(self.denominator > 0, self.numerator / safe, 0.0)
        if self.exact and _past_float(self.numerator, self.denominator):
            # Parts past 2**53 are rounded before a float division: divide those as
            # Python ints, so a value never depends on how its fraction is scaled.
            large = (np.abs(self.numerator) >= _FLOAT_EXACT) | (self.denominator >= _FLOAT_EXACT)
            values[large] = _python_quotients(self.numerator[large], self.denominator[large])
        return values

    def mean(self, mask: np.ndarray | None = None) -> float:
        """The mean over the users where ``mask`` holds, independent of their order.

        Examples
        --------
        >>> from scorer.measures.average_precision import average_precision
        >>> rel = np.array([[1, 1, 0, 0, 1, 0, 0], [0, 1, 1, 0, 0, 1, 1]], dtype=bool)
        >>> ap = average_precision(rel, np.array([3, 4]), k=7)
        >>> ap.mean() == 599 / 840  # (13/15 + 47/84) / 2, correctly rounded
        True
        """
        return float(self.exact_mean(mask)) if self.exact else self._float_mean(mask)

    def exact_mean(self, mask: np.ndarray | None = None) -> Fraction:
        """The exact mean over the users where ``mask`` holds (integer parts only).

        Examples
        --------
        >>> Ratios(np.array([1, 1, 0]), np.array([2, 3, 0])).exact_mean()
        Fraction(5, 18)
        """
        chosen = _chosen(len(self.denominator), mask)
        if not self.exact:
            raise ValueError("float numerators have no exact mean")
        sums = _sums_by_denominator(self.numerator[chosen], self.denominator[chosen], self.scale)
        total = sum((Fraction(s, d) for d, s in sums.items() if d > 0), Fraction(0))
        return total / int(np.count_nonzero(chosen))

    def _float_mean(self, mask: np.ndarray | None) -> float:
        chosen = _chosen(len(self.denominator), mask)
        return float_mean(self.values()[chosen])

    def split_means(self, labels: np.ndarray, n_labels: int) -> SplitMeans:
        """The mean over each label's users and over all labelled users, in one pass.

        Parameters
        ----------
        labels : ndarray of int
            Each user's label in ``0 .. n_labels - 1``, or ``n_labels`` for a user in
            no mean (not scored).
        n_labels : int

        Examples
        --------
        >>> ratios = Ratios(np.array([1, 1, 2, 5]), np.array([2, 3, 3, 7]))
        >>> ratios.split_means(np.array([0, 1, 1, 2]), 2)
        SplitMeans(overall=0.5, by_label=(0.5, 0.5))
        """
        return SplitMeans.from_sums(self.split_sums(labels, n_labels), labels)

    def split_sums(self, labels: np.ndarray, n_labels: int) -> ExactSums:
        """The exact sum of each label's values, as integers (:class:`ExactSums`).

        Examples
        --------
        >>> Ratios(np.array([1, 1, 2]), np.array([2, 3, 3])).split_sums(np.array([0, 1, 1]), 2)
        ExactSums(by_label=({2: 1}, {3: 3}), exponents=False)
        """
        if not self.exact:
            return _float_split_sums(self.values(), labels, n_labels)
        sums = _sums_by_label(self.numerator, self.denominator, self.scale, labels, n_labels)
        return ExactSums(tuple({d: s for d, s in found.items() if d > 0} for found in sums))

    def label_totals(self, labels: np.ndarray, n_labels: int) -> tuple[list[Fraction], list[int]]:
        """The exact sum of each label's values and its number of users (labels as in
        :meth:`split_means`; floats summed exactly as the rationals they are).

        Examples
        --------
        >>> Ratios(np.array([1, 1, 2]), np.array([2, 3, 3])).label_totals(np.array([0, 1, 0]), 2)
        ([Fraction(7, 6), Fraction(1, 3)], [2, 1])
        """
        counts = np.bincount(labels, minlength=n_labels + 1)[:n_labels].tolist()
        return self.split_sums(labels, n_labels).totals(), counts

    def exact_label_means(self, labels: np.ndarray, n_labels: int) -> list[Fraction | None]:
        """The exact mean of each label's values (``None`` for a label without users)."""
        return exact_means_of_totals(*self.label_totals(labels, n_labels))


@dataclass(frozen=True)
class ExactSums:
    """Exact sums of per-user values, one per label, as integers that add up exactly.

    Attributes
    ----------
    by_label : tuple of dict of int to int
        Per label, ``{key: sum}``: the sum of the numerators over the denominator
        ``key`` (a rational measure), or the sum of the integer mantissas ``m`` of
        the float64 values ``m * 2**key`` (``exponents``: a float measure).
    exponents : bool
        Whether the keys are binary exponents rather than denominators.

    Sums of several parts of a run add key by key (:meth:`plus`): integer
    additions, associative and commutative, so any split gives the same totals.

    Examples
    --------
    >>> a, b = ExactSums(({3: 1},)), ExactSums(({3: 1, 2: 1},))
    >>> a.plus(b).totals()
    [Fraction(7, 6)]
    """

    by_label: tuple[dict[int, int], ...]
    exponents: bool = False

    def totals(self) -> list[Fraction]:
        """Each label's exact sum."""
        if self.exponents:
            return [
                sum((Fraction(s) * Fraction(2) ** e for e, s in found.items()), Fraction(0))
                for found in self.by_label
            ]
        return [
            sum((Fraction(s, d) for d, s in found.items()), Fraction(0)) for found in self.by_label
        ]

    def plus(self, other: ExactSums) -> ExactSums:
        """The sums of two parts' users together."""
        if other.exponents != self.exponents or len(other.by_label) != len(self.by_label):
            raise ValueError("sums of different kinds cannot be added")
        added = []
        for mine, theirs in zip(self.by_label, other.by_label, strict=True):
            found = dict(mine)
            for key, value in theirs.items():
                found[key] = found.get(key, 0) + value
            added.append({key: value for key, value in found.items() if value})
        return ExactSums(tuple(added), self.exponents)

    def split_means(self, counts: list[int]) -> SplitMeans:
        """Correctly rounded means of each label (``counts`` users) and of them all."""
        return SplitMeans.from_totals(self.totals(), counts)

    def exact_means(self, counts: list[int]) -> list[Fraction | None]:
        """Each label's exact mean over its ``counts`` users (``None`` without users)."""
        return exact_means_of_totals(self.totals(), counts)

    def merged(self) -> ExactSums:
        """The sums of every label as one label's."""
        found: dict[int, int] = {}
        for sums in self.by_label:
            for key, value in sums.items():
                found[key] = found.get(key, 0) + value
        return ExactSums(({key: value for key, value in found.items() if value},), self.exponents)


@dataclass(frozen=True)
class MicroSums:
    """The exact sums of a micro-averaged measure's parts, one pair per label.

    Attributes
    ----------
    by_label : tuple of (int, int)
        Per label, (Σ numerators, Σ denominators) over its users.

    Sums of several parts of a run add pair by pair (:meth:`plus`): integer additions,
    so any split gives the same ratios.

    Examples
    --------
    >>> a, b = MicroSums(((1, 1), (0, 0))), MicroSums(((0, 10), (2, 4)))
    >>> a.plus(b).split_means([2, 1])
    SplitMeans(overall=0.2, by_label=(0.09090909090909091, 0.5))
    """

    by_label: tuple[tuple[int, int], ...]

    def plus(self, other: MicroSums) -> MicroSums:
        """The sums of two parts' users together."""
        if len(other.by_label) != len(self.by_label):
            raise ValueError("sums of different kinds cannot be added")
        pairs = zip(self.by_label, other.by_label, strict=True)
        return MicroSums(tuple((n + m, d + e) for (n, d), (m, e) in pairs))

    def split_means(self, counts: list[int]) -> SplitMeans:
        """Σ numerators / Σ denominators per label (``counts`` users) and over all of
        them, correctly rounded: 0 when the denominators sum to 0, ``None`` without users."""

        def ratio(numerator: int, denominator: int, count: int) -> float | None:
            if not count:
                return None
            return float(Fraction(numerator, denominator)) if denominator else 0.0

        numerators = [n for n, _ in self.by_label]
        denominators = [d for _, d in self.by_label]
        return SplitMeans(
            ratio(sum(numerators), sum(denominators), sum(counts)),
            tuple(map(ratio, numerators, denominators, counts)),
        )

    def exact_means(self, counts: list[int]) -> list[Fraction | None]:
        """Each label's Σ numerators / Σ denominators, exactly (0 when the denominators
        sum to 0; ``None`` without users)."""
        return [
            None if not count else Fraction(numerator, denominator) if denominator else Fraction(0)
            for (numerator, denominator), count in zip(self.by_label, counts, strict=True)
        ]

    def merged(self) -> MicroSums:
        """The sums of every label as one label's."""
        return MicroSums(((sum(n for n, _ in self.by_label), sum(d for _, d in self.by_label)),))


_FLOAT_EXACT = 2**53


def _past_float(numerator: np.ndarray, denominator: np.ndarray) -> bool:
    """Whether an int64 part may be past 2**53, where float64 stops being exact."""
    top = max(int(denominator.max(initial=0)), int(numerator.max(initial=0)))
    return top >= _FLOAT_EXACT or int(numerator.min(initial=0)) <= -_FLOAT_EXACT


def _python_quotients(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """Correctly rounded ``n / d`` (0 where ``d`` is 0) of each pair, as Python ints.

    Examples
    --------
    >>> _python_quotients(np.array([2**60 + 1, 1]), np.array([3 * 2**60, 0])).tolist()
    [0.3333333333333333, 0.0]
    """
    pairs = zip(numerator.tolist(), denominator.tolist(), strict=True)
    return np.array([int(n) / int(d) if d else 0.0 for n, d in pairs], dtype=np.float64)


@dataclass(frozen=True)
class SplitMeans:
    """Means over labelled groups of users (e.g. Public and Private) and over all of them.

    Attributes
    ----------
    overall : float or None
        The mean over every labelled user (``None`` when there is none).
    by_label : tuple of (float or None)
        The mean over each label's users (``None`` for a label without users).
    """

    overall: float | None
    by_label: tuple[float | None, ...]

    @classmethod
    def from_sums(cls, sums: ExactSums, labels: np.ndarray) -> SplitMeans:
        """Correctly rounded means from exact sums and each user's label."""
        n_labels = len(sums.by_label)
        counts = np.bincount(labels, minlength=n_labels + 1)[:n_labels].tolist()
        return cls.from_totals(sums.totals(), counts)

    @classmethod
    def from_totals(cls, totals: list[Fraction], counts: list[int]) -> SplitMeans:
        """Correctly rounded means from exact sums and counts."""
        total, count = sum(totals, Fraction(0)), sum(counts)
        return cls(
            float(total / count) if count else None,
            tuple(float(t / c) if c else None for t, c in zip(totals, counts, strict=True)),
        )


def _chosen(n_users: int, mask: np.ndarray | None) -> np.ndarray:
    chosen = np.ones(n_users, dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
    if not chosen.any():
        raise ValueError("the mean of no value is undefined")
    return chosen


@dataclass(frozen=True)
class Ratios(ExactMean):
    """Per-user fractions of a rational measure (see :class:`ExactMean`).

    Attributes
    ----------
    numerator, denominator : ndarray of int64 (or object, Python ints)
    scale : int
        Every denominator is a multiple of it (a hint for grouping; 1 is always valid).
    """

    numerator: np.ndarray
    denominator: np.ndarray
    scale: int = 1


@dataclass(frozen=True)
class MicroRatios(ExactMean):
    """Per-user fractions of a measure averaged micro: the mean over users is
    Σ numerators / Σ denominators (0 when that sum is 0), not the mean of the ratios.

    :meth:`values` stays each user's own ratio (the per-user output); statistics read
    :attr:`numerator` and :attr:`denominator` to recompute the ratio of sums.

    Attributes
    ----------
    numerator, denominator : ndarray of int64 (or object, Python ints)
        The natural parts, never reduced (hits and ``|R|``, not their quotient).
    scale : int

    Examples
    --------
    >>> micro = MicroRatios(np.array([1, 0]), np.array([1, 10]))  # OTTO's two sessions
    >>> micro.exact_mean(), micro.values().tolist()
    (Fraction(1, 11), [1.0, 0.0])
    >>> micro.split_means(np.array([0, 1]), 2)
    SplitMeans(overall=0.09090909090909091, by_label=(1.0, 0.0))
    """

    numerator: np.ndarray
    denominator: np.ndarray
    scale: int = 1

    def mean(self, mask: np.ndarray | None = None) -> float:
        """The correctly rounded Σ numerators / Σ denominators over ``mask``."""
        return float(self.exact_mean(mask))

    def exact_mean(self, mask: np.ndarray | None = None) -> Fraction:
        """Σ numerators / Σ denominators over the users where ``mask`` holds."""
        chosen = _chosen(len(self.denominator), mask)
        labels = np.where(chosen, 0, 1)
        (numerator,), (denominator,) = self._label_sums(labels, 1)
        return Fraction(numerator, denominator) if denominator else Fraction(0)

    def split_means(self, labels: np.ndarray, n_labels: int) -> SplitMeans:
        """Σ numerators / Σ denominators per label and over all labelled users."""
        counts = np.bincount(labels, minlength=n_labels + 1)[:n_labels].tolist()
        return self.split_sums(labels, n_labels).split_means(counts)

    def split_sums(self, labels: np.ndarray, n_labels: int) -> MicroSums:
        """The exact Σ numerators and Σ denominators of each label (:class:`MicroSums`).

        Examples
        --------
        >>> MicroRatios(np.array([1, 0, 2]), np.array([1, 10, 4])).split_sums(
        ...     np.array([0, 1, 1]), 2)
        MicroSums(by_label=((1, 1), (2, 14)))
        """
        numerators, denominators = self._label_sums(labels, n_labels)
        return MicroSums(tuple(zip(numerators, denominators, strict=True)))

    def exact_label_means(self, labels: np.ndarray, n_labels: int) -> list[Fraction | None]:
        """Σ numerators / Σ denominators over each label's users, exactly (0 when the
        denominators sum to 0; ``None`` for a label without users).

        Examples
        --------
        >>> MicroRatios(np.array([1, 0, 2]), np.array([1, 10, 4])).exact_label_means(
        ...     np.array([0, 0, 2]), 2)
        [Fraction(1, 11), None]
        """
        numerators, denominators = self._label_sums(labels, n_labels)
        counts = np.bincount(labels, minlength=n_labels + 1)[:n_labels].tolist()
        return [
            None if not count else Fraction(numerator, denominator) if denominator else Fraction(0)
            for numerator, denominator, count in zip(numerators, denominators, counts, strict=True)
        ]

    def _label_sums(self, labels: np.ndarray, n_labels: int) -> tuple[list[int], list[int]]:
        return (
            exact_sums_by_label(self.numerator, labels, n_labels),
            exact_sums_by_label(self.denominator, labels, n_labels),
        )


def exact_sums_by_label(values: np.ndarray, labels: np.ndarray, n_labels: int) -> list[int]:
    """The exact integer sum of ``values`` over each label ``0 .. n_labels - 1``.

    Examples
    --------
    >>> exact_sums_by_label(np.array([2**62, 2**62, 3]), np.array([0, 0, 1]), 2)
    [9223372036854775808, 3]
    """
    labels = np.asarray(labels)
    if values.dtype.kind == "O":
        return [sum(values[labels == label].tolist()) for label in range(n_labels)]
    sums = [0] * n_labels
    # A chunk of rows at a time (no int64 or float copy of every value), in 26-bit
    # pieces (the sign kept in the top one): each float sum of a chunk is exact.
    for start in range(0, len(values), _SUM_ROWS):
        chunk = values[start : start + _SUM_ROWS].astype(np.int64)
        chunk_labels = labels[start : start + _SUM_ROWS]
        for shift in (0, 26, 52):
            piece = chunk >> shift
            if shift < 52:
                piece &= 2**26 - 1
            totals = np.bincount(chunk_labels, weights=piece, minlength=n_labels + 1)
            sums = [s + (int(t) << shift) for s, t in zip(sums, totals[:n_labels], strict=False)]
    return sums


#: Rows summed at once by :func:`exact_sums_by_label`: below 2**26, so that sums of
#: 26-bit pieces stay exact in float64.
_SUM_ROWS = 1 << 20


@dataclass(frozen=True)
class Floats:
    """Per-user float64 values of a measure that is not rational (nDCG).

    Each value is computed in a fixed order of operations; :meth:`mean` is the
    correctly rounded mean (:func:`float_mean`), so no bit depends on row order.

    Examples
    --------
    >>> Floats(np.array([0.5, 0.25, 1.0])).mean(np.array([True, True, False]))
    0.375
    """

    array: np.ndarray

    exact = False

    def values(self) -> np.ndarray:
        """Each user's value."""
        return self.array

    def mean(self, mask: np.ndarray | None = None) -> float:
        """The correctly rounded mean over the users where ``mask`` holds."""
        return float_mean(self.array[_chosen(len(self.array), mask)])

    def split_means(self, labels: np.ndarray, n_labels: int) -> SplitMeans:
        """:meth:`ExactMean.split_means` for floats: correctly rounded, one pass."""
        return _float_split_means(self.array, labels, n_labels)

    def split_sums(self, labels: np.ndarray, n_labels: int) -> ExactSums:
        """:meth:`ExactMean.split_sums` for floats: mantissas by binary exponent."""
        return _float_split_sums(self.array, labels, n_labels)

    def exact_label_means(self, labels: np.ndarray, n_labels: int) -> list[Fraction | None]:
        """:meth:`ExactMean.exact_label_means` for floats: the exact mean of the float64
        values as they are."""
        return exact_means_of_totals(*_float_label_totals(self.array, labels, n_labels))


def exact_means_of_totals(totals: list[Fraction], counts: list[int]) -> list[Fraction | None]:
    """Each exact total divided by its count (``None`` for a count of 0)."""
    return [t / c if c else None for t, c in zip(totals, counts, strict=True)]


def _float_split_means(values: np.ndarray, labels: np.ndarray, n_labels: int) -> SplitMeans:
    """Exact sums of float64 values per label, then correctly rounded means.

    Examples
    --------
    >>> _float_split_means(np.array([0.1, 0.2, 0.3, 9.0]), np.array([0, 1, 1, 2]), 2)
    SplitMeans(overall=0.2, by_label=(0.1, 0.25))
    """
    return SplitMeans.from_sums(_float_split_sums(values, labels, n_labels), labels)


def _float_label_totals(
    values: np.ndarray, labels: np.ndarray, n_labels: int
) -> tuple[list[Fraction], list[int]]:
    """Exact sums of float64 values per label, and each label's count."""
    counts = np.bincount(labels, minlength=n_labels + 1)[:n_labels].tolist()
    return _float_split_sums(values, labels, n_labels).totals(), counts


def _float_split_sums(values: np.ndarray, labels: np.ndarray, n_labels: int) -> ExactSums:
    """Exact sums of float64 values per label: integer mantissas grouped by binary
    exponent and label (each value is ``m * 2**(e - 53)``, ``m`` an integer).

    Examples
    --------
    >>> _float_split_sums(np.array([0.5, 0.75, 2.0]), np.array([0, 0, 1]), 1)  # 1: left out
    ExactSums(by_label=({-53: 11258999068426240},), exponents=True)
    """
    values = np.asarray(values, dtype=np.float64)
    if not np.isfinite(values).all():
        raise ValueError("the mean of non-finite values is undefined")
    mantissa, exponent = np.frexp(values)
    integers = (mantissa * 2.0**53).astype(np.int64)  # exact: |mantissa| < 1
    lowest = int(exponent.min(initial=0))
    groups = exponent.astype(np.int64) - lowest
    sums = _sums_by_label(integers, groups, 1, labels, n_labels)
    by_label = tuple({e + lowest - 53: s for e, s in found.items() if s} for found in sums)
    return ExactSums(by_label, exponents=True)


def _sums_by_label(
    numerator: np.ndarray, denominator: np.ndarray, scale: int, labels: np.ndarray, n_labels: int
) -> list[dict[int, int]]:
    """:func:`_sums_by_denominator` for each label at once (label ``n_labels``: left out).

    One ``bincount`` over (denominator, label) keys when the denominators are few
    multiples of ``scale`` and the numerators small and non-negative; a pass per label
    otherwise.

    Examples
    --------
    >>> _sums_by_label(np.array([1, 2, 3, 4]), np.array([6, 6, 12, 6]), 6,
    ...                np.array([0, 1, 0, 2]), 2)
    [{6: 1, 12: 3}, {6: 2}]
    """
    labels = np.asarray(labels)
    width = n_labels + 1
    if numerator.dtype.kind == "i" and len(numerator) < 2**31:
        groups = denominator // scale
        top = int(numerator.max(initial=0))
        small = int(groups.max(initial=0)) <= 4 * len(groups) + 1024
        if small and int(numerator.min(initial=0)) >= 0 and top < 2**53:
            keys = groups * width + labels
            if top * len(numerator) < 2**53:  # float sums stay exact
                parts = [(np.bincount(keys, weights=numerator), 0)]
            else:  # 26-bit halves: each float sum stays below 2**53 under 2**26 users
                exact = len(numerator) < 2**26
                parts = (
                    [
                        (np.bincount(keys, weights=numerator & (2**26 - 1)), 0),
                        (np.bincount(keys, weights=numerator >> 26), 26),
                    ]
                    if exact
                    else []
                )
            if parts:
                result: list[dict[int, int]] = [{} for _ in range(n_labels)]
                for sums, shift in parts:
                    for key in np.flatnonzero(sums).tolist():
                        group, label = divmod(key, width)
                        if label < n_labels:
                            found = result[label]
                            value = int(sums[key]) << shift
                            found[group * scale] = found.get(group * scale, 0) + value
                return result
    return [
        _sums_by_denominator(numerator[labels == label], denominator[labels == label], scale)
        for label in range(n_labels)
    ]


def float_mean(values: np.ndarray) -> float:
    """The correctly rounded mean of float64 values, independent of their order.

    The values are summed exactly (each is an integer mantissa times a power of two:
    the mantissas sharing an exponent are summed in integers), so the only rounding
    is the final division.

    Examples
    --------
    >>> float_mean(np.array([0.1, 0.2, 0.3]))  # the exact mean of the three doubles
    0.2
    >>> float_mean(np.array([1e-300, 1.0, -1.0]))
    3.3333333333333334e-301
    """
    values = np.asarray(values, dtype=np.float64)
    if len(values) == 0:
        raise ValueError("the mean of no value is undefined")
    if not np.isfinite(values).all():
        raise ValueError("the mean of non-finite values is undefined")
    mantissa, exponent = np.frexp(values)
    integers = (mantissa * 2.0**53).astype(np.int64)  # exact: |mantissa| < 1
    sums = _sums_by_denominator(integers, (exponent.astype(np.int64) - exponent.min()), 1)
    low = int(exponent.min()) - 53
    total = sum(Fraction(s) * Fraction(2) ** (e + low) for e, s in sums.items())
    return float(Fraction(total) / len(values))


def _sums_by_denominator(
    numerator: np.ndarray, denominator: np.ndarray, scale: int
) -> dict[int, int]:
    """The exact sum of the int64 numerators sharing each denominator.

    Denominators are few distinct multiples of ``scale``, so the sums are counted
    with ``bincount`` over ``denominator // scale``: exact, because each numerator is
    split into two 20-bit halves whose float64 sums stay below 2**53. A sort groups
    them otherwise.

    Examples
    --------
    >>> _sums_by_denominator(np.array([1, 2, 3, 2**39]), np.array([6, 0, 6, 12]), 6)
    {0: 2, 6: 4, 12: 549755813888}
    """
    if numerator.dtype.kind == "O":
        return _python_sums(numerator, denominator)
    groups = denominator // scale
    small = len(numerator) < 2**32 and int(groups.max(initial=0)) <= 4 * len(groups) + 1024
    if small and int(numerator.min(initial=0)) >= 0 and int(numerator.max(initial=0)) < 2**40:
        low = np.bincount(groups, weights=numerator & (2**20 - 1))
        high = np.bincount(groups, weights=numerator >> 20)
        present = np.flatnonzero(np.bincount(groups))
        return {int(g) * scale: int(low[g]) + (int(high[g]) << 20) for g in present.tolist()}
    order = np.argsort(denominator, kind="stable")
    ordered = denominator[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    if not len(starts):
        return {}
    # Exact whatever the magnitudes: 32-bit halves summed separately cannot overflow
    # int64 below 2**31 values.
    values = numerator[order]
    low = np.add.reduceat(values & (2**32 - 1), starts)
    high = np.add.reduceat(values >> 32, starts)
    return {
        int(d): int(lo) + (int(hi) << 32)
        for d, lo, hi in zip(ordered[starts].tolist(), low.tolist(), high.tolist(), strict=True)
    }


def _python_sums(numerator: np.ndarray, denominator: np.ndarray) -> dict[int, int]:
    """:func:`_sums_by_denominator` for Python-int parts (an object array)."""
    if not len(numerator):
        return {}
    order = np.argsort(denominator, kind="stable")
    ordered = denominator[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    ends = [*list(starts[1:]), len(order)]
    values = numerator[order].tolist()
    keys = ordered.tolist()
    return {int(keys[s]): sum(values[s:e]) for s, e in zip(starts, ends, strict=True)}


INT64_MAX = int(np.iinfo(np.int64).max)
