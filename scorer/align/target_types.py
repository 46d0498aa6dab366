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

from scorer.align.joins import byte_order_codes, first_index_of, solution_byte_order_codes
from scorer.align.long_layout import smallest_flagged
from scorer.arrays import (
    BLOCK_ROWS,
    empty_strings,
    parallel_map,
    string_offsets,
    text_column,
    to_arrow,
    to_strings,
)
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
    bare, types, split = _split_at_last(ids, separator.encode())
    bad = ~split | empty_strings(bare) | empty_strings(types)
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


def _split_at_last(strings: pa.Array, separator: bytes) -> tuple[pa.Array, pa.Array, np.ndarray]:
    """Each string's part before its last ``separator`` and the part after it (the
    whole string and the empty string when it holds none), and whether it holds one.

    The cuts are found with numpy a chunk of strings at a time (the separator's bytes
    compared at every position, the last one before each string's end found by a
    binary search), and both parts taken from one view of the same bytes: ``before``,
    ``separator`` and ``after`` of each string are three consecutive pieces of it.

    Examples
    --------
    >>> strings = pa.array(["1_a_b", "c", "_"], pa.large_string())
    >>> before, after, split = _split_at_last(strings, b"_")
    >>> before.to_pylist(), after.to_pylist(), split.tolist()
    (['1_a', 'c', ''], ['b', '', ''], [True, False, True])
    """
    offsets = string_offsets(strings)
    n = len(strings)
    data = strings.buffers()[2] or pa.py_buffer(b"")
    memory = np.frombuffer(data, dtype=np.uint8)
    width = len(separator)
    needle = np.frombuffer(separator, dtype=np.uint8)
    cuts = offsets[1:].copy()
    split = np.zeros(n, dtype=bool)
    # Chunks of at most BLOCK_ROWS strings and about _SPLIT_BYTES bytes (a longer
    # string alone): the flags and positions of a chunk's bytes stay small.
    by_bytes = np.searchsorted(offsets, np.arange(offsets[0], offsets[-1], _SPLIT_BYTES))
    bounds = np.union1d(np.maximum(by_bytes - 1, 0), np.arange(0, n + 1, BLOCK_ROWS))

    def cut(first: int, stop: int, cuts: np.ndarray = cuts) -> None:
        """Find the chunk's cuts (chunks at once on the pool: each writes its own rows)."""
        if first >= stop:
            return
        low, high = int(offsets[first]), int(offsets[stop])
        window = memory[low:high]
        places = max(len(window) - width + 1, 0)
        at = window[:places] == needle[0]
        for shift in range(1, width):  # the host's separator: a few bytes
            at &= window[shift : shift + places] == needle[shift]
        at = np.flatnonzero(at)
        at += low
        ends = offsets[first + 1 : stop + 1]
        last = np.searchsorted(at, ends - width, side="right") - 1
        found = at[np.maximum(last, 0)] if len(at) else np.zeros(stop - first, np.int64)
        holds = (last >= 0) & (found >= offsets[first:stop])
        cuts[first:stop] = np.where(holds, found, ends)
        split[first:stop] = holds

    spans = zip(bounds.tolist(), [*bounds[1:].tolist(), n], strict=True)
    parallel_map(lambda span: cut(*span), spans)
    pieces = np.empty(3 * n + 1, dtype=np.int64)
    pieces[0:-1:3] = offsets[:-1]
    pieces[1::3] = cuts
    cuts[split] += width
    pieces[2::3] = cuts
    pieces[-1] = offsets[-1]
    del cuts
    viewed = pa.LargeStringArray.from_buffers(3 * n, pa.py_buffer(pieces), data)
    before = viewed.take(to_arrow(np.arange(0, 3 * n, 3)))
    after = viewed.take(to_arrow(np.arange(2, 3 * n, 3)))
    return before, after, split


_SPLIT_BYTES = 1 << 22


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
    index = first_index_of(text_column(types), known_strings)
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
    empty = empty_strings(types)
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


#: What joins a row id and its target type into one key when the types are a column of
#: their own: the first of these that no solution type holds (the key then splits
#: uniquely at its last joiner, so two (row id, type) pairs never share a key).
TYPE_JOINERS = ("_", ":", "|", "/")


@dataclass(frozen=True)
class TargetTypes:
    """Each solution row's target type, and the row id it shares with the other types.

    Attributes
    ----------
    types : tuple of str
        The solution's types, in byte order.
    row_type : ndarray of int64
        Each solution row's type, an index into ``types``.
    bare_row_ids : pyarrow.Array
        Each solution row's row id without its type.
    joiner : str or None
        With a type column: what joins row id and type into the keys that rows are
        matched by (and that messages name, e.g. ``'42_clicks'``).
    """

    types: tuple[str, ...]
    row_type: np.ndarray
    bare_row_ids: pa.Array
    joiner: str | None = None

    @property
    def type_names(self) -> pa.Array:
        """Each solution row's type as a string."""
        return to_strings(list(self.types)).take(to_arrow(self.row_type))


