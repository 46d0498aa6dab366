"""The command line, end to end: output, exit codes, formats (``main()`` in the test's
process, as tests.commands.run_scorer runs it, and ``python -m scorer`` the same)."""

from __future__ import annotations

import csv
import gzip
import inspect
import json
import re
import sys
import zipfile
from fractions import Fraction
from pathlib import Path

import pandas as pd
import pytest

import scorer
from scorer.adapters import cli
from scorer.options import OPTION, SETTINGS
from tests.benchmark_modules import load
from tests.commands import run_command, run_python, run_scorer, run_scorer_process
from tests.declared import FLAGGED, other_value
from tests.paths import EXAMPLE, ROOT

SOLUTION = EXAMPLE / "solution.csv"
SUBMISSION = EXAMPLE / "submission.csv"


@pytest.fixture(scope="module")
def expected():
    return scorer.evaluate(SOLUTION, SUBMISSION)


#: Runs that end each way, with their exit codes: a score, an invalid submission, host
#: errors, usage errors, help and the version.
_ENDINGS = [
    ((SOLUTION, SUBMISSION, "--json"), 0),
    ((SOLUTION, EXAMPLE / "missing.csv"), 2),
    ((SOLUTION, SOLUTION), 1),
    ((SOLUTION, SUBMISSION, "-k", "0"), 2),
    ((SOLUTION, SUBMISSION, "--no-such-flag"), 2),
    (("--help",), 0),
    (("trec-eval", "--help"), 0),
    (("leaderboard", SOLUTION), 2),
    (("--version",), 0),
]


@pytest.mark.parametrize(
    ("args", "code"), _ENDINGS, ids=[" ".join(map(str, args))[-40:] for args, _ in _ENDINGS]
)
def test_a_run_in_the_tests_process_is_the_commands_own(args, code):
    # What the tests read of main() in their own process is what `python -m scorer` does.
    here, apart = run_scorer(*args), run_scorer_process(*args)
    assert (here.returncode, here.stdout, here.stderr) == (
        apart.returncode,
        apart.stdout,
        apart.stderr,
    )
    assert here.returncode == code, here.stderr


def test_human_output(expected):
    done = run_scorer(SOLUTION, SUBMISSION)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    assert lines[0] == f"MAP@10: {expected.score!r}"
    assert float(lines[0].split()[-1]) == pytest.approx(float(Fraction(39, 60)), abs=1e-15)
    assert lines[1] == f"  Public:  {expected.public_score!r}"
    assert lines[2] == f"  Private: {expected.private_score!r}"
    assert lines[3] == "Users: 5 scored, 1 skipped (no relevant item), 1 ignored; 7 in the solution"
    assert lines[4] == "Warnings (3):"
    assert lines[5].startswith("  - [submission] 1 row has a repeated item id")
    assert lines[5].endswith("Examples: 'c02'")


