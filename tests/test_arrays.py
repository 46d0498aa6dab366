"""numpy <-> Arrow conversions that never import pandas."""

from __future__ import annotations

import subprocess
import sys
import threading
from unittest import mock

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scorer.arrays
from scorer.arrays import (
    first_positions,
    holds_any_byte,
    lexicographic_order,
    search_sorted,
    sort_with_order,
    to_arrow,
    to_numpy,
    to_strings,
)


@given(st.lists(st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1))), st.integers(0, 5))
def test_integers_with_nulls_and_an_offset(values: list[int | None], offset: int) -> None:
    array = pa.array(values, pa.int64()).slice(min(offset, len(values)))
    expected = [-7 if v is None else v for v in array.to_pylist()]
    assert to_numpy(array, fill=-7).tolist() == expected


@given(st.lists(st.one_of(st.none(), st.booleans())), st.integers(0, 12), st.booleans())
def test_booleans_with_nulls_and_an_offset(values, offset: int, fill: bool) -> None:
    array = pa.array(values, pa.bool_()).slice(min(offset, len(values)))
    expected = [fill if v is None else v for v in array.to_pylist()]
    assert to_numpy(array, fill=fill).tolist() == expected


@given(st.lists(st.booleans()) | st.lists(st.integers(-(2**31), 2**31 - 1)))
def test_to_arrow_round_trips(values: list) -> None:
    kind = np.bool_ if values and isinstance(values[0], bool) else np.int32
    array = np.array(values, dtype=kind)
    assert to_arrow(array).to_pylist() == values
    assert to_numpy(to_arrow(array)).tolist() == values


def test_strings() -> None:
    assert to_strings(["Public", "", "Privé"]).to_pylist() == ["Public", "", "Privé"]
    assert to_strings([]).type == pa.large_string()


def test_what_cannot_be_converted_says_so() -> None:
    with pytest.raises(ValueError, match="has nulls: give a fill value"):
        to_numpy(pa.array([1, None]))
    with pytest.raises(TypeError, match="not an Arrow array of numbers or booleans: string"):
        to_numpy(pa.array(["a"]))
    with pytest.raises(TypeError, match="no Arrow type for numpy <U1"):
        to_arrow(np.array(["a"]))


def test_none_of_them_imports_pandas() -> None:
    code = (
        "import sys, numpy as np\n"
        "from scorer.arrays import to_arrow, to_numpy, to_strings\n"
        "to_numpy(to_arrow(np.array([True, False]))); to_numpy(to_arrow(np.arange(3)))\n"
        "to_strings(['a'])\n"
        "assert 'pandas' not in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


BYTE_SETS = st.sets(st.integers(0, 255), min_size=1, max_size=4)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64), BYTE_SETS, st.integers(1, 4))
def test_holds_any_byte_is_a_search_for_each_byte(data, values, chunk):
    # Chunks of 16 to 64 bytes: the search crosses every boundary these short texts have.
    with mock.patch.object(scorer.arrays, "BLOCK_ROWS", chunk):
        found = holds_any_byte(np.frombuffer(data, dtype=np.uint8), sorted(values))
    assert found == any(bytes([value]) in data for value in values)


@settings(max_examples=200)
@given(
    st.lists(st.lists(st.text(max_size=4), max_size=5), max_size=5),
    st.lists(st.integers(0, 3), min_size=5, max_size=5),
    st.booleans(),
)
def test_joined_strings_are_the_chunks_in_order(chunks, slice_starts, with_null) -> None:
    arrays = [
        pa.array(["x", *texts], pa.large_string()).slice(1 + min(start, len(texts)))
        for texts, start in zip(chunks, slice_starts, strict=False)
    ]
    if with_null and arrays:
        arrays[-1] = pa.array([*arrays[-1].to_pylist(), None], pa.large_string())
    expected = [text for array in arrays for text in array.to_pylist()]
    joined = scorer.arrays.joined_strings(arrays)
    joined.validate(full=True)
    assert joined.to_pylist() == expected
    assert arrays == [None] * len(arrays)  # each chunk let go once copied


