"""Hostile cost of rows read whole: set measures with no cut-off and no ``k``.

With no ``k`` and no measure with a cut-off, only the file limits bound a row: with the
line and cell limits raised (as a host of such rows does), one row may hold a million
items. The command line runs under an address-space cap
(``tests.cost``) on that row (half its items relevant, some repeated) and on the same
items spread over a thousand rows of a thousand, and must give the exact values, memory
within the resource contract and a time within a small multiple of the spread run.
"""

from __future__ import annotations

from pathlib import Path

from tests.test_hostile_cost_alignment import _assert_bounded, _run

N_ITEMS = 1_000_000


def _files(folder: Path, n_rows: int, name: str) -> tuple[Path, Path]:
    """``n_rows`` rows sharing ``N_ITEMS`` submitted items: each row's truth is every
    other item of its own, and its submission lists them all, its first tenth twice."""
    per_row = N_ITEMS // n_rows
    solution, submission = ["id,items\n"], ["id,items\n"]
    for row in range(n_rows):
        items = [f"n{row}_{j}" for j in range(per_row)]
        solution.append(f"r{row},{' '.join(items[0::2])}\n")
        submission.append(f"r{row},{' '.join(items + items[: per_row // 10])}\n")
    solution_path, submission_path = folder / f"{name}_solution.csv", folder / f"{name}.csv"
    solution_path.write_text("".join(solution))
    submission_path.write_text("".join(submission))
    return solution_path, submission_path


def test_a_million_items_in_one_whole_row_cost_what_spread_rows_cost(tmp_path: Path) -> None:
    one_solution, one_row = _files(tmp_path, 1, "one")
    spread_solution, spread = _files(tmp_path, 1000, "spread")
    options = ("-m", "SetF", "-m", "Jaccard", "--json")
    options += ("--max-line-bytes", 2**24, "--max-field-bytes", 2**24)
    crafted = _run(one_solution, one_row, *options)
    random = _run(spread_solution, spread, *options)
    _assert_bounded(crafted, random, [one_solution, one_row], exit_code=0)
    for run in (crafted, random):
        # S: every item (a repeat counts once), R: half of them, all found.
        assert '"SetF": 0.6666666666666666' in run.stdout  # 2·|R| / (|S| + |R|) = 2/3
        assert '"Jaccard": 0.5' in run.stdout
        assert '"k": null' in run.stdout
