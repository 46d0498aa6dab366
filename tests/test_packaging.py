"""What the platforms' workers and a fresh install need: the Codabench program without
pandas, and the README's commands in step with CI and the package metadata."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

from tests.paths import EXAMPLE, ROOT


def test_the_codabench_program_runs_where_pandas_cannot_be_imported(tmp_path) -> None:
    """A Codabench image needs only numpy and pyarrow: pandas is made unimportable."""
    for folder, name in (("ref", "solution.csv"), ("res", "submission.csv")):
        (tmp_path / "input" / folder).mkdir(parents=True)
        shutil.copy(EXAMPLE / name, tmp_path / "input" / folder / name)
    code = (
        "import sys\n"
        "sys.modules['pandas'] = None  # any import of pandas now raises ImportError\n"
        "from scorer.adapters.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, "codabench", tmp_path / "input", tmp_path / "output"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    scores = json.loads((tmp_path / "output" / "scores.json").read_text())
    assert scores["map_at_10"] == 0.65


def test_the_readme_commands_are_the_ones_ci_runs() -> None:
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    test_command = 'python -m pip install -e ".[test]" && python -m pytest'
    assert test_command in readme
    assert test_command in ci
    assert "fixtures/example/solution.csv" in ci


def test_the_distribution_name_is_used_consistently() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text()
    name = re.search(r'^name = "([^"]+)"', pyproject, re.MULTILINE).group(1)
    assert name != "scorer"  # taken on the package index by an unrelated project
    assert f"docker build -t {name} ." in (ROOT / "README.md").read_text()
    assert f"pip install {name}" in (ROOT / "README.md").read_text()
    assert f'title="{name}"' in (ROOT / "Dockerfile").read_text()
    assert re.search(r'^license = "MIT"$', pyproject, re.MULTILINE)
    assert "MIT License" in (ROOT / "LICENSE").read_text()


def test_the_evalai_example_scores_as_the_worker_calls_it() -> None:
    """The shipped evaluation_script/ imported as EvalAI's worker imports it."""
    import importlib.util

    folder = ROOT / "examples" / "evalai" / "evaluation_script"
    spec = importlib.util.spec_from_file_location(
        "evaluation_script", folder / "__init__.py", submodule_search_locations=[str(folder)]
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["evaluation_script"] = module
    try:
        spec.loader.exec_module(module)
        output = module.evaluate(
            str(EXAMPLE / "solution.csv"),
            str(EXAMPLE / "submission.csv"),
            "test",
            submission_metadata={"id": 1},
        )
    finally:
        sys.modules.pop("evaluation_script", None)
        sys.modules.pop("evaluation_script.main", None)
    assert output["result"] == [
        {"public_split": {"map_at_10": 11 / 12}},
        {"private_split": {"map_at_10": 17 / 36}},
    ]


def test_the_package_ships_its_type_hints() -> None:
    """PEP 561: ``scorer/py.typed`` is in the package and declared as its data, so that
    the wheel carries it (CI checks the built wheel too)."""
    assert (ROOT / "scorer" / "py.typed").is_file()
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert re.search(
        r'^\[tool\.setuptools\.package-data\]\nscorer = \["py\.typed"\]', pyproject, re.M
    )
