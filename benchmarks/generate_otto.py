"""A seeded OTTO-shaped workload and its exact expected scores.

OTTO (Kaggle, 2022-23) has three target rows per test session (``42_clicks``,
``42_carts``, ``42_orders``), up to 20 predicted item ids (``aid``) each, and scores
``0.10 R_clicks + 0.30 R_carts + 0.60 R_orders`` with Recall@20 per type, a prediction
list read as a set and the denominator ``min(20, |truth|)``. At full scale:
1,671,803 sessions, so 5,015,409 rows in each file, and about 1.86 million items.

The expected values are computed here without the scorer, from the integer arrays the
files are written from: hits per row by one sort of (row, item) keys, then exact
fractions. Two are written to ``expected.json``:

- ``macro``: per type, the mean over rows with a truth of hits / min(20, |truth|)
  (the scorer's ``R(norm=min_k)@20``), weighted;
- ``otto``: OTTO's own micro average per type, Σ hits / Σ min(20, |truth|), weighted.

Usage::

    python benchmarks/generate_otto.py OUT_DIR [--sessions 1671803] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

TYPES = ("clicks", "carts", "orders")
WEIGHTS = {"clicks": 0.1, "carts": 0.3, "orders": 0.6}
SESSIONS = 1_671_803
FIRST_SESSION = 12_899_779  # OTTO's first test session id
N_ITEMS = 1_855_603
K = 20
HIT_SHARE = 0.15  # a predicted slot copies one of the row's true items this often


def truth_sizes(rng: np.random.Generator, n: int, kind: str) -> np.ndarray:
    """How many true items each session has of ``kind`` (clicks: at most one)."""
    if kind == "clicks":
        return (rng.random(n) < 0.9).astype(np.int64)
    share, p = (0.3, 0.5) if kind == "carts" else (0.18, 0.12)
    sizes = np.minimum(rng.geometric(p, n), 40)
    return np.where(rng.random(n) < share, sizes, 0)


def rows_of(lengths: np.ndarray) -> np.ndarray:
    """The row of each flattened element of rows with these lengths."""
    return np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)


def place_in_row(lengths: np.ndarray) -> np.ndarray:
    """Each flattened element's position within its row."""
    starts = np.cumsum(lengths) - lengths
    return np.arange(int(lengths.sum()), dtype=np.int64) - np.repeat(starts, lengths)


def generate(n_sessions: int, seed: int) -> dict[str, np.ndarray]:
    """Rows in OTTO's order (session by session: clicks, carts, orders) and their
    true and predicted items, flattened."""
    rng = np.random.default_rng(seed)
    n_rows = 3 * n_sessions
    truth_len = np.empty(n_rows, dtype=np.int64)
    for t, kind in enumerate(TYPES):
        truth_len[t::3] = truth_sizes(rng, n_sessions, kind)
    # Distinct items within a row: a start and a stride that never wraps onto itself.
    start = rng.integers(0, N_ITEMS, n_rows)
    truth_rows = rows_of(truth_len)
    truth_items = (start[truth_rows] + 7919 * place_in_row(truth_len)) % N_ITEMS
    pred_len = np.where(rng.random(n_rows) < 0.8, K, rng.integers(0, K, n_rows))
    pred_rows = rows_of(pred_len)
    pred_items = rng.integers(0, N_ITEMS, len(pred_rows))
    copy = (rng.random(len(pred_rows)) < HIT_SHARE) & (truth_len[pred_rows] > 0)
    pick = (rng.random(len(pred_rows)) * truth_len[pred_rows]).astype(np.int64)
    chosen = start[pred_rows] + 7919 * pick
    pred_items = np.where(copy, chosen % N_ITEMS, pred_items)
    return {
        "truth_len": truth_len,
        "truth_items": truth_items,
        "pred_len": pred_len,
        "pred_items": pred_items,
    }


def expected_scores(data: dict[str, np.ndarray]) -> dict[str, object]:
    """Exact per-type and weighted values, from the arrays alone."""
    truth_len, pred_len = data["truth_len"], data["pred_len"]
    n_rows = len(truth_len)
    truth_keys = rows_of(truth_len) * N_ITEMS + data["truth_items"]
    pred_keys = np.unique(rows_of(pred_len) * N_ITEMS + data["pred_items"])  # a set per row
    found = np.isin(pred_keys, truth_keys)
    hits = np.bincount(pred_keys[found] // N_ITEMS, minlength=n_rows)
    events = np.minimum(truth_len, K)
    out: dict[str, object] = {"by_type": {}, "otto_by_type": {}}
    macro_total, otto_total = Fraction(0), Fraction(0)
    for t, kind in enumerate(TYPES):
        h, e = hits[t::3], events[t::3]
        scored = e > 0
        sums = np.bincount(e[scored], weights=None, minlength=K + 1)
        mean = sum(
            (Fraction(int(h[scored & (e == d)].sum()), d) for d in range(1, K + 1) if sums[d]),
            Fraction(0),
        ) / int(scored.sum())
        otto = Fraction(int(h.sum()), int(e.sum()))
        out["by_type"][kind] = str(mean)  # type: ignore[index]
        out["otto_by_type"][kind] = str(otto)  # type: ignore[index]
        macro_total += Fraction(WEIGHTS[kind]) * mean
        otto_total += Fraction(WEIGHTS[kind]) * otto
    out.update(
        macro=float(macro_total),
        macro_exact=str(macro_total),
        otto=float(otto_total),
        otto_exact=str(otto_total),
        rows=n_rows,
    )
    return out


def lists_as_text(lengths: np.ndarray, items: np.ndarray) -> pa.Array:
    """Space-separated item ids per row."""
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    values = pc.cast(pa.array(items), pa.string())
    return pc.binary_join(pa.LargeListArray.from_arrays(pa.array(offsets), values), " ")


def write(out: Path, data: dict[str, np.ndarray], n_sessions: int) -> None:
    sessions = pc.cast(pa.array(np.arange(n_sessions) + FIRST_SESSION), pa.string())
    row_ids = pc.binary_join_element_wise(
        pa.array(np.repeat(sessions.to_numpy(zero_copy_only=False), 3)),
        pa.array(np.tile(np.array(TYPES), n_sessions)),
        "_",
    )
    # Unquoted, as OTTO's files are (no id holds a comma or a quote).
    options = pacsv.WriteOptions(include_header=False, quoting_style="none")
    for name, lengths, items in (
        ("solution.csv", data["truth_len"], data["truth_items"]),
        ("submission.csv", data["pred_len"], data["pred_items"]),
    ):
        table = pa.table({"session_type": row_ids, "labels": lists_as_text(lengths, items)})
        with open(out / name, "wb") as file:
            file.write(b"session_type,labels\n")
            pacsv.write_csv(table, file, options)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--sessions", type=int, default=SESSIONS)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    data = generate(args.sessions, args.seed)
    expected = expected_scores(data)
    write(args.out, data, args.sessions)
    (args.out / "expected.json").write_text(json.dumps(expected, indent=2) + "\n")
    print(json.dumps({k: expected[k] for k in ("macro", "otto", "rows")}))


if __name__ == "__main__":
    main()
