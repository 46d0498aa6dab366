"""Score Dask DataFrames exactly, part by part: :func:`evaluate` (docs/beyond-one-machine.md,
"Beyond one machine"). Needs the ``dask`` extra (``pip install "rankscore[dask]"``); nothing else
in :mod:`scorer` imports dask.

Dask only moves rows: both frames get each row's part (:func:`scorer.partial.partition`
of the row id, partition by partition), are indexed by it with the same explicit
divisions (so Dask partition ``p`` of either frame holds exactly part ``p``), and each
pair of partitions is scored by :func:`scorer.partial.score_part` in a task; the
partials come back as JSON text, a few kilobytes each, and are merged and finished.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from scorer.adapters.engines import (
    free_name,
    n_parts_of,
    part_text,
    refuse_other_frames,
    require,
    row_id_of,
    run,
)
from scorer.partial import partition
from scorer.result import ScoreResult


def evaluate(
    solution: Any,
    submission: Any,
    row_id_column_name: str | None = None,
    *,
    n_parts: int | None = None,
    part_seed: int = 0,
    **options: Any,
) -> ScoreResult:
    """:func:`scorer.evaluate` on two Dask DataFrames, scored in parts by Dask's tasks.

    The result equals :func:`scorer.evaluate`'s on the same data (the frames
    computed): every value (``==``), split, count and warning, and for invalid input
    the same error class and message. The per-user arrays stay empty, as after
    :func:`scorer.partial.finish`. It runs on the current scheduler: threads by
    default, or a ``dask.distributed`` cluster once a ``Client`` is made.

    Parameters
    ----------
    solution, submission : dask.dataframe.DataFrame
        The solution and the submission, with the columns :func:`scorer.evaluate`
        takes (read CSV files as strings: ``dtype=str``).
    row_id_column_name : str, optional
        The row-id column; the solution's first column by default.
    n_parts : int, optional
        How many parts to score: each is held whole by one task, about 650 bytes per
        user. By default one per 500,000 solution rows (the solution is counted
        first).
    part_seed : int, default 0
        The seed of :func:`scorer.partial.partition`: another seed, another split
        (and the same result).
    **options
        :func:`scorer.evaluate`'s keyword arguments, as far as
        :func:`scorer.partial.score_part` takes them.

    Returns
    -------
    ScoreResult

    Raises
    ------
    ParticipantVisibleError, HostVisibleError
        As :func:`scorer.evaluate` raises them; or dask is not installed, or an input
        is not a Dask DataFrame.

    Examples
    --------
    >>> import dask.dataframe as dd, pandas as pd, scorer, scorer.dask
    >>> solution = pd.DataFrame({"id": ["u1", "u2", "u3"], "items": ["a b", "c", "d"]})
    >>> submission = pd.DataFrame({"id": ["u3", "u2", "u1"], "items": ["d", "x", "b a"]})
    >>> result = scorer.dask.evaluate(
    ...     dd.from_pandas(solution, npartitions=2), dd.from_pandas(submission, npartitions=1),
    ...     "id", k=2, n_parts=2,
    ... )
    >>> result == scorer.evaluate(solution, submission, "id", k=2), result.score
    (True, 0.6666666666666666)
    """
    dd = require("dask.dataframe", "dask", "dask[dataframe]")
    import dask

    refuse_other_frames({"solution": solution, "submission": submission}, dd.DataFrame, "dask")
    empty = solution._meta, submission._meta  # the columns and dtypes, no row
    row_id = row_id_of(row_id_column_name, list(empty[0].columns))
    key = free_name(list(empty[0].columns), list(empty[1].columns))
    if n_parts is not None:
        n_parts_of(n_parts, lambda: 0)  # refused before any task runs

    def score_parts(part_options: dict[str, Any]) -> list[str]:
        how_many = n_parts_of(n_parts, lambda: len(solution))
        # Parts 0 .. n-1 as index, divisions 0 .. n: Dask partition p holds part p.
        divisions = list(range(how_many + 1))
        sides = [
            frame.assign(
                **{key: frame[row_id].map_partitions(_parts, how_many, part_seed, meta=(key, "i8"))}
            ).set_index(key, divisions=divisions)
            for frame in (solution, submission)
        ]
        pairs = zip(sides[0].to_delayed(), sides[1].to_delayed(), strict=True)
        tasks = [dask.delayed(_score_pair)(a, b, row_id, part_options) for a, b in pairs]
        return list(dask.compute(*tasks))

    return run(empty[0], empty[1], row_id, options, score_parts)


def _parts(ids: pd.Series, n_parts: int, seed: int) -> pd.Series:
    """Each row id's part, for one Dask partition."""
    return pd.Series(partition(ids, n_parts, seed), index=ids.index, dtype=np.int64)


def _score_pair(
    solution: pd.DataFrame, submission: pd.DataFrame, row_id: str, options: dict[str, Any]
) -> str:
    """One part (a pair of Dask partitions, the part index dropped) as its text."""
    return part_text(
        solution.reset_index(drop=True), submission.reset_index(drop=True), row_id, options
    )
