"""Valid host options work, and what the host controls ends as a documented exit code:
an unwritable standard output, a --per-user path onto an input, extreme limits."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

import scorer
from scorer.adapters import cli
from scorer.adapters.cli import main
from tests.commands import run_scorer
from tests.paths import EXAMPLE

SOLUTION = EXAMPLE / "solution.csv"
SUBMISSION = EXAMPLE / "submission.csv"


@pytest.mark.parametrize("size", ["1GiB", "3GiB", "1000000GiB"])
def test_a_line_limit_of_a_gibibyte_or_more_scores(size):
    done = run_scorer(SOLUTION, SUBMISSION, "--max-line-bytes", size)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("MAP@10: 0.65")


def test_a_huge_input_limit_on_a_pipe_scores():
    done = run_scorer(
        SOLUTION,
        "/dev/stdin",
        "--max-input-bytes",
        "1000000000000GiB",
        input=SUBMISSION.read_text(),
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("MAP@10: 0.65")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("json", [(), ("--json",)])
def test_a_full_standard_output_is_a_host_error(json):
    with open("/dev/full", "w") as full:
        done = run_scorer(SOLUTION, SUBMISSION, *json, stdout=full, stderr=subprocess.PIPE)
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        "scorer: host error: Cannot write to standard output: No space left on device. "
        "Check where the output goes (a closed pipe or a full disk).\n"
    )


def test_a_closed_standard_output_is_a_host_error():
    child = subprocess.Popen(
        [sys.executable, "-m", "scorer", str(SOLUTION), str(SUBMISSION), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    child.stdout.close()  # long before the child has imported anything
    stderr = child.stderr.read()
    assert child.wait(timeout=120) == 2, stderr
    assert "scorer: host error: Cannot write to standard output: Broken pipe." in stderr


def test_the_help_is_written_as_every_output_is():
    # UTF-8 whatever the locale: the help holds non-ASCII characters.
    ascii_locale = {**os.environ, "PYTHONIOENCODING": "ascii"}
    done = subprocess.run(
        [sys.executable, "-m", "scorer", "--help"], capture_output=True, env=ascii_locale
    )
    assert done.returncode == 0, done.stderr
    text = done.stdout.decode("utf-8")
    assert not text.isascii() and text.startswith("usage: scorer")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_help_that_cannot_be_written_is_a_host_error():
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "scorer", "--help"], stdout=full, stderr=subprocess.PIPE
        )
    assert done.returncode == 2
    assert done.stderr.decode().startswith(
        "scorer: host error: Cannot write to standard output: No space left on device."
    )


def test_a_closed_standard_output_at_start_is_a_host_error():
    # Started with descriptor 1 closed (">&-"): Python has no sys.stdout at all.
    done = subprocess.run(
        [sys.executable, "-m", "scorer", str(SOLUTION), str(SUBMISSION)],
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: os.close(1),
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        "scorer: host error: Cannot write to standard output: standard output is closed. "
        "Check where the output goes (a closed pipe or a full disk).\n"
    )


def test_a_reader_that_stops_midway_through_one_large_output_is_a_host_error(tmp_path):
    # One JSON object of about 2 MB, far past what a pipe holds: the reader takes 100
    # bytes and goes away while the child is in the middle of writing it. Python's
    # writer returns a short count there; the command must not end with exit 0.
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("".join(f"{q} 0 d{q} 1\n" for q in range(3000)))
    run.write_text("".join(f"{q} Q0 d{q} 1 1.0 r\n" for q in range(3000)))
    child = subprocess.Popen(
        [sys.executable, "-m", "scorer", "trec-eval", "-q", "--json", str(qrels), str(run)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert child.stdout.read(100).startswith(b"{")
    child.stdout.close()
    stderr = child.stderr.read().decode()
    assert child.wait(timeout=120) == 2, stderr
    assert "scorer: host error: Cannot write to standard output: Broken pipe." in stderr


@pytest.mark.parametrize("role", ["solution", "submission"])
def test_per_user_onto_an_input_is_refused_and_the_input_kept(tmp_path, role):
    inputs = {"solution": tmp_path / "sol.csv", "submission": tmp_path / "sub.csv"}
    inputs["solution"].write_bytes(SOLUTION.read_bytes())
    inputs["submission"].write_bytes(SUBMISSION.read_bytes())
    os.link(inputs[role], tmp_path / "alias.csv")
    for target in (inputs[role], tmp_path / "." / inputs[role].name, tmp_path / "alias.csv"):
        done = run_scorer(inputs["solution"], inputs["submission"], "--per-user", target)
        assert done.returncode == 2, done.stderr
        assert f"it is the {role} file and would be replaced" in done.stderr
    assert inputs["solution"].read_bytes() == SOLUTION.read_bytes()
    assert inputs["submission"].read_bytes() == SUBMISSION.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["alias.csv", "sol.csv", "sub.csv"]


def test_running_out_of_memory_is_a_host_error_naming_the_limits(monkeypatch, capsys):
    # The limits keep inputs within the resource contract; a machine with less memory
    # than that is the host's to fix, never an internal error.
    def exhausted(*args, **kwargs):
        raise MemoryError("malloc of size 202000000 failed")

    monkeypatch.setattr(scorer, "evaluate", exhausted)
    assert main([str(SOLUTION), str(SUBMISSION)]) == 2
    assert re.search(
        r"host error: out of memory \(malloc .*\).*lower --max-decompressed-bytes",
        capsys.readouterr().err,
    )


def test_running_out_of_memory_in_parts_says_to_score_in_more_parts(monkeypatch, capsys):
    # A part's share is estimated in resident memory: under a tighter cap (an
    # address-space limit counts reservations too) the fix is more parts.
    def exhausted(*args, **kwargs):
        raise MemoryError("Unable to allocate 238. MiB")

    monkeypatch.setattr(cli, "_score_parts", exhausted)
    assert main([str(SOLUTION), str(SUBMISSION), "--parts", "2"]) == 2
    assert re.search(
        r"host error: out of memory \(Unable .*\).*score in more parts \(--parts N\)\.",
        capsys.readouterr().err,
    )
