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
import stat
from pathlib import Path
from typing import Any

import scorer
from scorer.errors import (
    MAX_EXAMPLES,
    HostVisibleError,
    ParticipantVisibleError,
    Problem,
    ScorerError,
)
from scorer.read.files import write_atomic
from scorer.result import ScoreResult

SCORES_FILE = "scores.json"
_PLATFORM_FILES = {"metadata", "metadata.json", "metadata.yaml"}


def scores(result: ScoreResult, public_only: bool = False) -> dict[str, float]:
    """The ``scores.json`` content: each measure, and its Public/Private values when present.

    Keys are the measures' canonical names as keys (``MAP@10`` -> ``map_at_10``,
    ``nDCG(gain=linear)@10`` -> ``ndcg_gain_linear_at_10``), suffixed ``_public`` /
    ``_private`` for the splits; with target types, each type's values follow, the
    type appended (``recall_at_20_clicks``, ``recall_at_20_clicks_public``). With
    ``public_only``, only the ``_public`` keys (for a leaderboard phase whose scoring
    output participants may read).

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
        expected = "a solution with a Usage column and at least one scorable Public row"
        raise HostVisibleError(
            f"public_only needs {expected}.",
            [Problem("No scorable Public row", expected, "none", "leave out public_only")],
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
    # With target types, each type's values too (``recall_at_20_clicks``, ``..._public``).
    for split in ("public",) if public_only else ("", "public", "private"):
        values.update(result.typed_keys(split))
    return values


#: The deepest folder, and the most entries, searched for the one data file: a crafted
#: archive can hold millions of entries or folders nested a thousand deep.
MAX_DEPTH = 32
MAX_ENTRIES = 10_000


def find_single_file(folder: str | os.PathLike, error: type[ScorerError], role: str) -> Path:
    """The one data file under ``folder``: hidden files, ``__MACOSX`` and the platform's
    ``metadata`` files are ignored.

    The folder is walked without following links, at most :data:`MAX_DEPTH` folders
    deep and :data:`MAX_ENTRIES` entries in all. Only regular files are read: a
    symbolic link (to a file or a folder), a FIFO, a socket or a device is refused,
    and so is a file that resolves outside ``folder``. The messages name the entries
    as they are in ``folder``, never what a link points to.

    Raises
    ------
    ScorerError
        ``error``: no folder, not exactly one data file, a link or special file, or
        a folder too deep or too large.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> for name in ("metadata", ".DS_Store", "submission.csv"):
    ...     _ = (folder / name).write_text("x")
    >>> find_single_file(folder, ParticipantVisibleError, "submission").name
    'submission.csv'
    >>> (folder / "submission.csv").unlink()
    >>> (folder / "submission.csv").symlink_to(folder / "metadata")
    >>> find_single_file(folder, ParticipantVisibleError, "submission")
    Traceback (most recent call last):
    ...
    scorer.errors.ParticipantVisibleError: The submission folder holds 1 entry that is not a
    regular file (a symbolic link, or a special file): 'submission.csv'. ...
    """
    root = Path(folder)
    if not root.is_dir():
        raise error(f"No {role} directory: {root.name!r} is missing from the input directory.")
    found, refused = _walk(root, error, role)
    if refused:
        names = ", ".join(repr(name) for name in refused[:MAX_EXAMPLES])
        raise error(
            f"The {role} folder holds "
            f"{'1 entry that is' if len(refused) == 1 else f'{len(refused):,} entries that are'}"
            " not a regular file (a symbolic link, or a "
            f"special file): {names}. Only regular files are read: put the file itself in "
            f"the {role} zip, not a link to it."
        )
    if len(found) != 1:
        names = ", ".join(repr(name) for name in found[:MAX_EXAMPLES]) or "none"
        raise error(
            f"Expected exactly one {role} file; found {len(found)}: {names}. "
            f"Put a single CSV (or .csv.gz, .zip, .parquet) file in the {role} zip."
        )
    path = root / found[0]
    if not _inside(path, root):  # only a folder swapped while it was searched gets here
        raise error(f"The {role} file {found[0]!r} is outside the {role} folder: not read.")
    return path


def _walk(root: Path, error: type[ScorerError], role: str) -> tuple[list[str], list[str]]:
    """The data files and the refused entries under ``root``, as sorted relative paths."""
    found: list[str] = []
    refused: list[str] = []
    pending = [(root, "", 0)]
    n_entries = 0
    while pending:
        folder, prefix, depth = pending.pop()
        try:
            listing = os.scandir(folder)
        except OSError as exc:  # an archive can hold a folder its mode makes unreadable
            where = repr(prefix.rstrip("/")) if prefix else "itself"
            raise error(
                f"The {role} folder {where} cannot be read ({exc.strerror or exc}): put a "
                f"single readable file in the {role} zip."
            ) from None
        with listing as entries:
            for entry in entries:
                n_entries += 1
                if n_entries > MAX_ENTRIES:
                    raise error(
                        f"The {role} folder holds more than {MAX_ENTRIES:,} files and "
                        f"folders: put a single file in the {role} zip."
                    )
                name = prefix + entry.name
                if entry.name.startswith(".") or entry.name == "__MACOSX":
                    continue
                if entry.is_symlink():
                    refused.append(name)
                elif entry.is_dir(follow_symlinks=False):
                    if depth + 1 > MAX_DEPTH:
                        raise error(
                            f"The {role} folder is nested more than {MAX_DEPTH} folders deep: "
                            f"put the {role} file at the top of the zip."
                        )
                    pending.append((Path(entry.path), name + "/", depth + 1))
                elif not entry.is_file(follow_symlinks=False):
                    refused.append(name)
                elif entry.name not in _PLATFORM_FILES:
                    found.append(name)
    return sorted(found), sorted(refused)


def _inside(path: Path, root: Path) -> bool:
    """Whether ``path`` is a regular file (not a link) that resolves inside ``root``."""
    try:
        status = os.lstat(path)
    except OSError:
        return False
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    return stat.S_ISREG(status.st_mode) and os.path.commonpath([real_root, real]) == real_root


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
