"""Joins of string columns, and dictionary encoding, at a cost no input can inflate.

:class:`StringIndex` answers "where is each of these strings in that column?" for
row ids (submission against solution) and item ids (predictions against the
relevant items, unless :func:`scorer.align.rankings.build_rankings` can compare them by
fingerprints directly). Large fixed-width columns go through fingerprints
(:mod:`scorer.align.fingerprints`) and a hash table with a multiplier drawn at random,
every match confirmed byte for byte; anything else through a stable sort of the
strings (:func:`sorted_first_index`). Both give the same answer.

A submission's strings never reach an unseeded hash table (Arrow's hash kernels
hash short strings and integers with fixed multipliers, so crafted ids can all
share one chain and make a table quadratic): sorting costs O(n log n) comparisons
whatever the strings are. Only the solution's own items, which the host wrote, are
dictionary-encoded by Arrow (:func:`encode`).
"""

from __future__ import annotations

from functools import cached_property

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from scorer.align.fingerprints import (
    FIXED_WIDTH_MIN_ROWS,
    KeyIndex,
    fingerprints,
    fixed_width_bytes,
    print_key,
    rows_equal,
    rows_match,
    string_prints,
)
from scorer.align.integer_items import integer_byte_order_codes
from scorer.arrays import CHUNK_ROWS, empty_strings, to_arrow, to_numpy


def first_index_of(values: pa.Array, candidates: pa.Array) -> np.ndarray:
    """For each value, the index of its first equal in ``candidates``, or -1.

    ``StringIndex(candidates).find(values)``: see :class:`StringIndex`.

    Examples
    --------
    >>> first_index_of(pa.array(["b", "x", "a", None]), pa.array(["a", "b", "a"]))
    array([ 1, -1,  0, -1])
    """
    return StringIndex(candidates).find(values)


