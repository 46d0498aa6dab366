"""Parity with trec_eval (through pytrec_eval) for the measures it has, on random data.

trec_eval name -> ours: ``P_K`` -> ``P@K``, ``recall_K`` -> ``R@K``, ``map_cut_K`` ->
``MAP(norm=relevant)@K``, ``ndcg_cut_K`` -> ``nDCG(gain=linear)@K``, ``recip_rank`` ->
``MRR`` (no cut-off: every row holds at most k predictions), ``Rprec`` -> ``RPrec``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from scorer import evaluate

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
