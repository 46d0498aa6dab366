"""The exact means every measure shares: one pass over all splits equals a mean per mask."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.measures import exact_means
from scorer.measures.exact_means import Floats, Ratios, exact_sums_by_label, float_mean


def expected(values: list[Fraction], labels: list[int], n_labels: int):
    by_label = []
    for label in range(n_labels):
        chosen = [v for v, lab in zip(values, labels, strict=True) if lab == label]
        by_label.append(float(sum(chosen, Fraction(0)) / len(chosen)) if chosen else None)
    chosen = [v for v, lab in zip(values, labels, strict=True) if lab < n_labels]
    return (float(sum(chosen, Fraction(0)) / len(chosen)) if chosen else None), tuple(by_label)


@settings(max_examples=150)
@given(
    st.lists(
        st.tuples(st.integers(0, 2**62), st.integers(0, 40), st.integers(0, 2)),
        min_size=1,
        max_size=30,
    ),
    st.sampled_from([1, 12, 2**40]),  # numerator bound: one bincount, halves, a sort
    st.sampled_from([1, 6, 27720]),
)
def test_ratio_split_means_are_exact(users, bound: int, scale: int) -> None:
    numerator = np.array([n % bound for n, _, _ in users], dtype=np.int64)
    denominator = np.array([d * scale for _, d, _ in users], dtype=np.int64)
    labels = np.array([lab for *_, lab in users])
    values = [
        Fraction(int(n), int(d)) if d else Fraction(0)
        for n, d in zip(numerator, denominator, strict=True)
    ]
    means = Ratios(numerator, denominator, scale).split_means(labels, 2)
    assert (means.overall, means.by_label) == expected(values, labels.tolist(), 2)


@settings(max_examples=100)
@given(
    st.lists(
        st.tuples(st.floats(0, 1, allow_subnormal=True), st.integers(0, 2)), min_size=1, max_size=30
    )
)
def test_float_split_means_are_correctly_rounded(users) -> None:
    values = np.array([v for v, _ in users])
    labels = np.array([lab for _, lab in users])
    means = Floats(values).split_means(labels, 2)
    exact = [Fraction(v) for v in values.tolist()]
    assert (means.overall, means.by_label) == expected(exact, labels.tolist(), 2)
    assert float_mean(values) == float(sum(exact, Fraction(0)) / len(exact))


def test_python_int_fractions_split_means() -> None:
    big = 2**100
    ratios = Ratios(
        np.array([big, 1, big], dtype=object), np.array([3 * big, 3, 2 * big], dtype=object)
    )
    means = ratios.split_means(np.array([0, 0, 1]), 2)
    assert means.by_label == (1 / 3, 0.5)
    assert means.overall == float(Fraction(1, 3) * 2 / 3 + Fraction(1, 2) / 3)


@settings(max_examples=150)
@given(
    st.lists(st.tuples(st.integers(-(2**63), 2**63 - 1), st.integers(0, 3)), max_size=40),
    st.sampled_from([1, 3, 1 << 20]),
)
def test_sums_by_label_are_exact_in_every_chunking(rows, chunk_rows) -> None:
    values = np.array([v for v, _ in rows], dtype=np.int64)
    labels = np.array([lab for _, lab in rows], dtype=np.int64)
    expected = [sum(v for v, lab in rows if lab == label) for label in range(3)]
    original = exact_means._SUM_ROWS
    exact_means._SUM_ROWS = chunk_rows  # label 3: left out, as the measures' "none"
    try:
        assert exact_sums_by_label(values, labels, 3) == expected
    finally:
        exact_means._SUM_ROWS = original
