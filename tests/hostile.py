"""Hostile inputs and the checks every one of them must pass.

Shared by ``tests/test_hostile_properties.py`` (a small budget, in CI) and
``fuzz/fuzz_submission.py`` (a large budget, for minutes or hours).

The solution holds sentinel item ids. The *hidden* ones never appear in any generated
submission, so finding one in a participant-visible message or warning is a leak; the
*visible* ones may be drawn, so that some submissions really score. Every submission is
also scored against a shadow solution with the same row ids and other items, Usage and
empty users: what the participant sees must not change (docs/decisions.md#information-boundary).
"""

from __future__ import annotations

import math
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from hypothesis import strategies as st

from scorer import HostVisibleError, ParticipantVisibleError, evaluate

ROW_IDS = ["u0", "u1", "0002", "U3", " u4", "NA"]
HIDDEN = [f"HIDDEN{i}q7Zx" for i in range(len(ROW_IDS))]
VISIBLE = ["0706016001", "a", "é", "NA"]
SOLUTION = pd.DataFrame(
    {
        "customer_id": ROW_IDS,
        "prediction": [f"{hidden} {VISIBLE[i % len(VISIBLE)]}" for i, hidden in enumerate(HIDDEN)],
        "Usage": ["Public", "Private", "Public", "Private", "Ignored", "Public"],
    }
)
# The same row ids, and everything a participant must not learn changed: other items
# (zero-padded, so the lost-zero paths differ), other Usage, other users without items.
# Participant-visible text must be identical against both (docs/decisions.md#information-boundary).
SHADOW_SOLUTION = pd.DataFrame(
    {
        "customer_id": ROW_IDS,
        "prediction": ["0000000007 0a", "", "0706016002", "7 é", "", "a 0706016001"],
        "Usage": ["Private", "Ignored", "Public", "Public", "Public", "Private"],
    }
)
REVERSED_SOLUTION = SOLUTION.iloc[::-1].reset_index(drop=True)
NAMES = ["customer_id", "prediction", "Usage", "", " customer_id", "Prediction", "u0", "\ud800"]

texts = st.one_of(
    st.sampled_from(ROW_IDS + VISIBLE + ["", " ", "\t", "nan", "None", "=1+1", "7.06E+08"]),
    st.text(max_size=20),
    st.text(st.characters(codec="utf-8"), max_size=200),
    st.builds(
        lambda c, n: c * n, st.sampled_from(["x", " ", ",", "\n", "é"]), st.integers(0, 20_000)
    ),
)
cells = st.one_of(
    texts,
    st.none(),
    st.just(float("nan")),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.binary(max_size=10),
    st.lists(texts, max_size=12).map(" ".join),
    st.lists(st.sampled_from(VISIBLE), max_size=12).map(" ".join),
)
FRAGMENTS = [
    b"customer_id",
    b"prediction",
    b"Usage",
    b",",
    b";",
    b"\t",
    b" ",
    b'"',
    b"\n",
    b"\r\n",
    b"\r",
    b"\x00",
    b"\xef\xbb\xbf",
    b"\xff\xfe",
    *(r.encode() for r in ROW_IDS),
    *(v.encode() for v in VISIBLE),
]


@st.composite
def csv_like_bytes(draw: st.DrawFn) -> bytes:
    """Bytes that are often almost a valid submission: a header, rows, damage."""
    header = draw(
        st.sampled_from([b"customer_id,prediction\n", b"prediction,customer_id\r\n", b""])
    )
    pieces = draw(
        st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.binary(max_size=8)), max_size=60)
    )
    return header + b"".join(pieces)


submission_bytes = st.one_of(st.binary(max_size=4_000), csv_like_bytes())


@st.composite
def series(draw: st.DrawFn, n_rows: int) -> pd.Series:
    """One column of any of the dtypes a caller may hand over."""
    kind = draw(
        st.sampled_from(["object", "string", "int", "float", "bool", "category", "Int64", "dt"])
    )
    if kind == "object":
        return pd.Series(draw(st.lists(cells, min_size=n_rows, max_size=n_rows)), dtype=object)
    if kind in ("string", "category"):
        values = draw(st.lists(st.one_of(texts, st.none()), min_size=n_rows, max_size=n_rows))
        try:
            return pd.Series(values, dtype=kind)
        except (UnicodeEncodeError, ValueError):  # pandas' own string dtype rejects surrogates
            return pd.Series(values, dtype=object)
    if kind == "int":
        ints = st.integers(-(2**63), 2**63 - 1)
        return pd.Series(draw(st.lists(ints, min_size=n_rows, max_size=n_rows)), dtype="int64")
    if kind == "float":
        return pd.Series(
            draw(st.lists(st.floats(), min_size=n_rows, max_size=n_rows)), dtype="float64"
        )
    if kind == "bool":
        return pd.Series(draw(st.lists(st.booleans(), min_size=n_rows, max_size=n_rows)))
    if kind == "Int64":
        values = draw(
            st.lists(st.one_of(st.none(), st.integers(-5, 5)), min_size=n_rows, max_size=n_rows)
        )
        return pd.Series(values, dtype="Int64")
    stamps = st.one_of(st.none(), st.integers(0, 2**33).map(lambda s: pd.Timestamp(s, unit="s")))
    return pd.Series(
        draw(st.lists(stamps, min_size=n_rows, max_size=n_rows)), dtype="datetime64[ns]"
    )


