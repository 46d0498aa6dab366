"""File reading: formats, encodings, limits and atomic writes (scorer.read.files)."""

from __future__ import annotations

import gzip
import os
import re
import struct
import zipfile
from fractions import Fraction
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

import scorer
from scorer.errors import HostVisibleError, ParticipantVisibleError
from scorer.read.files import DEFAULT_LIMITS, ReadLimits, read_table, write_atomic
from tests.paths import EXAMPLE

CSV = b"id,items\nNA,null nan\n007,\n u3 ,a  b\n"
EXPECTED = (("id", "items"), [["NA", "007", " u3 "], ["null nan", "", "a  b"]])


def read(path: Path, **limits: int):
    table = read_table(path, ParticipantVisibleError, ReadLimits(**limits) if limits else None)
    return table.names, [column.to_pylist() for column in table.columns]


def write_zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def test_csv_keeps_every_value_as_a_string(tmp_path):
    path = tmp_path / "sub.csv"
    path.write_bytes(CSV)
    assert read(path) == EXPECTED


def test_bom_and_crlf_are_tolerated(tmp_path):
    path = tmp_path / "sub.csv"
    path.write_bytes(b"\xef\xbb\xbf" + CSV.replace(b"\n", b"\r\n"))
    assert read(path) == EXPECTED


@pytest.mark.parametrize("name", ["sub.csv.gz", "sub.csv"])
def test_gzip_is_read_by_content_whatever_the_name(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(gzip.compress(CSV))
    assert read(path) == EXPECTED


def test_zip_with_one_csv(tmp_path):
    path = write_zip(tmp_path / "sub.zip", {"sub.csv": CSV})
    assert read(path) == EXPECTED


def test_zip_ignores_macos_metadata_and_folders(tmp_path):
    path = tmp_path / "sub.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("out/", b"")
        archive.writestr("out/sub.csv", CSV)
        archive.writestr("__MACOSX/out/._sub.csv", b"\x00\x05\x16\x07")
        archive.writestr("out/.DS_Store", b"\x00")
    assert read(path) == EXPECTED


def test_zip_with_two_members_is_refused(tmp_path):
    path = write_zip(tmp_path / "sub.zip", {"a.csv": CSV, "b.csv": CSV})
    with pytest.raises(ParticipantVisibleError, match=r"2 files: 'a.csv', 'b.csv'"):
        read(path)


def test_empty_zip_is_refused(tmp_path):
    path = write_zip(tmp_path / "sub.zip", {})
    with pytest.raises(ParticipantVisibleError, match=r"(?s)exactly one CSV file.*0 files: none"):
        read(path)


def test_parquet_columns_become_strings(tmp_path):
    path = tmp_path / "sub.parquet"
    frame = pd.DataFrame({"id": [7, 8], "items": ["NA b", None]})
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path)
    assert read(path) == (("id", "items"), [["7", "8"], ["NA b", None]])


def test_every_format_gives_the_same_score(tmp_path):
    solution = EXAMPLE / "solution.csv"
    data = (EXAMPLE / "submission.csv").read_bytes()
    (tmp_path / "s.csv.gz").write_bytes(gzip.compress(data))
    write_zip(tmp_path / "s.zip", {"submission.csv": data})
    frame = pd.read_csv(EXAMPLE / "submission.csv", dtype=str, keep_default_na=False)
    frame.to_parquet(tmp_path / "s.parquet", index=False)
    (tmp_path / "s.csv").write_bytes(b"\xef\xbb\xbf" + data.replace(b"\n", b"\r\n"))
    scores = {
        name: scorer.score(solution, tmp_path / name)
        for name in ("s.csv.gz", "s.zip", "s.parquet", "s.csv")
    }
    assert scores == dict.fromkeys(scores, scorer.score(solution, EXAMPLE / "submission.csv"))
    assert scores["s.zip"] == pytest.approx(float(Fraction(39, 60)), abs=1e-15)


