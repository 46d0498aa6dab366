"""Warnings for prediction lists that were probably damaged on their way to the file.

Two audiences, kept apart by the information boundary (docs/decisions.md#information-boundary):

- :func:`prediction_hints`, for the participant, read the submission alone: item ids
  that are all digits and one or two digits shorter than the submission's usual
  zero-padded ids (read as numbers), item ids written as floats (``706016001.0``,
  ``7.06016001e+08``: read as numbers), lists joined by commas or semicolons, and
  whether every item id is a number written without zeros (which, beside a Public
  score of 0, :func:`numbers_scoring_zero` says). They say the same thing whatever the
  solution holds, so they can never test a guess about it.
- :func:`solution_hints`, for the host, compare each row's predicted ids with the same
  row's relevant items: ids that match one only once leading zeros are restored (the
  submission lost them) or removed (the solution lost them, and every correct
  submission scores 0).

Each hint is a record of its rows that the parts of a run add up (docs/decisions.md, "A
run in parts"). The usual zero-padded width is the whole submission's, which no part
sees: a part records how many zero-padded ids it holds of each length and, for each
length, its rows of shorter digit ids, and :func:`lost_zeros` settles the width once
every part is in, as one run does. Every predicted id is read (no sample of the first
ones: a hint never depends on row order), but only as far as a hint needs: the bytes'
range first, then the ids whose first byte could make the mistake. Predicted ids are
looked up among the solution's by :func:`~scorer.align.joins.first_index_of` (keyed
prints, every hit confirmed): the participant's strings are never hashed by a
function they could predict.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from scorer.align.item_lists import SplitLists
from scorer.align.joins import StringIndex, first_index_of
from scorer.align.rankings import GroundTruth
from scorer.arrays import BLOCK_ROWS, string_bytes, string_offsets, to_arrow, to_numpy
from scorer.errors import Finding, smallest_of

#: A hint: its code, the solution rows it names (None: a record of counts only), its
#: counts besides the rows, and its values (a length, for the digit ids' records).
Hint = tuple[str, "np.ndarray | None", tuple[tuple[str, int], ...], tuple[str, ...]]
#: The most digits a program prints for a whole number (2**64 has 20): only ids of up to
#: this many digits can be numbers that lost their zeros, and the usual zero-padded
#: width is looked for up to two digits more.
NUMBER_DIGITS = 20
_ZERO, _ONE, _NINE = ord("0"), ord("1"), ord("9")
_NUMBER = r"^[0-9]+(\.0*)?$"  # digits, perhaps with the ".0" of a float
_FLOAT_END = r"\.0*$"
#: An id as a program writes a number it read as a float: ``706016001.0``, ``7.06016001e+08``.
_FLOAT_OR_EXPONENT = r"^[0-9]+\.0+$|^[0-9](\.[0-9]+)?[eE][+-]?[0-9]+$"
_POWERS = 10 ** np.arange(1, 19, dtype=np.int64)
_BLOCK_BYTES = 1 << 24  # bytes scanned at a time
_BLOCK_VALUES = 1 << 18  # integer items read at a time


def prediction_hints(
    predictions: SplitLists, user_of_row: np.ndarray, n_users: int, every: bool = False
) -> list[Hint]:
    """Participant hints: what the submission alone shows went wrong.

    Nothing here reads the solution beyond ``user_of_row`` (which row id each
    submission row is), so the hints are the same for any two solutions with the
    same row ids. Only ids of rows of the sample submission count.

    Parameters
    ----------
    predictions : SplitLists
        The split predictions, in submission row order.
    user_of_row : ndarray of int64
        The solution row of each submission row, ``-1`` for rows left out.
    n_users : int
        Number of solution rows.
    every : bool, default False
        Record the digit ids' lengths even where no width could pair them here (a part
        of a run: another part may hold the rest).

    Examples
    --------
    >>> from scorer.align.item_lists import split_lists
    >>> cells = ["0706016001 706016002", "0372860001,0372860002", "108775015.0 0108775044"]
    >>> hints = prediction_hints(split_lists(pa.array(cells)), np.array([0, 1, 2]), 3)
    >>> [(code, None if rows is None else rows.tolist(), values) for code, rows, _, values in hints]
    ... # doctest: +NORMALIZE_WHITESPACE
    [('padded_ids', None, ()), ('bare_ids', [True, False, True], ('9',)),
     ('item_ids_as_numbers', [False, False, True], ()),
     ('comma_separated_lists', [False, True, False], ()), ('numeric_ids', None, ())]
    """
    ids = _Ids(predictions, user_of_row)
    hints = _digit_records(ids, n_users, every)
    if not ids.digits_only:
        # A float is written with a dot, or with its exponent's e second (7e8, 7.0e8 has
        # the dot): only those ids are matched against the pattern.
        exponent = (ids.second == ord("e")) | (ids.second == ord("E"))
        candidates = ids.holding(b".") | (ids.starts_with_digit & exponent)
        floats = ids.matching(_FLOAT_OR_EXPONENT, candidates)
        commas = ids.holding(b",;")
        for code, marked, counts in (
            ("item_ids_as_numbers", floats, (("tokens", int(floats.sum())),)),
            ("comma_separated_lists", commas, ()),
        ):
            if marked.any():
                hints.append((code, ids.rows(marked, n_users), counts, ()))
    rows = int(np.count_nonzero((predictions.lengths > 0) & (user_of_row >= 0)))
    counts = (("ids", ids.count), ("others", int(not ids.all_numbers)), ("rows", rows))
    hints.append(("numeric_ids", None, counts, ()))
    return hints


def _digit_records(ids: _Ids, n_users: int, every: bool) -> list[Hint]:
    """How many zero-padded digit ids each length holds (``padded_ids``), and for each
    length the rows of digit ids that start with 1 to 9 (``bare_ids``): what
    :func:`lost_zeros` pairs once the width is known. None where nothing can pair."""
    if not every and not ids.zero_padded:
        return []  # nothing to pair here, and no part to pair with
    first = ids.first
    starts_bare = (first >= _ONE) & (first <= _NINE)
    if not every and not starts_bare.any():
        return []
    listed, digits = ids.listed, ids.digits
    counts = np.zeros(NUMBER_DIGITS + 3, dtype=np.int64)  # zero-padded ids by length
    tokens = np.zeros(NUMBER_DIGITS + 3, dtype=np.int64)  # bare digit ids by length
    found = [np.zeros(0, dtype=np.int64)]
    for start in range(0, ids.count, _BLOCK_VALUES):  # a block of ids at a time
        block = slice(start, start + _BLOCK_VALUES)
        length, shown = digits[block].astype(np.int64), listed[block]
        padded = shown & (first[block] == _ZERO) & (length > 1) & (length <= NUMBER_DIGITS + 2)
        counts += np.bincount(length[padded], minlength=NUMBER_DIGITS + 3)
        bare = np.flatnonzero(shown & starts_bare[block] & (length > 0) & (length <= NUMBER_DIGITS))
        tokens += np.bincount(length[bare], minlength=NUMBER_DIGITS + 3)
        # each (user, length) once, by user then length
        found.append(np.unique(ids.users(bare + start) * 32 + length[bare]))
    if not every and not (tokens.any() and counts.any()):
        return []
    histogram = tuple((f"ids_{n}", int(c)) for n, c in enumerate(counts.tolist()) if c)
    hints: list[Hint] = [("padded_ids", None, histogram, ())]
    pairs = np.unique(np.concatenate(found))
    pair_users, pair_lengths = np.divmod(pairs, 32)
    following = (pair_users[1:] == pair_users[:-1]) & (pair_lengths[1:] == pair_lengths[:-1] + 1)
    both = np.bincount(pair_lengths[:-1][following], minlength=NUMBER_DIGITS + 1)
    for length in np.unique(pair_lengths).tolist():  # at most NUMBER_DIGITS lengths
        rows = np.zeros(n_users, dtype=bool)
        rows[pair_users[pair_lengths == length]] = True
        counts_of = (("tokens", int(tokens[length])), ("rows_next", int(both[length])))
        hints.append(("bare_ids", rows, counts_of, (str(length),)))
    return hints


def lost_zeros(findings: list[Finding]) -> list[Finding]:
    """The digit ids' records (of one run, or every part's merged) as the participant's
    ``leading_zeros_lost``: the ids one or two digits shorter than the usual width, the
    commonest length of the zero-padded ids (the longest of equally common ones).

    Examples
    --------
    >>> padded = Finding("padded_ids", (("ids_10", 3), ("ids_4", 3)))
    >>> nine = Finding("bare_ids", (("rows", 2), ("tokens", 5), ("rows_next", 1)), ("u2", "u7"),
    ...                ("9",))
    >>> eight = Finding("bare_ids", (("rows", 1), ("tokens", 1), ("rows_next", 1)), ("u7",), ("8",))
    >>> lost_zeros([padded, nine, eight])
    [Finding(kind='leading_zeros_lost', counts=(('rows', 2), ('tokens', 6), ('width', 10)), \
examples=('u2', 'u7'), values=())]
    """
    records = {f.kind for f in findings} & {"padded_ids", "bare_ids"}
    rest = [f for f in findings if f.kind not in records]
    histogram: dict[int, int] = {}
    for found in findings:
        if found.kind == "padded_ids":
            for name, count in found.counts:
                histogram[int(name[4:])] = histogram.get(int(name[4:]), 0) + count
    bare = {int(f.values[0]): f for f in findings if f.kind == "bare_ids"}
    width = max(histogram, key=lambda n: (histogram[n], n), default=0)
    shorter = [bare[n] for n in (width - 2, width - 1) if n in bare]
    if not shorter:
        return rest
    both = bare[width - 2].count("rows_next") if len(shorter) == 2 else 0
    rows = sum(f.count("rows") for f in shorter) - both
    tokens = sum(f.count("tokens") for f in shorter)
    examples = smallest_of(*(f.examples for f in shorter))
    counts = (("rows", rows), ("tokens", tokens), ("width", width))
    return [*rest, Finding("leading_zeros_lost", counts, examples)]


def numbers_scoring_zero(findings: list[Finding], shown_score: float | None) -> list[Finding]:
    """The record of the ids' kinds as the participant's ``numbers_scoring_zero``, when
    every predicted id is a number without a leading zero and the score the participant
    sees (the Public one with ``Usage``) is 0: H&M's article ids read as numbers look
    so. A function of the submission and of that score only.

    Examples
    --------
    >>> record = Finding("numeric_ids", (("ids", 40), ("others", 0), ("rows", 4)))
    >>> numbers_scoring_zero([record], 0.0)
    [Finding(kind='numbers_scoring_zero', counts=(('rows', 4), ('ids', 40)), examples=(), \
values=())]
    >>> numbers_scoring_zero([record], 0.25)
    []
    """
    records = [f for f in findings if f.kind == "numeric_ids"]
    rest = [f for f in findings if f.kind != "numeric_ids"]
    n_ids = sum(f.count("ids") for f in records)
    if not n_ids or sum(f.count("others") for f in records) or shown_score != 0:
        return rest
    rows = sum(f.count("rows") for f in records)
    return [*rest, Finding("numbers_scoring_zero", (("rows", rows), ("ids", n_ids)))]


def solution_hints(
    predictions: SplitLists, user_of_row: np.ndarray, truth: GroundTruth
) -> list[Hint]:
    """Host hints: predicted ids that match one of their row's relevant items once
    leading zeros are fixed, and none as written.

    Both directions: the submission's ids lost their zeros (``706016001`` predicted
    where the row's item is ``0706016001``; a float's ``.0`` dropped first), or the
    solution's did (``0706016001`` predicted, ``706016001`` relevant: every correct
    submission then scores 0). These compare the submission with the solution's items,
    so they are for the host only.

    Examples
    --------
    >>> from scorer.align.item_lists import split_lists
    >>> truth = GroundTruth.from_lists(split_lists(pa.array(["372860001", "0706016001"])))
    >>> lists = split_lists(pa.array(["706016001 x", "0372860001"]))
    >>> [(code, rows.tolist()) for code, rows, *_ in solution_hints(lists, np.array([1, 0]),
    ...                                                              truth)]
    [('leading_zeros_lost_in_submission', [False, True]), \
('leading_zeros_lost_in_solution', [True, False])]
    """
    ids = _Ids(predictions, user_of_row)
    vocabulary = truth.vocabulary.cast(pa.large_string())
    starts = _first_bytes(vocabulary)
    stripped = pc.utf8_ltrim(vocabulary, characters="0")
    stripped_lengths = to_numpy(pc.binary_length(stripped), fill=0)
    padded = (starts == _ZERO) & (stripped_lengths > 0)
    hints = []
    maybe = (ids.first != _ZERO) if padded.any() else np.zeros(0, dtype=bool)
    if maybe.any():  # the submission lost zeros: bare ids, padded items
        maybe &= ids.listed
        maybe &= _among(ids.lengths_without_float_end(maybe), stripped_lengths[padded])
        forms, form_of = _forms(stripped, padded)
        probes = np.flatnonzero(maybe)
        keys = np.sort(_pair_keys(truth.users, form_of[truth.codes], len(forms)))
        index = StringIndex(forms)
        # A block of probes at a time: nearly every id of a file of one-byte items can be
        # a probe, and each holds a few 8-byte numbers here.
        found = [
            _zeros_lost(ids, probes[start : start + BLOCK_ROWS], index, keys)
            for start in range(0, len(probes), BLOCK_ROWS)
        ]
        hit = np.concatenate(found) if found else probes
        hints += _host_hint("leading_zeros_lost_in_submission", ids, truth, hit)
    bare = (starts != _ZERO) & (starts != 0)
    maybe = (ids.first == _ZERO) if bare.any() and ids.zero_padded else np.zeros(0, dtype=bool)
    if maybe.any():  # the solution lost zeros: bare items, padded ids
        probes = np.flatnonzero(maybe & ids.listed & (ids.count_lengths > 1))
        trimmed = pc.utf8_ltrim(ids.take(probes), characters="0")
        kept = _among(to_numpy(pc.binary_length(trimmed), fill=0), stripped_lengths[bare])
        probes, trimmed = probes[kept], trimmed.filter(to_arrow(kept))
        code = first_index_of(trimmed, vocabulary)
        hit = (code >= 0) & truth.contains(ids.users(probes), code)
        hints += _host_hint("leading_zeros_lost_in_solution", ids, truth, probes[hit])
    return hints


def _zeros_lost(ids: _Ids, probes: np.ndarray, index: StringIndex, keys: np.ndarray) -> np.ndarray:
    """The probes whose id, its float ending dropped, is a padded item's form (found in
    ``index``) of one of its user's relevant items (``keys``, sorted)."""
    written = ids.take(probes)
    if len(probes) and _holds(written, b"."):
        written = pc.replace_substring_regex(written, _FLOAT_END, "")
    found = index.find(written)
    pairs = _pair_keys(ids.users(probes), found, len(index))
    at = np.minimum(np.searchsorted(keys, pairs), max(len(keys) - 1, 0))
    return probes[(found >= 0) & (keys[at] == pairs)] if len(keys) else probes[:0]


