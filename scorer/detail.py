"""What a result keeps for statistics: per-user arrays, not a DataFrame.

:class:`UserDetail` is filled by :func:`scorer.evaluate` at the cost of a few numpy
operations (it holds arrays the scoring computed anyway) and read by
:mod:`scorer.stats`. :meth:`UserDetail.user_values` is the one place that turns a
measure's name into per-user values: statistics never know a measure's formula.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from functools import cached_property

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from scorer.columns import StringTable
from scorer.errors import HostVisibleError
from scorer.metrics import AveragePrecision
from scorer.options import Options
from scorer.validate import USAGE_VALUES, Solution

SPLITS = ("public", "private")
"""Split labels, in the order of :attr:`UserDetail.split` codes (0 Public, 1 Private)."""


@dataclass(frozen=True)
class UserValues:
    """One measure's per-user values, as statistics need them.

    Attributes
    ----------
    name : str
        The measure's canonical name, e.g. ``"MAP@10"``.
    values : ndarray of float64
        Each user's value, in solution order (meaningless where not ``scored``).
    scored : ndarray of bool
        Users in the overall mean.
    split : ndarray of int8 or None
        0 for Public, 1 for Private, -1 otherwise; ``None`` without ``Usage``.
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
        >>> v = UserValues("m", np.array([0.5, 1.0, 0.0]), np.array([True, True, False]),
        ...                np.array([1, 0, 0], dtype=np.int8), {})
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
class UserDetail:
    """The per-user arrays of one scoring run, in solution order.

    Attributes
    ----------
    row_ids : pyarrow.Array
        The solution's row ids (the array scoring read; not a copy).
    average_precision : AveragePrecision
        Each user's AP@K as an exact fraction.
    scored : ndarray of bool
        Users in the overall mean.
    split : ndarray of int8 or None
        0 Public, 1 Private, -1 Ignored; ``None`` without ``Usage``.
    n_relevant : ndarray of int64
        ``|R|`` of each user.
    hits_at_rank : ndarray of int64, shape (k,)
        Number of scored users whose prediction at rank i is a credited hit.
    options : Options
        The options of the run.
    means : dict of str to float or None
        The leaderboard measure's overall, Public and Private values.
    segments : tuple of (str, ndarray of int32, tuple of str), optional
        The segment column's name, each user's segment code and the segment names.
    """

    row_ids: pa.Array
    average_precision: AveragePrecision
    scored: np.ndarray
    split: np.ndarray | None
    n_relevant: np.ndarray
    hits_at_rank: np.ndarray
    options: Options
    means: dict[str, float | None]
    segments: tuple[str, np.ndarray, tuple[str, ...]] | None = None

    @property
    def measure_names(self) -> tuple[str, ...]:
        """The canonical names of the measures whose per-user values are kept."""
        return (f"MAP@{self.options.k}",)

    def user_values(self, metric: str | None = None) -> UserValues:
        """The per-user values of ``metric`` (default: the leaderboard measure).

        Float64 values: statistics are estimates, so the exactness of the
        leaderboard score does not extend to them.

        Raises
        ------
        HostVisibleError
            The measure is not one of :attr:`measure_names`.
        """
        name = self.measure_names[0]
        if metric is not None and metric not in (name, f"map_at_{self.options.k}"):
            raise HostVisibleError(
                f"No per-user values for the measure {metric!r}: this result has "
                f"{list(self.measure_names)}. Score with that measure, or pass one of these."
            )
        values = self.average_precision.values()
        return UserValues(name, values, self.scored, self.split, self.means)

    @cached_property
    def fingerprint(self) -> str:
        """A digest of the solution's row ids, splits, |R| and the options.

        Two results with equal fingerprints were scored against the same solution
        rows, in the same order, with the same options: their users pair up.
        """
        digest = hashlib.blake2b(digest_size=16)
        digest.update(json.dumps(asdict(self.options), sort_keys=True).encode())
        offsets, data = _string_parts(self.row_ids)
        digest.update(offsets.tobytes())
        digest.update(data)
        for array in (self.scored, self.n_relevant, self.split):
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


def user_detail(
    solution: Solution,
    average_precision: AveragePrecision,
    relevance: np.ndarray,
    n_relevant: np.ndarray,
    scored: np.ndarray,
    options: Options,
    means: dict[str, float | None],
    segment_column: tuple[str, pa.Array] | None,
) -> UserDetail:
    """Collect what statistics need from one scoring run: a few numpy operations.

    ``relevance`` is the users x width matrix of credited hits (``rel(i)``).
    """
    split = None
    if solution.usage is not None:
        ignored = solution.usage == USAGE_VALUES.index("Ignored")
        split = np.where(ignored, -1, solution.usage).astype(np.int8)
    hits_at_rank = np.zeros(options.k, dtype=np.int64)
    for rank in range(relevance.shape[1]):  # at most k columns
        hits_at_rank[rank] = np.count_nonzero(relevance[:, rank] & scored)
    segments = None
    if segment_column is not None:
        name, labels = segment_column
        encoded = pc.dictionary_encode(labels.fill_null(""))
        codes = np.asarray(encoded.indices.to_numpy(zero_copy_only=False), dtype=np.int32)
        segments = (name, codes, tuple(encoded.dictionary.to_pylist()))
    return UserDetail(
        row_ids=solution.row_ids,
        average_precision=average_precision,
        scored=scored,
        split=split,
        n_relevant=np.asarray(n_relevant, dtype=np.int64),
        hits_at_rank=hits_at_rank,
        options=options,
        means=means,
        segments=segments,
    )


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
