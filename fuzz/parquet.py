"""The fuzzer's Parquet target: real Parquet files, mutated where a reader trusts them.

Seeds are small submissions written by pyarrow with every option that changes the bytes
(codec, dictionary or plain, data page version 1 or 2, page size, statistics, row groups,
list columns, fixed-size binary, nulls). Each example takes one and applies a few
mutations: a page header (where the footer says a column chunk's first pages start)
overwritten by one written by hand (``tests/parquet_craft.py``) with another
uncompressed or compressed size, value count, encoding or page type, bytes near a page
header or in the footer overwritten, bit flips anywhere, a region copied over another, a
truncation. The file is scored in this process under small limits (Arrow decodes it in
the reader's decoder process), and the example fails when it ends in anything but a
score or a ``ParticipantVisibleError`` (what would be exit 3), or when its time or the
peak resident memory of this process and of the decoder together is past what the limits
allow (``FACTOR`` times the time of a random Parquet submission of the limit's size plus
a fixed slack; the peak after that submission plus the contract's multiple of the limit
and a fixed slack).
A signal ends the fuzzer itself: a failure too, whose input is left in ``IN_FLIGHT``.
"""

from __future__ import annotations

import io
import resource
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import strategies as st

from scorer import HostVisibleError, ParticipantVisibleError, ReadLimits, evaluate
from tests import parquet_craft as craft
from tests.hostile import ROW_IDS, SOLUTION, VISIBLE

#: The limits every example is read under: small, so that a bomb is cut short.
LIMITS = ReadLimits(max_decompressed_bytes=16 << 20, max_field_bytes=64 << 10)
#: How many times a random file's cost an example may take, and the fixed slack on top.
FACTOR = 10.0
TIME_SLACK_SECONDS = 0.5
MEMORY_SLACK_BYTES = 64 << 20
#: What the contract lets a run hold per byte the limits let it decode.
MEMORY_PER_LIMIT_BYTE = 4


def _seed_tables() -> list[tuple[pa.Table, dict]]:
    frames = [table for repeats in (1, 40) for table in _seed_frames(repeats)]
    options = [
        {"compression": "none", "use_dictionary": False},
        {"compression": "snappy", "data_page_version": "2.0"},
        {"compression": "zstd", "row_group_size": 50, "data_page_size": 256},
        {"compression": "gzip", "write_statistics": False},
    ]
    return [(frame, option) for frame in frames for option in options]


def _seed_frames(repeats: int) -> list[pa.Table]:
    """Submissions of the hostile solution's row ids (each once: scored; or repeated)."""
    ids = ROW_IDS * repeats
    words = [" ".join(VISIBLE[: 1 + i % 4]) for i in range(len(ids))]
    lists = pa.array([VISIBLE[: i % 5] for i in range(len(ids))], pa.list_(pa.string()))
    numbers = pa.array([list(range(i % 7)) for i in range(len(ids))], pa.list_(pa.int8()))
    fixed = pa.array(
        [None if i % 9 == 0 else f"{i:04d}".encode() for i in range(len(ids))], pa.binary(4)
    )
    with_nulls = pa.array([None if i % 5 == 0 else w for i, w in enumerate(words)])
    return [
        pa.table({"customer_id": ids, "prediction": words}),
        pa.table({"customer_id": ids, "prediction": lists}),
        pa.table({"customer_id": ids, "prediction": numbers}),
        pa.table({"customer_id": ids, "prediction": fixed}),
        pa.table({"customer_id": ids, "prediction": with_nulls}),
        pa.table({"customer_id": pa.array(ids).dictionary_encode(), "prediction": words}),
    ]


@cache
def seed_files() -> list[bytes]:
    """The seeds, written once."""
    files = []
    for table, options in _seed_tables():
        sink = io.BytesIO()
        pq.write_table(table, sink, **options)
        files.append(sink.getvalue())
    return files


#: The bytes after a page's start that "header_byte" mutations overwrite: a page header
#: is a few dozen bytes long.
HEADER_WINDOW = 48


@cache
def seed_headers(index: int) -> list[int]:
    """Where a seed's column chunks start: each at a page header (the dictionary page's,
    if it has one, then the first data page's), as the footer states it."""
    meta = pq.ParquetFile(io.BytesIO(seed_files()[index])).metadata
    starts = set()
    for group in range(meta.num_row_groups):
        for column in range(meta.num_columns):
            chunk = meta.row_group(group).column(column)
            starts.add(chunk.data_page_offset)
            if chunk.has_dictionary_page:
                starts.add(chunk.dictionary_page_offset)
    return sorted(starts)


_SIZES = st.one_of(
    st.integers(-1, 64),
    st.sampled_from([0, 1, 255, 4096, 1 << 20, 1 << 24, 2**31 - 1]),
)
_MUTATIONS = st.one_of(
    st.tuples(
        st.just("header"),
        st.integers(0, 1_000),
        st.sampled_from(["uncompressed", "compressed", "num_values", "encoding", "kind"]),
        _SIZES,
    ),
    st.tuples(
        st.just("header_byte"), st.integers(0, 1_000), st.integers(0, 64), st.integers(0, 255)
    ),
    st.tuples(st.just("footer_byte"), st.integers(9, 400), st.integers(0, 255)),
    st.tuples(st.just("flip"), st.floats(0, 1), st.integers(0, 7)),
    st.tuples(st.just("splice"), st.floats(0, 1), st.floats(0, 1), st.integers(1, 64)),
    st.tuples(st.just("truncate"), st.floats(0, 1)),
)