def _host_hint(code: str, ids: _Ids, truth: GroundTruth, found: np.ndarray) -> list[Hint]:
    """The hint of the ids ``found`` that are not relevant as written (none if none)."""
    written = first_index_of(ids.take(found), truth.vocabulary.cast(pa.large_string()))
    found = found[~truth.contains(ids.users(found), written)]
    if not len(found):
        return []
    rows = np.zeros(len(truth.n_relevant), dtype=bool)
    rows[ids.users(found)] = True
    return [(code, rows, (("tokens", len(found)),), ())]


def _forms(stripped: pa.Array, chosen: np.ndarray) -> tuple[pa.Array, np.ndarray]:
    """The distinct forms of the chosen items (the solution's own strings, so Arrow may
    hash them), and each item's form (-1 for the others)."""
    encoded = pc.dictionary_encode(stripped.filter(to_arrow(chosen)))
    form_of = np.full(len(stripped) + 1, -1, dtype=np.int64)  # the last for code -1
    form_of[np.flatnonzero(chosen)] = to_numpy(encoded.indices).astype(np.int64)
    return encoded.dictionary, form_of


def _pair_keys(users: np.ndarray, forms: np.ndarray, n_forms: int) -> np.ndarray:
    return np.where(forms >= 0, users * max(n_forms, 1) + forms, -1)


