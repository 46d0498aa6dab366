"""The per-user detail a result keeps: one measure's values as statistics read them,
and the host's segment column.

A :class:`~scorer.result.ScoreResult` keeps one set of per-user arrays (each
measure's values, the scored mask, ``Usage``, ``|R|``, in solution order).
:func:`scorer.result.measure_values` is the one place that turns a measure's name
into a :class:`MeasureValues` view of them for :mod:`scorer.stats`: statistics never
know a measure's formula.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from scorer.errors import HostVisibleError, did_you_mean
from scorer.read.columns import StringTable

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
    numerator, denominator : ndarray of float64, or None
        For a measure with ``avg=micro``: each user's parts, whose ratio of sums over
        any group of users is the measure's value on it (``values`` stays each user's
        own ratio). ``None`` for a mean of per-user values.
    """

    name: str
    values: np.ndarray
    scored: np.ndarray
    split: np.ndarray | None
    means: dict[str, float | None]
    numerator: np.ndarray | None = None
    denominator: np.ndarray | None = None

    @property
    def micro(self) -> bool:
        """Whether the measure is a ratio of sums (``avg=micro``)."""
        return self.numerator is not None and self.denominator is not None

    def parts(self, mask: np.ndarray) -> np.ndarray:
        """The masked users' numerators and denominators as columns (micro only).

        Examples
        --------
        >>> v = MeasureValues("m", np.array([1.0, 0.0]), np.array([True, True]), None, {},
        ...                   np.array([1.0, 0.0]), np.array([1.0, 10.0]))
        >>> v.parts(v.scored).tolist()
        [[1.0, 1.0], [0.0, 10.0]]
        """
        if self.numerator is None or self.denominator is None:
            raise ValueError(f"{self.name} is a mean of per-user values, not a ratio of sums")
        return np.column_stack([self.numerator[mask], self.denominator[mask]])

    def masks(self) -> dict[str, np.ndarray]:
        """The scored users of each split (one ``"score"`` mask without Usage)."""
        if self.split is None:
            return {"score": self.scored}
        return {label: self.scored & (self.split == code) for code, label in enumerate(SPLITS)}

    def strata(self) -> dict[str, np.ndarray]:
        """The scored users' values per split (one ``"score"`` stratum without Usage).

        Examples
        --------
        >>> v = MeasureValues("m", np.array([0.5, 1.0, np.nan]), np.array([True, True, False]),
        ...                   np.array([1, 0, 2], dtype=np.int8), {})
        >>> v.strata()
        {'public': array([1.]), 'private': array([0.5])}
        """
        return {label: self.values[mask] for label, mask in self.masks().items()}


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
            f"{list(table.names)}.{did_you_mean(name, table.names)} Pass one of them as "
            "segment_column_name, or add it."
        )
    keep = [i for i, column_name in enumerate(table.names) if column_name != name]
    rest = StringTable(tuple(table.names[i] for i in keep), tuple(table.columns[i] for i in keep))
    return rest, (name, table.column(name))
