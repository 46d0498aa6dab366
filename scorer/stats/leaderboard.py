"""The final leaderboard: every submission scored against one solution, then ranked per
split with exact ties, rank intervals from one shared bootstrap, tiers from Holm-corrected
paired tests, and copies (:func:`leaderboard`; docs/leaderboard.md).

The solution is read once; the submissions are scored one at a time, in the byte order
of their names, each read and checked on the thread pool while the one before it is
scored, and of each only what the statistics need is kept:
its values, its per-unit parts of the leaderboard measure (:class:`~scorer.stats.ranking.Panel`)
and its rows' prints (:mod:`scorer.stats.copies`). An invalid submission is a row with
its participant message.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import os
import platform
import unicodedata
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import Future, wait
from dataclasses import asdict, dataclass, is_dataclass, replace
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from scorer import pipeline
from scorer.arrays import ahead, byte_order, one_chunk, string_bytes, string_offsets, to_numpy
from scorer.errors import HostVisibleError, ParticipantVisibleError, format_count
from scorer.options import format_defaults, row_bound, takes_options
from scorer.policy import users_to_score
from scorer.read.columns import StringTable
from scorer.read.files import DEFAULT_LIMITS
from scorer.read.inputs import TableLike, as_string_table, is_a_pipe, refuse_piped_qrels
from scorer.recipes import apply_recipe, find_recipe, override_message
from scorer.result import ScoreResult
from scorer.stats.copies import copy_key, find_copies, ranking_digest, row_prints
from scorer.stats.ranking import (
    Panel,
    SplitStatistics,
    competition_ranks,
    panel_sums,
    split_statistics,
)
from scorer.stats.resampling import (
    MAX_RESAMPLES,
    resamples_problem,
    seed_problem,
    share_problem,
)
from scorer.stats.sessions import session_parts, type_weights
from scorer.stats.standings import Audit, Leaderboard, Pair, Row, Submission
from scorer.version import __version__

_FILE_CHUNK = 2**20
_KEY_PERSON = b"rankscore copies"


@dataclass(frozen=True)
class _Source:
    """One submission to score: its name, its team and what to read."""

    name: str
    team: str
    data: TableLike

    @property
    def label(self) -> str:
        """Where the submission comes from, as every output shows it: its path
        (:func:`printable`: a byte that is not UTF-8 as its escape), or ``table``."""
        if isinstance(self.data, str | os.PathLike):
            return printable(os.fspath(self.data))
        return "table"


@takes_options()
def leaderboard(
    solution: TableLike,
    submissions: Mapping[str, TableLike] | Sequence[str | os.PathLike] | str | os.PathLike,
    *,
    teams: Mapping[str, str] | None = None,
    resamples: int = 1000,
    seed: int = 0,
    alpha: float = 0.05,
    **options: Any,
) -> Leaderboard:
    """Score every submission against one solution and rank them, per split.

    Parameters
    ----------
    solution : DataFrame, pyarrow.Table or path
        As for :func:`scorer.evaluate`; read and checked once.
    submissions : mapping of str to DataFrame, table or path; list of paths; or a directory
        A name for each (a mapping's keys; else the file name, with as many parent
        folders as tell two files of the same name apart); a directory's files, hidden
        ones left out.
    teams : mapping of str to str, optional
        Each submission's team: a team's value on a split is its best submission's.
        Without it each submission is an entry of its own.
    resamples : int, default 1000
        Poisson bootstrap resamples for the intervals, and swap patterns for the paired
        tests that are not exact; 0 gives values and ranks only.
    seed : int, default 0
        Every random draw derives from it, the splits and the valid submissions' parts
        (users equal in all of them are drawn as groups), never from the order of the
        submissions (docs/leaderboard.md, "Determinism").
    alpha : float, default 0.05
        The tiers' family-wise error rate (Holm's step-down over every pair of a split),
        and the intervals' level ``1 - alpha``.

    Returns
    -------
    Leaderboard

    Raises
    ------
    HostVisibleError
        The solution, an option or a setting is invalid, a submission file is missing,
        or a team is not given for every submission. An invalid submission does not
        raise: it is a row with its participant message.

    Examples
    --------
    >>> import pandas as pd
    >>> solution = pd.DataFrame({"id": ["u1", "u2", "u3"], "items": ["a", "b", "c"]})
    >>> runs = {"x": pd.DataFrame({"id": ["u1", "u2", "u3"], "items": ["a", "b", "z"]}),
    ...         "y": pd.DataFrame({"id": ["u1", "u2", "u3"], "items": ["a", "z", "z"]}),
    ...         "z": pd.DataFrame({"id": ["u1", "u2", "u3"], "items": ["a", "b", "z"]})}
    >>> board = leaderboard(solution, runs, k=1, resamples=200)
    >>> [(row.rank, row.entry, round(row.value, 4), row.tier) for row in board.table()]
    [(1, 'x', 0.6667, 1), (1, 'z', 0.6667, 1), (3, 'y', 0.3333, 1)]
    >>> board.copies.identical
    (('x', 'z'),)
    """
    scoring = _score_all(solution, submissions, teams, (resamples, seed, alpha), options)
    return _ranked(scoring, scoring.metric)


@takes_options()
def leaderboards(
    solution: TableLike,
    submissions: Mapping[str, TableLike] | Sequence[str | os.PathLike] | str | os.PathLike,
    *,
    resamples: int = 1000,
    seed: int = 0,
    alpha: float = 0.05,
    **options: Any,
) -> dict[str, Leaderboard]:
    """A :func:`leaderboard` ranked by each measure in turn, from one scoring pass (for
    ``scorer compare`` with more than two submissions): measure name -> leaderboard."""
    scoring = _score_all(solution, submissions, None, (resamples, seed, alpha), options, True)
    measures = scoring.kept.measures or (scoring.metric,)  # none valid: the options' first
    return {measure: _ranked(scoring, measure) for measure in measures}


@dataclass(frozen=True)
class _Scoring:
    """Every submission scored: the sources, their records, what is kept of them, the
    audit and the notes."""

    sources: list[_Source]
    records: list[Submission]
    kept: _Kept
    audit: Audit
    notes: tuple[str, ...]
    first_measure: str  # as the options name it (a valid submission's name is the same)

    @property
    def metric(self) -> str:
        """The leaderboard measure."""
        return self.kept.measures[0] if self.kept.measures else self.first_measure


def _score_all(
    solution: TableLike,
    submissions: Mapping[str, TableLike] | Sequence[str | os.PathLike] | str | os.PathLike,
    teams: Mapping[str, str] | None,
    statistics: tuple[int, int, float],
    options: dict[str, Any],
    every_measure: bool = False,
) -> _Scoring:
    """Read the solution once, then score each submission in turn, keeping what the
    statistics need (of every measure, or of the first)."""
    _check_settings(*statistics)
    settings, notes = _settings(options)
    row_id_column_name = settings.get("row_id_column_name")
    sources = _sources(submissions, teams)
    limits = settings.get("limits")
    if settings.get("format") == "trec":  # trec_eval's qrels are read by path, with each run
        refuse_piped_qrels(solution)
    else:
        solution = _read_if_a_pipe(solution, limits)
        if settings.get("candidates") is not None:
            settings["candidates"] = _read_if_a_pipe(settings["candidates"], limits)
    solution_digest, key = _solution_digests(solution, limits)
    inputs = {"solution": solution_digest}
    if settings.get("candidates") is not None:
        inputs["candidates"] = input_sha256(settings["candidates"], limits)
    measures = pipeline.options_and_measures(settings)[1]
    kept = _Kept(len(sources), every_measure, {str(m): m.is_a_mean for m in measures})
    records = []
    outcomes = _scored(solution, sources, row_id_column_name, settings, key)
    # Closed on the way out, whatever ends the loop: the submission being read ahead
    # is waited for (or never begins) before an error leaves, and is not kept.
    with contextlib.closing(outcomes):
        for index, source in enumerate(sources):
            # One at a time, and not through zip(): zip keeps its last tuple, and with it
            # this submission's result, until it has the next one, scored meanwhile.
            digest, found = next(outcomes)
            if isinstance(found, ParticipantVisibleError):
                records.append(
                    Submission(source.name, source.team, source.label, digest, {}, str(found))
                )
                continue
            result, prints = found
            kept.add(index, result, prints)
            records.append(_record(source, digest, result))
            del found, result, prints  # one submission's result in memory at a time
    resamples, seed, alpha = statistics
    audit = Audit(inputs, _versions(), _jsonable(settings), seed, resamples, alpha)
    first_measure = str(measures[0])
    return _Scoring(sources, records, kept, audit, tuple(notes), first_measure)


def _read_if_a_pipe(data: Any, limits: Any) -> Any:
    """A path that is no regular file (a pipe, such as ``<(cat solution.csv)``) read
    once into a table, which is digested as a table is: its bytes could not be read a
    second time, to be scored once digested. Anything else as it is.

    Examples
    --------
    >>> _read_if_a_pipe("solution.csv", None), _read_if_a_pipe(None, None)
    ('solution.csv', None)
    """
    return as_string_table(data, HostVisibleError, limits) if is_a_pipe(data) else data


def _check_settings(resamples: Any, seed: Any, alpha: Any) -> None:
    problems = [
        resamples_problem(resamples, "resamples", 0),
        seed_problem(seed, "seed"),
        share_problem(alpha, "alpha"),
    ]
    found = [problem for problem in problems if problem is not None]
    if found:
        raise HostVisibleError("Invalid leaderboard settings: " + "; ".join(found) + ".")


def _settings(given: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The scoring options (a recipe applied), and the note naming the options that
    replaced the recipe's."""
    if given.get("recipe") is None:
        return format_defaults({k: v for k, v in given.items() if k != "recipe"}), []
    name = given["recipe"]
    settings, overrides = apply_recipe(name, {k: v for k, v in given.items() if k != "recipe"})
    notes = [override_message(find_recipe(name).name, overrides)] if overrides else []
    return format_defaults(settings), notes


