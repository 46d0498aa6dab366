"""The information boundary (SPEC 6.1): what a participant sees never depends on hidden data.

Two solutions share their row ids and differ in everything else a participant must not
learn: the relevant items, the ``Usage`` column and which users have no relevant item.
The same submission, scored against both, must give byte-identical participant-visible
text: the ``ParticipantVisibleError`` message, the participant-audience warnings (message,
count, examples), and the Codabench log of ``--public-only`` once the Public score's value
is masked, with the same exit code. The submissions are drawn to provoke every warning
and hint and every submission error.
"""

from __future__ import annotations

import contextlib
import io
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from scorer import HostVisibleError, ParticipantVisibleError, evaluate
from scorer.cli import main

N_CASES = 300
N_CLI_CASES = 60
ROW_ID = "customer_id"
TARGET = "prediction"


def _padded(rng: np.random.Generator, n: int) -> list[str]:
    """Ten-digit item ids with a leading zero, as at H&M."""
    return [f"0{value:09d}" for value in rng.integers(10**8, 10**9, size=n)]


@dataclass(frozen=True)
class Case:
    """Two solutions with the same row ids, one submission, the options."""

    solutions: tuple[pd.DataFrame, pd.DataFrame]
    submission: pd.DataFrame
    k: int
    truncate: bool


def _solution(
    rng: np.random.Generator, ids: list[str], catalogue: list[str], anchor: int
) -> pd.DataFrame:
    """Random items, Usage and empty users; row ``anchor`` is a scorable Public user."""
    n = len(ids)
    lists = []
    for row in range(n):
        size = 0 if rng.random() < 0.3 and row != anchor else int(rng.integers(1, 5))
        lists.append(" ".join(rng.choice(catalogue, size=size)))
    usage = rng.choice(["Public", "Private", "Ignored"], size=n).tolist()
    usage[anchor] = "Public"
    return pd.DataFrame({ROW_ID: ids, TARGET: lists, "Usage": usage})


def _prediction_row(rng: np.random.Generator, items: list[str], k: int) -> str:
    """One row that may provoke any warning or hint."""
    kind = rng.integers(0, 8)
    size = int(rng.integers(1, k + 1))
    chosen = [str(x) for x in rng.choice(items, size=size)]
    if kind == 0:
        return ""  # empty_rows
    if kind == 1:
        return " ".join(chosen[:1] * min(2, k))  # repeated_items
    if kind == 2:
        return " ".join(x.lstrip("0") or "0" for x in chosen)  # lost zeros
    if kind == 3:
        return ",".join(chosen)  # comma_separated_lists
    if kind == 4:
        return " ".join(x.lstrip("0") + ".0" for x in chosen)  # read as floats
    return " ".join(chosen)


def _damage(rng: np.random.Generator, frame: pd.DataFrame, k: int) -> pd.DataFrame:
    """Make the submission invalid in one or several ways, or leave it valid."""
    frame = frame.copy()
    for _ in range(int(rng.integers(0, 3))):
        kind = int(rng.integers(0, 8))
        if kind == 0 and len(frame) > 1:  # missing rows
            frame = frame.drop(index=frame.index[int(rng.integers(0, len(frame)))])
        elif kind == 1:  # unknown row ids
            extra = {name: "0000000001" for name in frame.columns}
            extra[frame.columns[0]] = "zz" + str(rng.integers(0, 9))
            frame = pd.concat([frame, pd.DataFrame([extra])])
        elif kind == 2 and len(frame):  # duplicated row ids
            frame = pd.concat([frame, frame.iloc[:1]])
        elif kind == 3 and len(frame):  # empty row id
            frame.iloc[int(rng.integers(0, len(frame))), 0] = ""
        elif kind == 4 and len(frame):  # too many predictions
            frame.iloc[0, 1] = " ".join(f"x{i}" for i in range(k + 2))
        elif kind == 5:  # a wrong column name
            frame = frame.rename(columns={TARGET: "predictions"})
        elif kind == 6:  # an extra column
            frame = frame.assign(extra="1")
        # kind 7: leave it
    return frame.reset_index(drop=True)


