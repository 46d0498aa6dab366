"""The gallery of broken submissions: every case yields exactly its documented outcome.

``fixtures/malformed/cases.json`` maps each file to an error class and a message regex,
or to an exact score and the warning codes. Files too big to commit are built here, in
``tmp_path``, at test time. ``fixtures/malformed/fuzz/`` holds inputs the fuzzer once
crashed on: each must now end in a score or a documented error.
"""

from __future__ import annotations

import json
import random
import re
import struct
import zlib
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pytest

import scorer
from scorer import HostVisibleError, ParticipantVisibleError, evaluate
from tests.paths import ROOT

GALLERY = ROOT / "fixtures" / "malformed"
MANIFEST = json.loads((GALLERY / "cases.json").read_text(encoding="utf-8"))
CASES: list[dict] = MANIFEST["cases"]
HEADER = b"customer_id,prediction\n"


def zip_bomb(path: Path, size: int = 2**32 - 2**24) -> None:
    """One CSV member of ``size`` bytes (just under 4 GiB, no zip64) compressed to ~4 MiB.

    The deflate stream repeats one fully flushed block of zeros, so building it costs
    one CRC pass, not 4 GiB of compression.
    """
    prefix = HEADER + b"c01,"
    chunk = 2**24
    n_chunks = (size - len(prefix)) // chunk
    size = len(prefix) + n_chunks * chunk
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    head = compressor.compress(prefix) + compressor.flush(zlib.Z_FULL_FLUSH)
    zeros = b"0" * chunk
    block = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
    tail = compressor.flush()
    crc = zlib.crc32(prefix)
    for _ in range(n_chunks):
        crc = zlib.crc32(zeros, crc)
    packed = len(head) + n_chunks * len(block) + len(tail)
    name = b"submission.csv"
    fields = (20, 0, 8, 0, 0x5C21, crc, packed, size, len(name))
    local = struct.pack("<IHHHHHIIIHH", 0x04034B50, *fields, 0) + name
    central = struct.pack("<IH", 0x02014B50, 20) + struct.pack(
        "<HHHHHIIIHHHHHII", *fields, 0, 0, 0, 0, 0, 0
    )
    central += name
    with path.open("wb") as handle:
        handle.write(local + head)
        for _ in range(n_chunks):
            handle.write(block)
        handle.write(tail)
        offset = len(local) + packed
        handle.write(central)
        handle.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(central), offset, 0))