def _sources(
    submissions: Mapping[str, TableLike] | Sequence[str | os.PathLike] | str | os.PathLike,
    teams: Mapping[str, str] | None,
) -> list[_Source]:
    """The submissions named, in the byte order of their names, with their teams."""
    if isinstance(submissions, Mapping):
        named = dict(submissions)
        bad = [name for name in named if not isinstance(name, str) or not name]
        if bad:
            raise HostVisibleError(f"Submission names must be non-empty strings; got {bad[:5]!r}.")
    elif isinstance(submissions, str | os.PathLike) and os.path.isdir(submissions):
        named = _directory(submissions)
    elif isinstance(submissions, str | os.PathLike):
        raise HostVisibleError(
            f"{os.fspath(submissions)!r} is not a directory: give the submissions as a "
            "directory, a list of paths or a mapping of name to table or path."
        )
    else:
        paths = list(submissions)
        if not all(isinstance(path, str | os.PathLike) for path in paths):
            raise HostVisibleError(
                "A list of submissions holds paths; give tables as a mapping of name to table."
            )
        named = dict(zip(submission_names(paths), paths, strict=True))
    if not named:
        raise HostVisibleError("No submission to rank: give at least one.")
    _refuse_unreadable_paths(named)
    shown = _printable_names(named, "submission names")
    team_of = _teams(sorted(named), teams)
    team_shown = _printable_names(dict.fromkeys(team_of.values()), "team names")
    return [
        _Source(shown[name], team_shown[team_of[name]], named[name])
        for name in sorted(named, key=shown.__getitem__)
    ]


