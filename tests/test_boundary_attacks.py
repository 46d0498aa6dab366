"""Attacks on the information boundary (docs/decisions.md#information-boundary) that its property
test did not try.

Each test plays a hostile participant: two solutions that share their row ids and
differ in what must stay hidden, one submission, and the participant's view of both
must be identical.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from scorer import HostVisibleError, ParticipantVisibleError, evaluate
from scorer.adapters.cli import main

IDS = [f"u{i}" for i in range(8)]
SOLUTION = pd.DataFrame({"id": IDS, "items": ["a", "b"] * 4, "Usage": ["Public", "Private"] * 4})
# The same rows, sorted by Usage as a host that concatenated its splits would write them.
SORTED_BY_USAGE = SOLUTION.sort_values("Usage", kind="stable").reset_index(drop=True)


def _participant_view(solution: pd.DataFrame, submission: pd.DataFrame, **options) -> object:
    try:
        result = evaluate(solution, submission, "id", **options)
    except ParticipantVisibleError as error:
        return str(error)
    return [
        (w.code, w.count, w.examples, str(w))
        for w in result.warnings
        if w.audience == "participant"
    ]


def test_warning_examples_do_not_follow_the_solutions_row_order() -> None:
    """An all-empty submission's examples used to list the solution's first rows:
    Private rows first when the solution was sorted by Usage, and by emptying chosen
    rows a participant could read the whole order."""
    submission = pd.DataFrame({"id": IDS[::-1], "items": [""] * 8})
    seen = _participant_view(SORTED_BY_USAGE, submission)
    assert seen == _participant_view(SOLUTION, submission)
    ((code, count, examples, _),) = seen
    assert (code, count) == ("empty_rows", 8)
    assert examples == ("u0", "u1", "u2", "u3", "u4")  # the smallest, in byte order


def test_missing_row_examples_do_not_follow_the_solutions_row_order() -> None:
    submission = pd.DataFrame({"id": ["u0"], "items": ["a"]})
    message = _participant_view(SORTED_BY_USAGE, submission)
    assert message == _participant_view(SOLUTION, submission)
    with pytest.raises(ParticipantVisibleError, match=r"examples \(row ids\): 'u1', 'u2', 'u3'"):
        evaluate(SORTED_BY_USAGE, submission, "id")


@pytest.mark.parametrize("seed", range(20))
def test_any_permutation_of_the_solution_shows_the_participant_the_same_text(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(6, 30))
    ids = [f"r{i}" for i in range(n)]
    solution = pd.DataFrame(
        {
            "id": ids,
            "items": rng.choice(["a", "b c", "", "0123"], n),
            "Usage": rng.choice(["Public", "Private", "Ignored"], n),
        }
    )
    solution.loc[0, ["items", "Usage"]] = ["a", "Public"]
    permuted = solution.iloc[rng.permutation(n)].reset_index(drop=True)
    kept = rng.permutation(n)[: int(rng.integers(1, n + 1))]
    submission = pd.DataFrame(
        {
            "id": [ids[i] for i in kept],
            "items": rng.choice(["", "a a", "123 0456", "a,b", "a b c d e f"], len(kept)),
        }
    )
    for options in ({"k": 3}, {"k": 3, "extra_predictions": "truncate"}):
        assert _participant_view(solution, submission, **options) == _participant_view(
            permuted, submission, **options
        )


# --- host errors in a log participants may read ------------------------------------------

BROKEN_SOLUTIONS = {
    # Arrow's parse error quotes the line: a row id and its items.
    "a stray field": "id,items,Usage\nu1,SECRET1 SECRET2,Public,x\nu2,b,Private\n",
    # The unknown values, and the row ids that hold them: which rows are Private.
    "lower-case Usage": "id,items,Usage\nu1,a,Public\nu2,b,private\nu3,c,private\n",
    # How many rows are Ignored, and how many have no relevant item.
    "no scorable user": "id,items,Usage\nu1,,Public\nu2,b,Ignored\nu3,c,Ignored\n",
}


def _run_codabench(tmp_path: Path, solution: str, *options: str) -> tuple[int, str]:
    ref, res, out = tmp_path / "in" / "ref", tmp_path / "in" / "res", tmp_path / "out"
    for folder in (ref, res, out):
        folder.mkdir(parents=True)
    (ref / "solution.csv").write_text(solution)
    (res / "submission.csv").write_text("id,items\nu1,a\nu2,b\nu3,c\n")
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(["codabench", str(tmp_path / "in"), str(out), *options])
    return code, stdout.getvalue() + stderr.getvalue()


@pytest.fixture
def _keep_the_memory_pool():
    """``main()`` picks Arrow's allocator for its process: give this one its own back."""
    previous = pa.default_memory_pool()
    yield
    pa.set_memory_pool(previous)


@pytest.mark.usefixtures("_keep_the_memory_pool")
@pytest.mark.parametrize("broken", sorted(BROKEN_SOLUTIONS))
def test_a_host_error_in_a_public_log_quotes_nothing_of_the_solution(
    tmp_path: Path, broken: str
) -> None:
    """The log of ``--public-only`` once printed the host error whole: a solution line
    with its items, the rows whose Usage was 'private', the number of Ignored rows."""
    solution = BROKEN_SOLUTIONS[broken]
    code, log = _run_codabench(tmp_path / "public", solution, "--public-only")
    assert code == 2
    assert re.fullmatch(
        r"scorer: host error: the solution, its folder or the options are invalid( \([\w ;-]+\))?"
        r"; details are withheld because participants may read this log \(--public-only\): "
        r"score the sample submission with the same solution and options to see them\.\n",
        log,
    ), log
    # The host's own runs keep the details.
    code, log = _run_codabench(tmp_path / "private", solution)
    assert code == 2
    assert re.search(r"SECRET1 SECRET2|'private'|1 are Ignored|2 are Ignored", log), log