def test_json_output(expected):
    done = run_scorer(SOLUTION, SUBMISSION, "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data == expected.to_dict()
    assert data["score"] == pytest.approx(float(Fraction(39, 60)), abs=1e-15)
    assert data["public_score"] == pytest.approx(float(Fraction(11, 12)), abs=1e-15)
    assert data["private_score"] == pytest.approx(float(Fraction(17, 36)), abs=1e-15)
    assert (data["n_users"], data["n_scored"], data["n_skipped"], data["n_ignored"]) == (7, 5, 1, 1)
    assert [w["code"] for w in data["warnings"]] == ["repeated_items", "short_rows", "empty_rows"]


def test_options_are_passed_through(tmp_path):
    done = run_scorer(
        SOLUTION,
        SUBMISSION,
        "--json",
        "--k",
        "2",
        "--empty-ground-truth",
        "zero",
        "--extra-predictions",
        "truncate",
        "--normalization",
        "hits",
        "--unknown-row-ids",
        "ignore",
        "--row-id-column",
        "customer_id",
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    expected = scorer.evaluate(
        SOLUTION,
        SUBMISSION,
        "customer_id",
        k=2,
        empty_ground_truth="zero",
        extra_predictions="truncate",
        normalization="hits",
        unknown_row_ids="ignore",
    )
    assert data == expected.to_dict()
    given = {
        "k": 2,
        "dialect": "kaggle",
        "empty_ground_truth": "zero",
        "extra_predictions": "truncate",
        "normalization": "hits",
        "unknown_row_ids": "ignore",
    }
    assert data["options"] == {option.name: option.default for option in SETTINGS} | given


def test_every_flag_gives_its_option_a_value() -> None:
    """Each flag, given a value its option's constraint samples (not its default), hands
    that value to evaluate."""
    parser = cli._score_parser()
    for name, option in FLAGGED.items():
        value = other_value(option)
        flag = option.flags[-1]
        if isinstance(value, dict):  # --type-weight TYPE=W, once per type
            arguments = [part for kind, w in value.items() for part in (flag, f"{kind}={w}")]
        elif isinstance(value, list):  # a repeatable flag, once per value
            arguments = [part for item in value for part in (flag, str(item))]
        else:
            arguments = [flag, str(value)]
        args = cli.parse_scoring_args(parser, ["solution.csv", "submission.csv", *arguments])
        assert cli.evaluate_kwargs(args) == {name: value, "limits": scorer.ReadLimits()}, name


def test_per_user_csv(tmp_path):
    out = tmp_path / "per_user.csv"
    done = run_scorer(SOLUTION, SUBMISSION, "--per-user", out)
    assert done.returncode == 0, done.stderr
    with out.open(newline="") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["customer_id", "ap", "hits", "n_relevant", "scored"]
    by_id = {row[0]: row[1:] for row in rows[1:]}
    assert list(by_id) == ["c01", "c02", "c03", "c04", "c05", "c06", "c07"]
    exact = {"c01": Fraction(5, 6), "c02": 1, "c04": Fraction(11, 12), "c05": Fraction(1, 2)}
    aps = {key: float(value[0]) for key, value in by_id.items() if value[0]}
    assert aps == pytest.approx({**{k: float(v) for k, v in exact.items()}, "c06": 0.0}, abs=1e-15)
    per_user = scorer.evaluate(SOLUTION, SUBMISSION, per_user=True).per_user
    assert aps == per_user["ap"].dropna().to_dict()  # the CSV carries every digit
    assert by_id["c03"] == ["", "0", "0", "False"]
    assert by_id["c06"] == ["0.0", "0", "2", "True"]
    assert by_id["c07"][3] == "False"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["per_user.csv"]


def test_per_user_unwritable_is_a_host_error(tmp_path):
    done = run_scorer(SOLUTION, SUBMISSION, "--per-user", tmp_path / "missing" / "out.csv")
    assert done.returncode == 2
    assert re.search(r"host error: Cannot write .*out\.csv.*No such file", done.stderr)


def test_invalid_submission_exits_1_with_the_message_on_stderr(tmp_path):
    bad = tmp_path / "sub.csv"
    bad.write_text("customer_id,prediction\nc01,a\nc01,b\n")
    done = run_scorer(SOLUTION, bad)
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.startswith("The submission is invalid")
    assert "Duplicated row ids" in done.stderr
    assert "0706016001" not in done.stderr  # never a solution value


def test_json_prints_an_invalid_submission_as_a_json_error_object(tmp_path):
    bad = tmp_path / "sub.csv"
    bad.write_text("customer_id,prediction\nc01,a\nc01,b\n")
    done = run_scorer(SOLUTION, bad, "--json")
    assert done.returncode == 1
    error = json.loads(done.stdout)["error"]
    assert error["kind"] == "submission"
    assert error["message"] == done.stderr.rstrip("\n")
    assert [p["title"] for p in error["problems"]] == ["Duplicated row ids", "Missing rows"]
    problem = error["problems"][0]
    assert problem["examples"] == ["c01"]
    assert set(problem) == {"title", "expected", "found", "examples", "example_label", "fix"}
    assert "0706016001" not in done.stdout  # never a solution value


def test_json_prints_a_host_error_as_a_json_error_object(tmp_path):
    solution = tmp_path / "sol.csv"
    solution.write_text("id,items,Usage\nu1,a,Secret\n")
    done = run_scorer(solution, SUBMISSION, "--json")
    assert done.returncode == 2
    error = json.loads(done.stdout)["error"]
    assert error["kind"] == "host"
    assert f"scorer: host error: {error['message']}" == done.stderr.rstrip("\n")
    assert [p["title"] for p in error["problems"]] == ["Unknown Usage values"]


def test_json_prints_a_usage_error_of_compare_as_a_json_error_object(tmp_path):
    solution = tmp_path / "sol.csv"
    solution.write_text("id,items,Usage\nu1,a,Secret\n")
    done = run_scorer("compare", solution, SUBMISSION, SUBMISSION, "--json")
    assert done.returncode == 2
    assert json.loads(done.stdout)["error"]["kind"] == "host"


def test_host_error_exits_2(tmp_path):
    solution = tmp_path / "sol.csv"
    solution.write_text("id,items,Usage\nu1,a,Secret\n")
    done = run_scorer(solution, SUBMISSION)
    assert done.returncode == 2
    assert done.stderr.startswith("scorer: host error: ")
    assert "Usage" in done.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), r"the following arguments are required: solution, submission"),
        (("--k", "ten"), r"argument -k/--k: invalid int value: 'ten'"),
        (("--normalization", "kaggle"), r"invalid choice: 'kaggle'"),
        (("--max-input-bytes", "lots"), r"invalid size 'lots'"),
    ],
)
def test_usage_errors_exit_2(args, message):
    extra = () if not args else (SOLUTION, SUBMISSION)
    done = run_scorer(*extra, *args)
    assert done.returncode == 2
    assert re.search(message, done.stderr)