def _refuse_unreadable_paths(named: dict[str, Any]) -> None:
    """Refuse, before any is scored, submission paths that are missing or not files (a
    folder among the files, a broken link)."""
    for noun, one, many, bad in (
        ("submission file", "does not exist", "do not exist", lambda p: not os.path.exists(p)),
        (
            "submission path",
            "is not a file",
            "are not files",
            lambda path: os.path.exists(path) and not os.path.isfile(path),
        ),
    ):
        found = sorted(
            name
            for name, data in named.items()
            if isinstance(data, str | os.PathLike) and bad(data)
        )
        if found:
            shown = ", ".join(_named_path(name, named[name]) for name in found[:5])
            raise HostVisibleError(
                f"{format_count(len(found), noun)} {one if len(found) == 1 else many}: "
                f"{shown}. Check the paths: each submission is one file."
            )


def _named_path(name: str, path: str | os.PathLike) -> str:
    """A submission's name, and its path when that says more.

    Examples
    --------
    >>> _named_path("a.csv", "a.csv"), _named_path("a.csv", "runs/a.csv")
    ("'a.csv'", "'a.csv' ('runs/a.csv')")
    """
    path = os.fspath(path)
    return repr(name) if path == name else f"{name!r} ({path!r})"


def printable(text: str) -> str:
    r"""``text`` as every output shows it: each control or format character, line
    separator and undecodable byte (a file name's, read as a lone surrogate) written as
    its escape, so that a name is one line of visible characters in every format.

    Examples
    --------
    >>> printable("team\ra\u202e"), printable("équipe 1")
    ('team\\x0da\\u202e', 'équipe 1')
    """
    return "".join(
        character
        if unicodedata.category(character) not in _HIDDEN_CATEGORIES
        else f"\\x{ord(character):02x}"
        if ord(character) < 0x100
        else f"\\u{ord(character):04x}"
        for character in text
    )


#: Control and format characters, line and paragraph separators, lone surrogates.
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})


def _printable_names(named: Mapping[str, Any], what: str) -> dict[str, str]:
    r"""Each name as shown (:func:`printable`); two that would show alike (their invisible
    characters escaped, any run of spaces read as one, as a page or a table renders
    them, and an accented letter written whole or as a letter and its accent) are
    refused.

    Examples
    --------
    >>> _printable_names({"a b": 1, "c\td": 2}, "names")
    {'a b': 'a b', 'c\td': 'c\\x09d'}
    >>> _printable_names({"a b": 1, "a\u00a0 b ": 2}, "names")
    Traceback (most recent call last):
    ...
    scorer.errors.HostVisibleError: 2 names show alike ... ['a b', 'a\xa0 b ']. ...
    """
    shown = {name: printable(name) for name in named}
    looks = {
        name: unicodedata.normalize("NFC", " ".join(text.split())) for name, text in shown.items()
    }
    seen = Counter(looks.values())
    alike = sorted(name for name in named if seen[looks[name]] > 1)
    if alike:
        raise HostVisibleError(
            f"{len(alike):,} {what} show alike once their invisible characters are escaped "
            f"and their spaces read as one: {alike[:5]!r}. Rename them (a file, a mapping's "
            "key or a manifest's cell)."
        )
    return shown


def _directory(folder: str | os.PathLike) -> dict[str, str]:
    """A folder's files by name (hidden files and sub-folders left out; a broken link
    kept, to be refused by name)."""
    names = sorted(
        entry.name
        for entry in os.scandir(folder)
        if not entry.name.startswith(".")
        and (entry.is_file() or (entry.is_symlink() and not os.path.exists(entry.path)))
    )
    return {name: os.path.join(folder, name) for name in names}


