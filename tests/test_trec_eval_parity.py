"""Parity with trec_eval (through pytrec_eval) for the measures it has, on random data.

trec_eval name -> ours: ``P_K`` -> ``P@K``, ``recall_K`` -> ``R@K``, ``map_cut_K`` ->
``MAP(norm=relevant)@K``, ``ndcg_cut_K`` -> ``nDCG(gain=linear)@K``, ``recip_rank`` ->
``MRR`` (no cut-off: every row holds at most k predictions), ``Rprec`` -> ``RPrec``.
"""

from __future__ import annotations

import math
import random
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer import evaluate
from scorer.measures import trec_eval_measures

pytrec_eval = pytest.importorskip(
    "pytrec_eval", reason="the test extra installs pytrec-eval-terrier"
)

K = 10
PAIRS = {
    "P_5": "P@5",
    "P_10": "P@10",
    "recall_5": "R@5",
    "recall_10": "R@10",
    "map_cut_5": "MAP(norm=relevant)@5",
    "map_cut_10": "MAP(norm=relevant)@10",
    "ndcg_cut_5": "nDCG(gain=linear)@5",
    "ndcg_cut_10": "nDCG(gain=linear)@10",
    "recip_rank": "MRR@10",
    "Rprec": "RPrec",
}


def random_competition(seed: int, n_users: int = 300, graded: bool = True):
    rng = np.random.default_rng(seed)
    catalogue = [f"i{n:03d}" for n in range(60)]
    qrels, run, solution, submission = {}, {}, [], []
    for user in range(n_users):
        qid = f"q{user:04d}"
        judged = rng.choice(catalogue, size=rng.integers(1, 25), replace=False).tolist()
        grades = rng.integers(0, 4, size=len(judged)) if graded else np.ones(len(judged), int)
        grades[0] = max(grades[0], 1)  # every query has a relevant item, as trec_eval needs
        ranked = rng.choice(catalogue, size=rng.integers(1, K + 1), replace=False).tolist()
        qrels[qid] = dict(zip(judged, map(int, grades), strict=True))
        run[qid] = {doc: float(K - rank) for rank, doc in enumerate(ranked)}
        solution.append((qid, " ".join(judged), " ".join(map(str, grades))))
        submission.append((qid, " ".join(ranked)))
    solution_df = pd.DataFrame(solution, columns=["qid", "items", "grades"])
    submission_df = pd.DataFrame(submission, columns=["qid", "items"])
    return qrels, run, solution_df, submission_df


@pytest.mark.parametrize(("seed", "graded"), [(0, True), (1, True), (2, False)])
def test_measures_equal_trec_eval_per_user(seed: int, graded: bool) -> None:
    qrels, run, solution, submission = random_competition(seed, graded=graded)
    measures = {
        name.split("_")[0] if name[-1].isdigit() and name.startswith("P") else name
        for name in PAIRS
    }
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, {"P", "recall", "map_cut", "ndcg_cut", "recip_rank", "Rprec"} | measures
    )
    theirs = evaluator.evaluate(run)
    ours = evaluate(
        solution, submission, "qid", k=K, metrics=list(PAIRS.values()), grade_column_name="grades"
    )
    qids = solution["qid"].tolist()
    for trec_name, name in PAIRS.items():
        expected = np.array([theirs[q][trec_name] for q in qids])
        got = ours.user_values[name]
        assert np.abs(got - expected).max() <= 1e-12, trec_name
        assert abs(ours.metrics[name] - expected.mean()) <= 1e-12, trec_name


# trec_eval 9 (pytrec_eval) differs from trec_eval 10 in iprec_at_recall and 11pt_avg
# (10 rounds the level's number of relevant items, 9 adds 0.9 and truncates) and lacks
# rbp, rbp_resid and unj: those are checked against trec_eval 10's own output
# (tests/test_trec_eval_fixtures.py). gm_map and gm_bpref are per query the logarithm.
TREC_9 = [
    (name, measure)
    for name, measure in trec_eval_measures(["all_trec"])
    if not name.startswith(("iprec_at_recall", "11pt_avg", "rbp", "unj"))
]
GEOMETRIC = ("gm_map", "gm_bpref")


def trec_files(seed: int, directory: Path) -> tuple[dict, dict]:
    """A random qrels and run, written as trec_eval's files, and as pytrec_eval's dicts:
    grades 0 to 3 and -1 (in the pool, not judged), a query with nothing relevant, one
    judged only -1, one of the qrels the run lacks and one of the run the qrels lack,
    scores of one decimal (ties, broken by docno)."""
    rng = random.Random(seed)
    docs = [f"d{n:03d}" for n in range(150)]
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(rng.randint(2, 12)):
        qid = f"q{q}"
        judged = rng.sample(docs, rng.randint(1, 30))
        grades = [rng.choice([-1, 0, 0, 1, 1, 2, 3]) for _ in judged]
        if q == 0:
            grades = [-1] * len(judged)
        if q == 1:
            grades = [0] * len(judged)
        qrels[qid] = dict(zip(judged, grades, strict=True))
        if q != 2:
            picked = rng.sample(judged, len(judged) // 2) + rng.sample(docs, 40)
            ranked = list(dict.fromkeys(picked))
            run[qid] = {d: rng.randint(0, 60) / 10 for d in ranked[: rng.randint(1, 60)]}
    run["q99"] = {"d001": 1.0}
    lines = [f"{q} 0 {d} {g}" for q, found in qrels.items() for d, g in found.items()]
    (directory / "qrels").write_text("\n".join(lines) + "\n", encoding="utf-8")
    lines = [f"{q} Q0 {d} 1 {s} run" for q, found in run.items() for d, s in found.items()]
    (directory / "run").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return qrels, run


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([1, 2]), st.booleans())
def test_every_measure_pytrec_eval_has_equals_it(seed: int, level: int, judged_only: bool) -> None:
    with tempfile.TemporaryDirectory() as folder:
        directory = Path(folder)
        qrels, run = trec_files(seed, directory)
        # pytrec_eval 0.5 may never return on a query judged only -1: it scores the
        # others (trec_eval 10 scores that one too: tests/test_trec_eval_fixtures.py)
        qrels = {q: found for q, found in qrels.items() if max(found.values()) >= 0}
        theirs: dict[str, dict[str, float]] = {}
        for name in set(pytrec_eval.supported_measures) - {"relstring", "runid"}:
            # one measure an evaluator: some sets of them crash pytrec_eval 0.5
            evaluator = pytrec_eval.RelevanceEvaluator(
                qrels, {name}, relevance_level=level, judged_docs_only_flag=judged_only
            )
            for qid, found in evaluator.evaluate(run).items():
                theirs.setdefault(qid, {}).update(found)
        ours = evaluate(
            directory / "qrels",
            directory / "run",
            format="trec",
            k=10**6,
            metrics=[measure for _, measure in TREC_9],
            empty_ground_truth="zero",
            missing_rows="empty",  # trec_eval 9 leaves the missing query out: so do we here
            relevance_threshold=level,
            unjudged="drop" if judged_only else "keep",
        )
    qids = ours.row_ids.to_pylist()
    evaluated = np.isin(qids, list(theirs))
    for name, measure in TREC_9:
        values = ours.user_values[str(measure)]
        expected = np.array([theirs[q][name] for q in qids if q in theirs])
        if name in GEOMETRIC:  # per query the logarithm; the run's value its mean's exp
            mean = ours.exact_values[str(measure)].mean(evaluated)
            assert math.isclose(mean, math.exp(expected.mean()), rel_tol=1e-12), name
            continue
        assert np.abs(values[evaluated] - expected).max() <= 1e-12, name
