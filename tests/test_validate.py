"""Every error of docs/errors.md#validation-and-errors, with its message; all problems at once; no
solution value leaks."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer import HostVisibleError, ParticipantVisibleError, evaluate, score

SOLUTION = pd.DataFrame(
    {
        "id": ["u1", "u2", "u3", "0042"],
        "items": ["a b", "c", "", "d"],
        "Usage": ["Public", "Private", "Public", "Ignored"],
    }
)
GOOD = {"id": ["u1", "u2", "u3", "0042"], "items": ["a", "c", "", "d"]}


def submission(**changes: list) -> pd.DataFrame:
    return pd.DataFrame({**GOOD, **changes})


def test_a_valid_submission_scores() -> None:
    assert score(SOLUTION, submission(), "id") == pytest.approx(0.75)


def test_missing_column() -> None:
    frame = submission().rename(columns={"items": "prediction"})
    with pytest.raises(
        ParticipantVisibleError, match=r"Missing columns[\s\S]*no column \['items'\]"
    ):
        score(SOLUTION, frame, "id")


def test_misspelt_column_gets_a_hint() -> None:
    frame = submission().rename(columns={"items": "Items "})
    with pytest.raises(ParticipantVisibleError, match="'Items ' looks like 'items'"):
        score(SOLUTION, frame, "id")


def test_a_misspelt_column_is_one_problem_naming_the_closest_column() -> None:
    """A header typo was two problems (missing and extra) with a hint about pandas'
    index column: one problem now, naming the sample submission's column it stands for."""
    frame = submission().rename(columns={"items": "itemz"})
    with pytest.raises(ParticipantVisibleError) as caught:
        score(SOLUTION, frame, "id")
    message = str(caught.value)
    assert message.startswith("The submission is invalid (1 problem):")
    assert "'itemz' looks like 'items'; names must match exactly" in message
    assert "Extra columns" not in message and "to_csv(index=False)" not in message
    both = submission().rename(columns={"items": "Item"}).assign(**{"Unnamed: 0": 1})
    with pytest.raises(ParticipantVisibleError, match=r"'Item' looks like 'items'") as caught:
        score(SOLUTION, both, "id")
    assert "1 extra column: ['Unnamed: 0']" in str(caught.value)  # an extra column stays one


@pytest.mark.parametrize(
    ("options", "meant"),
    [
        ({"row_id_column_name": "idd"}, "; did you mean 'id'?"),
        ({"grade_column_name": "grade"}, "; did you mean 'grades'?"),
        ({"candidates_column_name": "cand", "candidate_rule": "subset"}, "Did you mean 'cands'?"),
        ({"segment_column_name": "segs"}, "Did you mean 'seg'?"),
        ({"target_type_column_name": "kinds"}, "Did you mean 'kind'?"),
    ],
)
def test_a_misspelt_solution_column_option_names_the_closest_column(options, meant) -> None:
    """Each column option of the solution names its closest column when misspelt, and
    the typo is the one problem (the row id's closest column is no target column)."""
    solution = pd.DataFrame(
        {"id": ["u1"], "items": ["a"], "grades": ["1"], "cands": ["a"], "seg": ["x"], "kind": ["t"]}
    )
    settings = {
        "row_id_column_name": "id",
        "grade_column_name": "grades",
        "candidates_column_name": "cands",
        "candidate_rule": "subset",
        "segment_column_name": "seg",
        **options,
    }
    if "target_type_column_name" not in options:
        solution = solution.drop(columns="kind")
    with pytest.raises(HostVisibleError, match=re.escape(meant)) as caught:
        evaluate(solution, pd.DataFrame({"id": ["u1"], "items": ["a"]}), **settings)
    assert "Ambiguous target column" not in str(caught.value)


@pytest.mark.parametrize("call", ["evaluate", "score", "score_part"])
def test_a_misspelt_keyword_names_the_closest(call) -> None:
    """Python's TypeError, with the closest keyword (Python suggests one from 3.13)."""
    from scorer.partial import score_part

    function = {"evaluate": evaluate, "score": score, "score_part": score_part}[call]
    frame = submission()
    match = rf"{call}\(\) got an unexpected keyword argument 'emtpy_ground_truth'\. Did you mean"
    with pytest.raises(TypeError, match=match + " 'empty_ground_truth'"):
        function(SOLUTION, frame, "id", emtpy_ground_truth="zero")
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'xyz'$"):
        function(SOLUTION, frame, "id", xyz=1)