@pytest.mark.parametrize(
    ("command", "args", "meant"),
    [
        ((), ("--grade-colunm", "g"), "--grade-column"),
        ((), ("--metrc", "MAP"), "--metric"),
        ((), ("--normalization", "minn"), "min_k"),
        ((), ("--empty-ground-truth=skp",), "skip"),
        (("compare",), ("--resampels", "3"), "--resamples"),
        (("recipes",), ("--jsn",), "--json"),
    ],
)
def test_a_misspelt_flag_or_choice_names_the_closest(command, args, meant):
    """argparse's usage error (exit 2) with the closest flag or choice, on every
    command's parser (argparse's own suggestion on Python 3.14)."""
    files = () if command == ("recipes",) else (SOLUTION, SUBMISSION)
    files = (*files, SUBMISSION) if command == ("compare",) else files
    done = run_scorer(*command, *files, *args)
    assert done.returncode == 2
    assert re.search(rf"(did you mean|maybe you meant) '{re.escape(meant)}'\?", done.stderr)


def test_invalid_option_value_exits_2():
    done = run_scorer(SOLUTION, SUBMISSION, "--k", "0")
    assert done.returncode == 2
    assert "The 'k' parameter must be an int in the range [1, inf). Got 0 instead." in done.stderr


INTERNAL = (
    "import sys, scorer, scorer.adapters.cli\n"
    "def boom(*args, **kwargs):\n"
    "    raise RuntimeError('disk on fire')\n"
    "scorer.evaluate = boom\n"
    "sys.exit(scorer.adapters.cli.main(sys.argv[1:]))\n"
)


def test_internal_error_exits_3_without_traceback():
    done = run_python("-c", INTERNAL, SOLUTION, SUBMISSION)
    assert done.returncode == 3
    assert done.stderr == (
        "scorer: internal error: RuntimeError: disk on fire "
        "(run again with --debug for the traceback)\n"
    )


