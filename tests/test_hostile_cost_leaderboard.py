"""The final leaderboard under the resource contract (docs/leaderboard.md, "Memory").

Under the address-space cap the thread pool has no worker, and a leaderboard reads and
scores one submission at a time beside the solution (with workers, the next is read while
one is scored), and keeps of each its values and its rows' prints. So a board of crafted
submissions may hold what one run of such a submission holds, plus what it keeps
(:data:`KEPT_BYTES_PER_ROW` a solution row per submission, and the solution's row-id
index). Each family runs ``scorer leaderboard`` on two copies of a crafted submission and
``scorer`` on one, both under the address-space cap, in the same test: the board must end
as documented, within the contract's bound and what it keeps, and within a small multiple
of the single run's CPU time per submission (ratios measured in the same test, never an
absolute time).
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from tests.cost import (
    MAX_MEMORY_RATIO,
    MAX_TIME_RATIO,
    assert_ended,
    cost_run,
    decoded_size,
    memory_bound,
    write_bytes,
)

ROWS = 1_000_000
#: What the board keeps per solution row and submission, at most: the leaderboard
#: measure's value and its sums (16 bytes for a ratio of sums) and the row's print (4).
KEPT_BYTES_PER_ROW = 20
#: The solution's row-id index, kept between submissions (docs/leaderboard.md, "Memory").
INDEX_BYTES_PER_ROW = 24
SUBMISSIONS = 2


def _ids(n: int) -> list[bytes]:
    return [b"%x" % i for i in range(n)]


def _table(rows: list[bytes]) -> bytes:
    return b"id,items\n" + b"\n".join(rows) + b"\n"


# name: (the submission's bytes, the single run's exit code, the board's row for it), the
# bytes made when the family's test runs (never as the tests are collected)
FAMILIES = {
    # Every token a byte: the items' offsets, not their text, are most of the memory.
    "one-byte items": (
        lambda: _table([i + b",a b c d e f g h i j" for i in _ids(ROWS)]),
        0,
        "valid",
    ),
    # The join of strings, not one width, and every row's print made of ten items.
    "one two-byte item among one-byte ones": (
        lambda: _table(
            [i + b",a b c d e f g h i j" for i in _ids(ROWS)[:-1]] + [_ids(ROWS)[-1] + b",ab"]
        ),
        0,
        "valid",
    ),
    # Rows over k are refused from the bytes, before any item is split: an invalid
    # submission is a row of the board, and the board goes on.
    "rows of fifty items": (
        lambda: _table([i + b"," + b" ".join([b"a"] * 50) for i in _ids(ROWS)]),
        1,
        "invalid",
    ),
}


def _board_rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as file:
        return list(csv.DictReader(file))


@pytest.mark.parametrize("family", list(FAMILIES))
def test_a_board_of_crafted_submissions_costs_one_run_and_what_it_keeps(tmp_path, family):
    make_submission, single_exit, entry = FAMILIES[family]
    submission_bytes = make_submission()
    solution = write_bytes(tmp_path, "solution.csv", _table([i + b",a" for i in _ids(ROWS)]))
    submissions = [
        write_bytes(tmp_path, f"team_{n}.csv", submission_bytes) for n in range(SUBMISSIONS)
    ]
    out = tmp_path / "board.csv"
    single = cost_run(solution, submissions[0], "--json")
    board = cost_run("leaderboard", solution, *submissions, "--resamples", 0, "--out", out)
    assert_ended(single, single_exit)
    assert_ended(board, 0)
    rows = [row for row in _board_rows(out) if row["split"] == "overall"]
    assert len(rows) == SUBMISSIONS
    assert all(bool(row["error"]) == (entry == "invalid") for row in rows), rows
    kept = (SUBMISSIONS * KEPT_BYTES_PER_ROW + INDEX_BYTES_PER_ROW) * ROWS
    decoded = decoded_size(solution, submissions[0])
    assert board.peak_rss_bytes <= memory_bound(decoded) + kept, (
        f"{board.peak_rss_bytes / 2**20:.0f} MiB for {decoded / 2**20:.0f} MiB decoded"
    )
    assert board.peak_rss_bytes <= MAX_MEMORY_RATIO * single.peak_rss_bytes + kept, (
        f"{board.peak_rss_bytes / 2**20:.0f} MiB against {single.peak_rss_bytes / 2**20:.0f}"
    )
    assert board.cpu_seconds <= MAX_TIME_RATIO * SUBMISSIONS * single.cpu_seconds, (
        f"{board.cpu_seconds:.2f} s of CPU against {single.cpu_seconds:.2f} s"
    )
