"""Set measures: the submitted list as a set S (a repeated item counts once), whole or
its first K predictions, against the relevant set R.

Each returns its natural parts as :class:`~scorer.measures.exact_means.Ratios`
(|S∩R| over |S|, |R|, β²|R| + |S| or the union's size), so the mean is the correctly rounded
float of the exact mean, and ``avg=micro`` sums those parts. Every value is 0 when
its denominator is 0: a row with S = ∅ scores 0, and so does one with R = ∅ (an
empty-truth row, skipped or scored 0 by ``empty_ground_truth`` as for every measure).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from scorer.align.judgements import Judgements
from scorer.measures.exact_means import INT64_MAX, Ratios


def set_precision(j: Judgements, cutoff: int, norm: str = "retrieved") -> Ratios:
    """|S∩R| / |S|, 0 for an empty S; with ``norm="min"``, |S∩R| / min(|S|, |R|)
    (trec_eval's ``set_relative_P``).

    Examples
    --------
    >>> import numpy as np
    >>> from scorer.align.judgements import Distinct
    >>> first = np.array([[True, True, False, True]])  # "a b a c": S = {a, b, c}
    >>> j = Judgements(np.array([[1, 0, 0, 0]], bool), np.array([2]), k=4,
    ...                distinct=Distinct(first))
    >>> set_precision(j, 4).exact_mean(), set_precision(j, 2).exact_mean()
    (Fraction(1, 3), Fraction(1, 2))
    >>> set_precision(j, 4, "min").exact_mean()
    Fraction(1, 2)
    """
    size = j.n_distinct(cutoff)
    return Ratios(j.n_hits(cutoff), size if norm == "retrieved" else np.minimum(size, j.n_relevant))


def set_average_precision(j: Judgements, cutoff: int) -> Ratios:
    """|S∩R|² / (|S|·|R|): SetP times SetR (trec_eval's ``set_map``), 0 when either is
    empty.

    Examples
    --------
    >>> import numpy as np
    >>> from scorer.align.judgements import Distinct
    >>> j = Judgements(np.array([[1, 0, 0]], bool), np.array([2]), k=3,
    ...                distinct=Distinct(np.ones((1, 3), bool)))
    >>> set_average_precision(j, 3).exact_mean()
    Fraction(1, 6)
    """
    hits, size, n_relevant = j.n_hits(cutoff), j.n_distinct(cutoff), j.n_relevant
    largest = max(int(size.max(initial=0)), int(n_relevant.max(initial=0)), 1)
    if largest > 2**31:  # products past int64: Python ints, still exact
        hits, size, n_relevant = (a.astype(object) for a in (hits, size, n_relevant))
    return Ratios(hits * hits, size * n_relevant)


def set_recall(j: Judgements, cutoff: int) -> Ratios:
    """|S∩R| / |R| (0 for an empty R).

    Examples
    --------
    >>> import numpy as np
    >>> j = Judgements(np.array([[1, 0, 0]], bool), np.array([2]), k=3)
    >>> set_recall(j, 3).exact_mean()
    Fraction(1, 2)
    """
    return Ratios(j.n_hits(cutoff), j.n_relevant)


def set_f(
    j: Judgements, cutoff: int, beta: Fraction = Fraction(1), beta2: Fraction | None = None
) -> Ratios:
    """(1 + β²)·|S∩R| / (β²·|R| + |S|), as integers: with β² = p/q,
    (p + q)·|S∩R| / (p·|R| + q·|S|). 0 without a hit. ``beta2`` gives β² itself
    (trec_eval's ``set_F.X`` takes β² = X), in place of ``beta``.

    Examples
    --------
    >>> import numpy as np
    >>> from scorer.align.judgements import Distinct
    >>> first = np.array([[True, True, True]])  # |S| = 3, |R| = 2, one hit
    >>> j = Judgements(np.array([[1, 0, 0]], bool), np.array([2]), k=3, distinct=Distinct(first))
    >>> set_f(j, 3).exact_mean(), set_f(j, 3, Fraction(2)).exact_mean()  # 2/5, 5/11
    (Fraction(2, 5), Fraction(5, 11))
    >>> set_f(j, 3, beta2=Fraction(2)).exact_mean()  # 3 / (4 + 3)
    Fraction(3, 7)
    """
    square = Fraction(beta) ** 2 if beta2 is None else Fraction(beta2)
    p, q = square.numerator, square.denominator
    hits, n_relevant, n_distinct = j.n_hits(cutoff), j.n_relevant, j.n_distinct(cutoff)
    top = max(int(n_relevant.max(initial=0)), int(n_distinct.max(initial=0)), 1)
    if (p + q) * top > INT64_MAX:  # a large β with many items: Python ints, still exact
        hits, n_relevant, n_distinct = (a.astype(object) for a in (hits, n_relevant, n_distinct))
    return Ratios((p + q) * hits, p * n_relevant + q * n_distinct)


def jaccard(j: Judgements, cutoff: int) -> Ratios:
    """Intersection over union, |S∩R| / (|S| + |R| - |S∩R|) (Foursquare's IoU), 0 when
    both are empty.

    Examples
    --------
    >>> import numpy as np
    >>> from scorer.align.judgements import Distinct
    >>> first = np.array([[True, True, True]])
    >>> j = Judgements(np.array([[1, 0, 0]], bool), np.array([2]), k=3, distinct=Distinct(first))
    >>> jaccard(j, 3).exact_mean()  # {a, x, y} and {a, b}
    Fraction(1, 4)
    """
    hits = j.n_hits(cutoff)
    return Ratios(hits, j.n_distinct(cutoff) + j.n_relevant - hits)
