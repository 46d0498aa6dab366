"""What a scoring run returns: the scores, counts, warnings and per-user detail."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pyarrow as pa

from scorer.align.joins import byte_order_codes
from scorer.errors import MAX_EXAMPLES, HostVisibleError, format_example
from scorer.options import Options, row_bound
from scorer.per_user import MeasureValues, Segments

if TYPE_CHECKING:
    import pandas as pd

Audience = Literal["participant", "host"]


#: The splits of a result (its keys in JSON) as people read them: tables, the report, --ci.
SPLIT_NAMES = {"score": "overall", "public": "Public", "private": "Private"}


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
        Who may see it. A participant warning is a function of the submission and the
        solution's row ids alone (docs/decisions.md#information-boundary); a host warning may read
        the solution (its items, ``Usage``, empty users) and must not be shown to
        participants.

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
    public_score : float or None
        MAP@K over the Public rows, when the solution has a ``Usage`` column and the
        split has a scorable user.
    private_score : float or None
        The same over the Private rows.
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
        Indexed by row id, in solution order, with one column per measure (``ap``
        when no ``metrics`` were named; NaN when not scored), ``hits`` (within k),
        ``n_relevant`` and ``scored``; only when requested.
    metrics : dict of str to float
        Each measure's canonical name -> its value over every scored user, in the
        order asked; the first is :attr:`score`.
    public_metrics : dict of str to float, or None
        The same over the Public rows (``None`` without ``Usage`` or without a
        scorable user in the split).
    private_metrics : dict of str to float, or None
        The same over the Private rows.
    measures : tuple of str
        The canonical names, in order.
    keys : dict of str to str
        Each canonical name's key in JSON, Codabench and EvalAI output
        (``nDCG(gain=linear)@10`` -> ``ndcg_gain_linear_at_10``); without ``metrics``
        the MAP measure keeps ``map_at_K`` whatever its normalization.

    user_values : dict of str to ndarray of float64
        Each measure's value per user, NaN where the user is not scored.
    exact_values : dict of str to ExactMean or Floats
        The same as exact fractions (or float64 for nDCG): ``.values()`` and a
        correctly rounded ``.mean(mask)`` over any mask of users.
    user_scored : ndarray of bool
        Whether the user is in the overall mean.
    user_usage : ndarray of int8 or None
        The user's ``Usage`` as an index in ``("Public", "Private", "Ignored")``;
        ``None`` without a ``Usage`` column.
    row_ids : pyarrow.Array
        The solution's row ids.
    user_hits : ndarray of int64
        Credited hits within k.
    user_n_relevant : ndarray of int64
        ``|R|``.
    hits_at_rank : ndarray of int64, shape (k,)
        Per rank, the scored users whose prediction there is a credited hit (when k
        is over 1,000, only up to the widest row or rank 1,000, whichever is longer).
    segments : Segments or None
        The host's segment column (``segment_column_name=``): each user's segment.

    by_type : dict of str to dict of str to float, or None
        Type -> measure name -> the type's value over its own scored rows.
    public_by_type : dict or None
        The same over the Public rows (``None`` without ``Usage``, or when a type has
        no scored row in the split).
    private_by_type : dict or None
        The same over the Private rows.
    types : tuple of str
        The solution's target types, in byte order (empty without types).
    weights : dict of str to float, or None
        Each type's weight w_t.
    user_type : ndarray of int64 or None
        Each row's type (an index into :attr:`types`).
    user_group : ndarray of int64 or None
        Each row's bare row id as a code in byte order (the rows of one session share
        it): the statistics draw whole sessions. Made from :attr:`user_bare_row_ids`
        when first read.
    user_bare_row_ids : pyarrow.Array or None
        Each row's row id without its type (with target types).
    run_id : str or None
        A trec_eval run's tag, from its last line (trec_eval's ``runid``); ``None``
        for tables.
    intervals : dict of str to dict of str to Interval, or None
        A run scored in parts with ``resamples=`` (:func:`scorer.partial.finish`):
        per measure, its Poisson bootstrap intervals (``"score"``, and ``"public"``
        and ``"private"`` with ``Usage``; :class:`scorer.stats.Interval` with
        ``method="poisson"``). ``None`` otherwise.

    Notes
    -----
    The per-user arrays (from ``user_values`` on) are always kept (cheap numpy arrays,
    solution order, one entry per solution row), for statistics over users;
    :mod:`scorer.stats` reads them through :meth:`measure_values`.

    With several targets per row id (``target_type_column_name=`` or
    ``row_id_type_separator=``), a "user" is one (row id, type) row, and :attr:`score`,
    :attr:`metrics` and the split tables hold the weighted totals Σ w_t · value_t.
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
    metrics: dict[str, float] = field(default_factory=dict)
    public_metrics: dict[str, float] | None = None
    private_metrics: dict[str, float] | None = None
    measures: tuple[str, ...] = ()
    keys: dict[str, str] = field(default_factory=dict)
    user_values: Mapping[str, np.ndarray] = field(default_factory=dict, repr=False, compare=False)
    exact_values: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)
    user_scored: np.ndarray | None = field(default=None, repr=False, compare=False)
    user_usage: np.ndarray | None = field(default=None, repr=False, compare=False)
    row_ids: pa.Array | None = field(default=None, repr=False, compare=False)
    user_hits: np.ndarray | None = field(default=None, repr=False, compare=False)
    user_n_relevant: np.ndarray | None = field(default=None, repr=False, compare=False)
    hits_at_rank: np.ndarray | None = field(default=None, repr=False, compare=False)
    segments: Segments | None = field(default=None, repr=False, compare=False)
    by_type: dict[str, dict[str, float]] | None = None
    public_by_type: dict[str, dict[str, float]] | None = None
    private_by_type: dict[str, dict[str, float]] | None = None
    types: tuple[str, ...] = ()
    weights: dict[str, float] | None = None
    user_type: np.ndarray | None = field(default=None, repr=False, compare=False)
    user_bare_row_ids: pa.Array | None = field(default=None, repr=False, compare=False)
    run_id: str | None = field(default=None, repr=False, compare=False)
    intervals: dict[str, dict[str, Any]] | None = field(default=None, repr=False, compare=False)

    @cached_property
    def user_group(self) -> np.ndarray | None:
        """Each row's bare row id as a code in byte order (see the class attributes):
        only the statistics read it, so a run makes it only when asked."""
        if self.user_bare_row_ids is None:
            return None
        return byte_order_codes(self.user_bare_row_ids)[0]

    @property
    def metric(self) -> str:
        """The leaderboard measure's key, e.g. ``"map_at_10"`` (see :attr:`keys`)."""
        return self.key(self.measures[0]) if self.measures else f"map_at_{self.options.k}"

    def key(self, name: str) -> str:
        """A measure's key in JSON, Codabench and EvalAI output (:attr:`keys`)."""
        if name in self.keys:
            return self.keys[name]
        from scorer.measures import codabench_key

        return codabench_key(name)

    @property
    def per_user_ap(self) -> pd.Series | None:
        """AP@K of each user as a Series indexed by row id (NaN when not scored)."""
        if self.per_user is None:
            return None
        if "ap" in self.per_user:
            return self.per_user["ap"]
        name = next((m for m in self.measures if m.startswith("MAP")), None)
        return None if name is None else self.per_user[name]

    def measure_values(self, metric: object = None) -> MeasureValues:
        """One measure's per-user values, scored mask, splits and means, for statistics.

        ``metric`` is any name the registry parses (canonical, alias or any case, e.g.
        ``"ndcg@5"``) or an output key (``"map_at_10"``); default the leaderboard's.
        A view of :attr:`user_values` and the other arrays, not a copy.

        Raises
        ------
        HostVisibleError
            The measure was not computed for this result (the message lists those
            that were), or the result keeps no per-user arrays.
        """
        return measure_values(self, metric)

    @cached_property
    def fingerprint(self) -> str:
        """A digest of the solution's row ids, splits, ``|R|``, scored users and the
        options (graded ones included): equal for two results whose users pair up."""
        return fingerprint(self)

    def __repr__(self) -> str:
        """One short line: the score, each measure's value and the counts (everything
        else: :meth:`to_dict`, the attributes).

        Examples
        --------
        >>> import pandas as pd, scorer
        >>> table = pd.DataFrame({"id": ["u1", "u2"], "items": ["a", "b"]})
        >>> scorer.evaluate(table, table.assign(items=["a", "x"]), "id", k=2)
        ScoreResult(score=0.5, metrics={'MAP@2': 0.5}, n_users=2, n_scored=2, warnings=1)
        """
        splits = (
            ""
            if self.public_score is None and self.private_score is None
            else (f", public_score={self.public_score!r}, private_score={self.private_score!r}")
        )
        return (
            f"ScoreResult(score={self.score!r}{splits}, metrics={self.metrics!r}, "
            f"n_users={self.n_users}, n_scored={self.n_scored}, warnings={len(self.warnings)})"
        )

    def to_dict(self) -> dict[str, Any]:
        """Everything but the per-user table, as plain JSON-ready values (with target
        types, also ``types``, ``weights``, ``by_type``, ``public_by_type`` and
        ``private_by_type``)."""
        data = {
            "metric": self.metric,
            "score": self.score,
            "public_score": self.public_score,
            "private_score": self.private_score,
            "n_users": self.n_users,
            "n_scored": self.n_scored,
            "n_skipped": self.n_skipped,
            "n_ignored": self.n_ignored,
            "metrics": dict(self.metrics),
            "public_metrics": None if self.public_metrics is None else dict(self.public_metrics),
            "private_metrics": None if self.private_metrics is None else dict(self.private_metrics),
            "options": asdict(self.options),
            "warnings": [{**asdict(w), "examples": list(w.examples)} for w in self.warnings],
        }
        if self.by_type is not None:
            data.update(
                types=list(self.types),
                weights=dict(self.weights or {}),
                by_type=_copied(self.by_type),
                public_by_type=_copied(self.public_by_type),
                private_by_type=_copied(self.private_by_type),
            )
        return data

    def typed_keys(self, split: str = "") -> dict[str, float]:
        """Each type's value of each measure under its output key, the type appended
        (``recall_at_20_clicks``; ``split`` ``"public"`` or ``"private"`` adds its
        suffix: ``recall_at_20_clicks_public``); empty without types."""
        tables = {"": self.by_type, "public": self.public_by_type, "private": self.private_by_type}
        table = tables[split]
        suffix = f"_{split}" if split else ""
        return {
            f"{self.key(name)}_{kind}{suffix}": value
            for kind, values in (table or {}).items()
            for name, value in values.items()
        }


