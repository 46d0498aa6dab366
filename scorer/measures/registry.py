"""The one registry of measures: every family, and the parsed :class:`Measure`.

Names are written ``Name(param=value,...)@cutoff`` (ir_measures' syntax), matched
without regard to case; a parsed :class:`Measure` prints back to its canonical name
(``str(parse("ndcg@10")) == "nDCG@10"``), which parses back to it. The parser
(:mod:`scorer.measures.names`, with the names trec_eval and ir_measures give the
families), the command line's help, the Codabench keys, the EvalAI entries and the
docs' tables all read :data:`REGISTRY`: adding a measure is one pure function over
:class:`~scorer.align.judgements.Judgements` plus one :class:`Family` here.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from scorer.align.judgements import Judgements
from scorer.constraints import Choices, Interval
from scorer.measures import binary, global_precision, graded, pairs, sets, trec
from scorer.measures.aggregates import GeometricMean, Total
from scorer.measures.average_precision import EXACT_MAX_WIDTH
from scorer.measures.exact_means import ExactMean, Floats, MicroRatios
from scorer.measures.family import (
    AVG,
    MEAN,
    RETRIEVED_SHARE,
    Example,
    Family,
    Param,
    Perfect,
    _retrieved_share,
)
from scorer.measures.global_precision import GlobalPrecision
from scorer.options import WHOLE_ROW

UserValues = ExactMean | Floats | GlobalPrecision | Total | GeometricMean

__all__ = ["AVG", "MEAN", "REGISTRY", "Example", "Family", "Measure", "Param", "Perfect"]


def _perfect_err(relevant: int, cutoff: int, max_grade: int | None = None) -> Fraction:
    stop = Fraction(1, 2 ** (1 if max_grade is None else max_grade))  # Pr of grade 1
    ranks = range(1, min(relevant, cutoff) + 1)
    return sum((Fraction(1, i) * stop * (1 - stop) ** (i - 1) for i in ranks), Fraction(0))


def _perfect_set_f(
    relevant: int, cutoff: int, beta: Fraction = Fraction(1), beta2: Fraction | None = None
) -> Fraction:
    found = min(relevant, cutoff)
    square = Fraction(beta) ** 2 if beta2 is None else Fraction(beta2)
    return (1 + square) * found / (square * relevant + found)


def _perfect_dcg(
    relevant: int, cutoff: int, gain: str = "exp", discount: str = "log2_i_plus_1"
) -> float:
    total = 0.0
    for rank in range(min(relevant, cutoff)):  # binary: every gain is 1, in rank order
        total += 1.0 / math.log2(rank + 2 if discount == "log2_i_plus_1" else max(rank + 1, 2))
    return total


def _perfect_r_precision(relevant: int, cutoff: int, mult: Fraction) -> Fraction:
    depth = relevant if mult == 1 else math.trunc(float(mult) * relevant + 0.9)
    return F(min(depth, relevant, cutoff), depth) if depth else F(0)


def _perfect_infap(relevant: int, cutoff: int) -> float:
    total, epsilon = 0.0, trec.INFAP_EPSILON
    for rank in range(min(relevant, cutoff)):  # every item above is relevant: n = 0
        if rank == 0:
            total += 1.0
        else:
            i = float(rank)
            total += 1.0 / (i + 1.0) + (i / (i + 1.0)) * (i / i) * (
                (i + epsilon) / (i + 2 * epsilon)
            )
    return total / relevant


def _perfect_iprec(relevant: int, cutoff: int, recall: Fraction) -> Fraction:
    needed = math.floor(float(recall) * relevant + 0.5)
    return F(1) if needed <= min(relevant, cutoff) and min(relevant, cutoff) else F(0)


def _perfect_ndcg_rel(relevant: int, cutoff: int) -> float:
    found = min(relevant, cutoff)
    whole = _perfect_dcg(relevant, cutoff, "linear") / _perfect_dcg(relevant, relevant, "linear")
    return (found + (relevant - found) * whole) / relevant


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
POSITIVE = Interval(Fraction, 0, None, "neither")
PERSISTENCE = Param("p", Interval(Fraction, 0, 1, "neither"), Fraction(9, 10), "P")
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
        (Param("norm", Choices(("min_k", "relevant", "hits")), "min_k"), MEAN),
        exact_max_ranks=EXACT_MAX_WIDTH,
        perfect=Perfect(
            "1; min(|R|,K) / |R| with `norm=relevant`",
            lambda relevant, cutoff, norm, **params: (
                _retrieved_share(relevant, cutoff) if norm == "relevant" else F(1)
            ),
        ),
        definition="AP@K, divided by min(|R|,K), |R| (trec_eval map_cut) or the hits; "
        "`mean=geometric`: the run's value is trec_eval's geometric mean (gm_map)",
        examples=(
            Example("MAP@4", RUNNING, 4, F(29, 48)),
            Example("MAP(norm=relevant)@4", RUNNING, 4, F(29, 48)),
            Example("MAP(norm=hits)@4", RUNNING, 4, F(29, 36)),
            Example("MAP@8", RUNNING, 4, F(37, 48)),
            Example("MAP@10", "1 1 1 1 1 1 1 1 1 1", 15, F(1)),
            Example("MAP(norm=relevant)@10", "1 1 1 1 1 1 1 1 1 1", 15, F(2, 3)),
            # gm_map: exp((log(1/2) + log(0.00001)) / 2), the second user finding nothing
            Example("MAP(mean=geometric)@2", "0 1 | 0 0", 1, 0.002236067977, 1e-12),
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
        needs_cutoff=True,
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
        needs_cutoff=True,
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
        (Param("ranks", Choices(("first", "all")), "first"),),
        exact_max_ranks=lambda ranks="first", **params: EXACT_MAX_WIDTH if ranks == "all" else None,
        perfect=Perfect(
            "1; Σ_{i≤min(|R|,K)} 1/i / |R| with `ranks=all`",
            lambda relevant, cutoff, ranks: (
                F(1)
                if ranks == "first"
                else sum((F(1, i) for i in range(1, min(relevant, cutoff) + 1)), F(0)) / relevant
            ),
        ),
        definition="1 / rank of the first hit within K, 0 without one; `ranks=all`: Σ 1 / rank "
        "over every hit within K, over |R| (MIND's and EB-NeRD's MRR; float64 for K over 20)",
        examples=(
            Example("MRR@8", RUNNING, 4, F(1)),
            Example("MRR@4", THREE_USERS, 1, F(4, 9)),
            Example("MRR(ranks=all)@8", RUNNING, 4, F(7, 16)),  # (1 + 1/3 + 1/4 + 1/6) / 4
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
        (Param("mult", Interval(Fraction, 0, None, "left"), F(1), "M"), AVG),
        has_cutoff=False,
        reads="each user's first |R| predictions",
        perfect=Perfect(
            "min(|R|,k) / |R|: 1 unless |R| is above the row's k",
            lambda relevant, cutoff, mult: _perfect_r_precision(relevant, cutoff, mult),
        ),
        definition="hits within the first |R| predictions / |R| (no cut-off); `mult=x`: hits "
        "within the first c / c, c = x·|R| + 0.9 truncated (trec_eval's Rprec_mult)",
        examples=(
            Example("RPrec", RUNNING, 4, F(3, 4)),
            Example("RPrec", "1 0 | 0 1 1", (1, 3), F(5, 6)),
            Example("RPrec(avg=micro)", "1 0 | 0 1 1", (1, 3), F(3, 4)),
        ),
    ),
    Family(
        "nDCG",
        (),
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
        "IDCG",
        ("ideal_dcg",),
        graded.ideal_dcg,
        (GAIN, DISCOUNT),
        exact=False,
        bounded=False,
        uses_grades=True,
        exponential=_exponential_gain,
        perfect=Perfect(
            "IDCG@K, whatever is ranked: Σ_{i≤min(|R|,K)} 1 / log2(i+1) (binary)",
            _perfect_dcg,
        ),
        definition="the DCG@K of the ideal ordering of the full ground truth (every judged "
        "item by grade, best first), whatever is ranked: nDCG's denominator",
        examples=(
            Example("IDCG@3", RUNNING, 4, 2.130929753571, 1e-12),
            Example("IDCG(discount=log2_i)@3", RUNNING, 4, 2.630929753571, 1e-12),
            Example("IDCG@3", GRADED, 3, 9.392789260714, 1e-12),
            Example("IDCG(gain=linear)@3", GRADED, 3, 4.761859507143, 1e-12),
        ),
    ),
    Family(
        "SetP",
        ("set_p", "set_precision"),
        sets.set_precision,
        (Param("norm", Choices(("retrieved", "min")), "retrieved"), AVG),
        whole_row=True,
        definition="|S∩R| / |S|, S the row's distinct items (or its first K), 0 for an empty S; "
        "`norm=min`: |S∩R| / min(|S|,|R|) (trec_eval's set_relative_P)",
        examples=(
            Example("SetP", PIN, 2, F(1, 3)),
            Example("SetP(norm=min)", PIN, 2, F(1, 2)),
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
        (
            Param("beta", POSITIVE, F(1), "B"),
            Param("beta2", POSITIVE, None, "B2"),
            AVG,
        ),
        whole_row=True,
        perfect=Perfect("(1+β²)·min(|R|,K) / (β²|R| + min(|R|,K))", _perfect_set_f),
        definition="(1+β²)·|S∩R| / (β²|R| + |S|), 0 without a hit (β = 1: 2|S∩R| / (|R| + |S|)); "
        "`beta2` gives β² itself (trec_eval's set_F.X: β² = X; set_F.4 is SetF(beta=2))",
        one_of=("beta", "beta2"),
        examples=(
            Example("SetF(beta2=2)", PIN, 2, F(3, 7)),  # trec_eval's set_F.2
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
    Family(
        "Bpref",
        (),
        trec.bpref,
        (MEAN,),
        has_cutoff=False,
        reads="each user's whole ranking",
        perfect=RETRIEVED_SHARE,
        definition="Σ over the relevant items ranked of 1 - min(n, |R|) / min(N, |R|), n the "
        "judged non-relevant items above it, N all of them (1 while n = 0), over |R| "
        "(trec_eval's bpref; unjudged items are skipped; `mean=geometric`: gm_bpref)",
        examples=(
            Example("Bpref", RUNNING, 4, F(3, 4), judged_zeros=True),  # (1 + 3/4 + 3/4 + 1/2) / 4
            Example("Bpref", RUNNING, 4, F(1)),  # nothing judged non-relevant
            # gm_bpref: exp((log 1 + log 0.00001) / 2)
            Example(
                "Bpref(mean=geometric)", "1 0 | 0 1", 1, 0.003162277660, 1e-12, judged_zeros=True
            ),
        ),
    ),
    Family(
        "infAP",
        (),
        trec.inferred_average_precision,
        has_cutoff=False,
        reads="each user's whole ranking",
        exact=False,
        perfect=Perfect(
            "just below min(|R|,k) / |R| (the ε terms)",
            lambda relevant, cutoff: _perfect_infap(relevant, cutoff),
        ),
        definition="inferred AP (Yilmaz and Aslam) in trec_eval's operations: at the relevant "
        "item of 0-based rank i > 0, 1/(i+1) + (i/(i+1))·((r-1+n)/i)·((r-1+ε)/(r-1+n+2ε)), r "
        "its place among the hits, n the judged non-relevant items above, ε = 0.00001; 1 at "
        "rank 0; over |R| (unjudged items skipped)",
        examples=(
            Example("infAP", RUNNING, 4, 0.770833041668, 1e-12, judged_zeros=True),
            Example("infAP", "0 1", 1, 0.5000049999, 1e-10, judged_zeros=True),
        ),
    ),
    Family(
        "YAAP",
        (),
        trec.yet_another_average_precision,
        has_cutoff=False,
        reads="each user's whole ranking",
        exact=False,
        bounded=False,
        signed=True,
        perfect=Perfect(
            "log((1 + min(|R|,k)) / (1 + |R| - min(|R|,k)))",
            lambda relevant, cutoff: math.log(
                (1 + min(relevant, cutoff)) / (1 + relevant - min(relevant, cutoff))
            ),
        ),
        definition="Robertson's smoothed AP in trec_eval's operations: log((1 + S) / (1 + |R| "
        "- S)), S the sum over the relevant items ranked of the hits so far / rank (yaap)",
        examples=(Example("YAAP", RUNNING, 4, 0.756326082181, 1e-12),),
    ),
    Family(
        "IPrec",
        (),
        trec.interpolated_precision,
        (Param("recall", Interval(Fraction, 0, 1), None, "X", required=True),),
        has_cutoff=False,
        reads="each user's whole ranking",
        perfect=Perfect(
            "1 while recall·|R| rounds to at most min(|R|,k), else 0",
            lambda relevant, cutoff, recall: _perfect_iprec(relevant, cutoff, recall),
        ),
        definition="interpolated precision at a recall level: c = recall·|R| rounded half away "
        "from zero (in float64, as trec_eval 10), the best precision i / rank_i over the "
        "hits from the max(c,1)-th on; 0 when fewer than c are ranked (iprec_at_recall)",
        examples=(
            Example("IPrec(recall=0)", RUNNING, 4, F(1)),
            Example("IPrec(recall=0.5)", RUNNING, 4, F(3, 4)),
            Example("IPrec(recall=1)", RUNNING, 4, F(2, 3)),
            Example("IPrec(recall=1)", RUNNING, 5, F(0)),
        ),
    ),
    Family(
        "IPrecAvg",
        (),
        trec.interpolated_precision_mean,
        has_cutoff=False,
        reads="each user's whole ranking",
        perfect=Perfect(
            "the share of the 11 levels that min(|R|,k) relevant items reach",
            lambda relevant, cutoff: (
                sum((_perfect_iprec(relevant, cutoff, level) for level in trec.RECALL_LEVELS), F(0))
                / len(trec.RECALL_LEVELS)
            ),
        ),
        definition="the mean of IPrec at recall 0, 0.1, ..., 1 (trec_eval's 11pt_avg)",
        examples=(Example("IPrecAvg", RUNNING, 4, F(109, 132)),),
    ),
    Family(
        "BinG",
        (),
        trec.binary_gain,
        has_cutoff=False,
        reads="each user's whole ranking",
        exact=False,
        perfect=RETRIEVED_SHARE,
        definition="Σ over the relevant items ranked of 1 / log2(2 + the items above it that "
        "are not relevant), over |R| (trec_eval's binG)",
        examples=(Example("BinG", RUNNING, 4, 0.690464876786, 1e-12),),
    ),
    Family(
        "G",
        (),
        trec.gain,
        has_cutoff=False,
        reads="each user's whole ranking",
        exact=False,
        uses_grades=True,
        perfect=RETRIEVED_SHARE,
        definition="Σ over the ranked items of grade g > 0 of g / log2(2 + C_i - S_i), S_i the "
        "grades up to rank i, C_i the ideal ordering's grades up to rank i each counted as at "
        "least 1; over the sum of the judged grades (trec_eval's G)",
        examples=(
            Example("G", RUNNING, 4, 0.690464876786, 1e-12),
            Example("G", GRADED, 3, 0.938488292262, 1e-12),
        ),
    ),
    Family(
        "nDCGRel",
        (),
        trec.ndcg_at_relevant,
        has_cutoff=False,
        reads="each user's whole ranking",
        exact=False,
        uses_grades=True,
        perfect=Perfect(
            "(m + (|R| - m)·DCG(m) / IDCG(|R|)) / |R|, m = min(|R|,k)",
            lambda relevant, cutoff: _perfect_ndcg_rel(relevant, cutoff),
        ),
        definition="nDCG (linear gains) at each ranked item of grade above 0, each such item "
        "not ranked counting the whole ranking's nDCG, over the judged items of grade above "
        "0 (trec_eval's ndcg_rel)",
        examples=(
            Example("nDCGRel", RUNNING, 4, 0.837592372766, 1e-12),
            Example("nDCGRel", GRADED, 3, 0.995147312948, 1e-12),
        ),
    ),
    Family(
        "RnDCG",
        (),
        trec.ndcg_at_levels,
        has_cutoff=False,
        reads="each user's whole ranking",
        exact=False,
        uses_grades=True,
        perfect=Perfect(
            "DCG(min(|R|,k)) / IDCG(|R|)",
            lambda relevant, cutoff: (
                _perfect_dcg(relevant, cutoff, "linear")
                / _perfect_dcg(relevant, relevant, "linear")
            ),
        ),
        definition="the mean of nDCG (linear gains) at each R-level, where the ideal "
        "ordering's grade drops, the ranking's DCG stopping at its length, and at that "
        "length when it is above the judged items of grade above 0 plus 1; 0 without a "
        "relevant item (trec_eval's Rndcg)",
        examples=(
            Example("RnDCG", RUNNING, 4, 0.823225701015, 1e-12),
            Example("RnDCG", GRADED, 3, 0.964999667374, 1e-12),
        ),
    ),
    Family(
        "RBP",
        (),
        trec.rank_biased_precision,
        (
            PERSISTENCE,
            Param("gain", Choices(("graded", "binary")), "graded"),
        ),
        has_cutoff=False,
        reads="each user's whole ranking",
        exact=False,
        uses_grades=lambda gain="graded", **params: gain == "graded",
        perfect=Perfect(
            "1 - p^min(|R|,k)",
            lambda relevant, cutoff, p, gain: 1.0 - float(p) ** min(relevant, cutoff),
        ),
        definition="rank-biased precision (1 - p) Σ_i gain_i p^(i-1): gains the grades over "
        "the user's largest judged grade when that is above 1 (trec_eval's rbp), or "
        "`gain=binary` 1 for a relevant item (ir_measures' RBP(rel=...))",
        examples=(
            Example("RBP(p=0.8)", RUNNING, 4, 0.495936, 1e-12),
            Example("RBP(p=0.5)", GRADED, 3, 0.6875, 1e-12),
            Example("RBP(p=0.5,gain=binary)", GRADED, 3, 0.8125, 1e-12),
        ),
    ),
    Family(
        "RBPResidual",
        (),
        trec.rank_biased_residual,
        (PERSISTENCE,),
        has_cutoff=False,
        reads="each user's whole ranking",
        exact=False,
        bounded=False,  # at most 1, but p^n + (1 - p) Σ p^i may round just past it
        perfect=Perfect("0 (nothing unjudged)", lambda relevant, cutoff, p: 0.0),
        definition="with an unjudged item ranked, p^n + (1 - p) Σ p^(i-1) over the unjudged "
        "items' ranks i, n the ranking's length: how much RBP could still rise; else 0 "
        "(trec_eval's rbp_resid)",
        examples=(
            Example("RBPResidual(p=0.5)", "1 0 1 0", 2, 0.375, 1e-12, missed_grade=0),
            Example("RBPResidual", "1 0", 1, 0.0, 1e-12, judged_zeros=True),
        ),
    ),
    Family(
        "Unjudged",
        ("unj",),
        trec.unjudged_share,
        needs_cutoff=True,
        perfect=Perfect("0", lambda relevant, cutoff: F(0)),
        definition="the unjudged items within the first K ranks, over K (trec_eval's unj)",
        examples=(
            Example("Unjudged@4", RUNNING, 4, F(1, 4)),
            Example("Unjudged@4", RUNNING, 4, F(0), judged_zeros=True),
        ),
    ),
    Family(
        "Judged",
        (),
        trec.judged_share,
        definition="the judged items among the first min(K, n) ranked (n the row's length), "
        "over min(K, n) (ir_measures' Judged@K)",
        examples=(
            Example("Judged@4", RUNNING, 4, F(3, 4)),
            Example("Judged@10", "0 1", 1, F(1), judged_zeros=True),
        ),
    ),
    Family(
        "Utility",
        (),
        trec.utility,
        tuple(
            Param(name, Interval(Fraction, -(10**4), 10**4, "neither"), F(value), name.upper())
            for name, value in (("a", 1), ("b", -1), ("c", 0), ("d", 0))
        ),
        has_cutoff=False,
        reads="each user's whole ranking",
        bounded=False,
        signed=True,
        perfect=Perfect(
            "a·m + c·(|R| - m) - d·|R|, m = min(|R|,k)",
            lambda relevant, cutoff, a, b, c, d: (
                a * min(relevant, cutoff) + c * (relevant - min(relevant, cutoff)) - d * relevant
            ),
        ),
        definition="a·(relevant ranked) + b·(others ranked) + c·(relevant not ranked) + "
        "d·(others not ranked), the last over a collection of 0 items as trec_eval without -N "
        "(trec_eval's utility)",
        examples=(
            Example("Utility", RUNNING, 4, F(0)),
            Example("Utility(b=-0.5,c=-1)", RUNNING, 5, F(1)),
        ),
    ),
    Family(
        "SetAP",
        (),
        sets.set_average_precision,
        whole_row=True,
        perfect=RETRIEVED_SHARE,
        definition="|S∩R|² / (|S|·|R|): SetP times SetR (trec_eval's set_map)",
        examples=(Example("SetAP", PIN, 2, F(1, 6)), Example("SetAP@2", PIN, 2, F(1, 4))),
    ),
    Family(
        "NumQ",
        (),
        trec.count_query,
        has_cutoff=False,
        reads="each user's whole ranking",
        bounded=False,
        summed=True,
        perfect=Perfect("1", lambda relevant, cutoff: F(1)),
        definition="1 per user: the run's value, their sum, is the number of users scored "
        "(trec_eval's num_q)",
        examples=(Example("NumQ", THREE_USERS, 1, F(3)),),
    ),
    Family(
        "NumRet",
        (),
        trec.count_retrieved,
        has_cutoff=False,
        reads="each user's whole ranking",
        bounded=False,
        summed=True,
        perfect=Perfect("min(|R|,k)", lambda relevant, cutoff: F(min(relevant, cutoff))),
        definition="the distinct items ranked (trec_eval's num_ret); "
        "the run's value is their sum over users, not their mean",
        examples=(Example("NumRet", RUNNING, 4, F(8)),),
    ),
    Family(
        "NumRel",
        (),
        trec.count_relevant,
        has_cutoff=False,
        reads="each user's whole ranking",
        bounded=False,
        summed=True,
        perfect=Perfect("|R|", lambda relevant, cutoff: F(relevant)),
        definition="|R| (trec_eval's num_rel); "
        "the run's value is their sum over users, not their mean",
        examples=(Example("NumRel", THREE_USERS, 1, F(3)),),
    ),
    Family(
        "NumRelRet",
        (),
        trec.count_relevant_retrieved,
        has_cutoff=False,
        reads="each user's whole ranking",
        bounded=False,
        summed=True,
        perfect=Perfect("min(|R|,k)", lambda relevant, cutoff: F(min(relevant, cutoff))),
        definition="the relevant items ranked (trec_eval's num_rel_ret); "
        "the run's value is their sum over users, not their mean",
        examples=(Example("NumRelRet", THREE_USERS, 1, F(2)),),
    ),
    Family(
        "NumNonRelJudgedRet",
        (),
        trec.count_non_relevant_retrieved,
        has_cutoff=False,
        reads="each user's whole ranking",
        bounded=False,
        summed=True,
        perfect=Perfect("0", lambda relevant, cutoff: F(0)),
        definition="the judged non-relevant items ranked (trec_eval's num_nonrel_judged_ret); "
        "the run's value is their sum over users, not their mean",
        examples=(Example("NumNonRelJudgedRet", RUNNING, 4, F(4), judged_zeros=True),),
    ),
)


@dataclass(frozen=True)
class Measure:
    """A parsed measure: a family, its parameters and its cut-off.

    Attributes
    ----------
    family : Family
    params : tuple of (str, value) pairs
        Every parameter of the family, in registry order, with its value.
    cutoff : int or None
        ``None`` for families without a cut-off (``RPrec``), for a set measure written
        without one (the whole row), and for a measure over the whole ranking
        (printed ``@all``: trec_eval's ``map``, ``ndcg``).

    Examples
    --------
    >>> from scorer.measures import parse
    >>> m = parse("ndcg(GAIN=Linear)@10", k=10)
    >>> str(m), m.key, m.params[0]
    ('nDCG(gain=linear)@10', 'ndcg_gain_linear_at_10', ('gain', 'linear'))
    >>> str(parse("ndcg", dialect="trec"))
    'nDCG(gain=linear)@all'
    """

    family: Family
    params: tuple[tuple[str, Any], ...]
    cutoff: int | None

    def __str__(self) -> str:
        pairs = zip(self.params, self.family.params, strict=True)
        shown = [f"{name}={p.text(value)}" for (name, value), p in pairs if value != p.default]
        text = self.family.name + (f"({','.join(shown)})" if shown else "")
        if self.cutoff is not None:
            return f"{text}@{self.cutoff}"
        return f"{text}@all" if self.family.has_cutoff and not self.family.whole_row else text

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

    @property
    def exact(self) -> bool:
        """Whether the run's value is the correctly rounded exact rational (a float64
        family, a geometric mean and an exact family past its exact depth are not)."""
        params = dict(self.params)
        depth = self.family.exact_max_ranks
        if callable(depth):
            depth = depth(**params)
        too_deep = depth is not None and (self.cutoff is None or self.cutoff > depth)
        geometric = params.get(MEAN.name) == "geometric"
        return self.family.exact and not too_deep and not geometric

    def perfect(self, relevant: int, k: int) -> Fraction | float:
        """The value of a perfect ranking for a user with ``relevant`` items (binary
        relevance), under the run's ``k``.

        Examples
        --------
        >>> from scorer.measures import parse
        >>> parse("MAP(norm=relevant)@3", k=3).perfect(5, k=3), parse("P@3").perfect(1, k=3)
        (Fraction(3, 5), Fraction(1, 3))
        """
        cutoff = k if self.cutoff is None else self.cutoff
        params = dict(self.params)
        params.pop(AVG.name, None)  # identical users: the micro and macro means agree
        params.pop(MEAN.name, None)  # and so do the arithmetic and geometric ones
        return self.family.perfect.value(relevant, cutoff, **params)

    @property
    def is_a_mean(self) -> bool:
        """Whether the run's value is the mean of the rows' values, which parts and
        paired statistics add up: not a sum (trec_eval's counts), not a geometric mean,
        nor a measure of the whole test set at once (GAP ranks every row's prediction
        against every other row's).

        Examples
        --------
        >>> from scorer.measures import parse
        >>> [parse(name).is_a_mean for name in ("MAP@10", "MAP(mean=geometric)", "NumRet", "GAP")]
        [True, False, False, False]
        """
        geometric = dict(self.params).get(MEAN.name) == "geometric"
        return not (self.family.summed or self.family.scored or geometric)

    @property
    def exponential(self) -> bool:
        """Whether the gains are ``2^grade - 1`` (grades then stop at 30)."""
        return self.family.exponential(**dict(self.params))

    @property
    def uses_grades(self) -> bool:
        """Whether the values read the grades themselves (not only the threshold)."""
        graded = self.family.uses_grades
        return graded(**dict(self.params)) if callable(graded) else graded

    def compute(self, judgements: Judgements) -> UserValues:
        """Each user's value of this measure (a pure function of ``judgements``); with
        ``avg=micro``, the same parts as :class:`MicroRatios`, whose mean is their ratio
        of sums; with ``mean=geometric`` or a summed family, values whose run value is
        their geometric mean or their sum (:mod:`scorer.measures.aggregates`)."""
        cutoff = self.cutoff
        if cutoff is None:
            whole_ranking = self.family.has_cutoff and not self.family.whole_row
            cutoff = WHOLE_ROW if whole_ranking else judgements.k
        params = dict(self.params)
        average = params.pop(AVG.name, "macro")
        mean = params.pop(MEAN.name, "arithmetic")
        values = self.family.compute(judgements, cutoff, **params)
        if average == "micro" and isinstance(values, ExactMean):
            return MicroRatios(values.numerator, values.denominator, values.scale)
        if mean == "geometric":
            return GeometricMean(values)
        return Total(values) if self.family.summed else values


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
    | `MAP@K` | `norm=min_k` \\| `relevant` \\| `hits`; `mean=arithmetic` \\| ...
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
    if callable(family.uses_grades):
        return "graded (binary with `gain=binary`)"
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
    depth = family.exact_max_ranks
    if not family.exact:
        return "float64"
    if callable(depth):  # a parameter's value decides (MRR's ranks=all)
        found = [
            f"`{p.name}={choice}`"
            for p in family.params
            for choice in getattr(p.constraint, "values", ())
            if depth(**{p.name: choice}) is not None
        ]
        return f"rational (float64 for K over {EXACT_MAX_WIDTH} with {', '.join(found)})"
    if depth is None:
        return "rational"
    return f"rational (float64 for K over {depth})"


def _examples_text(examples: Iterable[Example]) -> str:
    """The worked examples, grouped by ranking: ``ranking, |R|: name = value, ...``."""
    groups: dict[tuple[str, tuple[int, ...], int, str, bool], list[str]] = {}
    for example in examples:
        shown = str(example.value) if isinstance(example.value, Fraction) else repr(example.value)
        key = (
            example.ranked,
            tuple(example.relevant_counts()),
            example.missed_grade,
            example.confidences,
            example.graded(),
        )
        groups.setdefault(key, []).append(f"{example.measure} = {shown}")
    texts = []
    for (ranked, relevant, missed_grade, confidences, judged), values in groups.items():
        users = [f"`{user.strip()}`" for user in ranked.split("|")]
        if confidences:  # scored predictions: each row's hit and its confidence
            scores = [score.strip() for score in confidences.split("|")]
            users = [
                "`-`" if score == "-" else f"`{user.strip('`')} {score}`"
                for user, score in zip(users, scores, strict=True)
            ]
        missed = f", missed items of grade {missed_grade}" if missed_grade != 1 else ""
        missed += ", every 0 judged non-relevant" if judged else ""
        if len(set(relevant)) == 1:
            each = " each" if len(users) > 1 else ""
            sizes = f"|R| = {relevant[0]}{each}"
        else:
            sizes = f"|R| = {', '.join(map(str, relevant))}"
        context = f"{', '.join(users)}, {sizes}{missed}"
        texts.append(f"{context}: {', '.join(values)}")
    return "; ".join(texts)
