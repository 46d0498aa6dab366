"""The scoring policy: which users are scored, and in which split they count.

Measures compute a value for every user (:mod:`scorer.measures`); this module alone
decides which of those values count. A user whose ``Usage`` is ``Ignored`` never
counts. A user with no relevant item is left out (``empty_ground_truth="skip"``) or
counts with the value its measures give it, 0 (``"zero"``). Each scored user counts
in the overall mean and in its ``Usage`` split. A solution with no user left to score
is the host's error.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from scorer.check.validate import Solution
from scorer.errors import MAX_EXAMPLES, HostVisibleError, Problem, format_count
from scorer.options import EmptyGroundTruth

#: The splits a ``Usage`` column names, in the order of their labels.
SPLITS = ("Public", "Private")


@dataclass(frozen=True)
class ScoredUsers:
    """Per solution row: whether the user is scored, skipped or ignored.

    Attributes
    ----------
    scored, skipped, ignored : ndarray of bool
        ``skipped``: no relevant item, left out by ``empty_ground_truth="skip"``, or left
        out by the solution (a query a trec_eval run lacks, ``missing_rows="skip"``);
        ``ignored``: ``Usage`` is ``Ignored``. Neither is ``scored``.
    """

    scored: np.ndarray
    skipped: np.ndarray
    ignored: np.ndarray


def users_to_score(
    solution: Solution, n_relevant: np.ndarray, empty_ground_truth: EmptyGroundTruth
) -> ScoredUsers:
    """The users whose values count, by ``Usage`` and ``empty_ground_truth``.

    Raises
    ------
    HostVisibleError
        No user can be scored (every row ``Ignored`` or without a relevant item).

    Examples
    --------
    >>> import pyarrow as pa
    >>> usage = np.array([0, 2, 0], np.int8)  # Public, Ignored, Public
    >>> solution = Solution("id", "items", pa.array(["u1", "u2", "u3"]), usage, None)
    >>> users = users_to_score(solution, np.array([2, 1, 0]), "skip")
    >>> users.scored.tolist(), users.skipped.tolist(), users.ignored.tolist()
    ([True, False, False], [False, False, True], [False, True, False])
    >>> users_to_score(solution, np.array([2, 1, 0]), "zero").scored.tolist()
    [True, False, True]
    >>> users_to_score(solution, np.array([0, 1, 0]), "skip")
    Traceback (most recent call last):
    ...
    scorer.errors.HostVisibleError: No user can be scored: of 3 solution rows, 1 are Ignored and \
2 have no relevant item. Check the solution's target column, or use empty_ground_truth='zero'.
    """
    users = sort_users(solution, n_relevant, empty_ground_truth)
    if not users.scored.any():
        raise no_scorable_user(solution.n_rows, int(users.ignored.sum()), int(users.skipped.sum()))
    return users


def sort_users(
    solution: Solution, n_relevant: np.ndarray, empty_ground_truth: EmptyGroundTruth
) -> ScoredUsers:
    """:func:`users_to_score` without its check that some user is scored: for a part of
    a run, which decides that once every part is in (``scorer.partial``)."""
    ignored = solution.marked("Ignored")
    skipped = (n_relevant == 0) & ~ignored & (empty_ground_truth == "skip")
    if solution.left_out is not None:
        skipped |= solution.left_out & ~ignored
    return ScoredUsers(~ignored & ~skipped, skipped, ignored)


def no_scorable_user(n_rows: int, n_ignored: int, n_skipped: int) -> HostVisibleError:
    """The host's error when no user can be scored, from the counts alone."""
    found = (
        f"of {format_count(n_rows, 'solution row')}, {n_ignored:,} are "
        f"Ignored and {n_skipped:,} have no relevant item"
    )
    fix = "check the solution's target column, or use empty_ground_truth='zero'"
    return HostVisibleError(
        f"No user can be scored: {found}. {fix[0].upper()}{fix[1:]}.",
        [Problem("No scorable user", "a user to score", found, fix)],
    )


