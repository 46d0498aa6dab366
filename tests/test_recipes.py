"""Recipes (scorer.recipes): each competition's recipe against a slow re-implementation of
the host's published definition, on synthetic data of that competition's shape with the
host's column names; the registry, overrides, unknown names, the command line and the
adapters."""

from __future__ import annotations

import json
import math
import random
import re
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import scorer
from scorer.adapters import cli, evalai
from scorer.adapters.codabench import score_directories
from scorer.errors import HostVisibleError, ParticipantVisibleError
from scorer.measures import parse_all
from scorer.options import OPTION, Options
from scorer.recipes import RECIPE, RECIPES, Recipe, apply_recipe, find_recipe, list_recipes

# ---------------------------------------------------------------------------------------
# Slow references, written from each host's published definition.


def kaggle_ap(truth: set[str], predicted: list[str], k: int) -> Fraction | None:
    """AP@k as Kaggle's MAP pages define it: at each rank i <= k holding a relevant id
    not seen before, the precision at i; summed and divided by min(|truth|, k). None for
    an empty truth."""
    if not truth:
        return None
    total, hits = Fraction(0), 0
    for i, item in enumerate(predicted[:k]):
        if item in truth and item not in predicted[:i]:
            hits += 1
            total += Fraction(hits, i + 1)
    return total / min(len(truth), k)


def reciprocal_rank(truth: set[str], predicted: list[str], k: int) -> Fraction:
    """1 / rank of the first relevant id within the first k, 0 without one."""
    for i, item in enumerate(predicted[:k]):
        if item in truth:
            return Fraction(1, i + 1)
    return Fraction(0)


def mean(values: list[Fraction | None], empty: str = "skip") -> Fraction:
    """The mean over rows: an empty truth (None) left out (``skip``) or 0 (``zero``)."""
    kept = [value if value is not None else Fraction(0) for value in values]
    if empty == "skip":
        kept = [value for value in values if value is not None]
    return sum(kept, Fraction(0)) / len(kept)