def single_line_10mb(path: Path) -> None:
    """A header, then one 10 MB line of predictions."""
    path.write_bytes(HEADER + b"c01," + b"0706016001 " * (10 * 2**20 // 11) + b"\n")


def thousands_of_columns(path: Path) -> None:
    """A header, then a row with 100,000 fields."""
    path.write_bytes(HEADER + b"c01," + b",".join([b"0706016001"] * 100_000) + b"\n")


def random_100mb(path: Path) -> None:
    """100 MB of random bytes, the same every run."""
    path.write_bytes(random.Random(20261122).randbytes(100 * 2**20))


BUILDERS: dict[str, Callable[[Path], None]] = {
    "zip_bomb.zip": zip_bomb,
    "single_line_10mb.csv": single_line_10mb,
    "thousands_of_columns.csv": thousands_of_columns,
    "random_100mb.csv": random_100mb,
}


def case_params() -> list:
    return [pytest.param(case, id=case["file"]) for case in CASES]


def submission_path(case: dict, tmp_path: Path) -> Path:
    if case.get("generated"):
        path = tmp_path / case["file"]
        BUILDERS[case["file"]](path)
        return path
    return GALLERY / case["file"]


def solution_items(solution: Path) -> set[str]:
    lines = solution.read_text(encoding="utf-8").splitlines()[1:]
    return {item for line in lines for item in line.split(",", 1)[1].split()}


def assert_no_leak(text: str, case: dict, submission: Path) -> None:
    """No solution item the submission does not itself contain appears in ``text``."""
    solution = GALLERY / case.get("solution", "solution.csv")
    own = submission.read_bytes() if submission.stat().st_size < 2**20 else b""
    for item in solution_items(solution):
        if item.encode() not in own:
            assert item not in text, f"{case['file']}: the message reveals a solution item"


@pytest.mark.parametrize("case", case_params())
def test_gallery_case_yields_its_documented_outcome(case: dict, tmp_path: Path) -> None:
    solution = GALLERY / case.get("solution", "solution.csv")
    submission = submission_path(case, tmp_path)
    if "error" in case:
        error = {"ParticipantVisibleError": ParticipantVisibleError}[case["error"]]
        with pytest.raises(error, match=case["match"]) as caught:
            evaluate(solution, submission)
        assert_no_leak(str(caught.value), case, submission)
        return
    result = evaluate(solution, submission)
    assert abs(result.score - float(Fraction(case["score"]))) <= 1e-12
    assert [w.code for w in result.warnings] == case["warnings"]
    participant = [str(w) for w in result.warnings if w.audience == "participant"]
    assert_no_leak("\n".join(participant), case, submission)


def test_every_gallery_file_is_documented() -> None:
    committed = {p.name for p in GALLERY.iterdir() if p.is_file()}
    listed = {c["file"] for c in CASES if not c.get("generated")}
    solutions = {c.get("solution", "solution.csv") for c in CASES}
    assert committed == listed | solutions | {"cases.json"}
    assert {c["file"] for c in CASES if c.get("generated")} == set(BUILDERS)
    assert len({c["file"] for c in CASES}) == len(CASES)


def test_readme_gallery_table_lists_every_case() -> None:
    """docs/security.md's table: every case in order, with the outcome checked here (its
    error class, or its exact score and its warnings in order)."""
    page = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
    section = page.split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")][1:]
    assert len(rows) == len(CASES)
    for case, row in zip(CASES, rows, strict=True):
        assert f"`{case['file']}`" in row, row
        outcome = row.rstrip(" |").rsplit(" | ", 1)[1]
        if "error" in case:
            assert outcome.startswith(f"`{case['error']}`: "), row
        else:
            score, _, warnings = outcome.partition("; warnings ")
            assert score == f"score {case['score']}", row
            assert re.findall(r"`(\w+)`", warnings) == case["warnings"], row


def test_zip_bomb_builder_writes_a_valid_archive(tmp_path: Path) -> None:
    """The bomb is a real zip: a small one decompresses to exactly its declared content."""
    import zipfile

    path = tmp_path / "small_bomb.zip"
    zip_bomb(path, size=3 * 2**24 + 100)
    with zipfile.ZipFile(path) as archive:
        data = archive.read("submission.csv")  # checks the CRC too
    assert data == HEADER + b"c01," + b"0" * (3 * 2**24)


def fuzz_params() -> list:
    paths = sorted((GALLERY / "fuzz").glob("*")) if (GALLERY / "fuzz").is_dir() else []
    return [pytest.param(path, id=path.name) for path in paths]


@pytest.mark.parametrize("path", fuzz_params())
def test_fuzz_findings_end_in_a_score_or_a_documented_error(path: Path) -> None:
    try:
        value = scorer.score(GALLERY / "solution.csv", path)
    except ParticipantVisibleError as error:
        assert re.search(r"is invalid \(\d+ problems?\)", str(error))
    except HostVisibleError as error:  # pragma: no cover - a submission never blames the host
        pytest.fail(f"a submission raised HostVisibleError: {error}")
    else:
        assert 0.0 <= value <= 1.0


@pytest.mark.parametrize(
    ("prediction", "codes"),
    [
        ("706016001", ["leading_zeros_lost_in_submission"]),  # for the host only
        ("706016001.0", ["item_ids_as_numbers", "leading_zeros_lost_in_submission"]),
        ("0706016001", []),  # right as written
        ("0999999999", []),  # a well-formed id that is simply not relevant
        ("00706016001", []),  # one zero too many is not a lost zero
        ("706016002", []),
        ("0706016001,0372860001", ["comma_separated_lists"]),
        ("0706016001;x", ["comma_separated_lists"]),
        ("0706016001, 0372860001", ["comma_separated_lists"]),  # "0706016001," matches nothing
    ],
)
def test_item_hints_fire_exactly_when_the_mistake_is_likely(prediction: str, codes: list) -> None:
    import pandas as pd

    solution = pd.DataFrame({"id": ["r1", "r2"], "items": ["0706016001 0372860001", "x"]})
    submission = pd.DataFrame({"id": ["r1", "r2"], "items": [prediction, "x"]})
    result = evaluate(solution, submission, "id", k=1, extra_predictions="truncate")
    assert [w.code for w in result.warnings if w.code not in ("short_rows",)] == codes


@pytest.mark.parametrize(
    ("submitted", "hint"),
    [
        (["7.06E+08", "0372860002"], "scientific notation"),
        (["7.06016E+08", "0372860002"], "scientific notation"),
        (["706016001.0", "0372860002"], "trailing '.0' is removed"),
        (["706016001", "0372860002"], "leading zeros are restored"),
        (["7.07E+08", "0372860002"], None),  # rounds to another id: no hint
    ],
)
def test_row_id_hints(submitted: list[str], hint: str | None) -> None:
    import pandas as pd

    solution = pd.DataFrame({"id": ["0706016001", "0372860002"], "items": ["a", "b"]})
    submission = pd.DataFrame({"id": submitted, "items": ["a", "b"]})
    with pytest.raises(ParticipantVisibleError, match="Unknown row ids") as caught:
        evaluate(solution, submission, "id")
    found = re.findall(r"would match once ([^;\n]*)", str(caught.value))
    if hint is None:
        assert found == []
    else:
        assert len(found) == 2 and hint in found[0]  # in Missing rows and in Unknown row ids


def test_the_spreadsheet_hint_needs_scientific_notation() -> None:
    """Other numeric ids often round alike; only ids with an exponent get that hint."""
    import pandas as pd

    solution = pd.DataFrame({"id": ["0706016001", "0372860002"], "items": ["a", "b"]})
    submission = pd.DataFrame({"id": ["706999999", "0372860002"], "items": ["a", "b"]})
    with pytest.raises(ParticipantVisibleError, match="Unknown row ids") as caught:
        evaluate(solution, submission, "id")
    assert "would match" not in str(caught.value)
