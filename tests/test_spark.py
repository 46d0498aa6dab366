"""scorer.spark.evaluate gives scorer.evaluate's result on the same frames: every value
(float.hex), split, count, warning, and error class and text, whatever the number of
parts. One local Spark session (two cores) serves the whole module; it needs pyspark
and Java, and CI fails rather than skips without them (tests/engine_runs.py)."""

from __future__ import annotations

import doctest
import os
import shutil
import sys
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import pandas as pd
import pytest

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

engine_or_skip("pyspark.sql")
if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
    engine_or_skip("pyspark.sql", "Java is not installed (no java on PATH, no JAVA_HOME)")
from pyspark.sql import SparkSession  # noqa: E402

import scorer.spark  # noqa: E402


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    """A local session whose Python workers run this interpreter (pyspark would start
    ``python3`` from PATH); stopped, and the environment restored, after the module."""
    before = os.environ.get("PYSPARK_PYTHON")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .appName("scorer-tests")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        # A JVM that lives for seconds: its quick compiler alone and one collector
        # thread (the module's CPU 29 -> 18 s, its wall 17.5 -> 14.7 s, same results).
        .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
        .getOrCreate()
    )
    yield session
    session.stop()
    if before is None:
        os.environ.pop("PYSPARK_PYTHON", None)
    else:
        os.environ["PYSPARK_PYTHON"] = before


def _score(spark: Any, run: dict[str, Any], **kwargs: Any) -> Any:
    solution = spark.createDataFrame(run["solution"])
    submission = spark.createDataFrame(run["submission"])
    return engine_outcome(
        scorer.spark.evaluate, solution, submission, "id", **run["options"], **kwargs
    )


def _expected(run: dict[str, Any]) -> Any:
    return outcome(run["solution"], run["submission"], run["options"])


@pytest.mark.parametrize(
    ("seed", "graded", "n_parts", "extra"),
    [
        (0, True, 7, {}),  # most parts find a smaller largest grade than the whole
        (1, False, None, {"empty_ground_truth": "zero", "normalization": "relevant"}),
    ],
)
def test_random_runs_give_evaluates_result(spark, seed, graded, n_parts, extra) -> None:
    run = random_run(seed, graded=graded)
    run["options"].update(extra)
    expected = _expected(run)
    assert expected.public_score is not None and expected.private_score is not None
    assert expected.n_ignored > 0
    assert_same(_score(spark, run, n_parts=n_parts), expected)


def test_auc_with_candidates_gives_evaluates_result(spark) -> None:
    """Every part keeps the candidates AUC reads (it refused them, even in one part)."""
    run = candidates_run(8)
    expected = _expected(run)
    assert expected.metrics["AUC"] not in (0.0, 1.0)
    for n_parts in (1, 5):
        assert_same(_score(spark, run, n_parts=n_parts), expected)


def test_an_invalid_submission_raises_evaluates_error(spark) -> None:
    run = random_run(2)
    run["submission"] = invalid_submission(run)
    expected = _expected(run)
    assert isinstance(expected, ParticipantVisibleError)
    assert_same(_score(spark, run, n_parts=5), expected)


def test_more_parts_than_rows_empty_parts_and_integer_ids(spark) -> None:
    """Three users in 40 parts: most parts are empty, one holds a submitted row alone
    (an unknown id); the solution's ids are integers, the submission's text."""
    run = random_run(3, n_users=3)
    run["solution"]["id"] = run["solution"]["id"].str[1:].astype("int64")
    run["submission"] = pd.concat(
        [run["submission"].assign(id=run["submission"]["id"].str[1:]),
         pd.DataFrame({"id": ["7"], "items": ["i1"]})],
        ignore_index=True,
    )  # fmt: skip
    expected = _expected(run)
    assert "Unknown row ids" in str(expected)
    assert_same(_score(spark, run, n_parts=40), expected)
    run["submission"] = run["submission"].iloc[:-1]
    assert_same(_score(spark, run, n_parts=40), _expected(run))


def test_other_inputs_are_refused(spark) -> None:
    table = pd.DataFrame({"id": ["u1"], "items": ["a"]})
    with pytest.raises(HostVisibleError, match=r"takes pyspark\..*DataFrame inputs; solution is"):
        scorer.spark.evaluate(table, spark.createDataFrame(table), "id")


def test_the_docstrings_example_runs(spark) -> None:
    """Its lines are skipped by the doctest run (no session there); here they run in
    this module's session."""
    text = scorer.spark.evaluate.__doc__.replace("# doctest: +SKIP", "")
    test = doctest.DocTestParser().get_doctest(text, {}, "scorer.spark.evaluate", None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.tries >= 5 and runner.failures == 0


def test_the_readmes_example_runs(spark) -> None:
    """docs/beyond-one-machine.md, "On Spark and Dask": the Spark example (after the Dask one,
    whose frames it reuses) asserts what it shows, in this module's session."""
    namespace: dict = {}
    for block in readme_examples():
        exec(compile(block, "docs/beyond-one-machine.md", "exec"), namespace)
    assert namespace["spark"] is spark
    assert namespace["result"].score == float(Fraction(5, 6))  # (1 + 1/2 + 1) / 3, u4 skipped
