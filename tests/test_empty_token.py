"""``empty_token`` (docs/measures.md#empty-cells-as-a-token): an empty solution cell and an empty
submission cell both stand for one item (Instacart's ``None``)."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer import HostVisibleError, ParticipantVisibleError, evaluate

TOKEN = "None"
ITEMS = ["p1", "p2", "p3", "p4", TOKEN]

orders = st.lists(
    st.tuples(
        st.lists(st.sampled_from(ITEMS), max_size=4),  # the reordered products
        st.lists(st.sampled_from(ITEMS), max_size=5),  # the prediction, repeats allowed
        st.sampled_from(["", " ", None]),  # how an empty cell is written
    ),
    min_size=1,
    max_size=8,
)


def _cell(items: list[str], empty: str | None) -> str | None:
    return " ".join(items) if items else empty


def _frames(drawn) -> tuple[pd.DataFrame, pd.DataFrame]:
    ids = [f"o{i}" for i in range(len(drawn))]
    solution = pd.DataFrame(
        {"order_id": ids, "products": [_cell(t, e) for t, _, e in drawn]}, dtype=object
    )
    submission = pd.DataFrame(
        {"order_id": ids, "products": [_cell(p, e) for _, p, e in drawn]}, dtype=object
    )
    return solution, submission


def _set_f1(predicted: list[str], truth: list[str]) -> Fraction:
    """Instacart's F1 read literally: the empty set is {None}."""
    shown, relevant = set(predicted) or {TOKEN}, set(truth) or {TOKEN}
    found = len(shown & relevant)
    return Fraction(2 * found, len(shown) + len(relevant))


@settings(max_examples=80, deadline=None)
@given(orders)
def test_mean_set_f1_with_the_token_matches_instacarts_definition(drawn) -> None:
    solution, submission = _frames(drawn)
    result = evaluate(solution, submission, "order_id", metrics=["SetF"], empty_token=TOKEN)
    expected = sum((_set_f1(p, t) for t, p, _ in drawn), Fraction(0)) / len(drawn)
    assert result.n_scored == len(drawn)  # no order has an empty truth any more
    assert result.exact_values["SetF"].exact_mean() == expected
    assert result.score == float(expected)


def test_predicting_none_for_an_order_with_no_reorder_is_a_hit() -> None:
    solution = pd.DataFrame({"order_id": ["1", "2"], "products": ["", "p1 p2"]})
    submission = pd.DataFrame({"order_id": ["1", "2"], "products": ["None", "p1 None"]})
    kwargs = {"metrics": ["SetF"], "empty_token": TOKEN}
    result = evaluate(solution, submission, "order_id", **kwargs)
    assert result.exact_values["SetF"].exact_mean() == (1 + Fraction(1, 2)) / 2
    without = evaluate(solution, submission, "order_id", metrics=["SetF"])
    assert without.n_scored == 1  # order 1 has no relevant item: skipped


def test_an_empty_submission_cell_predicts_the_token() -> None:
    solution = pd.DataFrame({"order_id": ["1", "2"], "products": ["", "p1"]})
    submission = pd.DataFrame({"order_id": ["1", "2"], "products": ["", ""]})
    result = evaluate(solution, submission, "order_id", metrics=["SetF"], empty_token=TOKEN)
    assert result.exact_values["SetF"].exact_mean() == Fraction(1, 2)
    assert "empty_rows" not in [w.code for w in result.warnings]


def test_a_long_solution_lists_an_order_without_reorders_once_with_an_empty_item() -> None:
    solution = pd.DataFrame({"order_id": ["1", "2", "2"], "products": ["", "p1", "p2"]})
    submission = pd.DataFrame({"order_id": ["1", "2"], "products": ["None", "p2"]})
    result = evaluate(
        solution,
        submission,
        "order_id",
        metrics=["SetF"],
        empty_token=TOKEN,
        solution_layout="long",
    )
    assert result.exact_values["SetF"].exact_mean() == (1 + Fraction(2, 3)) / 2


@settings(max_examples=30, deadline=None)
@given(orders, st.randoms())
def test_row_order_changes_no_bit(drawn, random) -> None:
    solution, submission = _frames(drawn)
    kwargs = {"metrics": ["SetF", "Jaccard", "MAP"], "empty_token": TOKEN}
    before = evaluate(solution, submission, "order_id", **kwargs)
    order = list(range(len(drawn)))
    random.shuffle(order)
    after = evaluate(solution.iloc[order], submission.iloc[order[::-1]], "order_id", **kwargs)
    assert after.metrics == before.metrics


@pytest.mark.parametrize("token", ["", "no order", "a\tb", 3])
def test_a_token_that_is_not_one_item_is_refused(token) -> None:
    with pytest.raises(HostVisibleError, match=r"^The 'empty_token' parameter must be one item"):
        evaluate("unread.csv", "unread.csv", empty_token=token)


def test_a_grade_column_with_the_token_is_refused() -> None:
    with pytest.raises(HostVisibleError, match=r"^empty_token applies to binary relevance"):
        evaluate("unread.csv", "unread.csv", empty_token=TOKEN, grade_column_name="g")


def test_trec_files_with_the_token_are_refused_before_any_file_is_read() -> None:
    # trec_eval's qrels are graded: refused once the qrels were read, the message named a
    # grade_column_name='rel' that the host never gave.
    expected = (
        r"^empty_token applies to binary relevance: .* Got empty_token='None', "
        r"format='trec' \(trec_eval's qrels are graded\)\.$"
    )
    with pytest.raises(HostVisibleError, match=expected):
        evaluate("unread.txt", "unread.txt", empty_token=TOKEN, format="trec")


def test_the_command_line_takes_empty_token(tmp_path: Path) -> None:
    solution, submission = tmp_path / "solution.csv", tmp_path / "submission.csv"
    solution.write_text("order_id,products\n1,\n2,p1 p2\n")
    submission.write_text("order_id,products\n1,None\n2,p1\n")
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "scorer",
            solution,
            submission,
            "-m",
            "SetF",
            "--empty-token",
            "None",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith(f"SetF: {float((1 + Fraction(2, 3)) / 2)!r}\n")


@pytest.mark.parametrize("seed", range(10))
def test_empty_token_non_interference_participant_text_ignores_hidden_data(seed: int) -> None:
    """The information boundary with the token: two solutions of the same row ids (their
    products and which orders are empty differ) give the same participant-visible text."""
    rng = np.random.default_rng(seed)
    ids = [f"o{i}" for i in range(8)]

    def solution() -> pd.DataFrame:
        cells = [" ".join(rng.choice(ITEMS[:4], size=int(rng.integers(0, 3)))) for _ in ids]
        return pd.DataFrame({"order_id": ids, "products": cells})

    rows = [(i, " ".join(rng.choice(ITEMS, size=int(rng.integers(0, 4))))) for i in ids]
    if seed % 3 == 1:
        rows = rows[2:]  # missing rows
    if seed % 3 == 2:
        rows += [("o99", "p1"), rows[0]]  # an unknown and a duplicated row id
    submission = pd.DataFrame(rows, columns=["order_id", "products"])

    def seen(truth: pd.DataFrame) -> tuple:
        try:
            result = evaluate(truth, submission, "order_id", metrics=["SetF"], empty_token=TOKEN)
        except ParticipantVisibleError as error:
            return ("invalid", str(error))
        return ("scored", [str(w) for w in result.warnings if w.audience == "participant"])

    assert seen(solution()) == seen(solution())
