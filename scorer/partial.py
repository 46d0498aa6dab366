"""A run scored in parts, exactly: :func:`partition`, :func:`score_part`, :func:`merge`,
:func:`finish`.

A run too large for one process is split by row id (:func:`partition`, the same
function for both inputs), each part is scored alone (:func:`score_part`) into a
:class:`Partial` of a few kilobytes, the partials are added up (:func:`merge`, in any
order and grouping) and the sum is put into words (:func:`finish`): the same
:class:`~scorer.result.ScoreResult` as :func:`scorer.evaluate` on the whole data,
value for value (``==``), with the same warnings and, for invalid input, the same
error and message (README, "Beyond one machine").

Why the values agree: every user's value is computed from that user's row alone
(exact or float by the measure's cut-off, never by the data), and a partial holds,
per measure and split, the exact integer sums of those values by denominator (or,
for float64 values, of their integer mantissas by binary exponent) and the count of
users. Integer addition is associative and commutative, so the merged sums are the
whole run's sums whatever the split; :func:`finish` divides once, rounding once, as
:func:`scorer.evaluate` does.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from scorer.align.fingerprints import string_prints
from scorer.api import (
    _align,
    _Inputs,
    _keys,
    _options_and_measures,
    _read_and_check,
    _row_findings,
    score_warnings,
    split_findings,
)
from scorer.arrays import CHUNK_ROWS, string_bytes
from scorer.check.findings import MAX_EXPONENTIAL_GRADE, Wording, merge_findings, raise_findings
from scorer.check.validate import (
    SOLUTION,
    SUBMISSION,
    grade_columns,
    solution_columns,
    wording,
)
from scorer.errors import Finding, HostVisibleError, ParticipantVisibleError, ScorerError
from scorer.measures import Measure, parse_all
from scorer.measures.exact_means import ExactSums, MicroSums, SplitMeans
from scorer.options import OPTION, Options
from scorer.policy import SPLITS, no_scorable_user, sort_users, split_labels
from scorer.read.columns import to_string_array
from scorer.read.files import ReadLimits
from scorer.read.inputs import TableLike, as_string_table
from scorer.result import ScoreResult

#: The version of a partial's JSON form; :meth:`Partial.from_json` refuses others.
VERSION = 1

# Where a part's input was found invalid, in the order evaluate raises: the
# solution's rows (host), the submission (participant), the solution's grades (host).
_SOLUTION_ROWS, _SUBMISSION, _GRADES = 1, 2, 3
_GRADE_KINDS = frozenset({"grades_mismatch", "invalid_grades", "exponential_grades"})


def partition(row_ids: Any, n_parts: int, seed: int = 0) -> np.ndarray:
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

    Returns
    -------
    ndarray of int64

    Examples
    --------
    >>> partition(["u1", " U1", "U1 ", "u3", "7", 7, "7.0", "007"], 4).tolist()
    [3, 3, 3, 0, 3, 3, 3, 3]
    """
    if isinstance(n_parts, bool) or not isinstance(n_parts, (int, np.integer)) or n_parts < 1:
        raise HostVisibleError(
            "The 'n_parts' parameter must be an int in the range [1, inf). "
            f"Got {n_parts!r} instead."
        )
    key = (_PRINT_MULTIPLIER, (seed * 0xD1B54A32D192ED03 + 0x632BE59BD9B4E019) % 2**64)
    chunks = row_ids.chunks if isinstance(row_ids, pa.ChunkedArray) else [row_ids]
    if not all(isinstance(chunk, pa.Array) and _is_text(chunk) for chunk in chunks):
        chunks = [to_string_array(row_ids)]  # integers as their text, as evaluate reads them
    hashes = np.empty(sum(len(chunk) for chunk in chunks), dtype=np.uint64)
    done = 0
    for chunk in chunks:  # Arrow's chunks (a CSV reader's blocks), each cut to CHUNK_ROWS
        for start in range(0, len(chunk), CHUNK_ROWS):
            normal = _normalised(pc.fill_null(chunk.slice(start, CHUNK_ROWS), ""))
            prints = string_prints(normal, key).view(np.uint64)  # type: ignore[union-attr]
            hashes[done : done + len(normal)] = _mix(prints)
            done += len(normal)
    return (hashes % np.uint64(n_parts)).astype(np.int64)


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
    data = string_bytes(ids if pa.types.is_large_string(ids.type) else _large(ids))
    if data is not None and (len(data) == 0 or int(data.max()) < 128):
        lower = pc.ascii_lower(ids)
        left = pc.ascii_ltrim(lower, characters=_ASCII_SPACE + "0")
        return pc.ascii_rtrim(left, characters=_ASCII_SPACE + "0.").cast(pa.large_string())
    left = pc.utf8_ltrim(pc.utf8_lower(ids), characters=_SPACE + "0")
    return pc.utf8_rtrim(left, characters=_SPACE + "0.").cast(pa.large_string())


