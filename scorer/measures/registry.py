"""The one registry of measures, and the parser of their names.

Names are written ``Name(param=value,...)@cutoff`` (ir_measures' syntax), matched
without regard to case; a parsed :class:`Measure` prints back to its canonical name
(``str(parse("ndcg@10")) == "nDCG@10"``). The parser, the command line's help, the
Codabench keys, the EvalAI entries and the docs' table all read :data:`REGISTRY`:
adding a measure is one pure function over
:class:`~scorer.align.judgements.Judgements` plus one :class:`Family` here.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from scorer.align.judgements import Judgements
from scorer.constraints import Choices, Constraint, Interval
from scorer.errors import HostVisibleError
from scorer.measures import binary, global_precision, graded, pairs, sets
from scorer.measures.average_precision import EXACT_MAX_WIDTH
from scorer.measures.exact_means import ExactMean, Floats, MicroRatios
from scorer.measures.global_precision import GlobalPrecision

UserValues = ExactMean | Floats | GlobalPrecision


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
        The value when the name does not give one (``None``: from the data).
    metavar : str
        The letter the help and the docs write for a number (``B``, ``G``).
    default_doc : str
        The default in words, when it comes from the data.
    """

    name: str
    constraint: Constraint
    default: str | int | Fraction | None
    metavar: str = ""
    default_doc: str = ""

    def check_text(self, family: str, text: str, whole: str) -> Any:
        """The value written in the name ``whole``, or a :class:`HostVisibleError`."""
        return self.constraint.check_text(self.name, text, family, whole)

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
        default = self.default_doc or self.text(self.default)
        return f"`{self.name}={self.metavar}` ({self.constraint.wording()}, default {default})"


AVG = Param("avg", Choices(("macro", "micro")), "macro")
"""``avg=macro`` (the mean of per-row values) or ``avg=micro`` (Σ numerators /
Σ denominators over the scored rows): declared by each family whose per-row value is
a natural ratio of counts."""


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


def _perfect_err(relevant: int, cutoff: int, max_grade: int | None = None) -> Fraction:
    stop = Fraction(1, 2 ** (1 if max_grade is None else max_grade))  # Pr of grade 1
    ranks = range(1, min(relevant, cutoff) + 1)
    return sum((Fraction(1, i) * stop * (1 - stop) ** (i - 1) for i in ranks), Fraction(0))


def _perfect_set_f(relevant: int, cutoff: int, beta: Fraction = Fraction(1)) -> Fraction:
    found, square = min(relevant, cutoff), Fraction(beta) ** 2
    return (1 + square) * found / (square * relevant + found)