def ndcg(gains_in_rank_order: list[float], all_gains: list[float], k: int) -> float:
    """DCG@k / IDCG@k with DCG = Σ gain_i / log2(i + 1); the ideal from every judged gain."""
    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains_in_rank_order[:k]))
    ideal = sorted(all_gains, reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def items(rng: random.Random, pool: list[str], low: int, high: int) -> list[str]:
    """Between ``low`` and ``high`` ids from ``pool``, some repeated."""
    chosen = [rng.choice(pool) for _ in range(rng.randint(low, high))]
    return chosen


def ids(prefix: str, count: int, width: int = 6) -> list[str]:
    return [f"{prefix}{i:0{width}d}" for i in range(count)]


COVERED: set[str] = set()  # the recipes a reference test below covers


def covers(*names: str) -> list[str]:
    COVERED.update(names)
    return list(names)


# ---------------------------------------------------------------------------------------
# MAP@K and MRR@K competitions: one row per row id, a space-separated list.

# recipe: (row-id column, target column, k, empty-truth rule, |truth| low..high)
WIDE_MAP = {
    "h-and-m-2022": ("customer_id", "prediction", 12, "skip", (0, 5)),
    "santander-2016": ("ncodpers", "added_products", 7, "zero", (0, 3)),
    "coupon-2015": ("USER_ID_hash", "PURCHASED_COUPONS", 10, "zero", (0, 2)),
    "expedia-2016": ("id", "hotel_cluster", 5, "skip", (1, 1)),
    "humpback-whale-2019": ("Image", "Id", 5, "skip", (1, 1)),
    "happywhale-2022": ("image", "predictions", 5, "skip", (1, 1)),
    "landmark-retrieval-2021": ("id", "images", 100, "skip", (0, 8)),
    "llm-science-exam-2023": ("id", "prediction", 3, "skip", (1, 1)),
    "eedi-2024": ("QuestionId_Answer", "MisconceptionId", 25, "skip", (1, 1)),
    "eedi-2025": ("row_id", "Category:Misconception", 3, "skip", (1, 1)),
    "hotel-id-2021": ("image", "hotel_id", 5, "skip", (1, 1)),
}


@pytest.mark.parametrize("name", covers(*WIDE_MAP))
def test_map_recipes_equal_kaggles_definition(name: str) -> None:
    row_id, target, k, empty, (low, high) = WIDE_MAP[name]
    rng = random.Random(name)
    pool = ids("0", 3 * k + 4, 9)
    if name == "llm-science-exam-2023":
        pool = list("ABCDE")
    if name == "eedi-2025":
        pool = [f"{c}:{m}" for c in ("True_Correct", "False_Misconception") for m in "ABN"]
    row_ids = ids("r", 60)
    truths = [sorted(set(rng.sample(pool, rng.randint(low, high)))) for _ in row_ids]
    longest = k + 5 if RECIPE[name].options.get("extra_predictions") == "truncate" else k
    predicted = [items(rng, pool, 0, longest) for _ in row_ids]
    solution = pd.DataFrame({row_id: row_ids, target: [" ".join(t) for t in truths]})
    submission = pd.DataFrame({row_id: row_ids, target: [" ".join(p) for p in predicted]})
    expected = mean(
        [kaggle_ap(set(t), p, k) for t, p in zip(truths, predicted, strict=True)], empty
    )
    result = scorer.evaluate(solution, submission.sample(frac=1, random_state=1), recipe=name)
    assert result.metrics == {f"MAP@{k}": float(expected)}
    assert result.options.k == k and result.options.empty_ground_truth == empty
    assert scorer.score(solution, submission, recipe=name) == float(expected)
    if high == 1:  # one label per row: MAP@K is MRR@K
        mrr = mean([reciprocal_rank(set(t), p, k) for t, p in zip(truths, predicted, strict=True)])
        assert float(mrr) == float(expected)


def test_h_and_m_with_mle_bench_answers_needs_the_superset_rule() -> None:
    """mle-bench's answers list only customers with a purchase; the submission lists all."""
    answers = pd.DataFrame({"customer_id": ["c1", "c2"], "prediction": ["a b", "c"]})
    submission = pd.DataFrame(
        {"customer_id": ["c1", "c2", "c3"], "prediction": ["b a", "x c", "a"]}
    )
    with pytest.raises(ParticipantVisibleError, match=r"not in the sample submission"):
        scorer.evaluate(answers, submission, recipe="h-and-m-2022")
    result = scorer.evaluate(answers, submission, recipe="h-and-m-2022", unknown_row_ids="ignore")
    assert result.score == float(mean([kaggle_ap({"a", "b"}, ["b", "a"], 12), Fraction(1, 2)]))


@pytest.mark.parametrize("name", covers("outbrain-2017"))
def test_outbrain_ranks_each_displays_candidates(name: str) -> None:
    rng = random.Random(name)
    displays = ids("", 50)
    ads = {d: rng.sample(ids("ad", 400), rng.randint(2, 12)) for d in displays}
    clicked = {d: rng.choice(ads[d]) for d in displays}
    ranked = {d: rng.sample(ads[d], len(ads[d])) for d in displays}
    clicks_test = pd.DataFrame(
        [(d, ad) for d in displays for ad in ads[d]], columns=["display_id", "ad_id"]
    )
    solution = pd.DataFrame({"display_id": displays, "ad_id": [clicked[d] for d in displays]})
    submission = pd.DataFrame(
        {"display_id": displays, "ad_id": [" ".join(ranked[d]) for d in displays]}
    )
    expected = mean([kaggle_ap({clicked[d]}, ranked[d], 12) for d in displays])
    result = scorer.evaluate(solution, submission, recipe=name, candidates=clicks_test)
    assert result.score == float(expected)
    submission.loc[0, "ad_id"] = ranked[displays[0]][0]  # one ad of several: not a permutation
    with pytest.raises(ParticipantVisibleError, match=r"candidate"):
        scorer.evaluate(solution, submission, recipe=name, candidates=clicks_test)


@pytest.mark.parametrize("name", covers("kdd-cup-2023"))
def test_kdd_cup_2023_parquet_list_column(name: str, tmp_path: Path) -> None:
    rng = random.Random(name)
    sessions = ids("s", 80)
    asins = ids("B0", 150, 8)
    truth = [rng.choice(asins) for _ in sessions]
    predicted = [rng.sample(asins, rng.randint(0, 100)) for _ in sessions]
    solution_path, submission_path = tmp_path / "solution.parquet", tmp_path / "sub.parquet"
    pq.write_table(pa.table({"session_id": sessions, "next_item_prediction": truth}), solution_path)
    lists = pa.array(predicted, type=pa.list_(pa.string()))
    pq.write_table(
        pa.table({"session_id": sessions, "next_item_prediction": lists}), submission_path
    )
    expected = mean([reciprocal_rank({t}, p, 100) for t, p in zip(truth, predicted, strict=True)])
    assert scorer.score(solution_path, submission_path, recipe=name) == float(expected)


def trivago_reference(reference: str, recommendations: list[str]) -> Fraction:
    """The host's script: the reciprocal rank of the clicked item when it is listed once
    (score_submission/functions.py, get_reciprocal_ranks), else 0."""
    positions = [i for i, item in enumerate(recommendations) if item == reference]
    return Fraction(1, positions[0] + 1) if len(positions) == 1 else Fraction(0)


@pytest.mark.parametrize("name", covers("trivago-2019"))
def test_trivago_mean_reciprocal_rank_over_click_outs(name: str) -> None:
    rng = random.Random(name)
    keys = [f"u{i % 7}|s{i % 11}|{1541030400 + i}|{i % 9 + 1}" for i in range(70)]
    impressions = [rng.sample(ids("", 900), rng.randint(1, 25)) for _ in keys]
    clicked = [rng.choice(shown + ids("", 900)[:3]) for shown in impressions]
    ranked = [rng.sample(shown, len(shown)) for shown in impressions]  # a permutation
    solution = pd.DataFrame({"key": keys, "item_recommendations": clicked})
    submission = pd.DataFrame({"key": keys, "item_recommendations": [" ".join(r) for r in ranked]})
    expected = mean([trivago_reference(c, r) for c, r in zip(clicked, ranked, strict=True)])
    assert scorer.score(solution, submission, recipe=name) == float(expected)


@pytest.mark.parametrize("name", covers("dressipi-2022"))
def test_dressipi_long_file_with_ranks(name: str) -> None:
    rng = random.Random(name)
    sessions = ids("", 60)
    candidates = ids("i", 300)
    purchased = {s: rng.choice(candidates) for s in sessions}
    lists = {s: rng.sample(candidates, rng.randint(1, 100)) for s in sessions}
    rows = [(s, item, rank + 1) for s in sessions for rank, item in enumerate(lists[s])]
    rng.shuffle(rows)  # the ranks, not the file order, rank the items
    submission = pd.DataFrame(
        {
            "session_id": [r[0] for r in rows],
            "item_id": [r[1] for r in rows],
            "rank": [str(r[2]) for r in rows],
        }
    )
    solution = pd.DataFrame({"session_id": sessions, "item_id": [purchased[s] for s in sessions]})
    expected = mean([reciprocal_rank({purchased[s]}, lists[s], 100) for s in sessions])
    assert scorer.score(solution, submission, recipe=name) == float(expected)


# ---------------------------------------------------------------------------------------
# OTTO: three rows per session, micro recall@20 per type, weighted.

OTTO_WEIGHTS = {"clicks": Fraction(0.1), "carts": Fraction(0.3), "orders": Fraction(0.6)}


def otto_reference(
    labels: dict[str, dict[str, list[str]]], predictions: dict[str, dict[str, list[str]]]
) -> tuple[Fraction, dict[str, Fraction]]:
    """otto-de/recsys-dataset's evaluate.py: per type Σ hits / Σ min(20, |labels|) over the
    sessions of the labels; a click hit is the one clicked aid among the first 20, a cart
    or order hit counts set(first 20) ∩ labels; a session missing from the predictions
    predicts nothing; the total weighs the types 0.1 / 0.3 / 0.6."""
    recalls = {}
    for kind in OTTO_WEIGHTS:
        hits = denominator = 0
        for session, truth in labels.items():
            predicted = predictions.get(session, {}).get(kind, [])[:20]
            if not truth[kind]:
                continue
            if kind == "clicks":
                hits += truth[kind][0] in predicted
                denominator += 1
            else:
                hits += len(set(predicted) & set(truth[kind]))
                denominator += min(20, len(truth[kind]))
        recalls[kind] = Fraction(hits, denominator)
    return sum(OTTO_WEIGHTS[k] * recalls[k] for k in recalls), recalls


def otto_data(rng: random.Random, n_sessions: int):
    aids = [str(rng.randint(0, 1_855_602)) for _ in range(60)]
    sizes = {"clicks": (0, 1), "carts": (0, 5), "orders": (0, 4)}
    labels = {
        str(12899779 + s): {
            kind: rng.sample(aids, rng.randint(*size)) for kind, size in sizes.items()
        }
        for s in range(n_sessions)
    }
    predictions = {
        session: {kind: items(rng, aids, 0, 26) for kind in sizes}
        for session in labels
        if rng.random() > 0.1  # some sessions missing: they score 0
    }
    solution = pd.DataFrame(
        [
            (f"{s}_{kind}", " ".join(truth))
            for s, kinds in labels.items()
            for kind, truth in kinds.items()
        ],
        columns=["session_type", "labels"],
    )
    submission = pd.DataFrame(
        [
            (f"{s}_{kind}", " ".join(p))
            for s, kinds in predictions.items()
            for kind, p in kinds.items()
        ],
        columns=["session_type", "labels"],
    )
    return labels, predictions, solution, submission


@pytest.mark.parametrize("name", covers("otto-2023"))
def test_otto_equals_the_hosts_evaluate_py(name: str) -> None:
    labels, predictions, solution, submission = otto_data(random.Random(name), 80)
    total, recalls = otto_reference(labels, predictions)
    result = scorer.evaluate(solution, submission, recipe=name)
    measure = "R(norm=min_k,avg=micro)@20"
    assert result.score == float(total)
    assert {kind: values[measure] for kind, values in result.by_type.items()} == {
        kind: float(value) for kind, value in recalls.items()
    }
    assert next(w.code for w in result.warnings if w.audience == "participant") == "missing_rows"


# ---------------------------------------------------------------------------------------
# Set measures: the submitted ids as a set, no cut-off.


def set_f(truth: set[str], predicted: set[str], beta: int) -> Fraction:
    both = len(truth & predicted)
    if not both:
        return Fraction(0)
    precision, recall = Fraction(both, len(predicted)), Fraction(both, len(truth))
    return (1 + beta**2) * precision * recall / (beta**2 * precision + recall)


def iou(truth: set[str], predicted: set[str]) -> Fraction:
    union = truth | predicted
    return Fraction(len(truth & predicted), len(union)) if union else Fraction(0)


SET_RECIPES: dict[str, tuple[str, str, Callable[[set[str], set[str]], Fraction], bool]] = {
    "shopee-2021": ("posting_id", "matches", lambda t, p: set_f(t, p, 1), True),
    "foursquare-2022": ("id", "matches", iou, True),
    "learning-equality-2023": ("topic_id", "content_ids", lambda t, p: set_f(t, p, 2), False),
}


@pytest.mark.parametrize("name", covers("instacart-2017"))
def test_instacart_f1_with_none_as_an_item(name: str) -> None:
    """Kaggle's page: the mean over orders of F1 between the reordered products and the
    submitted ones, None standing for no reorder (a hit when both say None)."""
    rng = random.Random(name)
    orders = ids("", 80)
    products = ids("", 30, 4)
    truths = [
        set(rng.sample(products, rng.randint(1, 5))) if rng.random() < 0.7 else {"None"}
        for _ in orders
    ]
    predicted = [set(rng.sample(products, rng.randint(0, 6))) for _ in orders]
    predicted = [p | {"None"} if rng.random() < 0.3 else p for p in predicted]

    def cell(items: set[str], empty_for_none: bool) -> str:
        return "" if items == {"None"} and empty_for_none else " ".join(sorted(items))

    solution = pd.DataFrame(
        {"order_id": orders, "products": [cell(t, rng.random() < 0.5) for t in truths]}
    )
    submission = pd.DataFrame(
        {"order_id": orders, "products": [cell(p or {"None"}, not p) for p in predicted]}
    )
    expected = mean([set_f(t, p or {"None"}, 1) for t, p in zip(truths, predicted, strict=True)])
    assert scorer.score(solution, submission, recipe=name) == float(expected)


@pytest.mark.parametrize("name", covers(*SET_RECIPES))
def test_set_recipes_equal_their_pages_means(name: str) -> None:
    row_id, target, measure, self_match = SET_RECIPES[name]
    rng = random.Random(name)
    row_ids = ids("p", 60, 5)
    others = ids("c", 40, 5)
    truths = [set(rng.sample(others, rng.randint(1, 6))) for _ in row_ids]
    predicted = [items(rng, others, 0, 70) for _ in row_ids]  # past any K: no cut-off
    if self_match:  # a posting (a place) always matches itself
        truths = [t | {r} for t, r in zip(truths, row_ids, strict=True)]
        predicted = [
            [r, *p] if rng.random() > 0.2 else p for p, r in zip(predicted, row_ids, strict=True)
        ]
    solution = pd.DataFrame({row_id: row_ids, target: [" ".join(sorted(t)) for t in truths]})
    submission = pd.DataFrame({row_id: row_ids, target: [" ".join(p) for p in predicted]})
    expected = mean([measure(t, set(p)) for t, p in zip(truths, predicted, strict=True)])
    assert scorer.score(solution, submission, recipe=name) == float(expected)


# ---------------------------------------------------------------------------------------
# nDCG competitions: long files, grades.


@pytest.mark.parametrize("name", covers("airbnb-2016"))
def test_airbnb_ndcg_at_5_over_a_long_file(name: str) -> None:
    rng = random.Random(name)
    countries = ["NDF", "US", "other", "FR", "IT", "GB", "ES", "CA", "DE", "NL", "AU", "PT"]
    users = ids("u", 60)
    booked = {u: rng.choice(countries) for u in users}
    ranked = {u: rng.sample(countries, rng.randint(1, 5)) for u in users}
    rows = [(u, c) for u in users for c in ranked[u]]
    submission = pd.DataFrame(rows, columns=["id", "country"])
    solution = pd.DataFrame({"id": users, "country": [booked[u] for u in users]})
    # Kaggle's page: DCG@5 = Σ (2^rel_i - 1) / log2(i + 1), one relevant country (IDCG 1).
    values = [ndcg([float(c == booked[u]) for c in ranked[u]], [1.0], 5) for u in users]
    # The users' rows interleaved, each user's in its order: the same ranking.
    waiting = {u: list(ranked[u]) for u in users}
    interleaved = []
    while waiting:
        user = rng.choice(sorted(waiting))
        interleaved.append((user, waiting[user].pop(0)))
        if not waiting[user]:
            del waiting[user]
    interleaved = pd.DataFrame(interleaved, columns=["id", "country"])
    result = scorer.evaluate(solution, submission, recipe=name)
    assert result.score == pytest.approx(math.fsum(values) / len(values), rel=1e-12)
    assert scorer.score(solution, interleaved, recipe=name) == result.score


@pytest.mark.parametrize("name", covers("expedia-2013"))
def test_expedia_2013_graded_ndcg_at_38(name: str) -> None:
    rng = random.Random(name)
    searches = ids("", 50)
    shown = {s: rng.sample(ids("h", 2000), rng.randint(5, 38)) for s in searches}
    grades = {s: {h: rng.choice([0, 0, 0, 0, 1, 1, 5]) for h in shown[s]} for s in searches}
    grades[searches[0]] = dict.fromkeys(shown[searches[0]], 0)  # no click: not scored
    ranked = {s: rng.sample(shown[s], len(shown[s])) for s in searches}
    solution = pd.DataFrame(
        [(s, h, str(g)) for s in searches for h, g in grades[s].items()],
        columns=["SearchId", "PropertyId", "grade"],
    )
    submission = pd.DataFrame(
        [(s, h) for s in searches for h in ranked[s]], columns=["SearchId", "PropertyId"]
    )
    values = [
        ndcg(
            [2.0 ** grades[s][h] - 1 for h in ranked[s]],
            [2.0**g - 1 for g in grades[s].values()],
            38,
        )
        for s in searches
        if any(grades[s].values())
    ]
    result = scorer.evaluate(solution, submission, recipe=name)
    assert result.n_scored == len(values) == len(searches) - 1
    assert result.score == pytest.approx(math.fsum(values) / len(values), rel=1e-12)


def spotify_rules(truth: set[str], recommended: list[str]) -> tuple[Fraction, float]:
    """The rules of the RecSys Challenge 2018 at the track level, read literally:
    R-precision = |G ∩ R_{1:|G|}| / |G|; DCG = rel_1 + Σ_{i=2}^{|R|} rel_i / log2 i;
    IDCG = 1 + Σ_{i=2}^{|G ∩ R|} 1 / log2 i, 0 when G ∩ R is empty; NDCG = DCG / IDCG
    (0 when the IDCG is 0: then no track is relevant and the DCG is 0 too)."""
    r_precision = Fraction(len(truth & set(recommended[: len(truth)])), len(truth))
    rel = [1 if track in truth else 0 for track in recommended]
    dcg = rel[0] + sum(rel[i - 1] / math.log2(i) for i in range(2, len(rel) + 1))
    found = len(truth & set(recommended))
    idcg = 0.0 if not found else 1 + sum(1 / math.log2(i) for i in range(2, found + 1))
    return r_precision, dcg / idcg if idcg else 0.0


def spotify_metrics_py_ndcg(truth: set[str], recommended: list[str]) -> float:
    """The organisers' metrics.py (RecsysChallengeTools): DCG = Σ rel_i / log2(i + 1) over
    the first 500, IDCG the same of min(|G|, 500) ones."""
    dcg = sum(1 / math.log2(i + 2) for i, t in enumerate(recommended[:500]) if t in truth)
    idcg = sum(1 / math.log2(i + 2) for i in range(min(len(truth), 500)))
    return dcg / idcg


@pytest.mark.parametrize("name", covers("spotify-2018"))
def test_spotify_equals_the_rules_track_level(name: str) -> None:
    rng = random.Random(name)
    pids = [str(1000 + 7 * n) for n in range(40)]
    tracks = [f"spotify:track:{n:022d}" for n in range(900)]
    common, rare = tracks[:700], tracks[700:]
    truths = {pid: set(rng.sample(common, rng.randint(1, 250))) for pid in pids}
    truths[pids[0]] = set(rng.sample(rare, 5))  # nothing retrieved: IDCG 0, NDCG 0
    recommended = {pid: rng.sample(common, 500) for pid in pids}
    solution = pd.DataFrame({"pid": pids, "tracks": [" ".join(sorted(truths[p])) for p in pids]})
    submission = pd.DataFrame({"pid": pids, "tracks": [" ".join(recommended[p]) for p in pids]})
    rules = [spotify_rules(truths[p], recommended[p]) for p in pids]
    result = scorer.evaluate(solution, submission.sample(frac=1, random_state=2), recipe=name)
    ndcg_name = "nDCG(discount=log2_i,ideal=hits)@500"
    assert result.measures == ("RPrec", ndcg_name) and result.options.k == 500
    assert result.metrics["RPrec"] == float(mean([r for r, _ in rules]))
    expected_ndcg = math.fsum(n for _, n in rules) / len(rules)
    assert result.metrics[ndcg_name] == pytest.approx(expected_ndcg, rel=1e-12)
    assert result.user_values[ndcg_name][pids.index(pids[0])] == 0.0
    # The organisers' metrics.py differs from the rules: its NDCG is plain nDCG@500.
    code = scorer.evaluate(solution, submission, recipe=name, metrics=["nDCG@500"])
    expected_code = math.fsum(spotify_metrics_py_ndcg(truths[p], recommended[p]) for p in pids)
    assert code.score == pytest.approx(expected_code / len(pids), rel=1e-12)
    assert code.score != pytest.approx(expected_ndcg, rel=1e-3)
    too_long = submission.assign(tracks=submission.tracks + " spotify:track:" + "9" * 22)
    with pytest.raises(ParticipantVisibleError, match="keep only your best 500 item ids"):
        scorer.evaluate(solution, too_long, recipe=name)


def trec_eval_ndcg_j_c(qrels: dict[str, dict[str, int]], run: dict[str, list[str]]) -> float:
    """trec_eval -J -c ndcg (the host's baseline): each query of the qrels, its ranked
    products with the unjudged ones dropped, DCG = Σ gain_i / log2(i + 1) over the whole
    list, the ideal from every judged gain, 0 without a positive gain; a query missing
    from the run scores 0; the mean over the qrels' queries."""
    values = []
    for query, judged in qrels.items():
        ranked = [p for p in run.get(query, []) if p in judged]
        values.append(
            ndcg([float(judged[p]) for p in ranked], [float(g) for g in judged.values()], 10**6)
        )
    return math.fsum(values) / len(values)


def mind_reference(clicks: list[int], ranks: list[int]) -> tuple[Fraction, float, float, float]:
    """MIND's evaluate.py for one impression: scikit-learn's roc_auc_score of the clicks
    against scores ordering the candidates by rank (no ties), its mrr_score (the clicks
    in score order over 1, 2, 3, ..., summed, over the clicks), and its dcg_score with
    gains 2^y - 1, discounts log2(i + 1), the ideal from the sorted clicks."""
    order = sorted(range(len(ranks)), key=lambda i: ranks[i])
    positives = [i for i in range(len(clicks)) if clicks[i]]
    negatives = [i for i in range(len(clicks)) if not clicks[i]]
    correct = sum(ranks[p] < ranks[n] for p in positives for n in negatives)
    auc = Fraction(correct, len(positives) * len(negatives)) if negatives else Fraction(1)
    in_order = [clicks[i] for i in order]
    mrr = math.fsum(c / (place + 1) for place, c in enumerate(in_order)) / sum(clicks)
    gains = [2.0 ** clicks[i] - 1 for i in order]
    ideal = sorted((2.0**c - 1 for c in clicks), reverse=True)
    return auc, mrr, ndcg(gains, ideal, 5), ndcg(gains, ideal, 10)


@pytest.mark.parametrize("name", covers("mind"))
def test_mind_equals_the_hosts_evaluate_py(name: str) -> None:
    rng = random.Random(name)
    impressions = [str(i) for i in range(1, 61)]
    truth_rows, prediction_rows, expected = [], [], []
    for impression in impressions:
        news = rng.sample(ids("N", 500, 5), rng.randint(2, 15))
        clicks = [int(rng.random() < 0.25) for _ in news]
        if not any(clicks):
            clicks[rng.randrange(len(news))] = 1
        ranks = rng.sample(range(1, len(news) + 1), len(news))
        truth_rows += [(impression, n, str(c)) for n, c in zip(news, clicks, strict=True)]
        prediction_rows += [(impression, n, str(r)) for n, r in zip(news, ranks, strict=True)]
        expected.append(mind_reference(clicks, ranks))
    rng.shuffle(prediction_rows)  # rows in any order: the rank column orders them
    solution = pd.DataFrame(truth_rows, columns=["ImpressionID", "NewsID", "label"])
    submission = pd.DataFrame(prediction_rows, columns=["ImpressionID", "NewsID", "rank"])
    result = scorer.evaluate(solution, submission, recipe=name)
    assert result.metrics["AUC"] == float(mean([e[0] for e in expected]))
    assert list(result.metrics) == ["AUC", "MRR(ranks=all)@all", "nDCG@5", "nDCG@10"]
    for index, measure in ((1, "MRR(ranks=all)@all"), (2, "nDCG@5"), (3, "nDCG@10")):
        reference = math.fsum(e[index] for e in expected) / len(expected)
        assert result.metrics[measure] == pytest.approx(reference, rel=1e-12)


@pytest.mark.parametrize("name", covers("esci-2022"))
def test_esci_equals_trec_eval_j_c(name: str) -> None:
    rng = random.Random(name)
    queries = [str(q) for q in range(60)]
    products = ids("B0", 800, 8)
    gain = {"E": 100, "S": 10, "C": 1, "I": 0}
    qrels = {
        q: {p: gain[rng.choice("EESCII")] for p in rng.sample(products, rng.randint(1, 16))}
        for q in queries
    }
    qrels[queries[0]] = dict.fromkeys(qrels[queries[0]], 0)  # only irrelevant: scores 0
    run = {
        q: rng.sample(list(qrels[q]) + rng.sample(products, 3), rng.randint(1, len(qrels[q]) + 3))
        for q in queries
        if rng.random() > 0.1  # some queries missing: they score 0
    }
    solution = pd.DataFrame(
        [(q, p, str(g)) for q, judged in qrels.items() for p, g in judged.items()],
        columns=["query_id", "product_id", "grade"],
    )
    submission = pd.DataFrame(
        [(q, p) for q, ranked in run.items() for p in ranked], columns=["query_id", "product_id"]
    )
    result = scorer.evaluate(solution, submission, recipe=name)
    assert result.n_scored == len(queries)
    assert result.score == pytest.approx(trec_eval_ndcg_j_c(qrels, run), rel=1e-12)
    # Scaling every gain by 100 leaves nDCG unchanged: grades 100/10/1/0 are gains 1/.1/.01/0.
    scaled = {q: {p: g / 100 for p, g in judged.items()} for q, judged in qrels.items()}
    assert result.score == pytest.approx(trec_eval_ndcg_j_c(scaled, run), rel=1e-12)


def landmark_gap(
    solution: dict[str, list[str]], predictions: dict[str, tuple[str, float]]
) -> Fraction:
    """Google's GlobalAveragePrecision (the Landmark Recognition metric): predictions
    sorted by image id, then by score descending (a stable sort keeps the ids' order on
    ties), a running count of right labels, each right one adding its precision; divided
    by the images with a landmark. Summed as Fractions instead of floats."""
    by_id = sorted(predictions.items())
    ordered = sorted(by_id, key=lambda item: item[1][1], reverse=True)
    total, right = Fraction(0), 0
    for seen, (image, (label, _)) in enumerate(ordered, start=1):
        if label in solution[image]:
            right += 1
            total += Fraction(right, seen)
    return total / sum(1 for landmarks in solution.values() if landmarks)


@pytest.mark.parametrize(
    "name", covers(*(f"landmark-recognition-{year}" for year in (2019, 2020, 2021)))
)
def test_landmark_recognition_equals_the_hosts_gap(name: str) -> None:
    rng = random.Random(name)
    images = [f"{rng.getrandbits(64):016x}" for _ in range(300)]
    classes = [str(c) for c in rng.sample(range(200_000), 40)]
    solution = {
        image: rng.sample(classes, rng.choice([0, 0, 1, 1, 1, 2])) for image in images
    }  # about a third with no landmark
    scores = [round(rng.random(), 2) for _ in range(20)] + [1e-300, 0.0]  # many ties
    predictions = {
        image: (
            rng.choice(solution[image] or classes) if rng.random() < 0.5 else rng.choice(classes),
            rng.choice(scores),
        )
        for image in images
        if rng.random() < 0.9  # some images without a prediction: an empty cell
    }
    truth = pd.DataFrame(
        {"id": images, "landmarks": [" ".join(solution[image]) for image in images]}
    )
    cells = [
        f"{predictions[i][0]} {predictions[i][1]!r}" if i in predictions else "" for i in images
    ]
    submission = pd.DataFrame({"id": images, "landmarks": cells}).sample(frac=1, random_state=1)
    result = scorer.evaluate(truth, submission, recipe=name)
    expected = landmark_gap(solution, predictions)
    assert result.exact_values["GAP"].exact_mean() == expected
    assert result.score == float(expected)


# ---------------------------------------------------------------------------------------
# The registry.


def test_every_recipe_has_a_reference_test() -> None:
    assert set(RECIPE) == COVERED


def test_recipe_names_are_unique_and_lower_case() -> None:
    names = [recipe.name for recipe in RECIPES]
    assert len(set(names)) == len(names) == len(RECIPE)
    # competition-year, or a standing benchmark's own name (MIND: "mind")
    assert all(
        re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*-\d{4}", name) or name == "mind" for name in names
    )
    assert list_recipes() == list(RECIPES) and scorer.list_recipes() == list(RECIPES)


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda recipe: recipe.name)
def test_every_recipe_is_valid_options_and_measures(recipe: Recipe) -> None:
    assert set(recipe.options) <= set(OPTION) - {"recipe", "metrics"}
    settings = {name: value for name, value in recipe.options.items() if OPTION[name].setting}
    options = Options(**settings)
    measures = parse_all(list(recipe.metrics), options.k or 10)
    assert [str(m) for m in measures] == list(recipe.metrics)  # canonical names
    assert recipe.source.startswith("https://")
    assert recipe.competition and recipe.shape and recipe.quirks
    assert "\n" not in recipe.shape + recipe.quirks + recipe.command


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda recipe: recipe.name)
def test_every_recipes_command_parses(recipe: Recipe) -> None:
    words = recipe.command.split()
    assert words[0] == "scorer" and f"--recipe {recipe.name}" in recipe.command
    args = cli.parse_scoring_args(cli._score_parser(), words[1:])
    assert args.recipe == recipe.name and "recipe" in args.given_options


