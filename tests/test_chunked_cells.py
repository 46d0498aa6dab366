"""A wide submission's lists read in the CSV parser's chunks (never joined unless split
into strings) score, fail and warn exactly as the same lists read as one array."""

from __future__ import annotations

import itertools

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer import HostVisibleError, ParticipantVisibleError, ReadLimits, evaluate
from scorer.align import item_lists
from scorer.align.item_lists import ListCells
from scorer.check import shapes
from scorer.check.shapes import _joined_unless_read_in_chunks
from scorer.read import files
from scorer.read.files import read_table
from tests.declared import choices

# Integers (read as values), other items, and whitespace that must be rewritten.
ITEM = st.one_of(st.integers(0, 40).map(str), st.sampled_from(["07", "a", "é", "NA", "x,y", "1e3"]))
SPACE = st.sampled_from([" ", " ", " ", "  ", "\t", "\u3000"])
LIMITS = ReadLimits(max_line_bytes=160)  # a block of 2 x 160 bytes: many chunks


@st.composite
def cells(draw: st.DrawFn, max_items: int = 6) -> str:
    items = draw(st.lists(ITEM, max_size=max_items))
    text = "".join(item + draw(SPACE) for item in items)
    return draw(SPACE) + text if draw(st.booleans()) else text.rstrip(" ")


def _csv(ids: list[str], texts: list[str]) -> bytes:
    def quoted(text: str) -> str:
        return '"' + text.replace('"', '""') + '"' if "," in text else text

    rows = "".join(f"{i},{quoted(t)}\n" for i, t in zip(ids, texts, strict=True))
    return ("id,items\n" + rows).encode()


def _outcome(solution, submission, **options) -> tuple:
    try:
        result = evaluate(solution, submission, "id", limits=LIMITS, **options)
    except (ParticipantVisibleError, HostVisibleError) as exc:
        return (type(exc).__name__, str(exc))
    values = {name: [repr(x) for x in v.tolist()] for name, v in result.user_values.items()}
    warnings = tuple((w.code, w.count, w.examples) for w in result.warnings)
    return (result.metrics, result.public_score, values, warnings)


@settings(max_examples=120, deadline=None)
@given(
    data=st.data(),
    n_rows=st.integers(1, 40),
    metrics=st.sampled_from([["MAP@4"], ["R@3", "nDCG@4"], ["SetF"]]),
    extra=choices("extra_predictions"),
)
def test_lists_in_chunks_score_as_one_array(tmp_path_factory, data, n_rows, metrics, extra):
    ids = [f"u{n}" for n in range(n_rows)]
    truth = [data.draw(cells()) for _ in ids]
    predicted = [data.draw(cells(max_items=7)) for _ in ids]
    submitted = data.draw(st.permutations(ids))
    if data.draw(st.booleans()) and n_rows > 1:
        submitted[-1] = submitted[0]  # a repeated row id, and a missing one
    folder = tmp_path_factory.mktemp("chunks")
    solution, submission = folder / "solution.csv", folder / "submission.csv"
    solution.write_bytes(_csv(ids, truth))
    submission.write_bytes(_csv(submitted, [predicted[ids.index(i)] for i in submitted]))
    options = {"metrics": metrics, "k": 4, "extra_predictions": extra}
    whole = _outcome(solution, submission, **options)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(files, "_PARSE_BLOCK_BYTES", 1)  # blocks of 2 x max_line_bytes
        in_chunks = _outcome(solution, submission, **options)
    assert in_chunks == whole


def test_the_reader_keeps_the_named_column_in_the_parsers_chunks(tmp_path, monkeypatch):
    monkeypatch.setattr(files, "_PARSE_BLOCK_BYTES", 1)
    path = tmp_path / "submission.csv"
    path.write_bytes(_csv([f"u{n}" for n in range(200)], [f"{n} {n + 1}" for n in range(200)]))
    table = read_table(path, ParticipantVisibleError, LIMITS, chunked="items")
    items = table.column("items")
    assert isinstance(items, pa.ChunkedArray) and items.num_chunks > 1
    assert isinstance(table.column("id"), pa.Array)  # any other column joined
    assert items.to_pylist() == [f"{n} {n + 1}" for n in range(200)]
    joined = read_table(path, ParticipantVisibleError, LIMITS).column("items")
    assert isinstance(joined, pa.Array) and joined.equals(items.combine_chunks())


