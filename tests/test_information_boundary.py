"""The information boundary (docs/decisions.md#information-boundary): what a participant sees never
depends on hidden data.

Two solutions share their row ids and differ in everything else a participant must not
learn: the relevant items, the ``Usage`` column and which users have no relevant item.
The same submission, scored against both, must give byte-identical participant-visible
text: the ``ParticipantVisibleError`` message and the JSON error object ``--json`` prints
for it, the participant-audience warnings (message, count, examples), and the Codabench log
of ``--public-only`` once the Public score's value is masked, with the same exit code. The
submissions are drawn to provoke every warning and hint and every submission error.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer import HostVisibleError, ParticipantVisibleError, evaluate
from scorer.adapters.cli import main
from scorer.adapters.codabench import MAX_DEPTH, score_directories
from scorer.align.item_lists import split_lists
from scorer.align.rankings import GroundTruth
from scorer.check.findings import ID_REPAIRS
from scorer.errors import Finding
from tests.boundary_cases import (
    SCORE_HINT,
    Case,
    invalid_view,
    make_case,
    padded_items,
    participant_view,
    plain_prediction_row,
    prediction_row,
    same_but_for_the_public_score,
    same_logs_but_for_the_public_score,
    scored_participant_view,
)
from tests.cost import run_capped
from tests.declared import table_values


@pytest.fixture(autouse=True)
def _keep_the_memory_pool():
    """``main()`` picks Arrow's allocator for its process: give this one its own back."""
    previous = pa.default_memory_pool()
    yield
    pa.set_memory_pool(previous)


N_CASES = 200
N_CLI_CASES = 50
ROW_ID = "customer_id"
TARGET = "prediction"


def test_participant_text_does_not_depend_on_hidden_data() -> None:
    """Through the API; and the submissions tried provoke every warning and error."""
    codes: set[str] = set()
    problems: set[str] = set()
    whole_rows_scored = 0
    for seed in range(N_CASES):
        case = make_case(seed)
        first, second = (participant_view(s, case) for s in case.solutions)
        assert same_but_for_the_public_score(first, second), f"seed {seed}"
        kind, shown, *_ = first
        if kind == "scored":
            codes.update(code for code, *_ in shown)
            whole_rows_scored += case.k is None
        else:
            problems.update(re.findall(r"^\d+\. (.+)$", shown, flags=re.MULTILINE))
    # The property is only as good as the submissions it tries.
    assert codes == {
        "repeated_items",
        "short_rows",
        "empty_rows",
        "leading_zeros_lost",
        "item_ids_as_numbers",
        "comma_separated_lists",
        "numbers_scoring_zero",
    }
    assert problems == {
        "Missing rows",
        "Unknown row ids",
        "Duplicated row ids",
        "Empty row ids",
        "Too many predictions",
        "Missing columns",
        "Extra columns",
        f"Cells that are neither text nor item lists in column {TARGET!r}",
    }
    assert whole_rows_scored >= 10, whole_rows_scored


def _codabench_log(tmp_path: Path, solution: pd.DataFrame, case: Case) -> tuple[int, str, bool]:
    """Run ``scorer codabench ... --public-only`` in this process; exit code and log."""
    ref, res, out = tmp_path / "in" / "ref", tmp_path / "in" / "res", tmp_path / "out"
    for folder in (ref, res, out):
        folder.mkdir(parents=True, exist_ok=True)
    solution.to_csv(ref / "solution.csv", index=False)
    case.submission.to_csv(res / "submission.csv", index=False)
    stdout, stderr = io.StringIO(), io.StringIO()
    argv = ["codabench", str(tmp_path / "in"), str(out), "--public-only"]
    argv += ["-m", "SetF"] if case.k is None else ["--k", str(case.k)]
    if case.truncate:
        argv += ["--extra-predictions", "truncate"]
    if case.ignore_unknown:
        argv += ["--unknown-row-ids", "ignore"]
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(argv)
    log = stdout.getvalue() + "\n--- stderr ---\n" + stderr.getvalue()
    if (out / "scores.json").exists():
        log += "\n--- scores.json ---\n" + (out / "scores.json").read_text()
    public = re.search(r"(?:map_at_\d+|setf)_public\"?: ([0-9.e+-]+)", log)
    masked = re.sub(r"((?:map_at_\d+|setf)_public\"?: )[0-9.e+-]+", r"\1<score>", log)
    return code, masked, public is not None and float(public.group(1)) == 0


def test_the_codabench_log_does_not_depend_on_hidden_data(tmp_path: Path) -> None:
    """Through the command line, as a participant of a public-only phase sees it."""
    checked = 0
    for seed in range(N_CASES):
        case = make_case(seed)
        if "Usage" not in case.solutions[0]:
            continue
        runs = [
            _codabench_log(tmp_path / f"{seed}-{i}", s, case) for i, s in enumerate(case.solutions)
        ]
        assert same_logs_but_for_the_public_score(*runs), f"seed {seed}"
        assert runs[0][0] in (0, 1), runs[0]
        checked += 1
        if checked == N_CLI_CASES:
            break
    assert checked == N_CLI_CASES


# --- one regression test per leak --------------------------------------------------------


def _participant_warnings(result) -> list[str]:
    return [str(w) for w in result.warnings if w.audience == "participant"]


def test_leak_1_the_lost_zeros_hint_is_no_membership_oracle() -> None:
    """Predicting ``999`` once used to warn exactly when ``0999`` was someone's relevant item."""
    ids = ["c1", "c2", "c3"]
    submission = pd.DataFrame({"id": ids, "items": ["0706016001", "0372860001", "999"]})
    with_it = pd.DataFrame(
        {
            "id": ids,
            "items": ["0706016001", "0372860001", "0999"],
            "Usage": ["Public"] * 2 + ["Private"],
        }
    )
    without = with_it.assign(items=["0706016001", "0372860001", "0998"])
    guessed, missed = (evaluate(s, submission, "id") for s in (with_it, without))
    assert _participant_warnings(guessed) == _participant_warnings(missed)
    assert "leading_zeros_lost" not in [w.code for w in guessed.warnings]  # 999 is no sign
    # The host still learns it, from the comparison only the host sees (of each row with
    # its own relevant items: 999 is predicted for c3, whose item 0999 is).
    host = [w for w in guessed.warnings if w.audience == "host"]
    assert [(w.code, w.count, w.examples) for w in host] == [
        ("leading_zeros_lost_in_submission", 1, ("c3",))
    ]
    assert [w.code for w in missed.warnings if w.audience == "host"] == []


@pytest.mark.parametrize(
    "usage", [["Public", "Private", "Ignored"], ["Ignored", "Public", "Public"]]
)
def test_leak_2_warnings_count_every_row_whatever_usage_and_empty_truth_say(usage) -> None:
    """An all-empty submission's ``empty_rows`` once named exactly the scored rows."""
    ids = ["c1", "c2", "c3"]
    solution = pd.DataFrame({"id": ids, "items": ["a", "", "b"], "Usage": usage})
    result = evaluate(solution, pd.DataFrame({"id": ids, "items": ["", "", ""]}), "id")
    (empty,) = [w for w in result.warnings if w.code == "empty_rows"]
    assert (empty.count, empty.examples) == (3, ("c1", "c2", "c3"))
    assert str(empty) == "3 rows have no prediction and score 0. Examples: 'c1', 'c2', 'c3'"


