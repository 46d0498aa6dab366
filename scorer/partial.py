"""A run scored in parts, exactly: :func:`partition`, :func:`score_part`, :func:`merge`,
:func:`finish`.

A run too large for one process is split by row id (:func:`partition`, the same
function for both inputs; :func:`split_by_part` gathers an Arrow table's parts one at
a time), each part is scored alone (:func:`score_part`) into a
:class:`Partial` of a few kilobytes, the partials are added up (:func:`merge`, in any
order and grouping) and the sum is put into words (:func:`finish`): the same
:class:`~scorer.result.ScoreResult` as :func:`scorer.evaluate` on the whole data,
value for value (``==``), with the same warnings and, for invalid input, the same
error and message (docs/beyond-one-machine.md, "Beyond one machine").

Why the values agree: every user's value is computed from that user's row alone
(exact or float by the measure's cut-off, never by the data), and a partial holds,
per measure and split, the exact integer sums of those values by denominator (or,
for float64 values, of their integer mantissas by binary exponent) and the count of
users. Integer addition is associative and commutative, so the merged sums are the
whole run's sums whatever the split; :func:`finish` divides once, rounding once, as
:func:`scorer.evaluate` does.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from fractions import Fraction
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from scorer.align.joins import string_prints
from scorer.align.target_types import TargetTypes
from scorer.arrays import one_chunk, string_bytes, string_offsets, to_arrow
from scorer.check.findings import (
    MAX_EXPONENTIAL_GRADE,
    MAX_GRADE,
    PROBLEMS,
    WARNING_WORDS,
    Wording,
    merge_findings,
    problems,
    raise_findings,
)
from scorer.check.shapes import read_solution
from scorer.check.trec import qrels_queries
from scorer.check.validate import (
    SOLUTION,
    SUBMISSION,
    grade_columns,
    solution_columns,
    wording,
)
from scorer.constraints import Interval as Bounds
from scorer.errors import (
    MAX_EXAMPLES,
    Finding,
    HostVisibleError,
    ParticipantVisibleError,
    ScorerError,
)
from scorer.measures import Measure, parse_all
from scorer.measures.exact_means import ExactSums, MicroRatios, MicroSums
from scorer.options import DEFAULTS, Options, format_defaults, row_bound, takes_options
from scorer.pipeline import (
    Inputs,
    Means,
    align,
    hits_at_rank_length,
    keeps_candidates,
    leaderboard_keys,
    options_and_measures,
    read_and_check,
    refuse_empty_solution,
    row_findings,
    run_findings,
    score_warnings,
    split_findings,
    trec_options,
    unjudged_lines_warnings,
)
from scorer.policy import (
    SPLITS,
    no_scorable_user,
    sort_users,
    split_labels,
    type_weights,
    weighted_type_means,
)
from scorer.read.columns import to_string_array
from scorer.read.files import ReadLimits
from scorer.read.inputs import TableLike, as_string_table, cell_refusals
from scorer.read.trec import QRELS_COLUMNS
from scorer.result import ScoreResult
from scorer.stats.intervals import Interval
from scorer.stats.poisson import ReplicateSums, mix, ratios, weighted_sums
from scorer.stats.resampling import check_settings, percentile_interval

#: The version of a partial's JSON form; :meth:`Partial.from_json` refuses others.
VERSION = 1

# Where a part's input was found invalid, in the order evaluate raises: the
# solution's rows (host), the submission (participant), the solution's grades (host).
_SOLUTION_ROWS, _SUBMISSION, _GRADES = 1, 2, 3
_GRADE_KINDS = frozenset({"grades_mismatch", "invalid_grades", "exponential_grades"})


def partition(
    row_ids: Any, n_parts: int, seed: int = 0, *, type_separator: str | None = None
) -> np.ndarray:
    """Each row id's part, in ``0 .. n_parts - 1``, the same on every machine and run.

    The part is a fixed 64-bit hash (numpy arithmetic on the UTF-8 bytes, a word at
    a time; never Python's ``hash``, which is salted per process) of the row id's
    *normalised* form: lower case, without leading whitespace or zeros, without
    trailing whitespace, zeros or dots. So the ids a near-miss hint pairs (``' u1'``
    and ``'u1'``, ``'U1'``, ``'0001'`` and ``'1'``, ``'7.0'`` and ``'7'``) share a
    part, and the hint is the one a single run gives (ids that merely normalise alike,
    ``'10'`` and ``'1'``, share a part too, which is harmless). Integer ids hash as
    their decimal text, as :func:`scorer.evaluate` compares them; a missing id as the
    empty one. The seed is public unless the host keeps it: a secret seed stops a
    submission from crowding its rows into one part.

    Parameters
    ----------
    row_ids : sequence, pandas Series, numpy or Arrow array
        The row-id column of the solution or of the submission.
    n_parts : int
        The number of parts, at least 1.
    seed : int, default 0
        Another seed gives another, equally stable, split.
    type_separator : str, optional
        The run's ``row_id_type_separator``: each id is cut at its last separator and
        only the row id before it is hashed, so that the target types of one row id
        (``42_clicks``, ``42_orders``) share a part.

    Returns
    -------
    ndarray of int64

    Examples
    --------
    >>> partition(["u1", " U1", "U1 ", "u3", "7", 7, "7.0", "007"], 4).tolist()
    [3, 3, 3, 0, 3, 3, 3, 3]
    >>> partition(["u1_clicks", "u1_orders", "u1"], 4, type_separator="_").tolist()
    [3, 3, 3]
    """
    Bounds(int, 1, MAX_PARTS).check("n_parts", n_parts)
    return (_id_prints(row_ids, seed, type_separator) % np.uint64(n_parts)).astype(np.int64)


#: The most parts :func:`partition` makes: a part is an int64.
MAX_PARTS = 2**63 - 1


def split_by_part(table: pa.Table, parts: Any, n_parts: int) -> Iterator[pa.Table]:
    """The table's rows of each part, in their order, one part at a time:
    ``table.filter(parts == p)`` for ``p`` in ``0 .. n_parts - 1``, cheaper.

    The table's columns are made one chunk each once (one copy; a lone chunk is kept as
    it is), the rows sorted by part once (a stable radix sort of the part numbers),
    and each part gathered when the iteration reaches it (one ``take`` of its rows),
    its every column one chunk that :func:`score_part` reads without copying it again.
    Only the part in hand is held, so that parts scored one after another reuse one
    part's memory. A filter per part scans the whole table each time, and its part
    keeps the table's many chunks, which :func:`score_part` then combines in a copy.

    Parameters
    ----------
    table : pyarrow.Table
        The rows to split (a solution, a submission or a candidates table).
    parts : array-like of int
        Each row's part, as :func:`partition` gives it for the table's row-id column.
    n_parts : int
        The number of parts, as given to :func:`partition`.

    Yields
    ------
    pyarrow.Table
        ``n_parts`` tables with the table's columns (an empty one for a part without
        rows).

    Raises
    ------
    HostVisibleError
        ``parts`` is not one part in ``0 .. n_parts - 1`` per row (raised when the
        first part is asked for).

    Examples
    --------
    >>> table = pa.table({"id": ["u1", "u2", "u3", "u4"], "items": ["a", "b", "c", "d"]})
    >>> [part.column("id").to_pylist() for part in split_by_part(table, [1, 0, 1, 1], 3)]
    [['u2'], ['u1', 'u3', 'u4'], []]
    """
    found = np.asarray(parts)
    _check_parts(found, table.num_rows, n_parts)
    found = found.astype(np.int64, copy=False)
    # Part numbers in the narrowest type: numpy's stable sort of 8- or 16-bit integers
    # is a radix sort, linear in the rows.
    narrow = np.uint8 if n_parts <= 2**8 else np.uint16 if n_parts <= 2**16 else np.int64
    order = np.argsort(found.astype(narrow), kind="stable")
    if len(order) <= 2**32:
        order = order.astype(np.uint32)  # Arrow's take is faster with narrower indices
    ordered = found[order]  # each part's rows side by side, found by binary search
    # Arrow's take of a chunked column combines its chunks first, every time: once here.
    whole = pa.Table.from_arrays(
        [one_chunk(column) for column in table.columns], schema=table.schema
    )
    for part in range(n_parts):
        start, stop = np.searchsorted(ordered, [part, part + 1]).tolist()
        yield whole.take(to_arrow(order[start:stop]))


def _check_parts(parts: np.ndarray, n_rows: int, n_parts: int) -> None:
    """Refuse parts that are not one integer in ``0 .. n_parts - 1`` per row."""
    Bounds(int, 1, MAX_PARTS).check("n_parts", n_parts)
    fits = (
        parts.ndim == 1
        and len(parts) == n_rows
        and (parts.dtype.kind in "iu" or (len(parts) == 0 and parts.dtype.kind == "f"))
        and (len(parts) == 0 or (int(parts.min()) >= 0 and int(parts.max()) < n_parts))
    )
    if not fits:
        raise HostVisibleError(
            f"The 'parts' parameter must hold one part in 0 .. {n_parts - 1} per row of the "
            f"table ({n_rows} rows), as partition(row_ids, {n_parts}) gives it. Got "
            f"{len(parts) if parts.ndim == 1 else parts.shape} values of type {parts.dtype} "
            "instead."
        )


def _id_prints(row_ids: Any, seed: int, type_separator: str | None) -> np.ndarray:
    """The fixed 64-bit fingerprint of each normalised row id (:func:`partition`)."""
    key = (_PRINT_MULTIPLIER, (seed * 0xD1B54A32D192ED03 + 0x632BE59BD9B4E019) % 2**64)
    chunks = row_ids.chunks if isinstance(row_ids, pa.ChunkedArray) else [row_ids]
    if not all(isinstance(chunk, pa.Array) and _is_text(chunk) for chunk in chunks):
        with cell_refusals(HostVisibleError, "The row-id column"):
            chunks = [to_string_array(row_ids)]  # integers as their text, as evaluate reads
    hashes = np.empty(sum(len(chunk) for chunk in chunks), dtype=np.uint64)
    done = 0
    for piece in _pieces(chunks):
        normal = _normalised(_bare(pc.fill_null(piece, ""), type_separator))
        prints = string_prints(normal, key).view(np.uint64)  # type: ignore[union-attr]
        hashes[done : done + len(normal)] = mix(prints)
        done += len(normal)
    return hashes


#: Rows :func:`_id_prints` hashes at a time: a CSV reader's blocks (some 8,000 rows of
#: 64-character ids) joined, so that each pass's fixed cost is paid a few times, not
#: hundreds; a few MiB, so that the joined copy and the temporaries stay small.
_PIECE_ROWS = 1 << 16


def _pieces(chunks: Sequence[pa.Array]) -> Iterator[pa.Array]:
    """The chunks' ids in order, as arrays of ``_PIECE_ROWS`` to ``2 * _PIECE_ROWS``
    rows (the last one fewer): small chunks joined, large ones cut.

    Examples
    --------
    >>> chunks = [pa.array(["a"] * 40_000), pa.array(["b"] * 200_000)]
    >>> [len(piece) for piece in _pieces(chunks)]
    [105536, 65536, 65536, 3392]
    """
    group: list[pa.Array] = []
    held = 0
    for chunk in chunks:
        for start in range(0, len(chunk), _PIECE_ROWS):
            group.append(chunk.slice(start, _PIECE_ROWS))
            held += len(group[-1])
            if held >= _PIECE_ROWS:
                yield group[0] if len(group) == 1 else pa.concat_arrays(group)
                group, held = [], 0
    if group:
        yield group[0] if len(group) == 1 else pa.concat_arrays(group)


# Whitespace as Python's str.split() knows it: the ASCII characters, then the others.
_ASCII_SPACE = " \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f"
_SPACE = (
    _ASCII_SPACE
    + "\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    + ("\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
)
# A fixed odd multiplier: the parts must be the same in every process (string_prints'
# own keys are drawn at random, for tables a participant must not predict).
_PRINT_MULTIPLIER = 0x9FB21C651E98DF25


def _bare(ids: pa.Array, separator: str | None) -> pa.Array:
    """The ids cut at their last ``separator`` (the row id without its target type);
    an id without one whole."""
    if not separator:
        return ids
    pieces = pc.split_pattern(ids, pattern=separator, max_splits=1, reverse=True)
    return pc.list_element(pieces, 0)


def _is_text(array: pa.Array) -> bool:
    return pa.types.is_string(array.type) or pa.types.is_large_string(array.type)


def _normalised(ids: pa.Array) -> pa.Array:
    """Lower case, without leading whitespace or zeros, without trailing whitespace,
    zeros or dots: ids that differ only by what a near-miss hint repairs are equal
    here (each repair's result normalises as the id itself does). ASCII ids (the usual
    case) take Arrow's ASCII kernels, others its Unicode ones; both give the same.

    Examples
    --------
    >>> ids = [" U10 ", "0u1", "u1", "7.00", "007", "É0 1", "0 7"]
    >>> _normalised(pa.array(ids, pa.large_string())).to_pylist()
    ['u1', 'u1', 'u1', '7', '7', 'é0 1', '7']
    """
    # Made large_string first (Arrow widens the offsets and keeps the bytes), so that
    # every kernel's result is one already.
    ids = ids.cast(pa.large_string())
    offsets = string_offsets(ids)
    if ids.offset or (offsets is not None and len(offsets) and offsets[0]):
        # pyarrow 26's ascii_lower misreads strings whose bytes do not start the buffer
        # (a piece of a chunk: "0" became "\x00"): a copy that starts it.
        ids = pa.concat_arrays([ids])
    data = string_bytes(ids)
    if data is not None and (len(data) == 0 or int(data.max()) < 128):
        lower = pc.ascii_lower(ids)
        left = pc.ascii_ltrim(lower, characters=_ASCII_SPACE + "0")
        return pc.ascii_rtrim(left, characters=_ASCII_SPACE + "0.")
    left = pc.utf8_ltrim(pc.utf8_lower(ids), characters=_SPACE + "0")
    return pc.utf8_rtrim(left, characters=_SPACE + "0.")


@dataclass(frozen=True)
class TypeSums:
    """One target type's share of a partial: its scored rows per split label and each
    measure's exact sums over them (added up as :class:`Partial`'s are)."""

    counts: tuple[int, ...]
    sums: dict[str, ExactSums | MicroSums]

    def plus(self, other: TypeSums) -> TypeSums:
        """Both parts' rows of the type together."""
        counts = tuple(a + b for a, b in zip(self.counts, other.counts, strict=True))
        return TypeSums(counts, _merged(self.sums, other.sums))

    def exact_means(self) -> tuple[dict[str, Fraction | None], dict[str, list[Fraction | None]]]:
        """Each measure's exact value over the type's scored rows, and per split label."""
        overall, by_label = {}, {}
        for name, sums in self.sums.items():
            by_label[name] = sums.exact_means(list(self.counts))
            overall[name] = sums.merged().exact_means([sum(self.counts)])[0]
        return overall, by_label


