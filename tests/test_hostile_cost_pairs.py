"""Hostile cost of the pair measure AUC: one row of a million judged candidates.

A pair-by-pair count is quadratic in a row's judged items: 2.5 * 10**11 pairs here. The
command line runs under an address-space cap (``tests.cost``) on the crafted row (every
non-relevant item ranked above every relevant one, the most pairs ordered wrongly) and on
the same items spread over a thousand rows of a thousand, and must give the exact value,
memory within the resource contract and a time within a small multiple of the spread run.
"""

from __future__ import annotations

from pathlib import Path

from tests.cost import assert_costs_like_random, cost_run

N_ITEMS = 1_000_000


def _files(folder: Path, n_rows: int, name: str) -> tuple[Path, Path]:
    """``n_rows`` rows sharing ``N_ITEMS`` judged items, grades alternating 1 and 0, in
    the long layout (a row per judged or ranked item); the submission ranks each row's
    grade-0 items first."""
    per_row = N_ITEMS // n_rows
    solution, submission = ["id,items,grades\n"], ["id,items\n"]
    for row in range(n_rows):
        items = [f"n{row}_{j}" for j in range(per_row)]
        solution += [f"r{row},{item},{j % 2}\n" for j, item in enumerate(items)]
        worst = items[0::2] + items[1::2]  # every non-relevant one first
        submission += [f"r{row},{item}\n" for item in worst]
    solution_path, submission_path = folder / f"{name}_solution.csv", folder / f"{name}.csv"
    solution_path.write_text("".join(solution))
    submission_path.write_text("".join(submission))
    return solution_path, submission_path


def test_auc_of_a_million_candidates_in_one_row_costs_what_spread_rows_cost(
    tmp_path: Path,
) -> None:
    one_solution, one_row = _files(tmp_path, 1, "one")
    spread_solution, spread = _files(tmp_path, 1000, "spread")
    options = ("-k", N_ITEMS, "-m", "AUC", "--grade-column", "grades")
    options += ("--layout", "long", "--solution-layout", "long")
    crafted = cost_run(one_solution, one_row, *options)
    random = cost_run(spread_solution, spread, *options)
    # A long file: a million rows of short cells, bounded by what its cells decode to.
    assert_costs_like_random(crafted, random, [one_solution, one_row], exit_code=0, per_cell=True)
    assert crafted.stdout.startswith("AUC: 0.0\n")  # every pair ordered wrongly
    assert random.stdout.startswith("AUC: 0.0\n")