def _perfect_dcg(
    relevant: int, cutoff: int, gain: str = "exp", discount: str = "log2_i_plus_1"
) -> float:
    total = 0.0
    for rank in range(min(relevant, cutoff)):  # binary: every gain is 1, in rank order
        total += 1.0 / math.log2(rank + 2 if discount == "log2_i_plus_1" else max(rank + 1, 2))
    return total


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
    exact_max_ranks : int or None
        For a cut-off K past this, an exact family is float64 per user with a
        correctly rounded mean (AP past 20, ERR past 256), whatever the rows' widths:
        K alone decides, never the data; ``None``: exact at any depth.
    bounded : bool
        Whether every value lies in [0, 1].
    uses_grades : bool
        Whether the values read the grades themselves (else only whether a grade
        reaches the relevance threshold).
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

    A family declares ``avg=macro|micro`` by listing :data:`AVG` among its ``params``
    (its values must then be the natural parts of a ratio of counts).
    """

    name: str
    aliases: tuple[str, ...]
    compute: Callable[..., UserValues]
    params: tuple[Param, ...] = ()
    has_cutoff: bool = True
    exact: bool = True
    exact_max_ranks: int | None = None
    bounded: bool = True
    uses_grades: bool = False
    perfect: Perfect = ONE
    definition: str = ""
    examples: tuple[Example, ...] = ()
    whole_row: bool = False
    exponential: Callable[..., bool] = lambda **params: False
    needs_non_relevant: bool = False
    reads: str = ""
    scored: bool = False

    def param(self, name: str) -> Param | None:
        """The parameter of this name (case-insensitive), if any."""
        return next((p for p in self.params if p.name == name.lower()), None)

    @property
    def micro(self) -> bool:
        """Whether the family takes ``avg=micro``."""
        return AVG in self.params


RUNNING = "1 0 1 1 0 1 0 0"  # the running example, with |R| = 4
THREE_USERS = "1 0 0 0 | 0 0 1 0 | 0 0 0 0"  # first hits at rank 1, rank 3 and none
GRADED = "3 2 0 1"  # grades in rank order, the same four items judged
PIN = "1 0 0"  # |S| = 3 with one hit; with |R| = 2: set F1 2/5, F1@10 2/12
TWO_ROWS = "1 0 0 | 1 1"  # with |R| = 2 each: micro and macro set measures differ
ORDERED = "0 1 | 1 0 0"  # AUC: one row with a pair wrong, one with every pair right
GAIN = Param("gain", Choices(("exp", "linear")), "exp")
DISCOUNT = Param("discount", Choices(graded.DISCOUNTS), "log2_i_plus_1")
MAX_GRADE = Param(
    "max_grade", Interval(int, 0, graded.ERR_MAX_GRADE), None, "G", "the solution's largest grade"
)
# GAP: one prediction per row; by confidence the order is rows 2 (hit), 0 (miss),
# 1 (hit), 3 (a false positive: |R| = 0): (1/1 + 2/3) / 4, M = 4 (row 4 has no
# prediction and still counts).
LANDMARKS = "0 | 1 | 1 | 0 | "
LANDMARK_CONFIDENCES = "0.8 | 0.5 | 0.9 | 0.3 | -"
F = Fraction


def _exponential_gain(gain: str = "exp", **params: Any) -> bool:
    return gain == "exp"


def _always(**params: Any) -> bool:
    return True


REGISTRY: tuple[Family, ...] = (
    Family(
        "MAP",
        ("ap",),
        binary.mean_average_precision,
        (Param("norm", Choices(("min_k", "relevant", "hits")), "min_k"),),
        exact_max_ranks=EXACT_MAX_WIDTH,
        perfect=Perfect(
            "1; min(|R|,K) / |R| with `norm=relevant`",
            lambda relevant, cutoff, norm: (
                _retrieved_share(relevant, cutoff) if norm == "relevant" else F(1)
            ),
        ),
        definition="AP@K, divided by min(|R|,K), |R| (trec_eval map_cut) or the hits",
        examples=(
            Example("MAP@4", RUNNING, 4, F(29, 48)),
            Example("MAP(norm=relevant)@4", RUNNING, 4, F(29, 48)),
            Example("MAP(norm=hits)@4", RUNNING, 4, F(29, 36)),
            Example("MAP@8", RUNNING, 4, F(37, 48)),
            Example("MAP@10", "1 1 1 1 1 1 1 1 1 1", 15, F(1)),
            Example("MAP(norm=relevant)@10", "1 1 1 1 1 1 1 1 1 1", 15, F(2, 3)),
        ),
    ),
    Family(
        "P",
        ("precision", "prec"),
        binary.precision,
        (AVG,),
        perfect=Perfect(
            "min(|R|,K) / K",
            lambda relevant, cutoff: F(min(relevant, cutoff), cutoff),
        ),
        definition="hits / K (a short row still divides by K, as trec_eval)",
        examples=(
            Example("P@4", RUNNING, 4, F(3, 4)),
            Example("P@8", RUNNING, 4, F(4, 8)),
            Example("P(avg=micro)@4", THREE_USERS, 1, F(1, 6)),
        ),
    ),
    Family(
        "R",
        ("recall",),
        binary.recall,
        (Param("norm", Choices(("relevant", "min_k")), "relevant"), AVG),
        perfect=Perfect(
            "min(|R|,K) / |R|; 1 with `norm=min_k`",
            lambda relevant, cutoff, norm: (
                _retrieved_share(relevant, cutoff) if norm == "relevant" else F(1)
            ),
        ),
        definition="hits / |R|, or hits / min(|R|,K) (OTTO's recall@20)",
        examples=(
            Example("R@4", RUNNING, 4, F(3, 4)),
            Example("R@2", RUNNING, 4, F(1, 4)),
            Example("R(norm=min_k)@2", RUNNING, 4, F(1, 2)),
            Example("R(norm=min_k)@20", "1 | 0", (1, 10), F(1, 2)),
            Example("R(norm=min_k,avg=micro)@20", "1 | 0", (1, 10), F(1, 11)),  # OTTO's
        ),
    ),
    Family(
        "F1",
        ("f", "fmeasure"),
        binary.f1,
        (AVG,),
        perfect=Perfect(
            "2·min(|R|,K) / (K + |R|)",
            lambda relevant, cutoff: F(2 * min(relevant, cutoff), cutoff + relevant),
        ),
        definition="2·P·R / (P + R) = 2·hits / (K + |R|), 0 without a hit",
        examples=(
            Example("F1@4", RUNNING, 4, F(3, 4)),
            Example("F1@8", RUNNING, 4, F(2, 3)),
            Example("F1@10", PIN, 2, F(2, 12)),  # divides by K: SetF gives 2/5
            Example("F1@2", "1 0 | 0 0", (1, 3), F(1, 3)),
            Example("F1(avg=micro)@2", "1 0 | 0 0", (1, 3), F(1, 4)),
        ),
    ),
    Family(
        "MRR",
        ("rr", "recip_rank"),
        binary.reciprocal_rank,
        definition="1 / rank of the first hit within K, 0 without one",
        examples=(
            Example("MRR@8", RUNNING, 4, F(1)),
            Example("MRR@4", THREE_USERS, 1, F(4, 9)),
        ),
    ),
    Family(
        "HitRate",
        ("hit_rate", "hr", "success"),
        binary.hit_rate,
        (AVG,),
        definition="1 if any hit within K, else 0",
        examples=(
            Example("HitRate@2", THREE_USERS, 1, F(1, 3)),
            Example("HitRate@3", THREE_USERS, 1, F(2, 3)),
            Example("HitRate(avg=micro)@3", THREE_USERS, 1, F(2, 3)),
        ),
    ),
    Family(
        "RPrec",
        ("r_prec", "rprecision", "r-precision"),
        binary.r_precision,
        (AVG,),
        has_cutoff=False,
        reads="each user's first |R| predictions",
        perfect=Perfect(
            "min(|R|,k) / |R|: 1 unless |R| is above the row's k",
            lambda relevant, cutoff: _retrieved_share(relevant, cutoff),
        ),
        definition="hits within the first |R| predictions / |R| (no cut-off)",
        examples=(
            Example("RPrec", RUNNING, 4, F(3, 4)),
            Example("RPrec", "1 0 | 0 1 1", (1, 3), F(5, 6)),
            Example("RPrec(avg=micro)", "1 0 | 0 1 1", (1, 3), F(3, 4)),
        ),
    ),
    Family(
        "nDCG",
        ("ndcg_cut",),
        graded.ndcg,
        (GAIN, DISCOUNT, Param("ideal", Choices(("truth", "hits")), "truth")),
        exact=False,
        uses_grades=True,
        exponential=_exponential_gain,
        definition="DCG@K / IDCG@K, gain 2^grade - 1 or grade, rank i discounted by log2(i+1) "
        "or (`discount=log2_i`) log2(max(i,2)), the ideal from the full truth or "
        "(`ideal=hits`) from the hits within K only; 0 when the ideal is 0",
        examples=(
            Example("nDCG@3", RUNNING, 4, 0.703918089034, 1e-12),
            Example("nDCG@8", RUNNING, 4, 0.892753790770, 1e-12),
            Example("nDCG(ideal=hits)@3", RUNNING, 4, 0.919720789148, 1e-12),
            Example("nDCG(discount=log2_i)@3", RUNNING, 4, 0.619906233284, 1e-12),
            Example("nDCG(discount=log2_i,ideal=hits)@3", RUNNING, 4, 0.815464876786, 1e-12),
            Example("nDCG(gain=linear)@3", GRADED, 3, 0.894999002123, 1e-12),
            Example("nDCG@3", GRADED, 3, 0.946767676127, 1e-12),
            Example("nDCG(gain=linear)@4", GRADED, 4, 0.824331372073, 1e-12, missed_grade=2),
            Example("nDCG@4", GRADED, 4, 0.861412229214, 1e-12, missed_grade=2),
        ),
    ),
    Family(
        "ERR",
        (),
        graded.err,
        (MAX_GRADE,),
        exact_max_ranks=graded.ERR_EXACT_MAX_RANKS,
        uses_grades=True,
        exponential=_always,
        perfect=Perfect(
            "ERR@K of the ideal ordering, below 1 (binary: Σ_{i≤min(|R|,K)} p(1-p)^(i-1) / i, "
            "p = 2^-G)",
            _perfect_err,
        ),
        definition="Σ (1/i)·Pr_i·Π_{j<i}(1 - Pr_j), Pr = (2^grade - 1) / 2^max_grade",
        examples=(
            Example("ERR@4", GRADED, 3, F(1845, 2048)),
            Example("ERR(max_grade=3)@4", GRADED, 3, F(1845, 2048)),  # G defaults to 3
            Example("ERR(max_grade=4)@4", GRADED, 3, F(8149, 16384)),
        ),
    ),
    Family(
        "nERR",
        (),
        graded.normalized_err,
        (MAX_GRADE,),
        exact_max_ranks=graded.ERR_EXACT_MAX_RANKS,
        uses_grades=True,
        exponential=_always,
        definition="ERR@K / ERR@K of the ideal ordering of the full truth",
        examples=(
            Example("nERR@3", GRADED, 3, F(276, 277)),
            Example("nERR@4", GRADED, 3, F(1107, 1108)),
            Example("nERR(max_grade=4)@4", GRADED, 3, F(8149, 8188)),
        ),
    ),
    Family(
        "DCG",
        ("dcg_cut",),
        graded.dcg,
        (GAIN, DISCOUNT),
        exact=False,
        bounded=False,
        uses_grades=True,
        exponential=_exponential_gain,
        perfect=Perfect(
            "IDCG@K: Σ_{i≤min(|R|,K)} 1 / log2(i+1) (binary; log2(max(i,2)) with `log2_i`)",
            _perfect_dcg,
        ),
        definition="Σ_{i≤K} gain_i / log2(i+1), or / log2(max(i,2)) with `discount=log2_i`, "
        "unnormalised (nDCG's numerator)",
        examples=(
            Example("DCG@3", RUNNING, 4, 1.5, 1e-12),
            Example("DCG(discount=log2_i)@3", RUNNING, 4, 1.630929753571, 1e-12),
            Example("DCG@3", GRADED, 3, 8.892789260714373, 1e-12),
            Example("DCG(gain=linear)@3", GRADED, 3, 4.2618595071429155, 1e-12),
            Example("DCG@4", GRADED, 3, 9.323465818787767, 1e-12),
        ),
    ),
    Family(
        "SetP",
        ("set_p", "set_precision"),
        sets.set_precision,
        (AVG,),
        whole_row=True,
        definition="|S∩R| / |S|, S the row's distinct items (or its first K), 0 for an empty S",
        examples=(
            Example("SetP", PIN, 2, F(1, 3)),
            Example("SetP@2", PIN, 2, F(1, 2)),
            Example("SetP", TWO_ROWS, 2, F(2, 3)),
            Example("SetP(avg=micro)", TWO_ROWS, 2, F(3, 5)),
        ),
    ),
    Family(
        "SetR",
        ("set_r", "set_recall"),
        sets.set_recall,
        (AVG,),
        whole_row=True,
        perfect=RETRIEVED_SHARE,
        definition="|S∩R| / |R|",
        examples=(
            Example("SetR", PIN, 2, F(1, 2)),
            Example("SetR", "1 | 0 0", (1, 4), F(1, 2)),
            Example("SetR(avg=micro)", "1 | 0 0", (1, 4), F(1, 5)),
        ),
    ),
    Family(
        "SetF",
        ("set_f", "set_f1", "setf1"),
        sets.set_f,
        (Param("beta", Interval(Fraction, 0, None, "neither"), F(1), "B"), AVG),
        whole_row=True,
        perfect=Perfect("(1+β²)·min(|R|,K) / (β²|R| + min(|R|,K))", _perfect_set_f),
        definition="(1+β²)·|S∩R| / (β²|R| + |S|), 0 without a hit (β = 1: 2|S∩R| / (|R| + |S|))",
        examples=(
            Example("SetF", PIN, 2, F(2, 5)),  # F1@10 of the same row: 2/12
            Example("SetF(beta=2)", PIN, 2, F(5, 11)),
            Example("SetF(beta=0.5)", PIN, 2, F(5, 14)),
            Example("SetF", TWO_ROWS, 2, F(7, 10)),
            Example("SetF(avg=micro)", TWO_ROWS, 2, F(2, 3)),
        ),
    ),
    Family(
        "Jaccard",
        ("iou",),
        sets.jaccard,
        (AVG,),
        whole_row=True,
        perfect=RETRIEVED_SHARE,
        definition="|S∩R| / (|S| + |R| - |S∩R|): intersection over union, 0 when both are empty",
        examples=(
            Example("Jaccard", PIN, 2, F(1, 4)),
            Example("Jaccard@1", PIN, 2, F(1, 2)),
            Example("Jaccard", TWO_ROWS, 2, F(5, 8)),
            Example("Jaccard(avg=micro)", TWO_ROWS, 2, F(1, 2)),
        ),
    ),
    Family(
        "AUC",
        ("gauc", "group_auc"),
        pairs.auc,
        has_cutoff=False,
        reads="each user's whole ranking",
        needs_non_relevant=True,
        definition="share of (relevant, judged non-relevant) pairs ranked in order; unranked "
        "items after ranked ones, a pair of two unranked ones counts half; 1 without a "
        "non-relevant item (MIND's AUC)",
        examples=(
            Example("AUC", RUNNING, 4, F(3, 4), judged_zeros=True),
            Example("AUC", RUNNING, 5, F(3, 5), judged_zeros=True),
            Example("AUC", "0 1", 2, F(1, 2), judged_zeros=True, missed_grade=0),
            Example("AUC", ORDERED, 1, F(1, 2), judged_zeros=True),
            Example("AUC", "1 1", 2, F(1), judged_zeros=True),  # no non-relevant item
        ),
    ),
    Family(
        "GAP",
        ("global_average_precision", "micro_ap"),
        global_precision.global_average_precision,
        has_cutoff=False,
        reads="each row's one scored prediction",
        scored=True,
        definition="(1/M) Σ_i P(i)·rel(i) over every row's one 'label confidence' prediction, "
        "sorted by confidence descending across rows (ties: row id ascending); M: rows with "
        "a non-empty truth; no mean over rows (Landmark Recognition's GAP)",
        examples=(
            Example("GAP", "1 | 0 | 1", 1, F(5, 9), confidences="0.9 | 0.5 | 0.2"),
            Example("GAP", "1 | 0 | 1", 1, F(7, 18), confidences="0.2 | 0.5 | 0.2"),  # tie
            Example(
                "GAP",
                LANDMARKS,
                (1, 1, 1, 0, 1),
                F(5, 12),
                confidences=LANDMARK_CONFIDENCES,
                empty_ground_truth="zero",
            ),
        ),
    ),
)

_BY_NAME: dict[str, Family] = {
    name.lower(): family for family in REGISTRY for name in (family.name, *family.aliases)
}
_SYNTAX = re.compile(
    r"\s*(?P<name>[A-Za-z][\w\-]*)\s*(?:\((?P<params>[^()]*)\))?\s*(?:@\s*(?P<cutoff>[^@]*?))?\s*"
)
_MAX_NAME_CHARS = 200
_EXAMPLES = "e.g. 'MAP@12', 'nDCG(gain=linear)@10', 'R(norm=min_k)@20', 'RPrec'"


@dataclass(frozen=True)
class Measure:
    """A parsed measure: a family, its parameters and its cut-off.

    Attributes
    ----------
    family : Family
    params : tuple of (str, value) pairs
        Every parameter of the family, in registry order, with its value.
    cutoff : int or None
        ``None`` for families without a cut-off (``RPrec``), and for a set measure
        written without one (the whole row).

    Examples
    --------
    >>> m = parse("ndcg(GAIN=Linear)@10", k=10)
    >>> str(m), m.key, m.params[0]
    ('nDCG(gain=linear)@10', 'ndcg_gain_linear_at_10', ('gain', 'linear'))
    """

    family: Family
    params: tuple[tuple[str, Any], ...]
    cutoff: int | None

    def __str__(self) -> str:
        pairs = zip(self.params, self.family.params, strict=True)
        shown = [f"{name}={p.text(value)}" for (name, value), p in pairs if value != p.default]
        text = self.family.name + (f"({','.join(shown)})" if shown else "")
        return text if self.cutoff is None else f"{text}@{self.cutoff}"

    def __repr__(self) -> str:
        return f"Measure({str(self)!r})"

    @property
    def name(self) -> str:
        """The canonical name, ``str(self)``."""
        return str(self)

    @property
    def key(self) -> str:
        """The Codabench / EvalAI key: lower case, ``@`` -> ``_at_``, other runs of
        non-alphanumerics -> ``_`` (``nDCG(gain=linear)@10`` -> ``ndcg_gain_linear_at_10``)."""
        return codabench_key(str(self))

    def perfect(self, relevant: int, k: int) -> Fraction | float:
        """The value of a perfect ranking for a user with ``relevant`` items (binary
        relevance), under the run's ``k``.

        Examples
        --------
        >>> parse("MAP(norm=relevant)@3", k=3).perfect(5, k=3), parse("P@3").perfect(1, k=3)
        (Fraction(3, 5), Fraction(1, 3))
        """
        cutoff = k if self.cutoff is None else self.cutoff
        params = dict(self.params)
        params.pop(AVG.name, None)  # identical users: the micro and macro means agree
        return self.family.perfect.value(relevant, cutoff, **params)

    @property
    def exponential(self) -> bool:
        """Whether the gains are ``2^grade - 1`` (grades then stop at 30)."""
        return self.family.exponential(**dict(self.params))

    def compute(self, judgements: Judgements) -> UserValues:
        """Each user's value of this measure (a pure function of ``judgements``); with
        ``avg=micro``, the same parts as :class:`MicroRatios`, whose mean is their ratio
        of sums."""
        cutoff = judgements.k if self.cutoff is None else self.cutoff
        params = dict(self.params)
        average = params.pop(AVG.name, "macro")
        values = self.family.compute(judgements, cutoff, **params)
        if average == "micro" and isinstance(values, ExactMean):
            return MicroRatios(values.numerator, values.denominator, values.scale)
        return values


def codabench_key(name: str) -> str:
    """A canonical name as a leaderboard key.

    Examples
    --------
    >>> codabench_key("nDCG(gain=linear)@10"), codabench_key("MAP@12"), codabench_key("RPrec")
    ('ndcg_gain_linear_at_10', 'map_at_12', 'rprec')
    """
    text = name.lower().replace("@", "_at_")
    return re.sub(r"[^a-z0-9]+", "_", text).strip("_")


def canonical_names() -> list[str]:
    """Every family's canonical name, in registry order."""
    return [family.name for family in REGISTRY]


