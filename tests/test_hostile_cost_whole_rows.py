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

from tests.cost import (
    MAX_MEMORY_RATIO,
    MAX_TIME_RATIO,
    assert_costs_like_random,
    cost_run,
    decoded_size,
    memory_bound,
)

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
    return _write(folder, name, solution, submission)


def test_a_million_items_in_one_whole_row_cost_what_spread_rows_cost(tmp_path: Path) -> None:
    one_solution, one_row = _files(tmp_path, 1, "one")
    spread_solution, spread = _files(tmp_path, 1000, "spread")
    options = ("-m", "SetF", "-m", "Jaccard", "-m", "RPrec", "--json")
    options += ("--max-line-bytes", 2**24, "--max-field-bytes", 2**24)
    crafted = cost_run(one_solution, one_row, *options)
    random = cost_run(spread_solution, spread, *options)
    assert_costs_like_random(crafted, random, [one_solution, one_row], exit_code=0)
    for run in (crafted, random):
        # S: every item (a repeat counts once), R: half of them, all found.
        assert '"SetF": 0.6666666666666666' in run.stdout  # 2·|R| / (|S| + |R|) = 2/3
        assert '"Jaccard": 0.5' in run.stdout
        assert '"RPrec": 0.5' in run.stdout  # the first |R| predictions: every other one
        assert '"k": null' in run.stdout


def _wide(folder: Path, n_rows: int, width: int, name: str) -> tuple[Path, Path]:
    """``n_rows`` full rows of ``width`` ten-digit items (no padding: kept as a dense
    matrix whatever its width), ten relevant items each."""
    solution, submission = ["id,items\n"], ["id,items\n"]
    for row in range(n_rows):
        solution.append(f"r{row},{' '.join(f'{j * 7:010d}' for j in range(10))}\n")
        cells = " ".join(f"{(row + j) % 9973:010d}" for j in range(width))
        submission.append(f"r{row},{cells}\n")
    return _write(folder, name, solution, submission)


def _write(folder: Path, name: str, solution: list[str], submission: list[str]) -> tuple[Path, ...]:
    """The lines written as ``NAME_solution.csv`` and ``NAME.csv``: their paths."""
    solution_path, submission_path = folder / f"{name}_solution.csv", folder / f"{name}.csv"
    solution_path.write_text("".join(solution))
    submission_path.write_text("".join(submission))
    return solution_path, submission_path


def test_wide_full_rows_without_k_cost_what_narrow_rows_cost(tmp_path: Path) -> None:
    """Rows of 2,000 items and no k: as many items as 40,000 rows of 100, at the cost of
    those. (Flat entries per item instead of the matrix took 1.65 times the memory:
    800 MiB at 65 MiB of input.)"""
    wide_solution, wide = _wide(tmp_path, 2000, 2000, "wide")
    narrow_solution, narrow = _wide(tmp_path, 40_000, 100, "narrow")
    crafted = cost_run(wide_solution, wide, "-m", "SetF", "-m", "RPrec")
    random = cost_run(narrow_solution, narrow, "-m", "SetF", "-m", "RPrec", "-k", 100)
    for run in (crafted, random):
        assert not run.timed_out and run.returncode == 0, run.stderr[-2000:]
    assert crafted.peak_rss_bytes <= MAX_MEMORY_RATIO * random.peak_rss_bytes
    assert crafted.cpu_seconds <= MAX_TIME_RATIO * random.cpu_seconds


def test_four_million_items_in_rows_of_100_stay_within_the_contract(tmp_path: Path) -> None:
    """Rows of 100 ten-digit items, most outside the truth: the unknown items' codes
    took four arrays of their number at once (about 480 MiB for 42 MiB of input, over
    the contract's 447), now one sorted copy and chunks (about 380 MiB)."""
    solution, submission = _wide(tmp_path, 40_000, 100, "narrow")
    run = cost_run(solution, submission, "-m", "MAP", "-k", 100)
    assert not run.timed_out and run.returncode == 0, run.stderr[-2000:]
    decoded = decoded_size(solution, submission)
    assert run.peak_rss_bytes <= memory_bound(decoded), (
        f"{run.peak_rss_bytes / 2**20:.0f} MiB for {decoded / 2**20:.1f} MiB of input"
    )