class StringIndex:
    """An index of a string column: built once, probed by several columns.

    Large columns of equally long strings (row ids such as 64-character hashes, item
    ids) are joined through 64-bit fingerprints of the raw bytes (computed once per
    column, and reused by every join the column takes part in) and a seeded hash
    table built once (:class:`~scorer.align.fingerprints.KeyIndex`), every match then
    confirmed byte for byte. Large columns of distinct strings of other lengths (row
    ids such as ``12899779_clicks``) are joined through their keyed prints in a hash
    table (:class:`DistinctIndex`), every match confirmed string for string. Any
    other column, a repeated string or a print collision takes the exact sort-based
    join (:func:`sorted_first_index`).

    Examples
    --------
    >>> index = StringIndex(pa.array(["a", "b", "a"]))
    >>> index.find(pa.array(["b", "x", "a", None]))
    array([ 1, -1,  0, -1])
    >>> index.first_of_self()
    array([0, 1, 0])
    """

    def __init__(self, strings: pa.Array, probed_often: bool = False) -> None:
        self.strings = strings
        self.rows = fixed_width_bytes(strings)
        #: Keep the strings' print groups between probes (12 to 20 bytes a string).
        self.probed_often = probed_often

    def __len__(self) -> int:
        return len(self.strings)

    @cached_property
    def prints(self) -> np.ndarray:
        """The fingerprint of each string (fixed-width columns only)."""
        if self.rows is None:
            raise ValueError("only a fixed-width column has fingerprints")
        return fingerprints(self.rows)

    @cached_property
    def _print_index(self) -> KeyIndex | None:
        """A hash table of the fingerprints, or None when two are equal."""
        index = KeyIndex(self.prints)
        # Repeated strings (or a collision): the exact join keeps the first.
        return index if index.unique else None

    def _fast(self, probe: StringIndex) -> bool:
        """Whether ``probe`` can be joined by fingerprints."""
        return (
            len(probe) >= FIXED_WIDTH_MIN_ROWS
            and len(self) > 0
            and probe.rows is not None
            and self.rows is not None
            and probe.rows.shape[1] == self.rows.shape[1]
            and self._print_index is not None
        )

    def first_of_self(self, matches: np.ndarray | None = None) -> np.ndarray:
        """For each string, the index of its first occurrence in the column.

        ``matches``, when given, is :meth:`find` of this column in another index:
        strings that match different rows there are different strings, so when every
        string has its own match, no hash table of this column is needed.

        Examples
        --------
        >>> ids = StringIndex(pa.array(["b", "a", "b"]))
        >>> ids.first_of_self(), ids.first_of_self(np.array([1, 0, 2]))
        (array([0, 1, 0]), array([0, 1, 2]))
        """
        if matches is not None:
            return _first_of_matched(matches, self.strings)
        if self._fast(self) or self._distinct is not None:
            return np.arange(len(self), dtype=np.int64)  # unique prints: unique strings
        return sorted_first_index(self.strings)

    def release(self) -> None:
        """Free what the index keeps between probes (fingerprints, hash tables, print
        groups: up to about 24 bytes a string); a later probe makes them again."""
        for kept in ("prints", "_print_index", "_distinct", "_groups"):
            self.__dict__.pop(kept, None)

    def find(self, values: pa.Array | StringIndex, dtype: type = np.int64) -> np.ndarray:
        """For each value, the index of its first equal here, or -1.

        ``values`` may be a :class:`StringIndex`, whose fingerprints are then reused.
        """
        probe = values if isinstance(values, StringIndex) else StringIndex(values)
        if self._fast(probe):
            found = np.empty(len(probe), dtype=dtype)
            reuse = "prints" in probe.__dict__
            for start in range(0, len(probe), CHUNK_ROWS):
                stop = start + CHUNK_ROWS
                prints = probe.prints[start:stop] if reuse else None
                hit = self.match(probe.rows[start:stop], prints)
                if hit is None:
                    break
                found[start:stop] = hit
            else:
                return found
        if (len(probe) >= FIXED_WIDTH_MIN_ROWS or self.probed_often) and self._distinct is not None:
            return self._distinct.find(probe.strings).astype(dtype, copy=False)
        groups = self._groups if self.probed_often else None
        values = _large(probe.strings)
        if groups is not None and values.null_count == 0:
            found = _looked_up(values, _large(self.strings), *groups)
            if found is not None:
                return found.astype(dtype, copy=False)
        return sorted_first_index(probe.strings, self.strings).astype(dtype, copy=False)

    @cached_property
    def _distinct(self) -> DistinctIndex | None:
        """Many strings of any lengths, without nulls, in a hash table of their keyed
        prints (:class:`DistinctIndex`): None when two prints are equal (a repeated
        string, or a collision nobody can aim at), and then the sort finds the first."""
        if len(self) < FIXED_WIDTH_MIN_ROWS or self.strings.null_count:
            return None
        index = DistinctIndex(self.strings)
        return index if index.unique else None

    @cached_property
    def _groups(self) -> tuple[tuple[int, int], np.ndarray, np.ndarray, np.ndarray] | None:
        """A key and the strings' print groups under it (:func:`_print_groups`), made
        once for an index probed often (the hints probe one a chunk at a time); None
        with nulls or a collision."""
        strings = _large(self.strings)
        if strings.null_count:
            return None
        key = print_key()
        grouped = _print_groups(strings, key)
        return None if grouped is None else (key, *grouped)

    def match(self, rows: np.ndarray, prints: np.ndarray | None = None) -> np.ndarray | None:
        """The index of each byte row's equal here (-1 when none); None on a collision.

        Only for a fixed-width index whose fingerprints are unique (see
        :meth:`find`); ``prints`` are the rows' fingerprints, if already computed.
        """
        index = self._print_index
        if self.rows is None or rows.shape[1] != self.rows.shape[1] or index is None:
            return None
        hit = index.find(fingerprints(rows) if prints is None else prints)
        return hit if self._confirmed(rows, hit) else None

    def _confirmed(self, rows: np.ndarray, hit: np.ndarray) -> bool:
        """Whether every matched row equals its match byte for byte (no collision)."""
        unmatched = hit < 0
        # Rows without a match are compared with string 0 and their result ignored.
        same = rows_match(rows, self.rows, np.where(unmatched, 0, hit), same_prints=True)
        return bool((same | unmatched).all())