@dataclass(frozen=True)
class Partial:
    """What one part of a run (or several, merged) contributes: counts and exact sums.

    Attributes
    ----------
    settings : dict
        The options, the measures and the column names: equal in every part of a run
        (:attr:`fingerprint`), checked by :func:`merge`.
    stage : int
        0 when the part was scored; else where its input was found invalid (1: the
        solution's rows, 2: the submission, 3: the solution's grades), the earliest of
        the merged parts'.
    problems : tuple of Finding
        The problems found at ``stage``.
    notes : tuple of Finding
        Cells spanning several lines: a problem only beside missing rows.
    warnings : tuple of Finding
        The warnings about rows.
    counts : dict of str to int
        ``n_users``, ``n_skipped``, ``n_ignored``, ``width`` (the widest ranking) and
        the scored users per split label (``label_0``: Public, or every scored user
        without ``Usage``; ``label_1``: Private).
    sums : dict of str to ExactSums or MicroSums
        Per measure, the exact sums of the scored users' values per split label (a
        measure with ``avg=micro``: its numerators' and denominators' sums).
    hits_at_rank : tuple of int
        Per rank, the scored users with a credited hit there (trailing zeros cut).
    max_grades : tuple of int
        The largest grades ERR and nERR took as their default ``max_grade`` (each part
        its own; :func:`finish` refuses parts that disagree).
    types : dict of str to TypeSums
        With target types, per type (those of the part's solution) its scored rows
        and each measure's exact sums, per split label.
    replicates : dict of str to tuple of ReplicateSums
        With ``resamples``: per split label and Poisson replicate, the exact weighted
        sums (``""``: of the weights; a measure's name: of its values, or of its
        numerators and denominators with ``avg=micro``; with target types, each key
        prefixed by the type and a line break).
    parts : tuple of str
        A digest of each part's solution row ids (none for a part without rows):
        :func:`merge` refuses partials that share one, a part counted twice.
    """

    settings: dict[str, Any]
    stage: int = 0
    problems: tuple[Finding, ...] = ()
    notes: tuple[Finding, ...] = ()
    warnings: tuple[Finding, ...] = ()
    counts: dict[str, int] = field(default_factory=dict)
    sums: dict[str, ExactSums | MicroSums] = field(default_factory=dict)
    hits_at_rank: tuple[int, ...] = ()
    max_grades: tuple[int, ...] = ()
    types: dict[str, TypeSums] = field(default_factory=dict)
    replicates: dict[str, tuple[ReplicateSums, ...]] = field(default_factory=dict)
    parts: tuple[str, ...] = ()

    @property
    def fingerprint(self) -> str:
        """A digest of :attr:`settings`: equal for parts of one run."""
        text = json.dumps(self.settings, sort_keys=True)
        return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()

    def to_json(self) -> str:
        """The partial as JSON text, its big integers as decimal strings.

        Examples
        --------
        >>> import pandas as pd
        >>> table = pd.DataFrame({"id": ["u1"], "items": ["a b"]})
        >>> part = score_part(table, table, "id", k=2)
        >>> Partial.from_json(part.to_json()) == part
        True
        """
        return json.dumps(
            {
                "version": VERSION,
                "fingerprint": self.fingerprint,
                "settings": self.settings,
                "stage": self.stage,
                "problems": [_finding_json(f) for f in self.problems],
                "notes": [_finding_json(f) for f in self.notes],
                "warnings": [_finding_json(f) for f in self.warnings],
                "counts": self.counts,
                "sums": {name: _sums_json(sums) for name, sums in self.sums.items()},
                "hits_at_rank": [str(h) for h in self.hits_at_rank],
                "max_grades": list(self.max_grades),
                "types": {kind: _type_json(found) for kind, found in self.types.items()},
                "replicates": {
                    key: [sums.to_json() for sums in found]
                    for key, found in self.replicates.items()
                },
                "parts": list(self.parts),
            },
            sort_keys=True,
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> Partial:
        """A partial from :meth:`to_json`'s text, which may come from a worker that
        cannot be trusted: read against the form's declaration (types, sizes, depth)
        before anything is made of it, then checked as :func:`merge` checks a partial.

        Raises
        ------
        HostVisibleError
            The text is not a partial of this version, was altered, or holds counts and
            sums no part can give.
        """
        try:
            data = json.loads(text)
            if not isinstance(data, dict):
                _fail("the text", "a JSON object", data)
            version = data.get("version")
            if version != VERSION:
                raise HostVisibleError(
                    f"A partial of version {VERSION} was expected (made by this version of "
                    f"the scorer). Got version {version!r} instead: score every part with "
                    "one version."
                )
            read = _PARTIAL(data, "the partial")
        except (ValueError, TypeError, RecursionError, _Unreadable) as exc:
            raise HostVisibleError(
                f"The text is not a partial's JSON form (Partial.to_json): {exc}."
            ) from None
        partial = cls(**{name: value for name, value in read.items() if name in _FIELDS})
        if partial.fingerprint != read["fingerprint"]:
            raise HostVisibleError(
                "The partial's settings do not match its fingerprint: the text was altered."
            )
        return checked(partial)


def _finding_json(finding: Finding) -> dict[str, Any]:
    return {
        "kind": finding.kind,
        "counts": [[name, str(value)] for name, value in finding.counts],
        "examples": list(finding.examples),
        "values": list(finding.values),
    }


def _sums_json(sums: ExactSums | MicroSums) -> dict[str, Any]:
    if isinstance(sums, MicroSums):
        return {"micro": [[str(n), str(d)] for n, d in sums.by_label]}
    return {
        "exponents": sums.exponents,
        "by_label": [{str(k): str(v) for k, v in found.items()} for found in sums.by_label],
    }


def _type_json(found: TypeSums) -> dict[str, Any]:
    return {
        "counts": list(found.counts),
        "sums": {name: _sums_json(sums) for name, sums in found.sums.items()},
    }


# A partial's text is read against a declaration of its form: each reader takes the
# decoded JSON of one field and gives its value, or raises _Unreadable naming where it
# differs. Every number is bounded before it is used, so no text can make a reader (or
# what later adds, divides or allocates by the numbers) take more than its own size.


class _Unreadable(Exception):
    """Where a partial's text is not the form's."""


Reader = Any  # (value, where) -> what it reads
#: Digits of a number written as text: Python's own bound for reading one.
_MAX_DIGITS = 4300
#: The largest count: far past any part's rows, far below what numpy's int64 holds.
_MAX_COUNT = 2**62
#: A float sum's binary exponent: float64's values lie within 2**±1,075.
_MAX_EXPONENT = 1200
#: The widest ranking a partial may claim: 2**32 items is 8 GiB of text in one row, past
#: any input within the reader's limits (the result's hits per rank are this long).
MAX_WIDTH = 2**32


def _fail(where: str, expected: str, found: Any) -> Any:
    shown = type(found).__name__ if isinstance(found, (dict, list, str)) else repr(found)
    if isinstance(found, int) and abs(found) >= _MAX_COUNT:
        shown = f"a number of {found.bit_length()} bits"
    elif isinstance(found, str) and len(found) <= 40:
        shown = repr(found)
    raise _Unreadable(f"{where} is {shown[:40]}, where {expected} was expected")


def _number(low: int | None = 0, high: int | None = _MAX_COUNT, base: int | None = None) -> Reader:
    """A whole number in [low, high] (None: no bound but its digits): a JSON number, or
    with ``base`` its digits in a string (at most :data:`_MAX_DIGITS`)."""
    pattern = {None: "", 10: r"-?[0-9]+", 16: r"-?[0-9a-f]+"}[base]

    def read(value: Any, where: str) -> int:
        if base is not None:
            if not isinstance(value, str) or len(value) > _MAX_DIGITS:
                _fail(where, "a whole number written as text", value)
            if not re.fullmatch(pattern, value):
                _fail(where, "a whole number written as text", value)
            value = int(value, base)
        elif isinstance(value, bool) or not isinstance(value, int):
            _fail(where, "a whole number", value)
        if (low is not None and value < low) or (high is not None and value > high):
            _fail(where, f"a whole number from {low} to {high}", value)
        return value

    return read


def _text(most: int = 1 << 20) -> Reader:
    def read(value: Any, where: str) -> str:
        if not isinstance(value, str) or len(value) > most:
            _fail(where, f"text of at most {most:,} characters", value)
        return value

    return read


def _flag(value: Any, where: str) -> bool:
    return value if isinstance(value, bool) else _fail(where, "true or false", value)


def _items(item: Reader, length: int | None = None) -> Reader:
    """A list (of exactly ``length``), each read by ``item``, as a tuple."""

    def read(value: Any, where: str) -> tuple:
        if not isinstance(value, list) or length not in (None, len(value)):
            _fail(where, "a list" + ("" if length is None else f" of {length}"), value)
        return tuple(item(v, f"{where}[{i}]") for i, v in enumerate(value))

    return read


def _tuple(*items: Reader) -> Reader:
    def read(value: Any, where: str) -> tuple:
        if not isinstance(value, list) or len(value) != len(items):
            _fail(where, f"a list of {len(items)}", value)
        pairs = enumerate(zip(items, value, strict=True))
        return tuple(item(v, f"{where}[{i}]") for i, (item, v) in pairs)

    return read


def _keyed(key: Reader, item: Reader) -> Reader:
    """An object, its keys read by ``key`` (from their text), its values by ``item``."""

    def read(value: Any, where: str) -> dict:
        if not isinstance(value, dict):
            _fail(where, "an object", value)
        return {key(k, where): item(v, f"{where}[{k!r:.40}]") for k, v in value.items()}

    return read


def _fields(*optional: str, **fields: Reader) -> Reader:
    """An object with exactly these fields (the ``optional`` ones may be left out)."""

    def read(value: Any, where: str) -> dict:
        if not isinstance(value, dict):
            _fail(where, "an object", value)
        missing = sorted(set(fields) - set(value) - set(optional))
        unknown = sorted(set(value) - set(fields), key=str)
        if missing or unknown:
            names = ", ".join(repr(name)[:40] for name in (missing or unknown)[:5])
            raise _Unreadable(f"{where} {'lacks' if missing else 'holds'} the fields {names}")
        return {name: fields[name](v, f"{where}.{name}") for name, v in value.items()}

    return read


def _maybe(item: Reader) -> Reader:
    return lambda value, where: None if value is None else item(value, where)


def _any(value: Any, where: str) -> Any:
    return value


def _as_written(item: Reader) -> Reader:
    """Read by ``item``, kept as the JSON it was (settings: their fingerprint's text)."""

    def read(value: Any, where: str) -> Any:
        item(value, where)
        return value

    return read


_COUNT = _number(base=10)
_FINDING = _fields(
    kind=_text(64),
    counts=_items(_tuple(_text(64), _COUNT)),
    examples=_items(_text()),
    values=_items(_text()),
)
_EXACT_SUMS = _fields(
    exponents=_flag,
    by_label=_items(_keyed(_number(None, None, 10), _number(0, None, 10)), len(SPLITS)),
)
_MICRO_SUMS = _fields(micro=_items(_tuple(_COUNT, _COUNT), len(SPLITS)))


def _sums(value: Any, where: str) -> ExactSums | MicroSums:
    if isinstance(value, dict) and "micro" in value:
        return MicroSums(_MICRO_SUMS(value, where)["micro"])
    read = _EXACT_SUMS(value, where)
    return ExactSums(read["by_label"], read["exponents"])


def _type_sums(value: Any, where: str) -> TypeSums:
    read = _fields(counts=_items(_number(), len(SPLITS)), sums=_keyed(_text(), _sums))
    return TypeSums(**read(value, where))


def _replicate_sums(value: Any, where: str) -> ReplicateSums:
    read = _fields(
        exponent=_number(-_MAX_EXPONENT, _MAX_EXPONENT),
        sums=_items(_items(_number(0, None, 16)), len(SPLITS)),
    )(value, where)
    sums = np.empty((len(SPLITS), len(read["sums"][0])), dtype=object)
    sums[:] = [list(group) for group in read["sums"]]
    return ReplicateSums(read["exponent"], sums)


def _found(value: Any, where: str) -> Finding:
    return Finding(**_FINDING(value, where))


_PARTIAL = _fields(
    "types",
    "replicates",
    "parts",
    version=_any,
    fingerprint=_text(64),
    settings=_as_written(
        _fields(
            options=_keyed(_text(64), _any),
            measures=_items(_text(1000)),
            legacy=_flag,
            max_grade=_maybe(_number(0, MAX_GRADE)),
            target_types=_maybe(_items(_text())),
            resamples=_number(),
            seed=_number(),
            wording=_keyed(_text(64), _any),
        )
    ),
    stage=_number(0, _GRADES),
    problems=_items(_found),
    notes=_items(_found),
    warnings=_items(_found),
    counts=_keyed(_text(64), _number()),
    sums=_keyed(_text(1000), _sums),
    hits_at_rank=_items(_COUNT),
    max_grades=_items(_number(0, MAX_GRADE)),
    types=_keyed(_text(), _type_sums),
    replicates=_keyed(_text(), _items(_replicate_sums)),
    parts=_items(_text(64)),
)
_FIELDS = frozenset(f.name for f in dataclasses.fields(Partial))
#: The counts a partial holds, and the records of its warnings.
_COUNTS = frozenset(
    {"n_users", "n_skipped", "n_ignored", "width", "usage", "unjudged_lines"}
    | {f"label_{label}" for label in range(len(SPLITS))}
)
_RECORDS = frozenset(WARNING_WORDS) | {"padded_ids", "bare_ids", "numeric_ids"}


def checked(partial: Partial) -> Partial:
    """The partial, once its counts and sums are ones some part could give: counts not
    negative and adding up, every sum within what its rows allow (a mean in [0, 1] for a
    bounded measure), records of known kinds that can be put into words, numbers
    bounded. :meth:`Partial.from_json`, :func:`merge` and :func:`finish` check what
    they read: a partial may come from a worker that cannot be trusted.

    Raises
    ------
    HostVisibleError
        Naming what no part can give (up to five things).
    """
    try:
        found = list(_inconsistencies(partial))
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError) as exc:
        found = [f"its records cannot be read ({type(exc).__name__}: {str(exc)[:80]})"]
    except ScorerError as error:
        found = [f"its settings are refused ({str(error)[:200]})"]
    if found:
        shown = "; ".join(found[:5]) + ("; ..." if len(found) > 5 else "")
        raise HostVisibleError(
            f"The partial holds what no part of a run can give: {shown}. Score the part "
            "again with score_part (a partial from a worker is checked, not trusted)."
        )
    return partial