def _large(ids: pa.Array) -> pa.Array:
    """A ``string`` array as ``large_string`` without copying its bytes (only its
    offsets are widened)."""
    if len(ids) == 0 or ids.buffers()[1] is None:
        return ids.cast(pa.large_string())
    offsets = np.frombuffer(ids.buffers()[1], dtype=np.int32)
    offsets = offsets[ids.offset : ids.offset + len(ids) + 1]
    buffers = [None, pa.py_buffer(offsets.astype(np.int64)), ids.buffers()[2]]
    return pa.Array.from_buffers(pa.large_string(), len(ids), buffers)


def _mix(z: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: every input bit moves about half the output bits."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


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
            },
            sort_keys=True,
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str) -> Partial:
        """A partial from :meth:`to_json`'s text.

        Raises
        ------
        HostVisibleError
            The text is not a partial of this version.
        """
        try:
            data = json.loads(text)
            if not isinstance(data, dict):
                raise TypeError(f"a JSON object was expected, not {type(data).__name__}")
            version = data.get("version")
            if version != VERSION:
                raise HostVisibleError(
                    f"A partial of version {VERSION} was expected (made by this version of "
                    f"the scorer). Got version {version!r} instead: score every part with "
                    "one version."
                )
            partial = cls(
                settings=data["settings"],
                stage=int(data["stage"]),
                problems=tuple(_finding_of(f) for f in data["problems"]),
                notes=tuple(_finding_of(f) for f in data["notes"]),
                warnings=tuple(_finding_of(f) for f in data["warnings"]),
                counts={str(k): int(v) for k, v in data["counts"].items()},
                sums={name: _sums_of(value) for name, value in data["sums"].items()},
                hits_at_rank=tuple(int(h) for h in data["hits_at_rank"]),
                max_grades=tuple(int(g) for g in data["max_grades"]),
            )
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise HostVisibleError(
                f"The text is not a partial's JSON form (Partial.to_json): {exc}."
            ) from exc
        if partial.fingerprint != data["fingerprint"]:
            raise HostVisibleError(
                "The partial's settings do not match its fingerprint: the text was altered."
            )
        return partial


def _finding_json(finding: Finding) -> dict[str, Any]:
    return {
        "kind": finding.kind,
        "counts": [[name, str(value)] for name, value in finding.counts],
        "examples": list(finding.examples),
        "values": list(finding.values),
    }


def _finding_of(data: dict[str, Any]) -> Finding:
    return Finding(
        str(data["kind"]),
        tuple((str(name), int(value)) for name, value in data["counts"]),
        tuple(str(e) for e in data["examples"]),
        tuple(str(v) for v in data["values"]),
    )


def _sums_json(sums: ExactSums | MicroSums) -> dict[str, Any]:
    if isinstance(sums, MicroSums):
        return {"micro": [[str(n), str(d)] for n, d in sums.by_label]}
    return {
        "exponents": sums.exponents,
        "by_label": [{str(k): str(v) for k, v in found.items()} for found in sums.by_label],
    }


def _sums_of(data: dict[str, Any]) -> ExactSums | MicroSums:
    if "micro" in data:
        return MicroSums(tuple((int(n), int(d)) for n, d in data["micro"]))
    by_label = tuple({int(k): int(v) for k, v in found.items()} for found in data["by_label"])
    return ExactSums(by_label, bool(data["exponents"]))


