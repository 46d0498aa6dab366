"""Hostile-cost tests of alignment: crafted row ids and items, blank cells, wide rows.

Each test runs the command line as a child under an address-space cap (``tests.cost``)
on a crafted input and on a random input of the same size, and asserts the documented
outcome, an exit code of 0, 1 or 2 (never 3 or a signal), peak memory within the resource
contract and close to the random input's, and a time within a small multiple of the
random input's (ratios measured in the same test, never an absolute time).
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from scorer.measures import REGISTRY, parse
from tests.arrow_collisions import SAFE_BYTES, colliding_ids
from tests.cost import (
    MAX_TIME_RATIO,
    assert_costs_like_random,
    cost_run,
)
from tests.declared import variants

HEADER = "customer_id,prediction\n"


def _write(path: Path, rows: list[tuple[str, str]]) -> Path:
    path.write_text(HEADER + "".join(f"{row_id},{cell}\n" for row_id, cell in rows))
    return path


def _random_strings(n: int, width: int, seed: int = 1) -> list[str]:
    rng = np.random.default_rng(seed)
    rows = SAFE_BYTES[rng.integers(0, len(SAFE_BYTES), (n, width))]
    return [bytes(row).decode("ascii") for row in rows]


def test_row_ids_crafted_to_collide_cost_what_random_ids_cost(tmp_path: Path) -> None:
    """100,000 unknown row ids sharing Arrow's hash (and one of another width, so no
    fixed-width route applies): the duplicate check of the row ids is no hash table."""
    solution = _write(tmp_path / "solution.csv", [(f"c{i:04d}", "a") for i in range(1000)])
    n_rows = 100_000
    files = {}
    for name, ids in (
        ("crafted", colliding_ids(n_rows)),
        ("random", _random_strings(n_rows, 16)),
    ):
        files[name] = _write(tmp_path / f"{name}.csv", [(i, "") for i in [*ids, "x"]])
    crafted = cost_run(solution, files["crafted"])
    random = cost_run(solution, files["random"])
    assert_costs_like_random(crafted, random, [solution, files["crafted"]], exit_code=1)
    assert "Unknown row ids" in crafted.stderr
    assert "100,001 rows whose row id is not in the sample submission" in crafted.stderr


def test_repeated_crafted_row_ids_are_found_and_shown_once_each(tmp_path: Path) -> None:
    """Colliding ids, each twice: every repeat found, the examples five distinct ids."""
    solution = _write(tmp_path / "solution.csv", [(f"c{i:04d}", "a") for i in range(1000)])
    ids = colliding_ids(30_000)
    submission = _write(tmp_path / "submission.csv", [(i, "") for i in ["x", *ids, *ids]])
    random_ids = _random_strings(30_000, 16)
    random = _write(tmp_path / "random.csv", [(i, "") for i in ["x", *random_ids, *random_ids]])
    crafted_run, random_run = (
        cost_run(solution, submission),
        cost_run(solution, random),
    )
    assert_costs_like_random(crafted_run, random_run, [solution, submission], exit_code=1)
    assert "30,000 row ids repeated, 30,000 extra rows in the submission" in crafted_run.stderr
    smallest = sorted(set(ids), key=str.encode)[:5]  # the examples: the smallest, byte order
    line = next(x for x in crafted_run.stderr.splitlines() if "examples" in x and smallest[0] in x)
    assert line.count("'") == 10 and line.split("'")[1::2] == smallest


def test_items_crafted_to_collide_cost_what_random_items_cost(tmp_path: Path) -> None:
    """10,000 users x 10 items outside the vocabulary, all sharing Arrow's hash: the
    codes of unknown items come from no hash table."""
    n_users, k = 10_000, 10
    users = [f"u{i:05d}" for i in range(n_users)]
    solution = _write(tmp_path / "solution.csv", [(u, "a b") for u in users])
    files = {}
    for name, items in (
        ("crafted", colliding_ids(n_users * k)),
        ("random", _random_strings(n_users * k, 16)),
    ):
        cells = [" ".join(items[i * k : (i + 1) * k]) for i in range(n_users)]
        cells[0] = cells[0][:-1]  # one item of another width: no fixed-width route
        files[name] = _write(tmp_path / f"{name}.csv", list(zip(users, cells, strict=True)))
    crafted = cost_run(solution, files["crafted"])
    random = cost_run(solution, files["random"])
    assert_costs_like_random(crafted, random, [solution, files["crafted"]], exit_code=0)
    assert crafted.stdout.startswith("MAP@10: 0.0\n")


@pytest.mark.parametrize("where", ["between", "around"])
def test_blank_cells_cost_no_token_per_space(tmp_path: Path, where: str) -> None:
    """16 MB of spaces in the prediction cells: they hold no item and cost no memory per
    space (each used to become an empty token: about 26 bytes per byte)."""
    n_users, cell_bytes = 100, 160_000
    users = [f"u{i:03d}" for i in range(n_users)]
    solution = _write(tmp_path / "solution.csv", [(u, "a b") for u in users])
    blank = " " * cell_bytes
    cell = blank if where == "around" else f"a{blank[2:]}b"
    crafted = _write(tmp_path / "blank.csv", [(u, cell) for u in users])
    random = _write(
        tmp_path / "random.csv",
        [(u, s) for u, s in zip(users, _random_strings(n_users, 160_000), strict=True)],
    )
    crafted_run, random_run = cost_run(solution, crafted), cost_run(solution, random)
    assert_costs_like_random(crafted_run, random_run, [solution, crafted], exit_code=0)
    expected = "MAP@10: 0.0\n" if where == "around" else "MAP@10: 1.0\n"
    assert crafted_run.stdout.startswith(expected)


def test_rows_over_k_are_refused_before_their_items_are_split(tmp_path: Path) -> None:
    """16 MB of one-character items, 80,000 per row with k = 10: refused from a count of
    the bytes, before any list of items is made."""
    n_users = 100
    users = [f"u{i:03d}" for i in range(n_users)]
    solution = _write(tmp_path / "solution.csv", [(u, "a b") for u in users])
    crafted = _write(tmp_path / "long.csv", [(u, "a " * 79_999 + "a") for u in users])
    random = _write(
        tmp_path / "random.csv",
        [(u, s) for u, s in zip(users, _random_strings(n_users, 160_000), strict=True)],
    )
    crafted_run, random_run = cost_run(solution, crafted), cost_run(solution, random)
    assert_costs_like_random(
        crafted_run, random_run, [solution, crafted], exit_code=1, random_exit=0
    )
    assert "Too many predictions" in crafted_run.stderr
    assert "100 rows with more (up to 80,000)" in crafted_run.stderr


#: Every family (with its required parameters), each on the flat credited hits of sparse
#: rankings.
WIDE_MEASURES = [
    variants(family)[0].name
    for family in REGISTRY
    if not (family.needs_non_relevant or family.scored)
]


def _at(name: str, cutoff: int) -> str:
    """A family's canonical name at a cut-off (none for a family without one)."""
    return str(parse(name, k=cutoff))