@st.composite
def mutated_parquet(draw: st.DrawFn) -> bytes:
    """A seed file with one to four mutations."""
    index = draw(st.integers(0, len(seed_files()) - 1))
    data = bytearray(seed_files()[index])
    headers = seed_headers(index)
    for mutation in draw(st.lists(_MUTATIONS, min_size=1, max_size=4)):
        data = _mutate(data, headers, mutation)
    return bytes(data)


def _mutate(data: bytearray, headers: list[int], mutation: tuple) -> bytearray:
    kind, *args = mutation
    size = len(data)
    if not size:
        return data
    if kind == "header" and headers:
        # A hand-written page header over the one there, the rest of the page kept: the
        # sizes and counts it states are the mutation's, its encoding the seed's own.
        start = headers[args[0] % len(headers)]
        values = {"kind": 0, "uncompressed": 64, "compressed": 64, "num_values": 6}
        values |= {"encoding": 0, args[1]: args[2]}
        encoded = craft.page_header(
            values["kind"],
            values["uncompressed"],
            values["compressed"],
            values["num_values"],
            values["encoding"],
        )
        return data[:start] + encoded + data[start + len(encoded) :]
    if kind == "header_byte" and headers:
        position = headers[args[0] % len(headers)] + args[1] % HEADER_WINDOW
        if position < size:
            data[position] = args[2]
    elif kind == "footer_byte":
        data[size - min(args[0], size)] = args[1]
    elif kind == "flip":
        data[min(int(args[0] * size), size - 1)] ^= 1 << args[1]
    elif kind == "splice":
        source, target = int(args[0] * size), int(args[1] * size)
        piece = data[source : source + args[2]]
        data[target : target + len(piece)] = piece
    elif kind == "truncate":
        return data[: int(args[0] * size)]
    return data


@dataclass(frozen=True)
class Cost:
    seconds: float
    peak_bytes: int  # this process's peak resident memory and its decoders' after the run


def _score(path: Path) -> None:
    """Score the file; only a score or the participant's error may come out."""
    try:
        result = evaluate(SOLUTION, path, limits=LIMITS)
    except ParticipantVisibleError:
        return
    except HostVisibleError as error:
        raise AssertionError(f"a submission blamed the host: {error}") from error
    assert result.score is None or 0.0 <= result.score <= 1.0, result.score


def measure(data: bytes, run: Callable[[Path], None] = _score) -> Cost:
    """The CPU time of one run, this process's and its children's (the Parquet decoders,
    waited for), not wall time, which other work on the machine stretches; and the peak
    resident memory after it: this process's and the largest of its children's, added.

    The peaks only grow, so the first example to pass the allowed peak is the one that
    did. No allocator hook is swapped in and out around the run: Arrow's threads may
    free a run's buffers a moment after it returns (an in-process proxy pool and
    ``tracemalloc``, swapped so, crashed the fuzzer from one of them).
    """
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "submission.parquet"
        path.write_bytes(data)
        start = _cpu_seconds()
        run(path)
        seconds = _cpu_seconds() - start
    peaks = (
        resource.getrusage(who).ru_maxrss
        for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
    )
    return Cost(seconds, sum(peaks) * 1024)


def _cpu_seconds() -> float:
    """This process's CPU time (every thread's) and its waited-for children's."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


@cache
def random_cost() -> Cost:
    """What a random Parquet submission of about the limit's decoded size costs: its
    best time of three runs, and the process's peak after them (the baseline)."""
    rng = np.random.default_rng(0)
    rows = LIMITS.max_decompressed_bytes // 64
    ids = np.char.mod("%x", rng.integers(0, 2**62, rows)).astype(object)
    items = np.char.mod("%x", rng.integers(0, 2**40, rows)).astype(object)
    sink = io.BytesIO()
    pq.write_table(pa.table({"customer_id": ids, "prediction": items}), sink)
    runs = [measure(sink.getvalue()) for _ in range(3)]
    return Cost(min(r.seconds for r in runs), max(r.peak_bytes for r in runs))


_CHILDREN = resource.RUSAGE_CHILDREN

#: The example being checked, kept on disk: a signal ends the fuzzer without a word.
IN_FLIGHT = Path(tempfile.gettempdir()) / "rankscore-fuzz-in-flight.parquet"


def check_parquet(data: bytes) -> None:
    """Fail on anything but a score or a participant error, or a cost past the limits'."""
    IN_FLIGHT.write_bytes(data)
    allowed_seconds = FACTOR * random_cost().seconds + TIME_SLACK_SECONDS
    allowed_bytes = (
        random_cost().peak_bytes
        + MEMORY_PER_LIMIT_BYTE * LIMITS.max_decompressed_bytes
        + MEMORY_SLACK_BYTES
    )
    cost = measure(data)
    if cost.seconds <= allowed_seconds and cost.peak_bytes <= allowed_bytes:
        return
    runs = [cost, measure(data), measure(data)]  # a slow moment is not a finding
    best = Cost(min(r.seconds for r in runs), min(r.peak_bytes for r in runs))
    assert best.seconds <= allowed_seconds, (
        f"{len(data):,} bytes of Parquet took {best.seconds:.3f} s of CPU; "
        f"allowed {allowed_seconds:.3f} s"
    )
    assert best.peak_bytes <= allowed_bytes, (
        f"{len(data):,} bytes of Parquet peaked at {best.peak_bytes:,} bytes; "
        f"allowed {allowed_bytes:,}"
    )
