"""The two seams through which tests reach, at small sizes, what only large or unlucky
inputs meet: keyed prints that collide, and blocks of a few rows.

Neither changes which code runs: every input takes the same route, a collision sends a
join to its exact fallback as chance alone would, and a block size only bounds memory.
"""

from __future__ import annotations

import sys

import numpy as np
import pyarrow as pa
import pytest

from scorer.align import joins, trec_runs


def collide_prints(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every keyed print the joins and trec-eval's judging draw equal
    (``string_prints`` gives 0 for every string), so that every join of different
    strings meets a collision and takes the exact sort of the strings, and every docno
    of a query shares its pair key with the others: what chance alone, once in 2**64
    pairs, does."""
    real = joins.string_prints

    def equal_prints(strings: pa.Array, key: tuple[int, int]) -> np.ndarray | None:
        prints = real(strings, key)
        return None if prints is None else np.zeros_like(prints)

    monkeypatch.setattr(joins, "string_prints", equal_prints)
    monkeypatch.setattr(trec_runs, "string_prints", equal_prints)


def small_blocks(monkeypatch: pytest.MonkeyPatch, rows: int) -> None:
    """Make every pass that bounds its memory a block of rows at a time take blocks of
    ``rows`` (``BLOCK_ROWS`` wherever the scorer imported it), so that each loop over
    blocks takes several turns on a small input."""
    for name, module in list(sys.modules.items()):
        if name.startswith("scorer") and hasattr(module, "BLOCK_ROWS"):
            monkeypatch.setattr(module, "BLOCK_ROWS", rows)
