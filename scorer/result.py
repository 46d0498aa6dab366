"""What a scoring run returns: the scores, counts, warnings and per-user detail."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from scorer.errors import MAX_EXAMPLES, format_example
from scorer.options import Options

if TYPE_CHECKING:
    import pandas as pd

    from scorer.detail import UserDetail, UserValues

Audience = Literal["participant", "host"]


@dataclass(frozen=True)
class ScoreWarning:
    """Something worth knowing that does not invalidate the submission.

    Attributes
    ----------
    code : str
        Stable identifier, e.g. ``"repeated_items"``.
    message : str
        One readable sentence with the count.
    count : int
        Number of rows concerned.
    examples : tuple of str
        Up to five example row ids.
    audience : {"participant", "host"}
        Who the warning is about: the submission or the solution.

    Examples
    --------
    >>> w = ScoreWarning("empty_rows", "1 row has no prediction.", 1, ("u3",), "participant")
    >>> str(w)
    "1 row has no prediction. Examples: 'u3'"
    """

    code: str
    message: str
    count: int
    examples: tuple[str, ...]
    audience: Audience

    def __str__(self) -> str:
        if not self.examples:
            return self.message
        shown = ", ".join(format_example(e) for e in self.examples[:MAX_EXAMPLES])
        return f"{self.message} Examples: {shown}"


@dataclass(frozen=True)
class ScoreResult:
    """The outcome of :func:`scorer.evaluate`.

    Attributes
    ----------
    score : float
        MAP@K over every scored user (``Usage`` ``Public`` and ``Private`` together).
    public_score, private_score : float or None
        MAP@K over the Public and Private rows, when the solution has a ``Usage``
        column and the split has a scorable user.
    n_users : int
        Rows in the solution.
    n_scored : int
        Users in the overall mean.
    n_skipped : int
        Users left out because they have no relevant item (``empty_ground_truth="skip"``).
    n_ignored : int
        Users whose ``Usage`` is ``Ignored``.
    options : Options
        The options used.
    warnings : tuple of ScoreWarning
        Warnings about the submission and the solution.
    per_user : pandas.DataFrame or None
        Indexed by row id, in solution order, with columns ``ap`` (NaN when not
        scored), ``hits``, ``n_relevant`` and ``scored``; only when requested.
    detail : UserDetail or None
        Per-user arrays for :mod:`scorer.stats` (kept without ``per_user=True``; read
        them through :meth:`user_values`).
    """

    score: float
    public_score: float | None
    private_score: float | None
    n_users: int
    n_scored: int
    n_skipped: int
    n_ignored: int
    options: Options
    warnings: tuple[ScoreWarning, ...]
    per_user: pd.DataFrame | None = None
    detail: UserDetail | None = field(default=None, repr=False, compare=False)

    @property
    def metric(self) -> str:
        """The metric's name as a key, e.g. ``"map_at_10"``."""
        return f"map_at_{self.options.k}"

    @property
    def per_user_ap(self) -> pd.Series | None:
        """AP@K of each user as a Series indexed by row id (NaN when not scored)."""
        return None if self.per_user is None else self.per_user["ap"]

    def user_values(self, metric: str | None = None) -> UserValues:
        """Per-user values of a measure (default: the leaderboard's), for statistics.

        Raises
        ------
        HostVisibleError
            The result keeps no per-user detail, or not for this measure.
        """
        if self.detail is None:
            from scorer.errors import HostVisibleError

            raise HostVisibleError(
                "This result keeps no per-user detail; use the result of scorer.evaluate()."
            )
        return self.detail.user_values(metric)

    def to_dict(self) -> dict[str, Any]:
        """Everything but the per-user table, as plain JSON-ready values."""
        return {
            "metric": self.metric,
            "score": self.score,
            "public_score": self.public_score,
            "private_score": self.private_score,
            "n_users": self.n_users,
            "n_scored": self.n_scored,
            "n_skipped": self.n_skipped,
            "n_ignored": self.n_ignored,
            "options": asdict(self.options),
            "warnings": [{**asdict(w), "examples": list(w.examples)} for w in self.warnings],
        }
