"""The registry's facts about each measure, checked through ``evaluate``: every worked
example, the value of a perfect ranking, and the declared properties."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from scorer import ScoreResult, evaluate
from scorer.constraints import Choices
from scorer.measures import REGISTRY, parse
from scorer.measures.aggregates import GeometricMean, Total
from scorer.measures.global_precision import GlobalPrecision
from scorer.measures.registry import Example, Family
from tests.declared import MEASURES, binary_names

EXAMPLES = [(family, example) for family in REGISTRY for example in family.examples]


def example_frames(example: Example) -> tuple[pd.DataFrame, pd.DataFrame, int]:
    """The solution and submission of an example, and the smallest ``k`` that holds it.

    Prediction ``r`` of user ``u`` is item ``u_r``; a grade above 0 (or any grade, when
    the example is graded) makes it a judged item; the relevant items no prediction
    retrieves are ``u_missed_j`` with the example's ``missed_grade``.
    """
    graded = example.graded()
    truth, grades, predictions = [], [], []
    counts = example.relevant_counts()
    for user, (ranking, relevant) in enumerate(zip(example.rankings(), counts, strict=True)):
        judged = {f"{user}_{r}": g for r, g in enumerate(ranking) if g > 0 or graded}
        n_missed = relevant - sum(1 for g in ranking if g > 0)
        assert n_missed >= 0, f"{example}: |R| is below the relevant predictions"
        judged |= {f"{user}_missed_{j}": example.missed_grade for j in range(n_missed)}
        truth.append(" ".join(judged))
        grades.append(" ".join(str(g) for g in judged.values()))
        predictions.append(" ".join(f"{user}_{r}" for r in range(len(ranking))))
    ids = [f"u{user}" for user in range(len(truth))]
    if example.confidences:  # one scored prediction per row: "label confidence"
        scores = [score.strip() for score in example.confidences.split("|")]
        predictions = [
            "" if score == "-" else f"{row} {score}"
            for row, score in zip(predictions, scores, strict=True)
        ]
    solution = pd.DataFrame({"id": ids, "items": truth} | ({"grades": grades} if graded else {}))
    submission = pd.DataFrame({"id": ids, "items": predictions})
    cutoff = parse(example.measure, k=10**6).cutoff or 0
    return solution, submission, max(cutoff, *map(len, example.rankings()))


@pytest.mark.parametrize(
    ("family", "example"), EXAMPLES, ids=[f"{e.measure}:{e.ranked}" for _, e in EXAMPLES]
)
def test_every_worked_example_holds(family: Family, example: Example) -> None:
    result, k = _evaluated(example)
    measure = parse(example.measure, k=k)
    assert measure.family is family, "an example belongs to its own family"
    assert str(measure) == example.measure, "examples are written canonically"
    if measure.exact:
        assert isinstance(example.value, Fraction) and example.tolerance == 0
        assert result.exact_values[example.measure].exact_mean() == example.value
        assert result.score == float(example.value)  # the correctly rounded exact mean
    else:
        assert isinstance(example.value, float) and 0 < example.tolerance <= 1e-9
        assert abs(result.score - example.value) <= example.tolerance


def test_every_family_has_a_worked_example_of_each_parameter_value() -> None:
    for family in REGISTRY:
        shown = {
            (name, value)
            for example in family.examples
            for name, value in parse(example.measure, k=10**6).params
        }
        assert family.examples, family.name
        for param in family.params:
            choices = param.constraint.values if isinstance(param.constraint, Choices) else ()
            for value in choices:
                assert (param.name, value) in shown, (family.name, param.name, value)


@pytest.mark.parametrize(("relevant", "k"), [(1, 1), (1, 3), (3, 3), (5, 3), (2, 4), (4, 4)])
def test_a_perfect_ranking_scores_the_registrys_value(relevant: int, k: int) -> None:
    """Every user ranks min(|R|, k) relevant items first (binary relevance); each measure's
    mean is its family's declared perfect value, exactly for an exact family."""
    ids = [f"u{n}" for n in range(3)]
    truth = [" ".join(f"{u}_{j}" for j in range(relevant)) for u in ids]
    rows = [" ".join(f"{u}_{j}" for j in range(min(relevant, k))) for u in ids]
    solution = pd.DataFrame({"id": ids, "items": truth})
    submission = pd.DataFrame({"id": ids, "items": rows})
    names = binary_names([variant.name for variant in MEASURES])
    result = evaluate(solution, submission, "id", k=k, metrics=names)
    for name in result.metrics:
        measure = parse(name, k=k)
        expected = measure.perfect(relevant, k) * (len(ids) if measure.family.summed else 1)
        if measure.exact:
            assert result.exact_values[name].exact_mean() == expected, name
        else:
            assert abs(result.metrics[name] - float(expected)) <= 1e-12 * expected, name


def test_declared_bounds_exactness_and_means_hold_on_the_running_examples() -> None:
    """Bounded families stay in [0, 1] on every example; exact families give exact
    fractions (float64 only past their declared depth); ``Measure.is_a_mean`` (what
    parts, the leaderboard's statistics and trec_eval's summary read: one declaration)
    holds exactly where the values are averaged: a sum, a geometric mean and GAP's
    whole-set ranking are the only values that are no mean."""
    not_means = set()
    for family, example in EXAMPLES:
        result, k = _evaluated(example)
        values = result.user_values[example.measure]
        if family.bounded:
            assert ((values >= 0) & (values <= 1)).all(), example.measure
        measure = parse(example.measure, k=k)
        exact = result.exact_values[example.measure]
        assert hasattr(exact, "exact_mean") == measure.exact
        averaged = not isinstance(exact, (Total, GeometricMean, GlobalPrecision))
        assert measure.is_a_mean == averaged, example.measure
        not_means |= set() if averaged else {type(exact).__name__}
    assert not_means == {"Total", "GeometricMean", "GlobalPrecision"}


def _evaluated(example: Example) -> tuple[ScoreResult, int]:
    """The worked example scored, and its ``k``."""
    solution, submission, k = example_frames(example)
    result = evaluate(
        solution,
        submission,
        "id",
        k=k,
        metrics=[example.measure],
        grade_column_name="grades" if example.graded() else None,
        empty_ground_truth=example.empty_ground_truth,
    )
    return result, k


def test_families_that_ignore_grades_see_only_the_threshold() -> None:
    """Raising every grade above the threshold changes no binary family's value, and
    changes some graded family's value (so ``uses_grades`` is not a blanket label)."""
    solution = pd.DataFrame({"id": ["u1"], "items": ["a b c d"], "g": ["1 1 1 0"]})
    raised = solution.assign(g=["3 2 1 0"])
    submission = pd.DataFrame({"id": ["u1"], "items": ["c x a d"]})
    names = [variant.name for variant in MEASURES]
    kwargs = {"k": 4, "metrics": names, "grade_column_name": "g"}
    flat = evaluate(solution, submission, "id", **kwargs)
    steep = evaluate(raised, submission, "id", **kwargs)
    for name in flat.metrics:
        changed = not np.array_equal(flat.user_values[name], steep.user_values[name])
        if not parse(name, k=4).uses_grades:
            assert not changed, name
    graded = [n for n in flat.metrics if parse(n, k=4).uses_grades]
    assert all(not np.array_equal(flat.user_values[n], steep.user_values[n]) for n in graded), (
        "every graded family reads the grades"
    )