def score_part(
    solution: TableLike,
    submission: TableLike,
    row_id_column_name: str | None = None,
    *,
    max_grade: int | None = None,
    limits: ReadLimits | None = None,
    metrics: str | Measure | Sequence[str | Measure] | None = None,
    candidates: TableLike | None = None,
    **options: Any,
) -> Partial:
    """Score one part of a run: both inputs restricted to the same row ids' part
    (:func:`partition`).

    Takes :func:`scorer.evaluate`'s arguments (but ``per_user`` and
    ``segment_column_name``: a partial holds no per-user values). Unlike it, a part
    with no scorable user is no error (another part may have them), and an invalid
    part raises nothing: its problems are kept as records for :func:`finish`. Only the
    wide layout is supported so far: the long layout, trec_eval files, candidates,
    ``unjudged="drop"``, target types and ``missing_rows="empty"`` are refused (README,
    "Beyond one machine").

    Parameters
    ----------
    max_grade : int, optional
        ERR's and nERR's default ``max_grade``: the largest grade in the *whole*
        solution, which a part cannot see. Without it each part takes its own
        largest grade, and :func:`finish` refuses parts that disagree.

    Raises
    ------
    HostVisibleError, ParticipantVisibleError
        A problem that is the same in every part (a column missing, a bad option), or
        an option not yet supported when split into parts.

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
    option_values, measures = _options_and_measures(metrics, **options)
    _refuse_shapes(option_values, candidates)
    _check_max_grade(max_grade, measures)
    solution = as_string_table(solution, HostVisibleError, limits)
    names, grade_name = grade_columns(solution.names, option_values.grade_column_name)
    words = wording(solution_columns(names, row_id_column_name), option_values, grade_name or "")
    settings = {
        "options": asdict(option_values),
        "measures": [str(m) for m in measures],
        "legacy": metrics is None,
        "max_grade": max_grade,
        "wording": asdict(words),
    }
    try:
        inputs = _Inputs(solution, submission, row_id_column_name, None, None)
        exponential = tuple(str(m) for m in measures if m.exponential)
        checked = _read_and_check(inputs, option_values, limits, exponential, every_quote=True)
    except ScorerError as error:
        if not error.findings:
            raise
        return _invalid(settings, error, solution.n_rows)
    notes = checked.submission.notes if checked.submission is not None else ()
    aligned = _align(checked, option_values.k)
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
        **{f"label_{label}": int(per_label[label]) for label in range(len(SPLITS))},
    }
    return Partial(
        settings,
        notes=notes,
        warnings=tuple(_row_findings(checked.solution, aligned, option_values)),
        counts=counts,
        sums={name: value.split_sums(labels, len(SPLITS)) for name, value in values.items()},
        hits_at_rank=_trimmed(hits),
        max_grades=_default_max_grades(measures, max_grade, judgements.max_grade),
    )


def _invalid(settings: dict[str, Any], error: ScorerError, n_users: int) -> Partial:
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
    return Partial(settings, stage, problems, notes, counts={"n_users": n_users})


#: The options of other shapes than the wide layout, several targets per row id and
#: missing rows scored as empty: not yet supported in parts.
_SHAPE_OPTIONS = (
    "missing_rows",
    "target_type_column_name",
    "row_id_type_separator",
    "type_weights",
    "layout",
    "solution_layout",
    "rank_column_name",
    "score_column_name",
    "format",
    "candidates_column_name",
    "candidate_rule",
    "unjudged",
)


def _refuse_shapes(options: Options, candidates: TableLike | None) -> None:
    """Refuse the long layout, trec_eval files, candidates, dropped unjudged items,
    target types and missing rows scored as empty: their problems, warnings or weighted
    totals are not yet records that parts can merge."""
    given = [
        f"{name}={getattr(options, name)!r}"
        for name in _SHAPE_OPTIONS
        if getattr(options, name) != OPTION[name].default
    ]
    if candidates is not None:
        given.append("candidates=<table>")
    if given:
        raise HostVisibleError(
            f"{', '.join(given)}: not yet supported when split into parts (score_part "
            "scores the wide layout, one row per row id with its items space-separated). "
            "Give each part in the wide layout without candidates, or score the whole data "
            "with scorer.evaluate."
        )


def _check_max_grade(max_grade: int | None, measures: tuple[Measure, ...]) -> None:
    """Refuse a ``max_grade`` that is no grade count, or one above the largest grade
    an exponential gain takes when a measure takes it as its own (2**max_grade would
    be a number of that many bits: a part would never finish)."""
    if max_grade is None:
        return
    if isinstance(max_grade, bool) or not isinstance(max_grade, int) or max_grade < 0:
        raise HostVisibleError(
            f"The 'max_grade' parameter must be an int in the range [0, inf). Got {max_grade!r} "
            "instead."
        )
    takers = [str(m) for m in measures if ("max_grade", None) in m.params]
    if takers and max_grade > MAX_EXPONENTIAL_GRADE:
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
    first = partials[0]
    merged = first
    for other in partials[1:]:
        merged = _merge_two(merged, other)
    return merged


def _merge_two(a: Partial, b: Partial) -> Partial:
    if a.settings != b.settings:
        raise HostVisibleError(
            "Partials made with different options, measures or columns cannot be "
            f"merged (fingerprints {a.fingerprint} and {b.fingerprint}): score every part "
            "with the same arguments."
        )
    settings = a.settings
    stages = [s for s in (a.stage, b.stage) if s]
    stage = min(stages) if stages else 0
    problems = [p.problems for p in (a, b) if p.stage == stage and stage]
    sums = dict(a.sums)
    for name, value in b.sums.items():
        sums[name] = sums[name].plus(value) if name in sums else value
    counts = dict(a.counts)
    for name, value in b.counts.items():
        mine = counts.get(name, 0)
        counts[name] = max(mine, value) if name in _LARGEST else mine + value
    longer = max(len(a.hits_at_rank), len(b.hits_at_rank))
    padded = [list(h) + [0] * (longer - len(h)) for h in (a.hits_at_rank, b.hits_at_rank)]
    return Partial(
        settings,
        stage,
        tuple(merge_findings(*problems)),
        tuple(merge_findings(a.notes, b.notes)),
        tuple(merge_findings(a.warnings, b.warnings)),
        counts,
        sums,
        tuple(x + y for x, y in zip(*padded, strict=True)),
        tuple(sorted(set(a.max_grades) | set(b.max_grades))),
    )


# Counts merged by their largest value: the widest ranking, whether ``Usage`` is there.
_LARGEST = frozenset({"width", "usage"})

# Ranks past the widest row hold no hit: as scorer.api, hits per rank stop there once
# past this many.
_HITS_AT_RANK_MIN_LENGTH = 1000


def finish(partial: Partial) -> ScoreResult:
    """The result of the whole run, as :func:`scorer.evaluate` gives it.

    The per-user arrays (``user_values``, ``per_user`` and the like) are not part of a
    partial: they stay empty.

    Raises
    ------
    ParticipantVisibleError, HostVisibleError
        As :func:`scorer.evaluate` raises them for the whole data, with the same
        message; or parts that took different largest grades as ERR's ``max_grade``.
    """
    settings = partial.settings
    options = Options(**settings["options"])
    words = Wording(**settings["wording"])
    if partial.stage:
        if partial.stage == _SUBMISSION:
            findings = [
                _with_rows(f, partial.counts.get("n_users", 0))
                for f in merge_findings(partial.problems, partial.notes)
            ]
            raise_findings(findings, ParticipantVisibleError, SUBMISSION, words)
        raise_findings(partial.problems, HostVisibleError, SOLUTION, words)
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
    measures = parse_all(settings["measures"], options.k)
    means = {name: sums.split_means(label_counts) for name, sums in partial.sums.items()}
    names = [str(m) for m in measures]
    overall = {name: float(means[name].overall) for name in names}  # type: ignore[arg-type]
    has_usage = counts.get("usage", 0) > 0
    splits = _splits(means, names, has_usage)
    split_scores = {split: (found or {}).get(names[0]) for split, found in splits.items()}
    warnings = score_warnings([*partial.warnings, *split_findings(split_scores, has_usage)])
    return ScoreResult(
        score=overall[names[0]],
        public_score=split_scores["Public"],
        private_score=split_scores["Private"],
        n_users=counts.get("n_users", 0),
        n_scored=n_scored,
        n_skipped=counts.get("n_skipped", 0),
        n_ignored=counts.get("n_ignored", 0),
        options=options,
        warnings=warnings,
        metrics=overall,
        public_metrics=splits["Public"],
        private_metrics=splits["Private"],
        measures=tuple(names),
        keys=_keys(measures, settings["legacy"]),
        hits_at_rank=_hits_at_rank(partial, options.k),
    )


def _with_rows(finding: Finding, n_users: int) -> Finding:
    """ "Missing rows" says how many rows the whole solution has: every part's."""
    if finding.kind != "missing_rows":
        return finding
    counts = tuple((k, n_users if k == "solution_rows" else v) for k, v in finding.counts)
    return replace(finding, counts=counts)


def _splits(
    means: dict[str, SplitMeans], names: list[str], has_usage: bool
) -> dict[str, dict[str, float] | None]:
    """Each split's means (``None`` without ``Usage`` or without a scored user)."""
    return {
        split: None
        if not has_usage or means[names[0]].by_label[label] is None
        else {name: means[name].by_label[label] for name in names}  # type: ignore[misc]
        for label, split in enumerate(SPLITS)
    }


def _hits_at_rank(partial: Partial, k: int) -> np.ndarray:
    width = partial.counts.get("width", 0)
    length = min(k, max(width, _HITS_AT_RANK_MIN_LENGTH))
    hits = np.zeros(length, dtype=np.int64)
    found = np.array(partial.hits_at_rank[:length], dtype=np.int64)
    hits[: len(found)] = found
    return hits