@pytest.mark.usefixtures("_keep_the_memory_pool")
def test_a_public_log_names_the_host_problems_it_withholds(tmp_path: Path) -> None:
    _, log = _run_codabench(tmp_path, BROKEN_SOLUTIONS["lower-case Usage"], "--public-only")
    assert "(Unknown Usage values)" in log and "u2" not in log and "private" not in log


@pytest.mark.parametrize("broken", sorted(BROKEN_SOLUTIONS))
def test_an_evalai_host_error_quotes_nothing_of_the_solution(tmp_path: Path, broken: str) -> None:
    """EvalAI shows a failed submission's error message to the participant."""
    from scorer.adapters.evalai import evaluate as evalai_evaluate

    solution, submission = tmp_path / "solution.csv", tmp_path / "submission.csv"
    solution.write_text(BROKEN_SOLUTIONS[broken])
    submission.write_text("id,items\nu1,a\nu2,b\nu3,c\n")
    with pytest.raises(HostVisibleError) as caught:
        evalai_evaluate(solution, submission, "phase")
    message = str(caught.value)
    assert re.fullmatch(
        r"the solution, its folder or the options are invalid( \([\w ;-]+\))?; details are "
        r"withheld because EvalAI shows this message to participants: score the sample "
        r"submission with the same solution and options to see them\.",
        message,
    ), message
    assert caught.value.__suppress_context__


def test_the_property_cases_show_the_same_text_against_a_permuted_solution() -> None:
    """The non-interference cases (every warning and submission error, both options),
    against the same solution with its rows in another order."""
    from tests.boundary_cases import make_case, participant_view

    for seed in range(100):
        case = make_case(seed)
        solution = case.solutions[0]
        order = np.random.default_rng(seed).permutation(len(solution))
        permuted = solution.iloc[order].reset_index(drop=True)
        assert participant_view(solution, case) == participant_view(permuted, case), seed


def test_an_unreadable_folder_in_the_submission_is_invalid_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``unzip`` restores a folder's mode bits, so an archive can hold a folder the
    scoring program may not list (simulated: the tests may run as root)."""
    from scorer.adapters import codabench

    res = tmp_path / "res"
    (res / "locked").mkdir(parents=True)
    real_scandir = os.scandir

    def scandir(path):
        if Path(path).name == "locked":
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)

    monkeypatch.setattr(codabench.os, "scandir", scandir)
    with pytest.raises(
        ParticipantVisibleError,
        match=r"^The submission folder 'locked' cannot be read \(Permission denied\)",
    ):
        codabench.find_single_file(res, ParticipantVisibleError, "submission")


@pytest.mark.usefixtures("_keep_the_memory_pool")
@pytest.mark.parametrize(
    ("solution", "title"),
    [
        (BROKEN_SOLUTIONS["no scorable user"], "No scorable user"),
        ("id,items,Usage\nu1,a,Private\nu2,b,Private\nu3,c,Private\n", "No scorable Public row"),
        ("id,items\nu1,a\nu2,b\nu3,c\n", "No scorable Public row"),
    ],
)
def test_a_withheld_host_error_still_says_what_is_wrong(
    tmp_path: Path, solution: str, title: str
) -> None:
    code, log = _run_codabench(tmp_path, solution, "--public-only")
    assert code == 2
    assert f"are invalid ({title}); details are withheld" in log, log


@pytest.mark.usefixtures("_keep_the_memory_pool")
@pytest.mark.parametrize("form", [b"c%06d", b"c%d"], ids=["equal layout", "parser"])
def test_a_submission_past_the_decoded_limit_is_told_the_same_whatever_the_solution(
    tmp_path: Path, form: bytes
) -> None:
    """The decoded-size refusal (text and 8 bytes a cell) reads the submission alone:
    two solutions differing in items, Usage and empty users, both within the limit,
    show the participant the same text."""
    n_users, n_rows = 1_000, 60_000  # the submission's rows: past the equal-layout threshold
    ids = [(form % i).decode() for i in range(n_users)]
    submission = tmp_path / "submission.csv"
    submission.write_bytes(b"id,items\n" + b"".join(form % i + b",\n" for i in range(n_rows)))
    limit = 2**20  # the solutions decode to about 40 KB, the submission to 1.4 to 1.9 MB
    views = []
    for seed in (1, 2):
        rng = np.random.default_rng(seed)
        items = [" ".join(rng.choice(["a", "b", "c"], size=int(rng.integers(0, 3)))) for _ in ids]
        usage = rng.choice(["Public", "Private"], size=n_users)
        solution = tmp_path / f"solution{seed}.csv"
        pd.DataFrame({"id": ids, "items": items, "Usage": usage}).to_csv(solution, index=False)
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
            code = main([str(solution), str(submission), "--max-decompressed-bytes", str(limit)])
        views.append((code, stderr.getvalue()))
    assert views[0] == views[1]
    assert views[0][0] == 1
    assert re.search(r"(?s)Decompressed data too large.*once decoded", views[0][1])
