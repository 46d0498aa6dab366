"""Codabench / CodaLab scoring-program mode on an input/ref, input/res, output tree."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
import zipfile
from fractions import Fraction
from pathlib import Path

import pytest

import scorer
from scorer.adapters.codabench import score_directories
from scorer.errors import HostVisibleError, ParticipantVisibleError
from tests.commands import run_scorer
from tests.paths import EXAMPLE, ROOT

METADATA = ROOT / "examples" / "codabench" / "scoring_program" / "metadata.yaml"


def make_tree(tmp_path: Path, submission: bytes | None = None) -> tuple[Path, Path]:
    ref, res, out = tmp_path / "input" / "ref", tmp_path / "input" / "res", tmp_path / "output"
    for folder in (ref, res, out):
        folder.mkdir(parents=True)
    shutil.copy(EXAMPLE / "solution.csv", ref / "solution.csv")
    (ref / "metadata").write_text("This is the authoritative result.\n")
    (res / "metadata").write_text("description: from the platform\n")
    data = (EXAMPLE / "submission.csv").read_bytes() if submission is None else submission
    (res / "predictions.csv").write_bytes(data)
    return tmp_path / "input", out


def run(*args: object):
    return run_scorer("codabench", *args)


def test_scores_json_and_nothing_else(tmp_path):
    input_dir, output_dir = make_tree(tmp_path)
    done = run(input_dir, output_dir)
    assert done.returncode == 0, done.stderr
    expected = scorer.evaluate(EXAMPLE / "solution.csv", EXAMPLE / "submission.csv")
    written = json.loads((output_dir / "scores.json").read_text())
    assert written == {
        "map_at_10": expected.score,
        "map_at_10_public": expected.public_score,
        "map_at_10_private": expected.private_score,
    }
    assert written["map_at_10"] == pytest.approx(float(Fraction(39, 60)), abs=1e-15)
    assert written["map_at_10_public"] == pytest.approx(float(Fraction(11, 12)), abs=1e-15)
    assert [p.name for p in output_dir.iterdir()] == ["scores.json"]  # never `metadata`
    assert done.stdout.splitlines()[0] == f"map_at_10: {expected.score!r}"
    assert "warning: 1 row has a repeated item id" in done.stdout


def test_public_only_writes_one_key_and_logs_no_private_score(tmp_path):
    input_dir, output_dir = make_tree(tmp_path)
    done = run(input_dir, output_dir, "--public-only", "--k", "4")
    assert done.returncode == 0, done.stderr
    written = json.loads((output_dir / "scores.json").read_text())
    expected = scorer.evaluate(EXAMPLE / "solution.csv", EXAMPLE / "submission.csv", k=4)
    assert written == {"map_at_4_public": expected.public_score}
    assert "private" not in done.stdout.lower()


def test_without_usage_only_the_metric(tmp_path):
    input_dir, output_dir = make_tree(tmp_path, b"id,items\nu1,b a\n")
    (input_dir / "ref" / "solution.csv").write_text("id,items\nu1,a b\n")
    done = run(input_dir, output_dir, "--k", "2")
    assert done.returncode == 0, done.stderr
    assert json.loads((output_dir / "scores.json").read_text()) == {"map_at_2": 1.0}


def test_invalid_submission_exits_1_and_writes_nothing(tmp_path):
    input_dir, output_dir = make_tree(tmp_path, b"customer_id,prediction\nc01,a\n")
    done = run(input_dir, output_dir)
    assert done.returncode == 1
    assert done.stderr.startswith("The submission is invalid")
    assert "Missing rows" in done.stderr
    assert list(output_dir.iterdir()) == []


def test_two_submission_files_exit_1(tmp_path):
    input_dir, output_dir = make_tree(tmp_path)
    shutil.copy(input_dir / "res" / "predictions.csv", input_dir / "res" / "copy.csv")
    done = run(input_dir, output_dir)
    assert done.returncode == 1
    assert "Expected exactly one submission file; found 2: 'copy.csv', 'predictions.csv'" in (
        done.stderr
    )


def test_submission_in_a_folder_with_macos_debris(tmp_path):
    input_dir, output_dir = make_tree(tmp_path)
    nested = input_dir / "res" / "my_run"
    nested.mkdir()
    (input_dir / "res" / "predictions.csv").rename(nested / "predictions.csv")
    (input_dir / "res" / "__MACOSX").mkdir()
    (input_dir / "res" / "__MACOSX" / "._predictions.csv").write_bytes(b"\x00\x05")
    (nested / ".DS_Store").write_bytes(b"\x00")
    values, result = score_directories(input_dir, output_dir)
    assert values["map_at_10"] == result.score


def test_missing_solution_is_a_host_error(tmp_path):
    input_dir, output_dir = make_tree(tmp_path)
    shutil.rmtree(input_dir / "ref")
    done = run(input_dir, output_dir)
    assert done.returncode == 2
    assert "No solution directory: 'ref' is missing" in done.stderr
    with pytest.raises(HostVisibleError, match=r"No solution directory"):
        score_directories(input_dir, output_dir)


def test_empty_res_is_the_participants_error(tmp_path):
    input_dir, output_dir = make_tree(tmp_path)
    (input_dir / "res" / "predictions.csv").unlink()
    with pytest.raises(ParticipantVisibleError, match=r"one submission file; found 0: none"):
        score_directories(input_dir, output_dir)


def test_public_only_without_usage_is_a_host_error(tmp_path):
    input_dir, output_dir = make_tree(tmp_path, b"id,items\nu1,a\n")
    (input_dir / "ref" / "solution.csv").write_text("id,items\nu1,a\n")
    with pytest.raises(HostVisibleError, match=r"public_only needs a solution with a Usage"):
        score_directories(input_dir, output_dir, public_only=True)


def test_the_example_metadata_command(tmp_path):
    input_dir, output_dir = make_tree(tmp_path)
    lines = [line for line in METADATA.read_text().splitlines() if line.startswith("command:")]
    command = shlex.split(lines[0].removeprefix("command:"))
    assert command[:4] == ["python3", "-m", "scorer", "codabench"]
    paths = {"/app/input": str(input_dir), "/app/output": str(output_dir)}
    argv = [sys.executable, *(paths.get(arg, arg) for arg in command[1:])]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert set(json.loads((output_dir / "scores.json").read_text())) == {
        "map_at_10",
        "map_at_10_public",
        "map_at_10_private",
    }


def _readme_block(after: str, language: str = "bash", page: str = "hosting.md") -> str:
    """The first ``language`` block after ``after`` in the docs' ``page``."""
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    start = text.index(f"```{language}\n", text.index(after)) + len(language) + 4
    return text[start : text.index("```", start)]


