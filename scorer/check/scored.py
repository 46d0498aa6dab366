"""Scored predictions: a submission cell holding one ``label confidence`` pair (GAP).

A cell is empty (no prediction) or two whitespace-separated tokens: the label, then
its confidence written as a decimal number (``0.87``, ``-1``, ``.5``, ``3e-5``). A
confidence is read as the float64 it rounds to, as Python's ``float()`` reads it, so
two spellings of one double (``0.5``, ``5e-1``) tie; ``inf``, ``nan``, a number past
the float64 range and any other text are refused. The rows are checked all at once
(Arrow's regular expressions and cast, linear in the bytes), and every problem is a
record with the five smallest row ids in byte order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from scorer.align.item_lists import ListCells, split_lists
from scorer.arrays import to_arrow, to_numpy
from scorer.constraints import DECIMAL
from scorer.errors import Finding, smallest_values

#: A confidence as written: optional sign, digits with an optional point, optional exponent.


@dataclass(frozen=True)
class ScoredCells:
    """Each cell's label and confidence, and which cells are malformed.

    Attributes
    ----------
    labels : pyarrow.Array
        Each row's label, null without one (an empty or malformed cell).
    confidence : ndarray of float64
        Each row's confidence, NaN without a valid pair.
    not_one_pair : ndarray of bool
        Rows whose cell is neither empty nor exactly two tokens.
    bad_confidence : ndarray of bool
        Rows with two tokens whose second is no finite decimal number.

    Examples
    --------
    >>> cells = ScoredCells.parse(pa.array(["7 0.5", "", "8", "9 inf", " 3  1e2 "]))
    >>> cells.labels.to_pylist(), cells.confidence.tolist()
    (['7', None, None, None, '3'], [0.5, nan, nan, nan, 100.0])
    >>> cells.not_one_pair.tolist(), cells.bad_confidence.tolist()
    ([False, False, True, False, False], [False, False, False, True, False])
    """

    labels: pa.Array
    confidence: np.ndarray
    not_one_pair: np.ndarray
    bad_confidence: np.ndarray

    @classmethod
    def parse(cls, cells: pa.Array) -> ScoredCells:
        """Count every cell's tokens from its bytes, then split only the cells of two
        (a cell of a million tokens is counted, never split) and read their confidences.
        Each intermediate is freed once read: a million rows' texts are the largest."""
        lists = ListCells(cells)
        lengths = lists.lengths
        pair = lengths == 2
        pair_rows = np.flatnonzero(pair)
        if len(pair_rows) == len(pair):
            tokens = lists.split().tokens
        elif len(pair_rows):
            tokens = split_lists(lists.cells.filter(to_arrow(pair))).tokens
        else:
            tokens = pa.array([], pa.large_string())
        del lists, pair  # the single-spaced cells are not read again
        values = _confidences(tokens)
        finite = np.isfinite(values)
        good = np.zeros(len(lengths), dtype=bool)
        good[pair_rows[finite]] = True
        confidence = np.full(len(lengths), np.nan)
        confidence[good] = values[finite]
        del values
        labels = _labels(tokens, pair_rows, good)
        bad_confidence = np.zeros(len(lengths), dtype=bool)
        bad_confidence[pair_rows[~finite]] = True
        return cls(labels, confidence, (lengths != 0) & (lengths != 2), bad_confidence)

    def findings(self, row_ids: pa.Array, valid_id: np.ndarray) -> list[Finding]:
        """The records of the malformed cells (none when every cell is well formed)."""
        found = []
        for kind, mask in (
            ("not_one_scored_pair", self.not_one_pair),
            ("bad_confidences", self.bad_confidence),
        ):
            count = int(mask.sum())
            if count:
                examples = smallest_values(row_ids, mask & valid_id)
                found.append(Finding(kind, (("rows", count),), examples))
        return found


def _confidences(tokens: pa.Array) -> np.ndarray:
    """The second token of each pair (``tokens``: label, confidence, label, ...) read
    as a float64, NaN where it is not a decimal number as written."""
    texts = tokens.take(to_arrow(np.arange(1, len(tokens), 2, dtype=np.int64)))
    written = to_numpy(pc.match_substring_regex(texts, DECIMAL), fill=False)
    values = np.full(len(texts), np.nan)
    if written.any():
        values[written] = to_numpy(pc.cast(texts.filter(to_arrow(written)), pa.float64()))
    return values


def _labels(tokens: pa.Array, pair_rows: np.ndarray, good: np.ndarray) -> pa.Array:
    """Each row's label (the first token of its pair), null where ``good`` is not set;
    the take's indices share numpy's memory, their validity ``good``'s bits."""
    if not len(pair_rows):
        return _nulls(len(good))
    label_at = np.zeros(len(good), dtype=np.int64)
    label_at[pair_rows] = np.arange(0, 2 * len(pair_rows), 2, dtype=np.int64)
    validity = pa.py_buffer(np.packbits(good, bitorder="little"))
    indices = pa.Array.from_buffers(pa.int64(), len(good), [validity, pa.py_buffer(label_at)])
    return tokens.take(indices)


def _nulls(n: int) -> pa.Array:
    return pa.nulls(n, pa.large_string())