@st.composite
def frames(draw: st.DrawFn) -> pd.DataFrame:
    """A DataFrame with random column names, dtypes and values (often nearly valid)."""
    n_rows = draw(st.integers(0, 8))
    names = draw(
        st.lists(
            st.one_of(st.sampled_from(NAMES), st.text(max_size=5), st.integers(), st.none()),
            max_size=4,
        )
    )
    if draw(st.booleans()):
        names = ["customer_id", "prediction", *names[:1]]
    if draw(st.booleans()) and n_rows:
        n_rows = len(ROW_IDS)
    columns = [draw(series(n_rows)) for _ in names]
    if draw(st.booleans()) and "customer_id" in names and n_rows == len(ROW_IDS):
        columns[names.index("customer_id")] = pd.Series(draw(st.permutations(ROW_IDS)))
    frame = pd.concat(columns, axis=1, ignore_index=True) if columns else pd.DataFrame()
    frame.columns = pd.Index(names, dtype=object) if columns else frame.columns
    return frame


@dataclass(frozen=True)
class Outcome:
    """What one scoring run produced, comparable across runs."""

    kind: str
    text: str


def outcome_of(submission: pd.DataFrame | str | os.PathLike, solution: object = None) -> Outcome:
    """Score, and check the invariants that hold for every input.

    Raises AssertionError when a rule is broken; any other exception escaping the
    scorer propagates as the bug it is.
    """
    solution = SOLUTION if solution is None else solution
    try:
        result = evaluate(solution, submission)
    except ParticipantVisibleError as error:
        message = str(error)
        assert_no_secret(message)
        return Outcome("ParticipantVisibleError", message)
    except HostVisibleError as error:
        return Outcome("HostVisibleError", str(error))
    for value in (result.score, result.public_score, result.private_score):
        assert value is None or (math.isfinite(value) and 0.0 <= value <= 1.0), value
    participant = [str(w) for w in result.warnings if w.audience == "participant"]
    assert_no_secret("\n".join(participant))
    return Outcome("score", repr(result.to_dict()))


def participant_view(submission: pd.DataFrame | str | os.PathLike, solution: object) -> str:
    """What the participant sees of one run: the error message, or the warnings for them."""
    try:
        result = evaluate(solution, submission)
    except ParticipantVisibleError as error:
        return f"invalid: {error}"
    except HostVisibleError as error:
        return f"host error: {error}"
    warnings = [(w.code, w.count, str(w)) for w in result.warnings if w.audience == "participant"]
    return f"scored: {warnings!r}"


def assert_non_interference(submission: pd.DataFrame | str | os.PathLike) -> None:
    """The same participant-visible text against a solution that differs in hidden data,
    and against the solution with its rows in another order (also hidden)."""
    seen = participant_view(submission, SOLUTION)
    for other in (SHADOW_SOLUTION, REVERSED_SOLUTION):
        assert seen == participant_view(submission, other), (
            f"depends on hidden data: {seen[:500]!r}"
        )


def assert_no_secret(text: str) -> None:
    """No hidden solution item id in a text meant for the participant."""
    for secret in HIDDEN:
        assert secret not in text, f"leaked a solution item id: {text[:500]!r}"


def check_bytes(data: bytes) -> Outcome:
    """Write ``data`` as a submission file, score it twice, and check every rule."""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "submission.csv"
        path.write_bytes(data)
        first = outcome_of(path)
        assert first.kind != "HostVisibleError", first.text
        again = outcome_of(path)
        assert_non_interference(path)
    assert again == first, "the same file gave two different results"
    return first


def check_frame(frame: pd.DataFrame) -> Outcome:
    """Score a hostile DataFrame twice; it must come back unchanged, with one result."""
    before = frame.copy(deep=True)
    first = outcome_of(frame)
    assert first.kind != "HostVisibleError", first.text
    assert outcome_of(frame) == first, "the same frame gave two different results"
    assert_non_interference(frame)
    pd.testing.assert_frame_equal(frame, before)
    return first


def check_hostile_solution(frame: pd.DataFrame) -> Outcome:
    """A hostile DataFrame as the solution: only the two errors, never a crash."""
    submission = pd.DataFrame({"customer_id": ROW_IDS, "prediction": VISIBLE[:1] * len(ROW_IDS)})
    first = outcome_of(submission, solution=frame)
    assert outcome_of(submission, solution=frame) == first
    return first