def _copied(table: dict[str, dict[str, float]] | None) -> dict[str, dict[str, float]] | None:
    return None if table is None else {kind: dict(values) for kind, values in table.items()}


def measure_name(result: ScoreResult, metric: object = None) -> str:
    """The canonical name of a measure computed for ``result``.

    ``metric`` is a name the registry parses (in any case, with the run's ``k`` and
    ``normalization`` as defaults), an output key such as ``"map_at_10"``, or
    ``None`` for the leaderboard's (first) measure.

    Raises
    ------
    HostVisibleError
        The name does not parse, or the measure was not computed for this result;
        the message lists the computed ones.

    Examples
    --------
    >>> import pandas as pd, scorer
    >>> table = pd.DataFrame({"id": ["u"], "items": ["x"]})
    >>> result = scorer.evaluate(table, table, k=5, metrics=["MAP", "nDCG@3"])
    >>> measure_name(result), measure_name(result, "ndcg@3"), measure_name(result, "map_at_5")
    ('MAP@5', 'nDCG@3', 'MAP@5')
    >>> measure_name(result, "P@5")
    Traceback (most recent call last):
    ...
    scorer.errors.HostVisibleError: The measure 'P@5' (P@5) was not computed for this result, ...
    """
    computed = result.measures or (f"MAP@{result.options.k}",)
    if metric is None:
        return computed[0]
    if isinstance(metric, str):
        if metric in computed:
            return metric
        by_key = {key: name for name, key in result.keys.items()}
        if metric in by_key:
            return by_key[metric]
    from scorer.measures import parse

    options = result.options
    try:
        dialect = options.dialect or "kaggle"
        name = str(parse(metric, row_bound(options.k), options.normalization, dialect))  # type: ignore[arg-type]
    except HostVisibleError as exc:
        raise HostVisibleError(f"{exc} This result has {list(computed)}.") from exc
    if name not in computed:
        raise HostVisibleError(
            f"The measure {metric!r} ({name}) was not computed for this result, which has "
            f"{list(computed)}. Score with that measure too (metrics=[...], on the command "
            "line -m NAME), or pass one of these."
        )
    return name


