"""What the registry declares about a measure family: its parameters, worked examples,
perfect value and properties (:class:`Family`). The families themselves are in
:mod:`scorer.measures.registry`; the names other tools give them in
:mod:`scorer.measures.names`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from scorer.constraints import Choices, Constraint


@dataclass(frozen=True)
class Param:
    """One parameter of a measure family.

    Attributes
    ----------
    name : str
    constraint : Constraint
        Its allowed values (:mod:`scorer.constraints`): the check of a value written in
        a name, its message, the docs' wording and the values tests try.
    default : str, int, Fraction or None
        The value when the name does not give one (``None``: from the data, or none
        at all for a ``required`` parameter).
    metavar : str
        The letter the help and the docs write for a number (``B``, ``G``).
    default_doc : str
        The default in words, when it comes from the data.
    required : bool
        The name must give it (``IPrec(recall=0.1)``).
    """

    name: str
    constraint: Constraint
    default: str | int | Fraction | None
    metavar: str = ""
    default_doc: str = ""
    required: bool = False

    def check_text(self, family: str, text: str, whole: str) -> Any:
        """The value written in the name ``whole``, or a :class:`HostVisibleError`."""
        return self.constraint.check_text(self.name, text.strip(), family, whole)

    def text(self, value: Any) -> str:
        """The value as a name writes it (``Fraction(1, 2)``: ``0.5``)."""
        return self.constraint.text(value)

    def shown(self) -> str:
        """The values as the help writes them: ``exp|linear``, or the metavar."""
        if isinstance(self.constraint, Choices):
            return "|".join(self.constraint.values)
        return self.metavar

    def docs(self) -> str:
        """The parameter in the docs' table of measures."""
        if isinstance(self.constraint, Choices):
            return f"`{self.name}=" + "` | `".join(self.constraint.values) + "`"
        default = (
            "required"
            if self.required
            else f"default {self.default_doc or self.text(self.default)}"
            if self.default_doc or self.default is not None
            else "default: none"
        )
        return f"`{self.name}={self.metavar}` ({self.constraint.wording()}, {default})"


AVG = Param("avg", Choices(("macro", "micro")), "macro")
"""``avg=macro`` (the mean of per-row values) or ``avg=micro`` (Σ numerators /
Σ denominators over the scored rows): declared by each family whose per-row value is
a natural ratio of counts."""


MEAN = Param("mean", Choices(("arithmetic", "geometric")), "arithmetic")
"""``mean=geometric``: the run's value is exp(mean of log(max(value, 0.00001))) over
the scored rows (trec_eval's ``gm_map`` and ``gm_bpref``); each row keeps its own value."""


@dataclass(frozen=True)
class Example:
    """A worked example, checked by a test through ``evaluate``.

    Attributes
    ----------
    measure : str
        The measure as written, e.g. ``"MAP(norm=hits)@4"`` (parsed as any name is).
    ranked : str
        Each user's ranked predictions as grades in rank order (``0``: not relevant),
        users separated by ``" | "``: ``"1 0 1 1 0 1 0 0"``. Grades above 1 give the
        solution a grade column (then a ``0`` is a judged, non-relevant item).
    relevant : int or tuple of int
        Each user's |R| (one for all users, or one per user), retrieved or not; the
        relevant items no prediction retrieves have grade ``missed_grade``.
    value : Fraction or float
        The exact value (a ``Fraction``) for an exact family, else the float to
        ``tolerance``.
    tolerance : float
        ``0`` for an exact value.
    missed_grade : int
        The grade of each relevant item the ranking misses (``0``, with
        ``judged_zeros``: judged, non-relevant items the ranking misses).
    judged_zeros : bool
        Give the solution a grade column even without a grade above 1, so that each
        ``0`` is a judged, non-relevant item (the pair measures need them).
    confidences : str
        For a measure of scored predictions (``GAP``): each user's confidence, users
        separated by ``" | "`` as in ``ranked`` (``"-"`` for a user without a
        prediction, whose ranking is empty).
    empty_ground_truth : str
        The run's ``empty_ground_truth`` (``"zero"`` keeps users with |R| = 0).
    """

    measure: str
    ranked: str
    relevant: int | tuple[int, ...]
    value: Fraction | float
    tolerance: float = 0.0
    missed_grade: int = 1
    judged_zeros: bool = False
    confidences: str = ""
    empty_ground_truth: str = "skip"

    def rankings(self) -> list[list[int]]:
        """Each user's grades in rank order.

        Examples
        --------
        >>> Example("MRR@2", "1 0 | 0 1", 1, Fraction(3, 4)).rankings()
        [[1, 0], [0, 1]]
        """
        return [[int(g) for g in user.split()] for user in self.ranked.split("|")]

    def relevant_counts(self) -> list[int]:
        """Each user's |R|.

        Examples
        --------
        >>> Example("R@2", "1 | 0", (1, 10), Fraction(1, 2)).relevant_counts()
        [1, 10]
        """
        if isinstance(self.relevant, int):
            return [self.relevant] * len(self.rankings())
        return list(self.relevant)

    def graded(self) -> bool:
        """Whether the example needs a grade column (a grade above 1)."""
        grades = [g for user in self.rankings() for g in user]
        return self.judged_zeros or max([*grades, self.missed_grade]) > 1