def test_parallel_map_keeps_the_order_and_raises_what_a_call_raises() -> None:
    assert scorer.arrays.parallel_map(lambda n: n * n, range(7)) == [n * n for n in range(7)]

    def fails_on_three(n: int) -> int:
        if n == 3:
            raise ValueError("three")
        return n

    with pytest.raises(ValueError, match="three"):
        scorer.arrays.parallel_map(fails_on_three, range(6))


def test_passes_on_every_worker_at_once_all_end() -> None:
    """A pass started on a worker (a leaderboard's submission read ahead calls passes
    of its own) takes its items itself, helped by any worker free: with every worker
    in such a pass at once, each ends, its results in order."""
    import time

    def a_pass(n: int) -> list[int]:
        return scorer.arrays.parallel_map(lambda m: time.sleep(0.01) or n * 100 + m, range(6))

    workers = max(scorer.arrays.WORKERS, 1)
    started = [scorer.arrays.submit(a_pass, n) for n in range(workers)]
    assert [found.result(timeout=60) for found in started] == [
        [n * 100 + m for m in range(6)] for n in range(workers)
    ]
    assert scorer.arrays.thread_pool() is scorer.arrays.thread_pool()


@pytest.mark.skipif(scorer.arrays.WORKERS < 2, reason="one worker: nothing to share")
def test_a_pass_on_a_worker_shares_its_items_with_a_free_worker() -> None:
    """Both items wait for each other: they end only if two threads run them at once."""
    both = threading.Barrier(2)
    ran = scorer.arrays.submit(
        scorer.arrays.parallel_map, lambda _: both.wait(timeout=30), range(2)
    ).result(timeout=60)
    assert sorted(ran) == [0, 1]


def test_a_pass_raises_its_first_items_exception_once_every_item_is_called() -> None:
    called: list[int] = []
    lock = threading.Lock()

    def fails_on_odd(n: int) -> int:
        with lock:
            called.append(n)
        if n % 2:
            raise ValueError(f"odd {n}")
        return n

    with pytest.raises(ValueError, match="odd 1"):
        scorer.arrays.parallel_map(fails_on_odd, range(8))
    assert sorted(called) == list(range(8))


def test_a_task_on_the_pool_submits_to_itself_on_its_own_thread() -> None:
    """submit() called on a worker runs there at once (a leaderboard's submission read
    ahead on the pool reads trec_eval's files with the solution's half of its own)."""
    inner = scorer.arrays.submit(
        lambda: (threading.get_ident(), scorer.arrays.submit(threading.get_ident).result())
    ).result(timeout=60)
    assert inner[0] == inner[1] != threading.get_ident()


@pytest.mark.parametrize("workers", [0, 2])
def test_work_ahead_runs_once_raises_on_asking_and_cancelled_never_runs(
    monkeypatch, workers: int
) -> None:
    monkeypatch.setattr(scorer.arrays, "WORKERS", workers)
    calls: list[int] = []

    def called(n: int) -> int:
        calls.append(n)
        if n < 0:
            raise ValueError("negative")
        return n * 2

    later = scorer.arrays.ahead(called, 4)
    assert later.result(timeout=60) == later.result(timeout=60) == 8 and calls == [4]
    with pytest.raises(ValueError, match="negative"):
        scorer.arrays.ahead(called, -1).result(timeout=60)
    if workers == 0:  # nothing runs before it is asked for, and a cancelled call never
        unasked = scorer.arrays.ahead(called, 5)
        assert calls == [4, -1] and unasked.cancel() and unasked.cancelled()
        assert calls == [4, -1]


def test_work_ahead_asked_on_a_worker_runs_when_asked() -> None:
    """On a worker (which would run it at once), the call waits to be asked for: what
    it makes is never held beside what the worker holds meanwhile."""

    def on_a_worker() -> tuple[list[str], int]:
        order: list[str] = []
        later = scorer.arrays.ahead(lambda: order.append("ahead") or 1)
        order.append("meanwhile")
        return order, later.result()

    order, value = scorer.arrays.submit(on_a_worker).result(timeout=60)
    assert (order, value) == (["meanwhile", "ahead"], 1)