# ---------------------------------------------------------------------------------------
# Overrides and unknown names.

SOLUTION = pd.DataFrame({"id": ["u1", "u2", "u3"], "items": ["a b", "", "c"]})
SUBMISSION = pd.DataFrame({"id": ["u1", "u2", "u3"], "items": ["b x a", "", "d c"]})


def test_explicit_options_win_and_are_reported() -> None:
    plain = scorer.evaluate(SOLUTION, SUBMISSION, recipe="santander-2016")
    assert plain.options.empty_ground_truth == "zero"
    assert not [w for w in plain.warnings if w.code == "recipe_overrides"]
    # The default value given explicitly still wins over the recipe's.
    given = scorer.evaluate(
        SOLUTION, SUBMISSION, recipe="santander-2016", empty_ground_truth="skip", k=12
    )
    assert (given.options.empty_ground_truth, given.options.k) == ("skip", 12)
    assert given.score == scorer.score(SOLUTION, SUBMISSION, metric="MAP@7", k=12)
    (note,) = [w for w in given.warnings if w.code == "recipe_overrides"]
    assert (note.audience, note.count) == ("host", 2)
    assert note.message == (
        "Options given with the recipe 'santander-2016' replace its own: "
        "empty_ground_truth='skip' (the recipe's: 'zero'); k=12 (the recipe's: 7)."
    )
    same = scorer.evaluate(SOLUTION, SUBMISSION, recipe="santander-2016", k=7)
    assert not [w for w in same.warnings if w.code == "recipe_overrides"]


