"""What the Spark and Dask front ends share (scorer.adapters.engines), without an
engine: parts scored in this process stand in for an engine's tasks."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import pytest

from scorer.adapters import engines
from scorer.errors import HostVisibleError, ParticipantVisibleError
from scorer.partial import partition
from tests.engine_runs import assert_same, invalid_submission, outcome, random_run


def _in_process(run: dict[str, Any], n_parts: int, calls: list[dict[str, Any]]):
    """An engine in this process: both inputs split by partition, each part scored
    into its text; ``calls`` records the options of every round."""
    solution, submission = run["solution"], run["submission"]

    def score_parts(options: dict[str, Any]) -> list[str]:
        calls.append(options)
        parts = partition(solution["id"], n_parts), partition(submission["id"], n_parts)
        return [
            engines.part_text(solution[parts[0] == p], submission[parts[1] == p], "id", options)
            for p in range(n_parts)
        ]

    return score_parts


def _run(run: dict[str, Any], n_parts: int, calls: list[dict[str, Any]]) -> Any:
    solution, submission = run["solution"], run["submission"]
    try:
        return engines.run(
            solution.iloc[:0], submission.iloc[:0], "id", run["options"],
            _in_process(run, n_parts, calls),
        )  # fmt: skip
    except (HostVisibleError, ParticipantVisibleError) as error:
        return error


def test_parts_that_took_other_largest_grades_are_scored_again_with_the_whole_ones() -> None:
    """ERR's default max_grade: one grade 4 in the whole solution, so most of 9 parts
    find 3; the driver scores the parts again with 4 and the result is evaluate's."""
    run = random_run(0, graded=True)
    calls: list[dict[str, Any]] = []
    assert_same(_run(run, 9, calls), outcome(run["solution"], run["submission"], run["options"]))
    assert [c.get("max_grade") for c in calls] == [None, 4]


def test_one_round_when_the_parts_agree() -> None:
    run = random_run(1)
    calls: list[dict[str, Any]] = []
    assert_same(_run(run, 5, calls), outcome(run["solution"], run["submission"], run["options"]))
    assert len(calls) == 1


def test_an_invalid_submission_raises_evaluates_error() -> None:
    run = random_run(2)
    run["submission"] = invalid_submission(run)
    expected = outcome(run["solution"], run["submission"], run["options"])
    assert isinstance(expected, ParticipantVisibleError)
    assert "Missing rows" in str(expected) and "whitespace" in str(expected)
    assert_same(_run(run, 6, []), expected)


def test_a_submission_without_the_row_id_column_is_refused_before_any_part() -> None:
    run = random_run(3, n_users=5)
    run["submission"] = run["submission"].rename(columns={"id": "user"})
    calls: list[dict[str, Any]] = []
    got = _run(run, 3, calls)
    assert_same(got, outcome(run["solution"], run["submission"], run["options"]))
    assert "Missing columns" in str(got) and calls == []


def test_what_every_part_would_refuse_raises_before_any_part() -> None:
    run = random_run(4, n_users=5)
    run["options"] = {"k": 3, "metrics": ["MAP", "NoSuchMeasure"]}
    calls: list[dict[str, Any]] = []
    expected = outcome(run["solution"], run["submission"], run["options"])
    assert_same(_run(run, 3, calls), expected)
    assert calls == []


def test_a_parts_error_travels_as_text_and_is_raised_again() -> None:
    """An error a part raises (here an option, as if only the part saw it) comes back
    to the driver as text and is raised there with its class and message."""
    table = pd.DataFrame({"id": ["u1"], "items": ["a"]})
    text = engines.part_text(table, table, "id", {"k": 0})
    assert set(json.loads(text)) == {"error", "message"}
    expected = outcome(table, table, {"k": 0})
    with pytest.raises(HostVisibleError) as caught:
        engines.run(table, table, "id", {"k": 2}, lambda options: [text])
    assert str(caught.value) == str(expected)


def test_n_parts_is_checked_and_defaults_to_one_part_per_500_000_rows() -> None:
    assert engines.n_parts_of(None, lambda: 0) == 1
    assert engines.n_parts_of(None, lambda: 500_001) == 2
    with pytest.raises(HostVisibleError, match=r"'n_parts' parameter must be an int .* Got 0"):
        engines.n_parts_of(0, lambda: 10)


def test_a_missing_engine_names_the_extra_to_install() -> None:
    with pytest.raises(HostVisibleError, match=r'pip install "rankscore\[dask\]"'):
        engines.require("not_an_installed_module", "dask", "dask[dataframe]")