def test_leak_3_an_item_list_as_row_id_column_is_the_hosts_error() -> None:
    """Scored with the default row-id column, item lists were quoted as "Missing rows"."""
    solution = pd.DataFrame(
        {"prediction": ["0706016001 0706016002", "0372860001"], "customer_id": ["c1", "c2"]}
    )
    submission = pd.DataFrame({"customer_id": ["c1", "c2"], "prediction": ["a", "b"]})
    with pytest.raises(HostVisibleError, match="Row ids that look like item lists") as caught:
        evaluate(solution, submission)
    message = str(caught.value)
    assert "row-id column 'prediction'" in message
    assert "row_id_column_name='customer_id'" in message
    assert "examples" not in message  # not the cells, and no row number (parts have none)
    assert "0706016001" not in message and "0372860001" not in message
    assert evaluate(solution, submission, "customer_id").score == 0.0  # the right column


def test_with_unknown_row_ids_ignored_nothing_names_the_solutions_ids() -> None:
    """There the solution lists only users with ground truth: which ids it holds is hidden."""
    submission = pd.DataFrame({"id": ["c1", "c2", "c3"], "items": ["", "a b c d", ""]})
    texts = set()
    for listed in (["c1", "c3"], ["c2", "c3"]):
        solution = pd.DataFrame({"id": listed, "items": ["a", "b"]})
        options = {"k": 2, "unknown_row_ids": "ignore"}
        with pytest.raises(ParticipantVisibleError, match="Too many predictions") as caught:
            evaluate(solution, submission, "id", **options)
        assert "examples (row ids): 'c2'" in str(caught.value)  # known or not
        texts.add(str(caught.value))
        result = evaluate(solution, submission, "id", extra_predictions="truncate", **options)
        # Counts still follow the solution's ids there (docs/decisions.md, "Decisions"); examples
        # not.
        texts.add(repr([(w.code, w.examples) for w in result.warnings]))
    assert len(texts) == 2  # one error text and one warnings text for both solutions
    assert "[('empty_rows', ())]" in texts


def test_row_ids_with_surrounding_whitespace_are_still_ids() -> None:
    solution = pd.DataFrame({"id": [" u1", "u2\t"], "items": ["a", "b"]})
    assert evaluate(solution, solution, "id").score == 1.0


# --- Codabench: regular files only --------------------------------------------------------