@dataclass(frozen=True)
class Perfect:
    """The value of a perfect ranking under binary relevance.

    Attributes
    ----------
    text : str
        The value in words, for the docs' table.
    value : callable
        ``value(relevant, cutoff, **params)``: the value for a user with |R| =
        ``relevant`` whose first ``min(relevant, cutoff)`` predictions are relevant
        (``cutoff``: the run's ``k`` for a family without one); a ``Fraction`` for an
        exact family, a float for a float family.
    """

    text: str
    value: Callable[..., Fraction | float]


def _one(relevant: int, cutoff: int, **params: Any) -> Fraction:
    return Fraction(1)


def _retrieved_share(relevant: int, cutoff: int) -> Fraction:
    return Fraction(min(relevant, cutoff), relevant)


ONE = Perfect("1", _one)
RETRIEVED_SHARE = Perfect(
    "min(|R|,K) / |R|", lambda relevant, cutoff, **params: _retrieved_share(relevant, cutoff)
)


@dataclass(frozen=True)
class Family:
    """A measure family: its name, parameters, maths, properties and documentation.

    Attributes
    ----------
    name : str
        The canonical name, e.g. ``"nDCG"``.
    aliases : tuple of str
        Other accepted names (matched without regard to case, as the name is).
    compute : callable
        ``compute(judgements, cutoff, **params)``: the per-user values.
    params : tuple of Param
    has_cutoff : bool
        ``False`` for ``RPrec``, whose depth is each user's ``|R|``.
    whole_row : bool
        Without ``@K`` the measure reads the whole row (printed without a cut-off):
        the set measures. Else the cut-off defaults to ``k``.
    exact : bool
        Whether the values are exact fractions (else float64, as nDCG).
    exact_max_ranks : int, callable or None
        For a cut-off K past this, an exact family is float64 per user with a
        correctly rounded mean (AP past 20, ERR past 256), whatever the rows' widths:
        K alone decides, never the data; ``None``: exact at any depth; a callable of
        the parameters when they decide (``MRR(ranks=all)``).
    bounded : bool
        Whether every value lies in [0, 1].
    uses_grades : bool or callable
        Whether the values read the grades themselves (else only whether a grade
        reaches the relevance threshold); a callable of the parameters when they
        decide (``RBP(gain=binary)`` does not).
    perfect : Perfect
        The value of a perfect ranking (1 for most families).
    definition : str
        One line for the command line's help and the docs' table.
    examples : tuple of Example
        Worked examples with their exact values, checked by a test and shown in the
        docs' table.
    exponential : callable
        ``exponential(**params)``: whether the gains are ``2^grade - 1`` (then grades
        stop at 30; linear gains take grades up to 2^31).
    needs_non_relevant : bool
        Whether the values need judged, non-relevant items (a grade below the
        threshold, or candidates that are not relevant): a solution with neither is
        refused (``AUC``).
    scored : bool
        Whether it reads each submission cell as one scored prediction,
        ``label confidence`` (``GAP``): its values are then no mean over rows.
    reads : str
        For a family without a cut-off, what of each ranking it reads (the message
        refusing a cut-off says it).
    needs_cutoff : bool
        The value divides by K (``P``, ``F1``): no value over the whole ranking
        (``@all``).
    summed : bool
        The run's value is the sum of the per-user values, not their mean (trec_eval's
        ``num_ret``, ``num_rel``, ...).
    signed : bool
        A value may be negative (trec_eval's ``utility``).
    one_of : tuple of str
        Parameters of which a name may give at most one (``SetF``'s ``beta`` and
        ``beta2``).

    A family declares ``avg=macro|micro`` by listing :data:`AVG` among its ``params``
    (its values must then be the natural parts of a ratio of counts).
    """

    name: str
    aliases: tuple[str, ...]
    compute: Callable[..., Any]
    params: tuple[Param, ...] = ()
    has_cutoff: bool = True
    exact: bool = True
    exact_max_ranks: int | Callable[..., int | None] | None = None
    bounded: bool = True
    uses_grades: bool | Callable[..., bool] = False
    perfect: Perfect = ONE
    definition: str = ""
    examples: tuple[Example, ...] = ()
    whole_row: bool = False
    exponential: Callable[..., bool] = lambda **params: False
    needs_non_relevant: bool = False
    reads: str = ""
    scored: bool = False
    needs_cutoff: bool = False
    summed: bool = False
    signed: bool = False
    one_of: tuple[str, ...] = ()

    def param(self, name: str) -> Param | None:
        """The parameter of this name (case-insensitive), if any."""
        return next((p for p in self.params if p.name == name.lower()), None)

    @property
    def micro(self) -> bool:
        """Whether the family takes ``avg=micro``."""
        return AVG in self.params