def split_labels(solution: Solution, scored: np.ndarray) -> np.ndarray:
    """Each user's split as a label: 0 Public, 1 Private, 2 not scored (a scored user
    of a solution without ``Usage`` counts in the overall mean only, as label 0).

    Examples
    --------
    >>> import pyarrow as pa
    >>> usage = np.array([0, 1, 0], np.int8)  # Public, Private, Public
    >>> solution = Solution("id", "items", pa.array(["u1", "u2", "u3"]), usage, None)
    >>> split_labels(solution, np.array([True, True, False])).tolist()
    [0, 1, 2]
    """
    labels = np.full(len(scored), len(SPLITS), dtype=np.int64)
    if solution.usage is None:
        labels[scored] = 0
        return labels
    for label, split in enumerate(SPLITS):
        labels[scored & solution.marked(split)] = label
    return labels


def unscored_as_nan(values: np.ndarray, scored: np.ndarray) -> np.ndarray:
    """A measure's per-user values, NaN for the users who do not count."""
    return np.where(scored, values, np.nan)


def type_weights(types: Sequence[str], given: Mapping[str, float] | None) -> dict[str, Fraction]:
    """Each target type's weight as the exact rational of the given float; without
    weights, 1 / (number of types) each.

    Raises
    ------
    HostVisibleError
        A weight names a type the solution does not hold, or a type has no weight.

    Examples
    --------
    >>> type_weights(("carts", "clicks"), None)
    {'carts': Fraction(1, 2), 'clicks': Fraction(1, 2)}
    >>> type_weights(("a",), {"a": 0.5})
    {'a': Fraction(1, 2)}
    >>> type_weights(("carts", "clicks"), {"carts": 1.0, "click": 1.0})
    Traceback (most recent call last):
    ...
    scorer.errors.HostVisibleError: type_weights must give a weight to each target type of the \
solution ('carts', 'clicks'): no weight for 'clicks'; not a type of the solution: 'click'. Fix the \
names in type_weights (--type-weight TYPE=W).
    """
    if given is None:
        return {kind: Fraction(1, len(types)) for kind in types}
    missing = [kind for kind in types if kind not in given]
    unknown = sorted(kind for kind in given if kind not in types)  # whatever the order given
    if missing or unknown:
        found = []
        if missing:
            found.append("no weight for " + _quoted(missing))
        if unknown:
            found.append("not a type of the solution: " + _quoted(unknown))
        raise HostVisibleError(
            f"type_weights must give a weight to each target type of the solution "
            f"({_quoted(types)}): {'; '.join(found)}. Fix the names in type_weights "
            "(--type-weight TYPE=W)."
        )
    return {kind: Fraction(given[kind]) for kind in types}


def _quoted(names: Sequence[str]) -> str:
    shown = ", ".join(repr(name) for name in names[:MAX_EXAMPLES])
    return shown + (f" and {len(names) - MAX_EXAMPLES:,} more" if len(names) > MAX_EXAMPLES else "")


@dataclass(frozen=True)
class TypedMeans:
    """Each measure per target type, and the weighted totals Σ w_t · value_t.

    Attributes
    ----------
    overall : dict of str to float
        Measure name -> weighted total over every scored row.
    splits : dict of str to (dict of str to float, or None)
        ``"Public"`` / ``"Private"`` -> the weighted totals over the split's rows
        (``None`` without ``Usage``, or when a type has no scored row in the split).
    by_type : dict of str to dict of str to float
        Type -> measure name -> the type's value over its scored rows.
    split_by_type : dict of str to (dict of str to dict of str to float, or None)
        The same per split.
    """

    overall: dict[str, float]
    splits: dict[str, dict[str, float] | None]
    by_type: dict[str, dict[str, float]]
    split_by_type: dict[str, dict[str, dict[str, float]] | None]