def _tree(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    ref, res, out = tmp_path / "in" / "ref", tmp_path / "in" / "res", tmp_path / "out"
    for folder in (ref, res, out):
        folder.mkdir(parents=True)
    (ref / "solution.csv").write_text("id,items,Usage\nu1,0706016001,Public\nu2,b,Private\n")
    return tmp_path / "in", ref, res, out


def _run_codabench(*args: object) -> tuple[int, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(["codabench", *map(str, args)])
    return code, stdout.getvalue() + stderr.getvalue()


def test_leak_4_a_symlink_to_the_solution_is_refused(tmp_path: Path) -> None:
    """``sub.csv -> ../ref/solution.csv`` (``unzip`` keeps symlinks) once scored 1.0."""
    input_dir, _, res, out = _tree(tmp_path)
    (res / "sub.csv").symlink_to(Path("..") / "ref" / "solution.csv")
    code, log = _run_codabench(input_dir, out)
    assert code == 1
    assert (
        "holds 1 entry that is not a regular file (a symbolic link, or a special file): 'sub.csv'"
        in log
    )
    assert "solution" not in log and "0706016001" not in log
    assert list(out.iterdir()) == []


def test_a_symlink_to_another_host_file_quotes_none_of_it(tmp_path: Path) -> None:
    input_dir, _, res, out = _tree(tmp_path)
    secret = tmp_path / "host_secret.txt"
    secret.write_text("TOPSECRET-LINE,1\n")
    (res / "sub.csv").symlink_to(secret)
    (res / "folder").symlink_to(tmp_path)  # a link to a folder is refused too, never walked
    code, log = _run_codabench(input_dir, out)
    assert code == 1
    assert "2 entries that are not a regular file" in log and "'folder', 'sub.csv'" in log
    assert "TOPSECRET" not in log and "host_secret" not in log


def test_a_fifo_is_refused_without_being_opened(tmp_path: Path) -> None:
    input_dir, _, res, out = _tree(tmp_path)
    os.mkfifo(res / "sub.csv")  # opening it would block forever
    with pytest.raises(ParticipantVisibleError, match=r"not a regular file .*'sub\.csv'"):
        score_directories(input_dir, out)


def test_a_symlink_in_ref_is_a_host_error(tmp_path: Path) -> None:
    input_dir, ref, res, out = _tree(tmp_path)
    (ref / "solution.csv").rename(tmp_path / "elsewhere.csv")
    (ref / "solution.csv").symlink_to(tmp_path / "elsewhere.csv")
    (res / "sub.csv").write_text("id,items\nu1,a\nu2,b\n")
    with pytest.raises(HostVisibleError, match=r"solution folder holds 1 entry that is not"):
        score_directories(input_dir, out)


def test_hidden_links_and_debris_are_ignored_not_followed(tmp_path: Path) -> None:
    input_dir, ref, res, out = _tree(tmp_path)
    (res / "sub.csv").write_text("id,items\nu1,0706016001\nu2,b\n")
    (res / ".hidden").symlink_to(ref / "solution.csv")
    (res / "__MACOSX").mkdir()
    values, result = score_directories(input_dir, out)
    assert values["map_at_10"] == result.score == 1.0


def test_scores_json_replaces_a_symlink_never_writes_through_it(tmp_path: Path) -> None:
    input_dir, _, res, out = _tree(tmp_path)
    (res / "sub.csv").write_text("id,items\nu1,0706016001\nu2,b\n")
    victim = tmp_path / "victim.txt"
    victim.write_text("untouched\n")
    (out / "scores.json").symlink_to(victim)
    code, _ = _run_codabench(input_dir, out)
    assert code == 0
    assert victim.read_text() == "untouched\n"
    assert not (out / "scores.json").is_symlink()
    assert json.loads((out / "scores.json").read_text())["map_at_10"] == 1.0


def test_write_atomic_replaces_a_link_instead_of_following_it(tmp_path: Path) -> None:
    """Also the ``--per-user`` output: the rename replaces the link itself."""
    from scorer.read.files import write_atomic

    victim = tmp_path / "victim.txt"
    victim.write_text("untouched\n")
    (tmp_path / "out.csv").symlink_to(victim)
    write_atomic(tmp_path / "out.csv", "new\n")
    assert victim.read_text() == "untouched\n"
    assert not (tmp_path / "out.csv").is_symlink()
    assert (tmp_path / "out.csv").read_text() == "new\n"


def _nest(folder: Path, depth: int, data: bytes) -> None:
    """Write ``data`` as ``sub.csv`` in folders ``d/d/.../d`` ``depth`` deep under ``folder``."""
    handle = os.open(folder, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=handle)
            inner = os.open("d", os.O_RDONLY, dir_fd=handle)
            os.close(handle)
            handle = inner
        file = os.open("sub.csv", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=handle)
        os.write(file, data)
        os.close(file)
    finally:
        os.close(handle)


def _unnest(folder: Path, depth: int) -> None:
    """Remove what :func:`_nest` made, deepest first, without recursion."""
    chain = [folder.joinpath(*["d"] * level) for level in range(1, depth + 1)]
    (chain[-1] / "sub.csv").unlink()
    for path in reversed(chain):
        path.rmdir()


def test_a_folder_nested_990_deep_is_an_invalid_submission_not_a_crash(tmp_path: Path) -> None:
    """Regression: ``rglob`` raised RecursionError (an internal error, exit 3)."""
    input_dir, _, res, out = _tree(tmp_path)
    _nest(res, 990, b"id,items\nu1,a\nu2,b\n")
    try:
        run = run_capped(["codabench", input_dir, out])
    finally:
        _unnest(res, 990)  # shutil.rmtree, which cleans tmp_path, recurses as deep
    assert (run.returncode, run.timed_out) == (1, False), run.stderr
    assert f"nested more than {MAX_DEPTH} folders deep" in run.stderr
    assert "RecursionError" not in run.stderr


def test_a_folder_of_too_many_entries_is_an_invalid_submission(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import scorer.adapters.codabench

    monkeypatch.setattr(scorer.adapters.codabench, "MAX_ENTRIES", 20)
    input_dir, _, res, out = _tree(tmp_path)
    for i in range(21):
        (res / f"__MACOSX{i}").mkdir()  # ignored entries count too: the walk's cost is bounded
    with pytest.raises(ParticipantVisibleError, match=r"more than 20 files and folders"):
        score_directories(input_dir, out)


def test_a_folder_within_the_depth_limit_is_searched(tmp_path: Path) -> None:
    input_dir, _, res, out = _tree(tmp_path)
    _nest(res, MAX_DEPTH, b"id,items\nu1,0706016001\nu2,b\n")
    assert score_directories(input_dir, out)[0]["map_at_10"] == 1.0


# --- the positive side: lost zeros are still reported -------------------------------------


def test_lost_zeros_are_told_to_the_participant_from_the_submission_alone() -> None:
    """Most ids are 10 digits with a leading zero, some 9: those lost it, whatever the solution."""
    ids = ["c1", "c2", "c3"]
    submission = pd.DataFrame(
        {"id": ids, "items": ["0706016001 372860001", "0610776002", "759871002 0156231001"]}
    )
    texts = set()
    for items in (["0706016001", "0372860001", "0759871002"], ["x", "", "y"]):
        solution = pd.DataFrame({"id": ids, "items": items})
        result = evaluate(solution, submission, "id")
        (hint,) = [w for w in result.warnings if w.code == "leading_zeros_lost"]
        assert hint.audience == "participant"
        assert (hint.count, hint.examples) == (2, ("c1", "c3"))
        texts.add(str(hint))
    assert texts == {
        "2 rows have item ids of digits only that are one or two digits shorter than the "
        "submission's usual 10-digit ids with leading zeros (2 predicted item ids in all): they "
        "probably lost their leading zeros when read as numbers; item ids are compared as exact "
        "strings, so keep them as text (for example pandas: dtype=str). Examples: 'c1', 'c3'"
    }


def test_ids_read_as_floats_are_told_to_the_participant_from_the_submission_alone() -> None:
    """No padded width to compare with: the float notation alone shows the ids were numbers."""
    ids = ["c1", "c2", "c3"]
    submission = pd.DataFrame(
        {"id": ids, "items": ["706016001.0 372860001.0", "610776002", "7.59871002e+08"]}
    )
    texts = set()
    for items in (["0706016001", "0372860001", "0759871002"], ["x", "", "706016001.0"]):
        result = evaluate(pd.DataFrame({"id": ids, "items": items}), submission, "id")
        (hint,) = [w for w in result.warnings if w.code == "item_ids_as_numbers"]
        assert hint.audience == "participant"
        assert (hint.count, hint.examples) == (2, ("c1", "c3"))
        texts.add(str(hint))
    assert texts == {
        "2 rows have item ids written as floating-point numbers, like '706016001.0' or "
        "'7.06016001e+08' (3 predicted item ids in all): they were probably read as numbers, "
        "which also drops leading zeros; item ids are compared as exact strings, so keep them "
        "as text (for example pandas: dtype=str). Examples: 'c1', 'c3'"
    }


@pytest.mark.parametrize(
    ("cell", "flagged"),
    [
        ("706016001.0", True),
        ("12.000", True),
        ("7.06016001e+08", True),
        ("7E8", True),
        ("12.5", False),  # a decimal that is no whole number: not an id read as a float
        ("0.0.0", False),
        ("v1.0", False),
        ("706016001", False),
        ("e+08", False),
    ],
)
def test_the_float_hint_flags_whole_numbers_in_float_notation(cell: str, flagged: bool) -> None:
    solution = pd.DataFrame({"id": ["c1"], "items": ["a"]})
    result = evaluate(solution, pd.DataFrame({"id": ["c1"], "items": [cell]}), "id")
    assert ("item_ids_as_numbers" in [w.code for w in result.warnings]) == flagged


def test_comma_separated_lists_are_told_to_use_spaces() -> None:
    solution = pd.DataFrame({"id": ["c1", "c2"], "items": ["a b", "c"]})
    submission = pd.DataFrame({"id": ["c1", "c2"], "items": ["a,b", "c"]})
    result = evaluate(solution, submission, "id")
    assert result.score == 0.5
    (hint,) = [w for w in result.warnings if w.code == "comma_separated_lists"]
    assert str(hint) == (
        "1 row has item ids containing a comma or semicolon: separate items with spaces, not "
        "commas ('a b c', not 'a,b,c'); 'a,b' counts as one item id and 'a,' does not match "
        "'a'. Examples: 'c1'"
    )


@pytest.mark.parametrize(
    ("cells", "flagged"),
    [
        (["0706016001 706016002", "0000000042"], [True, False]),  # 9 digits of 10
        (["0706016001 706016002.0", "x"], [True, False]),  # read as a float
        (["0706016001 6016002", "x"], [False, False]),  # 7 digits of 10: not a lost zero
        (["0706016001 06016002", "x"], [False, False]),  # starts with 0: kept its zeros
        (["1 22 333 4444", "55555"], [False, False]),  # plain numbers: no padded width
        (["0706016001", "70601600 0372860001"], [False, True]),  # 8 digits: two zeros lost
    ],
)
def test_the_participant_hint_flags_ids_shorter_than_the_padded_width(cells, flagged) -> None:
    solution = pd.DataFrame({"id": ["c1", "c2"], "items": ["a", "b"]})
    result = evaluate(solution, pd.DataFrame({"id": ["c1", "c2"], "items": cells}), "id")
    hints = [w for w in result.warnings if w.code == "leading_zeros_lost"]
    expected = tuple(i for i, f in zip(["c1", "c2"], flagged, strict=True) if f)
    assert (hints[0].examples if hints else ()) == expected


def test_the_host_hears_that_the_solution_lost_its_zeros() -> None:
    """A solution prepared by reading items as numbers: every correct submission scores 0."""
    ids = ["c1", "c2"]
    solution = pd.DataFrame({"id": ids, "items": ["706016001 372860001", "610776002"]})
    submission = pd.DataFrame({"id": ids, "items": ["0706016001 0372860001", "0610776002"]})
    result = evaluate(solution, submission, "id")
    assert result.score == 0.0
    (host,) = [w for w in result.warnings if w.audience == "host"]
    assert (host.code, host.count, host.examples) == (
        "leading_zeros_lost_in_solution",
        2,
        tuple(ids),
    )
    assert "3 predicted item ids in all" in host.message
    assert "the solution's item ids probably lost their leading zeros" in host.message
    assert [w.code for w in result.warnings if w.audience == "participant"] == ["short_rows"]


def test_the_host_hears_that_the_submission_lost_its_zeros() -> None:
    ids = ["c1", "c2"]
    solution = pd.DataFrame({"id": ids, "items": ["0706016001 0372860001", "0610776002"]})
    submission = pd.DataFrame({"id": ids, "items": ["706016001 x", "610776002.0"]})
    result = evaluate(solution, submission, "id")
    (host,) = [w for w in result.warnings if w.audience == "host"]
    assert (host.code, host.count) == ("leading_zeros_lost_in_submission", 2)
    assert "2 predicted item ids in all" in host.message


def test_host_warnings_stay_out_of_the_codabench_log(tmp_path: Path) -> None:
    input_dir, _, res, out = _tree(tmp_path)
    (res / "sub.csv").write_text("id,items\nu1,706016001\nu2,b\n")
    code, log = _run_codabench(input_dir, out, "--public-only")
    assert code == 0
    assert "leading zeros" not in log
    assert "map_at_10_public: 0.0" in log


def test_evalai_never_shows_another_split_as_the_submission_result(tmp_path: Path) -> None:
    """With no scorable Public user, the first split has no score: show nothing, not Private."""
    from scorer.adapters.evalai import evaluate as evalai_evaluate

    solution, submission = tmp_path / "solution.csv", tmp_path / "submission.csv"
    solution.write_text("id,items,Usage\nu1,,Public\nu2,b,Private\n")
    submission.write_text("id,items\nu1,a\nu2,b\n")
    output = evalai_evaluate(solution, submission, "test")
    assert output == {"result": [{"private_split": {"map_at_10": 1.0}}], "submission_result": {}}


# --- the hints' building blocks against obviously correct references -----------------------

byte_strings = st.text(st.sampled_from(list("0123.ab\u00e9")), max_size=5)


def _short_of_padded_reference(items: list[str]) -> list[bool]:
    def digits(item: str) -> str | None:
        match = re.fullmatch(r"([0-9]+)(\.0*)?", item)
        return match.group(1) if match else None

    padded = [len(d) for d in map(digits, items) if d and len(d) > 1 and d.startswith("0")]
    if not padded:
        return [False] * len(items)
    counts = {n: padded.count(n) for n in padded}
    width = max(counts, key=lambda n: (counts[n], n))
    return [
        bool(d) and d[0] != "0" and len(d) in (width - 1, width - 2) for d in map(digits, items)
    ]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.lists(
            st.text(st.sampled_from(list("00123456789.abé")), min_size=1, max_size=6), max_size=5
        ),
        min_size=1,
        max_size=8,
    )
)
def test_the_participant_hint_matches_its_reference(rows: list[list[str]]) -> None:
    """The records of the digit ids and their settling (lost_zeros) flag the rows and
    ids the whole-submission reference flags."""
    ids = [f"c{i}" for i in range(len(rows))]
    solution = pd.DataFrame({"id": ids, "items": "x"})
    submission = pd.DataFrame({"id": ids, "items": [" ".join(row) for row in rows]})
    result = evaluate(solution, submission, "id", extra_predictions="truncate")
    flagged = _short_of_padded_reference([item for row in rows for item in row])
    per_row = np.split(np.array(flagged, dtype=bool), np.cumsum([len(r) for r in rows])[:-1])
    expected_rows = [i for i, marks in zip(ids, per_row, strict=True) if marks.any()]
    found = [w for w in result.warnings if w.code == "leading_zeros_lost"]
    if not expected_rows:
        assert found == []
        return
    (hint,) = found
    assert (hint.count, hint.examples) == (len(expected_rows), tuple(sorted(expected_rows)[:5]))
    assert f"({sum(flagged)} predicted item id" in hint.message


def test_the_hints_never_hash_the_participants_strings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Arrow's hash kernels are unseeded: a crafted submission could make them quadratic.
    Only the solution's strings may go through them (``unique`` of the candidates)."""
    import types

    import pyarrow.compute as pc

    import scorer.check.hints

    # Predicted ids that are no form of a solution item (which may be hashed).
    participant = {"0372860001", "x,y", "61077600"}
    guarded = types.SimpleNamespace(**{name: getattr(pc, name) for name in dir(pc)})

    def refuse(name: str):
        def call(values, *args, **kwargs):
            assert not participant & set(values.to_pylist()), f"{name} of predicted ids"
            return getattr(pc, name)(values, *args, **kwargs)

        return call

    for name in ("dictionary_encode", "unique", "value_counts", "index_in", "is_in"):
        setattr(guarded, name, refuse(name))
    monkeypatch.setattr(scorer.check.hints, "pc", guarded)
    lists = split_lists(pa.array(["706016001 0372860001", "0610776002 x,y 61077600"]))
    users = np.array([0, 1])
    truth = GroundTruth.from_lists(split_lists(pa.array(["0706016001 372860001", "0610776002"])))
    hints = scorer.check.hints.prediction_hints(lists, users, 2)
    hints += scorer.check.hints.solution_hints(lists, users, truth)
    records = [Finding(code, counts, (), values) for code, _, counts, values in hints]
    assert [f.kind for f in scorer.check.hints.lost_zeros(records)] == [
        "comma_separated_lists",
        "numeric_ids",
        "leading_zeros_lost_in_submission",
        "leading_zeros_lost_in_solution",
        "leading_zeros_lost",
    ]


# --- the long layout, trec_eval files and candidates (docs/shapes.md, "Long layout", "TREC files",
# "Candidates") --------------------------------------------------------------------------


@dataclass(frozen=True)
class ShapeCase:
    """Two solutions with the same row ids and candidates, one long submission."""

    solutions: tuple[pd.DataFrame, pd.DataFrame]
    submission: pd.DataFrame
    options: dict


def _shape_solution(
    rng: np.random.Generator, ids: list[str], candidates: dict[str, list[str]], long: bool
) -> pd.DataFrame:
    """Relevant items among each row's candidates, Usage and empty users all random; one
    scorable Public user."""
    anchor = int(rng.integers(0, len(ids)))
    rows = []
    for position, user in enumerate(ids):
        size = max(int(rng.integers(0, 3)), int(position == anchor))
        relevant = [str(x) for x in rng.choice(candidates[user], size=size, replace=False)]
        usage = (
            "Public" if position == anchor else str(rng.choice(["Public", "Private", "Ignored"]))
        )
        if long:
            rows += [(user, item, usage) for item in relevant or [""]]
        else:
            rows.append((user, " ".join(relevant), usage))
    frame = pd.DataFrame(rows, columns=[ROW_ID, TARGET, "Usage"])
    cells = {user: " ".join(candidates[user]) for user in ids}
    return frame.assign(candidates=frame[ROW_ID].map(cells))


def _long_rows(rng: np.random.Generator, user: str, pool: list[str], k: int) -> list[tuple]:
    """One row id's long rows, drawn to provoke every warning and problem of the layout."""
    kind = int(rng.integers(0, 9))
    size = int(rng.integers(1, k + 1))
    items = [str(x) for x in rng.choice(pool, size=size)]
    ranks = [str(r) for r in rng.permutation(np.arange(1, size + 1) * 2)]
    if kind == 0:
        return [(user, "", "", "")]  # an empty row
    if kind == 1:
        items[0] = f"{items[0]} {items[-1]}"  # several items in one cell
    elif kind == 2:
        ranks[0] = "0"  # an invalid rank
    elif kind == 3 and size > 1:
        ranks[1] = ranks[0]  # a duplicated rank
    elif kind == 4:
        items, ranks = [*items, items[0]], [*ranks, "99"]  # a repeated pair
    elif kind == 5:
        items = items + [f"x{i}" for i in range(k + 1)]  # too many
        ranks = ranks + [str(100 + i) for i in range(k + 1)]
    scores = [str(float(r) / 7) if r != "0" else "nan" for r in ranks]
    return list(zip([user] * len(items), items, ranks, scores, strict=True))


def make_shape_case(seed: int) -> ShapeCase:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 8))
    ids = [f"c{i:02d}" for i in range(n)]
    catalogue = padded_items(rng, 14)
    candidates = {u: [str(x) for x in rng.choice(catalogue, size=4, replace=False)] for u in ids}
    long_truth = bool(rng.random() < 0.5)
    solutions = tuple(_shape_solution(rng, ids, candidates, long_truth) for _ in range(2))
    k = int(rng.choice([3, 5]))
    pool = [*catalogue, "zz1", "zz2"]
    rows = [row for user in ids for row in _long_rows(rng, user, pool, k)]
    if rng.random() < 0.3:  # missing and unknown row ids
        rows = [row for row in rows if row[0] != ids[0]] + [("zz9", pool[0], "1", "0.5")]
    order = rng.permutation(len(rows))
    frame = pd.DataFrame([rows[i] for i in order], columns=[ROW_ID, TARGET, "rank", "score"])
    ranked_by = str(rng.choice(["rank", "score", "order"]))
    options: dict = {
        "k": k,
        "layout": "long",
        "solution_layout": "long" if long_truth else "wide",
        "unjudged": str(rng.choice(table_values("unjudged"))),
        "extra_predictions": "truncate" if rng.random() < 0.3 else "error",
        "unknown_row_ids": "ignore" if rng.random() < 0.2 else "error",
    }
    if ranked_by == "order":
        frame = frame[[ROW_ID, TARGET]]
    else:
        frame = frame[[ROW_ID, TARGET, ranked_by]]
        options[f"{ranked_by}_column_name"] = ranked_by
    rule = str(rng.choice(["none", "subset", "permutation"]))
    if rule == "none":
        solutions = tuple(s.drop(columns="candidates") for s in solutions)
    else:
        options |= {"candidate_rule": rule, "candidates_column_name": "candidates"}
    return ShapeCase(solutions, frame.reset_index(drop=True), options)  # type: ignore[arg-type]