class DistinctIndex:
    """An index of distinct strings (a dictionary), built once and probed a chunk of
    strings at a time.

    The strings' keyed prints (:func:`~scorer.align.fingerprints.string_prints`) go
    into a table with a random multiplier of its own (:class:`KeyIndex`); a probe's
    prints are looked up there and every match confirmed string for string. The index
    holds 12 to 16 bytes a string beside them. After a collision (two prints equal
    for different strings, which nobody can aim at), through the sort of the strings.

    Examples
    --------
    >>> index = DistinctIndex(pa.array(["b", "a", "c"]))
    >>> index.find(pa.array(["a", "x", "c", "a"]))
    array([ 1, -1,  2,  1])
    """

    def __init__(self, strings: pa.Array) -> None:
        self.strings = _large(strings)
        self._key = print_key()
        index = None
        if self.strings.null_count == 0:
            index = KeyIndex(string_prints(self.strings, self._key))
        self._index = index if index is not None and index.unique else None
        #: Whether the strings' prints are distinct (then so are the strings).
        self.unique = self._index is not None

    def find(self, values: pa.Array) -> np.ndarray:
        """For each value, the index of its equal here, or -1 (int64)."""
        values = _large(values)
        if self._index is not None and values.null_count == 0:
            found = self._index.find(string_prints(values, self._key)).astype(np.int64)
            if _matches_confirmed(values, self.strings, found):
                return found
        return sorted_first_index(values, self.strings)


def _first_of_matched(matches: np.ndarray, strings: pa.Array) -> np.ndarray:
    """:meth:`StringIndex.first_of_self` given each string's match elsewhere: strings
    with the same match are equal, so only the unmatched ones are compared as strings.

    Examples
    --------
    >>> _first_of_matched(np.array([4, -1, 4, -1, 2]), pa.array(["b", "x", "b", "x", "a"]))
    array([0, 1, 0, 1, 4])
    >>> _first_of_matched(np.array([-1, -1, -1, -1]), pa.array(["", "y", "", None]))
    array([ 0,  1,  0, -1])
    """
    n = len(matches)
    if all_distinct(matches, int(matches.max(initial=-1)) + 1):
        return np.arange(n, dtype=np.int64)
    matched = matches >= 0
    empty = empty_strings(strings, null_is_empty=False)
    empty &= ~matched
    n_other = n - int(np.count_nonzero(matched)) - int(np.count_nonzero(empty))
    if 2 * n_other > n:
        return sorted_first_index(strings)  # mostly other strings: no shortcut worth a copy
    first = np.full(n, -1, dtype=np.int64)
    _first_of_runs(matches, matched, first)
    if empty.any():  # empty strings are all equal: the first of them
        first[empty] = int(np.argmax(empty))
    unmatched = np.flatnonzero(~(matched | empty))
    del matched, empty
    if len(unmatched):
        within = sorted_first_index(strings.take(to_arrow(unmatched)))
        found = within >= 0
        first[unmatched[found]] = unmatched[within[found]]
    return first


def _first_of_runs(keys: np.ndarray, selected: np.ndarray, out: np.ndarray) -> None:
    """Write into ``out``, at each selected position, the first selected position with
    the same key (keys are small non-negative integers, such as solution rows): the
    smallest position of each key, then gathered a chunk at a time (no sort, no hash,
    no full-size temporary).

    Examples
    --------
    >>> out = np.full(5, -1)
    >>> _first_of_runs(np.array([7, 3, 7, 9, 3]), np.array([True, True, True, False, True]), out)
    >>> out
    array([ 0,  1,  0, -1,  1])
    """
    earliest = np.full(int(keys.max(initial=-1)) + 1, len(keys), dtype=np.int64)
    for start in range(0, len(keys), CHUNK_ROWS):
        rows = np.flatnonzero(selected[start : start + CHUNK_ROWS]) + start
        np.minimum.at(earliest, keys[rows], rows)
    for start in range(0, len(keys), CHUNK_ROWS):
        rows = np.flatnonzero(selected[start : start + CHUNK_ROWS]) + start
        out[rows] = earliest[keys[rows]]