@settings(max_examples=200, deadline=None)
@given(
    texts=st.lists(st.one_of(cells(), st.none()), min_size=1, max_size=30),
    data=st.data(),
)
def test_list_cells_of_chunks_are_the_joined_cells(texts, data) -> None:
    cuts = sorted(data.draw(st.lists(st.integers(0, len(texts)), max_size=5)))
    bounds = [0, *cuts, len(texts)]
    column = pa.array(texts, pa.large_string())
    chunks = [column.slice(a, b - a) for a, b in itertools.pairwise(bounds)]
    chunked = ListCells(pa.chunked_array(chunks, pa.large_string()))
    whole = ListCells(column)
    assert np.array_equal(chunked.lengths, whole.lengths)
    assert chunked.cells.to_pylist() == whole.cells.to_pylist()
    assert chunked.split().tokens.to_pylist() == whole.split().tokens.to_pylist()
    by_value, whole_by_value = (
        ListCells(pa.chunked_array(chunks, pa.large_string())).split(integers=True),
        ListCells(column).split(integers=True),
    )
    assert (by_value.values is None) == (whole_by_value.values is None)
    if by_value.values is not None:
        assert by_value.values.tolist() == whole_by_value.values.tolist()
        assert by_value.lengths.tolist() == whole_by_value.lengths.tolist()


@pytest.mark.parametrize(
    ("cell", "stays_in_chunks"),
    [
        (lambda n: f"{n} {n % 7}", True),  # integers of several widths: read as values
        (lambda n: f"i{n} x", False),  # strings: joined once read, each chunk freed
        (lambda n: f"{n % 10} {n % 7}", False),  # one width throughout: a view of the join
    ],
    ids=["integers", "strings", "fixed width"],
)
def test_lists_stay_in_chunks_only_to_be_read_as_values(
    tmp_path, monkeypatch, cell, stays_in_chunks
):
    monkeypatch.setattr(files, "_PARSE_BLOCK_BYTES", 1)
    monkeypatch.setattr(item_lists, "FIXED_WIDTH_MIN_ROWS", 1)
    path = tmp_path / "submission.csv"
    texts = [cell(n) for n in range(300)]
    path.write_bytes(_csv([f"u{n}" for n in range(300)], texts))
    read = read_table(path, ParticipantVisibleError, LIMITS, chunked="items")
    assert read.column("items").num_chunks > 1
    table = _joined_unless_read_in_chunks(read, "items")
    items = table.column("items")
    assert isinstance(items, pa.ChunkedArray) == stays_in_chunks
    assert items.to_pylist() == texts


@pytest.mark.parametrize(
    ("options", "header", "row", "kept"),
    [
        ({}, "id,items", "{n},{n} 7", True),
        ({"empty_token": "None"}, "id,items", "{n},{n} 7", False),
        ({"metrics": ["GAP"]}, "id,items", "{n},{n} 7", False),  # label, confidence
        ({"target_type_column_name": "type"}, "id,type,items", "{n},a,{n} 7", False),
    ],
    ids=["lists", "empty token", "scored cells", "type column"],
)
def test_options_that_read_the_text_whole_never_keep_the_chunks(
    tmp_path, monkeypatch, options, header, row, kept
):
    """Where an option reads the cells' text whole, the reader joins them at once
    (each chunk freed once copied), never later beside the chunks."""
    asked, read = [], shapes.as_string_table

    def spied(*args, **kwargs):
        asked.append(kwargs.get("chunked"))
        return read(*args, **kwargs)

    monkeypatch.setattr(shapes, "as_string_table", spied)
    rows = "".join(row.format(n=n) + "\n" for n in range(50))
    (tmp_path / "s.csv").write_text(f"{header}\n{rows}")
    (tmp_path / "p.csv").write_text(f"{header}\n{rows}")
    evaluate(tmp_path / "s.csv", tmp_path / "p.csv", "id", **options)
    assert asked[-1] == ("items" if kept else None)  # the submission (the solution first)
