"""Hostile cost of the long shapes' building blocks: long files are many short rows.

Each family runs in a child process under an address-space cap, with the allocators of
the other hostile-cost tests (``tests/cost.py``, ``MEASURED_ENVIRONMENT``), next to a random
input of the same size (rows and bytes), and reports the CPU time of the call and the peak
memory it added. A crafted input must cost about what the random one costs (ratios measured in
the same test, never an absolute time) and its memory must stay within the contract's
multiple of what its columns decode to.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import textwrap

import pytest

from tests.cost import DECODED_BYTES_PER_CELL, MEASURED_ENVIRONMENT, MEMORY_PER_INPUT_BYTE

N = 1_000_000
CAP_BYTES = 3 * 2**30
#: As in the other hostile-cost tests: a quadratic route takes far longer.
MAX_TIME_RATIO = 3.0
MAX_MEMORY_RATIO = 1.5
#: Each call's own allocations are measured; a few MiB of allocator slack either way.
MEMORY_SLACK_BYTES = 32 * 2**20

_PRELUDE = """
import json, resource, sys, time
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

N = {n}
rng = np.random.default_rng(7)

def strings(values):
    return pc.cast(pa.array(values), pa.large_string())

def ids(width, count, n=N):
    # ``count`` distinct ids of ``width`` digits, drawn at random for n rows.
    return strings(rng.integers(0, count, n)).cast(pa.large_string())

def rss():
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * resource.getpagesize()

def reset_peak():
    # The peak from here on: getrusage's ru_maxrss would carry the test process's own
    # high-water mark over fork and exec, so a child of a large pytest reads it.
    with open("/proc/self/clear_refs", "w") as handle:
        handle.write("5")

def peak_rss():
    with open("/proc/self/status") as handle:
        line = next(line for line in handle if line.startswith("VmHWM:"))
    return int(line.split()[1]) * 1024
