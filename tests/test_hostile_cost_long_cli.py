"""The resource contract for the long shapes through the command line.

Long files are many short rows: each family is a file of a million rows run by
``python -m scorer --layout long ...`` (or with target types in the row ids, which
make three short rows of each session) under an address-space cap, and must end as
documented (scored, or refused with its message) within the memory contract
(docs/formats-and-limits.md, "Resource contract": 256 MiB + 4 x the decoded inputs, each cell's
text plus 8 bytes).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from tests.cost import assert_ended, decoded_size, memory_bound, run_capped, write_bytes

N = 1_000_000


def _lines(header: bytes, columns: list[list[bytes]]) -> bytes:
    rows = [b",".join(cells) for cells in zip(*columns, strict=True)]
    return header + b"\n" + b"\n".join(rows) + b"\n"


def _ids(n: int) -> list[bytes]:
    return [b"%x" % i for i in range(n)]


def _items(n: int, seed: int = 0) -> list[bytes]:
    return [b"%010d" % v for v in np.random.default_rng(seed).integers(0, 10**9, n)]


def _wide_solution(n: int) -> bytes:
    return _lines(b"id,items", [_ids(n), _items(n, 1)])


def _one_id(n: int) -> list[bytes]:
    return [b"0"] * n


# name: (solution, submission, flags, exit code, text printed)
Family = tuple[Callable[[], bytes], Callable[[], bytes], tuple[str, ...], int, str]
FAMILIES: dict[str, Family] = {
    "a million one-item row ids, ranked": (
        lambda: _wide_solution(N),
        lambda: _lines(b"id,items,rank", [_ids(N), _items(N), [b"1"] * N]),
        ("--layout", "long", "--rank-column", "rank"),
        0,
        "MAP@10",
    ),
    "a million one-item row ids in a long solution": (
        lambda: _lines(b"id,items", [_ids(N), _items(N, 1)]),
        lambda: _lines(b"id,items", [_ids(N), _items(N)]),
        ("--layout", "long", "--solution-layout", "long"),
        0,
        "MAP@10",
    ),
    "one row id with a million items": (
        lambda: b"id,items\n0,0000000001\n",
        lambda: _lines(b"id,items", [_one_id(N), _items(N)]),
        ("--layout", "long", "--extra-predictions", "truncate"),
        0,
        "MAP@10",
    ),
    "scores of NaN, infinities, 1e308 and denormals": (
        lambda: _wide_solution(N // 4),
        lambda: _lines(
            b"id,items,score",
            [
                [i for i in _ids(N // 4) for _ in range(4)],
                _items(N),
                [b"nan", b"inf", b"1e308", b"5e-324"] * (N // 4),
            ],
        ),
        ("--layout", "long", "--score-column", "score"),
        1,
        "Invalid scores",
    ),
    "a candidate list a million long, gathered from a long solution": (
        lambda: _lines(
            b"id,items,candidates", [_one_id(N), [b"0000000001"] + [b""] * (N - 1), _items(N)]
        ),
        lambda: _lines(b"id,items", [_one_id(N), _items(N)[::-1]]),
        (
            "--layout",
            "long",
            "--solution-layout",
            "long",
            "--candidates-column",
            "candidates",
            "--candidate-rule",
            "subset",
            "--extra-predictions",
            "truncate",
        ),
        1,
        "Candidates ranked more than once",
    ),
    "a million sessions of three target types": (
        lambda: _lines(b"id,items", [_typed_ids(N // 3), _items(3 * (N // 3), 1)]),
        lambda: _lines(b"id,items", [_typed_ids(N // 3), _items(3 * (N // 3))]),
        ("--row-id-type-separator", "_"),
        0,
        "By target type",
    ),
    "a million unknown target types in the submission": (
        lambda: _lines(b"id,items", [_typed_ids(1), _items(3, 1)]),
        lambda: _lines(b"id,items", [[b"0_t%x" % i for i in range(N)], _items(N)]),
        ("--row-id-type-separator", "_"),
        1,
        "Unknown row ids",
    ),
    "row ids of a thousand separators": (
        lambda: _lines(b"id,items", [_typed_ids(1), _items(3, 1)]),
        lambda: _lines(b"id,items", [[b"0" + b"_0" * 1000 + b"_clicks"] * 20_000, _items(20_000)]),
        ("--row-id-type-separator", "_"),
        1,
        "Duplicated row ids",
    ),
}


def _typed_ids(n_sessions: int) -> list[bytes]:
    return [
        b"%x_%s" % (s, kind) for s in range(n_sessions) for kind in (b"clicks", b"carts", b"orders")
    ]


@pytest.mark.parametrize("family", list(FAMILIES))
def test_long_shapes_stay_within_the_contract(tmp_path: Path, family: str) -> None:
    make_solution, make_submission, flags, code, text = FAMILIES[family]
    solution = write_bytes(tmp_path, "sol.csv", make_solution())
    submission = write_bytes(tmp_path, "sub.csv", make_submission())
    run = run_capped([solution, submission, *flags], timeout=300)
    assert_ended(run, code)
    assert text in run.stdout + run.stderr
    decoded = decoded_size(solution, submission)
    assert run.peak_rss_bytes <= memory_bound(decoded), (
        f"{run.peak_rss_bytes / 2**20:.0f} MiB for {decoded / 2**20:.0f} MiB decoded"
    )