def test_random_binary_is_refused_from_its_first_bytes(tmp_path):
    path = tmp_path / "sub.csv"
    path.write_bytes(bytes(range(256)) * 4096)
    with pytest.raises(
        ParticipantVisibleError, match=r"(?s)Not UTF-8 text.*NUL byte on line 1 \(byte 1\)"
    ):
        read(path)


def test_utf16_is_named(tmp_path):
    path = tmp_path / "sub.csv"
    path.write_bytes(CSV.decode().encode("utf-16"))
    with pytest.raises(ParticipantVisibleError, match=r"UTF-16 text"):
        read(path)


def test_invalid_utf8_far_into_the_file_gives_its_line(tmp_path):
    path = tmp_path / "sub.csv"
    path.write_bytes(b"id,items\n" + b"u,a\n" * 100_000 + b"v,caf\xe9\n")
    with pytest.raises(ParticipantVisibleError, match=r"byte 0xe9 on line 100,002 is not valid"):
        read(path)


def test_empty_file(tmp_path):
    path = tmp_path / "sub.csv"
    path.write_bytes(b"\xef\xbb\xbf\r\n")
    with pytest.raises(ParticipantVisibleError, match=r"Empty file"):
        read(path)


def test_missing_file(tmp_path):
    """Not an unreadable file: a usage error naming the path (see tests/test_messages.py)."""
    with pytest.raises(HostVisibleError, match=r"The submission path '.*nothing\.csv' does not"):
        read(tmp_path / "nothing.csv")


def test_ragged_csv_is_unreadable(tmp_path):
    path = tmp_path / "sub.csv"
    path.write_bytes(b"id,items\nu1,a,b\n")
    with pytest.raises(
        ParticipantVisibleError, match=r"(?s)Unreadable file.*Expected 2 columns, got 3"
    ):
        read(path)


def test_truncated_gzip(tmp_path):
    path = tmp_path / "sub.csv.gz"
    path.write_bytes(gzip.compress(CSV * 100)[:-12])
    with pytest.raises(ParticipantVisibleError, match=r"broken gzip data .*may be truncated"):
        read(path)


def test_corrupt_zip_member(tmp_path):
    path = write_zip(tmp_path / "sub.zip", {"sub.csv": CSV * 50})
    data = bytearray(path.read_bytes())
    data[40] ^= 0xFF  # inside the compressed member
    path.write_bytes(bytes(data))
    with pytest.raises(ParticipantVisibleError, match=r"broken zip member|Unreadable file"):
        read(path)


def test_broken_parquet(tmp_path):
    path = tmp_path / "sub.parquet"
    path.write_bytes(b"PAR1 not really")
    with pytest.raises(ParticipantVisibleError, match=r"broken Parquet file"):
        read(path)


def test_file_over_the_input_limit(tmp_path):
    path = tmp_path / "sub.csv"
    path.write_bytes(CSV)
    with pytest.raises(
        ParticipantVisibleError, match=r"(?s)File too large.*at most 10 bytes.*found: +36 bytes"
    ):
        read(path, max_input_bytes=10)


def test_zip_declaring_4_gib_is_refused_with_default_limits(tmp_path):
    path = write_zip(tmp_path / "sub.zip", {"sub.csv": CSV})
    data = bytearray(path.read_bytes())
    central = data.index(b"PK\x01\x02")
    data[central + 24 : central + 28] = struct.pack("<I", 0xFFFF_FF00)  # uncompressed size
    path.write_bytes(bytes(data))
    with pytest.raises(
        ParticipantVisibleError,
        match=r"(?s)Decompressed data too large.*found: +4,294,967,040 bytes",
    ):
        read(path)


def test_zip_bomb_is_refused_by_its_ratio(tmp_path):
    path = write_zip(tmp_path / "bomb.zip", {"sub.csv": b"id,items\n" + b"u,a\n" * 4_000_000})
    with pytest.raises(ParticipantVisibleError, match=r"Compression ratio too high"):
        read(path)