def test_one_wide_row_under_a_huge_k_stays_sparse(tmp_path: Path) -> None:
    """k = 10**6 and one row of 70,000 items among 2,000 users: no users x 70,000 matrix,
    for any measure."""
    n_users = 2000
    users = [f"u{i:04d}" for i in range(n_users)]
    solution = _write(tmp_path / "solution.csv", [(u, "i1 i7 i60000") for u in users])
    wide = " ".join(f"i{j}" for j in range(70_000))
    crafted = _write(tmp_path / "wide.csv", [(users[0], wide), *((u, "") for u in users[1:])])
    per_user = len(wide) // n_users
    even = " ".join(f"i{j}" for j in range(per_user // 4))
    random = _write(tmp_path / "even.csv", [(u, even) for u in users])
    measures = [part for name in WIDE_MEASURES for part in ("-m", name)]
    crafted_run = cost_run(solution, crafted, "-k", 10**6, "--json", *measures)
    random_run = cost_run(solution, random, "-k", 10**6, "--json", *measures)
    assert_costs_like_random(crafted_run, random_run, [solution, crafted], exit_code=0)
    # u0000: hits at ranks 2, 8 and 60,001 of 3 relevant items; every other user 0.
    ap = (1 / 2 + 2 / 8 + 3 / 60_001) / 3
    assert f'"score": {ap / n_users!r}' in crafted_run.stdout
    means = json.loads(crafted_run.stdout)["metrics"]
    assert list(means) == [_at(name, 10**6) for name in WIDE_MEASURES]
    rational = {  # u0000's exact value (the correctly rounded mean over 2,000 users)
        "MRR": Fraction(1, 2),
        "RPrec": Fraction(1, 3),  # one hit within the first |R| = 3
        "P": Fraction(3, 10**6),
        "R": Fraction(1),
        "F1": Fraction(6, 10**6 + 3),
        "HitRate": Fraction(1),
        "SetP": Fraction(3, 70_000),  # the whole row as a set: 70,000 items
        "SetR": Fraction(1),
        "SetF": Fraction(6, 70_000 + 3),
        "Jaccard": Fraction(3, 70_000),
    }
    for name, value in rational.items():
        assert means[_at(name, 10**6)] == float(value / n_users), name
    dcg = 1 / math.log2(3) + 1 / math.log2(9) + 1 / math.log2(60_002)
    ideal = 1 + 1 / math.log2(3) + 1 / math.log2(4)
    err = 1 / 2 / 2 + 1 / 4 / 8 + 1 / 8 / 60_001  # Pr = 1/2, past ERR's exact depth: floats
    ideal_err = 1 / 2 + 1 / 4 / 2 + 1 / 8 / 3
    floats = {"nDCG": dcg / ideal, "ERR": err, "nERR": err / ideal_err, "DCG": dcg}
    for name, value in floats.items():
        assert abs(means[f"{name}@{10**6}"] - value / n_users) <= 1e-15, name


def test_one_wide_row_costs_what_a_random_file_costs(tmp_path: Path) -> None:
    """One row of 250,000 items and one of a single item under k = 10**6: the rankings
    are dense (half their cells hold an item), are placed and read by every measure in
    whole-array passes, never once per rank (a loop per rank cost 20 times the random
    file's CPU time)."""
    wide = " ".join(f"i{j}" for j in range(250_000))
    solution = _write(tmp_path / "solution.csv", [("u0", "i1 i7 i60000"), ("u1", "i1")])
    crafted = _write(tmp_path / "wide.csv", [("u0", wide), ("u1", "i1")])
    users = [f"u{i:05d}" for i in range(len(wide) // 70)]  # a file of about the same size
    random_solution = _write(tmp_path / "random_solution.csv", [(u, "i1 i7") for u in users])
    random = _write(
        tmp_path / "random.csv",
        [(u, " ".join(f"i{j}" for j in range(n * 9, n * 9 + 9))) for n, u in enumerate(users)],
    )
    limits = ["--max-line-bytes", "4MiB", "--max-field-bytes", "4MiB", "-k", 10**6]
    measures = [part for name in WIDE_MEASURES for part in ("-m", name)]
    crafted_run = cost_run(solution, crafted, *limits, *measures)
    random_run = cost_run(random_solution, random, *limits, *measures)
    assert_costs_like_random(crafted_run, random_run, [solution, crafted], exit_code=0)
    ap = Fraction(1, 2) + Fraction(2, 8) + Fraction(3, 60_001)
    assert crafted_run.stdout.startswith(f"MAP@{10**6}: {float((ap / 3 + 1) / 2)!r}\n")
    ratio = crafted_run.cpu_seconds / random_run.cpu_seconds
    assert ratio <= MAX_TIME_RATIO, (
        f"{crafted_run.cpu_seconds:.2f} s of CPU against {random_run.cpu_seconds:.2f} s"
    )


def test_one_wide_row_with_graded_relevance_stays_sparse(tmp_path: Path) -> None:
    """The same wide row against graded relevance: grades are looked up per credited
    prediction, and the ideal orderings come from the solution's pairs."""
    n_users = 2000
    users = [f"u{i:04d}" for i in range(n_users)]
    solution = tmp_path / "graded.csv"
    solution.write_text(
        "customer_id,prediction,grade\n" + "".join(f"{u},i1 i7 i60000,3 1 2\n" for u in users)
    )
    wide = " ".join(f"i{j}" for j in range(70_000))
    crafted = _write(tmp_path / "wide.csv", [(users[0], wide), *((u, "") for u in users[1:])])
    even = " ".join(f"i{j}" for j in range(len(wide) // n_users // 4))
    random = _write(tmp_path / "even.csv", [(u, even) for u in users])
    options = ["-k", 10**6, "--json", "--grade-column", "grade"]
    options += [part for name in WIDE_MEASURES for part in ("-m", name)]
    crafted_run, random_run = (
        cost_run(solution, crafted, *options),
        cost_run(solution, random, *options),
    )
    assert_costs_like_random(crafted_run, random_run, [solution, crafted], exit_code=0)
    means = json.loads(crafted_run.stdout)["metrics"]
    # u0000: grades 3, 1 and 2 at ranks 2, 8 and 60,001; G = 3, so Pr = 7/8, 1/8, 3/8.
    dcg = 7 / math.log2(3) + 1 / math.log2(9) + 3 / math.log2(60_002)
    ideal = 7 + 3 / math.log2(3) + 1 / math.log2(4)
    err = 7 / 8 / 2 + 1 / 8 * 1 / 8 / 8 + 3 / 8 * 1 / 8 * 7 / 8 / 60_001
    ideal_err = 7 / 8 + 3 / 8 * 1 / 8 / 2 + 1 / 8 * 1 / 8 * 5 / 8 / 3
    floats = {"nDCG": dcg / ideal, "ERR": err, "nERR": err / ideal_err, "DCG": dcg}
    for name, value in floats.items():
        assert abs(means[f"{name}@{10**6}"] - value / n_users) <= 1e-15, name
    assert means["RPrec"] == float(Fraction(1, 3 * n_users))


def test_many_matches_of_a_vocabulary_with_one_long_item_ask_no_gigabytes(tmp_path: Path):
    """The solution's items: ``a``, and one of 500,000 bytes; the submission predicts
    ``a`` in every row. Confirming each match took the matched items with Arrow, which
    reserves the items' average length (250,000 bytes) for each one it takes: 6.5 GB
    for a block of matches, past the cap. A block now holds what 64 MiB reserve."""
    rows = 30_000
    truth = [(f"c{i}", "a") for i in range(rows)] + [("long", "b" * 500_000)]
    solution = _write(tmp_path / "solution.csv", truth)
    files = {}
    for name, first in (("crafted", "a"), ("random", "z")):  # z: no match to confirm
        cells = [(f"c{i}", f"{first} c d e f g h i j k") for i in range(rows)]
        files[name] = _write(tmp_path / f"{name}.csv", [*cells, ("long", "x")])
    crafted, random = (cost_run(solution, files[name]) for name in ("crafted", "random"))
    assert_costs_like_random(crafted, random, [solution, files["crafted"]], 0)
