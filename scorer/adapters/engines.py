"""What the Spark and Dask front ends share (docs/beyond-one-machine.md, "Beyond one machine"): a
part scored into text an engine can ship, and the driver's side of a run (the checks
before any part runs, the merge, ERR's data-wide ``max_grade``, the result).

The engines only move rows: every value, count and message comes from
:mod:`scorer.partial`, so a front end's result is :func:`scorer.evaluate`'s.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

from scorer import errors
from scorer.errors import HostVisibleError, ScorerError
from scorer.partial import Partial, finish, merge, partition, score_part
from scorer.read.inputs import TableLike
from scorer.result import ScoreResult

#: Solution rows per part when the caller gives no ``n_parts``: a part's scoring holds
#: about 650 bytes per user, so a part needs a few hundred MB in one worker.
ROWS_PER_PART = 500_000

#: Scores every part with these options (``score_part``'s keywords) and returns the
#: parts' texts (:func:`part_text`), in any order.
ScoreParts = Callable[[dict[str, Any]], Sequence[str]]


def require(module: str, extra: str, package: str) -> ModuleType:
    """Import an optional engine, or say which extra installs it.

    Examples
    --------
    >>> require("a_module_that_is_not_there", "spark", "pyspark")
    Traceback (most recent call last):
    ...
    scorer.errors.HostVisibleError: scorer.spark needs pyspark, an optional extra. Install \
it with: python -m pip install "rankscore[spark]" (from a checkout of the source: python -m \
pip install ".[spark]").
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise HostVisibleError(
            f"scorer.{extra} needs {package}, an optional extra. Install it with: "
            f'python -m pip install "rankscore[{extra}]" (from a checkout of the source: '
            f'python -m pip install ".[{extra}]").'
        ) from exc


def refuse_other_frames(frames: dict[str, object], kind: type, front_end: str) -> None:
    """Refuse inputs that are not the engine's DataFrames, naming what was given."""
    wrong = {name: type(frame) for name, frame in frames.items() if not isinstance(frame, kind)}
    if wrong:
        given = ", ".join(
            f"{name} is a {t.__module__}.{t.__qualname__}" for name, t in wrong.items()
        )
        raise HostVisibleError(
            f"scorer.{front_end}.evaluate takes {kind.__module__}.{kind.__qualname__} inputs; "
            f"{given}. Score other tables, files and pandas DataFrames with scorer.evaluate."
        )


def part_text(
    solution: TableLike, submission: TableLike, row_id: str, options: dict[str, Any]
) -> str:
    """One part scored (:func:`scorer.partial.score_part`) as its partial's JSON text,
    or as the error it raised (its class and message), for the driver to raise."""
    try:
        return score_part(solution, submission, row_id, **options).to_json()
    except ScorerError as error:
        return json.dumps({"error": type(error).__name__, "message": str(error)})


def _partial_of(text: str) -> Partial:
    data = json.loads(text)
    if "error" in data:
        kind = getattr(errors, data["error"], HostVisibleError)
        if not (isinstance(kind, type) and issubclass(kind, ScorerError)):
            kind = HostVisibleError
        raise kind(data["message"])
    return Partial.from_json(text)


def n_parts_of(n_parts: int | None, count_rows: Callable[[], int]) -> int:
    """The number of parts: ``n_parts`` once checked, else one per :data:`ROWS_PER_PART`
    solution rows (``count_rows`` counts them).

    Examples
    --------
    >>> n_parts_of(None, lambda: 1_200_000), n_parts_of(3, lambda: 0)
    (3, 3)
    """
    if n_parts is None:
        return max(1, -(-count_rows() // ROWS_PER_PART))
    partition([], n_parts)  # refuses anything but an int >= 1, with the usual message
    return n_parts


def run(
    empty_solution: TableLike,
    empty_submission: TableLike,
    row_id: str,
    options: dict[str, Any],
    score_parts: ScoreParts,
) -> ScoreResult:
    """The driver's side of a run scored in parts by an engine.

    The inputs' empty forms (their columns, no row) are scored first, on the driver:
    what is wrong in every part (a column, an option) raises here, before any part
    runs, and a submission without the row-id column (which no engine can split)
    raises :func:`scorer.evaluate`'s error. The parts are then scored and merged.
    When ERR or nERR take the solution's largest grade as ``max_grade`` and the parts
    found different ones, the parts are scored again with the whole solution's
    largest grade, so the caller never sees :func:`scorer.partial.finish` refuse them.

    Parameters
    ----------
    empty_solution, empty_submission : DataFrame or pyarrow.Table
        The inputs' columns, as the parts hold them, without rows.
    row_id : str
        The row-id column (the solution's first column unless named).
    options : dict
        :func:`scorer.evaluate`'s keyword arguments.
    score_parts : callable
        Scores every part with the options it is given; returns their texts
        (:func:`part_text`).
    """
    empty = score_part(empty_solution, empty_submission, row_id, **options)
    if row_id not in _names(empty_submission):
        return finish(empty, whole=False)  # raises the submission's missing row-id column
    merged = merge(empty, *map(_partial_of, score_parts(options)))
    if not merged.stage and len(merged.max_grades) > 1:
        options = {**options, "max_grade": max(merged.max_grades)}
        empty = score_part(empty_solution, empty_submission, row_id, **options)
        merged = merge(empty, *map(_partial_of, score_parts(options)))
    return finish(merged)


def _names(table: TableLike) -> list[str]:
    names = getattr(table, "column_names", None)
    return list(table.columns if names is None else names)  # type: ignore[union-attr]


def row_id_of(row_id_column_name: str | None, solution_names: Sequence[str]) -> str:
    """The row-id column: the one named, else the solution's first (as
    :func:`scorer.evaluate` takes it)."""
    if row_id_column_name is not None:
        return row_id_column_name
    return solution_names[0] if solution_names else ""


def free_name(*names: Sequence[str]) -> str:
    """A column name neither input uses, for the part of each row.

    Examples
    --------
    >>> free_name(["id", "_part"], ["_part_"])
    '_part__'
    """
    taken = {name for group in names for name in group}
    name = "_part"
    while name in taken:
        name += "_"
    return name
