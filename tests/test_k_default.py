"""``k``, when not given, is 10 raised to the largest cut-off among the measures, in every
interface, and none (rows read whole) when no measure has a cut-off; a ``k`` given
explicitly still bounds every row."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

import scorer
from scorer.adapters.codabench import score_directories
from scorer.adapters.evalai import evaluate as evalai_evaluate
from scorer.errors import HostVisibleError, ParticipantVisibleError
from tests.commands import run_scorer

TWELVE = [f"i{n:02d}" for n in range(12)]


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    """Two users; rows of 12 predictions, the relevant items at ranks 11 and 12 / 1."""
    solution = tmp_path / "ref" / "solution.csv"
    submission = tmp_path / "res" / "submission.csv"
    solution.parent.mkdir()
    submission.parent.mkdir()
    solution.write_text("id,items\nu1,i10 i11\nu2,i00\n")
    submission.write_text(f"id,items\nu1,{' '.join(TWELVE)}\nu2,{' '.join(TWELVE)}\n")
    return solution, submission


# AP@12: u1 hits at 11 and 12, (1/11 + 2/12) / 2; u2 hits at 1, 1.
MAP_AT_12 = float(((Fraction(1, 11) + Fraction(2, 12)) / 2 + 1) / 2)


def test_a_cut_off_alone_sets_k(files) -> None:
    result = scorer.evaluate(*files, metrics=["MAP@12"])
    assert result.options.k == 12
    assert result.metrics == {"MAP@12": MAP_AT_12}
    assert result.to_dict()["options"]["k"] == 12
    assert scorer.score(*files, metric="MAP@12") == MAP_AT_12


def test_the_largest_cut_off_sets_k_and_names_without_one_take_it(files) -> None:
    result = scorer.evaluate(*files, metrics=["P@3", "MAP@12", "nDCG", "RPrec"])
    assert result.options.k == 12
    assert result.measures == ("P@3", "MAP@12", "nDCG@12", "RPrec")
    eleven = scorer.evaluate(*files, metrics=["nDCG@11", "P"], extra_predictions="truncate")
    assert eleven.options.k == 11
    assert eleven.measures == ("nDCG@11", "P@11")
    assert result.metrics["MAP@12"] == MAP_AT_12


@pytest.mark.parametrize("metrics", [None, ["MAP"], ["MAP@k", "RPrec"], ["SetF", "SetP@3"]])
def test_without_a_cut_off_k_is_10(files, metrics) -> None:
    with pytest.raises(ParticipantVisibleError, match="keep only your best 10 item ids"):
        scorer.evaluate(*files, metrics=metrics)
    result = scorer.evaluate(*files, metrics=metrics, extra_predictions="truncate")
    assert result.options.k == 10


# SetF over the fixture's whole rows of 12: u1 2·2 / (2 + 12), u2 2·1 / (1 + 12).
SET_F = float((Fraction(4, 14) + Fraction(2, 13)) / 2)


@pytest.mark.parametrize("metrics", [["SetF"], ["RPrec"], ["SetF", "Jaccard", "RPrec"]])
def test_without_any_cut_off_rows_are_read_whole(files, metrics) -> None:
    solution, submission = files
    result = scorer.evaluate(*files, metrics=metrics)
    assert result.options.k is None and result.to_dict()["options"]["k"] is None
    assert not any(w.kind == "short_rows" for w in result.warnings)
    if "SetF" in metrics:
        assert result.metrics["SetF"] == SET_F
    longer = " ".join(f"j{n}" for n in range(5000))  # past any k a recipe ever set
    submission.write_text(f"id,items\nu1,i10 {longer}\nu2,i00\n")
    assert scorer.evaluate(solution, submission, metrics=metrics).options.k is None


def test_a_given_k_still_bounds_whole_row_measures(files) -> None:
    with pytest.raises(ParticipantVisibleError, match="keep only your best 11 item ids"):
        scorer.evaluate(*files, k=11, metrics=["SetF"])
    result = scorer.evaluate(*files, k=12, metrics=["SetF"])
    assert result.options.k == 12 and result.metrics["SetF"] == SET_F


@pytest.mark.parametrize("metrics", [["MAP@5"], ["RPrec", "MAP@3"], ["P@1", "MAP"]])
def test_a_smaller_cut_off_leaves_k_at_10(files, metrics) -> None:
    with pytest.raises(ParticipantVisibleError, match="keep only your best 10 item ids"):
        scorer.evaluate(*files, metrics=metrics)
    result = scorer.evaluate(*files, metrics=metrics, extra_predictions="truncate")
    assert result.options.k == 10


def test_rows_within_10_stay_valid_with_a_smaller_cut_off(files) -> None:
    solution, submission = files
    submission.write_text(f"id,items\nu1,{' '.join(TWELVE[:10])}\nu2,i00\n")
    result = scorer.evaluate(solution, submission, metrics=["MAP@5"])
    assert result.options.k == 10
    assert result.metrics == {"MAP@5": 0.5}  # u1 no hit in the first 5, u2 a hit at 1


def test_an_explicit_k_still_bounds_every_row(files) -> None:
    with pytest.raises(
        HostVisibleError, match=r"The cut-off of 'MAP@12' must be an int in the range \[1, 10\]"
    ):
        scorer.evaluate(*files, k=10, metrics=["MAP@12"])
    with pytest.raises(ParticipantVisibleError, match="keep only your best 11 item ids"):
        scorer.evaluate(*files, k=11, metrics=["MAP@5"])
    result = scorer.evaluate(*files, k=12, metrics=["MAP@5", "P"])
    assert result.options.k == 12
    assert result.measures == ("MAP@5", "P@12")


@pytest.mark.parametrize("name", ["MAP@0", "MAP@x", "mapp@12", "RPrec@3"])
def test_a_bad_name_gets_todays_message(files, name) -> None:
    with pytest.raises(HostVisibleError) as without_k:
        scorer.evaluate(*files, metrics=[name])
    with pytest.raises(HostVisibleError) as with_k:
        scorer.evaluate(*files, k=10, metrics=[name])
    assert str(without_k.value) == str(with_k.value)


def test_command_line(files) -> None:
    done = run_scorer(*files, "-m", "MAP@12", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["options"]["k"] == 12
    assert data["metrics"] == {"MAP@12": MAP_AT_12}
    done = run_scorer(*files, "-m", "MAP@12", "--k", "10")
    assert done.returncode == 2
    assert "The cut-off of 'MAP@12' must be an int in the range [1, 10]" in done.stderr
    done = run_scorer(*files)
    assert done.returncode == 1
    assert "keep only your best 10 item ids" in done.stderr
    done = run_scorer(*files, "-m", "SetF", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["options"]["k"] is None and data["metrics"] == {"SetF": SET_F}
    done = run_scorer(*files, "-m", "SetF", "--k", "11")
    assert done.returncode == 1
    assert "keep only your best 11 item ids" in done.stderr


def test_codabench(files, tmp_path: Path) -> None:
    values, result = score_directories(tmp_path, tmp_path / "out", metrics=["MAP@12"])
    assert values == {"map_at_12": MAP_AT_12}
    assert result.options.k == 12
    done = run_scorer("codabench", tmp_path, tmp_path / "out2", "-m", "MAP@12")
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "out2" / "scores.json").read_text()) == values


def test_codabench_reads_whole_rows(files, tmp_path: Path) -> None:
    values, result = score_directories(tmp_path, tmp_path / "out", metrics=["SetF"])
    assert values == {"setf": SET_F} and result.options.k is None
    done = run_scorer("codabench", tmp_path, tmp_path / "out2", "-m", "SetF")
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "out2" / "scores.json").read_text()) == values


def test_evalai(files) -> None:
    output = evalai_evaluate(*files, "test", metrics=["MAP@12"])
    assert output["submission_result"] == {"map_at_12": MAP_AT_12}
    with pytest.raises(HostVisibleError, match="the options are invalid; details are withheld"):
        evalai_evaluate(*files, "test", k=10, metrics=["MAP@12"])
    output = evalai_evaluate(*files, "test", metrics=["SetF"])
    assert output["submission_result"] == {"setf": SET_F}
    with pytest.raises(ParticipantVisibleError, match="keep only your best 11 item ids"):
        evalai_evaluate(*files, "test", k=11, metrics=["SetF"])