def test_extra_column() -> None:
    frame = submission().assign(**{"Unnamed: 0": range(4)})
    with pytest.raises(ParticipantVisibleError, match=r"Extra columns[\s\S]*\['Unnamed: 0'\]"):
        score(SOLUTION, frame, "id")


def test_usage_column_in_a_submission_is_extra() -> None:
    frame = submission().assign(Usage="Public")
    with pytest.raises(ParticipantVisibleError, match=r"1 extra column: \['Usage'\]"):
        score(SOLUTION, frame, "id")


def test_a_huge_column_name_is_shortened_in_every_message() -> None:
    huge = "x" * 500_000
    frame = submission().rename(columns={"items": huge}).assign(**{huge + "y": 1})
    with pytest.raises(ParticipantVisibleError) as caught:
        score(SOLUTION, frame, "id")
    message = str(caught.value)
    assert "Missing columns" in message and "Extra columns" in message
    assert "(500000 characters)" in message and len(message) < 3_000


def test_duplicated_column() -> None:
    frame = pd.concat([submission(), submission()[["items"]]], axis=1)
    with pytest.raises(ParticipantVisibleError, match=r"Duplicated columns[\s\S]*\['items'\]"):
        score(SOLUTION, frame, "id")


def test_no_column_at_all() -> None:
    with pytest.raises(ParticipantVisibleError, match="No columns"):
        score(SOLUTION, pd.DataFrame(), "id")


def test_duplicated_row_ids() -> None:
    frame = pd.concat([submission(), submission().iloc[[1, 1]]])
    with pytest.raises(
        ParticipantVisibleError,
        match=r"Duplicated row ids[\s\S]*1 row id repeated, 2 extra rows[\s\S]*'u2'",
    ):
        score(SOLUTION, frame, "id")


def test_missing_row_ids() -> None:
    frame = submission().iloc[[0, 2]]
    with pytest.raises(
        ParticipantVisibleError,
        match=r"Missing rows[\s\S]*2 row ids with no row[\s\S]*examples \(row ids\): '0042', 'u2'",
    ):
        score(SOLUTION, frame, "id")


def test_unknown_row_ids() -> None:
    frame = pd.concat([submission(), pd.DataFrame({"id": ["zz"], "items": ["a"]})])
    with pytest.raises(
        ParticipantVisibleError, match=r"Unknown row ids[\s\S]*1 row whose row id[\s\S]*'zz'"
    ):
        score(SOLUTION, frame, "id")


@pytest.mark.parametrize(
    ("written", "hint"),
    [(" u1", "surrounding whitespace"), ("U1", "case is ignored"), ("42", "leading zeros")],
)
def test_near_miss_row_ids_get_a_hint(written: str, hint: str) -> None:
    ids = GOOD["id"].copy()
    ids[0 if written != "42" else 3] = written
    with pytest.raises(ParticipantVisibleError, match=f"would match once {hint}"):
        score(SOLUTION, submission(id=ids), "id")


def test_empty_row_ids() -> None:
    frame = pd.concat([submission(), pd.DataFrame({"id": ["", None], "items": ["a", "b"]})])
    with pytest.raises(
        ParticipantVisibleError,
        match=r"Empty row ids[\s\S]*2 rows of the submission with an empty row id\n   fix:",
    ):
        score(SOLUTION, frame, "id")


def test_too_many_predictions() -> None:
    frame = submission(items=["a", "c", " ".join("x" * 11), "d"])
    with pytest.raises(
        ParticipantVisibleError,
        match=r"Too many predictions[\s\S]*at most 10[\s\S]*1 row with more \(up to 11\)"
        r"[\s\S]*'u3'",
    ):
        score(SOLUTION, frame, "id")
    assert score(SOLUTION, frame, "id", extra_predictions="truncate") == pytest.approx(0.75)


