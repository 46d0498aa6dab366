"""Scoring a directory of Parquet parts (a partitioned dataset) part by part.

``scorer SOLUTION_DIR SUBMISSION_DIR`` reads every ``.parquet`` file under each
directory (hive-style subfolders included) ``n_parts`` times; pass ``p`` keeps, batch by
batch, only the rows whose row id falls in part ``p`` (:func:`scorer.partial.partition`,
the same for both inputs), scores them (:func:`scorer.partial.score_part`) and frees
them. The partials are merged and finished: the result is :func:`scorer.evaluate`'s on
the whole data, and the memory held at once is one part's, not the whole run's
(docs/beyond-one-machine.md, "Beyond one machine").
"""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np
import pyarrow as pa

from scorer.errors import (
    HostVisibleError,
    InputIsADirectoryError,
    ParticipantVisibleError,
    Problem,
    raise_if_any,
)
from scorer.partial import finish, merge, partition, score_part
from scorer.read.columns import StringTable
from scorer.read.files import ReadLimits, read_parquet_files, read_table
from scorer.read.limits import DEFAULT_PART_MEMORY
from scorer.result import ScoreResult

#: Bytes a scorer process holds per stored byte of Parquet input: 3.6 measured at H&M
#: scale (1,090 MiB for 307 MB; docs/beyond-one-machine.md, "Beyond one machine"), rounded up. The
#: parts are chosen so that one part's share stays within the budget.
PARQUET_EXPANSION = 4
#: The most parts a run is split into when their number is chosen from the sizes.
MAX_AUTO_PARTS = 256


def parquet_files(path: str, error: type[HostVisibleError | ParticipantVisibleError]) -> list[str]:
    """The Parquet files of a partitioned dataset, in path order: every ``*.parquet``
    file under ``path`` (subfolders included, hidden and ``_``-prefixed names such as
    ``_SUCCESS`` skipped); a file path is itself.

    Raises
    ------
    InputIsADirectoryError
        The directory holds no Parquet file: a usage error naming the path, as any
        directory given as an input was before parts.
    """
    if not os.path.isdir(path):
        return [path]
    found = []
    for folder, subfolders, names in os.walk(path):
        subfolders[:] = sorted(d for d in subfolders if not d.startswith((".", "_")))
        found += [
            os.path.join(folder, name)
            for name in names
            if name.endswith(".parquet") and not name.startswith((".", "_"))
        ]
    if not found:
        role = "submission" if issubclass(error, ParticipantVisibleError) else "solution"
        raise InputIsADirectoryError(
            f"The {role} path {path!r} is a directory holding no .parquet file. Give the "
            f"path of the {role} file itself (.csv, .csv.gz, .zip or .parquet), or a "
            "directory of Parquet parts."
        )
    return sorted(found)


def chosen_parts(files: list[str], budget: int) -> int:
    """How many parts keep one part's memory within ``budget``: the inputs' bytes times
    :data:`PARQUET_EXPANSION`, over the budget, rounded up (at most
    :data:`MAX_AUTO_PARTS`).

    Examples
    --------
    >>> chosen_parts([], 2**30)
    1
    """
    size = sum(os.path.getsize(name) for name in files)
    return max(1, min(MAX_AUTO_PARTS, math.ceil(size * PARQUET_EXPANSION / budget)))


