"""The fuzzer's partials target: a partial's text as an untrusted worker could send it.

Seeds are real partials (``score_part`` on small runs: Usage and not, graded, micro and
float measures, target types, the Poisson replicates, an invalid submission), as JSON
text. Each example takes one and changes a few of its values (a count, a sum, a key, a
record's words, the settings, whole objects: numbers past every bound, negative ones,
huge digit strings, other types, deep nesting), sometimes with the settings'
fingerprint written again (as a forger would), or replaces the text with anything.
It fails unless the text ends in a partial or a ``HostVisibleError``, the partial's
finish in a result or the error ``evaluate`` would raise (a ``ScorerError``), and a
partial merged with itself in a ``HostVisibleError`` (the same part twice); a result's
bounded measures must lie in [0, 1].
"""

from __future__ import annotations

import json
import math
from functools import cache
from typing import Any

import pandas as pd
from hypothesis import strategies as st

from scorer.errors import HostVisibleError, ScorerError
from scorer.measures import parse
from scorer.partial import Partial, finish, merge, score_part

_IDS = [f"u{i}" for i in range(6)]


@cache
def seed_texts() -> tuple[str, ...]:
    """Real partials' texts, one per shape a worker sends."""
    solution = pd.DataFrame(
        {
            "id": _IDS,
            "items": ["a b", "c", "", "d e f", "a", "b c"],
            "grades": ["2 1", "1", "", "3 1 0", "1", "1 2"],
            "Usage": ["Public", "Private", "Public", "Ignored", "Private", "Public"],
        }
    )
    submission = pd.DataFrame({"id": _IDS, "items": ["a c", "c x", "q", "f d", "", "c b a"]})
    typed = pd.DataFrame({"id": ["s1_a", "s1_b", "s2_a", "s2_b"], "items": ["a", "b c", "", "d"]})
    runs = [
        (solution.drop(columns="grades"), submission, {"k": 3}),
        (solution, submission, {"metrics": ["nDCG@3", "ERR@3", "DCG@3", "AUC"],
                                "grade_column_name": "grades"}),
        (solution.drop(columns=["grades", "Usage"]), submission,
         {"metrics": ["R(avg=micro)@3", "MAP@3", "SetF"], "resamples": 4, "seed": 3}),
        (typed, typed, {"row_id_type_separator": "_", "metrics": ["P@2", "RPrec"],
                        "resamples": 2}),
        (solution.drop(columns="grades"), submission.iloc[1:], {"k": 1}),
    ]  # fmt: skip
    return tuple(score_part(s, t, "id", **options).to_json() for s, t, options in runs)


_BIG = 10**30
_VALUES = st.one_of(
    st.integers(-(2**70), 2**70),
    st.sampled_from([0, 1, -1, 2**31, 2**62, 2**63, 2**64, _BIG, -_BIG]),
    st.sampled_from(["", "0", "-5", "9" * 5000, "f" * 5000, "1" * 300, "{rows:>9999}", "x"]),
    st.text(max_size=6),
    st.none(),
    st.booleans(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.lists(st.integers(-3, 3), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(-3, 3), max_size=2),
)


def _places(data: Any, path: tuple = ()) -> list[tuple]:
    """Every key and index of the decoded JSON, each a path from the top."""
    found = [path]
    if isinstance(data, (dict, list)):
        for key, value in data.items() if isinstance(data, dict) else enumerate(data):
            found += _places(value, (*path, key))
    return found


@st.composite
def partial_texts(draw: st.DrawFn) -> str:
    """A seed partial's text with a few values changed, or any text at all."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.one_of(st.text(max_size=40), st.just("[" * 50_000 + "]" * 50_000)))
    data = json.loads(draw(st.sampled_from(seed_texts())))
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(_places(data)[1:]))
        parent = data
        for key in path[:-1]:
            parent = parent[key]
        if isinstance(parent, dict) and draw(st.integers(0, 5)) == 0:
            del parent[path[-1]]
        else:
            parent[path[-1]] = draw(_VALUES)
    if isinstance(data.get("settings"), dict) and draw(st.booleans()):
        data["fingerprint"] = Partial(data["settings"]).fingerprint  # a forger's own
    return json.dumps(data)


def check_partial_text(text: str) -> None:
    """Fail unless the text ends in a partial or a ``HostVisibleError``, and the
    partial's finish in a result (its bounded measures in [0, 1]) or a ``ScorerError``."""
    try:
        partial = Partial.from_json(text)
    except HostVisibleError:
        return
    if partial.parts:
        try:
            merge(partial, partial)
        except HostVisibleError:
            pass
        else:
            raise AssertionError("a partial merged with itself was not refused")
    try:
        result = finish(partial)
    except ScorerError:
        return
    for name, value in result.metrics.items():
        assert math.isfinite(value), (name, value)
        if parse(name).family.bounded:
            assert 0 <= value <= 1, (name, value)
