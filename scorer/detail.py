"""What statistics read from a result: views of its per-user arrays, never copies.

A :class:`~scorer.result.ScoreResult` keeps one set of per-user arrays (each
measure's values, the scored mask, ``Usage``, ``|R|``, in solution order).
:func:`measure_values` is the one place that turns a measure's name into a view of
them for :mod:`scorer.stats`: statistics never know a measure's formula.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from scorer.errors import HostVisibleError
from scorer.read.columns import StringTable

if TYPE_CHECKING:
    from scorer.result import ScoreResult

SPLITS = ("public", "private")
"""Split labels, in the order of the ``Usage`` codes (0 Public, 1 Private; 2 Ignored)."""


@dataclass(frozen=True)
class MeasureValues:
    """One measure's per-user values, as statistics need them.

    Attributes
    ----------
    name : str
        The measure's canonical name, e.g. ``"MAP@10"``.
    values : ndarray of float64
        Each user's value, in solution order (NaN where not ``scored``).
    scored : ndarray of bool
        Users in the overall mean.
    split : ndarray of int8 or None
        Each user's ``Usage`` code: 0 Public, 1 Private, 2 Ignored; ``None``
        without ``Usage``.
    means : dict of str to float or None
        The result's own values of the measure: ``"score"``, and ``"public"`` and
        ``"private"`` when ``Usage`` exists (``None`` for a split without a user).
    """

    name: str
    values: np.ndarray
    scored: np.ndarray
    split: np.ndarray | None
    means: dict[str, float | None]

    def strata(self) -> dict[str, np.ndarray]:
        """The scored users' values per split (one ``"score"`` stratum without Usage).

        Examples
        --------
        >>> v = MeasureValues("m", np.array([0.5, 1.0, np.nan]), np.array([True, True, False]),
        ...                   np.array([1, 0, 2], dtype=np.int8), {})
        >>> v.strata()
        {'public': array([1.]), 'private': array([0.5])}
        """
        if self.split is None:
            return {"score": self.values[self.scored]}
        return {
            label: self.values[self.scored & (self.split == code)]
            for code, label in enumerate(SPLITS)
        }


@dataclass(frozen=True)
class Segments:
    """The host's segment column: each user's segment, as codes into ``names``.

    Attributes
    ----------
    column : str
        The solution column's name.
    codes : ndarray of int32
        Each user's segment, an index into ``names`` (solution order).
    names : tuple of str
        The segments (a missing label is the segment ``""``).

    Examples
    --------
    >>> s = Segments.from_column("country", pa.array(["se", "de", None, "se"]))
    >>> s.codes.tolist(), s.names
    ([0, 1, 2, 0], ('se', 'de', ''))
    """

    column: str
    codes: np.ndarray
    names: tuple[str, ...]

    @classmethod
    def from_column(cls, column: str, labels: pa.Array) -> Segments:
        """Encode a column of labels (nulls become ``""``)."""
        if isinstance(labels, pa.ChunkedArray):
            labels = labels.combine_chunks()
        encoded = pc.dictionary_encode(labels.fill_null(""))
        codes = np.asarray(encoded.indices.to_numpy(zero_copy_only=False), dtype=np.int32)
        return cls(column, codes, tuple(encoded.dictionary.to_pylist()))


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
        name = str(parse(metric, options.k, options.normalization))  # type: ignore[arg-type]
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
    score does not extend to them.

    Raises
    ------
    HostVisibleError
        The measure was not computed, or the result keeps no per-user arrays.
    """
    require_arrays(result)
    name = measure_name(result, metric)
    splits = {"public": result.public_metrics, "private": result.private_metrics}
    means: dict[str, float | None] = {"score": result.metrics.get(name, result.score)}
    if result.user_usage is not None:
        means.update(
            {label: None if found is None else found[name] for label, found in splits.items()}
        )
    return MeasureValues(
        name, result.user_values[name], result.user_scored, result.user_usage, means
    )


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


def take_segment_column(
    table: StringTable, name: str | None
) -> tuple[StringTable, tuple[str, pa.Array] | None]:
    """Set the host's segment column aside, so that validation sees the usual columns.

    Raises
    ------
    HostVisibleError
        The solution has no column of that name.

    Examples
    --------
    >>> table = StringTable(("id", "items", "country"), (pa.array(["u"]),) * 3)
    >>> rest, (name, labels) = take_segment_column(table, "country")
    >>> rest.names, name, labels.to_pylist()
    (('id', 'items'), 'country', ['u'])
    """
    if name is None:
        return table, None
    if name not in table.names:
        raise HostVisibleError(
            f"The segment column {name!r} is not in the solution, whose columns are "
            f"{list(table.names)}. Pass one of them as segment_column_name, or add it."
        )
    keep = [i for i, column_name in enumerate(table.names) if column_name != name]
    rest = StringTable(tuple(table.names[i] for i in keep), tuple(table.columns[i] for i in keep))
    return rest, (name, table.column(name))
