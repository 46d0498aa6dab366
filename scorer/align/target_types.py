"""Several targets per row id (OTTO): each row's target type, and a table per type.

A row id such as ``12899779_carts`` is split at its last separator into the row id
``12899779`` and the type ``carts`` (OTTO's reference code splits at the only ``_``;
splitting at the last one also keeps row ids that hold the separator themselves), or
the type is read from a column of its own. Each type's rows then form a table of
their own, scored as its own measure.

Types are coded by sorting (:func:`~scorer.align.joins.byte_order_codes`), never by a
hash of the participant's strings; the only loop is over the solution's types, which
the host sets (at most :data:`MAX_TARGET_TYPES`). Problems are returned, not raised.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from scorer.align.joins import byte_order_codes, sorted_first_index
from scorer.align.long_layout import smallest_flagged
from scorer.arrays import text_column, to_arrow, to_numpy, to_strings
from scorer.errors import MAX_EXAMPLES, Problem, format_count, format_example
from scorer.read.columns import StringTable

#: The most target types a solution may hold: each is scored as a measure of its own.
MAX_TARGET_TYPES = 1000


@dataclass(frozen=True)
class TypedRows:
    """Each row's bare row id and target type.

    Attributes
    ----------
    row_ids : pyarrow.Array
        The row id without its type (``large_string``).
    types : pyarrow.Array
        The type of each row.
    problems : tuple of Problem
        Row ids without a separator, or with nothing before or after it.
    """

    row_ids: pa.Array
    types: pa.Array
    problems: tuple[Problem, ...]


def split_row_id_types(row_ids: pa.Array, separator: str, column: str = "row id") -> TypedRows:
    """Split each row id at its last ``separator`` into (row id, type).

    Examples
    --------
    >>> typed = split_row_id_types(pa.array(["12_carts", "a_b_orders", "7", "_clicks"]), "_")
    >>> typed.row_ids.to_pylist(), typed.types.to_pylist()
    (['12', 'a_b', '7', ''], ['carts', 'orders', '', 'clicks'])
    >>> print(typed.problems[0].render())
    Row ids without a target type
       expected: each row id as ROW_TYPE, split at its last '_' (e.g. '42_clicks')
       found:    2 rows whose row id has no '_' or nothing before or after its last one
       examples (row ids): '7', '_clicks'
       fix:      write every row id as the row id, '_' and the target type
    """
    if not separator:
        raise ValueError("the separator must not be empty")
    ids = text_column(row_ids)
    parts = pc.split_pattern(ids, separator, max_splits=1, reverse=True)
    n_parts = to_numpy(pc.list_value_length(parts), fill=0)
    split = n_parts == 2
    pairs = pc.if_else(to_arrow(split), parts, pa.scalar(["", ""], parts.type))
    bare = pc.if_else(to_arrow(split), pc.list_element(pairs, 0), ids)
    types = pc.list_element(pairs, 1)
    bad = ~split | _empty(bare) | _empty(types)
    problems = []
    if bad.any():
        codes, distinct = byte_order_codes(ids)
        problems.append(
            Problem(
                "Row ids without a target type",
                f"each {column} as ROW{separator}TYPE, split at its last {separator!r} "
                f"(e.g. {'42' + separator + 'clicks'!r})",
                f"{format_count(int(np.count_nonzero(bad)), 'row')} whose {column} has no "
                f"{separator!r} or nothing before or after its last one",
                f"write every {column} as the row id, {separator!r} and the target type",
                smallest_flagged(distinct, codes, bad),
            )
        )
    return TypedRows(text_column(bare), text_column(types), tuple(problems))


def solution_types(types: pa.Array) -> tuple[tuple[str, ...], list[Problem]]:
    """The solution's distinct target types in byte order (at most
    :data:`MAX_TARGET_TYPES`), and a (host) problem when there are more.

    Examples
    --------
    >>> solution_types(pa.array(["orders", "clicks", "carts", "clicks"]))
    (('carts', 'clicks', 'orders'), [])
    """
    _, distinct = byte_order_codes(types)
    if len(distinct) <= MAX_TARGET_TYPES:
        return tuple(distinct.to_pylist()), []
    shown = ", ".join(format_example(t) for t in distinct.slice(0, MAX_EXAMPLES).to_pylist())
    problem = Problem(
        "Too many target types",
        f"at most {MAX_TARGET_TYPES:,} target types (each is scored as a measure of its own)",
        f"{format_count(len(distinct), 'type')}, e.g. {shown}",
        "check the type column or the row-id separator",
    )
    return tuple(distinct.slice(0, MAX_TARGET_TYPES).to_pylist()), [problem]


def rows_by_type(
    types: pa.Array, known: Sequence[str], row_ids: pa.Array | None = None
) -> tuple[dict[str, np.ndarray], list[Problem]]:
    """The positions of each known type's rows (in row order), and a problem naming
    rows whose type is not known (the types are public: the sample submission holds
    them).

    Examples
    --------
    >>> positions, problems = rows_by_type(pa.array(["b", "a", "x", "b"]), ("a", "b"))
    >>> {t: p.tolist() for t, p in positions.items()}, problems[0].found
    ({'a': [1], 'b': [0, 3]}, "1 row whose type is not one of 'a', 'b': e.g. 'x'")
    """
    known_strings = to_strings(list(known))
    index = sorted_first_index(text_column(types), known_strings)
    order = np.argsort(index, kind="stable")
    bounds = np.searchsorted(index[order], np.arange(len(known) + 1))
    positions = {t: order[bounds[i] : bounds[i + 1]] for i, t in enumerate(known)}
    unknown = index < 0
    if not unknown.any():
        return positions, []
    _, distinct = byte_order_codes(text_column(types).filter(to_arrow(unknown)))
    shown = ", ".join(format_example(t) for t in distinct.slice(0, MAX_EXAMPLES).to_pylist())
    allowed = ", ".join(format_example(t) for t in known[:MAX_EXAMPLES])
    examples: tuple[str, ...] = ()
    if row_ids is not None:
        codes, ids = byte_order_codes(text_column(row_ids))
        examples = smallest_flagged(ids, codes, unknown)
    problem = Problem(
        "Unknown target types",
        f"each type one of {allowed}" + (", ..." if len(known) > MAX_EXAMPLES else ""),
        f"{format_count(int(np.count_nonzero(unknown)), 'row')} whose type is not one of "
        f"{allowed}: e.g. {shown}",
        "use the target types of the sample submission exactly",
        examples,
    )
    return positions, [problem]


def typed_by_column(row_ids: pa.Array, types: pa.Array, column: str = "type") -> TypedRows:
    """Each row's row id and its type from a column of its own (an empty type is a
    problem).

    Examples
    --------
    >>> typed = typed_by_column(pa.array(["1", "2"]), pa.array(["carts", ""]))
    >>> typed.types.to_pylist(), typed.problems[0].examples
    (['carts', ''], ('2',))
    """
    ids, types = text_column(row_ids), text_column(types)
    empty = _empty(types)
    problems = []
    if empty.any():
        codes, distinct = byte_order_codes(ids)
        problems.append(
            Problem(
                "Empty target types",
                f"a target type in every row's {column!r} cell",
                f"{format_count(int(np.count_nonzero(empty)), 'row')} with an empty {column!r}",
                "give every row its target type, as in the sample submission",
                smallest_flagged(distinct, codes, empty),
            )
        )
    return TypedRows(ids, types, tuple(problems))


def tables_by_type(
    table: StringTable,
    row_id_name: str,
    typed: TypedRows,
    known: Sequence[str],
    type_column: str | None = None,
) -> tuple[dict[str, StringTable], list[Problem]]:
    """The table's rows of each known type, their row-id column holding the bare row
    id (and without ``type_column``), and a problem naming rows of an unknown type.

    Examples
    --------
    >>> ids, items = pa.array(["1_b", "1_a", "2_a"]), pa.array(["x", "y", "z"])
    >>> table = StringTable(("id", "items"), (ids, items))
    >>> typed = split_row_id_types(table.column("id"), "_")
    >>> tables, problems = tables_by_type(table, "id", typed, ("a", "b"))
    >>> [(t, s.column("id").to_pylist(), s.column("items").to_pylist()) for t, s in tables.items()]
    [('a', ['1', '2'], ['y', 'z']), ('b', ['1'], ['x'])]
    """
    positions, problems = rows_by_type(typed.types, known, typed.row_ids)
    kept = [
        (name, typed.row_ids if name == row_id_name else column)
        for name, column in zip(table.names, table.columns, strict=True)
        if name != type_column
    ]
    names = tuple(name for name, _ in kept)
    tables = {
        kind: StringTable(names, tuple(column.take(to_arrow(rows)) for _, column in kept))
        for kind, rows in positions.items()
    }
    return tables, problems


def _empty(strings: pa.Array) -> np.ndarray:
    return to_numpy(pc.equal(pc.binary_length(strings), 0), fill=True)
