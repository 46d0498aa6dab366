"""Codabench / CodaLab scoring program: ``scorer codabench INPUT_DIR OUTPUT_DIR``.

The platform puts the reference data (the solution) in ``INPUT_DIR/ref/`` and the
participant's unzipped submission in ``INPUT_DIR/res/``, runs the scoring program
and reads ``OUTPUT_DIR/scores.json``, whose keys are the leaderboard's column keys.
This module only finds the two files, calls :func:`scorer.evaluate` and writes the
scores; it never writes a file named ``metadata`` (the platform's own) in OUTPUT_DIR.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import scorer
from scorer.errors import MAX_EXAMPLES, HostVisibleError, ParticipantVisibleError, ScorerError
from scorer.io import write_atomic
from scorer.result import ScoreResult

SCORES_FILE = "scores.json"
_PLATFORM_FILES = {"metadata", "metadata.json", "metadata.yaml"}


def scores(result: ScoreResult, public_only: bool = False) -> dict[str, float]:
    """The ``scores.json`` content: each measure, and its Public/Private values when present.

    Keys are the measures' canonical names as keys (``MAP@10`` -> ``map_at_10``,
    ``nDCG(gain=linear)@10`` -> ``ndcg_gain_linear_at_10``), suffixed ``_public`` /
    ``_private`` for the splits. With ``public_only``, only the ``_public`` keys (for a
    leaderboard phase whose scoring output participants may read).

    Examples
    --------
    >>> import pandas as pd
    >>> solution = pd.DataFrame({"id": ["u1", "u2"], "items": ["a", "b"],
    ...                          "Usage": ["Public", "Private"]})
    >>> submission = pd.DataFrame({"id": ["u1", "u2"], "items": ["a", "x b"]})
    >>> scores(scorer.evaluate(solution, submission, k=2))
    {'map_at_2': 0.75, 'map_at_2_public': 1.0, 'map_at_2_private': 0.5}
    >>> scores(scorer.evaluate(solution, submission, k=2), public_only=True)
    {'map_at_2_public': 1.0}
    >>> scores(scorer.evaluate(solution, submission, k=2, metrics=["P@1", "nDCG"]))
    {'p_at_1': 0.5, 'p_at_1_public': 1.0, 'p_at_1_private': 0.0, 'ndcg_at_2': 0.8154648767857288, \
'ndcg_at_2_public': 1.0, 'ndcg_at_2_private': 0.6309297535714575}
    """
    if public_only and result.public_metrics is None:
        raise HostVisibleError(
            "public_only needs a solution with a Usage column and at least one scorable Public row."
        )
    values: dict[str, float] = {}
    for name, value in result.metrics.items():
        key = result.key(name)
        if not public_only:
            values[key] = value
        for split, split_values in (
            ("public", result.public_metrics),
            ("private", None if public_only else result.private_metrics),
        ):
            if split_values is not None:
                values[f"{key}_{split}"] = split_values[name]
    return values


def find_single_file(folder: str | os.PathLike, error: type[ScorerError], role: str) -> Path:
    """The one data file under ``folder``: hidden files, ``__MACOSX`` and the platform's
    ``metadata`` files are ignored.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> for name in ("metadata", ".DS_Store", "submission.csv"):
    ...     _ = (folder / name).write_text("x")
    >>> find_single_file(folder, ParticipantVisibleError, "submission").name
    'submission.csv'
    """
    root = Path(folder)
    if not root.is_dir():
        raise error(f"No {role} directory: {root.name!r} is missing from the input directory.")
    found = sorted(
        path
        for path in root.rglob("*")
        if path.is_file()
        and path.name not in _PLATFORM_FILES
        and not any(
            part.startswith(".") or part == "__MACOSX" for part in path.relative_to(root).parts
        )
    )
    if len(found) != 1:
        names = ", ".join(repr(str(p.relative_to(root))) for p in found[:MAX_EXAMPLES]) or "none"
        raise error(
            f"Expected exactly one {role} file; found {len(found)}: {names}. "
            f"Put a single CSV (or .csv.gz, .zip, .parquet) file in the {role} zip."
        )
    return found[0]


def score_directories(
    input_dir: str | os.PathLike,
    output_dir: str | os.PathLike,
    public_only: bool = False,
    **options: Any,
) -> tuple[dict[str, float], ScoreResult]:
    """Score ``INPUT_DIR/res/`` against ``INPUT_DIR/ref/`` and write ``OUTPUT_DIR/scores.json``.

    Parameters
    ----------
    input_dir, output_dir : str or os.PathLike
        The directories the platform gives the scoring program.
    public_only : bool, default False
        Write only ``map_at_K_public`` (see :func:`scores`).
    **options
        Keyword arguments of :func:`scorer.evaluate` (``k``, ``limits``, ...).

    Returns
    -------
    scores : dict
        What was written to ``scores.json``.
    result : ScoreResult
        The full result.

    Raises
    ------
    ParticipantVisibleError
        No single submission file, or an invalid submission; nothing is written.
    HostVisibleError
        No single solution file, an invalid solution or option, or OUTPUT_DIR
        cannot be written.
    """
    solution = find_single_file(Path(input_dir, "ref"), HostVisibleError, "solution")
    submission = find_single_file(Path(input_dir, "res"), ParticipantVisibleError, "submission")
    result = scorer.evaluate(solution, submission, **options)
    values = scores(result, public_only)
    text = json.dumps(values, allow_nan=False) + "\n"
    try:
        os.makedirs(output_dir, exist_ok=True)
        write_atomic(Path(output_dir, SCORES_FILE), text)
    except OSError as exc:
        raise HostVisibleError(
            f"Cannot write {SCORES_FILE} in {os.fspath(output_dir)!r}: {exc}"
        ) from exc
    return values, result
