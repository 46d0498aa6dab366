"""The information boundary's cases: two solutions that share their row ids and differ in
everything a participant must not learn, a submission drawn to provoke every warning,
hint and submission error, and what a participant is shown of its score
(docs/decisions.md#information-boundary)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from scorer import HostVisibleError, ParticipantVisibleError, evaluate
from scorer.adapters.cli import error_json

ROW_ID = "customer_id"
TARGET = "prediction"


def padded_items(rng: np.random.Generator, n: int) -> list[str]:
    """Ten-digit item ids with a leading zero, as at H&M."""
    return [f"0{value:09d}" for value in rng.integers(10**8, 10**9, size=n)]


@dataclass(frozen=True)
class Case:
    """Two solutions with the same row ids, one submission, the options (``k`` None:
    no ``k`` and the set measure ``SetF``, rows read whole)."""

    solutions: tuple[pd.DataFrame, pd.DataFrame]
    submission: pd.DataFrame
    k: int | None
    truncate: bool
    ignore_unknown: bool


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


def prediction_row(rng: np.random.Generator, items: list[str], k: int) -> str:
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
    if kind == 5:  # read as floats, written in scientific notation
        return " ".join(f"{float(x):.9e}" if x.isdigit() else x for x in chosen)
    return " ".join(chosen)


def plain_prediction_row(rng: np.random.Generator, items: list[str], k: int) -> str:
    """One row of items as they are: empty, a repeated item, or a plain list."""
    chosen = [str(x) for x in rng.choice(items, size=int(rng.integers(1, k + 1)))]
    kind = rng.integers(0, 4)
    if kind == 0:
        return ""
    return " ".join(chosen[:1] * min(2, k)) if kind == 1 else " ".join(chosen)


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
    padded = padded_items(rng, 12)
    unpadded = [x.lstrip("0") for x in padded_items(rng, 4)]  # a solution that lost its zeros
    catalogue_a = padded[:8] + unpadded[:2]
    catalogue_b = padded[4:] + unpadded[2:]
    solutions = (
        _solution(rng, ids, catalogue_a, int(rng.integers(0, n))),
        _solution(rng, ids, catalogue_b, int(rng.integers(0, n))),
    )
    if rng.random() < 0.2:  # one of them has no Usage column at all (API only)
        solutions = (solutions[0].drop(columns="Usage"), solutions[1])
    k = int(rng.choice([3, 5, 0])) or None  # None: whole rows, no k
    longest = k or 8
    # Items drawn from both solutions and from nowhere: lost zeros that match a
    # solution item, and lost zeros that match none.
    pool = padded + unpadded + padded_items(rng, 6) + ["a", "b,c"]
    rows = [prediction_row(rng, pool, longest) for _ in ids]
    order = rng.permutation(n)
    submission = pd.DataFrame({ROW_ID: [ids[i] for i in order], TARGET: [rows[i] for i in order]})
    if rng.random() < 0.4:
        submission = _damage(rng, submission, longest)
    if TARGET in submission and rng.random() < 0.25:  # item lists as list cells
        lists = [cell.split() for cell in submission[TARGET]]
        if lists and rng.random() < 0.4:  # one cell that cannot be an item list
            lists[int(rng.integers(0, len(lists)))] = {"a", "b"}
        submission = submission.assign(**{TARGET: pd.Series(lists, dtype=object)})
    truncate, ignore = bool(rng.random() < 0.3), bool(rng.random() < 0.2)
    if TARGET in submission and rng.random() < 0.15:  # every id read as a number: no zeros
        cells = [cell if isinstance(cell, str) else "" for cell in submission[TARGET]]
        unpadded = [" ".join(x.lstrip("0") for x in cell.split() if x.isdigit()) for cell in cells]
        submission = submission.assign(**{TARGET: unpadded})
    return Case(solutions, submission, k, truncate, ignore)


#: The one participant warning that reads a score: the Public one (the score without
#: ``Usage``), and only whether it is 0.
SCORE_HINT = "numbers_scoring_zero"


def scored_participant_view(result, solution) -> tuple:
    """The participant's warnings (code, words, count, examples, text) and whether the
    score they see (the Public one with ``Usage``) is 0."""
    has_usage = isinstance(solution, pd.DataFrame) and "Usage" in solution
    shown = result.public_score if has_usage else result.score
    warnings = [
        (w.code, w.message, w.count, w.examples, str(w))
        for w in result.warnings
        if w.audience == "participant"
    ]
    return ("scored", warnings, shown == 0)


def same_but_for_the_public_score(first: tuple, second: tuple) -> bool:
    """Two participant views are the same, but for the warning that reads the Public
    score when the two scores differ in being 0: hidden data reach the text only
    through the Public score."""
    if first[:1] == second[:1] == ("scored",) and first[2] != second[2]:
        return [w for w in first[1] if w[0] != SCORE_HINT] == [
            w for w in second[1] if w[0] != SCORE_HINT
        ]
    return first == second


def same_logs_but_for_the_public_score(first: tuple, second: tuple) -> bool:
    """:func:`same_but_for_the_public_score` for two logs (exit code, text, whether the
    Public score is 0)."""
    if first[2] == second[2]:
        return first == second
    kept = [
        (
            code,
            "\n".join(line for line in log.splitlines() if "every predicted item id (" not in line),
        )
        for code, log, _ in (first, second)
    ]
    return kept[0] == kept[1]


def invalid_view(error: ParticipantVisibleError) -> tuple[str, str, str]:
    """An invalid submission as the participant sees it: stderr, and what ``--json`` prints."""
    return ("invalid", str(error), error_json("submission", str(error), error.problems))


def participant_view(solution: pd.DataFrame, case: Case) -> tuple:
    """Everything the API shows the participant."""
    options = {
        **({"metrics": ["SetF"]} if case.k is None else {"k": case.k}),
        "extra_predictions": "truncate" if case.truncate else "error",
        "unknown_row_ids": "ignore" if case.ignore_unknown else "error",
    }
    try:
        result = evaluate(solution, case.submission, ROW_ID, **options)
    except ParticipantVisibleError as error:
        return invalid_view(error)
    except HostVisibleError as error:  # the solutions are valid: a bug
        raise AssertionError(f"host error on a valid solution: {error}") from error
    return scored_participant_view(result, solution)
