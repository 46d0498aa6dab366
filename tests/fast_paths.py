"""Force the fixed-width fast paths in tests, whatever the input size."""

from __future__ import annotations

import numpy as np
import pytest

from scorer import arrays
from scorer.align import fingerprints, integer_items, item_lists, joins, rankings
from scorer.check import validate
from scorer.read import files


def force_fast_paths(
    monkeypatch: pytest.MonkeyPatch, chunk_rows: int, block_rows: int, collide: bool = False
) -> None:
    """Take the fixed-width fast paths at any size (normally 50,000+ rows), the reading
    of equal-layout files included, in small chunks and blocks (every loop that bounds
    memory a chunk at a time then takes several turns); with ``collide``, make
    every fingerprint equal, so that each fingerprint route must fall back to the
    exact one."""
    settings = {
        "FIXED_WIDTH_MIN_ROWS": 1,
        "FIXED_LINES_MIN_ROWS": 1,
        "CHUNK_ROWS": chunk_rows,
        "_BLOCK_ROWS": block_rows,
        "_RECHECK_USERS": block_rows,
        "_PLACED_BLOCK_CODES": chunk_rows,
    }
    if collide:
        settings["_FINGERPRINT_MULTIPLIER"] = np.uint64(0)
    for module in (
        arrays,
        fingerprints,
        files,
        integer_items,
        item_lists,
        joins,
        rankings,
        validate,
    ):
        for name, value in settings.items():
            if hasattr(module, name):
                monkeypatch.setattr(module, name, value)