def _unknown(text: object, why: str = "") -> HostVisibleError:
    return HostVisibleError(
        f"The 'metrics' parameter must name a measure among {canonical_names()} "
        f"({_EXAMPLES}){why}. Got {text!r} instead."
    )


def parse(text: str | Measure, k: int = 10, normalization: str = "min_k") -> Measure:
    """Parse ``Name(param=value,...)@cutoff`` into a :class:`Measure`.

    Parameters
    ----------
    text : str or Measure
        The name, in any case; a Measure is returned as it is (its cut-off checked).
    k : int, default 10
        The run's ``k``: the cut-off when none is written, and the largest allowed.
    normalization : str, default "min_k"
        MAP's ``norm`` when the name does not give one (``evaluate``'s ``normalization=``).

    Raises
    ------
    HostVisibleError
        Unknown name or parameter, a bad value, or a cut-off outside [1, k]; the
        message lists the valid choices.

    Examples
    --------
    >>> str(parse("map")), str(parse("Recall(norm=min_k)@5")), str(parse("rprec"))
    ('MAP@10', 'R(norm=min_k)@5', 'RPrec')
    >>> str(parse("MAP@12", k=12, normalization="relevant"))
    'MAP(norm=relevant)@12'
    >>> parse("mapp@5")
    Traceback (most recent call last):
    ...
    scorer.errors.HostVisibleError: The 'metrics' parameter must name a measure among ['MAP', ...
    """
    if isinstance(text, Measure):
        _check_cutoff(text.cutoff, k, str(text))
        return text
    # A name is short; a bound keeps the regular expression linear whatever it is given.
    short = isinstance(text, str) and len(text) <= _MAX_NAME_CHARS
    match = _SYNTAX.fullmatch(text) if short else None
    if match is None:
        raise _unknown(text, ", written Name(param=value,...)@cutoff")
    family = _BY_NAME.get(match["name"].lower())
    if family is None:
        raise _unknown(text)
    values = _parse_params(family, match["params"], text)
    if family.name == "MAP" and "norm" not in values:
        values["norm"] = family.params[0].check_text(family.name, normalization, text)
    params = tuple((p.name, values.get(p.name, p.default)) for p in family.params)
    return Measure(family, params, _parse_cutoff(family, match["cutoff"], k, text))