def shape_view(solution: pd.DataFrame, case: ShapeCase) -> tuple:
    """Everything the API shows the participant, for a long submission."""
    try:
        result = evaluate(solution, case.submission, ROW_ID, **case.options)
    except ParticipantVisibleError as error:
        return invalid_view(error)
    except HostVisibleError as error:  # the solutions are valid: a bug
        raise AssertionError(f"host error on a valid solution: {error}") from error
    return scored_participant_view(result, solution)


def test_long_and_candidate_text_does_not_depend_on_hidden_data() -> None:
    """Candidates are public; which of them are relevant, Usage and empty users are not.
    Unjudged items dropped after the warnings are counted: none tells which are judged."""
    codes: set[str] = set()
    problems: set[str] = set()
    for seed in range(N_CASES):
        case = make_shape_case(seed)
        first, second = (shape_view(s, case) for s in case.solutions)
        assert same_but_for_the_public_score(first, second), f"seed {seed}"
        kind, shown, *_ = first
        if kind == "scored":
            codes.update(code for code, *_ in shown)
        else:
            problems.update(re.findall(r"^\d+\. (.+)$", shown, flags=re.MULTILINE))
    assert {"repeated_items", "short_rows", "empty_rows"} <= codes
    assert {
        "Several items in one cell",
        "Invalid ranks",
        "Duplicated ranks",
        "Invalid scores",
        "Missing rows",
        "Unknown row ids",
        "Too many predictions",
        "Items that are not candidates",
        "Candidates ranked more than once",
        "Candidates missing",
    } <= problems