def typed_means(
    values: Mapping[str, Any],
    types: Sequence[str],
    row_type: np.ndarray,
    labels: np.ndarray,
    has_usage: bool,
    weights: Mapping[str, Fraction],
) -> TypedMeans:
    """Each type's value of each measure over its own scored rows, and the weighted
    totals: the exact rational of each type's value (its exact mean) times its exact
    weight, summed and rounded once to the nearest float.

    ``labels`` are :func:`split_labels` (2 for a row not scored).

    Raises
    ------
    HostVisibleError
        A target type has no scored row (its value is undefined).

    Examples
    --------
    >>> from scorer.measures.exact_means import Ratios
    >>> values = {"R@2": Ratios(np.array([1, 1, 1]), np.array([2, 1, 3]))}
    >>> means = typed_means(values, ("a", "b"), np.array([0, 1, 1]), np.array([0, 0, 0]),
    ...                     False, {"a": Fraction(1, 10), "b": Fraction(9, 10)})
    >>> means.by_type, means.overall  # 1/10 * 1/2 + 9/10 * (1 + 1/3) / 2
    ({'a': {'R@2': 0.5}, 'b': {'R@2': 0.6666666666666666}}, {'R@2': 0.65})
    """
    n_types, n_splits = len(types), len(SPLITS)
    scored = labels < n_splits
    by_type_labels = np.where(scored, row_type, n_types)
    by_split_labels = np.where(scored, row_type * n_splits + labels, n_types * n_splits)
    exact = {name: label_means(value, by_type_labels, n_types) for name, value in values.items()}
    per_split = None
    if has_usage:
        per_split = {
            name: label_means(value, by_split_labels, n_types * n_splits)
            for name, value in values.items()
        }
    return weighted_type_means(exact, per_split, types, weights)


def weighted_type_means(
    exact: Mapping[str, Sequence[Fraction | None]],
    per_split: Mapping[str, Sequence[Fraction | None]] | None,
    types: Sequence[str],
    weights: Mapping[str, Fraction],
) -> TypedMeans:
    """The weighted totals and each type's values, from each measure's exact mean per
    type (``exact``) and per type and split (``per_split``, type ``t`` and split ``s``
    at ``t * len(SPLITS) + s``; ``None`` without ``Usage``).

    Raises
    ------
    HostVisibleError
        A target type has no scored row (its value is undefined).
    """
    n_splits = len(SPLITS)
    empty = [
        kind for kind, mean in zip(types, next(iter(exact.values())), strict=True) if mean is None
    ]
    if empty:
        raise HostVisibleError(
            f"No row of the target type(s) {_quoted(empty)} can be scored (each is Ignored or "
            "has no relevant item), so its value is undefined. Check the solution's target "
            "column, or use empty_ground_truth='zero'."
        )
    overall = {name: _weighted(means, types, weights) for name, means in exact.items()}
    by_type = {
        kind: {name: float(means[t]) for name, means in exact.items()}  # type: ignore[arg-type]
        for t, kind in enumerate(types)
    }
    splits: dict[str, dict[str, float] | None] = dict.fromkeys(SPLITS)
    split_by_type: dict[str, dict[str, dict[str, float]] | None] = dict.fromkeys(SPLITS)
    if per_split is not None:
        for s, split in enumerate(SPLITS):
            chosen = {name: means[s::n_splits] for name, means in per_split.items()}
            if any(mean is None for means in chosen.values() for mean in means):
                continue
            splits[split] = {name: _weighted(m, types, weights) for name, m in chosen.items()}
            split_by_type[split] = {
                kind: {name: float(m[t]) for name, m in chosen.items()}  # type: ignore[arg-type]
                for t, kind in enumerate(types)
            }
    return TypedMeans(overall, splits, by_type, split_by_type)


def label_means(value: Any, labels: np.ndarray, n_labels: int) -> list[Fraction | None]:
    """A measure's exact value over each label's rows (``None`` for a label without
    rows): its ``exact_label_means``, or, for a kind of value that has none, the
    rational of its correctly rounded ``split_means``."""
    exact = getattr(value, "exact_label_means", None)
    if exact is not None:
        return exact(labels, n_labels)
    rounded = value.split_means(labels, n_labels).by_label
    return [None if mean is None else Fraction(mean) for mean in rounded]


def _weighted(
    means: Sequence[Fraction | None], types: Sequence[str], weights: Mapping[str, Fraction]
) -> float:
    """Σ w_t · value_t, correctly rounded.

    Raises
    ------
    HostVisibleError
        The total is past the largest float (weights such as 1e308 each).
    """
    total = sum((weights[k] * mean for k, mean in zip(types, means, strict=True)), Fraction(0))  # type: ignore[operator]
    try:
        return float(total)
    except OverflowError:
        raise HostVisibleError(
            "The weighted total of the target types' values is past the largest float "
            f"(about 1.8e308): type_weights {_weights_text(weights)} are too large. Give "
            "smaller weights (OTTO's are 0.1, 0.3 and 0.6)."
        ) from None


def _weights_text(weights: Mapping[str, Fraction]) -> str:
    return "{" + ", ".join(f"{kind!r}: {float(w):g}" for kind, w in weights.items()) + "}"