def parse_all(
    texts: str | Measure | Iterable[str | Measure] | None,
    k: int = 10,
    normalization: str = "min_k",
) -> tuple[Measure, ...]:
    """Parse several names (default ``MAP@k``); a name given twice is kept once.

    Examples
    --------
    >>> [str(m) for m in parse_all(["ndcg@5", "MAP", "nDCG(gain=exp)@5"], k=5)]
    ['nDCG@5', 'MAP@5']
    """
    if texts is None:
        texts = ["MAP"]  # the cut-off is k, however many digits k has
    elif isinstance(texts, (str, Measure)):
        texts = [texts]
    measures = [parse(t, k, normalization) for t in texts]
    if not measures:
        raise HostVisibleError(
            f"The 'metrics' parameter must name at least one measure ({_EXAMPLES}). Got [] instead."
        )
    return tuple({str(m): m for m in measures}.values())


def _parse_params(family: Family, text: str | None, whole: str) -> dict[str, Any]:
    values: dict[str, Any] = {}
    if text is None or not text.strip():
        return values
    for item in text.split(","):
        name, equals, value = (part.strip() for part in item.partition("="))
        param = family.param(name)
        if param is None or not equals:
            valid = [p.name for p in family.params]
            raise HostVisibleError(
                f"The parameters of {family.name} must be among {valid}"
                + ("" if valid else " (it takes none)")
                + f", written name=value. Got {item.strip()!r} in {whole!r} instead."
            )
        values[param.name] = param.check_text(family.name, value, whole)
    return values