def test_a_zip_whose_directory_passes_the_bound_is_refused_before_it_is_read(tmp_path):
    from scorer.read.files import ZIP_DIRECTORY_BYTES

    ignored = {f"__MACOSX/._{i:07d}": b"" for i in range(ZIP_DIRECTORY_BYTES // 60)}
    path = write_zip(tmp_path / "many.zip", {"sub.csv": b"id,items\nu1,a\n", **ignored})
    with pytest.raises(
        ParticipantVisibleError,
        match=r"(?s)Zip archive directory too large.*its directory of at most 1,048,576 bytes"
        r".*fix: +zip the single CSV file alone",
    ):
        read(path)
    few = write_zip(
        tmp_path / "few.zip", {"sub.csv": b"id,items\nu1,a\n", **dict(list(ignored.items())[:9])}
    )
    assert read(few) == (("id", "items"), [["u1"], ["a"]])


def test_gzip_bomb_is_refused_by_its_ratio(tmp_path):
    path = tmp_path / "bomb.csv.gz"
    with gzip.open(path, "wb") as handle:
        handle.write(b"id,items\n")
        for _ in range(16):
            handle.write(b"u,a\n" * 1_000_000)
    with pytest.raises(ParticipantVisibleError, match=r"Compression ratio too high") as caught:
        read(path)
    # Refused by its ratio while reading, long before the decompressed-size limit: how
    # far it got depends only on how much compressed data the reader has taken so far.
    found = re.search(r"([\d,]+) compressed bytes expanding to ([\d,]+) bytes", str(caught.value))
    compressed, decompressed = (int(n.replace(",", "")) for n in found.groups())
    assert compressed <= path.stat().st_size
    assert 2**20 < decompressed <= 64_000_009 < DEFAULT_LIMITS.max_decompressed_bytes
    assert decompressed > DEFAULT_LIMITS.max_compression_ratio * compressed


def test_gzip_stops_at_the_decompressed_limit(tmp_path):
    path = tmp_path / "sub.csv.gz"
    lines = b"".join(b"%d,%d %d\n" % (i, i * 7919 % 10007, i * 31) for i in range(400_000))
    path.write_bytes(gzip.compress(b"id,items\n" + lines))
    with pytest.raises(
        ParticipantVisibleError,
        match=r"(?s)Decompressed data too large.*found: +more than 2,097,152 bytes",
    ):
        read(path, max_decompressed_bytes=2 * 2**20)


def test_parquet_over_the_decompressed_limit(tmp_path):
    path = tmp_path / "sub.parquet"
    pq.write_table(pa.table({"id": [str(i) for i in range(10_000)]}), path)
    with pytest.raises(ParticipantVisibleError, match=r"at most 1,000 bytes \(Parquet data\)"):
        read(path, max_decompressed_bytes=1000)


def test_line_too_long(tmp_path):
    path = tmp_path / "sub.csv"
    path.write_bytes(b"id,items\r\nu1,abc\r\nu2," + b"x" * 40 + b"\r\n")
    assert read(path, max_line_bytes=43)[1][1] == ["abc", "x" * 40]  # CR not counted
    with pytest.raises(
        ParticipantVisibleError,
        match=r"(?s)Line too long.*at most 42 bytes.*1 line longer, the longest 43 bytes"
        r".*examples \(line numbers\): '3'\n",
    ):
        read(path, max_line_bytes=42)


def test_cell_too_long(tmp_path):
    path = tmp_path / "sub.csv"
    path.write_bytes(b'id,items\nu1,"a\nb"\nu2,' + b"y" * 30 + b"\n")
    with pytest.raises(
        ParticipantVisibleError,
        match=r"(?s)Cell too long.*1 cell longer in column 'items', the longest 30 bytes.*"
        r"\(data row numbers, 1 = first row after the header\): '2'",
    ):
        read(path, max_field_bytes=20)


def test_too_many_columns(tmp_path):
    path = tmp_path / "sub.csv"
    path.write_bytes(b",".join(b"c%d" % i for i in range(12)) + b"\n")
    with pytest.raises(
        ParticipantVisibleError, match=r"(?s)at most 10 columns.*12 columns in the header"
    ):
        read(path, max_columns=10)


def test_limits_are_validated():
    with pytest.raises(HostVisibleError, match=r"'max_line_bytes' limit must be an int ≥ 1"):
        ReadLimits(max_line_bytes=-1)
    assert ReadLimits(2**30, 2**30, 2**20, 2**19, 100, 200) == DEFAULT_LIMITS


def test_evaluate_passes_limits_to_both_files(tmp_path):
    solution, submission = EXAMPLE / "solution.csv", EXAMPLE / "submission.csv"
    between = (solution.stat().st_size + submission.stat().st_size) // 2
    small, large = sorted([solution, submission], key=lambda p: p.stat().st_size)
    error = HostVisibleError if large == solution else ParticipantVisibleError
    with pytest.raises(error, match=r"File too large"):
        scorer.evaluate(solution, submission, limits=ReadLimits(max_input_bytes=between))
    assert small.stat().st_size < between


def test_write_atomic_replaces_and_leaves_no_temporary_file(tmp_path):
    path = tmp_path / "scores.json"
    path.write_text("old")
    write_atomic(path, "new\n")
    assert path.read_text() == "new\n"
    assert os.listdir(tmp_path) == ["scores.json"]


def test_write_atomic_failure_keeps_the_old_file(tmp_path):
    path = tmp_path / "scores.json"
    path.write_text("old")
    with pytest.raises(TypeError, match=r"a bytes-like object is required"):
        write_atomic(path, 12)  # type: ignore[arg-type]
    assert path.read_text() == "old"
    assert os.listdir(tmp_path) == ["scores.json"]


@given(st.binary(max_size=300).map(lambda b: b.replace(b"\r", b"")), st.integers(1, 40))
def test_the_long_line_precheck_never_misses_one(data, limit):
    from scorer.read.files import _may_hold_a_line_over

    longest = max(len(line) for line in data.split(b"\n"))
    if longest > limit:
        assert _may_hold_a_line_over(data, limit)


def test_a_blank_first_line_is_a_missing_header(tmp_path):
    path = tmp_path / "sub.csv"
    path.write_bytes(b"\r\nid,items\nu1,a\n")
    with pytest.raises(ParticipantVisibleError, match=r"No header row[\s\S]*an empty first line"):
        read(path)


def test_classic_mac_line_endings(tmp_path):
    path = tmp_path / "sub.csv"
    path.write_bytes(b"id,items\ru1,a b\ru2,\r")
    assert read(path) == (("id", "items"), [["u1", "u2"], ["a b", ""]])


def test_too_many_columns_in_the_header_is_named_as_such(tmp_path):
    path = tmp_path / "sub.csv"
    path.write_bytes(b",".join(b"c%d" % i for i in range(5_000)) + b"\n" + b"x," * 4_999 + b"x\n")
    with pytest.raises(ParticipantVisibleError, match="Too many columns"):
        read(path, max_line_bytes=1_000)


def test_a_file_that_cannot_be_mapped_is_read(tmp_path, monkeypatch):
    import mmap

    def refuse(*args, **kwargs):
        raise OSError("mmap not supported here")

    path = tmp_path / "sub.csv"
    path.write_bytes(b"id,items\nu1,a b\n")
    monkeypatch.setattr(mmap, "mmap", refuse)
    table = read_table(path, ParticipantVisibleError)
    assert [c.to_pylist() for c in table.columns] == [["u1"], ["a b"]]


def test_the_parser_reads_text_that_arrow_owns(tmp_path):
    """pyarrow's CSV reader may let go of its input on its own thread just after it
    returns; a buffer holding a Python object then needs the GIL there, and at
    interpreter exit that aborted the process (exit code 134). The parser is given
    memory Arrow owns: the file mapped by Arrow (the checks' own map closed, so that
    the text is never resident twice), or a copy of text held in memory."""
    import mmap

    import numpy as np

    from scorer.read.files import _arrow_text

    data = b"\xef\xbb\xbf" + CSV
    copied = _arrow_text(data, 3, "unused")
    assert copied.to_pybytes() == CSV
    assert copied.address != np.frombuffer(data, dtype=np.uint8).ctypes.data
    path = tmp_path / "s.csv"
    path.write_bytes(data)
    with open(path, "rb") as handle:
        mapped = mmap.mmap(handle.fileno(), len(data), access=mmap.ACCESS_READ)
    path.write_bytes(data + b"u9,grown after the checks\n")
    remapped = _arrow_text(mapped, 3, str(path))
    assert remapped.to_pybytes() == CSV  # the size the checks saw
    assert mapped.closed


@pytest.mark.parametrize(
    ("method", "name"), [(zipfile.ZIP_BZIP2, "bzip2"), (zipfile.ZIP_LZMA, "LZMA")]
)
def test_zip_members_are_stored_or_deflated(tmp_path, method, name):
    path = tmp_path / "sub.zip"
    with zipfile.ZipFile(path, "w", method) as archive:
        archive.writestr("sub.csv", CSV)
    with pytest.raises(
        ParticipantVisibleError,
        match=rf"(?s)Unsupported compression method.*stored or compressed with deflate"
        rf".*a member compressed with {name} \(method {method}\)",
    ):
        read(path)


def test_zip_member_with_a_false_size_is_measured_by_its_data(tmp_path):
    path = write_zip(tmp_path / "sub.zip", {"sub.csv": CSV + b"u9," + b"a " * 2000 + b"\n"})
    data = bytearray(path.read_bytes())
    for magic, at in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        start = data.index(magic)
        data[start + at : start + at + 4] = struct.pack("<I", 40)  # uncompressed size
    path.write_bytes(bytes(data))
    with pytest.raises(ParticipantVisibleError, match=r"broken zip member \(Bad CRC-32"):
        read(path)


def write_parquet(path: Path, table: pa.Table, **options) -> Path:
    pq.write_table(table, path, **options)
    return path


@pytest.mark.parametrize("kind", [pa.string(), pa.binary(), pa.large_binary()])
def test_parquet_text_must_be_utf8_like_csv_text(tmp_path, kind):
    cells = pa.array([b"u1", b"u2", b"\xffu3"], pa.binary())
    column = cells.view(pa.string()) if kind == pa.string() else cells.cast(kind)
    path = write_parquet(tmp_path / "sub.parquet", pa.table({"id": column, "items": ["a"] * 3}))
    with pytest.raises(
        ParticipantVisibleError,
        match=r"(?s)Not UTF-8 text.*the cell of column 'id' in data row 3 "
        r"\(1 = first row\) is not valid UTF-8",
    ):
        read(path)
    with pytest.raises(HostVisibleError, match=r"column 'id' in data row 3"):
        read_table(path, HostVisibleError)


def test_parquet_binary_text_is_read_as_text(tmp_path):
    table = pa.table({"id": pa.array([b"u1", "é".encode()]), "items": ["a b", ""]})
    path = write_parquet(tmp_path / "sub.parquet", table)
    assert read(path) == (("id", "items"), [["u1", "é"], ["a b", ""]])


def test_parquet_dictionary_columns_are_decoded(tmp_path):
    items = pa.DictionaryArray.from_arrays(pa.array([0, 1, 0], pa.int32()), ["a b", "c"])
    path = write_parquet(tmp_path / "sub.parquet", pa.table({"id": ["u1", "u2", "u3"], "i": items}))
    assert read(path) == (("id", "i"), [["u1", "u2", "u3"], ["a b", "c", "a b"]])


@pytest.mark.parametrize(
    "column",
    [
        pa.array([[["a"], ["b"]], [["c"]]]),  # a list of lists is no item list
        pa.array([[1.5, 2.0], [3.0]]),  # nor a list of floats
        pa.array([{"a": 1}, {"a": 2}]),
        pa.array([1, 2], pa.timestamp("s")),
    ],
)
def test_parquet_nested_or_temporal_columns_are_refused(tmp_path, column):
    path = write_parquet(tmp_path / "sub.parquet", pa.table({"id": ["u1", "u2"], "x": column}))
    with pytest.raises(
        ParticipantVisibleError,
        match=rf"(?s)Unsupported column type.*column 'x' of type {str(column.type)[:4]}",
    ):
        read(path)


def test_parquet_null_columns_are_bounded_by_their_row_count(tmp_path):
    path = write_parquet(tmp_path / "sub.parquet", pa.table({"id": pa.nulls(1_000_000)}))
    with pytest.raises(
        ParticipantVisibleError,
        match=r"(?s)at most 1,000,000 bytes \(Parquet data\).*1,000,000 rows of 1 column: "
        r"at least 8,000,000 bytes",
    ):
        read(path, max_decompressed_bytes=1_000_000)


def test_parquet_dictionary_bomb_stops_at_the_limit(tmp_path):
    items = pa.DictionaryArray.from_arrays(pa.array([0] * 5_000, pa.int32()), ["a " * 5_000])
    path = write_parquet(tmp_path / "sub.parquet", pa.table({"items": items}))
    assert path.stat().st_size < 20_000
    with pytest.raises(
        ParticipantVisibleError, match=r"(?s)\(Parquet data\).*more than 2,000,000 bytes"
    ):
        read(path, max_decompressed_bytes=2_000_000)


def test_parquet_in_many_small_batches_is_read_whole(tmp_path):
    ids = [f"u{i}" for i in range(3_000)]
    path = write_parquet(
        tmp_path / "sub.parquet", pa.table({"id": ids}), row_group_size=700, data_page_size=100
    )
    assert read(path, max_decompressed_bytes=200_000) == (("id",), [ids])


def test_cr_only_file_over_a_mebibyte_is_read_line_by_line(tmp_path):
    path = tmp_path / "sub.csv"
    rows = [f"u{i}" for i in range(200_000)]
    path.write_bytes(("id,items\r" + "".join(f"{r},a b\r" for r in rows)).encode())
    assert path.stat().st_size > 2**20
    names, (ids, items) = read(path)
    assert (names, ids, items[-1]) == (("id", "items"), rows, "a b")


def test_a_long_line_among_cr_line_endings_is_found(tmp_path):
    path = tmp_path / "sub.csv"
    path.write_bytes(b"id,items\r" + b"u1,a\r" * 10 + b"u2," + b"x" * 50 + b"\ru3,b\r")
    with pytest.raises(
        ParticipantVisibleError,
        match=r"(?s)1 line longer, the longest 53 bytes.*\(line numbers\): '12'",
    ):
        read(path, max_line_bytes=40)


def test_nul_byte_anywhere_means_binary(tmp_path):
    path = tmp_path / "sub.csv"
    path.write_bytes(CSV + b"".join(b"u%d,a\n" % i for i in range(20_000)) + b"x,\x00\n")
    with pytest.raises(
        ParticipantVisibleError, match=r"(?s)Not UTF-8 text.*a NUL byte on line 20,005"
    ):
        read(path)


def test_header_columns_are_counted_before_the_header_is_split(tmp_path):
    path = tmp_path / "sub.csv"
    path.write_bytes(b'"a,b",' + b"c," * 200 + b"c\nx\n")
    with pytest.raises(ParticipantVisibleError, match=r"(?s)Too many columns.*202 columns"):
        read(path)


@given(st.lists(st.sampled_from([b"a", b"bb", b"\n", b"\r", b"\r\n", b"xyz"]), max_size=60))
def test_line_lengths_match_the_parsers_lines(pieces):
    from scorer.read.files import _lines_over

    data = b"".join(pieces)
    lines = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
    if data.endswith((b"\n", b"\r")):
        lines.pop()
    for limit in (0, 1, 2, 3):
        over = [i + 1 for i, line in enumerate(lines) if len(line) > limit]
        longest = max(map(len, lines), default=0)
        count, found_longest, examples = _lines_over(data, limit)
        assert (count, examples) == (len(over), tuple(map(str, over[:5])))
        assert found_longest == longest or (not data and found_longest == 0)


# The decoded size (text and 8 bytes a cell) is bounded before any parse or copy.


def _short_rows(n: int, ending: bytes = b"\n", form: bytes = b"%06x") -> bytes:
    return b"id,items" + ending + b"".join(form % i + b"," + ending for i in range(n))


@pytest.mark.parametrize(
    ("name", "data", "lines"),
    [
        ("equal layout", _short_rows(60_000), 60_001),  # read without the parser
        ("other layout", _short_rows(60_000, form=b"%x"), 60_001),
        ("CR only", _short_rows(60_000, ending=b"\r"), 60_001),
        ("gzip", gzip.compress(_short_rows(60_000, form=b"%x")), 60_001),
    ],
)
def test_short_rows_past_the_decoded_limit_are_refused(tmp_path, name, data, lines):
    path = tmp_path / "rows.csv"
    path.write_bytes(data)
    text = gzip.decompress(data) if name == "gzip" else data
    size = len(text)  # the header's bytes too
    decoded = size + 8 * 2 * lines
    limit = decoded - 1  # the text alone is far within it
    found = f"{size:,} bytes in {lines:,} lines of 2 columns: up to {decoded:,} bytes"
    with pytest.raises(ParticipantVisibleError, match=re.escape(found)):
        read(path, max_decompressed_bytes=limit, max_compression_ratio=10_000)
    table = read_table(
        path,
        ParticipantVisibleError,
        ReadLimits(max_decompressed_bytes=decoded, max_compression_ratio=10_000),
    )
    assert table.n_rows == lines - 1


def test_the_decoded_limit_message_says_what_counts(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_bytes(_short_rows(1000, form=b"%x"))
    with pytest.raises(
        ParticipantVisibleError,
        match=r"(?s)Decompressed data too large.*"
        r"once decoded \(the text, and 8 bytes for each cell\)",
    ):
        read(path, max_decompressed_bytes=10_000)


@pytest.mark.parametrize(
    "body",
    [b"u1,a b\nu2,c\n", b'u1,"a\nb"\nu2,c\n', b'u1,"a, b"\nu2,c\n'],
    ids=["plain body", "line end inside a quoted value", "comma inside a quoted value"],
)
def test_quotes_in_the_header_alone_do_not_change_how_the_body_reads(tmp_path, body):
    quoted, plain = tmp_path / "quoted.csv", tmp_path / "plain.csv"
    quoted.write_bytes(b'"id","items"\n' + body)
    plain.write_bytes(b"id,items\n" + body)
    read = [read_table(path, HostVisibleError) for path in (quoted, plain)]
    assert read[0].names == read[1].names == ("id", "items")
    assert [c.to_pylist() for c in read[0].columns] == [c.to_pylist() for c in read[1].columns]


def test_a_pandas_still_being_imported_holds_no_value(monkeypatch) -> None:
    """pyarrow imports pandas on its first use, perhaps on another thread: a module in
    sys.modules without its classes yet (a leaderboard's submission read ahead once
    failed on it, "partially initialized module 'pandas' has no attribute 'DataFrame'")."""
    import sys
    import types

    from scorer.read.columns import is_pandas
    from scorer.read.inputs import as_string_table

    monkeypatch.setitem(sys.modules, "pandas", types.ModuleType("pandas"))
    assert not is_pandas(None, "NA") and not is_pandas(object(), "DataFrame")
    table = as_string_table(EXAMPLE / "solution.csv", HostVisibleError)
    assert table.n_rows == 7


@pytest.mark.parametrize("capped", [False, True])
def test_a_file_whose_name_is_not_utf8_is_read_as_any_other(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capped: bool
) -> None:
    """A file name is bytes: one that is no UTF-8 (read as a lone surrogate) names the
    file to Arrow's map and to the parser's own process as it is."""
    import scorer.read.files as files

    monkeypatch.setattr(files, "address_space_capped", lambda: capped)
    name = os.fsdecode(os.fsencode(str(tmp_path)) + b"/n\xff.csv")
    Path(name).write_bytes((EXAMPLE / "submission.csv").read_bytes())
    table = read_table(name, ParticipantVisibleError)
    assert table == read_table(EXAMPLE / "submission.csv", ParticipantVisibleError)
