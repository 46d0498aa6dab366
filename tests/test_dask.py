"""scorer.dask.evaluate gives scorer.evaluate's result on the computed frames: every
value (float.hex), split, count, warning, and error class and text, whatever the
number of parts and of Dask partitions. Dask runs with its default (threads)
scheduler."""

from __future__ import annotations

import importlib
from fractions import Fraction
from types import ModuleType
from typing import Any

import pandas as pd
import pytest

import scorer.dask  # the module needs no dask to import
from scorer.errors import HostVisibleError, ParticipantVisibleError
from tests.engine_runs import (
    assert_same,
    candidates_run,
    engine_or_skip,
    engine_outcome,
    invalid_submission,
    outcome,
    random_run,
    readme_examples,
)


@pytest.fixture(autouse=True, scope="module")
def _dask() -> None:
    """Every test here skips without Dask (fails under CI's rule): imported by the first
    test that runs, not as the tests are collected (a second or more for each process)."""
    engine_or_skip("dask.dataframe")


def _dd() -> ModuleType:
    return importlib.import_module("dask.dataframe")


def _score(run: dict[str, Any], partitions: tuple[int, int], **kwargs: Any) -> Any:
    dd = _dd()
    solution = dd.from_pandas(run["solution"], npartitions=partitions[0])
    submission = dd.from_pandas(run["submission"], npartitions=partitions[1])
    return engine_outcome(
        scorer.dask.evaluate, solution, submission, "id", **run["options"], **kwargs
    )


def _expected(run: dict[str, Any]) -> Any:
    return outcome(run["solution"], run["submission"], run["options"])


@pytest.mark.parametrize(
    ("seed", "graded", "n_parts", "extra"),
    [
        (0, False, 1, {}),
        (1, True, 7, {}),  # most parts find a smaller largest grade than the whole
        (2, False, 16, {"empty_ground_truth": "zero", "normalization": "relevant"}),
        (3, True, None, {"relevance_threshold": 2}),  # one part per 500,000 rows
    ],
)
def test_random_runs_give_evaluates_result(seed, graded, n_parts, extra) -> None:
    run = random_run(seed, graded=graded)
    run["options"].update(extra)
    expected = _expected(run)
    assert expected.public_score is not None and expected.private_score is not None
    assert expected.n_ignored > 0
    assert_same(_score(run, (3, 2), n_parts=n_parts), expected)


@pytest.mark.parametrize("n_parts", [1, 5])
def test_auc_with_candidates_gives_evaluates_result(n_parts: int) -> None:
    """AUC's non-relevant items are the candidates that are not relevant: every part
    keeps them (it refused them as "the solution judges none", even in one part)."""
    run = candidates_run(8)
    expected = _expected(run)
    assert expected.metrics["AUC"] not in (0.0, 1.0)
    assert_same(_score(run, (3, 2), n_parts=n_parts), expected)


def test_an_invalid_submission_raises_evaluates_error() -> None:
    run = random_run(4)
    run["submission"] = invalid_submission(run)
    expected = _expected(run)
    assert isinstance(expected, ParticipantVisibleError)
    assert_same(_score(run, (2, 3), n_parts=5), expected)


def test_more_parts_than_rows_and_empty_parts() -> None:
    """Three users in 40 parts: most parts are empty, and some hold a row of one input
    alone (an unknown id, a missing row)."""
    run = random_run(5, n_users=3)
    assert_same(_score(run, (1, 1), n_parts=40), _expected(run))
    run["submission"] = pd.concat(
        [run["submission"].iloc[1:], pd.DataFrame({"id": ["x1"], "items": ["i1"]})],
        ignore_index=True,
    )
    expected = _expected(run)
    assert "Missing rows" in str(expected) and "Unknown row ids" in str(expected)
    assert_same(_score(run, (2, 2), n_parts=40), expected)


def test_integer_row_ids_share_parts_with_their_text() -> None:
    """The solution's ids are integers and the submission's text: each id still meets
    its row (both hash the id's decimal text)."""
    run = random_run(6, n_users=50)
    run["solution"]["id"] = run["solution"]["id"].str[1:].astype("int64")
    run["submission"]["id"] = run["submission"]["id"].str[1:]
    expected = _expected(run)
    assert expected.n_users == 50
    assert_same(_score(run, (2, 2), n_parts=8), expected)


def test_other_inputs_are_refused() -> None:
    table = pd.DataFrame({"id": ["u1"], "items": ["a"]})
    with pytest.raises(HostVisibleError, match=r"takes dask\..*DataFrame inputs; solution is a "):
        scorer.dask.evaluate(table, _dd().from_pandas(table, npartitions=1), "id")


def test_the_readmes_example_runs() -> None:
    """docs/beyond-one-machine.md, "On Spark and Dask": the Dask example asserts what it shows."""
    namespace: dict = {}
    exec(compile(readme_examples()[0], "docs/beyond-one-machine.md", "exec"), namespace)
    assert namespace["result"].score == float(Fraction(5, 6))  # (1 + 1/2 + 1) / 3, u4 skipped
