"""Hostile inputs, by hypothesis: arbitrary bytes as a submission file, arbitrary DataFrames.

For every input: only ``ParticipantVisibleError`` or ``HostVisibleError`` escapes, any
score is finite and in [0, 1], no participant-visible message or warning holds a hidden
solution item id, and the same input always gives the same result. The same checks run
for minutes with ``fuzz/fuzz_submission.py``.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings

from scorer import ParticipantVisibleError, evaluate
from tests.hostile import (
    HIDDEN,
    ROW_IDS,
    SOLUTION,
    check_bytes,
    check_frame,
    check_hostile_solution,
    frames,
    submission_bytes,
)
from tests.paths import ROOT
from tests.seams import collide_prints, small_blocks

# Derandomized: CI sees the same examples on every run; fuzz/fuzz_submission.py explores.
BUDGET = settings(max_examples=250, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


@BUDGET
@given(submission_bytes)
@example(b"")
@example(b"customer_id,prediction\n")
@example("customer_id,prediction\nu0,\u00e9\n".encode("utf-16"))
@example(b'customer_id,prediction\nu0,"a\n')
def test_any_bytes_end_in_a_score_or_a_participant_error(data: bytes) -> None:
    check_bytes(data)


@BUDGET
@given(submission_bytes)
@example(b'customer_id,prediction\nu0,0a 0b\nu1,0b 0c\n0002,0a 0a\nU3,0c 0d\n" u4",a\nNA,0d 0e\n')
def test_any_bytes_in_small_blocks_with_colliding_prints(data: bytes) -> None:
    """The same properties with every memory-bounding pass in blocks of two rows and
    every join on its exact fallback (every keyed print equal)."""
    with pytest.MonkeyPatch.context() as patch:
        small_blocks(patch, 2)
        collide_prints(patch)
        check_bytes(data)


@BUDGET
@given(frames())
@example(pd.DataFrame())
@example(
    pd.DataFrame({"customer_id": ROW_IDS, "prediction": pd.Series(["\ud800"] * 6, dtype=object)})
)
def test_any_frame_ends_in_a_score_or_a_participant_error(frame: pd.DataFrame) -> None:
    check_frame(frame)


@settings(max_examples=100, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(frames())
def test_any_solution_frame_ends_in_a_score_or_a_documented_error(frame: pd.DataFrame) -> None:
    check_hostile_solution(frame)


def test_invalid_utf8_names_the_same_column_every_time(tmp_path: Path) -> None:
    """Arrow converts columns on several threads; the message must not depend on which fails
    first, so the reader locates the bad byte itself."""
    path = tmp_path / "submission.csv"
    # Found by the property test: invalid UTF-8 in both columns of one row.
    path.write_bytes(
        b"customer_id,prediction\n_`\x9d\xeb|\x01y\x03\x9d\x1f\x11\x89\xae@\xf7\x90\x93.\x1ee"
        b"\xf3,U3\xef\xbb\xbf\xa7\xe9Ecustomer_id\xec\xe1\xa7"
    )
    messages = set()
    for _ in range(200):
        with pytest.raises(ParticipantVisibleError, match="not valid UTF-8") as caught:
            evaluate(SOLUTION, path)
        messages.add(str(caught.value))
    assert len(messages) == 1, messages


def test_a_lone_surrogate_is_a_participant_error_not_a_crash() -> None:
    """Regression: a str with a lone surrogate raised UnicodeEncodeError from Arrow."""
    submission = pd.DataFrame(
        {"customer_id": ROW_IDS, "prediction": pd.Series(["a\udcff"] + [""] * 5, dtype=object)}
    )
    with pytest.raises(
        ParticipantVisibleError, match=r"Not UTF-8 text[\s\S]*'\\udcff', which UTF-8 cannot encode"
    ):
        evaluate(SOLUTION, submission)


def test_a_column_name_with_a_lone_surrogate_is_reported_not_a_crash() -> None:
    """Regression: the header hints put every column name in an Arrow array."""
    submission = pd.DataFrame([["u0", "a"]])
    submission.columns = pd.Index(["\ud800", "prediction"], dtype=object)
    with pytest.raises(ParticipantVisibleError, match=r"Missing columns[\s\S]*'\\ud800'"):
        evaluate(SOLUTION, submission)


def test_the_hints_never_quote_a_solution_item() -> None:
    """Every hint fires here, and none names a hidden item (nor its zero-stripped form)."""
    solution = pd.DataFrame({"id": ["r1", "r2"], "items": ["0000000123 0706016001", "0042 555"]})
    submission = pd.DataFrame(
        {"id": ["r1", "r2"], "items": ["123 706016001 0000000999", "7,42 0555"]}
    )
    result = evaluate(solution, submission, "id")
    assert [(w.code, w.audience) for w in result.warnings] == [
        ("short_rows", "participant"),
        ("leading_zeros_lost", "participant"),
        ("comma_separated_lists", "participant"),
        ("leading_zeros_lost_in_submission", "host"),
        ("leading_zeros_lost_in_solution", "host"),
    ]
    text = "\n".join(str(w) for w in result.warnings)
    for secret in ["0000000123", "0706016001", "0042", "555", *HIDDEN]:
        assert secret not in text
    assert result.score == 0.0  # nothing matches as written


@pytest.mark.parametrize(
    ("mode", "hint"), [("error", True), ("ignore", False)], ids=["public ids", "private ids"]
)
def test_the_missing_header_hint_names_a_row_id_only_when_row_ids_are_public(
    mode: str, hint: bool
) -> None:
    """With unknown_row_ids="ignore" the solution lists only users with ground truth."""
    solution = pd.DataFrame({"id": ["u1", "u2"], "items": ["a", "b"]})
    submission = pd.DataFrame([["u2", "b"]], columns=["u1", "a"])
    with pytest.raises(ParticipantVisibleError, match="Missing columns") as caught:
        evaluate(solution, submission, "id", unknown_row_ids=mode)
    assert ("'u1' is a row id; the header row is probably missing" in str(caught.value)) is hint


def test_the_fuzzer_starts_and_stops_on_time(capsys: pytest.CaptureFixture[str]) -> None:
    import importlib.util

    path = ROOT / "fuzz" / "fuzz_submission.py"
    spec = importlib.util.spec_from_file_location("fuzz_submission", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--minutes", "0"]) == 0
    assert "no failure in 0 examples over 0 minutes" in capsys.readouterr().out