def test_score_warns_of_overrides() -> None:
    with pytest.warns(UserWarning, match=r"metrics=\['MRR'\] \(the recipe's: \['MAP@7'\]\)"):
        value = scorer.score(SOLUTION, SUBMISSION, recipe="santander-2016", metric="MRR")
    assert value == scorer.score(SOLUTION, SUBMISSION, metric="MRR", k=7, empty_ground_truth="zero")


def test_an_exclusive_option_replaces_the_recipes_other() -> None:
    settings, overrides = apply_recipe("otto-2023", {"target_type_column_name": "type"})
    assert "row_id_type_separator" not in settings
    assert [str(o) for o in overrides] == ["row_id_type_separator=None (the recipe's: '_')"]
    solution = pd.DataFrame(
        {"session": ["1", "1"], "type": ["clicks", "orders"], "labels": ["a", "b c"]}
    )
    submission = solution.assign(labels=["a", "c x"])
    result = scorer.evaluate(
        solution,
        submission,
        recipe="otto-2023",
        target_type_column_name="type",
        type_weights={"clicks": 0.5, "orders": 0.5},
    )
    assert result.by_type == {
        "clicks": {"R(norm=min_k,avg=micro)@20": 1.0},
        "orders": {"R(norm=min_k,avg=micro)@20": 0.5},
    }


