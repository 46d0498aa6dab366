"""The final leaderboard at H&M scale: ``scorer leaderboard`` on 20 submissions against
20 separate ``scorer`` runs, and with 1,000 resamples against none, each pair run in
turn (A B A B ...) so that the machine's drift cancels; whole-process wall time and
peak memory of each child.

Usage::

    python benchmarks/leaderboard.py                    # 1,371,980 users, 20 submissions
    python benchmarks/leaderboard.py --users 137198 --submissions 5 --repeats 2
    python benchmarks/leaderboard.py --users 13720 --submissions 6 --data-only

The submissions are variants of ``benchmarks/generate.py``'s (a seeded, growing share
of rows ranking one fixed list instead, the rows shuffled; the last one a copy of the
fourth in another row order),
written once next to the data set in ``leaderboard/``. The targets (docs/performance.md,
"The final leaderboard"): the leaderboard within 0.5 x the 20 runs' wall time, 1,000
resamples adding at most 50 %, and a peak under 2 GB + 8 bytes x submissions x users.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv

sys.path.insert(0, str(Path(__file__).resolve().parent))
import generate


def submissions(dataset: generate.Dataset, count: int) -> Path:
    """``count`` submissions in ``leaderboard/`` beside the data set (made once)."""
    folder = dataset.directory / "leaderboard"
    paths = [folder / f"team_{i:02d}.csv" for i in range(count)]
    if all(path.exists() for path in paths):
        return folder
    folder.mkdir(exist_ok=True)
    strings = pcsv.ConvertOptions(
        column_types={"customer_id": pa.string(), "prediction": pa.string()}
    )
    table = pcsv.read_csv(dataset.submission, convert_options=strings)
    predictions = table.column("prediction").combine_chunks()
    n_rows = len(predictions)
    for index, path in enumerate(paths):
        rng = np.random.default_rng([index, n_rows])
        if index == count - 1 and count > 4:  # a copy of the fourth, rows in another order
            base = pcsv.read_csv(paths[3], convert_options=strings)
            _write(base.take(pa.array(rng.permutation(n_rows))), path)
            continue
        # A growing share of rows (2 % for the first, 5 % more for each next) ranks one
        # fixed list, the first row's, in place of its own: each is a little worse.
        chosen = pa.array(rng.random(n_rows) < 0.02 + 0.05 * index)
        fixed = pa.scalar(predictions[0].as_py())
        replaced = pc.if_else(chosen, fixed, predictions)
        order = pa.array(rng.permutation(n_rows))
        _write(
            pa.table({"customer_id": table.column("customer_id"), "prediction": replaced}).take(
                order
            ),
            path,
        )
    return folder


def _write(table: pa.Table, path: Path) -> None:
    partial = path.with_suffix(f".{os.getpid()}.partial")  # one per process: tests run side by side
    pcsv.write_csv(table, partial, write_options=pcsv.WriteOptions(quoting_style="none"))
    os.replace(partial, path)


def run(command: list[str]) -> tuple[float, int]:
    """Wall seconds and peak resident memory (bytes) of one child process."""
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"{command} failed: {child.stderr.read().decode()}")  # type: ignore[union-attr]
    return wall, usage.ru_maxrss * 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=generate.HM_USERS)
    parser.add_argument("--submissions", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--data-only", action="store_true", help="write the submissions and time nothing"
    )
    parser.add_argument(
        "--data", type=Path, help="a data set written by generate.py --out (default: --users')"
    )
    args = parser.parse_args(argv)
    if args.data is None:
        dataset = generate.ensure(args.users)
    else:
        folder = args.data
        dataset = generate.Dataset(folder, folder / "solution.csv", folder / "submission.csv", {})
    folder = submissions(dataset, args.submissions)
    if args.data_only:
        print(folder)
        return 0
    paths = sorted(folder.glob("team_*.csv"))[: args.submissions]
    scorer = [sys.executable, "-m", "scorer"]
    with tempfile.TemporaryDirectory() as work:
        out = os.path.join(work, "board.csv")
        board = [*scorer, "leaderboard", str(dataset.solution), *map(str, paths), "--out", out]
        separate = [[*scorer, str(dataset.solution), str(path)] for path in paths]
        pairs = []
        for _ in range(args.repeats):  # A B A B ...
            with_draws = run([*board, "--resamples", "1000"])
            runs = [run(command) for command in separate]
            without = run([*board, "--resamples", "0"])
            pairs.append((with_draws, runs, without))
    ratio = [w[0] / sum(r[0] for r in runs) for w, runs, _ in pairs]
    added = [w[0] / o[0] for w, _, o in pairs]
    peak = max(w[1] for w, _, _ in pairs)
    bound = 2e9 + 8 * len(paths) * args.users
    print(f"{len(paths)} submissions x {args.users:,} users, {args.repeats} interleaved rounds")
    print(f"leaderboard (1,000 resamples) / {len(paths)} separate runs, wall: " + _spread(ratio))
    boards, totals = [w[0] for w, _, _ in pairs], [sum(r[0] for r in runs) for _, runs, _ in pairs]
    print(f"leaderboard (1,000 resamples), wall: {_spread(boards)} s")
    print(f"{len(paths)} separate runs, wall: {_spread(totals)} s")
    print("leaderboard with 1,000 resamples / with none, wall: " + _spread(added))
    print(f"leaderboard's peak memory: {peak / 2**20:,.0f} MiB (bound {bound / 2**20:,.0f} MiB)")
    print(
        "single runs' peak memory: "
        + f"{max(r[1] for _, runs, _ in pairs for r in runs) / 2**20:,.0f} MiB"
    )
    return 0


def _spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} ({min(values):.2f} to {max(values):.2f})"


if __name__ == "__main__":
    raise SystemExit(main())