def read_part(
    files: list[str],
    row_id_name: str,
    part: int,
    n_parts: int,
    type_separator: str | None,
    error: type[HostVisibleError | ParticipantVisibleError],
    limits: ReadLimits | None,
) -> StringTable:
    """One part's rows of every file (read batch by batch by the hardened reader, which
    checks every row and keeps only the part's), as one table; the files must share
    their columns."""

    def keep(columns: dict[str, pa.Array]) -> np.ndarray:
        if row_id_name not in columns:  # the checks name the missing column
            return np.zeros(len(next(iter(columns.values()), [])), dtype=bool)
        return partition(columns[row_id_name], n_parts, type_separator=type_separator) == part

    tables = read_parquet_files(files, error, limits, keep if n_parts > 1 else None)
    names = tables[0].names
    differing = [
        os.path.basename(f) for f, t in zip(files, tables, strict=True) if t.names != names
    ]
    if differing:
        raise_if_any(
            [
                Problem(
                    "Parts with other columns",
                    f"the columns {list(names)} in every file, as in "
                    f"{os.path.basename(files[0])!r}",
                    f"{len(differing):,} file(s) with others, e.g. {differing[0]!r}",
                    "write every part with the same columns",
                )
            ],
            error,
            "The input",
        )
    columns = tuple(pa.concat_arrays([t.columns[i] for t in tables]) for i in range(len(names)))
    return StringTable(names, columns)


def evaluate_parts(
    solution: str,
    submission: str,
    n_parts: int | None = None,
    *,
    part_memory: int = DEFAULT_PART_MEMORY,
    resamples: int = 0,
    seed: int = 0,
    level: float = 0.95,
    row_id_column_name: str | None = None,
    limits: ReadLimits | None = None,
    **options: Any,
) -> ScoreResult:
    """:func:`scorer.evaluate` on Parquet parts, one part of the row ids at a time.

    Parameters
    ----------
    solution, submission : str
        A directory of Parquet files (or one Parquet file).
    n_parts : int, optional
        How many passes; by default chosen from the inputs' sizes and ``part_memory``
        (:func:`chosen_parts`).
    resamples, seed, level
        The Poisson bootstrap's (``result.intervals``); none by default.

    Raises
    ------
    HostVisibleError
        Options a part cannot take here (a target type column, trec_eval files), or
        :func:`scorer.evaluate`'s errors.
    """
    if isinstance(part_memory, bool) or not isinstance(part_memory, int) or part_memory < 1:
        raise HostVisibleError(
            "The 'part_memory' parameter (--part-memory) must be an int in the range [1, inf), "
            f"a number of bytes such as 2GiB. Got {part_memory!r} instead."
        )
    if options.pop("segment_column_name", None) is not None:
        raise HostVisibleError(
            "--segment-column-name is not available when the inputs are scored in parts."
        )
    if options.get("format", "table") != "table" or options.get("target_type_column_name"):
        raise HostVisibleError(
            "Parquet parts are scored with table inputs and without a target type column "
            "(format='trec' and target_type_column_name need the whole solution): give "
            "types in the row ids (--row-id-type-separator), or one file per input."
        )
    solution_files = parquet_files(solution, HostVisibleError)
    submission_files = parquet_files(submission, ParticipantVisibleError)
    if n_parts is None:
        n_parts = chosen_parts(solution_files + submission_files, part_memory)
    row_id_name = row_id_column_name or _first_column(solution_files[0], limits)
    separator = options.get("row_id_type_separator")
    partials = []
    for part in range(n_parts):
        solution_part = read_part(
            solution_files, row_id_name, part, n_parts, separator, HostVisibleError, limits
        )
        submission_part = read_part(
            submission_files, row_id_name, part, n_parts, separator, ParticipantVisibleError, limits
        )
        partials.append(
            score_part(
                solution_part,
                submission_part,
                row_id_name,
                limits=limits,
                resamples=resamples,
                seed=seed,
                **options,
            )
        )
        del solution_part, submission_part
    return finish(merge(*partials), level=level)


def _first_column(path: str, limits: ReadLimits | None) -> str:
    """The solution's first column (the default row-id column), from a read that keeps
    no row."""
    table = read_table(path, HostVisibleError, limits, _nothing)
    if not table.names:
        raise HostVisibleError(f"The solution's part {os.path.basename(path)!r} has no columns.")
    return table.names[0]


def _nothing(columns: dict[str, pa.Array]) -> np.ndarray:
    return np.zeros(len(next(iter(columns.values()))) if columns else 0, dtype=bool)
