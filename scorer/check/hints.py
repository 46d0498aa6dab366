"""Warnings for prediction lists that were probably damaged on their way to the file.

Two audiences, kept apart by the information boundary (docs/decisions.md#information-boundary):

- :func:`prediction_hints`, for the participant, read the submission alone: item ids
  that are all digits and one or two digits shorter than the submission's usual
  zero-padded ids (read as numbers), item ids written as floats (``706016001.0``,
  ``7.06016001e+08``: read as numbers), lists joined by commas or semicolons. They say
  the same thing whatever the solution holds, so they can never test a guess about it.
- :func:`solution_hints`, for the host, compare the submission with the solution's
  items: item ids that match a relevant item only once leading zeros are restored
  (the submission lost them) or removed (the solution lost them, and every correct
  submission scores 0).

Every test is Arrow compute or numpy over whole columns. Membership in the solution's
items (:class:`_Candidates`) is the join of strings
(:class:`~scorer.align.joins.StringIndex`: keyed prints, sorted, each hit confirmed
byte for byte): the participant's strings are never hashed by a function they could
predict. Each hint first probes the first
:data:`PROBE_TOKENS` predicted ids and scans everything only when those show the
mistake, so a clean submission costs next to nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from scorer.align.item_lists import SplitLists
from scorer.align.joins import StringIndex
from scorer.arrays import string_bytes, string_offsets, to_arrow, to_numpy
from scorer.errors import format_count

Hint = tuple[str, str, np.ndarray]
#: Predicted ids each hint looks at before deciding to scan them all.
PROBE_TOKENS = 10_000
_NUMBER = r"^[0-9]+(\.0*)?$"  # digits, perhaps with the ".0" of a float
_FLOAT_END = r"\.0*$"
#: An id as a program writes a number it read as a float: ``706016001.0``, ``7.06016001e+08``.
_FLOAT_OR_EXPONENT = r"^[0-9]+\.0+$|^[0-9](\.[0-9]+)?[eE][+-]?[0-9]+$"


def prediction_hints(predictions: SplitLists, user_of_row: np.ndarray, n_users: int) -> list[Hint]:
    """Participant hints: what the submission alone shows went wrong.

    Each hint is ``(code, sentence, mask)``: a warning code, a sentence with
    ``{rows}`` and ``{have}`` placeholders and a boolean mask over solution rows.
    Nothing here reads the solution beyond ``user_of_row`` (which row id each
    submission row is), so the hints are the same for any two solutions with the
    same row ids.

    Parameters
    ----------
    predictions : SplitLists
        The split predictions, in submission row order.
    user_of_row : ndarray of int64
        The solution row of each submission row, ``-1`` for rows left out.
    n_users : int
        Number of solution rows.

    Examples
    --------
    >>> from scorer.align.item_lists import split_lists
    >>> cells = ["0706016001 706016002", "0372860001,0372860002", "108775015.0 0108775044"]
    >>> hints = prediction_hints(split_lists(pa.array(cells)), np.array([0, 1, 2]), 3)
    >>> for code, _, mask in hints:
    ...     print(code, mask.tolist())
    leading_zeros_lost [True, False, True]
    item_ids_as_numbers [False, False, True]
    comma_separated_lists [False, True, False]
    """
    hints: list[Hint] = []
    short = _probed(predictions, _short_of_padded)
    if short is not None:
        width = _padded_width(predictions.tokens)
        n_tokens = format_count(int(short.sum()), "predicted item id")
        sentence = (
            f"{{rows}} {{have}} item ids of digits only that are one or two digits shorter than "
            f"the submission's usual {width}-digit ids with leading zeros ({n_tokens} in all): "
            "they probably lost their leading zeros when read as numbers; item ids are compared "
            "as exact strings, so keep them as text (for example pandas: dtype=str)."
        )
        hints.append(
            ("leading_zeros_lost", sentence, _rows(predictions, short, user_of_row, n_users))
        )
    floats = _probed(predictions, lambda items: _matches(items, _FLOAT_OR_EXPONENT))
    if floats is not None:
        n_tokens = format_count(int(floats.sum()), "predicted item id")
        sentence = (
            f"{{rows}} {{have}} item ids written as floating-point numbers, like '706016001.0' "
            f"or '7.06016001e+08' ({n_tokens} in all): they were probably read as numbers, "
            "which also drops leading zeros; item ids are compared as exact strings, so keep "
            "them as text (for example pandas: dtype=str)."
        )
        hints.append(
            ("item_ids_as_numbers", sentence, _rows(predictions, floats, user_of_row, n_users))
        )
    commas = _probed(predictions, lambda items: _matches(items, "[,;]"))
    if commas is not None:
        sentence = (
            "{rows} {have} item ids containing a comma or semicolon: separate items with "
            "spaces, not commas ('a b c', not 'a,b,c'); 'a,b' counts as one item id and 'a,' "
            "does not match 'a'."
        )
        hints.append(
            ("comma_separated_lists", sentence, _rows(predictions, commas, user_of_row, n_users))
        )
    return [hint for hint in hints if hint[2].any()]


def solution_hints(
    predictions: SplitLists, user_of_row: np.ndarray, n_users: int, vocabulary: pa.Array
) -> list[Hint]:
    """Host hints: predicted ids that match a relevant item once leading zeros are fixed.

    Both directions: the submission's ids lost their zeros (``706016001`` for the
    solution's ``0706016001``), or the solution's did (``0706016001`` predicted,
    ``706016001`` relevant: every correct submission then scores 0). These compare
    the submission with the solution's items, so they are for the host only.

    Parameters
    ----------
    predictions, user_of_row, n_users
        As in :func:`prediction_hints`.
    vocabulary : pyarrow.Array
        Every distinct relevant item of the solution.

    Examples
    --------
    >>> from scorer.align.item_lists import split_lists
    >>> lists = split_lists(pa.array(["706016001 x", "0372860001"]))
    >>> vocabulary = pa.array(["0706016001", "372860001"])
    >>> [(code, mask.tolist()) for code, _, mask in solution_hints(lists, np.array([0, 1]), 2,
    ...                                                             vocabulary)]
    [('leading_zeros_lost_in_submission', [True, False]), \
('leading_zeros_lost_in_solution', [False, True])]
    """
    vocabulary = vocabulary.cast(pa.large_string())
    padded = _matches(vocabulary, "^0")
    relevant = _Candidates(vocabulary)
    stripped = _Candidates(pc.utf8_ltrim(vocabulary.filter(to_arrow(padded)), characters="0"))
    bare = _Candidates(vocabulary.filter(to_arrow(~padded)))
    hints: list[Hint] = []

    def restored(items: pa.Array) -> np.ndarray:
        """Not relevant as written; relevant once zeros are put back (and a ``.0`` dropped)."""
        found = _first_byte_is_zero(items) == 0
        if not found.any() or stripped.empty:
            return np.zeros(len(items), dtype=bool)
        candidates = items.filter(to_arrow(found))
        if _holds_byte(candidates, "."):
            candidates = pc.replace_substring_regex(candidates, _FLOAT_END, "")
        found[found] = stripped.contains(candidates)
        return _absent(items, found, relevant)

    def removed(items: pa.Array) -> np.ndarray:
        """Not relevant as written; relevant once the leading zeros are removed."""
        found = _first_byte_is_zero(items) == 1
        if bare.empty or not found.any():
            return np.zeros(len(items), dtype=bool)
        found[found] = bare.contains(pc.utf8_ltrim(items.filter(to_arrow(found)), characters="0"))
        return _absent(items, found, relevant)

    sentences = {
        "leading_zeros_lost_in_submission": (
            restored,
            "match no relevant item as written but would match one with leading zeros "
            "restored: the participant's item ids were probably read as numbers.",
        ),
        "leading_zeros_lost_in_solution": (
            removed,
            "match no relevant item as written but would match one with their leading zeros "
            "removed: the solution's item ids probably lost their leading zeros (read as "
            "numbers when it was prepared), so correct predictions score 0; write the "
            "solution's item ids as text.",
        ),
    }
    for code, (test, explanation) in sentences.items():
        found = _probed(predictions, test)
        if found is not None:
            n_tokens = format_count(int(found.sum()), "predicted item id")
            sentence = f"{{rows}} of the submission {{have}} item ids ({n_tokens} in all) that "
            hints.append(
                (code, sentence + explanation, _rows(predictions, found, user_of_row, n_users))
            )
    return [hint for hint in hints if hint[2].any()]


def _short_of_padded(items: pa.Array) -> np.ndarray:
    """Digit-only ids one or two digits shorter than the usual zero-padded width.

    The usual width is the commonest length of the digit-only ids that start with
    ``0`` (ids padded to a width); ids that are plain numbers of every length
    (``7``, ``42``, ``1234``) are no sign of lost zeros.

    Examples
    --------
    >>> _short_of_padded(pa.array(["0123", "0456", "789", "12.0", "0042", "5", "a"])).tolist()
    [False, False, True, True, False, False, False]
    >>> _short_of_padded(pa.array(["123", "45", "6"])).tolist()
    [False, False, False]
    >>> _short_of_padded(pa.array(["00", "1a", "7"])).tolist()  # "1a" is no number
    [False, False, True]
    """
    width = _padded_width(items)
    if width is None:
        return np.zeros(len(items), dtype=bool)
    lengths = _digit_lengths(items)
    starts_bare = _matches(items, "^[1-9]")
    return starts_bare & (lengths > 0) & ((lengths == width - 1) | (lengths == width - 2))


def _padded_width(items: pa.Array) -> int | None:
    """The commonest length of the digit-only ids that start with ``0``, if any."""
    lengths = _digit_lengths(items)
    padded = lengths[(lengths > 1) & _matches(items, "^0")]
    if len(padded) == 0:
        return None
    counts = np.bincount(padded)
    return int(len(counts) - 1 - np.argmax(counts[::-1]))  # the longest of equal counts


def _digit_lengths(items: pa.Array) -> np.ndarray:
    """Each id's number of digits (before a ``.0``) when it is a number, else 0."""
    numeric = _matches(items, _NUMBER)
    digits = to_numpy(pc.binary_length(pc.replace_substring_regex(items, _FLOAT_END, "")), fill=0)
    return np.where(numeric, digits, 0).astype(np.int64)


