"""Attacks on the information boundary (SPEC 6.1) that its property test did not try.

Each test plays a hostile participant: two solutions that share their row ids and
differ in what must stay hidden, one submission, and the participant's view of both
must be identical.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from scorer import ParticipantVisibleError, evaluate

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
    assert examples == ("u7", "u6", "u5", "u4", "u3")  # the submission's order


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