def test_an_interrupt_in_a_pass_is_raised_and_stops_it() -> None:
    """An interrupt (not an Exception) is never kept as an item's outcome: it is raised,
    ahead of the other items' errors, and no item begins after it (items of 10 ms: the
    pass would take 2 s to call them all)."""
    import time

    called: list[int] = []

    def item(n: int) -> int:
        called.append(n)
        if n == 0:
            raise ValueError("an ordinary error, first in order")
        if n == 1:
            raise KeyboardInterrupt
        time.sleep(0.01)
        return n

    with pytest.raises(KeyboardInterrupt):
        scorer.arrays.parallel_map(item, range(200))
    assert len(called) < 200


def test_a_helper_that_cannot_start_never_runs_later(monkeypatch) -> None:
    """The pool queues a task before it starts the thread for it: a task whose thread
    could not start does nothing when a worker comes to it."""
    queued = []

    class StartsNoThread:
        def submit(self, function, *args):
            queued.append((function, args))
            raise RuntimeError("can't start new thread")

    calls: list[int] = []
    monkeypatch.setattr(scorer.arrays, "thread_pool", StartsNoThread)
    with pytest.raises(MemoryError, match="no memory for a thread"):
        scorer.arrays.parallel_map(calls.append, range(5))
    for function, args in queued:  # a worker comes to each queued task at last
        function(*args)
    assert calls == []


def test_a_thread_the_system_cannot_start_is_out_of_memory(monkeypatch) -> None:
    class NoThreads:
        def submit(self, *args: object) -> None:
            raise RuntimeError("can't start new thread")

    monkeypatch.setattr(scorer.arrays, "thread_pool", NoThreads)
    with pytest.raises(MemoryError, match="no memory for a thread"):
        scorer.arrays.parallel_map(abs, [1, 2])


#: int64 values that reach every 16-bit leading part, the extremes and equal neighbours.
_WIDE = st.integers(-(2**63), 2**63 - 1) | st.sampled_from([-(2**63), -1, 0, 1, 2**63 - 1])


@settings(max_examples=200, deadline=None)
@given(st.lists(_WIDE, max_size=40), st.lists(_WIDE, max_size=40))
def test_search_sorted_finds_what_searchsorted_finds(haystack: list[int], needles: list[int]):
    """Needles searched in the order of their leading bits land where numpy's search
    puts them in the order given, for any needles, repeated ones and extremes included."""
    sorted_values = np.sort(np.array(haystack, dtype=np.int64))
    found = np.array(needles, dtype=np.int64)
    expected = np.searchsorted(sorted_values, found)
    assert search_sorted(sorted_values, found).tolist() == expected.tolist()


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 2**62).flatmap(
        lambda span: st.tuples(
            st.just(span),
            st.lists(st.integers(0, span - 1), max_size=40),
            st.lists(st.integers(0, span - 1), max_size=40),
        )
    ),
    st.sampled_from([np.int32, np.int64]),
)
def test_search_sorted_within_a_span_finds_what_searchsorted_finds(case, dtype) -> None:
    """Needles in [0, span) (packed keys, int32 when they fit), for spans from 1 to
    2**62: the positions numpy's search gives in the order given."""
    span, haystack, needles = case
    if dtype is np.int32 and span > 2**31:
        span, haystack, needles = 2**31, [h % 2**31 for h in haystack], [n % 2**31 for n in needles]
    sorted_values = np.sort(np.array(haystack, dtype=dtype))
    found = np.array(needles, dtype=dtype)
    expected = np.searchsorted(sorted_values, found)
    assert search_sorted(sorted_values, found, span=span).tolist() == expected.tolist()


#: Values that differ only in their lowest bits (where the sort puts each one's index),
#: around wide ones and the extremes.
_NEAR = st.builds(lambda high, low: (high << 20) + low, st.integers(-(2**43), 2**43 - 1),
                  st.integers(0, 2**20 - 1))  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(_WIDE | _NEAR | st.integers(-3, 3), max_size=60), st.randoms())
