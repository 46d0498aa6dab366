"""The fast path against the reference, by hypothesis, and the invariants of the results
(docs/python-api.md#python-api)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from scorer import HostVisibleError, ParticipantVisibleError, evaluate, score
from tests.declared import choices
from tests.reference import reference_scores
from tests.seams import collide_prints

SEPARATORS = [" ", "  ", "\t", " \t ", "\u3000", "\n"]
ITEMS = ["a", "b", "c", "0706016001", "706016001", "NA", "nan", "é", "日本", "x,y", "A"]

item_ids = st.one_of(
    st.sampled_from(ITEMS),
    st.text(st.characters(blacklist_categories=("Cs", "Zs", "Zl", "Zp", "Cc")), min_size=1),
)
row_ids = st.one_of(
    st.sampled_from(["u1", " u1", "u1 ", "U1", "0001", "1", "NA", "ü", "id,with,commas"]),
    st.text(min_size=1, max_size=8),
).filter(lambda i: len(i.split()) <= 1)  # "a b" looks like an item list: a host error


@st.composite
def joined(draw: st.DrawFn, items: list[str]) -> str:
    """Items joined by random runs of whitespace, with optional padding."""
    text = ""
    for i, item in enumerate(items):
        text += (draw(st.sampled_from(SEPARATORS)) if i else "") + item
    if draw(st.booleans()):
        text = draw(st.sampled_from(SEPARATORS)) + text + draw(st.sampled_from(SEPARATORS))
    return text


@st.composite
def competitions(draw: st.DrawFn, max_predictions: int) -> dict:
    """A solution and a submission in which every solution row id has exactly one row."""
    ids = draw(st.lists(row_ids, min_size=1, max_size=8, unique=True))
    truth = {i: draw(st.lists(item_ids, max_size=6)) for i in ids}
    predictions = {i: draw(st.lists(item_ids, max_size=max_predictions)) for i in ids}
    usage = {i: draw(st.sampled_from(["Public", "Private", "Ignored"])) for i in ids}
    return {
        "truth": {i: draw(joined(v)) for i, v in truth.items()},
        "predictions": {i: draw(joined(v)) for i, v in predictions.items()},
        "usage": usage,
        "order": draw(st.permutations(ids)),
    }


def frames(case: dict, with_usage: bool) -> tuple[pd.DataFrame, pd.DataFrame]:
    ids = list(case["truth"])
    solution = pd.DataFrame({"id": ids, "items": [case["truth"][i] for i in ids]})
    if with_usage:
        solution["Usage"] = [case["usage"][i] for i in ids]
    order = case["order"]
    submission = pd.DataFrame({"items": [case["predictions"][i] for i in order], "id": order})
    return solution, submission


def close(value: float | None, exact: Fraction | None) -> bool:
    """Equal to the correctly rounded exact value (k <= 20 makes the fast path exact)."""
    if exact is None:
        return value is None
    return value == float(exact)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(
    competitions(max_predictions=9),
    st.integers(1, 7),
    choices("normalization"),
    choices("empty_ground_truth"),
    st.booleans(),
)
def test_fast_path_matches_reference(
    case: dict, k: int, normalization: str, empty_ground_truth: str, with_usage: bool
) -> None:
    solution, submission = frames(case, with_usage)
    expected = reference_scores(
        case["truth"],
        case["predictions"],
        k,
        normalization=normalization,
        empty_ground_truth=empty_ground_truth,
        usage=case["usage"] if with_usage else None,
    )
    assume(expected["overall"] is not None)
    result = evaluate(
        solution,
        submission,
        "id",
        k=k,
        normalization=normalization,
        empty_ground_truth=empty_ground_truth,
        extra_predictions="truncate",
    )
    assert close(result.score, expected["overall"])
    if with_usage:
        assert close(result.public_score, expected["Public"])
        assert close(result.private_score, expected["Private"])
    else:
        assert result.public_score is None and result.private_score is None


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(competitions(max_predictions=9), st.integers(1, 12), st.randoms())
def test_invariants(case: dict, k: int, random) -> None:
    solution, submission = frames(case, with_usage=False)
    try:
        value = score(solution, submission, "id", k=k, extra_predictions="truncate")
    except HostVisibleError as error:
        assert "No user can be scored" in str(error)
        return
    assert isinstance(value, float) and math.isfinite(value) and 0.0 <= value <= 1.0
    shuffled_solution = solution.sample(frac=1, random_state=random.randrange(2**32))
    shuffled_submission = submission.sample(frac=1, random_state=random.randrange(2**32))
    again = score(shuffled_solution, shuffled_submission, "id", k=k, extra_predictions="truncate")
    assert again == value  # bit-identical, not approximately equal


@given(competitions(max_predictions=0), st.integers(1, 12))
def test_perfect_submission_scores_one(case: dict, k: int) -> None:
    perfect = {i: " ".join(list(dict.fromkeys(t.split()))[:k]) for i, t in case["truth"].items()}
    assume(any(perfect.values()))
    solution, _ = frames(case, with_usage=False)
    submission = pd.DataFrame({"id": list(perfect), "items": list(perfect.values())})
    assert score(solution, submission, "id", k=k) == 1.0


@given(item_ids, st.integers(1, 12))
def test_repeating_a_relevant_item_never_beats_listing_it_once(item: str, k: int) -> None:
    solution = pd.DataFrame({"id": ["u"], "items": [f"{item} other"]})
    once = score(solution, pd.DataFrame({"id": ["u"], "items": [item]}), "id", k=k)
    repeated = score(
        solution, pd.DataFrame({"id": ["u"], "items": [" ".join([item] * k)]}), "id", k=k
    )
    assert repeated <= once


def test_per_user_detail() -> None:
    solution = pd.DataFrame({"id": ["u1", "u2", "u3"], "items": ["a b", "c", ""]})
    submission = pd.DataFrame({"id": ["u2", "u3", "u1"], "items": ["c", "a", "b x a"]})
    result = evaluate(solution, submission, "id", k=3, per_user=True)
    table = result.per_user
    assert table is not None and list(table.index) == ["u1", "u2", "u3"]
    assert table["ap"].iloc[0] == pytest.approx(float(Fraction(1, 2) * (1 + Fraction(2, 3))))
    assert table["ap"].iloc[1] == 1.0 and math.isnan(table["ap"].iloc[2])
    assert table["hits"].tolist() == [2, 1, 0]
    assert table["n_relevant"].tolist() == [2, 1, 0]
    assert table["scored"].tolist() == [True, True, False]
    assert result.per_user_ap is not None and result.per_user_ap.name == "ap"
    assert evaluate(solution, submission, "id", k=3).per_user is None


def test_empty_ground_truth_zero_counts_the_user() -> None:
    solution = pd.DataFrame({"id": ["u1", "u2"], "items": ["a", ""]})
    submission = pd.DataFrame({"id": ["u1", "u2"], "items": ["a", "a"]})
    assert score(solution, submission, "id") == 1.0
    result = evaluate(solution, submission, "id", empty_ground_truth="zero")
    assert (result.score, result.n_scored, result.n_skipped) == (0.5, 2, 0)


def test_truncate_scores_only_the_first_k() -> None:
    solution = pd.DataFrame({"id": ["u1"], "items": ["z"]})
    submission = pd.DataFrame({"id": ["u1"], "items": ["a b c z"]})
    assert score(solution, submission, "id", k=3, extra_predictions="truncate") == 0.0
    assert score(solution, submission, "id", k=4) == 0.25


def test_unknown_rows_can_be_ignored() -> None:
    solution = pd.DataFrame({"id": ["u1"], "items": ["a"]})
    submission = pd.DataFrame({"id": ["u1", "someone_else"], "items": ["b a", "a"]})
    assert score(solution, submission, "id", unknown_row_ids="ignore") == 0.5


def test_default_row_id_column_is_the_first() -> None:
    solution = pd.DataFrame({"session": ["s1"], "items": ["a"]})
    submission = pd.DataFrame({"items": ["a"], "session": ["s1"]})
    assert score(solution, submission) == 1.0


@pytest.mark.parametrize(
    "convert",
    [
        lambda s: s.astype(object),
        lambda s: s.astype("string"),
        lambda s: s.astype("string[pyarrow]"),
        lambda s: s.astype(pd.ArrowDtype(pa.string())),
        lambda s: s.astype("category"),
    ],
    ids=["object", "string", "string-pyarrow", "arrow-dtype", "category"],
)
def test_every_string_dtype_is_accepted(convert) -> None:
    solution = pd.DataFrame({"id": ["u1", "u2"], "items": ["a b", "c"]})
    submission = pd.DataFrame({"id": ["u2", "u1"], "items": ["c", "b a"]})
    converted = submission.apply(convert)
    assert score(solution.apply(convert), converted, "id") == 1.0


def test_integer_row_ids_match_string_row_ids() -> None:
    solution = pd.DataFrame({"id": ["1", "2"], "items": ["a", "b"]})
    submission = pd.DataFrame({"id": np.array([2, 1]), "items": ["b", "a"]})
    assert score(solution, submission, "id") == 1.0
    assert score(submission, solution, "id") == 1.0  # and the other way round


def test_float_row_ids_from_a_gap_lose_their_point_zero() -> None:
    solution = pd.DataFrame({"id": ["1", "2"], "items": ["a", "b"]})
    submission = pd.DataFrame({"id": [1.0, 2.0], "items": ["a", "b"]})
    assert score(solution, submission, "id") == 1.0


def test_inputs_are_never_modified() -> None:
    solution = pd.DataFrame({"id": ["u1", "u2"], "items": ["a b", ""], "Usage": ["Public"] * 2})
    submission = pd.DataFrame({"items": ["b", "a  a "], "id": [" u2", "u1"]})
    before = (solution.copy(deep=True), submission.copy(deep=True))
    with pytest.raises(ParticipantVisibleError, match="Unknown row ids"):
        evaluate(solution, submission, "id")
    submission["id"] = ["u2", "u1"]
    before = (solution.copy(deep=True), submission.copy(deep=True))
    evaluate(solution, submission, "id", per_user=True)
    pd.testing.assert_frame_equal(solution, before[0])
    pd.testing.assert_frame_equal(submission, before[1])


def test_arrow_tables_are_accepted() -> None:
    solution = pa.table({"id": ["u1"], "items": ["a"]})
    submission = pa.table({"id": ["u1"], "items": ["x a"]})
    assert score(solution, submission, "id") == 0.5


def test_result_to_dict_is_json_ready() -> None:
    solution = pd.DataFrame({"id": ["u1"], "items": ["a"], "Usage": ["Private"]})
    submission = pd.DataFrame({"id": ["u1"], "items": ["a a"]})
    data = evaluate(solution, submission, "id", k=5).to_dict()
    assert data["metric"] == "map_at_5" and data["score"] == 1.0
    assert data["public_score"] is None and data["private_score"] == 1.0
    codes = [w["code"] for w in data["warnings"]]
    assert codes == ["repeated_items", "short_rows", "no_public_users"]
    assert data["options"]["k"] == 5


def test_a_broken_solution_is_reported_before_the_submission_is_read(tmp_path) -> None:
    """A host problem must never reach the participant as a problem of theirs."""
    solution = pd.DataFrame({"id": ["u1", "u1"], "items": ["a", "b"]})  # duplicated id
    unreadable = tmp_path / "submission.csv"
    unreadable.write_bytes(b"\x00\x01 not a CSV file")
    with pytest.raises(HostVisibleError, match="Duplicated row ids"):
        evaluate(solution, unreadable, "id")
    good = pd.DataFrame({"id": ["u1", "u2"], "items": ["a", "b"]})
    with pytest.raises(ParticipantVisibleError, match="Not UTF-8 text"):
        evaluate(good, unreadable, "id")


@st.composite
def fixed_width_competitions(draw: st.DrawFn) -> dict:
    """H&M's shape in small: equally long row ids and item ids, exactly ``m`` items per
    submission row joined by single spaces."""
    width = draw(st.integers(1, 12))
    alphabet = st.text("0123456789abcdef", min_size=width, max_size=width)
    catalogue = draw(st.lists(alphabet, min_size=1, max_size=12, unique=True))
    ids = draw(
        st.lists(
            st.text("0123456789abcdef", min_size=6, max_size=6),
            min_size=1,
            max_size=10,
            unique=True,
        )
    )
    m = draw(st.integers(1, 6))
    truth = {i: " ".join(draw(st.lists(st.sampled_from(catalogue), max_size=5))) for i in ids}
    predictions = {
        i: " ".join(draw(st.lists(st.sampled_from(catalogue), min_size=m, max_size=m))) for i in ids
    }
    usage = {i: draw(st.sampled_from(["Public", "Private", "Ignored"])) for i in ids}
    return {
        "truth": truth,
        "predictions": predictions,
        "usage": usage,
        "order": draw(st.permutations(ids)),
    }


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow])
@given(fixed_width_competitions(), st.integers(1, 8))
def test_print_collisions_give_the_reference_scores(case: dict, k: int) -> None:
    """With every keyed print equal, every join takes the exact sort of the strings and
    gives exactly the reference's scores."""
    solution, submission = frames(case, with_usage=True)
    expected = reference_scores(case["truth"], case["predictions"], k, usage=case["usage"])
    assume(expected["overall"] is not None)
    with pytest.MonkeyPatch.context() as patch:
        collide_prints(patch)
        result = evaluate(solution, submission, "id", k=k, extra_predictions="truncate")
    assert close(result.score, expected["overall"])
    assert close(result.public_score, expected["Public"])
    assert close(result.private_score, expected["Private"])


