"""Time the scorer against the parsing floor and an ml_metrics-style peer, at H&M scale.

For every N (default 13,720 / 137,198 / 1,371,980 users), in one process:

- ``floor``: ``pyarrow.csv.read_csv`` of both files, every column as a string
  (``floor.py``);
- ``floor_process``: the same read as a fresh ``python floor.py`` process (start-up,
  the pyarrow import and first-touch memory included), the floor of any command line;
- ``peer``: pandas + Python lists with ``ml_metrics.apk/mapk`` semantics (written here);
- ``score``: :func:`scorer.score` on DataFrames already in memory;
- ``evaluate``: :func:`scorer.evaluate` on the two paths (reading included);
- ``e2e``: a fresh ``python -c "scorer.evaluate(...)"`` subprocess (start-up and imports
  included), with its peak RSS;
- ``cli``: ``python -m scorer SOLUTION SUBMISSION`` as a subprocess, with its peak RSS
  (skipped, with a note, while the package has no ``__main__``);
- ``polars`` and ``duckdb``: the same MAP@10 as a straightforward pipeline in each
  engine (``peers.py``), each a fresh process, run in turn with the CLI (``cli_turn``)
  so that a drift in the machine's speed touches them alike; skipped when the engine
  is not installed (``pip install -e ".[bench]"``).
- ``cli_map12`` and ``cli_six``: the CLI at K = 12 with MAP@12 alone, and with six
  measures in one pass (MAP, nDCG, P, R, MRR, HitRate), run in turn; their ratio is
  what several measures cost over one.
- statistics (``scorer.stats``), as ratios to ``evaluate`` in the same run:
  ``bootstrap`` with 1,000 resamples and ``compare`` with 10,000 against a second
  submission (half of the rows rotated by one rank, written next to the data), and
  the peak RSS of a process that scores and then bootstraps (compares) over that of
  the same process without the statistics.

Every result is checked against the exact MAP@10 the generator recorded. Data come from
``benchmarks/data/`` (generated on first use). Prints a Markdown table of medians and
the target ratios, and writes JSON (default ``benchmarks/results/latest.json``).

Usage::

    python benchmarks/run.py
    python benchmarks/run.py --sizes 13720 137198 --repeats 5
    python benchmarks/run.py --sizes 1371980 --stats-only   # evaluate + statistics only
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parent))
from floor import read_all
from generate import HM_USERS, Dataset, ensure, second_submission

import scorer
from scorer import stats

DEFAULT_SIZES = (13_720, 137_198, HM_USERS)
RESULTS = Path(__file__).resolve().parent / "results" / "latest.json"
FLOOR_SCRIPT = Path(__file__).resolve().parent / "floor.py"
PEERS_SCRIPT = Path(__file__).resolve().parent / "peers.py"
ENGINES = ("polars", "duckdb")
ROW_ID = "customer_id"
K = 10
SIX_MEASURES = ("MAP", "nDCG", "P", "R", "MRR", "HitRate")

# Runs a command and reports its own wall time and peak RSS. Starting the measured
# process from this small launcher matters: Linux carries the parent's RSS high-water
# mark over fork + exec, so a child of this (large) benchmark process would report it.
_LAUNCHER = """
import json, os, subprocess, sys, tempfile, time
with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
    start = time.perf_counter()
    child = subprocess.Popen(sys.argv[1:], stdout=out, stderr=err)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    out.seek(0); err.seek(0)
    print(json.dumps({"seconds": seconds, "maxrss_kb": usage.ru_maxrss,
                      "returncode": os.waitstatus_to_exitcode(status),
                      "stdout": out.read().decode()[-100000:],
                      "stderr": err.read().decode()[-2000:]}))