def _inconsistencies(partial: Partial) -> Iterator[str]:
    """What in the partial no part can give, one phrase each."""
    settings, counts = partial.settings, partial.counts
    options = Options(**settings["options"])
    measures = parse_all(settings["measures"], _name_bound(options))
    words = Wording(**settings["wording"])
    check_settings(settings["resamples"], 0.95, settings["seed"], least=0)
    names = [str(m) for m in measures]
    yield from _bad_records(partial, words, options.k)
    if not isinstance(partial.stage, int) or not 0 <= partial.stage <= _GRADES:
        yield f"a stage of {partial.stage!r}"
    if set(counts) - _COUNTS or not all(_whole(v) and v >= 0 for v in counts.values()):
        yield f"counts {sorted(counts)[:8]} that are not whole and positive ones it keeps"
        return
    labels = [counts.get(f"label_{label}", 0) for label in range(len(SPLITS))]
    if counts.get("usage", 0) > 1 or (not counts.get("usage") and sum(labels[1:])):
        yield "a split without a Usage column"
    width = counts.get("width", 0)
    if width > min(MAX_WIDTH, row_bound(options.k)) or len(partial.hits_at_rank) > width:
        yield f"a widest ranking of {width} (more than k, or {MAX_WIDTH:,}, or fewer hits)"
    if any(not _whole(h) or not 0 <= h <= sum(labels) for h in partial.hits_at_rank):
        yield "hits at a rank that are more than the scored users"
    if any(not _whole(g) or not 0 <= g <= MAX_GRADE for g in partial.max_grades):
        yield "largest grades that no solution holds"
    if len(set(partial.parts)) != len(partial.parts):
        yield "a part named twice"
    yield from _bad_sums(partial.sums, labels, measures, partial.stage == 0)
    for found in partial.types.values():
        yield from _bad_sums(found.sums, list(found.counts), measures, partial.stage == 0)
        if partial.stage == 0 and set(found.sums) != {str(m) for m in measures}:
            yield "a target type's sums of other measures than its settings name"
    if partial.stage == 0:
        scored = counts.get("n_skipped", 0) + counts.get("n_ignored", 0) + sum(labels)
        if counts.get("n_users", 0) != scored:
            yield f"{counts.get('n_users', 0)} users, but {scored} scored, skipped or ignored"
        typed = [sum(t.counts[label] for t in partial.types.values()) for label in range(2)]
        by_type = options.target_type_column_name or options.row_id_type_separator
        if (by_type and typed != labels) or (partial.types and not by_type):
            yield "target types whose rows are not the scored rows"
        if set(partial.sums) != set(names):
            yield "sums of other measures than its settings name"
    yield from _bad_replicates(partial, measures, settings["resamples"])