def test_the_results_repr_is_one_short_line_and_to_dict_holds_the_rest() -> None:
    """The repr was one line of some 1,500 characters (every per-user array and the
    options): the score, each measure's value and the counts now; to_dict() has the rest."""
    rng = np.random.default_rng(3)
    ids = [f"u{i}" for i in range(5000)]
    solution = pd.DataFrame(
        {"id": ids, "items": [f"i{rng.integers(50)}" for _ in ids], "Usage": "Public"}
    )
    submission = pd.DataFrame({"id": ids, "items": [f"i{rng.integers(50)} i1" for _ in ids]})
    result = evaluate(solution, submission, "id", metrics=["MAP@10", "nDCG@10", "R@5"])
    shown = repr(result)
    assert "\n" not in shown and len(shown) < 250
    assert shown.startswith(f"ScoreResult(score={result.score!r}, public_score=")
    assert f"metrics={result.metrics!r}" in shown and "n_users=5000" in shown
    details = result.to_dict()
    assert details["options"]["k"] == 10 and "short_rows" in [
        w["code"] for w in details["warnings"]
    ]


def test_nothing_of_a_run_outlives_it() -> None:
    """Once ``evaluate`` returns, no list of the submission's items is left in memory (a
    cache on a method of the hints once kept every run's items for the process's life,
    whenever some item was not all digits: a process scoring submission after
    submission, an EvalAI worker, grew with each)."""
    import gc

    from scorer.align.item_lists import SplitLists

    solution = pd.DataFrame({"id": ["u1", "u2"], "items": ["a b", "c"]})
    submission = pd.DataFrame({"id": ["u1", "u2"], "items": ["a x,y 7.5", "c"]})

    def alive() -> int:
        gc.collect()
        return sum(isinstance(found, SplitLists) for found in gc.get_objects())

    before = alive()
    for _ in range(3):
        evaluate(solution, submission)
    assert alive() == before