"""

_EVALUATE = "import sys, scorer; print(repr(scorer.evaluate(sys.argv[1], sys.argv[2]).score))"
BOOTSTRAP_RESAMPLES = 1_000
COMPARE_RESAMPLES = 10_000
# Score one submission (or two), then optionally run a statistic: the peak RSS of
# each variant, with and without the statistic, gives the statistic's memory ratio.
_STATISTIC = """
import sys, scorer
from scorer import stats
solution, statistic, resamples, *submissions = sys.argv[1:]
results = [scorer.evaluate(solution, path) for path in submissions]
if statistic == "bootstrap":
    print(stats.bootstrap(results[0], n_resamples=int(resamples))["score"])
elif statistic == "compare":
    print(stats.compare(*results, n_resamples=int(resamples)))
else:
    print(results[0].score)
"""


def apk(actual: list[str], predicted: list[str], k: int = K) -> float:
    """``ml_metrics.average_precision.apk``, as published (Ben Hamner's Kaggle metrics)."""
    if len(predicted) > k:
        predicted = predicted[:k]
    score = 0.0
    num_hits = 0.0
    for i, p in enumerate(predicted):
        if p in actual and p not in predicted[:i]:
            num_hits += 1.0
            score += num_hits / (i + 1.0)
    if not actual:
        return 0.0
    return score / min(len(actual), k)


def mapk(actual: list[list[str]], predicted: list[list[str]], k: int = K) -> float:
    """``ml_metrics.average_precision.mapk``."""
    return float(np.mean([apk(a, p, k) for a, p in zip(actual, predicted, strict=True)]))


def peer_score(dataset: Dataset) -> float:
    """The classic notebook path: pandas strings, align by id, ``str.split()``, mapk."""
    solution = pd.read_csv(dataset.solution, dtype=str, keep_default_na=False)
    submission = pd.read_csv(dataset.submission, dtype=str, keep_default_na=False)
    aligned = submission.set_index(ROW_ID)["prediction"].reindex(solution[ROW_ID])
    actual = solution["prediction"].str.split().tolist()
    predicted = aligned.str.split().tolist()
    return mapk(actual, predicted)


def timed(function: Callable[[], object], repeats: int) -> tuple[float, object]:
    """Median wall time over ``repeats`` calls, and the last result."""
    times = []
    result = None
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def time_in_memory(dataset: Dataset, repeats: int) -> tuple[float, object]:
    """Time :func:`scorer.score` on DataFrames read beforehand (reading not timed)."""
    solution = pd.read_csv(dataset.solution, dtype=str, keep_default_na=False)
    submission = pd.read_csv(dataset.submission, dtype=str, keep_default_na=False)
    return timed(lambda: scorer.score(solution, submission, ROW_ID), repeats)


def launch(command: list[str], repeats: int) -> dict:
    """Run ``command`` ``repeats`` times; median seconds, max peak RSS, last output."""
    runs = []
    for _ in range(repeats):
        done = subprocess.run(
            [sys.executable, "-c", _LAUNCHER, *command],
            check=True,
            capture_output=True,
            text=True,
        )
        runs.append(json.loads(done.stdout))
    last = runs[-1]
    if last["returncode"] != 0:
        raise RuntimeError(f"{command[:3]} failed: {last['stderr']}")
    return {
        "seconds": statistics.median(r["seconds"] for r in runs),
        "peak_rss_mb": max(r["maxrss_kb"] for r in runs) / 1024,
        "stdout": last["stdout"],
    }


def launch_in_turn(commands: dict[str, list[str]], repeats: int) -> dict[str, dict]:
    """:func:`launch` several commands in turn (A B A B ...), so that a drift in the
    machine's speed touches them alike; median seconds and max peak RSS of each."""
    runs: dict[str, list[dict]] = {name: [] for name in commands}
    for _ in range(repeats):
        for name, command in commands.items():
            runs[name].append(launch(command, 1))
    return {
        name: {
            "seconds": statistics.median(r["seconds"] for r in found),
            "peak_rss_mb": max(r["peak_rss_mb"] for r in found),
            "stdout": found[-1]["stdout"],
        }
        for name, found in runs.items()
    }


def cli_available() -> bool:
    """Whether ``python -m scorer`` can run (the CLI lands on another branch)."""
    return importlib.util.find_spec("scorer.__main__") is not None


def check(name: str, value: float, exact: Fraction, rel: float) -> None:
    """Fail loudly if a timed run computed the wrong score."""
    if abs(Fraction(value) - exact) > exact * Fraction(rel):
        raise AssertionError(f"{name} = {value!r}, expected {float(exact)!r} ({exact})")


def bench_statistics(dataset: Dataset, repeats: int, scoring_s: float) -> dict:
    """Time ``bootstrap`` and ``compare`` in this process, and their peak RSS in children."""
    solution, submission = str(dataset.solution), str(dataset.submission)
    other = str(second_submission(dataset))
    pair = [scorer.evaluate(solution, submission), scorer.evaluate(solution, other)]
    row: dict = {}
    row["bootstrap_s"], _ = timed(
        lambda: stats.bootstrap(pair[0], n_resamples=BOOTSTRAP_RESAMPLES), repeats
    )
    row["compare_s"], comparison = timed(
        lambda: stats.compare(*pair, n_resamples=COMPARE_RESAMPLES), repeats
    )
    row["compare_b_minus_a"] = comparison.difference
    row["bootstrap_over_scoring"] = row["bootstrap_s"] / scoring_s
    row["compare_over_scoring"] = row["compare_s"] / scoring_s
    pair.clear()
    gc.collect()
    variants = {
        "score_one": ["score", "0", submission],
        "bootstrap": ["bootstrap", str(BOOTSTRAP_RESAMPLES), submission],
        "score_two": ["score", "0", submission, other],
        "compare": ["compare", str(COMPARE_RESAMPLES), submission, other],
    }
    for name, arguments in variants.items():
        launched = launch([sys.executable, "-c", _STATISTIC, solution, *arguments], repeats)
        row[f"{name}_rss_mb"] = launched["peak_rss_mb"]
    row["bootstrap_rss_ratio"] = row["bootstrap_rss_mb"] / row["score_one_rss_mb"]
    row["compare_rss_ratio"] = row["compare_rss_mb"] / row["score_two_rss_mb"]
    return row


def bench_size(
    n_users: int,
    seed: int,
    repeats: int,
    peer_repeats: int,
    peer: bool,
    statistics_only: bool = False,
) -> dict:
    dataset = ensure(n_users, seed)
    exact = dataset.exact_map
    row: dict = {"n_users": n_users, "exact_map_at_10": str(exact)}
    paths = [str(dataset.solution), str(dataset.submission)]
    if statistics_only:
        row["evaluate_s"], result = timed(lambda: scorer.evaluate(*paths), repeats)
        check("evaluate()", result.score, exact, 1e-13)
        del result
        row.update(bench_statistics(dataset, repeats, row["evaluate_s"]))
        return row

    row["floor_s"], _ = timed(lambda: read_all(paths), repeats)
    floor_process = launch([sys.executable, str(FLOOR_SCRIPT), *paths], repeats)
    row["floor_process_s"] = floor_process["seconds"]
    row["floor_process_rss_mb"] = floor_process["peak_rss_mb"]
    if peer:
        row["peer_s"], value = timed(lambda: peer_score(dataset), peer_repeats)
        check("peer", value, exact, 1e-9)  # np.mean of floats: close, not exact

    row["score_s"], value = time_in_memory(dataset, repeats)
    check("score()", value, exact, 1e-13)
    row["evaluate_s"], result = timed(lambda: scorer.evaluate(*paths), repeats)
    check("evaluate()", result.score, exact, 1e-13)
    del result
    gc.collect()

    row.update(bench_statistics(dataset, repeats, row["evaluate_s"]))
    gc.collect()

    e2e = launch([sys.executable, "-c", _EVALUATE, *paths], repeats)
    check("evaluate subprocess", float(e2e["stdout"]), exact, 1e-13)
    row["e2e_s"], row["e2e_rss_mb"] = e2e["seconds"], e2e["peak_rss_mb"]
    if cli_available():
        cli = launch([sys.executable, "-m", "scorer", *paths], repeats)
        row["cli_s"], row["cli_rss_mb"] = cli["seconds"], cli["peak_rss_mb"]
        row["cli_stdout"] = cli["stdout"].strip()[-500:]
        cli_k12 = [sys.executable, "-m", "scorer", *paths, "-k", "12", "--json"]
        six = [option for name in SIX_MEASURES for option in ("-m", name)]
        timed_pair = launch_in_turn({"cli_map12": cli_k12, "cli_six": [*cli_k12, *six]}, repeats)
        alone = json.loads(timed_pair["cli_map12"]["stdout"])
        together = json.loads(timed_pair["cli_six"]["stdout"])
        if together["metrics"]["MAP@12"] != alone["score"]:
            raise AssertionError(f"MAP@12 alone {alone['score']!r}, with others {together}")
        for name in ("cli_map12", "cli_six"):
            row[f"{name}_s"] = timed_pair[name]["seconds"]
            row[f"{name}_rss_mb"] = timed_pair[name]["peak_rss_mb"]
        row["six_measures_k12"] = together["metrics"]
        row.update(bench_engines(paths, exact, repeats))
    return row


def bench_engines(paths: list[str], exact: Fraction, repeats: int) -> dict:
    """The CLI in turn with the polars and duckdb pipelines of the same MAP@10 (each
    engine that is installed): seconds, peak RSS and each engine's time over the CLI's."""
    engines = [name for name in ENGINES if importlib.util.find_spec(name) is not None]
    if not engines:
        return {}
    commands = {"cli_turn": [sys.executable, "-m", "scorer", *paths]}
    for name in engines:
        commands[name] = [sys.executable, str(PEERS_SCRIPT), name, *paths]
    timed_turns = launch_in_turn(commands, repeats)
    row: dict = {}
    for name, launched in timed_turns.items():
        if name != "cli_turn":
            check(name, float(launched["stdout"]), exact, 1e-9)  # float means: close
        row[f"{name}_s"], row[f"{name}_rss_mb"] = launched["seconds"], launched["peak_rss_mb"]
    for name in engines:
        row[f"{name}_over_cli"] = row[f"{name}_s"] / row["cli_turn_s"]
    return row


def ratios(rows: list[dict]) -> dict:
    """The issue's target ratios, measured at the largest N of this run."""
    if "floor_s" not in rows[-1]:
        return statistics_ratios(rows[-1])
    end_to_end = "cli_s" if "cli_s" in rows[-1] else "e2e_s"
    rss = "cli_rss_mb" if "cli_rss_mb" in rows[-1] else "e2e_rss_mb"
    last = rows[-1]
    out = {
        "end_to_end_measure": "CLI" if end_to_end == "cli_s" else "evaluate() subprocess",
        "n_users": last["n_users"],
        "end_to_end_over_floor": last[end_to_end] / last["floor_s"],
        "end_to_end_over_process_floor": last[end_to_end] / last["floor_process_s"],
        "peak_rss_mb": last[rss],
    }
    if "peer_s" in last:
        out["peer_over_end_to_end"] = last["peer_s"] / last[end_to_end]
    if "cli_six_s" in last:
        out["six_measures_over_map12_alone"] = last["cli_six_s"] / last["cli_map12_s"]
    for name in ENGINES:
        if f"{name}_over_cli" in last:
            out[f"{name}_over_cli"] = last[f"{name}_over_cli"]
    out.update(statistics_ratios(last))
    if len(rows) > 1:
        before = rows[-2]
        out["per_user_time_ratio"] = (last[end_to_end] / last["n_users"]) / (
            before[end_to_end] / before["n_users"]
        )
        out["per_user_time_ratio_between"] = [before["n_users"], last["n_users"]]
    return out


def statistics_ratios(row: dict) -> dict:
    """Statistics over scoring, time and peak RSS (targets: 3, 5 and 1.5)."""
    keys = ("bootstrap_over_scoring", "compare_over_scoring")
    keys += ("bootstrap_rss_ratio", "compare_rss_ratio")
    return {"statistics_n_users": row["n_users"], **{key: row[key] for key in keys}}


def table(rows: list[dict]) -> str:
    columns = [
        ("users", "n_users", "{:,}"),
        ("floor: pyarrow read (s)", "floor_s", "{:.2f}"),
        ("the read as a process (s)", "floor_process_s", "{:.2f}"),
        ("its peak RSS (MB)", "floor_process_rss_mb", "{:,.0f}"),
        ("peer: pandas + ml_metrics (s)", "peer_s", "{:.2f}"),
        ("score() on DataFrames (s)", "score_s", "{:.2f}"),
        ("evaluate(paths) (s)", "evaluate_s", "{:.2f}"),
        ("end to end, subprocess (s)", "e2e_s", "{:.2f}"),
        ("its peak RSS (MB)", "e2e_rss_mb", "{:,.0f}"),
        ("CLI (s)", "cli_s", "{:.2f}"),
        ("CLI peak RSS (MB)", "cli_rss_mb", "{:,.0f}"),
        ("CLI, in turn with the engines (s)", "cli_turn_s", "{:.2f}"),
        ("polars pipeline (s)", "polars_s", "{:.2f}"),
        ("its peak RSS (MB)", "polars_rss_mb", "{:,.0f}"),
        ("duckdb pipeline (s)", "duckdb_s", "{:.2f}"),
        ("its peak RSS (MB)", "duckdb_rss_mb", "{:,.0f}"),
        ("CLI, MAP@12 alone (s)", "cli_map12_s", "{:.2f}"),
        ("CLI, six measures at K = 12 (s)", "cli_six_s", "{:.2f}"),
        ("their peak RSS (MB)", "cli_six_rss_mb", "{:,.0f}"),
        ("bootstrap 1,000 (s)", "bootstrap_s", "{:.2f}"),
        ("compare 10,000 (s)", "compare_s", "{:.2f}"),
        ("bootstrap / evaluate", "bootstrap_over_scoring", "{:.2f}"),
        ("compare / evaluate", "compare_over_scoring", "{:.2f}"),
        ("bootstrap peak RSS ratio", "bootstrap_rss_ratio", "{:.2f}"),
        ("compare peak RSS ratio", "compare_rss_ratio", "{:.2f}"),
    ]
    columns = [c for c in columns if any(c[1] in row for row in rows)]
    lines = [
        "| " + " | ".join(c[0] for c in columns) + " |",
        "|" + "---:|" * len(columns),
    ]
    for row in rows:
        cells = [fmt.format(row[key]) if key in row else "-" for _, key, fmt in columns]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def machine() -> dict:
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "numpy": np.__version__,
        "pandas": pd.__version__,
        "pyarrow": pa.__version__,
        "scorer": scorer.__version__,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(DEFAULT_SIZES))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--peer-repeats", type=int, help="repeats of the (slow) peer; default: --repeats"
    )
    parser.add_argument("--no-peer", action="store_true", help="skip the ml_metrics-style peer")
    parser.add_argument(
        "--stats-only",
        action="store_true",
        help="time only evaluate(paths) and the statistics (bootstrap, compare)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=RESULTS)
    args = parser.parse_args(argv)

    if not cli_available():
        print(
            "note: `python -m scorer` is not available in this checkout; the CLI rows are "
            "skipped and the end-to-end ratios use the evaluate() subprocess instead.",
            file=sys.stderr,
        )
    peer_repeats = args.repeats if args.peer_repeats is None else args.peer_repeats
    rows = []
    for n_users in args.sizes:
        row = bench_size(
            n_users, args.seed, args.repeats, peer_repeats, not args.no_peer, args.stats_only
        )
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    settings = {**vars(args), "json": str(args.json)}
    report = {"machine": machine(), "rows": rows, "ratios": ratios(rows), "args": settings}
    print(table(rows))
    print()
    print(json.dumps(report["ratios"], indent=2))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=args.json.parent, delete=False) as handle:
        json.dump(report, handle, indent=2)
    os.replace(handle.name, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
