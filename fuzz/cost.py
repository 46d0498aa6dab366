"""The fuzzer's cost target: no input may cost far more per byte than a random one.

Inputs are a generated piece of CSV-like text repeated up to tens of thousands of times
after a header (so that quadratic behaviour shows), stored as CSV, gzip or zip. Each is
scored in this process; its time and peak memory are compared with what random
submissions of the same decoded size cost, fitted once at start-up as a constant plus a
cost per byte. An input over ``FACTOR`` times that fit, measured at its best of three
runs (the machine may be noisy), fails the target.

Memory is what Arrow's allocator holds at its peak (a proxy pool counts it) plus the peak
of Python's and numpy's own allocations (``tracemalloc``); time is the process's CPU time
(every thread's) in a run without ``tracemalloc``, which slows Python down. Not wall
time: other work on the machine stretched a 1 KiB input's best of three past a 4 MiB
one's, and the fit found no cost per byte at all.
"""

from __future__ import annotations

import gzip
import io
import random
import tempfile
import time
import tracemalloc
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
from hypothesis import strategies as st

from tests.hostile import FRAGMENTS, ROW_IDS, outcome_of

#: How many times the random-input fit an input may cost, in time or in memory.
FACTOR = 10.0
#: Allowed on top, for what does not grow with the input: the readers' fixed-size buffers
#: (4 MiB decompression chunks, the parser's blocks) and a moment of a busy machine.
MEMORY_SLACK_BYTES = 64 << 20
TIME_SLACK_SECONDS = 0.1
#: The largest decoded input made: large enough for quadratic costs to show.
MAX_DECODED_BYTES = 4 << 20
WRAPPERS = ("csv", "gzip", "zip")


@dataclass(frozen=True)
class Cost:
    seconds: float
    peak_bytes: int


@dataclass(frozen=True)
class Fit:
    """Cost of a random input of ``n`` decoded bytes: ``constant + per_byte * n``."""

    constant: Cost
    per_byte_seconds: float
    per_byte_memory: float

    def allowed(self, n_bytes: int) -> Cost:
        return Cost(
            FACTOR * (self.constant.seconds + self.per_byte_seconds * n_bytes) + TIME_SLACK_SECONDS,
            int(FACTOR * (self.constant.peak_bytes + self.per_byte_memory * n_bytes))
            + MEMORY_SLACK_BYTES,
        )


@st.composite
def costly_inputs(draw: st.DrawFn) -> tuple[bytes, str]:
    """(decoded text, wrapper): a header, then one piece repeated many times."""
    header = draw(st.sampled_from([b"customer_id,prediction\n", b""]))
    piece = b"".join(
        draw(
            st.lists(
                st.one_of(st.sampled_from(FRAGMENTS), st.binary(max_size=8)),
                min_size=1,
                max_size=20,
            )
        )
    )
    most = max(1, MAX_DECODED_BYTES // max(len(piece), 1))
    repeats = min(most, draw(st.sampled_from([1, 2, 100, 10_000, most])))
    return header + piece * repeats, draw(st.sampled_from(WRAPPERS))


def wrap(text: bytes, wrapper: str) -> bytes:
    """The text stored as the wrapper says."""
    if wrapper == "gzip":
        return gzip.compress(text, 6)
    if wrapper == "zip":
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("submission.csv", text)
        return buffer.getvalue()
    return text


def random_submission(n_bytes: int, seed: int) -> bytes:
    """A random submission of about ``n_bytes``: known and unknown ids, random items."""
    rng = random.Random(seed)
    lines = [b"customer_id,prediction"]
    size = 0
    while size < n_bytes:
        row_id = (
            rng.choice(ROW_IDS).encode() if rng.random() < 0.01 else b"%x" % rng.getrandbits(48)
        )
        items = b" ".join(b"%010d" % rng.getrandbits(30) for _ in range(rng.randint(0, 12)))
        lines.append(row_id + b"," + items)
        size += len(lines[-1]) + 1
    return b"\n".join(lines) + b"\n"


def measure(data: bytes) -> Cost:
    """Score ``data`` as a submission file: the time of one run, the memory of another."""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "submission"
        path.write_bytes(data)
        start = time.process_time()
        outcome_of(path)
        seconds = time.process_time() - start
        default = pa.default_memory_pool()
        pool = pa.proxy_memory_pool(default)
        pa.set_memory_pool(pool)
        tracemalloc.start()
        try:
            outcome_of(path)
            python_peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
            pa.set_memory_pool(default)
        return Cost(seconds, pool.max_memory() + python_peak)


def best_of(data: bytes, runs: int = 3) -> Cost:
    costs = [measure(data) for _ in range(runs)]
    return Cost(min(c.seconds for c in costs), min(c.peak_bytes for c in costs))


def calibrate() -> Fit:
    """Fit the cost of random inputs: a tiny one for the constant, a large one per byte."""
    small = best_of(random_submission(1 << 10, seed=1))
    large_size = MAX_DECODED_BYTES
    large = best_of(random_submission(large_size, seed=2))
    return Fit(
        small,
        max(large.seconds - small.seconds, 0.0) / large_size,
        max(large.peak_bytes - small.peak_bytes, 0) / large_size,
    )


def check_cost(fit: Fit, example: tuple[bytes, str]) -> None:
    """Fail when the example costs more than ``FACTOR`` times a random input of its size."""
    text, wrapper = example
    data = wrap(text, wrapper)
    allowed = fit.allowed(len(text))
    cost = measure(data)
    if cost.seconds <= allowed.seconds and cost.peak_bytes <= allowed.peak_bytes:
        return
    cost = best_of(data)  # a slow moment of the machine is not a finding
    assert cost.seconds <= allowed.seconds, (
        f"{len(text):,} decoded bytes ({wrapper}) took {cost.seconds:.3f} s of CPU; "
        f"allowed {allowed.seconds:.3f} s ({FACTOR:g} x a random input of that size)"
    )
    assert cost.peak_bytes <= allowed.peak_bytes, (
        f"{len(text):,} decoded bytes ({wrapper}) peaked at {cost.peak_bytes:,} bytes; "
        f"allowed {allowed.peak_bytes:,} ({FACTOR:g} x a random input of that size)"
    )