def _whole(value: Any) -> bool:
    """A count: a whole number of at most :data:`_MAX_COUNT`."""
    return _natural(value) and value <= _MAX_COUNT


def _natural(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _bad_records(partial: Partial, words: Wording, k: int | None) -> Iterator[str]:
    """Records of unknown kinds, negative counts, more than five examples, or that
    cannot be put into words (tried, as finish would)."""
    problem_kinds = set(PROBLEMS) | {"stated"}
    for group, kinds in (
        ((*partial.problems, *partial.notes), problem_kinds),
        (partial.warnings, _RECORDS),
    ):
        for found in group:
            if found.kind not in kinds or len(found.examples) > MAX_EXAMPLES:
                yield f"a record of kind {found.kind!r:.40} or with too many examples"
            elif not all(_whole(c) and c >= 0 for _, c in found.counts):
                yield f"a record of {found.kind} with counts that are not whole and positive"
    if all(f.kind in problem_kinds for f in (*partial.problems, *partial.notes)):
        problems([*partial.problems, *partial.notes], words)
    if all(f.kind in _RECORDS for f in partial.warnings):
        split = dict.fromkeys(SPLITS, 0.0)
        score_warnings(run_findings(partial.warnings, split, 0.0, True), k)


def _bad_sums(
    sums: dict[str, ExactSums | MicroSums], labels: list[int], measures: Any, scored: bool
) -> Iterator[str]:
    """Sums whose keys no value has, or that no ``labels`` rows can add up to (a mean
    outside [0, 1] for a bounded measure; past 2**31 per ranked item otherwise)."""
    bounded = {str(m): m.family.bounded for m in measures}
    for name, found in sums.items():
        if len(found.by_label) != len(labels):
            yield f"sums of {name!r:.40} for {len(found.by_label)} splits"
            continue
        for label, count in enumerate(labels):
            if isinstance(found, MicroSums):
                top, bottom = found.by_label[label]
                wrong = not (_natural(top) and _natural(bottom))
                wrong = wrong or (bounded.get(name, True) and top > bottom)
                wrong = wrong or (not count and bottom)
            else:
                keys = found.by_label[label]
                low, high = (-_MAX_EXPONENT, _MAX_EXPONENT) if found.exponents else (1, None)
                wrong = len(keys) > count or not all(
                    isinstance(key, int) and low <= key <= (high or key) and _natural(value)
                    for key, value in keys.items()
                )
                if not wrong and scored:
                    total = ExactSums((keys,), found.exponents).totals()[0]
                    most = count if bounded.get(name, True) else count * MAX_WIDTH * MAX_GRADE
                    wrong = total > most
            if wrong:
                yield f"sums of {name!r:.40} that no {count} rows can give"


def _bad_replicates(partial: Partial, measures: Any, resamples: int) -> Iterator[str]:
    """Replicates of other keys or shapes than ``resamples`` of every measure, weights
    or sums that are negative, or exponents past a float's."""
    names = [str(m) for m in measures]
    prefixes = [f"{kind}\n" for kind in partial.types] or [""]
    expected = {prefix + name for prefix in prefixes for name in ["", *names]}
    found = partial.replicates
    if not resamples or partial.stage:
        if found and not resamples:
            yield "replicates of a run without resamples"
        return
    if set(found) != expected:
        yield "replicates of other measures than its settings name"
        return
    bounded = {name: m.family.bounded for name, m in zip(names, measures, strict=True)}
    for key, group in found.items():
        name = key.rpartition("\n")[2]
        micro = isinstance(partial.sums.get(name), MicroSums)
        if len(group) != (2 if micro else 1) or not all(
            isinstance(r, ReplicateSums)
            and isinstance(r.exponent, int)
            and abs(r.exponent) <= _MAX_EXPONENT
            and r.sums.shape == (len(SPLITS), resamples)
            and all(_natural(v) for v in r.sums.ravel().tolist())
            for r in group
        ):
            yield f"replicates of {key!r:.40} that no part's resamples give"
        elif name:  # each replicate's sum within what its weights allow
            weights = found[key[: len(key) - len(name)]][0]
            top, bottom = (group[0], group[1]) if micro else (group[0], weights)
            factor = 1 if bounded[name] else MAX_WIDTH * MAX_GRADE
            if not _at_most(top, bottom, factor):
                yield f"replicates of {key!r:.40} past what their weights allow"


def _at_most(a: ReplicateSums, b: ReplicateSums, factor: int) -> bool:
    """Whether every one of ``a``'s sums is at most ``factor`` times ``b``'s, exactly."""
    low = min(a.exponent, b.exponent)
    scaled = [r.sums * (1 << (r.exponent - low)) for r in (a, b)]
    return bool((scaled[0] <= scaled[1] * factor).all())


@takes_options(leave_out=("segment_column_name",))
def score_part(
    solution: TableLike,
    submission: TableLike,
    *,
    max_grade: int | None = None,
    target_types: Sequence[str] | None = None,
    resamples: int = 0,
    seed: int = 0,
    **options: Any,
) -> Partial:
    """Score one part of a run: both inputs (and ``candidates``) restricted to the same
    row ids' part (:func:`partition`; with ``row_id_type_separator``, its
    ``type_separator=``).

    Takes :func:`scorer.evaluate`'s arguments (but ``per_user`` and
    ``segment_column_name``: a partial holds no per-user values), every shape included:
    the long layout, trec_eval files (each part a qrels and a run file of its own),
    candidates, ``unjudged="drop"``, target types and ``missing_rows="empty"``. Unlike
    it, a part with no scorable user is no error (another part may have them), and an
    invalid part raises nothing: its problems are kept as records for :func:`finish`.

    Parameters
    ----------
    max_grade : int, optional
        ERR's and nERR's default ``max_grade``: the largest grade in the *whole*
        solution, which a part cannot see. Without it each part takes its own
        largest grade, and :func:`finish` refuses parts that disagree.
    target_types : sequence of str, optional
        With ``target_type_column_name``, required: every target type of the *whole*
        solution (a part cannot tell a type its rows lack from one the solution lacks,
        and the submission's types are checked against them).

    Raises
    ------
    HostVisibleError, ParticipantVisibleError
        A problem that is the same in every part (a column missing, a bad option), or
        a type column without ``target_types``.

    With ``resamples=N`` the partial also carries, for ``N`` replicates of the Poisson
    bootstrap (``seed``), each split's exact weighted sums, and :func:`finish` fills
    ``result.intervals`` (docs/beyond-one-machine.md, "Beyond one machine").

    Examples
    --------
    >>> import pandas as pd, scorer
    >>> solution = pd.DataFrame({"id": ["u1", "u2"], "items": ["a b", "c"]})
    >>> submission = pd.DataFrame({"id": ["u2", "u1"], "items": ["c", "b a"]})
    >>> parts = partition(solution["id"], 2), partition(submission["id"], 2)
    >>> partials = [score_part(solution[parts[0] == p], submission[parts[1] == p], "id", k=2)
    ...             for p in range(2)]
    >>> finish(merge(*partials)).score == scorer.evaluate(solution, submission, "id", k=2).score
    True
    """
    given = {**DEFAULTS, **format_defaults(options)}
    row_id_column_name, limits = given["row_id_column_name"], given["limits"]
    option_values, measures = options_and_measures(given)
    _refuse_whole_data(measures)
    Bounds(int, 0, none_ok=True).check("max_grade", max_grade)
    known_types = _known_types(target_types, option_values)
    check_settings(resamples, 0.95, seed, least=0)
    if option_values.format != "trec":
        solution = as_string_table(solution, HostVisibleError, limits)
    settings = {
        "options": asdict(option_values),
        "measures": [str(m) for m in measures],
        "legacy": given["metrics"] is None,
        "max_grade": max_grade,
        "target_types": None if known_types is None else list(known_types),
        "resamples": resamples,
        "seed": seed,
        "wording": asdict(_wording(solution, row_id_column_name, option_values)),
    }
    inputs = Inputs(solution, submission, row_id_column_name, None, given["candidates"])
    pairs = keeps_candidates(measures, option_values, given["candidates"])
    try:
        exponential = tuple(str(m) for m in measures if m.exponential)
        checked = read_and_check(
            inputs,
            option_values,
            limits,
            exponential,
            keep_candidates=pairs,
            every_quote=True,
            known_types=known_types,
            part=True,
        )
    except ScorerError as error:
        if not error.findings:
            raise
        return _invalid(settings, error, *_solution_rows(inputs, option_values, limits, error))
    _check_max_grade_bound(max_grade, measures)
    option_values = checked.options
    notes = checked.submission.notes if checked.submission is not None else ()
    aligned = align(checked, row_bound(option_values.k), every_hint=True)
    judgements = aligned.judgements
    if max_grade is not None:
        judgements = replace(judgements, max_grade=_checked_max_grade(max_grade, judgements))
    values = {str(m): m.compute(judgements) for m in measures}
    users = sort_users(checked.solution, aligned.truth.n_relevant, option_values.empty_ground_truth)
    labels = split_labels(checked.solution, users.scored)
    per_label = np.bincount(labels, minlength=len(SPLITS) + 1)
    hits = judgements.hits_by_rank(users.scored, judgements.width)
    counts = {
        "n_users": checked.solution.n_rows,
        "n_skipped": int(users.skipped.sum()),
        "n_ignored": int(users.ignored.sum()),
        "width": judgements.width,
        "usage": int(checked.solution.usage is not None),
        "unjudged_lines": checked.n_unjudged_lines,
        **{f"label_{label}": int(per_label[label]) for label in range(len(SPLITS))},
    }
    return Partial(
        settings,
        notes=notes,
        warnings=tuple(row_findings(checked.solution, aligned, option_values)),
        counts=counts,
        sums={name: value.split_sums(labels, len(SPLITS)) for name, value in values.items()},
        hits_at_rank=_trimmed(hits),
        max_grades=_default_max_grades(measures, max_grade, judgements.max_grade),
        types=_type_sums(checked.typed, values, labels),
        replicates=_replicates(checked, values, labels, resamples, seed),
        parts=_digests(checked.solution.row_ids),
    )


def _replicates(
    checked: Any, values: dict[str, Any], labels: np.ndarray, resamples: int, seed: int
) -> dict[str, tuple[ReplicateSums, ...]]:
    """The Poisson replicates' exact weighted sums per split label: a row id's weights
    come from its fingerprint (with target types, the bare row id's: a session's types
    share them), so every part draws the same ones for it."""
    if not resamples:
        return {}
    typed = checked.typed
    ids = checked.solution.row_ids if typed is None else typed.bare_row_ids
    prints = _id_prints(ids, 0, None)
    n_splits = len(SPLITS)
    kinds = [("", labels)]
    if typed is not None:
        kinds = [
            (f"{kind}\n", np.where(typed.row_type == t, labels, n_splits))
            for t, kind in enumerate(typed.types)
        ]
    found: dict[str, tuple[ReplicateSums, ...]] = {}
    for prefix, groups in kinds:
        columns = [_columns(value) for value in values.values()]
        flat = [column for pair in columns for column in pair]
        counts, sums = weighted_sums(flat, groups, n_splits, prints, seed, resamples)
        found[prefix] = (counts,)
        at = 0
        for name, pair in zip(values, columns, strict=True):
            found[prefix + name] = tuple(sums[at : at + len(pair)])
            at += len(pair)
    return found


def _refuse_whole_data(measures: Sequence[Measure]) -> None:
    """Refuse a measure whose run value is no mean of the rows' values
    (:attr:`~scorer.measures.Measure.is_a_mean`): no part's sums merge into a measure of
    the whole test set (GAP), a sum or a geometric mean; nor into values that may be
    negative (the parts' sums are natural numbers)."""
    for measure in measures:
        if measure.family.scored:
            raise HostVisibleError(
                f"{measure} cannot be scored in parts: it ranks every row's prediction "
                "against every other row's across the whole test set, so a part's sums "
                "cannot merge into the whole run's value. Score it in one run "
                "(scorer.evaluate, or the command line on whole files)."
            )
        if not measure.is_a_mean or measure.family.signed:
            raise HostVisibleError(
                f"{measure} cannot be scored in parts yet: its value is the sum or the "
                "geometric mean of the rows' values, or may be negative, which the parts' "
                "sums do not carry. Score it in one run (scorer.evaluate, or the command line "
                "on whole files)."
            )


def _columns(value: Any) -> tuple[np.ndarray, ...]:
    """What a measure's replicates sum: its users' values, or with ``avg=micro`` their
    numerators and denominators."""
    if isinstance(value, MicroRatios):
        return (value.numerator.astype(np.float64), value.denominator.astype(np.float64))
    return (np.nan_to_num(np.asarray(value.values(), dtype=np.float64)),)


def _known_types(target_types: Sequence[str] | None, options: Options) -> tuple[str, ...] | None:
    """``target_types`` checked: required with a type column, a sequence of strings."""
    if options.target_type_column_name is None:
        return None
    if (
        target_types is None
        or isinstance(target_types, str)
        or not all(isinstance(kind, str) for kind in target_types)
    ):
        raise HostVisibleError(
            "With target_type_column_name, score_part needs target_types: the target types "
            "of the whole solution (a part cannot tell a type its rows lack from one the "
            f"solution lacks). Got {target_types!r}: give a list of strings, e.g. the "
            "distinct values of the solution's type column."
        )
    return tuple(sorted(set(target_types), key=lambda kind: kind.encode()))


def _wording(solution: Any, row_id_column_name: str | None, options: Options) -> Wording:
    """The column names the problems' sentences use, as :func:`scorer.evaluate` finds
    them: a trec_eval file's own, else the solution's but its type and candidates
    columns (taken out before it is checked)."""
    if options.format == "trec":
        names, grade_name = grade_columns(QRELS_COLUMNS, QRELS_COLUMNS[2])
        row_id_column_name = QRELS_COLUMNS[0]
    else:
        taken = {options.target_type_column_name, options.candidates_column_name}
        kept = [name for name in solution.names if name not in taken]
        names, grade_name = grade_columns(kept, options.grade_column_name)
    return wording(solution_columns(names, row_id_column_name), options, grade_name or "")


def _solution_rows(
    inputs: Inputs, options: Options, limits: ReadLimits | None, error: ScorerError
) -> tuple[int, pa.Array | None]:
    """The part's solution rows (row ids, or row ids and types), which "Missing rows"
    counts for the whole run, and their row ids when found (for :func:`_digests`):
    read again for a shape other than the wide one (a long solution has several lines
    per row id), whichever stage refused the part."""
    wide = options.format != "trec" and options.solution_layout == "wide"
    table = inputs.solution
    try:  # a part refused at any stage (its grades, say) still counts its rows
        if options.format == "trec":  # the qrels' queries are the solution's rows
            queries = qrels_queries(inputs.solution, limits)
            return len(queries), queries
        if not wide:
            table = read_solution(table, options, inputs.row_id_column_name, None, limits).table
    except ScorerError:
        return 0, None  # the solution itself is unreadable: its error is the one raised
    name = inputs.row_id_column_name or next(iter(table.names), None)
    return table.n_rows, table.column(name) if name in table.names else None


def _digests(row_ids: pa.Array | None) -> tuple[str, ...]:
    """The part's name among the parts of a run: its number of rows and two 64-bit
    sums of its row ids' fixed fingerprints (in any order); none for a part without
    rows, which adds nothing however often it is merged.

    Examples
    --------
    >>> _digests(pa.array(["u2", "u1"])) == _digests(pa.array(["u1", "u2"])), _digests(None)
    (True, ())
    """
    if row_ids is None or not len(row_ids):
        return ()
    sums = [int(_id_prints(row_ids, seed, None).sum(dtype=np.uint64)) for seed in (1, 2)]
    return (f"{len(row_ids):x}:{sums[0]:016x}{sums[1]:016x}",)


def _type_sums(
    typed: TargetTypes | None, values: dict[str, Any], labels: np.ndarray
) -> dict[str, TypeSums]:
    """Per target type, its scored rows per split label and each measure's exact sums
    over them (none without target types)."""
    if typed is None:
        return {}
    n_types, n_splits = len(typed.types), len(SPLITS)
    by_split = np.where(labels < n_splits, typed.row_type * n_splits + labels, n_types * n_splits)
    counts = np.bincount(by_split, minlength=n_types * n_splits + 1).tolist()
    sums = {name: value.split_sums(by_split, n_types * n_splits) for name, value in values.items()}
    return {
        kind: TypeSums(
            tuple(counts[t * n_splits : (t + 1) * n_splits]),
            {name: _labels(s, t * n_splits, (t + 1) * n_splits) for name, s in sums.items()},
        )
        for t, kind in enumerate(typed.types)
    }


def _labels(sums: ExactSums | MicroSums, start: int, stop: int) -> ExactSums | MicroSums:
    if isinstance(sums, MicroSums):
        return MicroSums(sums.by_label[start:stop])
    return ExactSums(sums.by_label[start:stop], sums.exponents)


def _invalid(
    settings: dict[str, Any], error: ScorerError, n_users: int, row_ids: pa.Array | None
) -> Partial:
    """A part whose input is invalid: its problems as records, at their stage (and its
    solution rows, which "Missing rows" counts for the whole run)."""
    if isinstance(error, ParticipantVisibleError):
        stage = _SUBMISSION
    elif any(f.kind in _GRADE_KINDS for f in error.findings):
        stage = _GRADES
    else:
        stage = _SOLUTION_ROWS
    problems = tuple(f for f in error.findings if f.kind != "open_quotes")
    notes = tuple(f for f in error.findings if f.kind == "open_quotes")
    counts = {"n_users": n_users}
    return Partial(settings, stage, problems, notes, counts=counts, parts=_digests(row_ids))


def _check_max_grade_bound(max_grade: int | None, measures: tuple[Measure, ...]) -> None:
    """Refuse a ``max_grade`` above the largest grade an exponential gain takes when a
    measure takes it as its own (2**max_grade would be a number of that many bits: a
    part would never finish). Checked once the solution is, so that a solution holding
    such a grade is refused in ``evaluate``'s words."""
    takers = [str(m) for m in measures if ("max_grade", None) in m.params]
    if max_grade is not None and takers and max_grade > MAX_EXPONENTIAL_GRADE:
        raise HostVisibleError(
            f"The 'max_grade' parameter must be at most {MAX_EXPONENTIAL_GRADE} with "
            f"{', '.join(takers)}, the largest grade a solution can hold for them. Got "
            f"{max_grade!r} instead."
        )


def _checked_max_grade(max_grade: int, judgements: Any) -> int:
    """``max_grade``, once it is known to be at least this part's largest grade."""
    if max_grade < judgements.max_grade:
        raise HostVisibleError(
            f"The 'max_grade' parameter must be at least the largest grade in the solution "
            f"(this part holds {judgements.max_grade}). Got {max_grade!r} instead: give the "
            "largest grade of the whole solution."
        )
    return max_grade


def _default_max_grades(
    measures: tuple[Measure, ...], max_grade: int | None, found: int
) -> tuple[int, ...]:
    """The largest grade of this part, when a measure takes it as its ``max_grade``
    (none given) and it matters (a part whose grades are all 0 scores 0 with any)."""
    takes_default = any(
        name == "max_grade" and value is None for m in measures for name, value in m.params
    )
    return (found,) if takes_default and max_grade is None and found > 0 else ()


def _trimmed(hits: np.ndarray) -> tuple[int, ...]:
    nonzero = np.flatnonzero(hits)
    return tuple(int(h) for h in hits[: int(nonzero[-1]) + 1]) if len(nonzero) else ()


def merge(*partials: Partial) -> Partial:
    """The partials of several parts as one: counts and sums added, problems merged.

    Associative and commutative, and exact (integer additions): any grouping and order
    of the parts gives the same partial.

    Raises
    ------
    HostVisibleError
        No partial, or partials made with different options or measures.
    """
    if not partials:
        raise HostVisibleError("merge() needs at least one partial; score each part first.")
    merged = checked(partials[0])
    for other in partials[1:]:
        merged = _merge_two(merged, checked(other))
    return merged


def _merge_two(a: Partial, b: Partial) -> Partial:
    if a.settings != b.settings:
        raise HostVisibleError(
            "Partials made with different options, measures or columns cannot be "
            f"merged (fingerprints {a.fingerprint} and {b.fingerprint}): score every part "
            "with the same arguments."
        )
    shared = sorted(set(a.parts) & set(b.parts))
    if shared:
        raise HostVisibleError(
            f"The partials share {len(shared)} part(s) (the same solution row ids, e.g. "
            f"digest {shared[0]}): a part merged twice would count its rows twice. Merge "
            "each part's partial once."
        )
    stages = [s for s in (a.stage, b.stage) if s]
    stage = min(stages) if stages else 0
    found = [p.problems for p in (a, b) if p.stage == stage and stage]
    counts = dict(a.counts)
    for name, value in b.counts.items():
        mine = counts.get(name, 0)
        counts[name] = max(mine, value) if name in _LARGEST else mine + value
    longer = max(len(a.hits_at_rank), len(b.hits_at_rank))
    padded = [list(h) + [0] * (longer - len(h)) for h in (a.hits_at_rank, b.hits_at_rank)]
    try:
        sums = _merged(a.sums, b.sums)
        types = _merged_types(a.types, b.types)
        replicates = _merged_replicates(a.replicates, b.replicates)
    except (ValueError, TypeError, AttributeError) as exc:  # checked partials of one run: no
        raise HostVisibleError(
            f"The partials' sums cannot be added ({exc}): they are not parts of one run."
        ) from None
    return Partial(
        a.settings,
        stage,
        tuple(merge_findings(*found)),
        tuple(merge_findings(a.notes, b.notes)),
        tuple(merge_findings(a.warnings, b.warnings)),
        counts,
        sums,
        tuple(x + y for x, y in zip(*padded, strict=True)),
        tuple(sorted(set(a.max_grades) | set(b.max_grades))),
        types,
        replicates,
        tuple(sorted((*a.parts, *b.parts))),
    )


def _merged(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Sums by name added (a name only one side holds as is)."""
    merged = dict(a)
    for name, value in b.items():
        if name in merged and type(merged[name]) is not type(value):
            raise ValueError(f"sums of {name} of different kinds")
        merged[name] = merged[name].plus(value) if name in merged else value
    return merged


def _merged_replicates(
    a: dict[str, tuple[ReplicateSums, ...]], b: dict[str, tuple[ReplicateSums, ...]]
) -> dict[str, tuple[ReplicateSums, ...]]:
    merged = dict(a)
    for key, found in b.items():
        if key in merged:
            found = tuple(x.plus(y) for x, y in zip(merged[key], found, strict=True))
        merged[key] = found
    return dict(sorted(merged.items()))


def _merged_types(a: dict[str, TypeSums], b: dict[str, TypeSums]) -> dict[str, TypeSums]:
    """Each target type's sums over both parts (a type only one part holds as is)."""
    merged = dict(a)
    for kind, found in b.items():
        merged[kind] = merged[kind].plus(found) if kind in merged else found
    return dict(sorted(merged.items(), key=lambda item: item[0].encode()))


# Counts merged by their largest value: the widest ranking, whether ``Usage`` is there.
_LARGEST = frozenset({"width", "usage"})


def finish(partial: Partial, *, level: float = 0.95, whole: bool = True) -> ScoreResult:
    """The result of the whole run, as :func:`scorer.evaluate` gives it.

    ``whole=False`` finishes what is not the whole run (an engine's probe of the inputs'
    empty forms, for the problems every part would have): its solution may have no row.

    The per-user arrays (``user_values``, ``per_user`` and the like) are not part of a
    partial: they stay empty. Partials scored with ``resamples`` fill
    ``result.intervals``: per measure and split, the ``level`` percentile interval of
    the Poisson replicates (``method="poisson"``).

    Raises
    ------
    ParticipantVisibleError, HostVisibleError
        As :func:`scorer.evaluate` raises them for the whole data, with the same
        message; or parts that took different largest grades as ERR's ``max_grade``.
    """
    settings = checked(partial).settings
    options = Options(**settings["options"])
    words = Wording(**settings["wording"])
    if options.format == "trec":
        options = trec_options(options)
    if partial.stage and partial.stage != _SUBMISSION:
        raise_findings(partial.problems, HostVisibleError, SOLUTION, words)
    if whole and options.format != "trec":  # as a whole run: after the solution's problems
        refuse_empty_solution(partial.counts.get("n_users", 0))
    if partial.stage == _SUBMISSION:
        findings = [
            _with_rows(f, partial.counts.get("n_users", 0))
            for f in merge_findings(partial.problems, partial.notes)
        ]
        raise_findings(findings, ParticipantVisibleError, SUBMISSION, words)
    if len(partial.max_grades) > 1:
        largest = max(partial.max_grades)
        raise HostVisibleError(
            "The parts' largest grades differ "
            f"({', '.join(map(str, partial.max_grades))}), and ERR and nERR take the largest "
            "grade as their default max_grade: give the largest grade of the whole solution, "
            f"score_part(..., max_grade={largest}), or name it in the measure "
            f"('ERR(max_grade={largest})@K')."
        )
    counts = partial.counts
    label_counts = [counts.get(f"label_{label}", 0) for label in range(len(SPLITS))]
    n_scored = sum(label_counts)
    if not n_scored:
        raise no_scorable_user(
            counts.get("n_users", 0), counts.get("n_ignored", 0), counts.get("n_skipped", 0)
        )
    # The canonical names write every parameter but the family's default: parsed back
    # with that default (not the run's normalization), they are the same measures.
    measures = parse_all(settings["measures"], _name_bound(options))
    names = [str(m) for m in measures]
    has_usage = counts.get("usage", 0) > 0
    typed = bool(options.target_type_column_name or options.row_id_type_separator)
    if typed:
        means = _typed_means(partial, options, has_usage)
    else:
        found = {name: partial.sums[name].split_means(label_counts) for name in names}
        means = Means.of(found, has_usage)
    split_scores = means.split_scores(names[0])
    overall = means.overall[names[0]]
    findings = run_findings(partial.warnings, split_scores, overall, has_usage)
    findings += split_findings(split_scores, has_usage, typed)
    warnings = score_warnings(findings, options.k)
    warnings += unjudged_lines_warnings(counts.get("unjudged_lines", 0))
    return ScoreResult(
        **means.result_fields(names[0]),
        n_users=counts.get("n_users", 0),
        n_scored=n_scored,
        n_skipped=counts.get("n_skipped", 0),
        n_ignored=counts.get("n_ignored", 0),
        options=options,
        warnings=warnings,
        measures=tuple(names),
        keys=leaderboard_keys(measures, settings["legacy"]),
        hits_at_rank=_hits_at_rank(partial, row_bound(options.k)),
        types=tuple(partial.types),
        intervals=_poisson_intervals(partial, means, names, has_usage, level),
    )


def _poisson_intervals(
    partial: Partial, means: Means, names: list[str], has_usage: bool, level: float
) -> dict[str, dict[str, Interval]] | None:
    """Per measure, the percentile intervals of its Poisson replicates: overall, and
    per split with ``Usage``. With target types, a replicate's total is Σ w_t · value_t
    over its types' weighted means; a replicate without a weighted row of some type
    (or with no weighted row at all) has no value and is left out."""
    if not partial.settings.get("resamples"):
        return None
    check_settings(1, level, 0)
    types = list(partial.types) or [""]
    weights = means.weights or {"": 1.0}
    prefixes = [f"{kind}\n" if means.weights else "" for kind in types]
    choices = {"score": list(range(len(SPLITS)))}
    if has_usage:
        choices.update({split.lower(): [label] for label, split in enumerate(SPLITS)})
    intervals: dict[str, dict[str, Interval]] = {}
    for name in names:
        found = {}
        for split, labels in choices.items():
            value = (
                means.overall[name]
                if split == "score"
                else ((means.splits[split.capitalize()] or {}).get(name))
            )
            if value is None:
                continue
            total = sum(
                weights[kind] * _replicate_means(partial.replicates, prefix, name, labels)
                for kind, prefix in zip(types, prefixes, strict=True)
            )
            drawn = np.asarray(total, dtype=np.float64)
            drawn = drawn[~np.isnan(drawn)]
            bounds = percentile_interval(drawn, level) if len(drawn) else (np.nan, np.nan)
            found[split] = Interval(value, *bounds, method="poisson")
        intervals[name] = found
    return intervals


def _replicate_means(
    replicates: dict[str, tuple[ReplicateSums, ...]], prefix: str, name: str, labels: list[int]
) -> np.ndarray:
    """Each replicate's weighted mean of a measure over some split labels (NaN with no
    weighted row): Σ w·x / Σ w, or Σ w·numerator / Σ w·denominator."""
    counts = replicates[prefix][0].total(labels)
    sums = [s.total(labels) for s in replicates[prefix + name]]
    micro = len(sums) == 2
    drawn = ratios(sums[0], sums[1], 0.0) if micro else ratios(sums[0], counts, np.nan)
    drawn[counts.sums[0] == 0] = np.nan
    return drawn


def _typed_means(partial: Partial, options: Options, has_usage: bool) -> Means:
    """With target types: each type's values and the weighted totals, from each type's
    exact sums, as :func:`scorer.evaluate` forms them."""
    types = tuple(partial.types)
    weights = type_weights(types, options.type_weights)
    exact: dict[str, list[Fraction | None]] = {}
    per_split: dict[str, list[Fraction | None]] = {}
    for found in partial.types.values():
        overall, by_label = found.exact_means()
        for name, mean in overall.items():
            exact.setdefault(name, []).append(mean)
            per_split.setdefault(name, []).extend(by_label[name])
    found = weighted_type_means(exact, per_split if has_usage else None, types, weights)
    return Means.typed(found, weights)


def _name_bound(options: Options) -> int:
    """The largest cut-off a measure's name may write: ``k``, unbounded for trec_eval's
    files (where ``k`` is ``-M``, which bounds no cut-off)."""
    return row_bound(None if options.format == "trec" else options.k)


def _with_rows(finding: Finding, n_users: int) -> Finding:
    """ "Missing rows" (or queries) says how many rows the whole solution has: every part's."""
    if finding.kind not in ("missing_rows", "missing_queries"):
        return finding
    total = ("solution_rows", "queries")
    counts = tuple((k, n_users if k in total else v) for k, v in finding.counts)
    return replace(finding, counts=counts)


def _hits_at_rank(partial: Partial, k: int) -> np.ndarray:
    width = partial.counts.get("width", 0)
    length = hits_at_rank_length(k, width)
    hits = np.zeros(length, dtype=np.int64)
    found = np.array(partial.hits_at_rank[:length], dtype=np.int64)
    hits[: len(found)] = found
    return hits
