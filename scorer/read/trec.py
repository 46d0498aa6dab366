"""trec_eval's own files, read as long tables of strings.

- A **qrels** file (the solution): ``qid iter docno rel`` on each line, no header;
  ``iter`` is ignored, and a line with more than four fields is malformed. A negative
  ``rel`` marks a document in the pool but not judged: trec_eval counts it neither as
  relevant nor as judged (only infAP reads it), so its line is set apart
  (:attr:`TrecTable.unjudged`).
- A **run** file (the submission): ``qid Q0 docno rank score tag`` on each line, no
  header; fields after the sixth are ignored, and a line whose first field starts
  with ``#`` is a comment. The ``rank`` field is ignored: trec_eval ranks each query's
  documents by score, higher first, and equal scores by docno in *descending* byte
  order (``comp_sim_docno`` in its ``form_res_rels.c``), which
  :func:`scorer.align.long_layout.long_to_wide` reproduces with ``ties="descending"``.

As in trec_eval, fields are separated by runs of ASCII whitespace (space, tab, CR,
vertical tab, form feed), lines by LF, and blank lines are skipped. The text is read
and bounded as a CSV file's is (:func:`scorer.read.files.read_lines_text`), then split
with numpy a block of lines at a time and cut into strings by Arrow: no loop over
lines. Malformed lines are returned as a record (:class:`~scorer.errors.Finding`: their
count and the smallest of their first fields, the qids, in byte order), not raised: a
run scored in parts, each part a file of its own, then says what the whole run says,
where line numbers would be the part files' own.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from scorer.arrays import to_arrow, to_numpy
from scorer.errors import Finding, ScorerError, smallest_of, smallest_values
from scorer.read.columns import StringTable
from scorer.read.files import ReadLimits, Text, read_lines_text

TrecKind = Literal["qrels", "run"]

#: The columns of the long tables: the row id, the item, and the grade or score.
QRELS_COLUMNS = ("qid", "docno", "rel")
RUN_COLUMNS = ("qid", "docno", "score")
#: Per kind: the number of fields a line needs, whether it may hold more, and which
#: fields are kept (row id, item, value).
TREC_LAYOUTS = {"qrels": (4, False, (0, 2, 3)), "run": (6, True, (0, 2, 4))}
#: Per kind: a line's fields, in words.
TREC_FORMATS = {"qrels": "qid iter docno rel", "run": "qid Q0 docno rank score tag"}
_BLOCK_BYTES = 1 << 20
_SPACE = np.zeros(256, dtype=bool)
_SPACE[[ord(" "), ord("\t"), ord("\n"), ord("\r"), 0x0B, 0x0C]] = True
_NEWLINE, _COMMENT = ord("\n"), ord("#")


@dataclass(frozen=True)
class TrecTable:
    """A trec_eval file as a long table of strings.

    Attributes
    ----------
    table : StringTable
        :data:`QRELS_COLUMNS` or :data:`RUN_COLUMNS`, one row per well-formed line.
    problems : tuple of Finding
        Malformed lines (the count, the smallest qids: their first fields).
    n_unjudged : int
        Qrels lines with a negative ``rel`` (in the pool, not judged), not in ``table``.
    unjudged : StringTable, optional
        Those lines' ``qid`` and ``docno`` (a qrels file's).
    """

    table: StringTable
    problems: tuple[Finding, ...]
    n_unjudged: int = 0
    unjudged: StringTable | None = None


def read_trec(
    path: str | os.PathLike,
    kind: TrecKind,
    error: type[ScorerError],
    limits: ReadLimits | None = None,
) -> TrecTable:
    """Read a qrels or run file within ``limits``.

    Raises ``error`` for what stops the file from being read at all (missing,
    too large, binary, not UTF-8, a line too long); malformed lines come back as
    problems.

    Examples
    --------
    >>> import os, tempfile
    >>> from scorer.errors import ParticipantVisibleError
    >>> path = os.path.join(tempfile.mkdtemp(), "run.txt")
    >>> with open(path, "w") as handle:
    ...     _ = handle.write("q1 Q0 d2 1 0.5 tag\\n# a comment\\n\\nq1 Q0 d1 2 0.25 tag\\n")
    >>> run = read_trec(path, "run", ParticipantVisibleError)
    >>> [run.table.column(name).to_pylist() for name in run.table.names]
    [['q1', 'q1'], ['d2', 'd1'], ['0.5', '0.25']]
    """
    n_fields = TREC_LAYOUTS[kind][0]
    text, start = read_lines_text(path, error, limits, n_fields, f"a trec_eval {kind} file")
    return parse_trec(text, kind, start)


def parse_trec(text: Text, kind: TrecKind, start: int = 0) -> TrecTable:
    """Split trec_eval text (UTF-8, already bounded) into a long table.

    Examples
    --------
    >>> qrels = parse_trec(b"q1 0 d1 2\\nq1 0 d2 -1\\n q2\\t0 d3  0 \\r\\nq3 0 d4\\n", "qrels")
    >>> [qrels.table.column(name).to_pylist() for name in qrels.table.names]
    [['q1', 'q2'], ['d1', 'd3'], ['2', '0']]
    >>> qrels.n_unjudged, qrels.problems
    (1, (Finding(kind='malformed_lines', counts=(('lines', 1),), examples=('q3',), \
values=('qrels',)),))
    >>> [qrels.unjudged.column(name).to_pylist() for name in qrels.unjudged.names]
    [['q1'], ['d2']]
    """
    n_fields, more_allowed, kept = TREC_LAYOUTS[kind]
    view = np.frombuffer(text, dtype=np.uint8)[start:]
    blocks = _Blocks(n_fields, more_allowed, kind == "run", kept)
    begin = start
    while begin < len(text):
        stop = _block_end(text, begin)
        blocks.add(view[begin - start : stop - start], begin - start)
        begin = stop
    columns = _cut(view, blocks.bounds(), len(kept))
    names = QRELS_COLUMNS if kind == "qrels" else RUN_COLUMNS
    if kind == "run":
        return TrecTable(StringTable(names, tuple(columns)), blocks.problems(kind))
    # A negative rel: in the pool but not judged; the line is set apart.
    negative = to_numpy(pc.match_substring_regex(columns[2], "^-0*[1-9]"), fill=False)
    unjudged = StringTable(names[:2], tuple(c.filter(to_arrow(negative)) for c in columns[:2]))
    judged = tuple(column.filter(to_arrow(~negative)) for column in columns)
    n_unjudged = int(np.count_nonzero(negative))
    return TrecTable(StringTable(names, judged), blocks.problems(kind), n_unjudged, unjudged)


class _Blocks:
    """The kept fields' byte ranges of well-formed lines, and the malformed lines,
    gathered a block of whole lines at a time."""

    def __init__(
        self, n_fields: int, more_allowed: bool, comments: bool, kept: tuple[int, ...]
    ) -> None:
        self.n_fields, self.more_allowed, self.comments, self.kept = (
            n_fields,
            more_allowed,
            comments,
            kept,
        )
        self.ranges: list[np.ndarray] = []
        self.n_malformed = 0
        self.examples: tuple[str, ...] = ()

    def add(self, block: np.ndarray, offset: int) -> None:
        """Split one block of whole lines starting at byte ``offset``."""
        space = _SPACE[block]
        newlines = np.flatnonzero(block == _NEWLINE)
        n_lines = len(newlines) + (0 if len(block) and block[-1] == _NEWLINE else 1)
        before = np.empty(len(block), dtype=bool)
        before[:1] = True
        before[1:] = space[:-1]
        starts = np.flatnonzero(~space & before)
        after = np.empty(len(block), dtype=bool)
        after[-1:] = True
        after[:-1] = space[1:]
        ends = np.flatnonzero(~space & after) + 1
        del space, before, after
        line = np.searchsorted(newlines, starts)
        counts = np.bincount(line, minlength=n_lines)
        first_of_line = np.cumsum(counts) - counts
        field = np.arange(len(starts)) - first_of_line[line]
        blank = counts == 0
        if self.comments:
            comment = np.zeros(n_lines, dtype=bool)
            has = ~blank
            comment[has] = block[starts[first_of_line[has]]] == _COMMENT
            blank |= comment
        fits = counts >= self.n_fields if self.more_allowed else counts == self.n_fields
        malformed = ~blank & ~fits
        if malformed.any():
            self.n_malformed += int(np.count_nonzero(malformed))
            first = first_of_line[malformed]  # a malformed line is not blank: it has one
            qids = _cut(block, np.stack([starts[first], ends[first]], axis=1), 1)[0]
            self.examples = smallest_of(self.examples, smallest_values(qids))
        good = fits & ~blank
        chosen = good[line] & np.isin(field, self.kept)
        self.ranges.append(np.stack([starts[chosen], ends[chosen]], axis=1) + offset)

    def bounds(self) -> np.ndarray:
        """The (start, stop) byte range of every kept field, in text order."""
        if not self.ranges:
            return np.zeros((0, 2), dtype=np.int64)
        return np.concatenate(self.ranges).astype(np.int64, copy=False)

    def problems(self, kind: TrecKind) -> tuple[Finding, ...]:
        """The malformed lines as a record (none when every line is well formed)."""
        if not self.n_malformed:
            return ()
        return (Finding("malformed_lines", (("lines", self.n_malformed),), self.examples, (kind,)),)


def _block_end(text: Text, begin: int) -> int:
    """The end of a block of whole lines from ``begin``: just after the first newline
    at or past ``begin + _BLOCK_BYTES``, or the end of the text (one ``memchr``, which
    stops at that newline: lines are bounded by the line limit)."""
    stop = begin + _BLOCK_BYTES
    if stop >= len(text):
        return len(text)
    newline = text.find(b"\n", stop)
    return len(text) if newline < 0 else newline + 1


def _cut(view: np.ndarray, bounds: np.ndarray, n_columns: int) -> list[pa.Array]:
    """The strings at the byte ranges ``bounds`` (in text order, fields of a line
    together), as ``n_columns`` columns: one Arrow string array whose values are the
    fields and the gaps between them, of which every other value is taken (Arrow
    copies them out, so no column keeps the text alive)."""
    if len(bounds) == 0:
        return [pa.array([], pa.large_string()) for _ in range(n_columns)]
    offsets = np.ascontiguousarray(bounds.reshape(-1))
    spans = pa.Array.from_buffers(
        pa.large_string(),
        len(offsets) - 1,
        [None, pa.py_buffer(offsets), pa.py_buffer(view)],
    )
    n_lines = len(bounds) // n_columns
    fields = np.arange(n_lines, dtype=np.int64) * n_columns
    return [spans.take(to_arrow(2 * (fields + column))) for column in range(n_columns)]