def submission_names(paths: Sequence[str | os.PathLike]) -> list[str]:
    """A name per path: its file name, with as many parent folders as tell it apart
    from the others (whatever their order); the same file twice is refused.

    Examples
    --------
    >>> submission_names(["runs/a/sub.csv", "runs/b/sub.csv", "other.csv"])
    ['a/sub.csv', 'b/sub.csv', 'other.csv']
    """
    parts = [Path(os.path.normpath(os.path.abspath(path))).parts for path in paths]
    seen = Counter(parts)
    if len(seen) < len(parts):
        repeated = sorted({str(Path(*p)) for p in parts if seen[p] > 1})
        raise HostVisibleError(f"The same submission file is given twice: {repeated[:5]!r}.")
    depth = [1] * len(parts)
    while True:  # at most one pass per folder level
        names = ["/".join(p[-d:]) for p, d in zip(parts, depth, strict=True)]
        taken = Counter(names)
        clashing = [i for i, name in enumerate(names) if taken[name] > 1]
        if not clashing:
            return names
        for i in clashing:
            depth[i] = min(depth[i] + 1, len(parts[i]))


def _teams(names: list[str], teams: Mapping[str, str] | None) -> dict[str, str]:
    """Each submission's team, its surrounding whitespace removed (``"Red "`` is
    ``"Red"``)."""
    if teams is None:
        return {name: name for name in names}
    if not isinstance(teams, Mapping):
        raise HostVisibleError(
            f"teams maps each submission's name to its team; got a {type(teams).__name__}."
        )
    teams = {name: team.strip() if isinstance(team, str) else team for name, team in teams.items()}
    without = [name for name in names if name not in teams]
    unknown = sorted(set(teams) - set(names))
    bad = sorted(name for name, team in teams.items() if not isinstance(team, str) or not team)
    problems = []
    if without:
        problems.append(f"{len(without):,} submissions have no team: {without[:5]!r}")
    if unknown:
        problems.append(f"teams names {len(unknown):,} unknown submissions: {unknown[:5]!r}")
    if bad:
        problems.append(f"teams must be non-empty strings; not for {bad[:5]!r}")
    if problems:
        raise HostVisibleError(
            "Give every submission a team: " + "; ".join(problems) + ". teams maps each "
            "submission's name to its team."
        )
    return {name: teams[name] for name in names}


def _solution_digests(solution: TableLike, limits: Any) -> tuple[str, tuple[int, int]]:
    """The SHA-256 of the solution's bytes, and the key of the rankings' prints derived
    from them."""
    sha256, keyed = _digests(solution, limits, keyed=True)
    return sha256, copy_key(keyed)


def _digests(data: TableLike, limits: Any, keyed: bool = False) -> tuple[str, bytes]:
    """The SHA-256 of a file's bytes (of a table: of its canonical bytes,
    :func:`_table_bytes`), and with ``keyed`` a keyed digest of the same bytes (the
    copies' key; else no bytes)."""
    digests = [hashlib.sha256()]
    if keyed:
        digests.append(hashlib.blake2b(digest_size=16, person=_KEY_PERSON))
    if isinstance(data, str | os.PathLike):
        try:
            with open(data, "rb") as handle:
                for chunk in iter(lambda: handle.read(_FILE_CHUNK), b""):
                    for digest in digests:
                        digest.update(chunk)
        except OSError as exc:
            raise HostVisibleError(
                f"Cannot read {os.fspath(data)!r}: {exc.strerror or exc}."
            ) from exc
    else:
        for piece in _table_bytes(as_string_table(data, HostVisibleError, limits)):
            for digest in digests:
                digest.update(piece)
    return digests[0].hexdigest(), digests[-1].digest() if keyed else b""


def input_sha256(data: TableLike, limits: Any = None) -> str:
    """The SHA-256 of a file's bytes, or of a table's canonical bytes
    (docs/leaderboard.md#audit)."""
    return _digests(data, limits)[0]


def _table_bytes(table: StringTable) -> Iterator[bytes]:
    """A table's canonical bytes: per column, its name's length and UTF-8 bytes, then
    its cells' end offsets (int64, little-endian), which cells are missing (one byte
    each), and the cells' bytes."""
    for name, column in zip(table.names, table.columns, strict=True):
        cells = one_chunk(column).cast(pa.large_string())
        encoded = name.encode("utf-8")
        offsets = string_offsets(cells)
        yield len(encoded).to_bytes(8, "little") + encoded
        yield (offsets[1:] - offsets[0]).astype("<i8").tobytes()
        yield to_numpy(cells.is_null()).astype(np.uint8).tobytes()
        yield string_bytes(cells).tobytes()