def _trec_pair(rng: np.random.Generator, folder: Path) -> tuple[list[Path], Path]:
    """Two qrels with the same qids and different judgements, and a run."""
    qids = [f"q{n}" for n in range(int(rng.integers(2, 6)))]
    docs = [f"d{n}" for n in range(10)]
    qrels = []
    for index in range(2):
        lines = []
        for qid in qids:
            chosen = rng.choice(docs, size=int(rng.integers(1, 4)), replace=False)
            for position, doc in enumerate(chosen):
                # The first line judged: a qid is a row id of both (row ids are public).
                low = 0 if position == 0 else -1
                lines.append(f"{qid} 0 {doc} {int(rng.integers(low, 3))}")
        path = folder / f"qrels{index}"
        path.write_text("\n".join(lines) + "\n")
        qrels.append(path)
    run_lines = []
    for qid in [*qids, "q_extra"]:
        for rank, doc in enumerate(rng.choice(docs, size=int(rng.integers(1, 5)))):
            score = str(rng.choice(["1.5", "0.25", "nan", "2"]))
            run_lines.append(f"{qid} Q0 {doc} {rank} {score} tag")
    if rng.random() < 0.3:
        run_lines.append("q0 Q0")  # malformed
    if rng.random() < 0.3:
        run_lines = [line for line in run_lines if not line.startswith(f"{qids[0]} ")]
    (folder / "run").write_text("\n".join(run_lines) + "\n")
    return qrels, folder / "run"