def test_sort_with_order_is_numpys_stable_argsort(values: list[int], rng) -> None:
    """The order is numpy's stable argsort and the values end sorted, for values
    spread wide, sharing all but their lowest bits, small or repeated."""
    values += [rng.choice(values) for _ in range(len(values) // 2)] if values else []
    given_values = np.array(values, dtype=np.int64)
    sorted_values = given_values.copy()
    order = sort_with_order(sorted_values)
    assert order.tolist() == np.argsort(given_values, kind="stable").tolist()
    assert sorted_values.tolist() == sorted(values)


def _several_blocks() -> list[np.ndarray]:
    """More values than a block: spread with runs that share all but the index's bits;
    all equal (in order once each carries its index); all equal but the last, smaller."""
    rng = np.random.default_rng(3)
    n = scorer.arrays.BLOCK_ROWS * 2 + 7
    spread = rng.integers(-(2**63), 2**63 - 1, n, dtype=np.int64)
    spread[::3] = spread[::3] >> 40 << 40
    spread[1::5] = spread[0]
    equal = np.full(n, 7, dtype=np.int64)
    falling_last = equal.copy()
    falling_last[-1] = 7 - 2**40  # smaller beyond the index's bits
    return [spread, equal, falling_last]


@pytest.mark.parametrize("given_values", _several_blocks(), ids=["spread", "equal", "last falls"])
def test_sort_with_order_over_several_blocks(given_values: np.ndarray) -> None:
    sorted_values = given_values.copy()
    order = sort_with_order(sorted_values)
    assert order.dtype == np.int32
    assert np.array_equal(order, np.argsort(given_values, kind="stable"))
    assert np.array_equal(sorted_values, np.sort(given_values))


@given(st.lists(st.integers(-3, 3)) | st.lists(st.integers(-(2**63), 2**63 - 1), max_size=5))
def test_first_positions_are_numpys_search_of_the_keys_themselves(keys: list[int]) -> None:
    ordered = np.sort(np.array(keys, dtype=np.int64))
    assert first_positions(ordered).tolist() == np.searchsorted(ordered, ordered).tolist()


_KEYS = st.lists(st.integers(-3, 3), min_size=1) | st.lists(
    st.integers(-(2**62), 2**62), min_size=1, max_size=6
)


@given(st.lists(_KEYS, min_size=1, max_size=3))
def test_lexicographic_order_is_numpys_lexsort(first: list[list[int]]) -> None:
    n = len(first[0])
    keys = [np.array(first[0], dtype=np.int64)]
    for values in first[1:]:
        keys.append(np.array((values * n)[:n], dtype=np.int64))
    assert lexicographic_order(*keys).tolist() == np.lexsort(keys[::-1]).tolist()


#: Strings that share their first 8 bytes or fewer, end within them, hold zero bytes or
#: characters of several bytes.
_NEAR_STRINGS = st.lists(
    st.sampled_from(
        ["", "a", "ab", "abcdefgh", "abcdefg\x00", "abcdefgh\x00", "é", "\x00"]
    ).flatmap(lambda head: st.text(alphabet="ab\x00é", max_size=3).map(lambda rest: head + rest)),
    max_size=40,
)


@settings(max_examples=300, deadline=None)
@given(_NEAR_STRINGS, st.integers(0, 3))
def test_byte_order_is_arrows_sort(strings: list[str], offset: int) -> None:
    array = pa.array(["x"] * offset + strings, pa.string()).slice(offset)
    expected = pc.sort_indices(array).to_pylist()
    assert scorer.arrays.byte_order(array).tolist() == expected
    assert scorer.arrays.byte_order(array.cast(pa.large_string())).tolist() == expected


def test_byte_order_takes_chunks() -> None:
    chunked = pa.chunked_array([["b", "a"], [], ["abcdefgh1", "abcdefgh0"]])
    assert scorer.arrays.byte_order(chunked).tolist() == [1, 3, 2, 0]


def test_byte_order_takes_no_null() -> None:
    with pytest.raises(ValueError, match="without nulls"):
        scorer.arrays.byte_order(pa.array(["a", None]))
