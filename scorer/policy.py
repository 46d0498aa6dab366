"""The scoring policy: which users are scored, and in which split they count.

Measures compute a value for every user (:mod:`scorer.measures`); this module alone
decides which of those values count. A user whose ``Usage`` is ``Ignored`` never
counts. A user with no relevant item is left out (``empty_ground_truth="skip"``) or
counts with the value its measures give it, 0 (``"zero"``). Each scored user counts
in the overall mean and in its ``Usage`` split. A solution with no user left to score
is the host's error.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scorer.check.validate import Solution
from scorer.errors import HostVisibleError, Problem, format_count
from scorer.options import EmptyGroundTruth

#: The splits a ``Usage`` column names, in the order of their labels.
SPLITS = ("Public", "Private")


@dataclass(frozen=True)
class ScoredUsers:
    """Per solution row: whether the user is scored, skipped or ignored.

    Attributes
    ----------
    scored, skipped, ignored : ndarray of bool
        ``skipped``: no relevant item, left out by ``empty_ground_truth="skip"``;
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
