"""Random cases for the measures' tests: users as (grades, predictions, split), their
solution and submission frames, the means the slow references expect of them, and
:func:`scorer.evaluate`'s result for them."""

from __future__ import annotations

import math
from fractions import Fraction

import pandas as pd
from hypothesis import strategies as st

from scorer import HostVisibleError, evaluate
from scorer.measures import REGISTRY
from tests.reference_measures import reference_parts, reference_value

ITEMS = list("abcdefg")

users = st.lists(
    st.tuples(
        st.dictionaries(st.sampled_from(ITEMS), st.integers(0, 3), max_size=6),  # item -> grade
        st.lists(st.sampled_from([*ITEMS, "x", "y"]), max_size=5),  # with repeats, empty rows
        st.sampled_from(["Public", "Private", "Ignored"]),
    ),
    min_size=1,
    max_size=8,
)


def frames(rows, graded: bool, usage: bool, width: int = 1):
    def item(name: str) -> str:
        return name * width

    solution = {
        "id": [f"u{i}" for i in range(len(rows))],
        "items": [" ".join(item(i) for i in truth) for truth, _, _ in rows],
    }
    if graded:
        solution["grades"] = [" ".join(str(g) for g in truth.values()) for truth, _, _ in rows]
    if usage:
        solution["Usage"] = [split for *_, split in rows]
    submission = {
        "id": [f"u{i}" for i in reversed(range(len(rows)))],
        "items": [" ".join(item(p) for p in predictions) for _, predictions, _ in reversed(rows)],
    }
    return pd.DataFrame(solution), pd.DataFrame(submission)


def expected_means(rows, measure, cutoff, params, graded, usage, threshold, empty):
    grades_of = [(truth if graded else dict.fromkeys(truth, 1)) for truth, _, _ in rows]
    solution_max = max((g for grades in grades_of for g in grades.values()), default=0)
    solution_max = solution_max if graded else 1
    values: dict[str, list] = {"all": [], "Public": [], "Private": []}
    for (_, predictions, split), grades in zip(rows, grades_of, strict=True):
        split = split if usage else None
        if split == "Ignored":
            continue
        if not any(g >= threshold for g in grades.values()) and empty == "skip":
            continue
        if params.get("avg") == "micro":
            relevant = {item for item, grade in grades.items() if grade >= threshold}
            value = reference_parts(measure, cutoff, params, predictions, relevant)
        else:
            value = reference_value(
                measure, cutoff, params, predictions, grades, threshold, solution_max
            )
        for name in ("all", split):
            if name:
                values[name].append(value)
    if params.get("avg") == "micro":  # Σ numerators / Σ denominators, 0 when that is 0
        sums = {
            name: [sum(part) for part in zip(*found, strict=True)]
            for name, found in values.items()
            if found
        }
        return {
            name: None
            if name not in sums
            else (sums[name][0] / sums[name][1] if sums[name][1] else Fraction(0))
            for name in values
        }
    family = next(f for f in REGISTRY if f.name == measure)
    if params.get("mean") == "geometric":  # trec_eval's gm_map, gm_bpref
        return {
            name: None if not found else Fraction(geometric_mean(found))
            for name, found in values.items()
        }
    return {  # exact fractions, and each float per user (nDCG) as its exact value
        name: None
        if not found
        else sum((Fraction(v) for v in found), Fraction(0)) / (1 if family.summed else len(found))
        for name, found in values.items()
    }


def geometric_mean(values) -> float:
    """exp of the mean of log(max(value, 0.00001)), the logarithms' mean exact."""
    logs = [math.log(max(float(v), 0.00001)) for v in values]
    return math.exp(float(sum((Fraction(v) for v in logs), Fraction(0)) / len(logs)))


def evaluate_or_none(solution, submission, k, names, empty, graded, threshold):
    """``evaluate`` with the measures' options; None when no user can be scored."""
    try:
        return evaluate(
            solution,
            submission,
            "id",
            k=k,
            metrics=names,
            empty_ground_truth=empty,
            grade_column_name="grades" if graded else None,
            relevance_threshold=threshold,
        )
    except HostVisibleError as error:
        assert "No user can be scored" in str(error)
        return None
