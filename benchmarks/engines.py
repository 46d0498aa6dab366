"""The cost of scoring through Spark or Dask in local mode, against one process.

For each generated data set (``generate.py``), the CSV files are first written once as
Parquet files of strings. Then, in turn and ``--repeats`` times, three modes score
them from those files, each timed from reading to the result:

- ``single``: ``pyarrow.parquet.read_table`` and :func:`scorer.evaluate`;
- ``dask``: ``dask.dataframe.read_parquet`` and :func:`scorer.dask.evaluate` on Dask's
  default (threads) scheduler;
- ``spark``: ``spark.read.parquet`` and :func:`scorer.spark.evaluate` in a local session
  (``local[N]``, started once before the timings; its start is printed apart).

Every result must equal the single run's (``==``, so bit for bit) and its MAP@10 the
correctly rounded value of the generator's exact fraction, or the script exits 1. It
prints the medians and their ratios to the single run, in one table.

Usage::

    python benchmarks/generate.py 200000 && python benchmarks/generate.py 2000000
    python benchmarks/engines.py benchmarks/data/n200000_s0 benchmarks/data/n2000000_s0

Needs ``pip install -e ".[spark,dask]"`` and Java.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pyarrow.parquet as pq
from parts import read

import scorer
import scorer.dask
import scorer.spark

MODES = ("single", "dask", "spark")


def to_parquet(directory: Path) -> tuple[Path, Path]:
    """The data set's two CSV files as Parquet files of strings (written once)."""
    paths = []
    for name in ("solution", "submission"):
        path = directory / f"{name}.parquet"
        if not path.exists():
            pq.write_table(read(directory / f"{name}.csv"), path)
        paths.append(path)
    return paths[0], paths[1]


def scorers(spark: object, n_parts: int) -> dict[str, Callable[[Path, Path], scorer.ScoreResult]]:
    """Each mode, from the two Parquet files to the result."""
    import dask.dataframe as dd

    return {
        "single": lambda a, b: scorer.evaluate(pq.read_table(a), pq.read_table(b)),
        "dask": lambda a, b: scorer.dask.evaluate(
            dd.read_parquet(a), dd.read_parquet(b), n_parts=n_parts
        ),
        "spark": lambda a, b: scorer.spark.evaluate(
            spark.read.parquet(str(a)),  # type: ignore[attr-defined]
            spark.read.parquet(str(b)),  # type: ignore[attr-defined]
            n_parts=n_parts,
        ),
    }


def session(cores: int, memory: str) -> object:
    """A local Spark session whose Python workers run this interpreter."""
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable
    return (
        SparkSession.builder.master(f"local[{cores}]")
        .config("spark.driver.memory", memory)
        .config("spark.sql.shuffle.partitions", str(cores * 2))
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directories", type=Path, nargs="+")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--parts", type=int, default=8)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--spark-memory", default="4g")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    spark = session(args.cores, args.spark_memory)
    print(f"Spark session started in {time.perf_counter() - started:.1f} s")
    modes = scorers(spark, args.parts)
    ok = True
    rows = []
    for directory in args.directories:
        files = to_parquet(directory)
        meta = json.loads((directory / "meta.json").read_text())
        times: dict[str, list[float]] = {mode: [] for mode in MODES}
        reference = None
        for _ in range(args.repeats):
            for mode in MODES:
                started = time.perf_counter()
                result = modes[mode](*files)
                times[mode].append(time.perf_counter() - started)
                reference = reference or result
                ok &= result == reference and result.score == float(Fraction(meta["map_at_10"]))
        medians = {mode: statistics.median(found) for mode, found in times.items()}
        rows.append((meta.get("n_users", directory.name), medians, times))
    spark.stop()  # type: ignore[attr-defined]
    print(f"{'users':>10} {'mode':>7} {'median s':>9} {'ratio':>6}  runs (s)")
    for users, medians, times in rows:
        for mode in MODES:
            runs = ", ".join(f"{t:.1f}" for t in times[mode])
            ratio = medians[mode] / medians["single"]
            print(f"{users:>10} {mode:>7} {medians[mode]:>9.2f} {ratio:>6.2f}  {runs}")
    print("every result equal to the single run's, MAP@10 exact:", ok)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