class _Ids:
    """What the hints read of every predicted id, made once and only as far as asked:
    from the values or the Arrow strings, whichever the lists keep.

    Examples
    --------
    >>> from scorer.align.item_lists import split_lists
    >>> ids = _Ids(split_lists(pa.array(["0706 12.0 x,y", "7e5"])), np.array([0, -1]))
    >>> ids.digits.tolist(), ids.holding(b",").tolist(), ids.listed.tolist()
    ([4, 2, 0, 0], [False, False, True, False], [True, True, True, False])
    """

    def __init__(self, lists: SplitLists, user_of_row: np.ndarray) -> None:
        self.lists = lists
        self.user_of_row = user_of_row
        self.count = int(lists.lengths.sum())
        self._held: dict[bytes, np.ndarray] = {}  # holding()'s, for this instance only

    @cached_property
    def _ends(self) -> np.ndarray:
        return np.cumsum(self.lists.lengths)

    def users(self, positions: np.ndarray) -> np.ndarray:
        """The solution row of each id at ``positions`` (-1: a row left out)."""
        return self.user_of_row[np.searchsorted(self._ends, positions, side="right")]

    @cached_property
    def listed(self) -> np.ndarray:
        """Whether each id is in a row of the sample submission."""
        return np.repeat(self.user_of_row >= 0, self.lists.lengths)

    def rows(self, marked: np.ndarray, n_users: int) -> np.ndarray:
        """The solution rows holding a marked id."""
        rows = np.zeros(n_users, dtype=bool)
        users = self.users(np.flatnonzero(marked))
        rows[users[users >= 0]] = True
        return rows

    def take(self, positions: np.ndarray) -> pa.Array:
        return self.lists.take(positions).cast(pa.large_string())

    @cached_property
    def _bytes(self) -> np.ndarray:
        """Every id's bytes in one contiguous run."""
        return string_bytes(self.lists.tokens.cast(pa.large_string()))

    @cached_property
    def _range(self) -> tuple[int, int]:
        """The smallest and the largest of every id's bytes (digits for values)."""
        if self.lists.values is not None:
            return _ZERO, _NINE
        data = self._bytes
        if not len(data):
            return _ZERO, _NINE
        return int(data.min()), int(data.max())

    @property
    def digits_only(self) -> bool:
        """Whether every byte of every id is a digit: numbers only, no comma or dot."""
        low, high = self._range
        return low >= _ZERO and high <= _NINE

    @cached_property
    def first(self) -> np.ndarray:
        """Each id's first byte (0 for an empty one)."""
        lists = self.lists
        if lists.values is not None:
            values, lengths = lists.values, self.count_lengths
            scales = np.r_[1, _POWERS]  # a value of n digits over 10**(n - 1): its first

            def firsts(a: int, b: int) -> np.ndarray:
                return _ZERO + values[a:b].astype(np.int64) // scales[lengths[a:b] - 1]

            return _blockwise(self.count, np.uint8, firsts)
        return _first_bytes(lists.tokens.cast(pa.large_string()), empties=False)

    @cached_property
    def second(self) -> np.ndarray:
        """Each id's second byte (0 for an id of one byte)."""
        lists = self.lists
        if lists.values is not None:  # digits only: their second byte never matters
            return np.full(self.count, _ZERO, dtype=np.uint8)
        tokens = lists.tokens.cast(pa.large_string())
        offsets, data = string_offsets(tokens), string_bytes(tokens)

        def seconds(a: int, b: int) -> np.ndarray:
            starts = offsets[a : b + 1] - offsets[0]
            found = data.take(starts[:-1] + 1, mode="clip")
            found[np.diff(starts) < 2] = 0
            return found

        return _blockwise(self.count, np.uint8, seconds)

    @property
    def starts_with_digit(self) -> np.ndarray:
        return (self.first >= _ZERO) & (self.first <= _NINE)

    @cached_property
    def count_lengths(self) -> np.ndarray:
        """Each id's length in bytes."""
        lists = self.lists
        if lists.values is not None:
            values = lists.values
            return _blockwise(self.count, np.uint8, lambda a, b: _digit_counts(values[a:b]))
        offsets = string_offsets(lists.tokens.cast(pa.large_string()))
        # An id is at most a line's bytes (the read limits): int32 holds its length.
        return _blockwise(self.count, np.int32, lambda a, b: np.diff(offsets[a : b + 1]))

    def lengths_without_float_end(self, chosen: np.ndarray) -> np.ndarray:
        """Each id's length without a float's ``.0`` (for the ``chosen`` ids; others as
        they are)."""
        lengths = self.count_lengths.copy()
        dotted = np.flatnonzero(chosen & self.holding(b"."))
        if len(dotted):
            trimmed = pc.replace_substring_regex(self.take(dotted), _FLOAT_END, "")
            lengths[dotted] = to_numpy(pc.binary_length(trimmed), fill=0)
        return lengths

    @cached_property
    def digits(self) -> np.ndarray:
        """Each id's number of digits when it is a number (``12.0``: 2), else 0."""
        if self.digits_only:
            return self.count_lengths
        digits = np.zeros(self.count, dtype=np.int64)
        numbers = np.flatnonzero(self.matching(_NUMBER, self.starts_with_digit))
        digits[numbers] = self.lengths_without_float_end(self.starts_with_digit)[numbers]
        return digits

    @property
    def all_numbers(self) -> bool:
        """Whether every id is digits only and not zero-padded (``0`` alone is a number):
        the first id is looked at first, the rest only if it is one."""
        if self.lists.values is not None or not self.count:
            return True
        head = self.lists.head(1).cast(pa.large_string()).to_pylist()[0]
        if not (head.isdigit() and head.isascii() and (head[0] != "0" or len(head) == 1)):
            return False
        return self.digits_only and not self.zero_padded

    @cached_property
    def zero_padded(self) -> bool:
        """Whether some id of two bytes or more starts with a zero (``007``, ``0.5``):
        never for lists of values, which are canonical integers."""
        if self.lists.values is not None:
            return False
        return bool(((self.first == _ZERO) & (self.count_lengths > 1)).any())

    def matching(self, pattern: str, chosen: np.ndarray) -> np.ndarray:
        """Whether each id is one of the ``chosen`` ones and matches ``pattern``."""
        found = np.zeros(self.count, dtype=bool)
        positions = np.flatnonzero(chosen)
        if len(positions):
            matches = pc.match_substring_regex(self.take(positions), pattern)
            found[positions] = to_numpy(matches, fill=False)
        return found

    def holding(self, characters: bytes) -> np.ndarray:
        """Whether each id holds one of these ASCII characters (made once for each
        ``characters``, kept with this instance: a cache on the method would keep every
        instance, and its lists, for the process's life)."""
        if characters not in self._held:
            self._held[characters] = self._holding(characters)
        return self._held[characters]

    def _holding(self, characters: bytes) -> np.ndarray:
        found = np.zeros(self.count, dtype=bool)
        low, high = self._range
        wanted = np.frombuffer(characters, dtype=np.uint8)
        if self.lists.values is not None or not ((wanted >= low) & (wanted <= high)).any():
            return found
        data = self._bytes
        offsets = string_offsets(self.lists.tokens.cast(pa.large_string()))
        first = int(offsets[0])
        for start in range(0, len(data), _BLOCK_BYTES):  # no position of every byte held
            at = np.flatnonzero(_equal_any(data[start : start + _BLOCK_BYTES], wanted))
            at += start + first
            found[np.searchsorted(offsets, at, side="right") - 1] = True
        return found