def measure_values(result: ScoreResult, metric: object = None) -> MeasureValues:
    """The per-user values of ``metric`` (see :func:`measure_name`), as views.

    Float64 values: statistics are estimates, so the exactness of the leaderboard
    score does not extend to them. A measure with ``avg=micro`` also gives each user's
    numerator and denominator, from which statistics recompute its ratio of sums.

    Raises
    ------
    HostVisibleError
        The measure was not computed, or the result keeps no per-user arrays, or it is
        GAP (no mean over rows).
    """
    require_arrays(result)
    name = measure_name(result, metric)
    splits = {"public": result.public_metrics, "private": result.private_metrics}
    means: dict[str, float | None] = {"score": result.metrics.get(name, result.score)}
    if result.user_usage is not None:
        means.update(
            {label: None if found is None else found[name] for label, found in splits.items()}
        )
    from scorer.measures.aggregates import NOT_A_MEAN as AGGREGATE
    from scorer.measures.aggregates import GeometricMean, Total
    from scorer.measures.exact_means import MicroRatios
    from scorer.measures.global_precision import NOT_A_MEAN, GlobalPrecision

    exact = result.exact_values.get(name)
    if isinstance(exact, (Total, GeometricMean)):
        raise HostVisibleError(
            f"The statistics do not support {name}: " + AGGREGATE + "they add per-row values. "
            "Use them with a measure whose value is a mean of per-row values."
        )
    if isinstance(exact, GlobalPrecision):
        raise HostVisibleError(
            f"Only bootstrap intervals of {name} are supported (comparisons, shake-up and "
            "diagnostics are not): " + NOT_A_MEAN + "these statistics add per-row values. "
            "Use them with a per-row measure scored beside it (P@1 is the share of right "
            "labels)."
        )
    parts = (None, None)
    if isinstance(exact, MicroRatios):  # statistics recompute its ratio of sums
        parts = (exact.numerator.astype(np.float64), exact.denominator.astype(np.float64))
    return MeasureValues(
        name, result.user_values[name], result.user_scored, result.user_usage, means, *parts
    )