@pytest.mark.skipif(shutil.which("zip") is None, reason="needs the zip command")
def test_the_readme_bundle_recipe_leaves_python_m_build_working(tmp_path):
    """The recipe must not make a build/ folder: in the current directory it would hide
    the build package, and `python -m build` would fail. Twice in a row, too."""
    shutil.copytree(
        ROOT / "scorer", tmp_path / "scorer", ignore=shutil.ignore_patterns("__pycache__")
    )
    (tmp_path / "examples" / "codabench" / "scoring_program").mkdir(parents=True)
    shutil.copy(METADATA, tmp_path / "examples" / "codabench" / "scoring_program")
    recipe = _readme_block("To build the bundle's scoring program")
    for _ in range(2):
        subprocess.run(["bash", "-ec", recipe], cwd=tmp_path, check=True, timeout=120)
    assert not (tmp_path / "build").exists()
    with zipfile.ZipFile(tmp_path / "bundle" / "scoring_program.zip") as archive:
        names = set(archive.namelist())
    assert {"metadata.yaml", "scorer/__init__.py", "scorer/__main__.py"} <= names
    assert not any("__pycache__" in name for name in names)


def test_the_sample_competition_runs_the_readmes_docker_image(tmp_path):
    """competition.yaml names the image docs/pipelines.md's Docker section builds; its scoring
    program's command, after the Dockerfile's entry point, writes the leaderboard's keys."""
    yaml = pytest.importorskip("yaml")
    competition = yaml.safe_load((ROOT / "examples" / "codabench" / "competition.yaml").read_text())
    docker = _readme_block("## Docker", page="pipelines.md")
    (image,) = re.findall(r"docker build -t (\S+) \.", docker)
    assert competition["docker_image"] == image == "rankscore"
    dockerfile = (ROOT / "Dockerfile").read_text()
    entrypoint = json.loads(re.search(r"^ENTRYPOINT\s+(.+)$", dockerfile, re.MULTILINE).group(1))
    assert entrypoint == ["scorer"]
    (task,) = competition["tasks"]
    assert task["scoring_program"] == "scoring_program"
    metadata = yaml.safe_load(
        (
            ROOT / "examples" / "codabench" / "scoring_program_rankscore" / "metadata.yaml"
        ).read_text()
    )
    input_dir, output_dir = make_tree(tmp_path)
    paths = {"/app/input": str(input_dir), "/app/output": str(output_dir)}
    # Codabench runs `docker run IMAGE COMMAND...`, split on spaces, after the entry point.
    argv = [paths.get(arg, arg) for arg in metadata["command"].split(" ")]
    done = subprocess.run(
        [sys.executable, "-m", "scorer", *argv], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    written = set(json.loads((output_dir / "scores.json").read_text()))
    columns = {c["key"] for board in competition["leaderboards"] for c in board["columns"]}
    assert columns <= written
    assert competition["phases"][0]["tasks"] == [task["index"]]