"""

# name: (the input, built vectorised; the call; the columns whose size is the input's)
FAMILIES = {
    "a million one-item row ids": (
        "row_ids = strings(np.arange(N)); items = strings(rng.integers(0, 10**6, N))\n"
        "ranks = strings(np.ones(N, dtype=np.int64))",
        "from scorer.align.long_layout import long_to_wide\n"
        "long_to_wide(row_ids, items, ranks=ranks)",
    ),
    "one row id with a million items": (
        "row_ids = strings(np.zeros(N, dtype=np.int64)); items = strings(np.arange(N))\n"
        "ranks = strings(np.arange(1, N + 1))",
        "from scorer.align.long_layout import long_to_wide\n"
        "long_to_wide(row_ids, items, ranks=ranks)",
    ),
    "random ranks": (
        "row_ids = strings(rng.integers(0, N // 10, N))\n"
        "items = strings(rng.integers(0, 10**6, N))\n"
        "ranks = strings(rng.integers(1, 10**6, N))",
        "from scorer.align.long_layout import long_to_wide\n"
        "long_to_wide(row_ids, items, ranks=ranks)",
    ),
    "scores of NaN, infinities, 1e308 and denormals": (
        "row_ids = strings(rng.integers(0, N // 10, N))\n"
        "items = strings(rng.integers(0, 10**6, N))\n"
        "special = np.array(['nan', 'inf', '-inf', '1e308', '-1e308', '4.9e-324', '2e-320', "
        "'1e999', '1.7976931348623157e308'])\n"
        "scores = strings(special[rng.integers(0, len(special), N)])",
        "from scorer.align.long_layout import long_to_wide\n"
        "long_to_wide(row_ids, items, scores=scores)",
    ),
    "tied scores in one row id": (
        "row_ids = strings(np.zeros(N, dtype=np.int64)); items = strings(rng.permutation(N))\n"
        "scores = strings(np.full(N, '1.0000000'))",
        "from scorer.align.long_layout import long_to_wide\n"
        "long_to_wide(row_ids, items, scores=scores)",
    ),
    "random scores": (
        "row_ids = strings(rng.integers(0, N // 10, N))\n"
        "items = strings(rng.integers(0, 10**6, N))\n"
        "scores = strings(np.char.mod('%.5f', rng.random(N)))",
        "from scorer.align.long_layout import long_to_wide\n"
        "long_to_wide(row_ids, items, scores=scores)",
    ),
    "candidate lists a million long": (
        "rows = np.zeros(N, dtype=np.int64); items = strings(np.arange(N))\n"
        "submitted = items.take(pa.array(rng.permutation(N))); names = pa.array(['r'])",
        "from scorer.align.candidates import PairIndex, candidate_problems\n"
        "candidate_problems('permutation', names, rows, submitted, PairIndex(rows, items))",
    ),
    "random candidate lists": (
        "rows = rng.integers(0, N // 20, N); items = strings(rng.integers(0, 10**6, N))\n"
        "order = rng.permutation(N); names = strings(np.arange(N // 20))\n"
        "submitted_rows = rows[order]; submitted = items.take(pa.array(order))",
        "from scorer.align.candidates import PairIndex, candidate_problems\n"
        "pairs = PairIndex(rows, items)\n"
        "candidate_problems('permutation', names, submitted_rows, submitted, pairs)",
    ),
}

#: Each random input and the crafted ones it is the baseline of.
BASELINES = {
    "random ranks": ("a million one-item row ids", "one row id with a million items"),
    "random scores": (
        "scores of NaN, infinities, 1e308 and denormals",
        "tied scores in one row id",
    ),
    "random candidate lists": ("candidate lists a million long",),
}


def _measure(family: str) -> dict:
    build, call = FAMILIES[family]
    code = (
        _PRELUDE.format(n=N)
        + build
        + "\n"
        + textwrap.dedent(
            f"""
        # What the call's inputs decode to: text and an offset per string, 8 bytes per
        # number (row numbers are made from the lists, one per item).
        inputs = [v for k, v in list(globals().items()) if k not in ("rng", "order")]
        decoded = sum(len(c) * {DECODED_BYTES_PER_CELL} + pc.sum(pc.binary_length(c)).as_py()
                      for c in inputs if isinstance(c, pa.Array))
        decoded += sum(c.nbytes for c in inputs if isinstance(c, np.ndarray))
        {call.splitlines()[0]}
        before = rss()
        reset_peak()
        start = time.process_time()
        TIMED
        seconds = time.process_time() - start
        peak = peak_rss()
        added = max(peak - before, 0)
        print(json.dumps({{"seconds": seconds, "added": added, "decoded": decoded}}))
        """
        )
        # Every line of the call but its import is timed (a call of three lines, such as
        # the random candidate lists', was timed on its second line alone).
    ).replace("TIMED", "\n".join(call.splitlines()[1:]))

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (CAP_BYTES, CAP_BYTES))

    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        preexec_fn=cap,
        timeout=300,
        env={**os.environ, **MEASURED_ENVIRONMENT},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("random", list(BASELINES))
def test_crafted_long_inputs_cost_what_random_ones_cost(random: str) -> None:
    # Each input twice, interleaved, the faster run of each kept; one random input's runs
    # serve every crafted input it is the baseline of.
    names = (*BASELINES[random], random)
    runs = [(name, _measure(name)) for _ in range(2) for name in names]
    fastest = {
        name: min((run for each, run in runs if each == name), key=lambda run: run["seconds"])
        for name in names
    }
    other = fastest[random]
    for crafted in BASELINES[random]:
        one = fastest[crafted]
        bound = MEMORY_PER_INPUT_BYTE * one["decoded"] + MEMORY_SLACK_BYTES
        assert one["added"] <= bound, (
            f"{crafted}: {one['added'] / 2**20:.0f} MiB, at most {bound / 2**20:.0f}"
        )
        assert one["added"] <= MAX_MEMORY_RATIO * other["added"] + MEMORY_SLACK_BYTES, (
            f"{crafted}: {one['added'] / 2**20:.0f} MiB against {other['added'] / 2**20:.0f} MiB"
        )
        ratio = one["seconds"] / other["seconds"]
        assert ratio <= MAX_TIME_RATIO, (
            f"{crafted}: {one['seconds']:.2f} s against {other['seconds']:.2f} s"
        )