def whole_data_values(result: ScoreResult, metric: object = None) -> tuple[str, Any] | None:
    """The name and the judged predictions of ``metric`` when it is a whole-data
    measure (GAP: :class:`~scorer.measures.global_precision.GlobalPrecision`), which
    the bootstrap resamples by recomputing it; ``None`` for a measure of per-user values.
    """
    require_arrays(result)
    from scorer.measures.global_precision import GlobalPrecision

    name = measure_name(result, metric)
    exact = result.exact_values.get(name)
    return (name, exact) if isinstance(exact, GlobalPrecision) else None


def require_arrays(result: ScoreResult) -> None:
    """Raise a :class:`HostVisibleError` unless the result keeps its per-user arrays."""
    if result.user_scored is None or result.row_ids is None:
        raise HostVisibleError(
            "This result keeps no per-user values; use the result of scorer.evaluate()."
        )


def fingerprint(result: ScoreResult) -> str:
    """A digest of the solution's row ids, splits, ``|R|``, scored users and options.

    Two results with equal fingerprints were scored against the same solution rows,
    in the same order, with the same options (graded relevance included): their
    users pair up.
    """
    require_arrays(result)
    digest = hashlib.blake2b(digest_size=16)
    digest.update(json.dumps(asdict(result.options), sort_keys=True).encode())
    offsets, data = _string_parts(result.row_ids)  # type: ignore[arg-type]
    digest.update(offsets.tobytes())
    digest.update(data)
    for array in (result.user_scored, result.user_n_relevant, result.user_usage):
        digest.update(b"none" if array is None else np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()


def _string_parts(strings: pa.Array) -> tuple[np.ndarray, memoryview]:
    """The offsets (from 0) and the bytes of a string array, whatever its layout.

    Examples
    --------
    >>> offsets, data = _string_parts(pa.array(["x", "ab", "c"]).slice(1))
    >>> offsets.tolist(), bytes(data)
    ([0, 2, 3], b'abc')
    """
    if isinstance(strings, pa.ChunkedArray):
        strings = strings.combine_chunks()
    if strings.type != pa.large_string():
        strings = strings.cast(pa.large_string())
    _, offset_buffer, data_buffer = strings.buffers()
    offsets = np.frombuffer(offset_buffer, dtype=np.int64)
    offsets = offsets[strings.offset : strings.offset + len(strings) + 1]
    start, end = (int(offsets[0]), int(offsets[-1])) if len(offsets) else (0, 0)
    data = memoryview(data_buffer)[start:end] if data_buffer is not None else memoryview(b"")
    return offsets - start, data