def test_every_problem_is_reported_at_once() -> None:
    frame = pd.DataFrame(
        {
            "id": ["u1", "u1", "zz", "", " u2"],
            "items": ["a", "b", "c", "d", " ".join("y" * 12)],
            "extra": ["1"] * 5,
        }
    )
    with pytest.raises(ParticipantVisibleError) as caught:
        score(SOLUTION, frame, "id")
    titles = [p.title for p in caught.value.problems]
    assert titles == [
        "Extra columns",
        "Empty row ids",
        "Duplicated row ids",
        "Missing rows",
        "Unknown row ids",
        "Too many predictions",
    ]
    assert str(caught.value).startswith("The submission is invalid (6 problems):")


def test_problems_show_at_most_five_examples_and_the_total() -> None:
    solution = pd.DataFrame({"id": [f"u{i}" for i in range(20)], "items": ["a"] * 20})
    frame = pd.DataFrame({"id": ["u0"], "items": ["a"]})
    with pytest.raises(ParticipantVisibleError) as caught:
        score(solution, frame, "id")
    (problem,) = caught.value.problems
    # The smallest missing ids (as strings): the solution's row order is hidden.
    assert problem.examples == ("u1", "u10", "u11", "u12", "u13")
    assert "19 row ids with no row" in problem.found


def test_ignore_mode_hides_which_users_have_ground_truth() -> None:
    frame = submission().iloc[[0, 2]]
    with pytest.raises(ParticipantVisibleError) as caught:
        score(SOLUTION, frame, "id", unknown_row_ids="ignore")
    (problem,) = caught.value.problems
    assert problem.title == "Missing rows" and problem.examples == ()


# --- host errors ----------------------------------------------------------------------


def test_solution_without_the_row_id_column() -> None:
    with pytest.raises(HostVisibleError, match=r"Row-id column not found[\s\S]*'user'"):
        score(SOLUTION, submission(), "user")


def test_solution_with_an_ambiguous_target() -> None:
    solution = SOLUTION.assign(other="x")
    with pytest.raises(
        HostVisibleError, match=r"Ambiguous target column[\s\S]*\['items', 'other'\]"
    ):
        score(solution, submission(), "id")


def test_solution_without_a_target() -> None:
    with pytest.raises(HostVisibleError, match="Target column not found"):
        score(SOLUTION[["id", "Usage"]], submission(), "id")


def test_solution_with_duplicated_columns() -> None:
    solution = pd.concat([SOLUTION, SOLUTION[["items"]]], axis=1)
    with pytest.raises(HostVisibleError, match=r"Duplicated columns[\s\S]*\['items'\]"):
        score(solution, submission(), "id")


def test_solution_with_duplicated_row_ids() -> None:
    solution = pd.concat([SOLUTION, SOLUTION.iloc[[0]]])
    with pytest.raises(HostVisibleError, match=r"The solution is invalid[\s\S]*Duplicated row ids"):
        score(solution, submission(), "id")


def test_solution_with_empty_row_ids() -> None:
    solution = pd.concat(
        [SOLUTION, pd.DataFrame({"id": [""], "items": ["a"], "Usage": ["Public"]})]
    )
    with pytest.raises(HostVisibleError, match="Empty row ids"):
        score(solution, submission(), "id")


def test_unknown_usage_values() -> None:
    solution = SOLUTION.assign(Usage=["Public", "public", "Private", "Test"])
    with pytest.raises(HostVisibleError, match=r"Unknown Usage values[\s\S]*2 rows"):
        score(solution, submission(), "id")