def _scored(
    solution: TableLike,
    sources: list[_Source],
    row_id_column_name: str | None,
    settings: dict[str, Any],
    key: tuple[int, int],
) -> Iterator[tuple[str, tuple[ScoreResult, np.ndarray] | ParticipantVisibleError]]:
    """Each source's SHA-256 and its result and rows' prints (or why it is invalid),
    one at a time, against the solution read and checked once. Each submission is
    read and checked on the thread pool while this thread ranks and scores the one
    before it (:func:`~scorer.arrays.ahead`), a file's SHA-256 taken on the pool beside
    its reading: at most two are in memory at once, and each is pure, so the outcome
    is the same whatever the timing. Where the pool has no worker (under a cap on the
    address space), each is read once the one before it is scored."""
    scoring = _Scorer(solution, row_id_column_name, settings)
    remaining = iter(sources)

    def read_next() -> tuple[Future, ...]:
        """The next source's checking and, for a file, its digest, begun (none left: ())."""
        source = next(remaining, None)
        if source is None:
            return ()
        if not isinstance(source.data, str | os.PathLike):  # a table's: taken once read
            return (ahead(scoring.checked, source, key),)
        digest = ahead(input_sha256, source.data, scoring.limits)
        return ahead(scoring.checked, source, key, digest), digest

    pending = read_next()
    while pending:
        digest, found = pending[0].result()
        pending = read_next()
        try:
            if not isinstance(found, ParticipantVisibleError):
                found = scoring.scored(found, key)
            yield digest, found
        except BaseException:
            # The next submission's reading and digest, begun, end before the error.
            wait([future for future in pending if not future.cancel()])
            raise
        # The caller keeps what it needs of it: let it go before the next is scored.
        del found


class _Scorer:
    """:func:`scorer.evaluate`'s stages with the solution's half run once: each
    submission is then read and checked (:meth:`checked`, with its file's digest and
    the prints of the rankings it gives each solution row,
    :func:`~scorer.stats.copies.row_prints`), then ranked and scored against it
    (:meth:`scored`)."""

    def __init__(
        self,
        solution: TableLike,
        row_id_column_name: str | None,
        settings: dict[str, Any],
    ) -> None:
        self.legacy = settings.get("metrics") is None
        options, self.measures = pipeline.options_and_measures(settings)
        candidates = settings.get("candidates")
        self.keep_candidates = pipeline.keeps_candidates(self.measures, options, candidates)
        self.scored_predictions = pipeline.scored_predictions(self.measures, options)
        self.inputs = pipeline.Inputs(
            solution,
            None,
            row_id_column_name,
            settings.get("segment_column_name"),
            settings.get("candidates"),
        )
        self.limits = settings.get("limits")
        self.options = options
        self.exponential = tuple(str(m) for m in self.measures if m.exponential)
        self.half = None  # trec_eval's files: each run read with the qrels, judged as read
        if options.format != "trec":
            self.half = pipeline.solution_half(
                self.inputs, options, self.limits, self.exponential, None
            )
            self.half.truth.result()  # raises here if the solution's items are invalid
            pipeline.refuse_empty_solution(len(self.half.solution.row_ids))
            self.half.solution.row_id_index.keep()  # every submission probes it

    def checked(
        self, source: _Source, key: tuple[int, int], digest: Future[str] | None = None
    ) -> tuple[str, pipeline.Checked | ParticipantVisibleError]:
        """The source's SHA-256 (``digest``'s, when taken beside this), and it read and
        checked (or why it is invalid); a run of trec_eval's files is judged as read,
        its rows' prints made with ``key``."""
        data = source.data
        if not isinstance(data, str | os.PathLike):
            try:
                data = as_string_table(data, ParticipantVisibleError, self.limits)
            except ParticipantVisibleError as exc:
                return "", exc
        try:
            found = self._checked_data(data, key)
        except BaseException:
            if digest is not None and not digest.cancel():
                wait([digest])  # the file's digest, begun, ends before the error
            raise
        return digest.result() if digest is not None else input_sha256(data, self.limits), found

    def _checked_data(
        self, data: Any, key: tuple[int, int]
    ) -> pipeline.Checked | ParticipantVisibleError:
        """The submission read and checked, or why it is invalid."""
        inputs = replace(self.inputs, submission=data)
        try:
            if self.half is None:
                return pipeline.read_and_check(
                    inputs, self.options, self.limits, self.exponential, copy_key=key
                )
            return pipeline.checked_against(
                self.half,
                inputs,
                self.limits,
                keep_candidates=self.keep_candidates,
                scored=self.scored_predictions,
            )
        except ParticipantVisibleError as exc:
            return exc

    def scored(
        self, checked: pipeline.Checked, key: tuple[int, int]
    ) -> tuple[ScoreResult, np.ndarray]:
        """The checked submission's rows' prints (:func:`~scorer.stats.copies.row_prints`),
        and it ranked, judged and scored."""
        options = checked.options
        if checked.row_prints is not None:  # made as the run was judged
            prints = np.asarray(checked.row_prints)
        else:
            lists, n_users = checked.submission, checked.solution.n_rows
            prints = row_prints(lists.predictions, lists.user_of_row, n_users, options.k, key)
            del lists
        aligned = pipeline.align(checked, row_bound(options.k))
        values = {str(m): m.compute(aligned.judgements) for m in self.measures}
        truth = aligned.truth
        users = users_to_score(checked.solution, truth.n_relevant, options.empty_ground_truth)
        result = pipeline.assemble_result(
            checked, aligned, values, users, self.measures, options, False, self.legacy
        )
        return result, prints