def _blockwise(n: int, dtype: type, compute: Callable[[int, int], np.ndarray]) -> np.ndarray:
    """``compute(a, b)`` for the ids ``a`` to ``b``, a block at a time, into an array of
    ``dtype``: a file of one-byte items holds little more than its ids, so no 8-byte
    number per id is made for all of them at once.

    Examples
    --------
    >>> _blockwise(5, np.uint8, lambda a, b: np.arange(a, b) * 2).tolist()
    [0, 2, 4, 6, 8]
    """
    found = np.empty(n, dtype=dtype)
    for start in range(0, n, _BLOCK_VALUES):
        stop = min(start + _BLOCK_VALUES, n)
        found[start:stop] = compute(start, stop)
    return found


def _digit_counts(values: np.ndarray) -> np.ndarray:
    """How many digits each non-negative value has (``0``: 1).

    Examples
    --------
    >>> _digit_counts(np.array([0, 7, 10, 999, 1000])).tolist()
    [1, 1, 2, 3, 4]
    """
    return 1 + np.searchsorted(_POWERS, values.astype(np.int64), side="right")


def _first_bytes(strings: pa.Array, empties: bool = True) -> np.ndarray:
    """Each string's first byte, 0 for an empty one (``large_string``; ``empties``:
    whether any may be empty).

    Examples
    --------
    >>> _first_bytes(pa.array(["0a", "a0", "", "0"], pa.large_string())).tolist()
    [48, 97, 0, 48]
    """
    offsets = string_offsets(strings)
    data = string_bytes(strings)
    if not len(data):
        return np.zeros(len(strings), dtype=np.uint8)
    starts = offsets[:-1] if offsets[0] == 0 else offsets[:-1] - offsets[0]
    first = data.take(starts, mode="clip")
    if empties:  # split lists hold no empty id: only the solution's items are looked at
        first[offsets[1:] == offsets[:-1]] = 0
    return first


def _equal_any(data: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """``np.isin(data, wanted)`` for a few bytes, a comparison each (isin sorts)."""
    found = data == wanted[0]
    for byte in wanted[1:]:
        found |= data == byte
    return found


def _among(lengths: np.ndarray, members: np.ndarray) -> np.ndarray:
    """Whether each length is one of ``members`` (a table of them: no sort, no hash)."""
    table = np.zeros(int(members.max(initial=0)) + 2, dtype=bool)
    table[members] = True
    return table[np.minimum(lengths, len(table) - 1)]


def _holds(strings: pa.Array, character: bytes) -> bool:
    data = string_bytes(strings)
    return bool(len(data)) and bool((data == character[0]).any())