@pytest.mark.parametrize(
    ("option", "value", "expected"),
    [
        ("k", np.array([3, 4]), r"^The 'k' parameter must be an int"),
        ("empty_ground_truth", pd.Series(["zero", "skip"]), r"^The 'empty_ground_truth' param"),
    ],
    ids=["k", "empty_ground_truth"],
)
def test_a_value_without_one_truth_value_beside_a_recipe_is_a_host_error(
    option: str, value: object, expected: str
) -> None:
    # Comparing it with the recipe's own value (to report an override) raised numpy's
    # or pandas' ValueError ("truth value ... is ambiguous") before the options' check.
    given = {option: value}
    with pytest.raises(HostVisibleError, match=expected):
        scorer.evaluate(SOLUTION, SUBMISSION, recipe="santander-2016", **given)
    overridden = pytest.warns(UserWarning, match=rf"replace its own: {option}=")
    with overridden, pytest.raises(HostVisibleError, match=expected):
        scorer.score(SOLUTION, SUBMISSION, recipe="santander-2016", **given)


@pytest.mark.parametrize(
    ("name", "closest"),
    [
        ("otto", " The closest: 'otto-2023'."),
        ("h-and-m", " The closest: 'h-and-m-2022'."),
        ("santander-2017", " The closest: 'santander-2016', 'instacart-2017', 'outbrain-2017'."),
        ("kdd-cup", " The closest: 'kdd-cup-2023'."),
        ("hm", " The closest: 'h-and-m-2022'."),  # the competition's first word, H&M
        ("zzz", ""),  # nothing is close: no "closest" to name
    ],
)
def test_unknown_recipes_name_the_closest(name: str, closest: str) -> None:
    expected = f"Unknown recipe {name!r}.{closest} Every recipe: `scorer recipes`"
    with pytest.raises(HostVisibleError, match=re.escape(expected)):
        scorer.evaluate(SOLUTION, SUBMISSION, recipe=name)
    with pytest.raises(HostVisibleError, match=re.escape(expected)):
        scorer.score(SOLUTION, SUBMISSION, recipe=name)