def test_internal_error_traceback_with_debug():
    done = run_python("-c", INTERNAL, SOLUTION, SUBMISSION, "--debug")
    assert done.returncode == 3
    assert done.stderr.startswith("Traceback (most recent call last):")
    assert done.stderr.endswith("scorer: internal error: RuntimeError: disk on fire\n")


def test_help_lists_the_commands_before_the_options():
    done = run_scorer("--help")
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert lines[:2] == [
        "usage: scorer SOLUTION SUBMISSION [options]",
        "       scorer {compare,report,leaderboard,codabench,recipes,trec-eval} ... (scorer "
        "COMMAND --help)",
    ]
    first_option = lines.index("options:")
    for command in ("compare", "report", "leaderboard", "codabench", "recipes", "trec-eval"):
        (line,) = [n for n, text in enumerate(lines) if text.startswith(f"  scorer {command} ")]
        assert line < 13 < first_option


def test_help_shows_every_option_with_its_default():
    done = run_scorer("--help")
    assert done.returncode == 0
    text = " ".join(done.stdout.split())
    parameters = inspect.signature(scorer.evaluate).parameters
    for name in parameters:
        if name in ("solution", "submission", "per_user", "limits"):
            continue
        flag = OPTION[name].flags[-1]  # the long flag, as declared
        assert flag in text, flag
    for shown in [
        "MAP@K (default: 10)",
        "(default: the solution's first column)",
        "(default: skip)",
        "(default: error)",
        "(default: min_k)",
        "largest input file, as stored (default: 1GiB)",
        "largest CSV text once decompressed (default: 1GiB)",
        "longest CSV line (default: 1MiB)",
        "longest cell (default: 512KiB)",
        "most columns (default: 100)",
        "(default: 200)",
        "--per-user PATH",
        "--json",
        "scorer codabench INPUT_DIR OUTPUT_DIR",
    ]:
        assert shown in text, shown


def test_version():
    done = run_scorer("--version")
    assert (done.returncode, done.stdout) == (0, f"scorer {scorer.__version__}\n")


