"""Fuzz the scorer for a bounded time with hypothesis, far beyond the test suite's budget.

Usage, from the repository root::

    python fuzz/fuzz_submission.py --minutes 10
    python fuzz/fuzz_submission.py --minutes 60 --seed 7 --target bytes

Targets: ``bytes`` (arbitrary and CSV-like bytes written as a submission file),
``frames`` (arbitrary DataFrames as the submission), ``solutions`` (arbitrary
DataFrames as the solution), ``cost`` (a CSV-like piece repeated up to millions of
bytes, stored as CSV, gzip or zip: it fails when its time or peak memory is more than
ten times that of a random submission of the same decoded size; see ``fuzz/cost.py``)
``parquet`` (real Parquet files with mutated page headers, footers and bytes; see
``fuzz/parquet.py``) and ``partials`` (a partial's JSON text as an untrusted worker could
send it; see ``fuzz/partials.py``); by default all six in turn. The checks of the first
three are those of ``tests/test_hostile_properties.py`` (see ``tests/hostile.py``).

On a failure, hypothesis shrinks the input and prints it with the error. A failing
*file* is also saved as ``fixtures/malformed/fuzz/crash-<hash>.csv`` (``.parquet`` for a
Parquet file; a costly one as
``cost-<hash>.<csv|gzip|zip>``), which ``tests/test_malformed.py`` replays from then
on. Exit status: 1 on a failure, 0 when the time is up.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, given, seed, settings  # noqa: E402
from hypothesis.strategies import SearchStrategy  # noqa: E402

from fuzz.cost import Fit, calibrate, check_cost, costly_inputs, wrap  # noqa: E402
from fuzz.parquet import check_parquet, mutated_parquet  # noqa: E402
from fuzz.partials import check_partial_text, partial_texts  # noqa: E402
from tests.hostile import (  # noqa: E402
    check_bytes,
    check_frame,
    check_hostile_solution,
    frames,
    submission_bytes,
)

FINDINGS = ROOT / "fixtures" / "malformed" / "fuzz"
ROUND = 500  # examples per round; the clock is checked between rounds


ROUND_SETTINGS = settings(
    max_examples=ROUND,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
    print_blob=True,
)


def _target(
    strategy: Callable[[], SearchStrategy], check: Callable[[Any], None], keeps_files: bool
) -> Callable[[int, list[bytes]], None]:
    """One round of ``check`` over ``strategy()``; a file target keeps its last input."""

    def fuzz(round_seed: int, last: list[bytes]) -> None:
        @seed(round_seed)
        @settings(ROUND_SETTINGS)
        @given(strategy())
        def run(value: Any) -> None:
            if keeps_files:
                last[:] = [value]
            check(value)

        run()

    return fuzz


_FIT: list[Fit] = []


def _cost_target(round_seed: int, last: list) -> None:
    """One round of the cost target; the random-input fit is measured once."""
    if not _FIT:
        _FIT.append(calibrate())
        print(f"random inputs: {_FIT[0]}", flush=True)

    @seed(round_seed)
    @settings(ROUND_SETTINGS, max_examples=COST_ROUND)
    @given(costly_inputs())
    def run(example: tuple[bytes, str]) -> None:
        last[:] = [example]
        check_cost(_FIT[0], example)

    run()


COST_ROUND = 50  # each cost example is scored at least twice, up to megabytes
TARGETS: dict[str, Callable[[int, list], None]] = {
    "bytes": _target(lambda: submission_bytes, check_bytes, keeps_files=True),
    "frames": _target(frames, check_frame, keeps_files=False),
    "solutions": _target(frames, check_hostile_solution, keeps_files=False),
    "cost": _cost_target,
    "parquet": _target(lambda: mutated_parquet(), check_parquet, keeps_files=True),
    "partials": _target(partial_texts, check_partial_text, keeps_files=False),
}


def save_finding(found: bytes | tuple[bytes, str]) -> Path:
    """Keep a failing submission file (or a costly input, stored as made) as a fixture."""
    FINDINGS.mkdir(parents=True, exist_ok=True)
    if isinstance(found, tuple):
        text, wrapper = found
        data, name = wrap(text, wrapper), f"cost-{{}}.{wrapper}"
    else:
        data, name = found, "crash-{}.parquet" if found[:4] == b"PAR1" else "crash-{}.csv"
    path = FINDINGS / name.format(hashlib.sha256(data).hexdigest()[:12])
    path.write_bytes(data)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=5.0, help="time budget (default 5)")
    parser.add_argument("--seed", type=int, default=0, help="first round's seed (default 0)")
    parser.add_argument("--target", choices=[*TARGETS, "all"], default="all")
    args = parser.parse_args(argv)
    names = list(TARGETS) if args.target == "all" else [args.target]
    deadline = time.monotonic() + 60 * args.minutes
    rounds = examples = 0
    while time.monotonic() < deadline:
        name = names[rounds % len(names)]
        last: list = []
        try:
            TARGETS[name](args.seed + rounds, last)
        except Exception:
            if last:  # hypothesis replays the shrunk example last
                print(f"saved the failing file as {save_finding(last[0])}", file=sys.stderr)
            raise
        rounds += 1
        examples += COST_ROUND if name == "cost" else ROUND
        print(f"round {rounds} ({name}): {examples:,} examples passed so far", flush=True)
    print(f"no failure in {examples:,} examples over {args.minutes:g} minutes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