def _absent(items: pa.Array, found: np.ndarray, relevant: _Candidates) -> np.ndarray:
    """``found`` without the items that are relevant as written."""
    if found.any():
        found[found] = ~relevant.contains(items.filter(to_arrow(found)))
    return found


class _Candidates:
    """Strings from the solution, to test predicted ids against (the join of strings,
    :class:`~scorer.align.joins.StringIndex`: no hash a submission could predict).

    Examples
    --------
    >>> candidates = _Candidates(pa.array(["a", "b", "a", "abc"]))
    >>> candidates.contains(pa.array(["b", "x", "a", "b", "ab"])).tolist()
    [True, False, True, True, False]
    """

    def __init__(self, strings: pa.Array) -> None:
        self.strings = strings
        self.empty = len(strings) == 0

    @cached_property
    def _index(self) -> StringIndex:
        """Made on the first lookup: a clean submission never needs it."""
        return StringIndex(self.strings)

    def contains(self, values: pa.Array) -> np.ndarray:
        """Whether each value equals a candidate."""
        if self.empty or len(values) == 0:
            return np.zeros(len(values), dtype=bool)
        return self._index.find(values) >= 0


def _first_byte_is_zero(items: pa.Array) -> np.ndarray:
    """Per item: 1 when it starts with ``0``, 0 when with another byte, -1 when empty.

    Examples
    --------
    >>> _first_byte_is_zero(pa.array(["0a", "a0", "", "0"], pa.large_string())).tolist()
    [1, 0, -1, 1]
    """
    items = items.cast(pa.large_string())
    offsets = string_offsets(items)
    data = string_bytes(items)
    starts = offsets[:-1] - offsets[0]
    nonempty = offsets[1:] > offsets[:-1]
    first = data[np.minimum(starts, max(len(data) - 1, 0))] if len(data) else starts * 0
    return np.where(nonempty, (first == ord("0")).astype(np.int8), np.int8(-1))


