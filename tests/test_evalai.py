"""The EvalAI adapter returns EvalAI's result shape with the scorer's values."""

from __future__ import annotations

from fractions import Fraction
from functools import partial

import pytest

import scorer
from scorer.adapters.evalai import evaluate
from scorer.errors import HostVisibleError, ParticipantVisibleError
from tests.paths import EXAMPLE

SOLUTION = EXAMPLE / "solution.csv"
SUBMISSION = EXAMPLE / "submission.csv"


@pytest.fixture(scope="module")
def expected():
    return scorer.evaluate(SOLUTION, SUBMISSION)


def test_default_splits_with_usage(expected):
    output = evaluate(SOLUTION, SUBMISSION, "test", submission_metadata={"method_name": "x"})
    assert output == {
        "result": [
            {"public_split": {"map_at_10": expected.public_score}},
            {"private_split": {"map_at_10": expected.private_score}},
        ],
        "submission_result": {"map_at_10": expected.public_score},
    }
    assert output["submission_result"]["map_at_10"] == pytest.approx(
        float(Fraction(11, 12)), abs=1e-15
    )


def test_without_usage_one_test_split(tmp_path):
    solution, submission = tmp_path / "sol.csv", tmp_path / "sub.csv"
    solution.write_text("id,items\nu1,a b\nu2,c\n")
    submission.write_text("id,items\nu1,x a\nu2,c\n")
    output = evaluate(solution, submission, "dev", k=2)
    value = float(Fraction(1, 2) * (Fraction(1, 2) * Fraction(1, 2) + 1))  # (1/4 + 1) / 2
    assert output == {
        "result": [{"test_split": {"map_at_2": value}}],
        "submission_result": {"map_at_2": value},
    }


def test_wired_as_documented_with_partial(expected):
    host = partial(
        evaluate,
        k=10,
        metric_name="MAP@10",
        splits={"leaderboard": "score", "private": "private"},
    )
    output = host(str(SOLUTION), str(SUBMISSION), "final", submission_metadata=None)
    assert output == {
        "result": [
            {"leaderboard": {"MAP@10": expected.score}},
            {"private": {"MAP@10": expected.private_score}},
        ],
        "submission_result": {"MAP@10": expected.score},
    }


def test_options_reach_the_scorer():
    chosen = {"k": 1, "normalization": "relevant", "extra_predictions": "truncate"}
    output = evaluate(SOLUTION, SUBMISSION, "test", **chosen)
    result = scorer.evaluate(SOLUTION, SUBMISSION, **chosen)
    assert output["result"][0] == {"public_split": {"map_at_1": result.public_score}}


def test_unknown_split_value_is_a_host_error():
    with pytest.raises(HostVisibleError, match=r"split 'x' must show one of .* Got 'all'"):
        evaluate(SOLUTION, SUBMISSION, "test", splits={"x": "all"})


def test_no_split_with_a_score_is_a_host_error(tmp_path):
    solution, submission = tmp_path / "sol.csv", tmp_path / "sub.csv"
    solution.write_text("id,items\nu1,a\n")
    submission.write_text("id,items\nu1,a\n")
    with pytest.raises(HostVisibleError, match=r"None of the EvalAI splits \['p'\] has a score"):
        evaluate(solution, submission, "test", splits={"p": "public"})


def test_invalid_submission_raises_the_participant_error(tmp_path):
    submission = tmp_path / "sub.csv"
    submission.write_text("customer_id,prediction\nc01,a\n")
    with pytest.raises(
        ParticipantVisibleError, match=r"(?s)The submission is invalid.*Missing rows"
    ):
        evaluate(SOLUTION, submission, "test")