def typed_solution(
    table: StringTable,
    row_id_name: str,
    *,
    type_column: str | None = None,
    separator: str | None = None,
    known: tuple[str, ...] | None = None,
) -> tuple[StringTable, TargetTypes, list[Problem]]:
    """The solution's target types, from ``type_column`` or by splitting its row ids at
    their last ``separator``. With a type column, the table comes back without it and
    with each row id joined to its type (:data:`TYPE_JOINERS`). Problems are the host's.

    Examples
    --------
    >>> ids = pa.array(["1_b", "1_a", "2_a"])
    >>> table = StringTable(("id", "labels"), (ids, pa.array(["x"] * 3)))
    >>> _, typed, problems = typed_solution(table, "id", separator="_")
    >>> typed.types, typed.row_type.tolist(), typed.bare_row_ids.to_pylist(), problems
    (('a', 'b'), [1, 0, 0], ['1', '1', '2'], [])
    >>> table = StringTable(("id", "t", "l"), (pa.array(["1", "1"]), pa.array(["b", "a"]),
    ...                                          pa.array(["x", "y"])))
    >>> keyed, typed, _ = typed_solution(table, "id", type_column="t")
    >>> keyed.names, keyed.column("id").to_pylist(), typed.joiner
    (('id', 'l'), ['1_b', '1_a'], '_')
    """
    ids = table.column(row_id_name)
    if separator is not None:
        rows = split_row_id_types(ids, separator)
    else:
        rows = typed_by_column(ids, table.column(type_column), type_column or "type")
    type_codes, distinct_types = solution_byte_order_codes(rows.types)
    types, problems = solution_types(distinct_types)
    problems = [*rows.problems, *problems]
    if known is not None:  # a part of a run: the whole solution's types, given
        problems += _unknown_known(types, known)
        types = tuple(sorted(set(known), key=lambda kind: kind.encode()))
    joiner = None
    if type_column is not None:
        joiner = next((j for j in TYPE_JOINERS if not any(j in t for t in types)), None)
        if joiner is None:
            problems.append(_no_joiner_problem(type_column))
            joiner = TYPE_JOINERS[0]
        table = _keyed(table, row_id_name, rows, type_column, joiner)
    row_type = first_index_of(distinct_types, to_strings(list(types)))[type_codes]
    return table, TargetTypes(types, row_type, rows.row_ids, joiner), problems


def _unknown_known(types: tuple[str, ...], known: tuple[str, ...]) -> list[Problem]:
    """The solution's types that ``known`` (the whole solution's) does not hold."""
    missing = [kind for kind in types if kind not in set(known)]
    if not missing:
        return []
    shown = ", ".join(format_example(kind) for kind in missing[:MAX_EXAMPLES])
    return [
        Problem(
            "Target types not given",
            "every target type of the solution in target_types",
            f"{format_count(len(missing), 'type')} of this part not there, e.g. {shown}",
            "give the types of the whole solution: score_part(..., target_types=[...])",
        )
    ]


def typed_submission(
    table: StringTable, row_id_name: str, typed: TargetTypes, type_column: str, drop_unknown: bool
) -> tuple[StringTable, list[Problem]]:
    """The submission keyed as the solution is (:func:`typed_solution` with a type
    column): each row id joined to its type, the type column dropped. An empty type and
    a type the solution does not hold are the participant's problems (the types are
    public: the sample submission holds them); with ``drop_unknown`` the rows of an
    unknown type are dropped instead, as unknown row ids are.
    """
    if type_column not in table.names or row_id_name not in table.names:
        return table, [_missing_type_column_problem(type_column)]
    rows = typed_by_column(table.column(row_id_name), table.column(type_column), type_column)
    given = ~empty_strings(rows.types)
    kept = to_arrow(given)
    _, unknown = rows_by_type(rows.types.filter(kept), typed.types, rows.row_ids.filter(kept))
    problems = list(rows.problems) + ([] if drop_unknown else unknown)
    table = _keyed(table, row_id_name, rows, type_column, typed.joiner or TYPE_JOINERS[0])
    # A row of no known type is reported (or ignored) here, not again as an unknown row id.
    known = to_arrow(first_index_of(rows.types, to_strings(list(typed.types))) >= 0)
    return StringTable(table.names, tuple(c.filter(known) for c in table.columns)), problems


def _keyed(
    table: StringTable, row_id_name: str, rows: TypedRows, type_column: str, joiner: str
) -> StringTable:
    """The table without ``type_column``, each row id joined to its type."""
    keys = pc.binary_join_element_wise(
        rows.row_ids, rows.types, pa.scalar(joiner, pa.large_string())
    )
    kept = [
        (name, keys if name == row_id_name else column)
        for name, column in zip(table.names, table.columns, strict=True)
        if name != type_column
    ]
    columns = (c if pa.types.is_large_list(c.type) else text_column(c) for _, c in kept)
    return StringTable(tuple(n for n, _ in kept), tuple(columns))


def _no_joiner_problem(type_column: str) -> Problem:
    shown = ", ".join(repr(j) for j in TYPE_JOINERS)
    return Problem(
        "Target types hold every joiner",
        f"target types in {type_column!r} without at least one of {shown}",
        f"types holding each of {shown}",
        "rename the types, or put them in the row ids and use row_id_type_separator",
    )


def _missing_type_column_problem(type_column: str) -> Problem:
    return Problem(
        "Missing target type column",
        f"a column {type_column!r} holding each row's target type, as in the sample submission",
        f"no column {type_column!r} (or no row-id column)",
        f"add the {type_column!r} column of the sample submission",
    )