def _holds_byte(items: pa.Array, character: str) -> bool:
    """Whether any item holds this ASCII character (one pass over the bytes)."""
    data = string_bytes(items.cast(pa.large_string()))
    return bool(len(data)) and bool((data == ord(character)).any())


def _probed(lists: SplitLists, test: Callable[[pa.Array], np.ndarray]) -> np.ndarray | None:
    """Apply ``test`` to every token; None when it holds for none.

    The first tokens are probed first, so a clean submission costs next to nothing
    (the full token array is not even built); a mistake made while writing the file
    shows from its first rows.
    """
    if not test(lists.head(PROBE_TOKENS)).any():
        return None
    found = test(lists.tokens)
    return found if found.any() else None


def _matches(items: pa.Array, pattern: str) -> np.ndarray:
    return to_numpy(pc.match_substring_regex(items, pattern), fill=False)


def _rows(
    lists: SplitLists, tokens: np.ndarray, user_of_row: np.ndarray, n_users: int
) -> np.ndarray:
    """The solution rows whose submission row holds one of the marked tokens."""
    rows = np.bincount(lists.row_of_token[tokens], minlength=len(lists.lengths)) > 0
    mask = np.zeros(n_users, dtype=bool)
    mask[user_of_row[rows & (user_of_row >= 0)]] = True
    return mask
