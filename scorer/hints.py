"""Warnings for prediction lists that were probably damaged on their way to the file.

Item ids that lost their leading zeros (read as numbers), lists joined by commas or
semicolons. Each hint is an aggregate statement: it never quotes a solution value.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from scorer.arrays import to_numpy
from scorer.errors import format_count
from scorer.joins import first_index_of
from scorer.tokens import SplitLists

Hint = tuple[str, str, np.ndarray]
_PROBE_TOKENS = 10_000


def prediction_hints(
    predictions: SplitLists, user_of_row: np.ndarray, n_users: int, vocabulary: pa.Array
) -> list[Hint]:
    """Spot prediction lists that were probably damaged on their way to the file.

    Each hint is ``(code, sentence, mask)``: a warning code, a sentence with
    ``{rows}`` and ``{have}`` placeholders and a boolean mask over solution rows.
    Sentences are aggregate statements: they never quote a solution value.

    Parameters
    ----------
    predictions : SplitLists
        The split predictions, in submission row order.
    user_of_row : ndarray of int64
        The solution row of each submission row, ``-1`` for rows left out.
    n_users : int
        Number of solution rows.
    vocabulary : pyarrow.Array
        Every distinct relevant item of the solution.

    Examples
    --------
    >>> from scorer.tokens import split_lists
    >>> lists = split_lists(pa.array(["706016001 x", "0706016001,0372860001"]))
    >>> hints = prediction_hints(lists, np.array([0, 1]), 2, pa.array(["0706016001"]))
    >>> [(code, mask.tolist()) for code, _, mask in hints]
    [('leading_zeros_lost', [True, False]), ('comma_separated_lists', [False, True])]
    """
    hints: list[Hint] = []
    lost = _lost_leading_zeros(predictions, vocabulary)
    if lost is not None:
        n_tokens = format_count(int(lost.sum()), "predicted item id")
        sentence = (
            f"{{rows}} {{have}} item ids that match no relevant item as written but would "
            f"match one with leading zeros restored ({n_tokens} in all): item ids are compared "
            "as exact strings, and these were probably read as numbers; keep them as text "
            "(for example pandas: dtype=str)."
        )
        rows = np.bincount(predictions.row_of_token[lost], minlength=len(predictions.lengths))
        mask = _solution_mask(rows > 0, user_of_row, n_users)
        hints.append(("leading_zeros_lost", sentence, mask))
    commas = _per_distinct(predictions, lambda items: _matches(items, "[,;]"))
    if commas is not None:
        rows = np.bincount(predictions.row_of_token[commas], minlength=len(predictions.lengths))
        sentence = (
            "{rows} {have} item ids containing a comma or semicolon: item ids must be "
            "separated by spaces only, so 'a,b' counts as one item id and 'a,' does not match 'a'."
        )
        mask = _solution_mask(rows > 0, user_of_row, n_users)
        hints.append(("comma_separated_lists", sentence, mask))
    return [hint for hint in hints if hint[2].any()]


def _lost_leading_zeros(lists: SplitLists, vocabulary: pa.Array) -> np.ndarray | None:
    """Which tokens match no relevant item but match one once leading zeros are restored."""
    padded = vocabulary.filter(pc.starts_with(vocabulary, "0"))
    stripped = pc.utf8_ltrim(padded, characters="0")
    if len(stripped) == 0:
        return None

    def lost(items: pa.Array) -> np.ndarray:
        bare = _matches(items, "^[^0]")
        repaired = pc.replace_substring_regex(items, r"\.0*$", "")
        absent = first_index_of(items, vocabulary) < 0
        return bare & absent & (first_index_of(repaired, stripped) >= 0)

    return _per_distinct(lists, lost)


def _per_distinct(lists: SplitLists, test: Callable[[pa.Array], np.ndarray]) -> np.ndarray | None:
    """Apply ``test`` once per distinct token; None when it holds for none.

    The first tokens are probed first, so a clean submission costs next to nothing
    (the full token array is not even built); a mistake made while writing the file
    shows from its first rows.
    """
    if not test(lists.head(_PROBE_TOKENS)).any():
        return None
    encoded = pc.dictionary_encode(lists.tokens)
    found = test(encoded.dictionary)[to_numpy(encoded.indices)]
    return found if found.any() else None


def _matches(items: pa.Array, pattern: str) -> np.ndarray:
    return to_numpy(pc.match_substring_regex(items, pattern), fill=False)


def _solution_mask(rows: np.ndarray, user_of_row: np.ndarray, n_users: int) -> np.ndarray:
    """Carry a mask over submission rows to the solution rows they belong to."""
    mask = np.zeros(n_users, dtype=bool)
    mask[user_of_row[rows & (user_of_row >= 0)]] = True
    return mask
