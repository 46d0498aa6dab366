"""Data larger than one scorer process may hold, scored exactly under a memory cap.

For a generated data set (``generate.py``), the two CSV files are first written once as
directories of Parquet files of strings (``solution_parts/``, ``submission_parts/``,
``--files`` files each, rows in the CSV's order, so that every file holds row ids of
every part). Then each mode runs under the same cap on its memory:

- ``reference``: the command line on the two CSV files, in one process, without a cap
  (the single-machine result every other mode must equal);
- ``whole``: the same under an address-space cap of ``--cap`` (``prlimit --as``),
  with the read limits raised to let the files in; expected to fail when the data
  exceed the cap (at 13.7 M users an allocation refused inside Arrow aborts it);
- ``parts``: the command line on the two directories, part by part (``--parts``), under
  the same cap;
- ``dask``: :func:`scorer.dask.evaluate` on ``dask.dataframe.read_parquet`` of the two
  directories, on a local Dask cluster of ``--workers`` worker processes, each with a
  memory limit of ``--cap`` (``distributed``'s nanny stops a worker past it).

Each mode prints its wall time, its peak memory (the largest process: the command line's,
or its Parquet decoder's, a process beside it under the same cap that holds at most the
decompressed-size limit and 64 MiB more; for ``dask``, the largest worker's peak as the
workers report it) and whether its MAP@10 (overall, Public,
Private) is the correctly rounded value of the generator's exact fractions (``meta.json``)
or, where the generator's exact computation did not fit the machine, equal to the
``reference`` run's (``==``); the script exits 1 when a mode that scored gave any other
value.

Usage::

    python benchmarks/generate.py 13719800 --out /data/n13719800_s0
    python benchmarks/capped.py /data/n13719800_s0 --cap 4GiB --parts 16 reference whole parts dask

Needs ``prlimit`` (util-linux) and, for ``dask``, ``pip install "rankscore[dask]"
distributed``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.parquet as pq

NAMES = ("map_at_10", "public_map_at_10", "private_map_at_10")
UNITS = {"KiB": 2**10, "MiB": 2**20, "GiB": 2**30}


def to_parts(directory: Path, n_files: int) -> tuple[Path, Path]:
    """The data set's two CSV files as directories of ``n_files`` Parquet files of
    strings each, streamed batch by batch (written once)."""
    made = []
    for name in ("solution", "submission"):
        out = directory / f"{name}_parts"
        made.append(out)
        if out.exists():
            continue
        source = directory / f"{name}.csv"
        with open(source, "rb") as handle:
            header = handle.readline().decode().strip().split(",")
        reader = pcsv.open_csv(
            source,
            read_options=pcsv.ReadOptions(block_size=64 << 20),
            convert_options=pcsv.ConvertOptions(column_types=dict.fromkeys(header, pa.string())),
        )
        per_file = -(-source.stat().st_size // n_files)
        out.mkdir()
        written, index, writer = 0, 0, None
        for batch in reader:
            if writer is None:
                writer = pq.ParquetWriter(out / f"part-{index:05d}.parquet", batch.schema)
            writer.write_batch(batch)
            written += batch.nbytes
            if written >= per_file:
                writer.close()
                writer, written, index = None, 0, index + 1
        if writer is not None:
            writer.close()
    return made[0], made[1]


def exact_values(directory: Path) -> list[float] | None:
    """The generator's exact MAP@10 fractions, correctly rounded (None without them)."""
    path = directory / "meta.json"
    if not path.exists():
        return None
    meta = json.loads(path.read_text())
    return [float(Fraction(meta[name])) for name in NAMES]


def cli(solution: Path, submission: Path, cap: int | None, extra: list[str]) -> dict:
    """One command-line run, under an address-space cap when one is given: its exit
    code, wall time, peak memory and JSON values."""
    command = [] if cap is None else ["prlimit", f"--as={cap}"]
    command += [sys.executable, "-m", "scorer"]
    command += [str(solution), str(submission), "--json", *extra]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.monotonic()
        child = subprocess.Popen(command, stdout=out, stderr=err, text=True)
        # Reaped with wait4 for this child's own peak: RUSAGE_CHILDREN gives the largest of
        # every child so far (prlimit execs the command, so the pid is the scorer's).
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.monotonic() - start
        out.seek(0), err.seek(0)
        run = subprocess.CompletedProcess(command, child.returncode, out.read(), err.read())
    report = {"exit": run.returncode, "seconds": round(seconds, 1)}
    report["peak_mib"] = round(usage.ru_maxrss / 1024)
    if run.returncode == 0:
        result = json.loads(run.stdout)
        report["values"] = [result["score"], result["public_score"], result["private_score"]]
    else:
        report["stderr"] = run.stderr.strip().splitlines()[-1][:300] if run.stderr else ""
    return report


def dask_run(solution: Path, submission: Path, cap: int, workers: int) -> dict:
    """:func:`scorer.dask.evaluate` on a local cluster of capped worker processes."""
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    import scorer.dask

    with (
        LocalCluster(
            n_workers=workers, threads_per_worker=1, memory_limit=cap, processes=True
        ) as cluster,
        Client(cluster) as client,
    ):
        start = time.monotonic()
        result = scorer.dask.evaluate(
            dd.read_parquet(str(solution)), dd.read_parquet(str(submission)), "customer_id"
        )
        seconds = time.monotonic() - start
        peaks = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    return {
        "exit": 0,
        "seconds": round(seconds, 1),
        "peak_mib": round(max(peaks.values()) / 1024),
        "values": [result.score, result.public_score, result.private_score],
    }


def size(text: str) -> int:
    """Bytes from ``4GiB``, ``512MiB`` or a plain number."""
    for unit, factor in UNITS.items():
        if text.endswith(unit):
            return int(float(text[: -len(unit)]) * factor)
    return int(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("modes", nargs="+", choices=["reference", "whole", "parts", "dask"])
    parser.add_argument("--cap", default="4GiB", help="memory cap of a process or worker")
    parser.add_argument("--files", type=int, default=16, help="Parquet files per input")
    parser.add_argument("--parts", type=int, help="the command line's --parts (default: its own)")
    parser.add_argument("--workers", type=int, default=2, help="Dask worker processes")
    args = parser.parse_args(argv)
    cap = size(args.cap)
    exact = exact_values(args.directory)
    solution_parts, submission_parts = to_parts(args.directory, args.files)
    limits = ["--max-input-bytes", "64GiB", "--max-decompressed-bytes", "64GiB"]
    failed = False
    csvs = (args.directory / "solution.csv", args.directory / "submission.csv")
    for mode in args.modes:
        if mode in ("reference", "whole"):
            report = cli(*csvs, None if mode == "reference" else cap, limits)
        elif mode == "parts":
            extra = limits + ([] if args.parts is None else ["--parts", str(args.parts)])
            report = cli(solution_parts, submission_parts, cap, extra)
        else:
            report = dask_run(solution_parts, submission_parts, cap, args.workers)
        if "values" in report:
            values = report.pop("values")
            if exact is None and mode == "reference":
                exact = values
            report["values"] = [value.hex() for value in values]
            if exact is None:  # no meta.json and no reference run before this mode
                report["unchecked"] = True
            else:
                report["exact"] = values == exact
                failed |= values != exact
        print(json.dumps({"mode": mode, "cap": args.cap, **report}), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