def _record(source: _Source, digest: str, result: ScoreResult) -> Submission:
    name = result.measures[0]
    values = {"overall": result.metrics[name]}
    for split, found in (("Public", result.public_metrics), ("Private", result.private_metrics)):
        if found is not None:
            values[split] = found[name]
    warnings = tuple(str(w) for w in result.warnings if w.audience == "participant")
    return Submission(source.name, source.team, source.label, digest, values, None, warnings)


class _Kept:
    """What is kept of each valid submission: every measure's values per split, its
    parts of the ranked measures (one :class:`Panel` each), and its rows' prints (their
    low 32 bits) and rankings' digest for the copies."""

    def __init__(self, n_submissions: int, every_measure: bool, means: dict[str, bool]) -> None:
        self.n_submissions = n_submissions
        self.every_measure = every_measure
        self.means = means  # each measure's name: whether its value is a mean of the rows'
        self.metrics: dict[int, dict[str, dict[str, float]]] = {}
        self.digests: dict[int, str] = {}
        self.rows: np.ndarray | None = None
        self.panels: dict[str, Panel | None] = {}
        self.units: list[np.ndarray] = []
        self.measures: tuple[str, ...] = ()
        #: Each ranked measure's scored users (row ids and masks), as the first valid
        #: submission has them; and the measures whose submissions differ there.
        self.users: dict[str, tuple[pa.Array, dict[str, np.ndarray]]] = {}
        self.unpaired: set[str] = set()
        #: Why a split has no table: its host warning, as the first valid submission's
        #: run gives it (which users a split can score is the solution's to say).
        self.empty_splits: tuple[str, ...] | None = None

    def add(self, index: int, result: ScoreResult, prints: np.ndarray) -> None:
        self.measures = result.measures
        if self.empty_splits is None:
            self.empty_splits = tuple(
                str(w) for w in result.warnings if w.code in ("no_public_users", "no_private_users")
            )
        self.metrics[index] = {
            split: dict(found)
            for split, found in (
                ("overall", result.metrics),
                ("Public", result.public_metrics),
                ("Private", result.private_metrics),
            )
            if found is not None
        }
        if self.rows is None:
            self.rows = np.zeros((self.n_submissions, len(prints)), dtype=np.uint32)
        self.rows[index] = prints.astype(np.uint32)  # the low 32 bits
        self.digests[index] = ranking_digest(prints)
        for measure in result.measures if self.every_measure else result.measures[:1]:
            if measure not in self.panels:
                whole = not self.means[measure]
                self.panels[measure] = None if whole else self._empty_panel(result, measure)
                if not whole:
                    self.users[measure] = (result.row_ids, result.measure_values(measure).masks())
            elif self.panels[measure] is not None and not self._same_users(result, measure):
                self.panels[measure] = None  # no paired statistics over different users
                self.unpaired.add(measure)
            panel = self.panels[measure]
            if panel is not None:
                _fill(panel, self.units, index, result, measure)

    def _empty_panel(self, result: ScoreResult, measure: str) -> Panel:
        panel, self.units = _empty_panel(result, measure, self.n_submissions)
        return panel

    def _same_users(self, result: ScoreResult, measure: str) -> bool:
        """Whether ``result`` scores ``measure`` over the first submission's users."""
        row_ids, masks = self.users[measure]
        found = result.measure_values(measure).masks()
        return result.row_ids.equals(row_ids) and all(
            np.array_equal(found[label], mask) for label, mask in masks.items()
        )

    def notes(self, measure: str, resamples: int) -> list[str]:
        """What the host should know about the splits, and the statistics of ``measure``."""
        return [*(self.empty_splits or ()), *self._statistics_notes(measure, resamples)]

    def _statistics_notes(self, measure: str, resamples: int) -> list[str]:
        if measure in self.unpaired:
            return [
                f"The submissions are not scored over the same users for {measure} (rows "
                "left out, with missing_rows='skip', the default for trec_eval files): the "
                "leaderboard gives its values and ranks, without intervals, paired tests "
                "or tiers. Score a missing row as 0 (missing_rows='empty', trec_eval's -c) "
                "for those."
            ]
        if measure in self.panels and self.panels[measure] is None:
            return [
                f"{measure} is not a mean over rows: the leaderboard gives its values and "
                "ranks, without intervals, paired tests or tiers."
            ]
        if resamples == 0:
            return ["resamples=0: values and ranks only, without intervals, tests or tiers."]
        return []