def test_a_recipe_name_is_a_string_in_any_case() -> None:
    assert find_recipe(" OTTO-2023 ").name == "otto-2023"
    with pytest.raises(HostVisibleError, match=r"The 'recipe' parameter must be a str"):
        scorer.evaluate(SOLUTION, SUBMISSION, recipe=12)  # type: ignore[arg-type]


def test_scoring_in_parts_refuses_recipes_for_now() -> None:
    from scorer import partial

    with pytest.raises(HostVisibleError, match=r"recipe= is not supported when scoring in parts"):
        partial.score_part(SOLUTION, SUBMISSION, recipe="santander-2016")


# ---------------------------------------------------------------------------------------
# The command line and the adapters.


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    solution, submission = tmp_path / "solution.csv", tmp_path / "submission.csv"
    SOLUTION.to_csv(solution, index=False)
    SUBMISSION.to_csv(submission, index=False)
    return str(solution), str(submission)


def test_cli_recipe_end_to_end(files: tuple[str, str], capsys: pytest.CaptureFixture) -> None:
    expected = scorer.evaluate(*files, recipe="santander-2016")
    assert cli.main([*files, "--recipe", "santander-2016", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert [w["code"] for w in shown["warnings"]] == [w.code for w in expected.warnings]
    assert shown["metrics"] == {"MAP@7": expected.score}
    assert shown["options"]["empty_ground_truth"] == "zero"
    # A flag given with its default value wins too, and is reported.
    assert cli.main([*files, "--recipe", "santander-2016", "--empty-ground-truth", "skip"]) == 0
    out = capsys.readouterr().out
    skipped = scorer.score(*files, k=7, metric="MAP@7")
    assert f"MAP@7: {skipped!r}" in out
    assert (
        "[host] Options given with the recipe 'santander-2016' replace its own: "
        "empty_ground_truth='skip' (the recipe's: 'zero')." in out
    )


def test_cli_unknown_recipe_is_a_host_error(
    files: tuple[str, str], capsys: pytest.CaptureFixture
) -> None:
    assert cli.main([*files, "--recipe", "otto"]) == cli.EXIT_HOST_ERROR
    assert "Unknown recipe 'otto'. The closest: 'otto-2023'." in capsys.readouterr().err


def test_scorer_recipes_lists_them(capsys: pytest.CaptureFixture) -> None:
    assert cli.main(["recipes"]) == 0
    out = capsys.readouterr().out
    for recipe in RECIPES:
        assert f"{recipe.name}: {recipe.metric}\n" in out
        assert f"  shape:  {recipe.shape}\n" in out and f"  source: {recipe.source}" in out
    assert cli.main(["recipes", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in listed] == list(RECIPE)
    assert listed[1]["options"] == RECIPE["otto-2023"].settings()
    assert cli.main(["recipes", "otto-2023"]) == 0
    out = capsys.readouterr().out
    assert f"  quirks: {RECIPE['otto-2023'].quirks}" in out
    assert "  run:    scorer solution.csv submission.csv --recipe otto-2023" in out
    assert cli.main(["recipes", "ottto"]) == cli.EXIT_HOST_ERROR
    assert "The closest: 'otto-2023'" in capsys.readouterr().err


def test_codabench_takes_a_recipe(files: tuple[str, str], tmp_path: Path) -> None:
    input_dir = tmp_path / "input"
    for role, path in zip(("ref", "res"), files, strict=False):
        (input_dir / role).mkdir(parents=True)
        (input_dir / role / Path(path).name).write_bytes(Path(path).read_bytes())
    expected = scorer.score(*files, recipe="santander-2016")
    assert (
        cli.main(["codabench", str(input_dir), str(tmp_path / "out"), "--recipe", "santander-2016"])
        == 0
    )
    written = json.loads((tmp_path / "out" / "scores.json").read_text())
    assert written == {"map_at_7": expected}
    values, _ = score_directories(input_dir, tmp_path / "out2", recipe="santander-2016", k=12)
    assert values == {"map_at_7": scorer.evaluate(*files, recipe="santander-2016", k=12).score}


def test_evalai_takes_a_recipe(files: tuple[str, str]) -> None:
    shown = evalai.evaluate(*files, "test", recipe="santander-2016")
    assert shown["submission_result"] == {"map_at_7": scorer.score(*files, recipe="santander-2016")}
    # EvalAI shows a host error to the participant: withheld, as every host error there.
    with pytest.raises(HostVisibleError, match=r"details are withheld because EvalAI shows"):
        evalai.evaluate(*files, "test", recipe="otto")


# ---------------------------------------------------------------------------------------
# The information boundary under every wide recipe: what a participant sees depends on
# the submission and the solution's row ids only.

WIDE_COLUMNS = {
    **{name: columns[:2] for name, columns in WIDE_MAP.items()},
    **{name: columns[:2] for name, columns in SET_RECIPES.items()},
    "otto-2023": ("session_type", "labels"),
    "kdd-cup-2023": ("session_id", "next_item_prediction"),
    "trivago-2019": ("key", "item_recommendations"),
    "spotify-2018": ("pid", "tracks"),
}


def participant_view(solution: pd.DataFrame, submission: pd.DataFrame, name: str) -> str:
    try:
        result = scorer.evaluate(solution, submission, recipe=name)
    except ParticipantVisibleError as error:
        return f"error: {error}"
    return "\n".join(str(w) for w in result.warnings if w.audience == "participant")


@pytest.mark.parametrize("name", sorted(WIDE_COLUMNS))
def test_participants_see_nothing_of_the_solution(name: str) -> None:
    row_id, target = WIDE_COLUMNS[name]
    rng = random.Random(name)
    suffixes = ["_clicks", "_carts", "_orders"] if name == "otto-2023" else [""]
    row_ids = [f"{i}{suffix}" for i in range(30) for suffix in suffixes]
    pool = ids("x", 12, 2)
    k = RECIPE[name].options.get("k", 10)

    def solution(seed: int) -> pd.DataFrame:
        other = random.Random(seed)
        truths = [" ".join(other.sample(pool, other.randint(1, 2))) for _ in row_ids]
        truths[other.randrange(len(truths))] = ""  # an empty truth, somewhere
        return pd.DataFrame({row_id: row_ids, target: truths})

    cells = [" ".join(items(rng, pool, 0, 4)) for _ in row_ids]
    valid = pd.DataFrame({row_id: row_ids, target: cells})
    too_long = valid.assign(**{target: [*cells[:-1], " ".join(["x00"] * (k + 1))]})
    missing_and_unknown = pd.concat(
        [valid.iloc[2:], pd.DataFrame({row_id: ["nope"], target: ["x01"]})]
    )
    for submission in (valid, too_long, missing_and_unknown):
        views = {participant_view(solution(seed), submission, name) for seed in range(3)}
        assert len(views) == 1 and views != {""}, views


def test_compare_takes_a_recipe(files: tuple[str, str], capsys: pytest.CaptureFixture) -> None:
    solution, submission = files
    assert (
        cli.main(
            ["compare", solution, submission, submission, "--recipe", "santander-2016", "--json"]
        )
        == 0
    )
    compared = json.loads(capsys.readouterr().out)["metrics"]
    assert list(compared) == ["MAP@7"]
    assert compared["MAP@7"]["a"] == scorer.score(*files, recipe="santander-2016")


def test_repeatable_flags_given_with_a_recipe(
    files: tuple[str, str], capsys: pytest.CaptureFixture
) -> None:
    arguments = [*files, "-m", "MAP@3", "-m", "P@1", "--recipe", "santander-2016", "--json"]
    args = cli.parse_scoring_args(cli._score_parser(), arguments)
    assert args.given_options == {"metrics", "recipe"}
    assert cli.main(arguments) == 0
    shown = json.loads(capsys.readouterr().out)
    expected = scorer.evaluate(*files, metrics=["MAP@3", "P@1"], k=7, empty_ground_truth="zero")
    assert shown["metrics"] == expected.metrics
    assert "metrics=['MAP@3', 'P@1'] (the recipe's: ['MAP@7'])" in shown["warnings"][-1]["message"]
    plain = cli.parse_scoring_args(cli._score_parser(), list(files))
    assert plain.given_options == set() and plain.metrics is None and plain.k is None