def test_trec_text_does_not_depend_on_the_judgements(tmp_path: Path) -> None:
    seen: set[str] = set()
    for seed in range(60):
        folder = tmp_path / str(seed)
        folder.mkdir()
        qrels, run = _trec_pair(np.random.default_rng(seed), folder)
        views = []
        for path in qrels:
            try:
                result = evaluate(path, run, format="trec", unjudged="drop", k=5)
                views.append(scored_participant_view(result, path))
            except ParticipantVisibleError as error:
                views.append(invalid_view(error))
            except HostVisibleError as error:  # a qrels whose every line is unjudged
                views.append(("host",))
                assert "no scorable user" in str(error).lower() or "no user" in str(error).lower()
        if ("host",) in views:
            continue
        assert same_but_for_the_public_score(*views), f"seed {seed}"
        if views[0][0] == "invalid":
            seen.update(re.findall(r"^\d+\. (.+)$", views[0][1], flags=re.MULTILINE))
        seen.update("Missing queries" for view in views[0] if "no line in the run" in str(view))
    assert {"Invalid scores", "Documents retrieved twice for a query", "Missing queries"} <= seen


# --- several targets per row id (OTTO) ---------------------------------------------------

TYPES = ("clicks", "carts", "orders")


@dataclass(frozen=True)
class TypedCase:
    """Two typed solutions with the same (row id, type) rows, one submission, options."""

    solutions: tuple[pd.DataFrame, pd.DataFrame]
    submission: pd.DataFrame
    k: int
    by_column: bool
    missing_rows: str
    ignore_unknown: bool
    candidates: pd.DataFrame | None = None
    candidate_rule: str = "none"


def _integers(rng: np.random.Generator, n: int) -> list[str]:
    """Item ids written as plain integers (OTTO's ``aid``s): coded by value."""
    return [str(value) for value in rng.integers(1, 900_000, size=n)]  # within a table


def _typed_solution(
    rng: np.random.Generator, sessions: list[str], by_column: bool, integer_items: bool
) -> pd.DataFrame:
    """Random items, Usage and empty rows; each type has a scorable Public row. With
    ``integer_items``, items are plain integers, but now and then one is not (``007``):
    which route codes the items then depends on the hidden solution alone."""
    catalogue = _integers(rng, 10) if integer_items else padded_items(rng, 10)
    if integer_items and rng.random() < 0.3:
        catalogue[0] = "007"
    anchors = {kind: int(rng.integers(0, len(sessions))) for kind in TYPES}
    rows = []
    for s, session in enumerate(sessions):
        for kind in TYPES:
            anchor = anchors[kind] == s
            size = 0 if rng.random() < 0.3 and not anchor else int(rng.integers(1, 4))
            usage = "Public" if anchor else str(rng.choice(["Public", "Private", "Ignored"]))
            items = " ".join(rng.choice(catalogue, size=size))
            rows.append((session, kind, items, usage))
    if by_column:
        columns = {"session": [r[0] for r in rows], "type": [r[1] for r in rows]}
    else:
        columns = {"session_type": [f"{r[0]}_{r[1]}" for r in rows]}
    return pd.DataFrame({**columns, "labels": [r[2] for r in rows], "Usage": [r[3] for r in rows]})


def _typed_damage(rng: np.random.Generator, frame: pd.DataFrame, by_column: bool) -> pd.DataFrame:
    frame = frame.copy()
    for _ in range(int(rng.integers(0, 3))):
        kind = int(rng.integers(0, 5))
        if kind == 0 and len(frame) > 1:  # a missing (row id, type)
            frame = frame.drop(index=frame.index[int(rng.integers(0, len(frame)))])
        elif kind == 1 and len(frame):  # a type the solution does not have
            extra = frame.iloc[:1].copy()
            if "type" in frame:
                extra["type"] = "views"
            elif "session_type" in frame:
                extra["session_type"] = extra["session_type"].str.replace("_", "_views_")
            frame = pd.concat([frame, extra])
        elif kind == 2 and len(frame):  # no type at all
            if "type" in frame:
                frame.iloc[0, 1] = ""
            else:
                frame.iloc[0, 0] = "s0"
        elif kind == 3 and len(frame):  # a duplicated row
            frame = pd.concat([frame, frame.iloc[:1]])
        elif kind == 4 and "type" in frame:  # the type column left out
            frame = frame.drop(columns="type")
    return frame.reset_index(drop=True)


def make_typed_case(seed: int) -> TypedCase:
    rng = np.random.default_rng(seed)
    integer_items = bool(rng.random() < 0.5)
    n_sessions = int(rng.integers(2, 6))
    if integer_items:  # OTTO's shape: sessions and items written as integers
        sessions = [str(12_899_779 + i) for i in range(n_sessions)]
    else:
        sessions = [f"s{i}" for i in range(n_sessions)]
    by_column = bool(rng.random() < 0.4)
    solutions = (
        _typed_solution(rng, sessions, by_column, integer_items),
        _typed_solution(rng, sessions, by_column, integer_items),
    )
    k = int(rng.choice([3, 5]))
    pool = [*solutions[0]["labels"].str.split().sum(), *solutions[1]["labels"].str.split().sum()]
    pool += _integers(rng, 4) if integer_items else padded_items(rng, 4)
    submission = solutions[0].drop(columns="Usage")
    # Integer items in rows of plain lists only, now and then: coded by value.
    row = plain_prediction_row if integer_items and rng.random() < 0.6 else prediction_row
    rows = [row(rng, pool, k) for _ in range(len(submission))]
    submission = submission.assign(labels=rows).iloc[rng.permutation(len(submission))]
    candidates, rule = None, "none"
    if by_column and rng.random() < 0.5:  # a public candidates table, with its types
        keys = solutions[0][["session", "type"]]
        lists = [" ".join(rng.choice(pool, size=min(6, len(pool)))) for _ in range(len(keys))]
        candidates = keys.assign(labels=lists)
        rule = str(rng.choice(["subset", "permutation"]))
    if rng.random() < 0.6:
        submission = _typed_damage(rng, submission, by_column)
    return TypedCase(
        solutions,
        submission.reset_index(drop=True),
        k,
        by_column,
        str(rng.choice(table_values("missing_rows"))),
        bool(rng.random() < 0.2),
        candidates,
        rule,
    )


def _typed_options(case: TypedCase) -> dict:
    types = (
        {"target_type_column_name": "type"} if case.by_column else {"row_id_type_separator": "_"}
    )
    candidates = {}
    if case.candidates is not None:
        candidates = {"candidates": case.candidates, "candidate_rule": case.candidate_rule}
    return {
        "k": case.k,
        "missing_rows": case.missing_rows,
        "unknown_row_ids": "ignore" if case.ignore_unknown else "error",
        "type_weights": {"clicks": 0.1, "carts": 0.3, "orders": 0.6},
        **types,
        **candidates,
    }


def typed_participant_view(solution: pd.DataFrame, case: TypedCase) -> tuple:
    row_id = "session" if case.by_column else "session_type"
    try:
        result = evaluate(solution, case.submission, row_id, **_typed_options(case))
    except ParticipantVisibleError as error:
        return invalid_view(error)
    except HostVisibleError as error:  # the solutions are valid: a bug
        raise AssertionError(f"host error on a valid solution: {error}") from error
    return scored_participant_view(result, solution)