@pytest.fixture(scope="module")
def variants(tmp_path_factory):
    folder = tmp_path_factory.mktemp("variants")
    data = SUBMISSION.read_bytes()
    (folder / "sub.csv.gz").write_bytes(gzip.compress(data))
    with zipfile.ZipFile(folder / "sub.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("submission.csv", data)
    frame = pd.read_csv(SUBMISSION, dtype=str, keep_default_na=False)
    frame.to_parquet(folder / "sub.parquet", index=False)
    (folder / "bom_crlf.csv").write_bytes(b"\xef\xbb\xbf" + data.replace(b"\n", b"\r\n"))
    (folder / "sol.csv.gz").write_bytes(gzip.compress(SOLUTION.read_bytes()))
    return folder


@pytest.mark.parametrize("name", ["sub.csv.gz", "sub.zip", "sub.parquet", "bom_crlf.csv"])
def test_every_submission_format(variants, expected, name):
    done = run_scorer(variants / "sol.csv.gz", variants / name, "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == expected.to_dict()


def test_submission_from_a_pipe(expected):
    done = run_scorer(SOLUTION, "/dev/stdin", "--json", input=SUBMISSION.read_text())
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == expected.to_dict()


def test_zip_with_two_members_exits_1(tmp_path):
    path = tmp_path / "sub.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("a.csv", SUBMISSION.read_bytes())
        archive.writestr("b.csv", SUBMISSION.read_bytes())
    done = run_scorer(SOLUTION, path)
    assert done.returncode == 1
    assert "Not exactly one file in the zip archive" in done.stderr
    assert "2 files: 'a.csv', 'b.csv'" in done.stderr


def test_zip_bomb_exits_1(tmp_path):
    path = tmp_path / "bomb.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("sub.csv", b"customer_id,prediction\n" + b"c01,a\n" * 5_000_000)
    done = run_scorer(SOLUTION, path)
    assert done.returncode == 1
    assert "Compression ratio too high" in done.stderr


def test_file_over_the_size_limit_exits_1(tmp_path):
    big = tmp_path / "sub.csv"
    big.write_bytes(SUBMISSION.read_bytes() + b"c99,x\n" * 20)
    limit = SOLUTION.stat().st_size
    assert big.stat().st_size > limit
    done = run_scorer(SOLUTION, big, "--max-input-bytes", limit)
    assert done.returncode == 1
    assert "File too large" in done.stderr
    assert f"found:    {big.stat().st_size:,} bytes" in done.stderr


def test_raised_limit_lets_the_file_through():
    done = run_scorer(SOLUTION, SUBMISSION, "--max-input-bytes", "1KiB", "--max-line-bytes", "100")
    assert done.returncode == 0, done.stderr


def _dockerfile_instruction(name: str) -> str:
    text = (ROOT / "Dockerfile").read_text()
    return re.search(rf"^{name}\s+(.+)$", text, re.MULTILINE).group(1)  # type: ignore[union-attr]


def test_the_command_the_docker_image_runs(expected):
    entrypoint = json.loads(_dockerfile_instruction("ENTRYPOINT"))
    assert entrypoint == ["scorer"]
    assert _dockerfile_instruction("USER") != "root"
    assert _dockerfile_instruction("FROM").startswith("python:")
    executable = Path(sys.executable).parent / entrypoint[0]
    done = run_command(executable, SOLUTION, SUBMISSION, "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == expected.to_dict()


#: What scoring one submission never imports: pandas (a tenth of an H&M-scale run), and
#: what only the other commands use (the leaderboard, its pages, the report, parts), a
#: quarter of a small file's run.
NOT_IMPORTED_TO_SCORE = (
    "pandas",
    "scorer.partial",
    "scorer.adapters.parts",
    "scorer.stats.leaderboard",
    "scorer.stats.standings",
    "scorer.stats.report",
)


def test_scoring_files_never_imports_pandas_nor_the_other_commands(tmp_path):
    """The command line scoring files imports none of :data:`NOT_IMPORTED_TO_SCORE`.
    Checked on an H&M-shaped file, the shipped example, OTTO's shape and Codabench's."""
    data = load("generate").generate(2_000, tmp_path, seed=5)
    code = (
        "import sys\n"
        "from scorer.adapters.cli import main\n"
        "assert main(sys.argv[1:]) == 0\n"
        f"found = [name for name in {NOT_IMPORTED_TO_SCORE!r} if name in sys.modules]\n"
        "assert not found, f'imported: {found}'\n"
    )
    for pair in ((data.solution, data.submission), (SOLUTION, SUBMISSION)):
        done = run_python("-c", code, *pair, "--json")
        assert done.returncode == 0, done.stderr
    # Integer items and target types (OTTO's shape), read as values on the thread pool.
    otto = load("generate_otto")
    (tmp_path / "otto").mkdir()
    otto.write(tmp_path / "otto", otto.generate(3_000, seed=2), 3_000)
    pair = (tmp_path / "otto" / "solution.csv", tmp_path / "otto" / "submission.csv")
    done = run_python("-c", code, *pair, "--recipe", "otto-2023")
    assert done.returncode == 0, done.stderr
    (tmp_path / "in" / "ref").mkdir(parents=True)
    (tmp_path / "in" / "res").mkdir()
    (tmp_path / "in" / "ref" / "solution.csv").write_bytes(data.solution.read_bytes())
    (tmp_path / "in" / "res" / "submission.csv").write_bytes(data.submission.read_bytes())
    codabench = ("codabench", tmp_path / "in", tmp_path / "out")
    done = run_python("-c", code, *codabench)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "scores.json").exists()