def _empty_panel(
    result: ScoreResult, measure: str, n_submissions: int
) -> tuple[Panel, list[np.ndarray]]:
    """A panel sized for the solution's units, and each stratum's units: its scored
    rows in their row ids' byte order (with target types: each stratum's mask)."""
    values = result.measure_values(measure)
    masks = values.masks()
    if result.by_type is not None:
        units = list(masks.values())
        found = [session_parts(result, values, mask) for mask in units]
        n_types = len(result.types)
        counts = np.vstack([parts[:, 2 * n_types :] for parts in found])
        weights = type_weights(result)
        sizes = [len(parts) for parts in found]
    else:
        by_row_id = byte_order(result.row_ids)
        units = [by_row_id[mask[by_row_id]] for mask in masks.values()]
        sizes = [len(rows) for rows in units]
        counts = np.ones((sum(sizes), 1))
        weights = np.ones(1)
    bounds = np.cumsum([0, *sizes])
    strata = {label: slice(int(bounds[i]), int(bounds[i + 1])) for i, label in enumerate(masks)}
    shape = (len(counts), n_submissions, counts.shape[1])
    bottoms = np.zeros(shape) if values.micro else None
    return Panel(np.zeros(shape), bottoms, counts, strata, weights), units


def _fill(
    panel: Panel, units: list[np.ndarray], index: int, result: ScoreResult, measure: str
) -> None:
    """Write one submission's parts of ``measure`` into its panel."""
    values = result.measure_values(measure)
    n_types = panel.counts.shape[1]
    for stratum, rows in zip(panel.strata.values(), units, strict=True):
        if result.by_type is not None:
            parts = session_parts(result, values, rows)
            panel.tops[stratum, index] = parts[:, :n_types]
            if panel.bottoms is not None:
                panel.bottoms[stratum, index] = parts[:, n_types : 2 * n_types]
        elif panel.bottoms is not None:
            panel.tops[stratum, index, 0] = values.numerator[rows]  # type: ignore[index]
            panel.bottoms[stratum, index, 0] = values.denominator[rows]  # type: ignore[index]
        else:
            panel.tops[stratum, index, 0] = values.values[rows]


_SPLIT_STRATA = {"overall": None, "Public": ["public"], "Private": ["private"]}


def _ranked(scoring: _Scoring, metric: str) -> Leaderboard:
    """Rank the entries by ``metric`` on every split and put the leaderboard together."""
    kept, audit, sources = scoring.kept, scoring.audit, scoring.sources
    valid = np.array(sorted(kept.metrics), dtype=np.int64)
    splits = [
        s for s in ("overall", "Public", "Private") if valid.size and s in kept.metrics[valid[0]]
    ]
    panel = kept.panels.get(metric)
    sums = None
    if panel is not None and audit.resamples > 0:
        sums = panel_sums(panel, valid, audit.resamples, audit.seed)
    rows: list[Row] = []
    pairs: list[Pair] = []
    undrawn = []  # splits of which no resample drew a value
    teams = sorted({source.team for source in sources})
    for split in splits or ["overall"]:
        split_rows, split_pairs, drawn = _split_rows(
            split, scoring, valid, panel, sums, teams, metric
        )
        rows += split_rows
        pairs += split_pairs
        undrawn += [] if drawn else [split]
    names = [sources[i].name for i in valid]
    prints = np.zeros((0, 0), np.uint32) if kept.rows is None else kept.rows[valid]
    copies = find_copies(names, [kept.digests[i] for i in valid], prints)
    notes = (
        *scoring.notes,
        *kept.notes(metric, audit.resamples),
        *_few_resamples(pairs, audit),
        *_undrawn(undrawn, audit.resamples),
    )
    return Leaderboard(
        metric,
        kept.measures or (metric,),
        tuple(rows),
        tuple(pairs),
        tuple(scoring.records),
        copies,
        audit,
        notes,
    )


def _few_resamples(pairs: list[Pair], audit: Audit) -> list[str]:
    """A note when no Monte-Carlo p-value can pass Holm's first step: with ``R``
    resamples it is at least ``1 / (R + 1)``, and among ``m`` pairs the smallest must be
    at most ``alpha / m``."""
    counts = Counter(pair.split for pair in pairs)
    sampled = {pair.split for pair in pairs if not pair.exact}
    most = max((counts[split] for split in sampled), default=0)
    if most == 0 or most / (audit.resamples + 1) <= audit.alpha:
        return []
    needed = most / audit.alpha
    remedy = (
        f"Give at least {math.ceil(needed):,} resamples."
        if needed <= MAX_RESAMPLES
        else f"No number of resamples taken (at most {MAX_RESAMPLES:,}) is enough: raise alpha "
        "(scorer compare: lower --level)."
    )
    return [
        f"With {audit.resamples:,} resamples a Monte-Carlo p-value is at least "
        f"1/{audit.resamples + 1:,}, and {most:,} times that is above alpha "
        f"{audit.alpha}: Holm's correction may find no pair significant, and the tiers then "
        f"do not separate entries that differ. {remedy}"
    ]


def _undrawn(splits: list[str], resamples: int) -> list[str]:
    """A note naming the splits that no resample gave a value.

    Examples
    --------
    >>> _undrawn(["Private"], 2)
    ['No resample of 2 gave Private a value (none drew one of its users, or one of each of \
its target types): its entries have no interval and no tier. Give more resamples.']
    """
    if not splits:
        return []
    return [
        f"No resample of {resamples:,} gave {' or '.join(splits)} a value (none drew one of "
        "its users, or one of each of its target types): its entries have no interval and "
        "no tier. Give more resamples."
    ]


