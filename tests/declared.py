"""The values tests try, from the declarations alone: every measure family of the
registry with each value its parameters' constraints sample, and each option's samples
(``scorer.constraints``). A new family, parameter or option is tried by every test that
iterates these, without editing a test."""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

import pandas as pd
from hypothesis import strategies as st

from scorer import HostVisibleError, evaluate
from scorer.constraints import Choices, Constraint, Interval
from scorer.measures import REGISTRY, Family, parse
from scorer.measures.registry import Param
from scorer.options import OPTION, OPTIONS, Option, Options

#: The largest grade in the tests' solutions (they draw grades 0 to 3): a parameter value
#: that only the data can refuse (ERR's ``max_grade`` below the solution's largest grade)
#: is tried when a solution holding this grade takes it.
LARGEST_GRADE = 3


class Variant(NamedTuple):
    """One family with one choice of parameters: ``("MAP", "(norm=hits)", {"norm": "hits"})``
    (the parameters as parsed: ``{"beta": Fraction(1, 2)}``)."""

    measure: str
    written: str
    params: dict

    @property
    def family(self) -> Family:
        return next(family for family in REGISTRY if family.name == self.measure)

    @property
    def name(self) -> str:
        return self.measure + self.written

    def at(self, cutoff: int) -> str:
        """The name at a cut-off (none for a family without one)."""
        return f"{self.name}@{cutoff}" if self.family.has_cutoff else self.name


@functools.cache
def _taken(family: Family, name: str) -> bool:
    """Whether a run whose solution holds :data:`LARGEST_GRADE` (and a judged,
    non-relevant item) takes the measure ``name``; a value it refuses must be refused
    in the parameter's own words (:func:`refused_by_the_data`). Each name is run once
    per test process (the tests' collection asks for most of them several times)."""
    solution = pd.DataFrame({"id": ["u"], "items": ["a b"], "g": [f"{LARGEST_GRADE} 0"]})
    submission = pd.DataFrame({"id": ["u"], "items": ["a"]})
    try:
        evaluate(solution, submission, "id", metrics=[name], grade_column_name="g")
    except HostVisibleError:
        return False
    return True


def param_values(family: Family, param: Param) -> list[tuple[str, Any]]:
    """Each value the parameter's constraint samples but its default, as written and as
    parsed; a number only if a solution of grades up to :data:`LARGEST_GRADE` takes it;
    none that the name holds as another parameter (``SetF(beta2=0.0001)`` is
    ``SetF(beta=0.01)``: its ``beta`` sample)."""
    found: dict[Any, str] = {}
    for text in param.constraint.valid_samples(written=True):
        value = param.constraint.parse(text)
        if value == param.default or value in found:
            continue
        if dict(parse(f"{family.name}({param.name}={text})").params)[param.name] != value:
            continue
        choice = isinstance(param.constraint, Choices)
        if choice or _taken(family, f"{family.name}({param.name}={text})"):
            found[value] = text
    return [(text, value) for value, text in found.items()]


def refused_by_the_data() -> list[tuple[str, str]]:
    """The measures (``name``, parameter) whose sampled value a solution of grades up to
    :data:`LARGEST_GRADE` refuses."""
    return [
        (f"{family.name}({param.name}={text})", param.name)
        for family in REGISTRY
        for param in family.params
        if not isinstance(param.constraint, Choices)
        for text in param.constraint.valid_samples(written=True)
        if not _taken(family, f"{family.name}({param.name}={text})")
    ]


def variants(family: Family) -> list[Variant]:
    """The family with its defaults (and its required parameters' first samples), then
    each other sampled value of each parameter."""
    required = {
        p.name: (p.constraint.valid_samples(written=True)[0], p)
        for p in family.params
        if p.required
    }
    found = [_variant(family, {name: text for name, (text, _) in required.items()})]
    for param in family.params:
        found += [
            _variant(family, {**{n: t for n, (t, _) in required.items()}, param.name: text})
            for text, _ in param_values(family, param)
            if text != required.get(param.name, ("",))[0]
        ]
    return found


def _variant(family: Family, written: dict[str, str]) -> Variant:
    """The family with the parameters ``written`` (name: text)."""
    params = {name: family.param(name).constraint.parse(text) for name, text in written.items()}
    shown = ",".join(f"{name}={text}" for name, text in written.items())
    return Variant(family.name, f"({shown})" if shown else "", params)


# Every family of the registry that reads ranked item lists, with every parameter value
# (GAP reads one scored prediction per row: tests/test_global_precision.py).
MEASURES = [variant for family in REGISTRY if not family.scored for variant in variants(family)]


def judged_by(variant: Variant, graded: bool) -> bool:
    """Whether a run's solution judges what the variant needs: binary relevance without
    candidates judges no item non-relevant, and ``AUC`` refuses it."""
    return graded or not variant.family.needs_non_relevant


def binary_names(names: list[str]) -> list[str]:
    """``names`` without the measures that binary relevance (no candidates) refuses."""
    return [n for n in names if not parse(n, k=10**6).family.needs_non_relevant]


def written_values(constraint: Constraint) -> st.SearchStrategy[str]:
    """Any value the constraint takes, as a measure's name writes it: its samples, or for
    a number any multiple of its step between its smallest and largest samples."""
    samples = constraint.valid_samples(written=True)
    if not isinstance(constraint, Interval):
        return st.sampled_from(samples)
    steps = sorted(int(constraint.parse(text) / constraint.step) for text in samples)
    between = st.integers(steps[0], steps[-1]).map(lambda n: constraint.text(n * constraint.step))
    return st.sampled_from(samples) | between


def choices(name: str) -> st.SearchStrategy[str]:
    """Any value of the option ``name`` (a :class:`Choices`) that a table takes."""
    return st.sampled_from(table_values(name))


def table_values(name: str) -> list[str]:
    """The values of the option ``name`` (a :class:`Choices`) that :class:`Options` takes
    with every other option at its default (a table): its declaration's values less
    those a rule of :data:`~scorer.options.COMBINATIONS` refuses there
    (``missing_rows="skip"`` is for trec_eval files)."""
    return [value for value in OPTION[name].constraint.values if _taken_alone(name, value)]


def _taken_alone(name: str, value: Any) -> bool:
    try:
        Options(**{name: value})
    except HostVisibleError:
        return False
    return True


def other_value(option: Option) -> Any:
    """A valid value of the option other than its default (its constraint's first; any
    object for one checked where it is used without a sample, such as ``limits``)."""
    others = [v for v in option.constraint.valid_samples() if v != option.default]
    return others[0] if others else object()


#: Every option with a flag of its own, by name.
FLAGGED = {option.name: option for option in OPTIONS if option.flags}