def make_case(seed: int) -> Case:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 10))
    ids = [f"c{i:02d}" for i in range(n)]
    padded = _padded(rng, 12)
    unpadded = [x.lstrip("0") for x in _padded(rng, 4)]  # a solution that lost its zeros
    catalogue_a = padded[:8] + unpadded[:2]
    catalogue_b = padded[4:] + unpadded[2:]
    solutions = (
        _solution(rng, ids, catalogue_a, int(rng.integers(0, n))),
        _solution(rng, ids, catalogue_b, int(rng.integers(0, n))),
    )
    if rng.random() < 0.2:  # one of them has no Usage column at all (API only)
        solutions = (solutions[0].drop(columns="Usage"), solutions[1])
    k = int(rng.choice([3, 5]))
    # Items drawn from both solutions and from nowhere: lost zeros that match a
    # solution item, and lost zeros that match none.
    pool = padded + unpadded + _padded(rng, 6) + ["a", "b,c"]
    rows = [_prediction_row(rng, pool, k) for _ in ids]
    order = rng.permutation(n)
    submission = pd.DataFrame({ROW_ID: [ids[i] for i in order], TARGET: [rows[i] for i in order]})
    if rng.random() < 0.4:
        submission = _damage(rng, submission, k)
    return Case(solutions, submission, k, bool(rng.random() < 0.3))


def participant_view(solution: pd.DataFrame, case: Case) -> tuple:
    """Everything the API shows the participant."""
    options = {"k": case.k, "extra_predictions": "truncate" if case.truncate else "error"}
    try:
        result = evaluate(solution, case.submission, ROW_ID, **options)
    except ParticipantVisibleError as error:
        return ("invalid", str(error))
    except HostVisibleError as error:  # the solutions are valid: a bug
        raise AssertionError(f"host error on a valid solution: {error}") from error
    return (
        "scored",
        [
            (w.code, w.message, w.count, w.examples, str(w))
            for w in result.warnings
            if w.audience == "participant"
        ],
    )


def test_the_generator_provokes_every_warning_and_error() -> None:
    """The property below is only as good as the submissions it tries."""
    codes: set[str] = set()
    problems: set[str] = set()
    for seed in range(N_CASES):
        case = make_case(seed)
        kind, shown = participant_view(case.solutions[0], case)
        if kind == "scored":
            codes.update(code for code, *_ in shown)
        else:
            problems.update(re.findall(r"^\d+\. (.+)$", shown, flags=re.MULTILINE))
    assert {
        "repeated_items",
        "short_rows",
        "empty_rows",
        "leading_zeros_lost",
        "comma_separated_lists",
    } <= codes
    assert {
        "Missing rows",
        "Unknown row ids",
        "Duplicated row ids",
        "Empty row ids",
        "Too many predictions",
        "Missing columns",
        "Extra columns",
    } <= problems


@pytest.mark.parametrize("block", range(4))
def test_participant_text_does_not_depend_on_hidden_data(block: int) -> None:
    for seed in range(block * N_CASES // 4, (block + 1) * N_CASES // 4):
        case = make_case(seed)
        first, second = (participant_view(s, case) for s in case.solutions)
        assert first == second, f"seed {seed}"


def _codabench_log(tmp_path: Path, solution: pd.DataFrame, case: Case) -> tuple[int, str]:
    """Run ``scorer codabench ... --public-only`` in this process; exit code and log."""
    ref, res, out = tmp_path / "in" / "ref", tmp_path / "in" / "res", tmp_path / "out"
    for folder in (ref, res, out):
        folder.mkdir(parents=True, exist_ok=True)
    solution.to_csv(ref / "solution.csv", index=False)
    case.submission.to_csv(res / "submission.csv", index=False)
    stdout, stderr = io.StringIO(), io.StringIO()
    argv = ["codabench", str(tmp_path / "in"), str(out), "--public-only", "--k", str(case.k)]
    if case.truncate:
        argv += ["--extra-predictions", "truncate"]
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(argv)
    log = stdout.getvalue() + "\n--- stderr ---\n" + stderr.getvalue()
    if (out / "scores.json").exists():
        log += "\n--- scores.json ---\n" + (out / "scores.json").read_text()
    return code, re.sub(r"(map_at_\d+_public\"?: )[0-9.e+-]+", r"\1<score>", log)


def test_the_codabench_log_does_not_depend_on_hidden_data(tmp_path: Path) -> None:
    """Through the command line, as a participant of a public-only phase sees it."""
    checked = 0
    for seed in range(N_CASES):
        case = make_case(seed)
        if "Usage" not in case.solutions[0]:
            continue
        runs = [
            _codabench_log(tmp_path / f"{seed}-{i}", s, case) for i, s in enumerate(case.solutions)
        ]
        assert runs[0] == runs[1], f"seed {seed}"
        assert runs[0][0] in (0, 1), runs[0]
        checked += 1
        if checked == N_CLI_CASES:
            break
    assert checked == N_CLI_CASES