def _parse_cutoff(family: Family, text: str | None, k: int, whole: str) -> int | None:
    if not family.has_cutoff:
        if text is not None:
            raise HostVisibleError(
                f"{family.name} takes no cut-off: it reads {family.reads}. "
                f"Write {family.name!r}. Got {whole!r} instead."
            )
        return None
    if text is None and family.whole_row:
        return None
    if text is None or text.strip().lower() == "k":
        return k
    if not re.fullmatch(r"\d{1,100}", text.strip()):  # any k a host may give, bounded
        raise HostVisibleError(
            f"The cut-off of {whole!r} must be an int in the range [1, {k}]. Got {text!r} instead."
        )
    cutoff = int(text)
    _check_cutoff(cutoff, k, whole)
    return cutoff


def _check_cutoff(cutoff: int | None, k: int, whole: str) -> None:
    if cutoff is not None and not 1 <= cutoff <= k:
        raise HostVisibleError(
            f"The cut-off of {whole!r} must be an int in the range [1, {k}] (no row may hold "
            f"more than k={k} predictions: raise k for a larger cut-off). Got {cutoff!r} instead."
        )


def describe(families: Mapping[str, Family] | None = None) -> str:
    """One line per family, for the command line's help.

    Examples
    --------
    >>> print(describe().splitlines()[1])
    P(avg=macro|micro)@K: hits / K (a short row still divides by K, as trec_eval)
    """
    lines = []
    for family in REGISTRY if families is None else families.values():
        params = ",".join(f"{p.name}={p.shown()}" for p in family.params)
        name = family.name + (f"({params})" if params else "") + _cutoff_text(family)
        lines.append(f"{name}: {family.definition}")
    return "\n".join(lines)