def test_no_scorable_user() -> None:
    solution = SOLUTION.assign(items="")
    with pytest.raises(HostVisibleError, match="No user can be scored"):
        score(solution, submission(items=["", "", "", ""]), "id")


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("k", 0, r"'k' parameter must be an int in the range \[1, inf\)\. Got 0 instead"),
        ("k", 2.5, r"'k' parameter must be an int .* Got 2\.5 instead"),
        ("k", True, r"'k' parameter must be an int .* Got True instead"),
        ("k", "10", r"'k' parameter must be an int .* Got '10' instead"),
        ("empty_ground_truth", "drop", r"among \['skip', 'zero'\]\. Got 'drop'"),
        ("extra_predictions", "clip", r"among \['error', 'truncate'\]\. Got 'clip'"),
        ("normalization", "map", r"among \['min_k', 'relevant', 'hits'\]\. Got 'map'"),
        ("unknown_row_ids", None, r"among \['error', 'ignore'\]\. Got None"),
    ],
)
def test_bad_options(option: str, value: object, message: str) -> None:
    with pytest.raises(HostVisibleError, match=message):
        score(SOLUTION, submission(), "id", **{option: value})


def test_unsupported_input_type() -> None:
    with pytest.raises(ParticipantVisibleError, match="got list"):
        score(SOLUTION, [["u1", "a"]], "id")  # type: ignore[arg-type]


# --- warnings -------------------------------------------------------------------------


def test_warnings_for_the_participant_and_the_host() -> None:
    solution = SOLUTION.assign(items=["a b a", "c", "", "d"])
    frame = submission(items=["a a", "", "", "d"])
    result = evaluate(solution, frame, "id", k=2)
    by_code = {w.code: w for w in result.warnings}
    assert set(by_code) == {"repeated_items", "short_rows", "empty_rows", "duplicate_ground_truth"}
    assert by_code["repeated_items"].examples == ("u1",)
    assert by_code["empty_rows"].count == 2  # u2 and u3
    # Every submitted row counts, Ignored 0042 too: the warnings must not reveal Usage.
    assert by_code["short_rows"].examples == ("0042",)
    assert by_code["duplicate_ground_truth"].audience == "host"
    assert (
        str(by_code["empty_rows"]) == "2 rows have no prediction and score 0. Examples: 'u2', 'u3'"
    )


# --- no solution value in any participant-visible text ----------------------------------

SENTINEL = "SENTINEL"
SENTINEL_SOLUTION = pd.DataFrame(
    {
        "id": [f"r{i}" for i in range(6)],
        "target": [f"{SENTINEL}{i} {SENTINEL}x{i} {SENTINEL}{i}" for i in range(6)],
    }
)
ids = st.sampled_from([f"r{i}" for i in range(8)] + ["", " r1", "R2", "0r3"])
cells = st.one_of(
    st.none(), st.lists(st.sampled_from(["x", "y", "sentinel0", "r1"]), max_size=14).map(" ".join)
)


@settings(max_examples=200)
@given(
    st.lists(st.tuples(ids, cells), max_size=10),
    st.sampled_from([["id", "target"], ["id", "prediction"], ["id", "target", "x"], ["target"]]),
    st.sampled_from(["error", "ignore"]),
    st.sampled_from(["error", "truncate"]),
)
def test_no_solution_value_in_participant_visible_text(
    rows: list[tuple[str, str | None]],
    columns: list[str],
    unknown_row_ids: str,
    extra_predictions: str,
) -> None:
    frame = pd.DataFrame(
        {name: [r[i % 2] for r in rows] for i, name in enumerate(columns)}, columns=columns
    )
    try:
        result = evaluate(
            SENTINEL_SOLUTION,
            frame,
            "id",
            unknown_row_ids=unknown_row_ids,
            extra_predictions=extra_predictions,
        )
    except ParticipantVisibleError as error:
        assert SENTINEL not in str(error)
        return
    participant_text = " ".join(str(w) for w in result.warnings if w.audience == "participant")
    assert SENTINEL not in participant_text


def test_missing_row_ids_beside_an_open_quote_are_listed_not_an_index_error() -> None:
    """Found at the minimum versions: pyarrow 14 selects no null, so the examples of the
    open-quote problem, all of them missing row ids, once indexed an empty selection."""
    solution = pd.DataFrame({"customer_id": ["u0"], "prediction": ["a"]})
    row_ids = pd.array([pd.NA] * 6, dtype="string")
    submission = pd.DataFrame({"customer_id": row_ids, "prediction": ["u0"] * 5 + ['"\n']})
    with pytest.raises(ParticipantVisibleError, match=r"6 rows of the submission with an empty"):
        evaluate(solution, submission)
