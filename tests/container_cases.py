"""The hostile-cost tests' containers: the solution they share, random submissions of a
given stored size (CSV or Parquet), and the checks that a crafted input ends as
documented, within the memory bound and a multiple of a random input's CPU time."""

from __future__ import annotations

import io
import random
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.cost import CostRun, assert_ended, memory_bound, run_capped, write_bytes

#: The decompressed-size limit the bomb tests pass: small, so a test takes a second or two.
LIMIT = 32 * 2**20
#: How much slower than a random input of the same size a crafted one may be.
TIME_RATIO = 4.0
SOLUTION = b"id,items\n" + b"".join(b"u%d,a%d b%d\n" % (i, i, i) for i in range(1000))


@pytest.fixture()
def solution(tmp_path: Path) -> Path:
    return write_bytes(tmp_path, "solution.csv", SOLUTION)


def random_csv(n_bytes: int, seed: int = 0) -> bytes:
    """A random, well-formed submission of about ``n_bytes`` bytes (it does not compress)."""
    rng = random.Random(seed)
    lines = [b"id,items"]
    size = 0
    while size < n_bytes:
        line = b"%x,%s" % (
            rng.getrandbits(64),
            b" ".join(b"%x" % rng.getrandbits(40) for _ in range(10)),
        )
        lines.append(line)
        size += len(line) + 1
    return b"\n".join(lines) + b"\n"


def capped(solution: Path, submission: Path, *options: str) -> CostRun:
    return run_capped([solution, submission, "--json", *options])


def assert_bounded(
    hostile: CostRun, baseline: CostRun, code: int, message: str, decoded_bytes: int
) -> None:
    """The crafted run ended as documented, within the memory bound and the CPU time ratio."""
    assert_ended(hostile, code)
    assert message in hostile.stderr, hostile.stderr[-2000:]
    assert baseline.returncode in (0, 1), baseline.stderr[-2000:]
    assert hostile.peak_rss_bytes <= memory_bound(decoded_bytes + len(SOLUTION)), (
        hostile.peak_rss_bytes
    )
    assert hostile.cpu_seconds <= TIME_RATIO * baseline.cpu_seconds, (
        hostile.cpu_seconds,
        baseline.cpu_seconds,
    )


def assert_refused_at_the_limit(
    solution: Path, crafted: Path, baseline: Path, message: str, *options: str
) -> None:
    """:func:`assert_bounded` of the crafted file and its baseline, both run under the
    tests' decompressed-data limit (and any other options)."""
    options = ("--max-decompressed-bytes", str(LIMIT), *options)
    assert_bounded(
        capped(solution, crafted, *options),
        capped(solution, baseline, *options),
        1,
        message,
        LIMIT,
    )


def parquet_bytes(table: pa.Table, **options) -> bytes:
    sink = io.BytesIO()
    pq.write_table(table, sink, **options)
    return sink.getvalue()


def random_parquet(n_bytes: int) -> bytes:
    """A random submission stored as a Parquet file of about ``n_bytes`` bytes."""
    rows = max(n_bytes // 40, 1)
    rng = np.random.default_rng(0)
    ids = pa.array(np.char.mod("%x", rng.integers(0, 2**62, rows)).astype(object))
    items = pa.array(np.char.mod("%x", rng.integers(0, 2**40, rows)).astype(object))
    return parquet_bytes(pa.table({"id": ids, "items": items}), compression="zstd")