def _split_rows(
    split: str,
    scoring: _Scoring,
    valid: np.ndarray,
    panel: Panel | None,
    sums: dict | None,
    teams: list[str],
    metric: str,
) -> tuple[list[Row], list[Pair], bool]:
    """The rows and pairs of one split, and whether the resamples (if any) gave it a
    value."""
    kept, sources, alpha = scoring.kept, scoring.sources, scoring.audit.alpha
    best: dict[str, int] = {}
    for index in valid:  # each team's best submission: the largest value, then the first name
        value = kept.metrics[index][split][metric]
        team = sources[index].team
        if team not in best or value > kept.metrics[best[team]][split][metric]:
            best[team] = int(index)
    entries = sorted(best)
    chosen = np.array([best[team] for team in entries], dtype=np.int64)
    values = np.array([kept.metrics[i][split][metric] for i in chosen])
    ranks = competition_ranks(values) if len(values) else np.zeros(0, np.int64)
    statistics = None
    if sums is not None and len(entries):
        strata = _SPLIT_STRATA[split] or list(sums)
        combined = sum((sums[s] for s in strata[1:] if s in sums), sums[strata[0]])
        statistics = split_statistics(panel, combined, valid, strata, chosen, values, alpha)  # type: ignore[arg-type]
    rows = [
        _row(split, entry, sources[chosen[i]].name, values[i], int(ranks[i]), statistics, i)
        for i, entry in enumerate(entries)
    ]
    for i, row in enumerate(rows):
        row.metrics.update(kept.metrics[chosen[i]][split])
    rows += [_invalid_row(split, team, scoring.records) for team in teams if team not in best]
    rows.sort(key=lambda row: (row.rank is None, row.rank or 0, row.entry))
    pairs = [] if statistics is None else _pairs(split, entries, values, statistics, alpha)
    return rows, pairs, statistics is not None or sums is None or not len(entries)


def _row(
    split: str,
    entry: str,
    submission: str,
    value: float,
    rank: int,
    statistics: SplitStatistics | None,
    i: int,
) -> Row:
    """Entry ``i``'s row, with its intervals and tier when there are statistics."""
    found = {}
    if statistics is not None:
        found = {
            "rank_low": int(statistics.rank_low[i]),
            "rank_high": int(statistics.rank_high[i]),
            "value_low": float(statistics.value_low[i]),
            "value_high": float(statistics.value_high[i]),
            "tier": int(statistics.tier[i]),
        }
    return Row(split, entry, submission, float(value), rank, **found)


def _invalid_row(split: str, team: str, records: list[Submission]) -> Row:
    errors = [r for r in records if r.team == team and r.error is not None]
    return Row(split, team, None, None, error=errors[0].error if errors else None)


def _pairs(
    split: str, entries: list[str], values: np.ndarray, found: SplitStatistics, alpha: float
) -> list[Pair]:
    """The split's pairs, the better entry first (by value, then by name)."""
    pairs = []
    for p, (i, j) in enumerate(zip(found.first.tolist(), found.second.tolist(), strict=True)):
        low, high = float(found.difference_low[p]), float(found.difference_high[p])  # j - i
        if values[i] < values[j] or (values[i] == values[j] and entries[j] < entries[i]):
            first, second, difference = j, i, values[j] - values[i]
        else:
            first, second, difference = i, j, values[i] - values[j]
            low, high = 0.0 - high, 0.0 - low  # i - j, never -0.0
        pairs.append(
            Pair(
                split,
                entries[first],
                entries[second],
                float(difference),
                low,
                high,
                float(found.p_value[p]),
                float(found.adjusted[p]),
                bool(found.exact[p]),
                bool(found.adjusted[p] <= alpha),
            )
        )
    return pairs


def _versions() -> dict[str, str]:
    """The versions a leaderboard was made with."""
    return {
        "python": platform.python_version(),
        "rankscore": __version__,
        "numpy": np.__version__,
        "pandas": metadata.version("pandas"),
        "pyarrow": pa.__version__,
    }


def _jsonable(settings: dict[str, Any]) -> dict[str, Any]:
    """The options as JSON values: a table as ``"table"``, read limits as their fields
    (left out when they are the defaults)."""

    def plain(value: Any) -> Any:
        if isinstance(value, str | os.PathLike):  # a path's bytes that are no UTF-8 escaped
            return printable(os.fspath(value))
        if value is None or isinstance(value, int | float | bool):
            return value
        if isinstance(value, StringTable):  # a table (read from a pipe, say): not its cells
            return "table"
        if is_dataclass(value) and not isinstance(value, type):
            return asdict(value)
        if isinstance(value, Mapping):
            return {str(k): plain(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [plain(v) for v in value]
        return "table" if hasattr(value, "shape") or isinstance(value, StringTable) else str(value)

    given = {name: value for name, value in settings.items() if name != "limits"}
    if settings.get("limits") not in (None, DEFAULT_LIMITS):  # the defaults go without saying
        given["limits"] = settings["limits"]
    return {name: plain(value) for name, value in sorted(given.items())}
