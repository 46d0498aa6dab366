"""The scoring options, validated once, with scikit-learn-shaped messages."""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Literal

from scorer.errors import HostVisibleError

EmptyGroundTruth = Literal["skip", "zero"]
ExtraPredictions = Literal["error", "truncate"]
Normalization = Literal["min_k", "relevant", "hits"]
UnknownRowIds = Literal["error", "ignore"]

EMPTY_GROUND_TRUTH: tuple[str, ...] = ("skip", "zero")
EXTRA_PREDICTIONS: tuple[str, ...] = ("error", "truncate")
NORMALIZATIONS: tuple[str, ...] = ("min_k", "relevant", "hits")
UNKNOWN_ROW_IDS: tuple[str, ...] = ("error", "ignore")


@dataclass(frozen=True)
class Options:
    """Everything a host can choose about how MAP@K is computed.

    Parameters
    ----------
    k : int, default 10
        Cut-off: only the first ``k`` predictions of a row are scored.
    empty_ground_truth : {"skip", "zero"}, default "skip"
        Users with no relevant item: excluded from the mean (H&M) or counted as AP 0
        (Santander).
    extra_predictions : {"error", "truncate"}, default "error"
        A row with more than ``k`` predictions is invalid, or only its first ``k`` count.
    normalization : {"min_k", "relevant", "hits"}, default "min_k"
        Divide a user's summed precision by ``min(|R|, k)`` (Kaggle), ``|R|``
        (trec_eval ``map_cut``) or the number of hits in the top ``k`` (torchmetrics).
    unknown_row_ids : {"error", "ignore"}, default "error"
        Submission rows whose id is not in the solution are invalid, or dropped.
    grade_column_name : str, optional
        The solution's column of graded relevance; ``None`` for binary relevance.
    relevance_threshold : int, default 1
        The smallest grade the binary measures count as relevant.

    Examples
    --------
    >>> Options(k=12).k
    12
    >>> Options(k=0)
    Traceback (most recent call last):
    ...
    scorer.errors.HostVisibleError: The 'k' parameter must be an int in the range [1, inf). ...
    >>> Options(normalization="kaggle")
    Traceback (most recent call last):
    ...
    scorer.errors.HostVisibleError: The 'normalization' parameter must be a str among [...]. ...
    """

    k: int = 10
    empty_ground_truth: EmptyGroundTruth = "skip"
    extra_predictions: ExtraPredictions = "error"
    normalization: Normalization = "min_k"
    unknown_row_ids: UnknownRowIds = "error"
    grade_column_name: str | None = None
    relevance_threshold: int = 1

    def __post_init__(self) -> None:
        k = self.k
        if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
            raise HostVisibleError(
                f"The 'k' parameter must be an int in the range [1, inf). Got {k!r} instead."
            )
        object.__setattr__(self, "k", int(k))
        _check_choice("empty_ground_truth", self.empty_ground_truth, EMPTY_GROUND_TRUTH)
        _check_choice("extra_predictions", self.extra_predictions, EXTRA_PREDICTIONS)
        _check_choice("normalization", self.normalization, NORMALIZATIONS)
        _check_choice("unknown_row_ids", self.unknown_row_ids, UNKNOWN_ROW_IDS)
        threshold = self.relevance_threshold
        if (
            isinstance(threshold, bool)
            or not isinstance(threshold, numbers.Integral)
            or threshold < 1
        ):
            raise HostVisibleError(
                "The 'relevance_threshold' parameter must be an int in the range [1, inf). "
                f"Got {threshold!r} instead."
            )
        object.__setattr__(self, "relevance_threshold", int(threshold))


def _check_choice(name: str, value: object, allowed: tuple[str, ...]) -> None:
    if not isinstance(value, str) or value not in allowed:
        raise HostVisibleError(
            f"The {name!r} parameter must be a str among {list(allowed)}. Got {value!r} instead."
        )