def test_typed_participant_text_does_not_depend_on_hidden_data() -> None:
    """Target types, missing rows scored as empty: the same property, through the API."""
    codes: set[str] = set()
    problems: set[str] = set()
    for seed in range(N_CASES):
        case = make_typed_case(seed)
        first, second = (typed_participant_view(s, case) for s in case.solutions)
        assert same_but_for_the_public_score(first, second), f"seed {seed}"
        kind, shown, *_ = first
        if kind == "scored":
            codes.update(code for code, *_ in shown)
        else:
            problems.update(re.findall(r"^\d+\. (.+)$", shown, flags=re.MULTILINE))
    assert {"missing_rows", "short_rows", "empty_rows"} <= codes
    assert {"Missing rows", "Unknown row ids", "Duplicated row ids"} <= problems
    assert {"Unknown target types", "Empty target types", "Missing target type column"} <= problems
    assert {"Items that are not candidates", "Candidates missing"} <= problems


def test_the_typed_codabench_log_does_not_depend_on_hidden_data(tmp_path: Path) -> None:
    """Per-type keys in ``--public-only`` are Public values only; the rest is identical."""
    for seed in range(N_CLI_CASES // 2):
        case = make_typed_case(seed)
        logs = []
        for i, solution in enumerate(case.solutions):
            folder = tmp_path / f"{seed}-{i}"
            ref, res, out = folder / "in" / "ref", folder / "in" / "res", folder / "out"
            for path in (ref, res, out):
                path.mkdir(parents=True, exist_ok=True)
            solution.to_csv(ref / "solution.csv", index=False)
            case.submission.to_csv(res / "submission.csv", index=False)
            argv = ["codabench", str(folder / "in"), str(out), "--public-only"]
            argv += ["--k", str(case.k), "--missing-rows", case.missing_rows]
            argv += ["--row-id-column", "session" if case.by_column else "session_type"]
            argv += ["--target-type-column", "type"] if case.by_column else []
            argv += [] if case.by_column else ["--row-id-type-separator", "_"]
            if case.ignore_unknown:
                argv += ["--unknown-row-ids", "ignore"]
            if case.candidates is not None:
                case.candidates.to_csv(folder / "candidates.csv", index=False)
                argv += ["--candidates", str(folder / "candidates.csv")]
                argv += ["--candidate-rule", case.candidate_rule]
            stdout, stderr = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
                code = main(argv)
            log = stdout.getvalue() + "\n--- stderr ---\n" + stderr.getvalue()
            if (out / "scores.json").exists():
                log += "\n--- scores.json ---\n" + (out / "scores.json").read_text()
            public = re.search(r"_public\"?: ([0-9.e+-]+)", log)
            masked = re.sub(r"(_public\"?: )[0-9.e+-]+", r"\1<score>", log)
            logs.append((code, masked, public is not None and float(public.group(1)) == 0))
        assert same_logs_but_for_the_public_score(*logs), f"seed {seed}"
        assert logs[0][0] in (0, 1), logs[0]


def _scored_submission(rng: np.random.Generator, case: Case) -> pd.DataFrame:
    """One ``label confidence`` per row (GAP), from the case's submission: labels from
    its rows (items of both solutions, and of neither), confidences with ties, and
    malformed cells (one token, three, a confidence that is no finite number)."""
    ids = list(case.submission.get(ROW_ID, []))
    confidences = ["0.5", "0.25", "-0.0", "0", "1e-300", ".75"]
    broken = ["a", "a 0.5 b", "a nan", "a inf", "a x", "a 1e999", ""]
    cells = []
    for _ in ids:
        if rng.random() < 0.15:
            cells.append(str(rng.choice(broken)))
        else:
            label = padded_items(rng, 1)[0] if rng.random() < 0.3 else "a"
            cells.append(f"{label} {rng.choice(confidences)}")
    return pd.DataFrame({ROW_ID: ids, TARGET: cells})


def scored_view(solution: pd.DataFrame, submission: pd.DataFrame, empty: str) -> tuple:
    """What the API shows the participant of a GAP run (warnings and errors)."""
    try:
        result = evaluate(
            solution, submission, ROW_ID, metrics=["GAP"], k=1, empty_ground_truth=empty
        )
    except ParticipantVisibleError as error:
        return invalid_view(error)
    except HostVisibleError as error:
        if "No user can be scored" in str(error):  # the host's, from its own solution
            return ("host",)
        raise AssertionError(f"host error on a valid solution: {error}") from error
    return scored_participant_view(result, solution)


def test_gap_participant_text_does_not_depend_on_hidden_data() -> None:
    """Scored predictions: the messages about malformed pairs and confidences, beside
    the row problems, are the same whatever the solution's items, Usage and empty rows."""
    problems: set[str] = set()
    for seed in range(N_CASES // 2):
        case = make_case(seed)
        rng = np.random.default_rng(seed + 10**6)
        submission = _scored_submission(rng, case)
        empty = str(rng.choice(table_values("empty_ground_truth")))
        views = [scored_view(solution, submission, empty) for solution in case.solutions]
        if "host" in {view[0] for view in views}:
            continue  # skip: a solution with no scorable row is the host's problem
        assert same_but_for_the_public_score(*views), f"seed {seed}"
        if views[0][0] == "invalid":
            problems.update(re.findall(r"^\d+\. (.+)$", views[0][1], flags=re.MULTILINE))
    assert {"Not one scored prediction", "Invalid confidences"} <= problems


def test_column_suggestions_name_only_the_sample_submissions_columns() -> None:
    """ "Did you mean" pairs a misspelt header with the sample submission's columns (the
    row-id and target columns) only: a solution's other columns (Usage, a segment
    column) are never suggested, and two solutions that differ in them give the same
    text."""
    ids = ["c1", "c2"]
    with_hidden = pd.DataFrame(
        {ROW_ID: ids, TARGET: ["a", "b"], "Usage": ["Public", "Private"], "country": ["x", "y"]}
    )
    without = pd.DataFrame({ROW_ID: ids, TARGET: ["a", "b"], "region": ["x", "y"]})
    headers = {
        (ROW_ID, "countri"): "no column ['prediction']",  # no suggestion: country is hidden
        (ROW_ID, "Usag", "predictoin"): "'predictoin' looks like 'prediction'",
        ("customerid", TARGET): "'customerid' looks like 'customer_id'",
    }
    for header, expected in headers.items():
        rows = [["c1", *["a"] * (len(header) - 1)], ["c2", *["b"] * (len(header) - 1)]]
        submission = pd.DataFrame(rows, columns=list(header))
        shown = []
        for solution, segment in ((with_hidden, "country"), (without, "region")):
            with pytest.raises(ParticipantVisibleError) as caught:
                evaluate(solution, submission, ROW_ID, segment_column_name=segment)
            shown.append(str(caught.value))
        assert shown[0] == shown[1]
        assert expected in shown[0]
        assert "'country'" not in shown[0] and "'Usage'" not in shown[0]


def test_the_numbers_hint_reads_the_submission_and_the_public_score_only() -> None:
    """H&M's article ids without their leading zero score 0 with exit 0: the participant
    hears why from the submission alone (every id a number without zeros) and the Public
    score (0). Two solutions with the same row ids and Public score, different items,
    Usage and empty users, give the same words; a Public score above 0 gives none."""
    ids = ["c1", "c2", "c3", "c4"]
    submission = pd.DataFrame({ROW_ID: ids, TARGET: ["706016001 372860001", "610776002", "", "5"]})
    solutions = [
        pd.DataFrame(
            {ROW_ID: ids, TARGET: ["0706016001", "0372860001", "", "0759871002 0156231001"],
             "Usage": ["Public", "Private", "Public", "Ignored"]}
        ),
        pd.DataFrame(
            {ROW_ID: ids, TARGET: ["0108775015", "", "0610776002", "0399223001"],
             "Usage": ["Private", "Public", "Public", "Private"]}
        ),
    ]  # fmt: skip
    texts = []
    for solution in solutions:
        result = evaluate(solution, submission, ROW_ID)
        assert result.public_score == 0.0
        texts.append([str(w) for w in result.warnings if w.audience == "participant"])
    assert texts[0] == texts[1]
    assert (
        "The leaderboard score is 0 and every predicted item id (4 predicted item ids in all) is a "
        "number written without leading zeros: if the sample submission's item ids have them "
        "(as H&M's 10-digit article ids do), yours probably lost them when read as numbers"
    ) in texts[0][-1]
    scoring = solutions[1].assign(**{TARGET: ["706016001", "", "x", ""]})
    private_only = evaluate(scoring, submission, ROW_ID)  # c1 scores, but is Private
    assert (private_only.public_score, private_only.private_score) == (0.0, 1.0)
    assert SCORE_HINT in [w.code for w in private_only.warnings]  # the Public score reads
    scoring = scoring.assign(Usage="Public")
    result = evaluate(scoring, submission, ROW_ID)
    assert result.public_score > 0
    assert SCORE_HINT not in [w.code for w in result.warnings]
    padded = submission.assign(**{TARGET: ["0706016001", "610776002", "", "5"]})
    assert SCORE_HINT not in [w.code for w in evaluate(solutions[0], padded, ROW_ID).warnings]


def _trec_runs(rng: np.random.Generator) -> str:
    """A run over some of the qrels' queries (and perhaps others) that may provoke every
    run problem: a malformed line, a docno retrieved twice, a query the qrels lack."""
    lines = []
    for qid in rng.permutation(["q1", "q2", "q3", "q4", "q9"])[: int(rng.integers(0, 6))]:
        docnos = rng.choice([f"d{i}" for i in range(12)], size=int(rng.integers(1, 6)))
        lines += [f"{qid} Q0 {d} {rank} {10 - rank}.5 tag" for rank, d in enumerate(docnos)]
    if rng.integers(0, 4) == 0:
        lines.append("q1 Q0 d1")  # too few fields
    if lines and rng.integers(0, 6) == 0:  # judgements given as the run: the files swapped
        lines = [" ".join([line.split()[0], "0", line.split()[2], "1"]) for line in lines]
    return "\n".join(rng.permutation(lines).tolist()) + "\n" if lines else ""


@pytest.mark.parametrize("delimiter", ["\t", ";", "; "])
def test_the_delimiter_problem_does_not_depend_on_hidden_data(tmp_path: Path, delimiter) -> None:
    """A submission of another delimiter: the same problem whatever the solution hides
    (its items, its Usage, its empty rows), since only the header is read for it."""
    ids = ["u1", "u2", "u3"]
    solutions = [
        pd.DataFrame(
            {"id": ids, "items": ["a", "b", ""], "Usage": ["Public", "Private", "Public"]}
        ),
        pd.DataFrame(
            {"id": ids, "items": ["x y", "", "c"], "Usage": ["Private", "Public", "Public"]}
        ),
    ]
    path = tmp_path / "submission.csv"
    path.write_text(f"id{delimiter}items\n" + "".join(f"{i}{delimiter}a b\n" for i in ids))
    views = []
    for solution in solutions:
        with pytest.raises(ParticipantVisibleError) as caught:
            evaluate(solution, path, "id")
        views.append(invalid_view(caught.value))
    assert views[0] == views[1]
    assert "write the file with commas between the columns" in views[0][1]


def test_trec_run_messages_do_not_depend_on_the_judgements(tmp_path: Path) -> None:
    # Two qrels of the same queries whose judgements differ (which docnos, their rels,
    # a query with no relevant document in one only): what a run's author sees (every
    # run problem and every warning) is the same; only the score may differ.
    qrels = [
        "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\nq3 0 d4 0\nq4 0 d5 1\n",
        "q1 0 d7 0\nq2 0 d3 0\nq2 0 d8 1\nq3 0 d4 1\nq3 0 d9 3\nq4 0 d1 1\n",
    ]
    for index, text in enumerate(qrels):
        (tmp_path / f"qrels{index}").write_text(text)
    problems: set[str] = set()
    swapped = 0  # runs whose lines look like qrels: the hint read from the run alone
    for seed in range(60):
        rng = np.random.default_rng(seed)
        run = tmp_path / "run"
        run.write_text(_trec_runs(rng))
        options = {
            "missing_rows": ["error", "skip", "empty"][seed % 3],
            "unknown_row_ids": ["error", "ignore"][seed % 2],
        }
        views = []
        for index in range(len(qrels)):
            try:
                result = evaluate(tmp_path / f"qrels{index}", run, format="trec", **options)
            except ParticipantVisibleError as error:
                views.append(invalid_view(error))
                continue
            warnings = [str(w) for w in result.warnings if w.audience == "participant"]
            views.append(("scored", warnings))
        assert views[0] == views[1], f"seed {seed}"
        if views[0][0] == "invalid":
            problems.update(re.findall(r"^\d+\. (.+)$", views[0][1], flags=re.MULTILINE))
            swapped += "the lines look like qrels" in views[0][1]
    # The property is only as good as the runs it tries.
    assert problems == {
        "Documents retrieved twice for a query",
        "Empty file",
        "Malformed lines",
        "No query of the qrels in the run",
        "Queries missing from the run",
        "Queries the qrels do not hold",
    }
    assert swapped > 0


def test_the_id_repair_hints_do_not_depend_on_hidden_data() -> None:
    """Unknown ids that a repair would match (case, surrounding spaces, lost zeros, a
    '.0', float notation) give the same participant message whatever the hidden items,
    Usage and empty truths of a solution with the same row ids."""
    ids = ["ab01", "0042", "0007", "1200000", " x9 "]
    first = pd.DataFrame(
        {ROW_ID: ids, TARGET: ["a b", "c", "", "d", "e"], "Usage": ["Public"] * 3 + ["Private"] * 2}
    )
    second = pd.DataFrame(
        {ROW_ID: ids, TARGET: ["", "z y x", "q", "", "w"], "Usage": ["Private"] * 4 + ["Public"]}
    )
    submission = pd.DataFrame(
        {ROW_ID: ["AB01", "42", "7.0", "1.2e6", "x9"], TARGET: ["a", "b", "c", "d", "e"]}
    )
    messages = []
    for solution in (first, second):
        with pytest.raises(ParticipantVisibleError, match="Unknown row ids") as raised:
            evaluate(solution, submission, ROW_ID, k=3)
        messages.append(str(raised.value))
    assert messages[0] == messages[1]
    assert all(f"would match once {repair}" in messages[0] for repair in ID_REPAIRS)