def markdown_table() -> str:
    """The docs' table of measures, from the registry (``python tools/tables.py``
    writes it there; a test keeps them equal).

    Examples
    --------
    >>> print(markdown_table().splitlines()[2])
    | `MAP@K` | `norm=min_k` \\| `relevant` \\| `hits` | AP@K, ... | rational (float64 for K ...
    """
    lines = [
        "| measure | parameters (default first) | per user | exact? | range | perfect ranking "
        "| relevance | worked examples |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for family in REGISTRY:
        params = "; ".join(p.docs() for p in family.params)
        cells = [
            f"`{family.name}{_cutoff_text(family)}`",
            params or "-",
            family.definition,
            _exactness(family),
            "[0, 1]" if family.bounded else "unbounded",
            family.perfect.text,
            _relevance_text(family),
            _examples_text(family.examples),
        ]
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines)


def _relevance_text(family: Family) -> str:
    if family.uses_grades:
        return "graded"
    if family.needs_non_relevant:
        return "binary, with judged non-relevant items (grades below the threshold or candidates)"
    return "binary"


def _cutoff_text(family: Family) -> str:
    if family.whole_row:
        return "[@K]"
    return "@K" if family.has_cutoff else ""


def _exactness(family: Family) -> str:
    if not family.exact:
        return "float64"
    if family.exact_max_ranks is None:
        return "rational"
    return f"rational (float64 for K over {family.exact_max_ranks})"


