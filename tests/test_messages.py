"""Mistakes that used to get a misleading message get the right diagnosis and fix."""

from __future__ import annotations

import pandas as pd
import pytest

from scorer import HostVisibleError, ParticipantVisibleError, score
from scorer.adapters.evalai import evaluate as evalai_evaluate
from tests.commands import run_scorer
from tests.paths import EXAMPLE

SOLUTION = EXAMPLE / "solution.csv"
SUBMISSION = EXAMPLE / "submission.csv"


@pytest.mark.parametrize("which", ["solution", "submission"])
def test_a_missing_path_is_a_usage_error_naming_the_path(tmp_path, which: str) -> None:
    missing = tmp_path / "nowhere" / f"{which}.csv"
    paths = {"solution": SOLUTION, "submission": SUBMISSION, which: missing}
    with pytest.raises(HostVisibleError, match=f"The {which} path '.*nowhere.*' does not exist"):
        score(paths["solution"], paths["submission"])
    with pytest.raises(FileNotFoundError):
        score(paths["solution"], paths["submission"])
    run = run_scorer(paths["solution"], paths["submission"])
    assert run.returncode == 2
    assert f"{which} path '{missing}' does not exist" in run.stderr
    assert "UTF-8" not in run.stderr


@pytest.mark.parametrize("which", ["solution", "submission"])
def test_a_directory_is_a_usage_error_naming_the_path(tmp_path, which: str) -> None:
    paths = {"solution": SOLUTION, "submission": SUBMISSION, which: str(tmp_path) + "/"}
    with pytest.raises(IsADirectoryError, match=f"The {which} path '.*/' is a directory"):
        score(paths["solution"], paths["submission"])
    run = run_scorer(paths["solution"], paths["submission"])
    assert run.returncode == 2
    assert f"{which} path '{tmp_path}/' is a directory" in run.stderr


def test_a_csv_written_with_the_pandas_index_is_named_as_such(tmp_path) -> None:
    path = tmp_path / "submission.csv"
    pd.read_csv(SUBMISSION, dtype=str, keep_default_na=False).to_csv(path)  # index=True
    assert path.read_text().startswith(",customer_id,prediction")
    with pytest.raises(
        ParticipantVisibleError,
        match=r"a first column with no name: the pandas index, written unless "
        r"to_csv\(index=False\)",
    ) as caught:
        score(SOLUTION, path)
    assert "comma at the end of every line" not in str(caught.value)
    read_back = pd.read_csv(path, dtype=str, keep_default_na=False)  # 'Unnamed: 0' first
    with pytest.raises(ParticipantVisibleError, match=r"the pandas index"):
        score(SOLUTION, read_back)


def test_a_trailing_comma_keeps_its_own_diagnosis(tmp_path) -> None:
    path = tmp_path / "submission.csv"
    lines = SUBMISSION.read_text().splitlines()
    path.write_text("".join(line + ",\n" for line in lines))
    with pytest.raises(ParticipantVisibleError, match="a comma at the end of every line"):
        score(SOLUTION, path)


@pytest.mark.parametrize(
    ("delimiter", "words"), [("\t", "tabs"), (";", "semicolons"), ("; ", "semicolons")]
)
def test_a_file_of_another_delimiter_is_told_to_use_commas(tmp_path, delimiter, words) -> None:
    """The whole header read as one column is no misspelt name: one problem, whose fix
    is the delimiter (spaces after it, too)."""
    path = tmp_path / "submission.csv"
    path.write_text(SUBMISSION.read_text().replace(",", delimiter))
    with pytest.raises(ParticipantVisibleError) as caught:
        score(SOLUTION, path)
    message = str(caught.value)
    header = "customer_id" + delimiter + "prediction"
    assert f"the header is one column, [{header!r}]: the file looks" in message
    assert f"the file looks separated by {words}\n" in message
    assert "fix:      write the file with commas between the columns" in message
    assert "(1 problem)" in message and "looks like" not in message


def test_usage_as_the_row_id_column_gets_its_own_message() -> None:
    solution = pd.DataFrame({"id": ["u1"], "items": ["a"], "Usage": ["Public"]})
    with pytest.raises(HostVisibleError, match=r"Usage as the row-id column") as caught:
        score(solution, solution[["id", "items"]], "Usage")
    assert "besides 'Usage' and an optional 'Usage'" not in str(caught.value)


@pytest.mark.parametrize(
    ("keyword", "meant"), [("K", "k"), ("normalisation", "normalization"), ("split", "splits")]
)
def test_evalai_refuses_unknown_keywords(keyword: str, meant: str) -> None:
    with pytest.raises(
        HostVisibleError, match=f"Unknown keyword argument '{keyword}' \\(did you mean '{meant}'"
    ):
        evalai_evaluate(SOLUTION, SUBMISSION, "test", **{keyword: 3})


def test_evalai_still_accepts_what_evalai_passes() -> None:
    output = evalai_evaluate(SOLUTION, SUBMISSION, "test", submission_metadata={"id": 1})
    assert output["submission_result"] == {"map_at_10": 11 / 12}
