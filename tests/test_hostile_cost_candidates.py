"""Hostile cost of candidates: a permutation check of millions of (row, candidate) pairs.

The command line runs under an address-space cap (``tests.cost``) on a solution of 4,000
rows of 1,000 candidates each (half of them relevant) and a submission ranking each row's
candidates, every non-relevant one first, and must stay within the resource contract's
memory (docs/formats-and-limits.md, "Resource contract"), for a pair measure (which also
counts each row's non-relevant candidates) and a measure of ranks alike.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from tests.cost import memory_bound, run_capped

N_ROWS, N_CANDIDATES = 4000, 1000


def _files(folder: Path) -> tuple[Path, Path]:
    items = [f"{j:x}" for j in range(N_CANDIDATES)]
    relevant, listed = " ".join(items[1::2]), " ".join(items)
    worst = " ".join(items[0::2] + items[1::2])
    solution, submission = folder / "solution.csv", folder / "submission.csv"
    solution.write_text(
        "id,items,cands\n" + "".join(f"r{row},{relevant},{listed}\n" for row in range(N_ROWS))
    )
    submission.write_text("id,items\n" + "".join(f"r{row},{worst}\n" for row in range(N_ROWS)))
    return solution, submission


def _expected(measure: str) -> Fraction:
    """The exact value: every relevant candidate ranked after every other one."""
    if measure == "AUC":
        return Fraction(0)  # every pair ordered wrongly
    n_relevant = N_CANDIDATES // 2
    hits = range(1, n_relevant + 1)  # the i-th hit at rank n_relevant + i
    return sum(Fraction(i, n_relevant + i) for i in hits) / n_relevant


@pytest.mark.parametrize("measure", ["AUC", "MAP"])
def test_a_permutation_check_of_four_million_candidates_stays_within_the_contract(
    tmp_path: Path, measure: str
) -> None:
    solution, submission = _files(tmp_path)
    options = ["-k", str(N_CANDIDATES), "-m", measure, "--candidates-column", "cands"]
    run = run_capped([solution, submission, *options, "--candidate-rule", "permutation"])
    assert not run.timed_out and not run.signalled and run.returncode == 0, run.stderr[-2000:]
    name, value = run.stdout.splitlines()[0].split(": ")
    assert name.startswith(measure)
    # AP over rows longer than 20 items is a float measure: equal to a few ulps.
    assert float(value) == pytest.approx(float(_expected(measure)), rel=1e-14, abs=0)
    decoded = solution.stat().st_size + submission.stat().st_size
    assert run.peak_rss_bytes <= memory_bound(decoded), (
        f"{run.peak_rss_bytes / 2**20:.0f} MiB for {decoded / 2**20:.1f} MiB of input"
    )
