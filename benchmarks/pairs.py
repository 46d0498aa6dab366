"""AUC beside MAP@10 on the same MIND-shaped data, timed in one process, ratios printed.

Each of ``n`` impressions has 10 candidate items (7-character ids), 1 to 3 of them
clicked; the submission ranks all 10 (a permutation). The solution judges every
candidate: a grade column (1 clicked, 0 not) or, the binary way, the clicked items and a
candidates column. Each configuration is timed ``repeats`` times, interleaved, through
``scorer.evaluate`` on Arrow tables (no file reading), and the medians are printed with
their ratios to MAP@10 on the same solution.

Usage::

    python benchmarks/pairs.py                # a million impressions, 3 repeats
    python benchmarks/pairs.py 100000 --repeats 5
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import pyarrow as pa

from scorer import evaluate

N_CANDIDATES = 10


def _join(tokens: np.ndarray) -> pa.Array:
    """Rows of a 2-D array of strings as space-separated cells."""
    return pa.array([" ".join(row) for row in tokens.tolist()], pa.large_string())


def make_tables(n: int, seed: int = 0) -> dict[str, pa.Table]:
    """The graded solution, the binary solution with candidates, and the submission."""
    rng = np.random.default_rng(seed)
    start = rng.integers(0, 10**5, size=n)[:, None]  # distinct within a row, 100,000 in all
    numbers = (start + 7919 * np.arange(N_CANDIDATES)) % 10**5 + 10**5
    items = np.char.add("N", numbers.astype(str))
    clicks = rng.integers(1, 4, size=n)
    grades = (np.arange(N_CANDIDATES) < clicks[:, None]).astype(int)
    order = np.argsort(rng.random((n, N_CANDIDATES)), axis=1)
    ranked = np.take_along_axis(items, order, axis=1)
    ids = pa.array([f"imp{i}" for i in range(n)], pa.large_string())
    clicked = pa.array(
        [" ".join(row[:c]) for row, c in zip(items.tolist(), clicks.tolist(), strict=True)],
        pa.large_string(),
    )
    return {
        "graded": pa.table({"id": ids, "items": _join(items), "grades": _join(grades.astype(str))}),
        "candidates": pa.table({"id": ids, "items": clicked, "cands": _join(items)}),
        "submission": pa.table({"id": ids, "items": _join(ranked)}),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int, nargs="?", default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    tables = make_tables(args.n)
    graded = {"solution": tables["graded"], "grade_column_name": "grades"}
    binary = {
        "solution": tables["candidates"],
        "candidates_column_name": "cands",
        "candidate_rule": "permutation",
    }
    runs = {
        "MAP@10 (graded)": (graded, ["MAP@10"]),
        "AUC (graded)": (graded, ["AUC"]),
        "MAP@10 + AUC (graded)": (graded, ["MAP@10", "AUC"]),
        "MAP@10 (candidates)": (binary, ["MAP@10"]),
        "AUC (candidates)": (binary, ["AUC"]),
    }
    times: dict[str, list[float]] = {name: [] for name in runs}
    values: dict[str, dict[str, float]] = {}
    for _ in range(args.repeats):
        for name, (given, metrics) in runs.items():
            options = {key: value for key, value in given.items() if key != "solution"}
            start = time.perf_counter()
            result = evaluate(given["solution"], tables["submission"], "id", k=10,
                              metrics=metrics, **options)  # fmt: skip
            times[name].append(time.perf_counter() - start)
            values[name] = result.metrics
    print(f"{args.n:,} impressions of {N_CANDIDATES} candidates, {args.repeats} repeats")
    for name in runs:
        median = statistics.median(times[name])
        base = "MAP@10 (graded)" if "graded" in name else "MAP@10 (candidates)"
        ratio = median / statistics.median(times[base])
        print(f"{name:24s} {median:7.2f} s  {ratio:5.2f} x MAP@10   {values[name]}")


if __name__ == "__main__":
    main()