def sorted_first_index(values: pa.Array, candidates: pa.Array | None = None) -> np.ndarray:
    """For each value, the index of its first equal in ``candidates`` (by default in
    ``values`` themselves), or -1; a null is never found.

    Through keyed 64-bit prints of the strings (a key drawn at random for each call),
    sorted and searched with numpy, every match confirmed string for string; when two
    different strings share a print, or for nulls, through one stable sort of all the
    strings and a comparison of neighbours. Either way O(n log n) whatever the strings
    are, where a hash table of crafted strings can take O(n**2).

    Examples
    --------
    >>> sorted_first_index(pa.array(["b", "x", "a", None]), pa.array(["a", "b", "a"]))
    array([ 1, -1,  0, -1])
    >>> sorted_first_index(pa.array(["b", "a", "b", None, None]))
    array([ 0,  1,  0, -1, -1])
    """
    values = _large(values)
    candidates = values if candidates is None else _large(candidates)
    if values.null_count == 0 and candidates.null_count == 0:
        found = _printed_first_index(values, candidates)
        if found is not None:
            return found
    pool = values if candidates is values else pa.concat_arrays([candidates, values])
    n_candidates = len(pool) - len(values) if candidates is not values else len(pool)
    order = to_numpy(pc.sort_indices(pool)).astype(np.int64)  # stable: equals by index
    ordered = pool.take(to_arrow(order))
    starts_run = np.ones(len(pool), dtype=bool)
    if len(pool) > 1:
        starts_run[1:] = ~to_numpy(
            pc.equal(ordered.slice(1), ordered.slice(0, len(pool) - 1)), fill=False
        )
    del ordered
    # The first (lowest) index of each run of equal strings, for every sorted position.
    head = order[np.flatnonzero(starts_run)][np.cumsum(starts_run) - 1]
    head = np.where(
        (head < n_candidates) & to_numpy(pc.is_valid(pool), fill=False)[order], head, -1
    )
    found = np.empty(len(pool), dtype=np.int64)
    found[order] = head
    return found[len(pool) - len(values) :]


def _printed_first_index(values: pa.Array, candidates: pa.Array) -> np.ndarray | None:
    """:func:`sorted_first_index` of strings without nulls, through their keyed prints
    (:func:`~scorer.align.fingerprints.string_prints`): the candidates' prints grouped by a
    sort, the values' looked up among the distinct ones, every match confirmed string
    for string. None when two different strings share a print (then only the sort of
    the strings is exact)."""
    key = print_key()
    grouped = _print_groups(candidates, key)
    if grouped is None:
        return None
    distinct, first, group = grouped
    if values is candidates:
        return first[group]
    return _looked_up(values, candidates, key, distinct, first, group)


def _looked_up(
    values: pa.Array,
    candidates: pa.Array,
    key: tuple[int, int],
    distinct: np.ndarray,
    first: np.ndarray,
    group: np.ndarray,
) -> np.ndarray | None:
    """The values (no nulls) looked up among the candidates' print groups, made under
    ``key``: the first equal candidate of each, or -1; None on a collision."""
    if len(distinct) == 0:
        return np.full(len(values), -1, dtype=np.int64)
    # The distinct prints in a table with a random multiplier of its own (KeyIndex):
    # probing it is several times faster than a binary search of the sorted prints.
    position = KeyIndex(distinct).find(string_prints(values, key))
    found = np.where(position >= 0, first[position], -1)
    del position
    return found if _matches_confirmed(values, candidates, found) else None


