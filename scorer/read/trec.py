"""trec_eval's own files: each line's fields cut out of the text, its numbers read.

- A **qrels** file (the solution): ``qid iter docno rel`` on each line, no header;
  ``iter`` is ignored and a line with another number of fields is malformed. ``rel`` is
  a whole number (a sign allowed; ``-0`` is 0); a negative one marks a document in the
  pool but not judged.
- A **run** file (the submission): ``qid Q0 docno rank score tag`` on each line, no
  header; fields after the sixth are ignored. ``score`` is a finite decimal number;
  ``rank`` is ignored (trec_eval ranks by score), and ``tag`` is kept from the last
  line, as trec_eval prints it (``runid``).

As in trec_eval 10, fields are separated by runs of ASCII whitespace (space, tab, CR,
vertical tab, form feed), lines by LF, blank lines are skipped and a line whose first
field starts with ``#`` is a comment. The text is read and bounded as a CSV file's is
(:func:`scorer.read.files.read_lines_text`), then cut with numpy a block of whole lines
at a time (blocks on the thread pool): no loop over lines. The qids, docnos and the numbers
come out in file order; the qids as runs of equal adjacent values (a run file lists a
query's documents together: 7 million lines hold a few thousand runs).

Lines that are not a qrels or run line, and numbers that are not numbers, are returned
as records (:class:`~scorer.errors.Finding`, the first five line numbers and the first
line quoted), not raised, so that every problem of both files is told at once.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from scorer.arrays import parallel_map, to_arrow, to_numpy, to_strings
from scorer.constraints import DECIMAL
from scorer.errors import MAX_EXAMPLES, Finding, ScorerError, format_example
from scorer.read.files import ReadLimits, Text, read_lines_text

TrecKind = Literal["qrels", "run"]

#: The names a qrels file's kept fields go by in messages: the row id, the item, the grade.
QRELS_COLUMNS = ("qid", "docno", "rel")
#: Per kind: the number of fields a line needs, whether it may hold more, and which
#: fields are kept (qid, docno, the number).
TREC_LAYOUTS = {"qrels": (4, False, (0, 2, 3)), "run": (6, True, (0, 2, 4))}
#: Per kind: a line's fields, in words.
TREC_FORMATS = {"qrels": "qid iter docno rel", "run": "qid Q0 docno rank score tag"}
#: Per kind: the number's name and what it must be.
TREC_NUMBERS = {
    "qrels": ("rel", "a whole number of at most 18 digits"),
    "run": ("score", "a finite number"),
}
_BLOCK_BYTES = 1 << 20
_NEWLINE, _COMMENT = ord("\n"), ord("#")
#: A rel as trec_eval reads it and the scorer keeps it: a whole number that fits an int64.
WHOLE = r"^[+-]?[0-9]{1,18}$"


@dataclass(frozen=True)
class TrecFile:
    """A trec_eval file's well-formed lines, in file order.

    Attributes
    ----------
    qids : pyarrow.Array
        The qid of each run of adjacent lines with one qid (adjacent runs may repeat a
        qid: a block of lines ends a run).
    qid_ends : ndarray of int64
        Where each run ends (exclusive), counted in well-formed lines.
    docnos : pyarrow.ChunkedArray
        Each line's docno (``large_string``, a chunk per block of lines).
    values : ndarray
        Each line's ``rel`` (int64) or ``score`` (float64); 0 where it is no number.
    run_id : str
        A run's ``tag`` on its last line ("" for a qrels file).
    problems : tuple of Finding
        Malformed lines and numbers that are not numbers.
    """

    qids: pa.Array
    qid_ends: np.ndarray
    docnos: pa.ChunkedArray
    values: np.ndarray
    run_id: str
    problems: tuple[Finding, ...]

    @property
    def n_lines(self) -> int:
        """Well-formed lines."""
        return len(self.values)

    def qid_codes(self) -> np.ndarray:
        """Each line's index in :attr:`qids` (the runs expanded).

        Examples
        --------
        >>> parse_trec(b"q1 0 a 1\\nq1 0 b 0\\nq2 0 c 1\\n", "qrels").qid_codes().tolist()
        [0, 0, 1]
        """
        return np.repeat(np.arange(len(self.qid_ends)), np.diff(self.qid_ends, prepend=0))


def read_trec(
    path: str | os.PathLike,
    kind: TrecKind,
    error: type[ScorerError],
    limits: ReadLimits | None = None,
) -> TrecFile:
    """Read a qrels or run file within ``limits``.

    Raises ``error`` for what stops the file from being read at all (missing, too
    large, binary, not UTF-8, a line too long); malformed lines come back as problems.

    Examples
    --------
    >>> import os, tempfile
    >>> from scorer.errors import ParticipantVisibleError
    >>> path = os.path.join(tempfile.mkdtemp(), "run.txt")
    >>> with open(path, "w") as handle:
    ...     _ = handle.write("q1 Q0 d2 1 0.5 tag\\n# a comment\\n\\nq1 Q0 d1 2 0.25 tag\\n")
    >>> run = read_trec(path, "run", ParticipantVisibleError)
    >>> run.qids.to_pylist(), run.docnos.to_pylist(), run.values.tolist(), run.run_id
    (['q1'], ['d2', 'd1'], [0.5, 0.25], 'tag')
    """
    n_fields = TREC_LAYOUTS[kind][0]
    text, start = read_lines_text(path, error, limits, n_fields, f"a trec_eval {kind} file")
    return parse_trec(text, kind, start)


def parse_trec(text: Text, kind: TrecKind, start: int = 0) -> TrecFile:
    """Cut trec_eval text (UTF-8, already bounded) into its lines' fields.

    Examples
    --------
    >>> qrels = parse_trec(b"q1 0 d1 2\\nq1 0 d2 -1\\n q2\\t0 d3  -0 \\r\\nq3 0 d4\\n", "qrels")
    >>> qrels.qids.to_pylist(), qrels.docnos.to_pylist(), qrels.values.tolist()
    (['q1', 'q2'], ['d1', 'd2', 'd3'], [2, -1, 0])
    >>> qrels.problems
    (Finding(kind='malformed_lines', counts=(('lines', 1),), examples=("4: 'q3 0 d4'",), \
values=('qrels',)),)
    """
    view = np.frombuffer(text, dtype=np.uint8)
    bounds, begin = [], start
    while begin < len(text):
        stop = _block_end(text, begin)
        bounds.append((begin, stop))
        begin = stop
    blocks = parallel_map(lambda span: _Block.cut(view[span[0] : span[1]], kind), bounds)
    return _joined(blocks, kind)


@dataclass(frozen=True)
class _Block:
    """What one block of whole lines holds: its runs of qids, its docnos and numbers,
    and its problems by line (in the block)."""

    n_lines: int
    qids: pa.Array
    qid_ends: np.ndarray
    docnos: pa.Array
    values: np.ndarray
    run_id: str | None
    malformed: _Lines  # lines of too few (or, in qrels, too many) fields
    invalid: _Lines  # lines whose number is none

    @classmethod
    def cut(cls, block: np.ndarray, kind: TrecKind) -> _Block:
        """Cut a block of whole lines."""
        n_fields, more_allowed, (qid, docno, number) = TREC_LAYOUTS[kind]
        edges = _edges(block)  # each field's start and end, one after the other
        newlines = np.flatnonzero(block == _NEWLINE)
        if len(block) and block[-1] != _NEWLINE:
            newlines = np.append(newlines, len(block))
        before = np.searchsorted(edges, newlines, side="right")  # 2 x fields up to each end
        counts = np.diff(before, prepend=0) // 2
        first = before - 2 * counts  # each line's first edge
        lead = block[edges[np.minimum(first, len(edges) - 1)]] if len(edges) else first
        content = (counts > 0) & (lead != _COMMENT)
        fits = counts >= n_fields if more_allowed else counts == n_fields
        malformed = np.flatnonzero(content & ~fits)
        good = np.flatnonzero(content & fits)
        spans = _rows(edges, first[good], 2 * number + 2)  # each kept line's edges to its number's
        numbers = _between(block, spans[:, 2 * number : 2 * number + 2])
        values, invalid = _numbers(numbers, kind)
        run_id = None
        if kind == "run" and len(good):
            last = first[good[-1]] + 10
            run_id = bytes(block[edges[last] : edges[last + 1]]).decode()
        run_starts = _run_starts(block, spans[:, 2 * qid : 2 * qid + 2])
        run_ends = np.append(run_starts[1:], len(good)) if len(good) else run_starts
        return cls(
            len(newlines),
            _between(block, spans[run_starts, 2 * qid : 2 * qid + 2]),
            run_ends.astype(np.int64),
            _between(block, spans[:, 2 * docno : 2 * docno + 2]),
            values,
            run_id,
            _Lines.of(malformed, lambda line: _line_text(block, newlines, line)),
            _Lines.of(good[invalid], lambda line: str(numbers[int(np.searchsorted(good, line))])),
        )


@dataclass(frozen=True)
class _Lines:
    """Lines with a problem in a block: how many, and the first few's numbers (0-based,
    in the block) and texts."""

    count: int
    first: tuple[tuple[int, str], ...]

    @classmethod
    def of(cls, lines: np.ndarray, text: Callable[[int], str]) -> _Lines:
        return cls(len(lines), tuple((int(line), text(int(line))) for line in lines[:MAX_EXAMPLES]))


def _edges(block: np.ndarray) -> np.ndarray:
    """Where each field of a block starts and ends (exclusive), one after the other: the
    runs of bytes that are not ASCII whitespace (space, and tab to carriage return)."""
    space = block == 32
    space |= (block - np.uint8(9)) <= 4  # 9..13; smaller bytes wrap past 4
    return np.flatnonzero(np.diff(space, prepend=True, append=True))  # as if spaced around


def _rows(values: np.ndarray, firsts: np.ndarray, width: int) -> np.ndarray:
    """``values[first : first + width]`` for each of ``firsts``, as the rows of a new
    array: each row copied whole, as one record of a view of ``values`` whose records
    start at every element (a fancy index of ``firsts[:, None] + range(width)`` copies
    element by element, eight times slower)."""
    if len(firsts) == 0:
        return np.zeros((0, width), dtype=values.dtype)
    kind = np.dtype((np.void, values.itemsize * width))
    records = np.ndarray(
        (len(values) - width + 1,), kind, buffer=values, strides=(values.itemsize,)
    )
    return records[firsts].view(values.dtype).reshape(len(firsts), width)


def _between(text: np.ndarray, ranges: np.ndarray) -> pa.Array:
    """The strings ``text[start:end]`` of ``ranges`` (rows of start and end, in text
    order, never overlapping) as a string array: one Arrow array whose values are the
    strings and the gaps between them, of which every other value is taken (Arrow
    copies them out: none keeps the text)."""
    if len(ranges) == 0:
        return to_strings([])
    offsets = np.ascontiguousarray(ranges, dtype=np.int64).reshape(-1)
    spans = pa.Array.from_buffers(
        pa.large_string(), len(offsets) - 1, [None, pa.py_buffer(offsets), pa.py_buffer(text)]
    )
    return spans.take(to_arrow(np.arange(0, len(offsets), 2, dtype=np.int64)))


def _run_starts(block: np.ndarray, ranges: np.ndarray) -> np.ndarray:
    """Where each run of equal adjacent strings (the qids of successive lines, rows of
    start and end) starts: each compared with the next by Arrow as strings (the qids
    and the text between them, every other comparison read): exact, no copy, no hash."""
    if len(ranges) < 2:
        return np.zeros(len(ranges), dtype=np.int64)
    offsets = np.ascontiguousarray(ranges, dtype=np.int64).reshape(-1)
    spans = pa.Array.from_buffers(
        pa.large_string(), len(offsets) - 1, [None, pa.py_buffer(offsets), pa.py_buffer(block)]
    )
    differ = to_numpy(pc.not_equal(spans.slice(2), spans.slice(0, len(spans) - 2)))[0::2]
    return np.concatenate([[0], np.flatnonzero(differ) + 1]).astype(np.int64)


def _numbers(texts: pa.Array, kind: TrecKind) -> tuple[np.ndarray, np.ndarray]:
    """The numbers of a qrels' ``rel`` (int64) or a run's ``score`` (float64) fields, and
    the indices of those that are none (read as 0): a whole number with an optional sign,
    or a finite decimal number."""
    arrow_type, pattern = (pa.int64(), WHOLE) if kind == "qrels" else (pa.float64(), DECIMAL)
    try:
        values = to_numpy(pc.cast(texts, arrow_type))
        valid = np.ones(len(values), dtype=bool)
    except pa.ArrowInvalid:  # a field that is no number (or a sign Arrow does not read)
        valid = to_numpy(pc.match_substring_regex(texts, pattern), fill=False)
        signless = pc.replace_substring_regex(texts.filter(to_arrow(valid)), r"^\+", "")
        values = np.zeros(len(texts), dtype=np.int64 if kind == "qrels" else np.float64)
        values[valid] = to_numpy(pc.cast(signless, arrow_type))
    if kind == "run":
        valid &= np.isfinite(values)
    if not valid.all():
        values = np.where(valid, values, 0)
    return values, np.flatnonzero(~valid)


def _line_text(block: np.ndarray, newlines: np.ndarray, line: int) -> str:
    """Line ``line`` of a block as text (trimmed)."""
    begin = int(newlines[line - 1]) + 1 if line else 0
    return bytes(block[begin : int(newlines[line])]).decode(errors="replace").strip()


def _block_end(text: Text, begin: int) -> int:
    """The end of a block of whole lines from ``begin``: just after the first newline at
    or past ``begin + _BLOCK_BYTES``, or the end of the text (lines are bounded by the
    line limit, so a block is too)."""
    stop = begin + _BLOCK_BYTES
    if stop >= len(text):
        return len(text)
    newline = text.find(b"\n", stop)
    return len(text) if newline < 0 else newline + 1


def _joined(blocks: list[_Block], kind: TrecKind) -> TrecFile:
    """The blocks as one file: runs, docnos and numbers joined, problems numbered by
    line in the whole file."""
    firsts = np.cumsum([0] + [block.n_lines for block in blocks])
    kept = np.cumsum([0] + [len(block.values) for block in blocks])
    problems = []
    for name, finding_kind in (("malformed", "malformed_lines"), ("invalid", "invalid_numbers")):
        found = [(getattr(b, name), first) for b, first in zip(blocks, firsts[:-1], strict=True)]
        count = sum(lines.count for lines, _ in found)
        if count:
            examples = [
                f"{line + first + 1}: {format_example(words)}"
                for lines, first in found
                for line, words in lines.first
            ]
            problems.append(
                Finding(finding_kind, (("lines", count),), tuple(examples[:MAX_EXAMPLES]), (kind,))
            )
    run_ids = [block.run_id for block in blocks if block.run_id is not None]
    value_type = np.int64 if kind == "qrels" else np.float64
    return TrecFile(
        pa.concat_arrays([to_strings([])] + [block.qids for block in blocks]),
        _joined_arrays([b.qid_ends + k for b, k in zip(blocks, kept[:-1], strict=True)], np.int64),
        pa.chunked_array([block.docnos for block in blocks], pa.large_string()),
        _joined_arrays([block.values for block in blocks], value_type),
        run_ids[-1] if run_ids else "",
        tuple(problems),
    )


def _joined_arrays(arrays: list[np.ndarray], dtype: type) -> np.ndarray:
    """The arrays end to end (an empty one of ``dtype`` for none)."""
    return np.concatenate([np.zeros(0, dtype), *arrays]).astype(dtype, copy=False)
