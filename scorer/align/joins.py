"""Joins of string columns, and the codes of strings, at a cost no input can inflate.

One route for every join (row ids against the solution's, items against its items,
candidates, hints): each string gets a keyed 64-bit print (:func:`string_prints`, its
key drawn at random for each index), the indexed strings' prints are sorted and
grouped, a probe's prints are ordered a block at a time by their leading bits and
searched among them, and every match is confirmed string for string. Equal prints of
different strings (which nobody can aim at: whoever chose the strings cannot know the
key) send the join to an exact stable sort of the strings themselves. Either way
O(n log n) comparisons whatever the strings are, where a hash table of crafted strings
can take O(n**2): Arrow's hash kernels hash short strings and integers with fixed
multipliers, so a submission's strings never reach them. Only the solution's own items,
which the host wrote, are dictionary-encoded by Arrow (:func:`encode`).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from scorer.arrays import (
    BLOCK_ROWS,
    byte_rows,
    empty_strings,
    offsets_of,
    parallel_all,
    parallel_map,
    search_sorted,
    sort_with_order,
    string_offsets,
    to_arrow,
    to_numpy,
)


def print_key() -> tuple[int, int]:
    """A key for :func:`string_prints`: an odd multiplier and a start, drawn at random."""
    return secrets.randbits(64) | 1, secrets.randbits(64)


def string_prints(strings: pa.Array, key: tuple[int, int]) -> np.ndarray | None:
    """A 64-bit print of each string of a ``large_string`` array, under a key from
    :func:`print_key` (int64; a null's is arbitrary).

    Equal strings have equal prints; for unequal ones, whoever chose the strings
    cannot know which prints they get, so callers sort or search the prints (never
    a hash table of their own) and confirm every equal pair byte for byte. A block
    whose strings all have one length (ids and items of a fixed width) is mixed a
    word at a time as the matrix its bytes form where they lie: no sort, no copy;
    the strings of other blocks are mixed a word at a time all together, longest
    first, and a string of more than 512 bytes is printed a piece of 512 bytes at a
    time (:func:`byte_prints`). None for any other array type.

    Examples
    --------
    >>> prints = string_prints(pa.array(["ab", "abc", "ab", ""], pa.large_string()), print_key())
    >>> bool(prints[0] == prints[2]), len(set(prints.tolist()))
    (True, 3)
    """
    offsets = string_offsets(strings)
    if offsets is None:
        return None
    data = strings.buffers()[2]
    memory = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8)
    return byte_prints(memory, offsets, key)


def byte_prints(memory: np.ndarray, offsets: np.ndarray, key: tuple[int, int]) -> np.ndarray:
    """:func:`string_prints` of the byte strings ``memory[offsets[i]:offsets[i + 1]]``
    (``memory`` uint8, ``offsets`` int64 and rising).

    A block of :data:`~scorer.arrays.BLOCK_ROWS` strings at a time: a block of one
    length is mixed as the matrix its bytes form; another block's strings are mixed a
    word at a time all together, longest first (:func:`_mixed_in_step`: at most
    :data:`_LONG_WORDS` passes), but for strings of more than :data:`_LONG_BYTES`
    bytes, printed once every block is done by :func:`_long_prints` (cut into pieces
    of that size). No file can make the passes over words more than a few hundred a
    call, whatever its strings' lengths.

    Examples
    --------
    >>> key = print_key()
    >>> found = byte_prints(np.frombuffer(b"abab", np.uint8), np.array([0, 2, 4]), key)
    >>> bool(found[0] == found[1] == string_prints(pa.array(["ab"], pa.large_string()), key)[0])
    True
    """
    multiplier, start = np.uint64(key[0]), key[1]
    prints = np.empty(len(offsets) - 1, dtype=np.uint64)
    long_strings = []
    for block_start in range(0, len(prints), BLOCK_ROWS):
        block_offsets = offsets[block_start : block_start + BLOCK_ROWS + 1]
        lengths = np.diff(block_offsets)
        low, high = (int(lengths.min()), int(lengths.max())) if len(lengths) else (0, 0)
        if low == high <= _LONG_BYTES:  # one length: the block's bytes are its rows
            block = memory[int(block_offsets[0]) : int(block_offsets[-1])]
            rows = block.reshape(len(lengths), low)
            _mix_rows(rows, prints[block_start : block_start + len(lengths)], multiplier, start)
            continue
        long = lengths > _LONG_BYTES
        long_strings.append(np.flatnonzero(long) + block_start)
        members = np.flatnonzero(~long) + block_start
        _mixed_in_step(memory, offsets, members, prints, multiplier, start)
    members = np.concatenate(long_strings) if long_strings else np.zeros(0, np.int64)
    if len(members):
        prints[members] = _long_prints(memory, offsets[members], offsets[members + 1], key)
    return prints.view(np.int64)


def _long_prints(
    memory: np.ndarray, starts: np.ndarray, ends: np.ndarray, key: tuple[int, int]
) -> np.ndarray:
    """Prints (uint64) of strings longer than :data:`_LONG_BYTES`: each cut into pieces
    of that many bytes (the last one shorter), every piece printed as a string, and the
    string's print the print of its pieces' prints, 8 bytes each, as one string (itself
    cut again while longer: three levels for a line of 1 MiB).

    Examples
    --------
    >>> key, text = print_key(), np.frombuffer(b"ab" * 600, np.uint8)
    >>> found = _long_prints(text, np.array([0, 0]), np.array([1200, 1200]), key)
    >>> bool(found[0] == found[1])
    True
    """
    multiplier, start = np.uint64(key[0]), key[1]
    n_pieces = -(-(ends - starts) // _LONG_BYTES)
    owner = np.repeat(np.arange(len(starts)), n_pieces)
    first = np.repeat(np.cumsum(n_pieces) - n_pieces, n_pieces)
    bounds = np.empty(2 * len(owner), dtype=np.int64)  # each piece's start and end
    bounds[0::2] = starts[owner] + (np.arange(len(owner)) - first) * _LONG_BYTES
    bounds[1::2] = np.minimum(bounds[0::2] + _LONG_BYTES, ends[owner])
    found = np.empty(len(bounds), dtype=np.uint64)
    _mixed_in_step(memory, bounds, np.arange(0, len(bounds), 2), found, multiplier, start)
    pieces = np.ascontiguousarray(found[0::2]).view(np.uint8)
    return byte_prints(pieces, offsets_of(8 * n_pieces), key).view(np.uint64)


#: Strings of more 8-byte words than this are printed a piece at a time.
_LONG_WORDS = 64
_LONG_BYTES = 8 * _LONG_WORDS


def _mixed_in_step(
    memory: np.ndarray,
    offsets: np.ndarray,
    members: np.ndarray,
    prints: np.ndarray,
    multiplier: np.uint64,
    start: int,
) -> None:
    """Write the prints of the strings ``members`` (of any lengths) into ``prints``: the
    strings ordered by their number of words, most first, then :data:`_STEP_ROWS` at a
    time, word by word, each pass over the strings that still have a word (a prefix of
    them). A string's words are those :func:`_words` gives its bytes, so its print is
    what it is in a block of one length."""
    lengths = offsets[members + 1] - offsets[members]
    n_words = (lengths + 7) // 8
    fewer = int(n_words.max(initial=0)) - n_words  # most words first
    narrow = len(fewer) and fewer.max() < 2**16
    order = np.argsort(fewer.astype(np.uint16) if narrow else fewer, kind="stable")
    members, lengths, n_words = members[order], lengths[order], n_words[order]
    for first in range(0, len(members), _STEP_ROWS):  # in cache
        rows = slice(first, first + _STEP_ROWS)
        width, words = lengths[rows], n_words[rows]
        out = (width.astype(np.uint64) * np.uint64(_LENGTH_MIX)) ^ np.uint64(start)
        starts = offsets[members[rows]]
        for word in range(int(words[0]) if len(words) else 0):
            active = int(np.count_nonzero(words > word))  # a prefix: words fall
            _mix_word(
                out[:active], _word_at(memory, starts[:active], width[:active], word), multiplier
            )
        prints[members[rows]] = out


#: Strings mixed word by word at a time: their prints (512 KiB) stay in cache.
_STEP_ROWS = 1 << 16

#: Mixed with each string's length into the print's start, so that lengths tell apart.
_LENGTH_MIX = 0x9E3779B97F4A7C15


def _word_at(memory: np.ndarray, starts: np.ndarray, lengths: np.ndarray, word: int) -> np.ndarray:
    """Word ``word`` of each string (uint64; every string has it), as :func:`_words`
    reads it: of a string of 8 bytes or more, the 8 bytes at ``8 * word`` or, for its
    last word, its last 8 bytes; of a shorter string (its only word), its bytes
    followed by zeros."""
    at = starts + np.maximum(np.minimum(8 * word, lengths - 8), 0)  # a short one's: 0
    within = at + 8 <= len(memory)
    if within.all():
        found = byte_rows(memory, at, 8)
    else:  # a short string at the very end of the bytes: the bytes it has, then zeros
        places = np.minimum(at[:, None] + np.arange(8), max(len(memory) - 1, 0))
        found = memory[places] if len(memory) else np.zeros((len(at), 8), np.uint8)
    # A short string's bytes kept, those past its end zeroed (the masks are bytes, as
    # the words are: the same in either byte order).
    return found.view(np.uint64)[:, 0] & _KEPT_BYTES[np.minimum(lengths, 8)]


#: For each length 0 to 8, the word that keeps that many first bytes of a word.
_KEPT_BYTES = np.array(
    [[255] * length + [0] * (8 - length) for length in range(9)], dtype=np.uint8
).view(np.uint64)[:, 0]


#: Strings mixed at a time: every word pass over them stays in cache.
_MIX_ROWS = 1 << 13


def _mix_rows(rows: np.ndarray, out: np.ndarray, multiplier: np.uint64, start: int) -> None:
    """Write the print of each row of byte rows of one width (n x width) into ``out``,
    :data:`_MIX_ROWS` rows at a time (each word pass stays in cache). The width goes
    into the start, so strings of different lengths differ."""
    width = rows.shape[1]
    seeded = start ^ (width * _LENGTH_MIX % 2**64)
    if width == 0:
        out.fill(seeded)
        return
    for mix_start in range(0, len(rows), _MIX_ROWS):
        part = slice(mix_start, mix_start + _MIX_ROWS)
        _mix(rows[part], out[part], multiplier, seeded)


def _mix(rows: np.ndarray, out: np.ndarray, multiplier: np.uint64, start: int) -> None:
    """Write the print of each row of a (cache-sized) block of byte rows into ``out``:
    from ``start``, each word XORed in, then a multiplication and a shift."""
    out.fill(start)
    for word in _words(rows):
        _mix_word(out, word, multiplier)


def _mix_word(out: np.ndarray, word: np.ndarray, multiplier: np.uint64) -> None:
    """Mix one word of each string into its print so far (``out``, in place): the word
    XORed in, a multiplication, and the result XORed with itself shifted right by 29."""
    out ^= word
    out *= multiplier
    out ^= out >> np.uint64(29)


def _words(rows: np.ndarray) -> list[np.ndarray]:
    """Arrays of uint64 that together cover every byte of each row (last axis): for rows
    of 8 bytes or more, views of the bytes at offsets 0, 8, 16, ... and ``width - 8``;
    shorter rows zero padded."""
    width = rows.shape[-1]
    if width < 8 or rows.strides[-1] != 1:
        padded = np.zeros((*rows.shape[:-1], -(-width // 8) * 8), dtype=np.uint8)
        padded[..., :width] = rows
        words = padded.view(np.uint64)
        return [words[..., column] for column in range(words.shape[-1])]
    offsets = [*range(0, width - 8, 8), width - 8]
    return [rows[..., offset : offset + 8].view(np.uint64)[..., 0] for offset in offsets]


@dataclass(frozen=True)
class _PrintGroups:
    """Strings grouped by their keyed prints: the key, the distinct prints (sorted),
    the first string of each and each string's group."""

    key: tuple[int, int]
    distinct: np.ndarray
    first: np.ndarray
    group: np.ndarray


class StringIndex:
    """An index of a string column: built once, probed by any number of columns.

    The strings' keyed prints are sorted and grouped once (the strings of a group
    confirmed equal); a probe's prints are searched among them and every match
    confirmed string for string (see the module's docstring). A column with nulls, or
    two different strings that share a print, takes the exact sort of the strings.

    Examples
    --------
    >>> index = StringIndex(pa.array(["a", "b", "a"]))
    >>> index.find(pa.array(["b", "x", "a", None]))
    array([ 1, -1,  0, -1])
    >>> index.first_of_self()
    array([0, 1, 0])
    """

    def __init__(self, strings: pa.Array) -> None:
        self.strings = _large(strings)
        self.kept = False  # whether :meth:`release` keeps the print groups

    def __len__(self) -> int:
        return len(self.strings)

    @cached_property
    def _groups(self) -> _PrintGroups | None:
        """The strings' print groups (12 to 20 bytes a string), kept between probes; None
        with nulls or a collision."""
        if self.strings.null_count:
            return None
        key = print_key()
        grouped = _print_groups(self.strings, key)
        return None if grouped is None else _PrintGroups(key, *grouped)

    @property
    def distinct(self) -> bool:
        """Whether no two strings are equal (nor null).

        Examples
        --------
        >>> StringIndex(pa.array(["b", "a"])).distinct, StringIndex(pa.array(["a", "a"])).distinct
        (True, False)
        """
        groups = self._groups
        if groups is not None:
            return len(groups.distinct) == len(self)
        first = self.first_of_self()
        return bool((first == np.arange(len(self))).all())

    def first_of_self(self, matches: np.ndarray | None = None) -> np.ndarray:
        """For each string, the index of its first occurrence in the column (-1 for a
        null).

        ``matches``, when given, is :meth:`find` of this column in another index:
        strings that match different rows there are different strings, so only the
        unmatched ones are compared here.

        Examples
        --------
        >>> ids = StringIndex(pa.array(["b", "a", "b"]))
        >>> ids.first_of_self(), ids.first_of_self(np.array([1, 0, 2]))
        (array([0, 1, 0]), array([0, 1, 2]))
        """
        if matches is not None:
            return _first_of_matched(matches, self.strings)
        groups = self._groups
        if groups is None:
            return _exact_first_index(self.strings)
        return groups.first[groups.group]

    def release(self) -> None:
        """Free the print groups kept between probes (unless :meth:`keep` was called); a
        later probe makes them again."""
        if not self.kept:
            self.__dict__.pop("_groups", None)

    def keep(self) -> None:
        """Keep the print groups for good: :meth:`release` no longer frees them (an index
        probed again and again, such as the solution's row ids in a leaderboard).

        Examples
        --------
        >>> index = StringIndex(pa.array(["a", "b"]))
        >>> index.keep()
        >>> index.find(pa.array(["b"])).tolist(), index.release(), "_groups" in vars(index)
        ([1], None, True)
        """
        self.kept = True

    def find(self, values: pa.Array | StringIndex, dtype: type = np.int64) -> np.ndarray:
        """For each value, the index of its first equal here, or -1 (a null: -1).

        Examples
        --------
        >>> StringIndex(pa.array(["x", "y"])).find(pa.array(["y", "z"]), np.int32)
        array([ 1, -1], dtype=int32)
        """
        values = values.strings if isinstance(values, StringIndex) else _large(values)
        groups = self._groups
        found = None
        if groups is not None and values.null_count == 0:
            found = _looked_up(values, self.strings, groups)
        if found is None:
            found = _exact_first_index(values, self.strings)
        return found.astype(dtype, copy=False)


def first_index_of(values: pa.Array, candidates: pa.Array) -> np.ndarray:
    """For each value, the index of its first equal in ``candidates``, or -1.

    ``StringIndex(candidates).find(values)``: see :class:`StringIndex`.

    Examples
    --------
    >>> first_index_of(pa.array(["b", "x", "a", None]), pa.array(["a", "b", "a"]))
    array([ 1, -1,  0, -1])
    """
    return StringIndex(candidates).find(values)


def _print_groups(
    strings: pa.Array, key: tuple[int, int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The distinct prints of strings without nulls (sorted), the first string of
    each, and each string's group; None when two different strings share a print.

    Temporaries are freed as soon as they are used: a column of very short strings
    must not cost many times its own size (the resource contract)."""
    ordered = string_prints(strings, key)
    order = sort_with_order(ordered)  # in place: no third array of every string
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
    first = order[starts].astype(np.int64)  # equal prints in the order given
    del order
    shared = np.diff(np.append(starts, len(group))) > 1  # groups of more than one string
    for start in range(0, len(group) if shared.any() else 0, BLOCK_ROWS):
        # Each string of those groups confirmed equal to its group's first, a block of
        # strings at a time (a string alone in its group is its own first).
        rows = np.flatnonzero(shared[group[start : start + BLOCK_ROWS]]) + start
        firsts = strings.take(to_arrow(first[group[rows]]))
        if not _all_equal(strings.take(to_arrow(rows)), firsts):
            return None
    return distinct, first, group


def _looked_up(values: pa.Array, candidates: pa.Array, groups: _PrintGroups) -> np.ndarray | None:
    """The values (no nulls) looked up among the candidates' print groups: the first
    equal candidate of each, or -1; None on a collision. A block of values at a time on
    the thread pool, each block's prints searched in the order of their leading bits
    (:func:`~scorer.arrays.search_sorted`: several times faster than in the order given)."""
    found = np.full(len(values), -1, dtype=np.int32 if len(candidates) < 2**31 else np.int64)
    if len(groups.distinct) == 0:
        return found
    last = len(groups.distinct) - 1

    def look_up(start: int) -> None:
        prints = string_prints(values.slice(start, BLOCK_ROWS), groups.key)
        position = search_sorted(groups.distinct, prints)
        np.minimum(position, last, out=position)
        hit = groups.distinct[position] == prints
        found[start + np.flatnonzero(hit)] = groups.first[position[hit]]

    parallel_map(look_up, range(0, len(values), BLOCK_ROWS))
    return found if _matches_confirmed(values, candidates, found) else None


def _matches_confirmed(values: pa.Array, candidates: pa.Array, found: np.ndarray) -> bool:
    """Whether ``values[i] == candidates[found[i]]`` wherever ``found[i] >= 0``,
    compared a block of strings at a time on the thread pool (never a full-size copy
    of either). Arrow's take reserves the candidates' average length for each string
    it takes, whatever their lengths: a block holds at most :data:`_TAKEN_BYTES` of
    that (a few long candidates among short ones must not make it ask for gigabytes)."""
    average = -(-_data_bytes(candidates) // max(len(candidates), 1))
    step = max(1, min(BLOCK_ROWS, _TAKEN_BYTES // max(average, 1)))

    def confirmed(start: int) -> bool:
        part = found[start : start + step]
        hit = part >= 0
        block = values.slice(start, len(part))
        if not hit.all():
            block = block.filter(to_arrow(hit))
            part = part[hit]
        return _all_equal(block, candidates.take(to_arrow(part)))

    return parallel_all(confirmed, range(0, len(found), step))


#: What one take of candidates may reserve: their average length times the strings taken.
_TAKEN_BYTES = 1 << 26


def _data_bytes(strings: pa.Array) -> int:
    """The bytes of a (large) string array's characters."""
    offsets = string_offsets(strings)
    return 0 if offsets is None or not len(offsets) else int(offsets[-1] - offsets[0])


def _all_equal(left: pa.Array, right: pa.Array) -> bool:
    """Whether two string arrays without nulls are equal element by element."""
    return len(left) == 0 or pc.all(pc.equal(left, right)).as_py() is True


def _exact_first_index(values: pa.Array, candidates: pa.Array | None = None) -> np.ndarray:
    """For each value, the index of its first equal in ``candidates`` (by default in
    ``values`` themselves), or -1; a null is never found. One stable sort of all the
    strings (Arrow's) and a comparison of neighbours: exact whatever the strings.

    Examples
    --------
    >>> _exact_first_index(pa.array(["b", "x", "a", None]), pa.array(["a", "b", "a"]))
    array([ 1, -1,  0, -1])
    >>> _exact_first_index(pa.array(["b", "a", "b", None, None]))
    array([ 0,  1,  0, -1, -1])
    """
    values = _large(values)
    pool = values if candidates is None else pa.concat_arrays([_large(candidates), values])
    n_candidates = len(pool) - len(values) if candidates is not None else len(pool)
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
    if 2 * n_other > n:  # mostly other strings: no shortcut worth a copy of them
        return StringIndex(strings).first_of_self()
    first = np.full(n, -1, dtype=np.int64)
    _first_of_runs(matches, matched, first)
    if empty.any():  # empty strings are all equal: the first of them
        first[empty] = int(np.argmax(empty))
    unmatched = np.flatnonzero(~(matched | empty))
    del matched, empty
    if len(unmatched):
        within = StringIndex(strings.take(to_arrow(unmatched))).first_of_self()
        found = within >= 0
        first[unmatched[found]] = unmatched[within[found]]
    return first


def _first_of_runs(keys: np.ndarray, selected: np.ndarray, out: np.ndarray) -> None:
    """Write into ``out``, at each selected position, the first selected position with
    the same key (keys are small non-negative integers, such as solution rows): the
    smallest position of each key, then gathered a block at a time (no sort, no hash,
    no full-size temporary).

    Examples
    --------
    >>> out = np.full(5, -1)
    >>> _first_of_runs(np.array([7, 3, 7, 9, 3]), np.array([True, True, True, False, True]), out)
    >>> out
    array([ 0,  1,  0, -1,  1])
    """
    earliest = np.full(int(keys.max(initial=-1)) + 1, len(keys), dtype=np.int64)
    for start in range(0, len(keys), BLOCK_ROWS):
        rows = np.flatnonzero(selected[start : start + BLOCK_ROWS]) + start
        np.minimum.at(earliest, keys[rows], rows)
    for start in range(0, len(keys), BLOCK_ROWS):
        rows = np.flatnonzero(selected[start : start + BLOCK_ROWS]) + start
        out[rows] = earliest[keys[rows]]


def sorted_codes(strings: pa.Array) -> np.ndarray:
    """Codes equal for equal strings and different for different ones (int32), in
    order of first appearance (as ``dictionary_encode`` numbers them), found through
    :class:`StringIndex` (never by hashing); nulls share one code.

    Examples
    --------
    >>> sorted_codes(pa.array(["b", "a", "b", "c"], pa.large_string()))
    array([0, 1, 0, 2], dtype=int32)
    """
    index = StringIndex(strings)
    groups = index._groups
    if groups is not None:  # each group numbered by the place of its first string
        rank = np.empty(len(groups.first), dtype=np.int32)
        rank[np.argsort(groups.first)] = np.arange(len(groups.first), dtype=np.int32)
        return rank[groups.group]
    first = index.first_of_self()
    if len(first) and (first < 0).any():  # nulls: all equal, the first of them
        nulls = first < 0
        first[nulls] = int(np.argmax(nulls))
    _, codes = np.unique(first, return_inverse=True)  # first rows rise with appearance
    return codes.reshape(-1).astype(np.int32)


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


def _large(strings: pa.Array) -> pa.Array:
    """The strings as a ``large_string`` array (a cast only when they are not)."""
    return strings if pa.types.is_large_string(strings.type) else strings.cast(pa.large_string())


def encode(tokens: pa.Array) -> tuple[np.ndarray, pa.Array]:
    """Exactly ``pyarrow.compute.dictionary_encode``: int32 codes in order of first
    appearance, and the dictionary. For the solution's items only: Arrow's hash
    tables are unseeded, so a submission's strings take :class:`StringIndex`.

    Examples
    --------
    >>> codes, dictionary = encode(pa.array(["b", "a", "b"], pa.large_string()))
    >>> codes.tolist(), dictionary.to_pylist()
    ([0, 1, 0], ['b', 'a'])
    """
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
    return _in_byte_order(codes, dictionary)


def _in_byte_order(codes: np.ndarray, distinct: pa.Array) -> tuple[np.ndarray, pa.Array]:
    """Codes renumbered so that the distinct strings are in byte order (int64)."""
    order = to_numpy(pc.sort_indices(distinct)).astype(np.int64)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order), dtype=np.int64)
    return rank[codes], distinct.take(to_arrow(order))


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
    codes = sorted_codes(strings)
    if len(codes) == 0:
        return codes.astype(np.int64), strings
    # Codes are 0..n-1 by first appearance: a code's first row is where the running
    # maximum rises (one pass, no sort).
    running = np.maximum.accumulate(codes)
    first = np.flatnonzero(np.concatenate(([True], running[1:] > running[:-1])))
    return _in_byte_order(codes, strings.take(to_arrow(first)))