def _print_groups(
    strings: pa.Array, key: tuple[int, int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The distinct prints of strings without nulls (sorted), the first string of
    each, and each string's group; None when two different strings share a print.

    Temporaries are freed as soon as they are used: a column of very short strings
    must not cost many times its own size (the resource contract)."""
    ordered = string_prints(strings, key)
    order = np.argsort(ordered)
    ordered.sort()  # in place: no third array of every string (the order's own prints)
    starts_group = np.empty(len(order), dtype=bool)
    starts_group[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=starts_group[1:])
    starts = np.flatnonzero(starts_group)
    distinct = ordered[starts]
    del ordered
    numbers = np.cumsum(starts_group, dtype=np.int64 if len(order) >= 2**31 else np.int32)
    del starts_group
    numbers -= 1
    group = np.empty_like(numbers)
    group[order] = numbers
    del numbers
    first = np.minimum.reduceat(order, starts) if len(order) else order
    del order
    for start in range(0, len(group), CHUNK_ROWS):
        firsts = first[group[start : start + CHUNK_ROWS]]
        if not _all_equal(strings.slice(start, len(firsts)), strings.take(to_arrow(firsts))):
            return None
    return distinct, first, group


def _matches_confirmed(values: pa.Array, candidates: pa.Array, found: np.ndarray) -> bool:
    """Whether ``values[i] == candidates[found[i]]`` wherever ``found[i] >= 0``,
    compared a chunk of strings at a time (never a full-size copy of either)."""
    for start in range(0, len(found), CHUNK_ROWS):
        part = found[start : start + CHUNK_ROWS]
        hit = part >= 0
        chunk = values.slice(start, len(part))
        if not hit.all():
            chunk = chunk.filter(to_arrow(hit))
            part = part[hit]
        if not _all_equal(chunk, candidates.take(to_arrow(part))):
            return False
    return True


def _all_equal(left: pa.Array, right: pa.Array) -> bool:
    """Whether two string arrays without nulls are equal element by element."""
    return len(left) == 0 or pc.all(pc.equal(left, right)).as_py() is True


def strings_distinct(strings: pa.Array) -> bool:
    """Whether no two strings are equal (nulls aside, as :func:`sorted_codes` codes them).

    Many equally long strings are told apart by their fingerprints alone, sorted:
    distinct fingerprints are distinct strings. Only when two fingerprints meet (by
    chance, or by design) are the strings coded byte for byte (:func:`sorted_codes`).

    Examples
    --------
    >>> strings_distinct(pa.array(["b", "a"], pa.large_string()))
    True
    >>> strings_distinct(pa.array(["a", "b", "a"]))
    False
    """
    rows = fixed_width_bytes(strings) if len(strings) >= FIXED_WIDTH_MIN_ROWS else None
    if rows is not None and _prints_distinct(rows):
        return True
    codes = sorted_codes(strings)
    return int(codes.max(initial=-1)) == len(codes) - 1


def _prints_distinct(rows: np.ndarray) -> bool:
    """Whether no two rows of a byte matrix share a fingerprint (then no two are equal)."""
    prints = np.sort(fingerprints(rows))
    return not (prints[1:] == prints[:-1]).any()


def sorted_codes(strings: pa.Array) -> np.ndarray:
    """Codes equal for equal strings and different for different ones (int32), in
    order of first appearance (as ``dictionary_encode`` numbers them), found by
    sorting (never by hashing).

    Many equally long strings are sorted by their fingerprints, any others by keyed
    prints (as in :func:`sorted_first_index`), every group of equal prints confirmed
    byte for byte; after a collision, by a stable sort of the strings.

    Examples
    --------
    >>> sorted_codes(pa.array(["b", "a", "b", "c"], pa.large_string()))
    array([0, 1, 0, 2], dtype=int32)
    """
    rows = fixed_width_bytes(strings) if len(strings) >= FIXED_WIDTH_MIN_ROWS else None
    if rows is not None:
        first, group = _groups_of_prints(fingerprints(rows))
        if rows_equal(rows, rows[first], group, same_prints=True):
            return _in_order_of_appearance(first, group)
    strings = _large(strings)
    grouped = _print_groups(strings, print_key()) if strings.null_count == 0 else None
    if grouped is not None:
        return _in_order_of_appearance(grouped[1], grouped[2])
    _, codes = np.unique(sorted_first_index(strings), return_inverse=True)
    return codes.astype(np.int32)


def _groups_of_prints(prints: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each distinct print's first position and each print's group (int32), the
    groups numbered in print order: ``np.unique(prints, return_index=True,
    return_inverse=True)[1:]``, with the per-print work done a chunk at a time, so
    that a long array of few distinct prints costs one sorted copy, not four arrays
    of its length.

    The distinct prints come from a sort (``np.unique`` hashes them: measured on H&M's
    1.4 million row ids, 1.6 s where the sort takes 0.02 s), and each print finds its
    group in a table of them with a random multiplier of its own (:class:`KeyIndex`),
    where a binary search of the sorted prints took ten times as long.

    Examples
    --------
    >>> first, group = _groups_of_prints(np.array([7, 3, 7, 5, 3], dtype=np.uint64))
    >>> first.tolist(), group.tolist()
    ([1, 3, 0], [2, 0, 2, 1, 0])
    """
    keys = np.ascontiguousarray(prints).view(np.int64)
    ordered = np.sort(prints)
    starts_group = np.empty(len(ordered), dtype=bool)
    starts_group[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=starts_group[1:])
    index = KeyIndex(ordered[starts_group].view(np.int64))
    del ordered, starts_group
    first = np.full(len(index.keys), len(prints), dtype=np.int64)
    group = np.empty(len(prints), dtype=np.int32)
    for start in range(0, len(prints), CHUNK_ROWS):
        chunk = index.find(keys[start : start + CHUNK_ROWS])
        group[start : start + len(chunk)] = chunk
        np.minimum.at(first, chunk, np.arange(start, start + len(chunk)))
    return first, group


def run_starts(strings: pa.Array) -> np.ndarray:
    """The first row of each run of equal strings side by side (one comparison of each
    string with the next, no hash).

    Examples
    --------
    >>> run_starts(pa.array(["a", "a", "b", "a"], pa.large_string())).tolist()
    [0, 2, 3]
    """
    if len(strings) < 2:
        return np.arange(len(strings), dtype=np.int64)
    same = to_numpy(pc.equal(strings.slice(1), strings.slice(0, len(strings) - 1)), fill=False)
    return np.flatnonzero(np.concatenate(([True], ~same)))


def _in_order_of_appearance(first: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Codes from groups numbered by the position of their first string (int32)."""
    rank = np.empty(len(first), dtype=np.int32)
    rank[np.argsort(first)] = np.arange(len(first), dtype=np.int32)
    return rank[group]


def _large(strings: pa.Array) -> pa.Array:
    """The strings as a ``large_string`` array (a cast only when they are not)."""
    return strings if pa.types.is_large_string(strings.type) else strings.cast(pa.large_string())


def encode(tokens: pa.Array) -> tuple[np.ndarray, pa.Array]:
    """Exactly ``pyarrow.compute.dictionary_encode``: codes in order of first appearance.

    Returns the int32 codes and the dictionary. Many equally long tokens (10-digit
    item ids) are encoded from byte fingerprints, each confirmed byte for byte. For
    the solution's items only: Arrow's hash tables are unseeded, so a submission's
    strings take :func:`sorted_codes`.

    Examples
    --------
    >>> codes, dictionary = encode(pa.array(["b", "a", "b"], pa.large_string()))
    >>> codes.tolist(), dictionary.to_pylist()
    ([0, 1, 0], ['b', 'a'])
    """
    rows = fixed_width_bytes(tokens) if len(tokens) >= FIXED_WIDTH_MIN_ROWS else None
    if rows is not None:
        codes = to_numpy(pc.dictionary_encode(to_arrow(fingerprints(rows))).indices)
        running = np.maximum.accumulate(codes)
        first = np.flatnonzero(np.concatenate(([True], running[1:] > running[:-1])))
        if rows_equal(rows, rows[first], codes, same_prints=True):
            return codes.astype(np.int32, copy=False), tokens.take(to_arrow(first))
    encoded = pc.dictionary_encode(tokens)
    return to_numpy(encoded.indices).astype(np.int32, copy=False), encoded.dictionary


def solution_byte_order_codes(strings: pa.Array) -> tuple[np.ndarray, pa.Array]:
    """:func:`byte_order_codes` of the solution's own strings (no nulls), through
    :func:`encode`: Arrow's hash tables are safe for strings the host wrote, and code
    a column of few distinct strings (target types) in one pass, where a sort takes
    O(n log n).

    Examples
    --------
    >>> codes, distinct = solution_byte_order_codes(pa.array(["orders", "carts", "orders"]))
    >>> codes.tolist(), distinct.to_pylist()
    ([1, 0, 1], ['carts', 'orders'])
    """
    codes, dictionary = encode(_large(strings))
    order = to_numpy(pc.sort_indices(dictionary)).astype(np.int64)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order), dtype=np.int64)
    return rank[codes], dictionary.take(to_arrow(order))


def all_distinct(indices: np.ndarray, size: int) -> bool:
    """Whether ``indices`` (each meant to be in ``[0, size)``) are all valid and distinct.

    Examples
    --------
    >>> all_distinct(np.array([2, 0, 1]), 3), all_distinct(np.array([0, 0]), 2)
    (True, False)
    >>> all_distinct(np.array([-1, 1]), 2), all_distinct(np.array([], dtype=int), 0)
    (False, False)
    """
    if len(indices) == 0 or (indices < 0).any():
        return False
    seen = np.zeros(size, dtype=bool)
    seen[indices] = True
    return int(np.count_nonzero(seen)) == len(indices)


def byte_order_codes(strings: pa.Array) -> tuple[np.ndarray, pa.Array]:
    """Codes numbering the distinct strings in byte order (int64), and the distinct
    strings, sorted: equal strings share a code, and a smaller string has a smaller
    code. Found by sorting (:func:`sorted_codes`, then a sort of the distinct strings),
    never by hashing; a null counts as the empty string.

    The codes of the same strings are the same in any row order: results built from
    them never depend on the order of the input rows.

    Examples
    --------
    >>> codes, distinct = byte_order_codes(pa.array(["b", "a", "b", "B", None]))
    >>> codes.tolist(), distinct.to_pylist()
    ([3, 2, 3, 1, 0], ['', 'B', 'a', 'b'])
    >>> byte_order_codes(pa.RunEndEncodedArray.from_arrays([2, 3], ["b", "a"]))[0].tolist()
    [1, 1, 0]
    """
    if pa.types.is_run_end_encoded(strings.type):
        run_ends = to_numpy(strings.run_ends)
        if strings.offset == 0 and len(run_ends) and run_ends[-1] == len(strings):
            # A file's column read as runs (a long file's row ids): each run coded once.
            run_codes, distinct = byte_order_codes(strings.values)
            return np.repeat(run_codes, np.diff(run_ends, prepend=0)), distinct
        strings = pc.run_end_decode(strings)
    strings = _large(strings)
    if strings.null_count:
        strings = pc.fill_null(strings, "")
    runs = run_starts(strings)
    if len(strings) > 1 and len(runs) * 2 <= len(strings):
        # Equal strings side by side (a long file grouped by row id): code each run once.
        run_codes, distinct = byte_order_codes(strings.take(to_arrow(runs)))
        return np.repeat(run_codes, np.diff(np.append(runs, len(strings)))), distinct
    by_value = integer_byte_order_codes(strings)
    if by_value is not None:
        return by_value
    codes = sorted_codes(strings)
    if len(codes) == 0:
        return codes.astype(np.int64), strings
    # Codes are 0..n-1 by first appearance: a code's first row is where the running
    # maximum rises (one pass, no sort).
    running = np.maximum.accumulate(codes)
    first = np.flatnonzero(np.concatenate(([True], running[1:] > running[:-1])))
    distinct = strings.take(to_arrow(first))
    order = to_numpy(pc.sort_indices(distinct)).astype(np.int64)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order), dtype=np.int64)
    return rank[codes], distinct.take(to_arrow(order))
