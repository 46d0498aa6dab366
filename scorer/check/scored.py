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

from scorer.align.item_lists import ListCells
from scorer.arrays import to_arrow, to_numpy
from scorer.errors import Finding, smallest_values

#: A confidence as written: optional sign, digits with an optional point, optional exponent.
DECIMAL = r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$"


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
        """Split every cell and read the pairs' confidences."""
        lists = ListCells(cells)
        lengths = np.asarray(lists.lengths, dtype=np.int64)
        pair = lengths == 2
        tokens = lists.split().tokens
        starts = np.cumsum(lengths) - lengths
        texts = tokens.take(to_arrow(starts[pair] + 1)).cast(pa.large_string())
        written = to_numpy(pc.match_substring_regex(texts, DECIMAL), fill=False)
        values = np.full(len(texts), np.nan)
        if written.any():
            values[written] = to_numpy(pc.cast(texts.filter(to_arrow(written)), pa.float64()))
        finite = np.isfinite(values)
        confidence = np.full(len(lengths), np.nan)
        good = np.zeros(len(lengths), dtype=bool)
        good[np.flatnonzero(pair)[finite]] = True
        confidence[good] = values[finite]
        label_at = np.where(good, starts, 0)
        labels = tokens.take(pa.array(label_at, mask=~good)) if len(tokens) else _nulls(len(good))
        bad_confidence = np.zeros(len(lengths), dtype=bool)
        bad_confidence[np.flatnonzero(pair)[~finite]] = True
        return cls(labels, confidence, (lengths != 0) & ~pair, bad_confidence)

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


def _nulls(n: int) -> pa.Array:
    return pa.nulls(n, pa.large_string())
