"""Warnings for prediction lists that were probably damaged on their way to the file.

Two audiences, kept apart by the information boundary (SPEC 6.1):

- :func:`prediction_hints`, for the participant, read the submission alone: item ids
  that are all digits and one or two digits shorter than the submission's usual
  zero-padded ids (read as numbers), lists joined by commas or semicolons. They say
  the same thing whatever the solution holds, so they can never test a guess about it.
- :func:`solution_hints`, for the host, compare the submission with the solution's
  items: item ids that match a relevant item only once leading zeros are restored
  (the submission lost them) or removed (the solution lost them, and every correct
  submission scores 0).

Every test is Arrow compute or numpy over whole columns; membership in the solution's
items is decided by sorting (:func:`_is_in`), never by hashing the participant's
strings. Each hint first probes the first :data:`PROBE_TOKENS` predicted ids and scans
everything only when those show the mistake, so a clean submission costs next to
nothing.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from scorer.arrays import to_arrow, to_numpy
from scorer.errors import format_count
from scorer.tokens import SplitLists

Hint = tuple[str, str, np.ndarray]
#: Predicted ids each hint looks at before deciding to scan them all.
PROBE_TOKENS = 10_000
_NUMBER = r"^[0-9]+(\.0*)?$"  # digits, perhaps with the ".0" of a float
_FLOAT_END = r"\.0*$"


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
    >>> from scorer.tokens import split_lists
    >>> cells = ["0706016001 706016002", "0372860001,0372860002", "0108775015 0108775044"]
    >>> hints = prediction_hints(split_lists(pa.array(cells)), np.array([0, 1, 2]), 3)
    >>> [(code, mask.tolist()) for code, _, mask in hints]
    [('leading_zeros_lost', [True, False, False]), ('comma_separated_lists', [False, True, False])]
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
    commas = _probed(predictions, lambda items: _matches(items, "[,;]"))
    if commas is not None:
        sentence = (
            "{rows} {have} item ids containing a comma or semicolon: item ids must be "
            "separated by spaces only, so 'a,b' counts as one item id and 'a,' does not match 'a'."
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
    >>> from scorer.tokens import split_lists
    >>> lists = split_lists(pa.array(["706016001 x", "0372860001"]))
    >>> vocabulary = pa.array(["0706016001", "372860001"])
    >>> [(code, mask.tolist()) for code, _, mask in solution_hints(lists, np.array([0, 1]), 2,
    ...                                                             vocabulary)]
    [('leading_zeros_lost_in_submission', [True, False]), \
('leading_zeros_lost_in_solution', [False, True])]
    """
    vocabulary = vocabulary.cast(pa.large_string())
    padded = _matches(vocabulary, "^0")
    stripped = pc.utf8_ltrim(vocabulary.filter(to_arrow(padded)), characters="0")
    bare = vocabulary.filter(to_arrow(~padded))
    hints: list[Hint] = []

    def restored(items: pa.Array) -> np.ndarray:
        """Not relevant as written; relevant once zeros are put back (and a ``.0`` dropped)."""
        found = _matches(items, "^[^0]")
        if len(stripped) == 0 or not found.any():
            return np.zeros(len(items), dtype=bool)
        repaired = pc.replace_substring_regex(items, _FLOAT_END, "")
        found[found] = _is_in(repaired.filter(to_arrow(found)), stripped)
        return _absent(items, found, vocabulary)

    def removed(items: pa.Array) -> np.ndarray:
        """Not relevant as written; relevant once the leading zeros are removed."""
        found = _matches(items, "^0+[^0]")
        if len(bare) == 0 or not found.any():
            return np.zeros(len(items), dtype=bool)
        trimmed = pc.utf8_ltrim(items.filter(to_arrow(found)), characters="0")
        found[found] = _is_in(trimmed, bare)
        return _absent(items, found, vocabulary)

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
    """
    width = _padded_width(items)
    if width is None:
        return np.zeros(len(items), dtype=bool)
    lengths = _digit_lengths(items)
    starts_bare = _matches(items, "^[1-9]")
    return starts_bare & ((lengths == width - 1) | (lengths == width - 2))


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


def _absent(items: pa.Array, candidates: np.ndarray, vocabulary: pa.Array) -> np.ndarray:
    """``candidates`` without the items that are relevant as written."""
    if candidates.any():
        candidates[candidates] = ~_is_in(items.filter(to_arrow(candidates)), vocabulary)
    return candidates


def _is_in(values: pa.Array, candidates: pa.Array) -> np.ndarray:
    """Whether each value equals some candidate, by one sort of both (no hashing).

    O(n log n) comparisons whatever the strings are: a crafted submission cannot
    make it slower, as it could a hash table with a known hash function.

    Examples
    --------
    >>> _is_in(pa.array(["b", "x", "a", "b"]), pa.array(["a", "b", "a"])).tolist()
    [True, False, True, True]
    """
    if len(values) == 0 or len(candidates) == 0:
        return np.zeros(len(values), dtype=bool)
    both = pa.concat_arrays([values.cast(pa.large_string()), candidates.cast(pa.large_string())])
    order = to_numpy(pc.sort_indices(both))
    ordered = both.take(to_arrow(order))
    starts = np.ones(len(both), dtype=bool)
    starts[1:] = ~to_numpy(pc.equal(ordered.slice(1), ordered.slice(0, len(both) - 1)), fill=False)
    group = np.cumsum(starts) - 1
    is_candidate = order >= len(values)
    has_candidate = np.zeros(int(group[-1]) + 1, dtype=bool)
    has_candidate[group[is_candidate]] = True
    found = np.empty(len(values), dtype=bool)
    found[order[~is_candidate]] = has_candidate[group[~is_candidate]]
    return found


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
