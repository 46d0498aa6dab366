"""Runs for the engine front ends' tests (tests/test_spark.py, tests/test_dask.py): random
solutions and submissions as pandas frames, what scorer.evaluate makes of them, the
comparison of two outcomes, and the skip that CI turns into a failure."""

from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import Any

import numpy as np
import pandas as pd
import pytest

import scorer
from scorer.errors import ScorerError
from tests.paths import DOCS

#: Set by CI (.ci/run): an engine that cannot run there fails its tests instead of
#: skipping them, so that a missing package or Java never passes unnoticed.
REQUIRE = "SCORER_REQUIRE_ENGINES"

MEASURES = ["MAP@10", "nDCG@5", "P@3", "R(avg=micro)@10", "MRR", "HitRate@10", "ERR@5"]


def engine_or_skip(module: str, why: str | None = None) -> ModuleType:
    """Import an engine, or skip (fail under :data:`REQUIRE`) saying what is missing."""
    try:
        found = importlib.import_module(module)
    except ImportError as exc:
        why = why or f"{module} is not installed ({exc})"
    else:
        if why is None:
            return found
    if os.environ.get(REQUIRE) == "1":
        pytest.fail(f"{why}, and {REQUIRE}=1 asks for every engine test to run")
    pytest.skip(why, allow_module_level=True)


def random_run(seed: int, n_users: int = 300, graded: bool = False) -> dict[str, Any]:
    """A valid run: Usage with Public, Private and Ignored users, users without a
    relevant item, short and full rankings, optionally grades 0 to 3 with a 4 held by
    one user (so most parts find a smaller largest grade than the whole solution)."""
    rng = np.random.default_rng(seed)
    items = np.array([f"i{j}" for j in range(1, 40)])
    ids = [f"u{i}" for i in range(n_users)]
    truths = [rng.choice(items, size=rng.integers(0, 6), replace=False) for _ in ids]
    solution = pd.DataFrame({"id": ids, "items": [" ".join(t) for t in truths]})
    if graded:
        grades = [rng.integers(0, 4, size=len(t)) for t in truths]
        holder = next(i for i, t in enumerate(truths) if len(t))
        grades[holder][0] = 4
        solution["grades"] = [" ".join(map(str, g)) for g in grades]
    solution["Usage"] = rng.choice(
        ["Public", "Private", "Ignored"], p=[0.45, 0.45, 0.1], size=n_users
    )
    rankings = []
    for truth in truths:
        pool = np.concatenate([truth, rng.choice(items, size=10)])
        ranked = list(dict.fromkeys(rng.permutation(pool)))[: rng.integers(0, 11)]
        rankings.append(" ".join(ranked))
    order = rng.permutation(n_users)
    submission = pd.DataFrame({"id": np.array(ids)[order], "items": np.array(rankings)[order]})
    options: dict[str, Any] = {"k": 10, "metrics": MEASURES}
    if graded:
        options["grade_column_name"] = "grades"
    return {"solution": solution, "submission": submission, "options": options}


def candidates_run(seed: int, n_users: int = 300) -> dict[str, Any]:
    """:func:`random_run` with each row's candidates in a solution column (its relevant
    and ranked items, and a few more) and AUC, which reads the candidates that are not
    relevant as the non-relevant items."""
    run = random_run(seed, n_users)
    rng = np.random.default_rng(seed)
    ranked = dict(zip(run["submission"]["id"], run["submission"]["items"], strict=True))
    solution = run["solution"]
    solution["cands"] = [
        " ".join(dict.fromkeys([*truth.split(), *ranked[i].split(), *rng.choice(["i1", "i2"], 2)]))
        for i, truth in zip(solution["id"], solution["items"], strict=True)
    ]
    run["options"].update(
        metrics=["AUC", "MAP@10"], candidates_column_name="cands", candidate_rule="subset"
    )
    return run


def invalid_submission(run: dict[str, Any]) -> pd.DataFrame:
    """The run's submission with rows missing, repeated and unknown, a row id that is a
    near miss of a missing one, and a row over K."""
    submission = run["submission"].sort_values("id").reset_index(drop=True)
    broken = submission.drop(index=[3, 5, 8]).copy()
    broken.loc[len(submission)] = [f" {submission['id'][3]}", "i1"]  # whitespace near miss
    broken.loc[len(submission) + 1] = ["x9", "i2"]  # unknown
    broken.loc[len(submission) + 2] = [
        "u1",
        " ".join(f"i{j}" for j in range(1, 13)),
    ]  # repeated, > K
    return broken.reset_index(drop=True)


def outcome(solution: Any, submission: Any, options: dict[str, Any]) -> Any:
    """scorer.evaluate's result, or the error it raised."""
    try:
        return scorer.evaluate(solution, submission, "id", **options)
    except ScorerError as error:
        return error


def assert_same(got: Any, expected: Any) -> None:
    """The same result value for value (as ``float.hex``), split, count and warning; or
    the same error class and message."""
    if isinstance(expected, ScorerError):
        assert type(got) is type(expected)
        assert str(got) == str(expected)
        return
    assert got == expected
    for mine, theirs in [
        (got.metrics, expected.metrics),
        (got.public_metrics or {}, expected.public_metrics or {}),
        (got.private_metrics or {}, expected.private_metrics or {}),
    ]:
        assert {n: v.hex() for n, v in mine.items()} == {n: v.hex() for n, v in theirs.items()}
    assert got.warnings == expected.warnings
    assert got.hits_at_rank.tolist() == expected.hits_at_rank.tolist()


def engine_outcome(evaluate: Any, *args: Any, **kwargs: Any) -> Any:
    """An engine front end's result, or the error it raised."""
    try:
        return evaluate(*args, **kwargs)
    except ScorerError as error:
        return error


def readme_examples() -> list[str]:
    """The Python blocks of docs/beyond-one-machine.md, "On Spark and Dask": the Dask
    example, then the Spark one (which reuses the Dask example's frames)."""
    page = DOCS / "beyond-one-machine.md"
    section = page.read_text(encoding="utf-8")
    section = section[section.index("## On Spark and Dask") : section.index("**Which route.**")]
    return [block.split("```", 1)[0] for block in section.split("```python\n")[1:]]
