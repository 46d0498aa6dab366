"""Hostile cost of GAP: a million scored predictions crafted to tie.

GAP sorts every row's prediction across the whole test set. A million rows of one
confidence (a tie everywhere, broken by the row ids), written as ``-0.0`` and ``0.0``
(equal as numbers) or as the extremes of float64 (``1e308``, the denormal ``4.9e-324``)
with one confidence of a hundred thousand digits, must cost what random confidences
cost: the command line runs under an address-space cap (``tests.cost``) on both, with
memory within the resource contract and a time within a small multiple of the random
run's, and the crafted run's value is checked exactly.
"""

from __future__ import annotations

import random
from decimal import Decimal, localcontext
from pathlib import Path

import pytest

from tests.cost import assert_costs_like_random, cost_run

N_ROWS = 1_000_000
LONG_DIGITS = 100_000


def _files(folder: Path, name: str, confidences: list[str]) -> tuple[Path, Path]:
    """Row ``n`` has landmark ``n % 1000``; every other row predicts it (a hit), the
    others a wrong one, each with ``confidences[n]``."""
    solution = ["id,landmarks\n"] + [f"r{n},{n % 1000}\n" for n in range(N_ROWS)]
    submission = ["id,landmarks\n"] + [
        f"r{n},{n % 1000 if n % 2 == 0 else 'x'} {confidences[n]}\n" for n in range(N_ROWS)
    ]
    solution_path, submission_path = folder / f"{name}_solution.csv", folder / f"{name}.csv"
    solution_path.write_text("".join(solution))
    submission_path.write_text("".join(submission))
    return solution_path, submission_path


def _reference_gap(confidences: list[str]) -> float:
    """GAP of :func:`_files`' rows, slowly: Python's sort by (-float, row id), then a
    running sum in 60-digit decimals (an error far below float64's half ulp here), and
    ``float()`` of the decimal, correctly rounded."""
    keys = sorted((-float(text), f"r{n}", n % 2 == 0) for n, text in enumerate(confidences))
    with localcontext() as context:
        context.prec = 60
        total, hits = Decimal(0), 0
        for place, (_, _, hit) in enumerate(keys, start=1):
            if hit:
                hits += 1
                total += Decimal(hits) / place
        return float(total / N_ROWS)


@pytest.mark.parametrize(
    "crafted_confidences",
    [
        lambda n: "-0.0" if n % 3 else "0.0",
        lambda n: "1e308" if n % 2 else "4.9e-324",
    ],
    ids=["signed-zeros", "float64-extremes"],
)
def test_a_million_tied_confidences_cost_what_random_ones_cost(
    tmp_path: Path, crafted_confidences
) -> None:
    rng = random.Random(0)
    crafted = [crafted_confidences(n) for n in range(N_ROWS)]
    long = "0." + "0" * LONG_DIGITS + "1"  # one confidence of 100,000 digits
    crafted[1] = long  # read as 0.0: a tie with the signed zeros, last after the extremes
    spread = [repr(rng.random()) for _ in range(N_ROWS)]
    one_solution, one = _files(tmp_path, "tied", crafted)
    spread_solution, spread_file = _files(tmp_path, "spread", spread)
    options = ("--recipe", "landmark-recognition-2021")
    tied = cost_run(one_solution, one, *options)
    random_run = cost_run(spread_solution, spread_file, *options)
    assert_costs_like_random(tied, random_run, [one_solution, one], exit_code=0, per_cell=True)
    assert tied.stdout.startswith(f"GAP: {_reference_gap(crafted)!r}\n")


def test_a_cell_of_millions_of_tokens_is_counted_never_split(tmp_path: Path) -> None:
    """Forty cells of 250,000 tokens each (the cell limit allows 512 KiB) beside
    a million well-formed rows: the cells are counted from their bytes and only the pairs
    split, so it is a participant error at the cost of the random run."""
    rng = random.Random(1)
    spread = [repr(rng.random()) for _ in range(N_ROWS)]
    crafted = list(spread)
    for row in range(40):  # each: its label, then 250,000 tokens
        crafted[row] = "0.5 " + "x " * 250_000
    one_solution, one = _files(tmp_path, "long_cell", crafted)
    spread_solution, spread_file = _files(tmp_path, "spread", spread)
    options = ("--recipe", "landmark-recognition-2021")
    long_cell = cost_run(one_solution, one, *options)
    random_run = cost_run(spread_solution, spread_file, *options)
    assert_costs_like_random(long_cell, random_run, [one_solution, one], exit_code=1, random_exit=0)
    assert "Not one scored prediction" in long_cell.stderr