def _examples_text(examples: Iterable[Example]) -> str:
    """The worked examples, grouped by ranking: ``ranking, |R|: name = value, ...``."""
    groups: dict[tuple[str, tuple[int, ...], int, str], list[str]] = {}
    for example in examples:
        shown = str(example.value) if isinstance(example.value, Fraction) else repr(example.value)
        key = (
            example.ranked,
            tuple(example.relevant_counts()),
            example.missed_grade,
            example.confidences,
        )
        groups.setdefault(key, []).append(f"{example.measure} = {shown}")
    texts = []
    for (ranked, relevant, missed_grade, confidences), values in groups.items():
        users = [f"`{user.strip()}`" for user in ranked.split("|")]
        if confidences:  # scored predictions: each row's hit and its confidence
            scores = [score.strip() for score in confidences.split("|")]
            users = [
                "`-`" if score == "-" else f"`{user.strip('`')} {score}`"
                for user, score in zip(users, scores, strict=True)
            ]
        missed = f", missed items of grade {missed_grade}" if missed_grade != 1 else ""
        if len(set(relevant)) == 1:
            each = " each" if len(users) > 1 else ""
            sizes = f"|R| = {relevant[0]}{each}"
        else:
            sizes = f"|R| = {', '.join(map(str, relevant))}"
        context = f"{', '.join(users)}, {sizes}{missed}"
        texts.append(f"{context}: {', '.join(values)}")
    return "; ".join(texts)
