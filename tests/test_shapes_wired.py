"""The long layout, trec_eval files and candidates through every interface: Python,
the command line (JSON, intervals, compare, report), Codabench and EvalAI.

The pivots themselves are tested against slow references in test_long_layout.py,
test_trec_files.py and test_candidates_and_types.py; here each shape is scored end to
end, exactly (Fractions), as its wide equivalent, bit-identical under row shuffles,
with every problem of an input in one message.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scorer
from scorer import HostVisibleError, ParticipantVisibleError, evaluate, stats
from scorer.adapters import evalai
from scorer.adapters.codabench import score_directories
from tests.commands import run_scorer
from tests.paths import FIXTURES


def exact_map(solution: dict[str, list[str]], rankings: dict[str, list[str]], k: int) -> Fraction:
    """MAP@k (Kaggle's min(|R|, k)), users with no relevant item skipped: a slow reference."""
    values = []
    for user, relevant in solution.items():
        if not relevant:
            continue
        hits, total, seen = 0, Fraction(0), set()
        for rank, item in enumerate(rankings.get(user, [])[:k], start=1):
            if item in relevant and item not in seen:
                hits += 1
                total += Fraction(hits, rank)
            seen.add(item)
        values.append(total / min(len(set(relevant)), k))
    return sum(values, Fraction(0)) / len(values)


# --- long layout --------------------------------------------------------------------------

ITEMS = [f"i{n}" for n in range(8)]


@st.composite
def competitions(draw):
    """A solution, each user's ranking, and a long submission ranked by rank, score or
    file order (with ties that item ids break)."""
    n_users = draw(st.integers(1, 6))
    users = [f"u{n}" for n in range(n_users)]
    solution = {u: draw(st.lists(st.sampled_from(ITEMS), max_size=4, unique=True)) for u in users}
    if not any(solution.values()):
        solution[users[0]] = ["i0"]
    rankings = {u: draw(st.lists(st.sampled_from(ITEMS), max_size=5, unique=True)) for u in users}
    how = draw(st.sampled_from(["rank", "score", "order"]))
    rows = []
    for user, items in rankings.items():
        if not items:
            rows.append((user, "", "", ""))
        for position, item in enumerate(items):
            # Scores tie in pairs; the tie goes to the smaller item id.
            rows.append((user, item, str(3 * position + 1), ""))
    frame = pd.DataFrame(rows, columns=["id", "items", "rank", "score"])
    if how == "score":
        order = {u: sorted(items) for u, items in rankings.items()}
        rankings = order
        frame["score"] = np.where(frame["items"] == "", "", "0.5")
    seed = draw(st.integers(0, 2**16))
    if how != "order":  # file order is the ranking: shuffle only the other kinds
        frame = frame.sample(frac=1, random_state=seed).reset_index(drop=True)
    return solution, rankings, frame, how, seed


def wide(data: dict[str, list[str]]) -> pd.DataFrame:
    return pd.DataFrame({"id": list(data), "items": [" ".join(v) for v in data.values()]})


def long_solution(data: dict[str, list[str]], seed: int) -> pd.DataFrame:
    rows = [(u, item) for u, items in data.items() for item in items or [""]]
    frame = pd.DataFrame(rows, columns=["id", "items"])
    return frame.sample(frac=1, random_state=seed).reset_index(drop=True)


@settings(max_examples=60, deadline=None)
@given(competitions(), st.booleans())
def test_a_long_file_scores_exactly_as_its_wide_equivalent(case, long_truth) -> None:
    solution, rankings, frame, how, seed = case
    columns = {"rank": ["id", "items", "rank"], "score": ["id", "items", "score"]}
    submission = frame[columns.get(how, ["id", "items"])]
    options = {"rank_column_name": "rank"} if how == "rank" else {}
    if how == "score":
        options = {"score_column_name": "score"}
    truth = long_solution(solution, seed) if long_truth else wide(solution)
    layout = "long" if long_truth else "wide"
    result = evaluate(
        truth, submission, "id", k=5, layout="long", solution_layout=layout, **options
    )
    assert result.score == float(exact_map(solution, rankings, 5))
    as_wide = evaluate(wide(solution), wide(rankings), "id", k=5)
    assert result.to_dict() | {"options": None} == as_wide.to_dict() | {"options": None}


def test_long_problems_come_with_every_other_problem_at_once() -> None:
    solution = pd.DataFrame({"id": ["u1", "u2", "u3"], "items": ["a", "b", "c"]})
    submission = pd.DataFrame(
        {
            "id": ["u1", "u1", "u9", "u2", "u1"],
            "items": ["a", "b c", "a", "b", "c"],
            "rank": ["1", "2", "1", "x", "1"],
        }
    )
    with pytest.raises(ParticipantVisibleError) as caught:
        evaluate(solution, submission, "id", layout="long", rank_column_name="rank")
    message = str(caught.value)
    titles = [line.split(". ", 1)[1] for line in message.splitlines() if line[:1].isdigit()]
    assert titles == [
        "Several items in one cell",
        "Invalid ranks",
        "Duplicated ranks",
        "Missing rows",
        "Unknown row ids",
    ]
    assert message.startswith("The submission is invalid (5 problems):")


def test_a_long_header_without_its_rank_column_is_every_header_problem() -> None:
    solution = pd.DataFrame({"id": ["u1"], "items": ["a"]})
    submission = pd.DataFrame({"id": ["u1"], "items": ["a"], "position": ["1"]})
    with pytest.raises(ParticipantVisibleError, match=r"Missing columns") as caught:
        evaluate(solution, submission, "id", layout="long", rank_column_name="rank")
    assert "exactly the columns ['id', 'items', 'rank'] (any order)" in str(caught.value)
    assert "Extra columns" in str(caught.value)


def test_a_long_solution_keeps_usage_and_segments_per_row_id() -> None:
    solution = pd.DataFrame(
        {
            "id": ["u1", "u2", "u1", "u3"],
            "items": ["a", "c", "b", ""],
            "Usage": ["Public", "Private", "Public", "Public"],
            "country": ["fr", "de", "fr", "fr"],
        }
    )
    submission = pd.DataFrame({"id": ["u1", "u2", "u3"], "items": ["b x", "c", ""]})
    result = evaluate(
        solution, submission, "id", solution_layout="long", segment_column_name="country"
    )
    assert (result.public_score, result.private_score) == (0.5, 1.0)
    segments = result.segments
    assert [segments.names[c] for c in segments.codes] == ["fr", "de", "fr"]  # u1, u2, u3
    differing = solution.assign(Usage=["Public", "Private", "Private", "Public"])
    with pytest.raises(HostVisibleError, match=r"Several values of 'Usage' for one row id") as c:
        evaluate(differing, submission, "id", solution_layout="long", segment_column_name="country")
    assert "examples (row ids): 'u1'" in str(c.value)


def test_a_long_graded_solution_scores_as_its_wide_equivalent() -> None:
    long = pd.DataFrame(
        {"id": ["q1", "q1", "q2", "q1"], "items": ["b", "a", "c", "d"], "g": ["2", "1", "3", "0"]}
    )
    wide_form = pd.DataFrame({"id": ["q1", "q2"], "items": ["a b d", "c"], "g": ["1 2 0", "3"]})
    submission = pd.DataFrame({"id": ["q1", "q2"], "items": ["d b a", "x c"]})
    options = {"k": 3, "metrics": ["nDCG@3", "MAP"], "grade_column_name": "g"}
    a = evaluate(long, submission, "id", solution_layout="long", **options)
    b = evaluate(wide_form, submission, "id", **options)
    assert a.metrics == b.metrics


def test_option_combinations_that_cannot_be_are_the_hosts_error() -> None:
    table = pd.DataFrame({"id": ["u1"], "items": ["a"]})
    with pytest.raises(HostVisibleError, match=r"rank_column_name applies to a long submission"):
        evaluate(table, table, rank_column_name="rank")
    with pytest.raises(HostVisibleError, match=r"cannot both be given"):
        evaluate(table, table, layout="long", rank_column_name="r", score_column_name="s")
    with pytest.raises(HostVisibleError, match=r"format='trec' reads trec_eval's own files"):
        evaluate(table, table, format="trec")
    with pytest.raises(HostVisibleError, match=r"leave layout and solution_layout at 'wide'"):
        evaluate("q", "r", format="trec", layout="long")
    # Left out of the mean, a missing row would be a way to drop the rows a table scores
    # worst: trec_eval's rule, for its files only.
    with pytest.raises(HostVisibleError, match=r"missing_rows='skip' .* for its files only"):
        evaluate(table, table, missing_rows="skip")


# --- trec_eval files ----------------------------------------------------------------------


def trec_eval():
    """pytrec_eval (trec_eval 9), or a skip: only these tests need it."""
    return pytest.importorskip("pytrec_eval", reason="the test extra installs pytrec-eval")


TREC_PAIRS = {
    "map": "MAP(norm=relevant)",
    "P_5": "P@5",
    "P_10": "P@10",
    "recall_10": "R@10",
    "ndcg_cut_10": "nDCG(gain=linear)@10",
    "recip_rank": "MRR",
    "Rprec": "RPrec",
}


def trec_files(folder: Path, seed: int) -> tuple[dict, dict, Path, Path]:
    """Random qrels and run files; scores float32 holds exactly, with ties."""
    rng = np.random.default_rng(seed)
    docs = [f"d{n:03d}" for n in range(40)]
    qrels, run_, qrel_lines, run_lines = {}, {}, [], []
    for n in range(60):
        qid = f"q{n}"
        judged = rng.choice(docs, size=int(rng.integers(1, 15)), replace=False)
        grades = rng.integers(0, 4, size=len(judged))
        grades[0] = max(grades[0], 1)
        qrels[qid] = {d: int(g) for d, g in zip(judged, grades, strict=True)}
        qrel_lines += [f"{qid} 0 {d} {g}" for d, g in qrels[qid].items()]
        ranked = rng.choice(docs, size=int(rng.integers(1, 30)), replace=False)
        scores = rng.integers(0, 8, size=len(ranked)) / 4  # ties, exact in float32
        run_[qid] = {d: float(s) for d, s in zip(ranked, scores, strict=True)}
        run_lines += [
            f"{qid}\tQ0\t{d}\t{r}\t{s}\ttag" for r, (d, s) in enumerate(run_[qid].items())
        ]
    qrel_lines.append("q0 0 d999 -1")  # in the pool, not judged: neither relevant nor judged
    run_lines.append("q_only_in_the_run Q0 d001 1 1.0 tag")  # ignored, as by trec_eval
    order = rng.permutation(len(run_lines))
    (folder / "qrels.txt").write_text("\n".join(qrel_lines) + "\n")
    (folder / "run.txt").write_text("\n".join(run_lines[i] for i in order) + "\n")
    return qrels, run_, folder / "qrels.txt", folder / "run.txt"


@pytest.mark.parametrize("seed", [0, 1])
def test_trec_files_through_the_command_line_equal_trec_eval(tmp_path, seed) -> None:
    qrels, run_, qrels_path, run_path = trec_files(tmp_path, seed)
    theirs = (
        trec_eval()
        .RelevanceEvaluator(qrels, {"map", "P", "recall", "ndcg_cut", "recip_rank", "Rprec"})
        .evaluate(run_)
    )
    metrics = [arg for name in TREC_PAIRS.values() for arg in ("--metric", name)]
    done = run_scorer(qrels_path, run_path, "--format", "trec", "-k", "1000", *metrics, "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    result = evaluate(
        qrels_path, run_path, format="trec", k=1000, metrics=list(TREC_PAIRS.values())
    )
    assert data == result.to_dict()
    for trec_name, name in zip(TREC_PAIRS, result.measures, strict=True):
        expected = np.mean([theirs[q][trec_name] for q in qrels])
        assert abs(data["metrics"][name] - expected) <= 1e-12, trec_name
    assert [w["code"] for w in data["warnings"] if w["audience"] == "host"] == [
        "qrels_unjudged_lines"
    ]


def test_a_run_that_repeats_a_docno_is_invalid(tmp_path) -> None:
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq2 0 d2 1\n")
    (tmp_path / "run").write_text(
        "q1 Q0 d1 1 2.0 t\nq1 Q0 d1 2 1.0 t\nq2 Q0 d2 1 1 t\nq2 Q0 d2 1 x t\nq3\n"
    )
    done = run_scorer(tmp_path / "qrels", tmp_path / "run", "--format", "trec")
    assert done.returncode == 1
    assert "The submission is invalid (3 problems):" in done.stderr
    assert "1. Malformed lines" in done.stderr
    assert "examples (lines): 5: 'q3'" in done.stderr  # the line's number and text
    assert "2. Invalid scores" in done.stderr
    assert "examples (lines): 4: 'x'" in done.stderr
    assert "3. Documents retrieved twice for a query" in done.stderr
    assert "2 qids retrieving a docno more than once (2 extra lines)" in done.stderr
    assert "examples (qid docno): 'q1' 'd1', 'q2' 'd2'\n" in done.stderr  # where to look
    # A long qid is shortened on its own: the docno still shows.
    qid = "q" * 100
    (tmp_path / "qrels").write_text(f"{qid} 0 d1 1\n")
    (tmp_path / "run").write_text(f"{qid} Q0 d1 1 2.0 t\n{qid} Q0 d1 2 1.0 t\n")
    done = run_scorer(tmp_path / "qrels", tmp_path / "run", "--format", "trec")
    assert "...' (100 characters) 'd1'\n" in done.stderr


def test_trec_ties_go_to_the_larger_docno_as_in_trec_eval(tmp_path) -> None:
    (tmp_path / "qrels").write_text("q1 0 b 1\n")
    (tmp_path / "run").write_text("q1 Q0 a 1 1.5 t\nq1 Q0 b 2 1.5 t\nq1 Q0 c 3 1.5 t\n")
    result = evaluate(tmp_path / "qrels", tmp_path / "run", format="trec", metrics=["MRR"])
    assert result.score == 0.5  # c, then b
    theirs = (
        trec_eval()
        .RelevanceEvaluator({"q1": {"b": 1}}, {"recip_rank"})
        .evaluate({"q1": {"a": 1.5, "b": 1.5, "c": 1.5}})
    )
    assert theirs["q1"]["recip_rank"] == 0.5


# --- candidates and unjudged items ----------------------------------------------------------

CANDIDATE_SOLUTION = pd.DataFrame(
    {
        "id": ["s1", "s2", "s3"],
        "items": ["b", "d", ""],
        "candidates": ["a b c", "d e", "f"],
    }
)


def test_candidate_problems_are_raised_with_the_others() -> None:
    submission = pd.DataFrame({"id": ["s1", "s2", "s9"], "items": ["a z b b", "d", "f"]})
    with pytest.raises(ParticipantVisibleError) as caught:
        evaluate(
            CANDIDATE_SOLUTION,
            submission,
            "id",
            candidates_column_name="candidates",
            candidate_rule="permutation",
        )
    message = str(caught.value)
    assert message.startswith("The submission is invalid (5 problems):")
    for title in (
        "Missing rows",
        "Unknown row ids",
        "Items that are not candidates",
        "Candidates ranked more than once",
        "Candidates missing",
    ):
        assert title in message
    assert "1 item in 1 row that is not among its row's candidates, e.g. 'z'" in message
    assert "3 rows leaving out 3 candidates" in message


def test_candidates_from_a_table_of_their_own_and_in_long_form(tmp_path) -> None:
    table = tmp_path / "candidates.csv"
    table.write_text("id,cands\ns1,a\ns1,b c\ns2,d e\ns3,f\n")
    solution = CANDIDATE_SOLUTION.drop(columns="candidates")
    submission = pd.DataFrame({"id": ["s1", "s2", "s3"], "items": ["c b a", "e d", "f"]})
    options = {"candidates": table, "candidate_rule": "permutation", "k": 3}
    assert evaluate(solution, submission, "id", **options).score == 0.5  # (1/2 + 1/2) / 2
    with pytest.raises(ParticipantVisibleError, match=r"Candidates missing"):
        evaluate(solution, submission.assign(items=["c b", "e d", "f"]), "id", **options)
    (tmp_path / "unknown.csv").write_text("id,cands\ns7,a\n")
    with pytest.raises(HostVisibleError, match=r"candidates table is invalid[\s\S]*'s7'"):
        evaluate(
            solution, submission, "id", candidates=tmp_path / "unknown.csv", candidate_rule="subset"
        )


def test_candidates_need_a_rule_and_a_rule_needs_candidates() -> None:
    submission = pd.DataFrame({"id": ["s1", "s2", "s3"], "items": ["b", "d", ""]})
    with pytest.raises(HostVisibleError, match=r"checks nothing"):
        evaluate(CANDIDATE_SOLUTION, submission, "id", candidates_column_name="candidates")
    with pytest.raises(HostVisibleError, match=r"needs each row's candidates"):
        evaluate(
            CANDIDATE_SOLUTION.drop(columns="candidates"), submission, "id", candidate_rule="subset"
        )
    with pytest.raises(HostVisibleError, match=r"'cands' \(candidates_column_name\) is not"):
        evaluate(
            CANDIDATE_SOLUTION,
            submission,
            "id",
            candidates_column_name="cands",
            candidate_rule="subset",
        )


def test_with_unknown_row_ids_ignored_candidate_problems_name_no_row() -> None:
    submission = pd.DataFrame({"id": ["s1", "s2", "s3", "zz"], "items": ["z", "d", "f", "y"]})
    with pytest.raises(ParticipantVisibleError, match=r"Items that are not candidates") as c:
        evaluate(
            CANDIDATE_SOLUTION,
            submission,
            "id",
            candidates_column_name="candidates",
            candidate_rule="subset",
            unknown_row_ids="ignore",
        )
    assert "examples" not in str(c.value)


def test_unjudged_items_are_dropped_and_the_ranks_closed_up() -> None:
    solution = pd.DataFrame({"id": ["q1", "q2"], "items": ["a b c", "d e"], "g": ["1 0 2", "0 1"]})
    submission = pd.DataFrame({"id": ["q1", "q2"], "items": ["x c y a", "z z e"]})
    kept = evaluate(solution, submission, "id", grade_column_name="g", k=4)
    dropped = evaluate(solution, submission, "id", grade_column_name="g", k=4, unjudged="drop")
    # kept: q1 hits c at 2 and a at 4, (1/2 + 2/4) / 2; q2 hits e at 3, 1/3
    assert kept.score == float((Fraction(1, 2) + Fraction(1, 3)) / 2)
    # dropped: q1 ranks c a, (1 + 2/2) / 2; q2 ranks e alone, 1
    assert dropped.score == float((Fraction(1) + Fraction(1)) / 2)
    # The participant's warnings count the rows as submitted, whatever is judged.
    assert [w for w in dropped.warnings if w.audience == "participant"] == [
        w for w in kept.warnings if w.audience == "participant"
    ]


# --- the statistics and the adapters on a long, candidate-checked submission ---------------


@pytest.fixture(scope="module")
def long_case(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("long")
    rng = np.random.default_rng(5)
    ids = [f"s{n:02d}" for n in range(30)]
    candidates = {u: [f"i{j}" for j in rng.choice(20, size=6, replace=False)] for u in ids}
    solution = pd.DataFrame(
        {
            "id": ids,
            "items": [" ".join(candidates[u][:2]) for u in ids],
            "candidates": [" ".join(candidates[u]) for u in ids],
            "Usage": ["Public", "Private"] * 15,
        }
    )
    solution.to_csv(folder / "solution.csv", index=False)
    paths = {"solution": folder / "solution.csv"}
    for name, seed in (("a", 1), ("b", 2)):
        shuffle = np.random.default_rng(seed)
        rows = [
            (u, item, f"{score:.3f}")
            for u in ids
            for item, score in zip(candidates[u], shuffle.random(6), strict=True)
        ]
        frame = pd.DataFrame(rows, columns=["id", "items", "score"])
        frame.to_csv(folder / f"{name}.csv", index=False)
        paths[name] = folder / f"{name}.csv"
    return paths


LONG_FLAGS = (
    "--layout",
    "long",
    "--score-column",
    "score",
    "--candidates-column",
    "candidates",
    "--candidate-rule",
    "permutation",
    "--row-id-column",
    "id",
    "-k",
    "6",
)
LONG_OPTIONS = {
    "layout": "long",
    "score_column_name": "score",
    "candidates_column_name": "candidates",
    "candidate_rule": "permutation",
    "k": 6,
}


def test_long_and_candidates_through_the_command_line_with_intervals(long_case) -> None:
    result = evaluate(long_case["solution"], long_case["a"], "id", **LONG_OPTIONS)
    done = run_scorer(
        long_case["solution"],
        long_case["a"],
        *LONG_FLAGS,
        "--json",
        "--ci",
        "--resamples",
        200,
        "--seed",
        3,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    expected = stats.bootstrap(result, n_resamples=200, seed=3)
    assert data["score"] == result.score
    assert (
        data["options"]["layout"] == "long" and data["options"]["candidate_rule"] == "permutation"
    )
    assert data["intervals"]["MAP@6"]["score"] == [expected["score"].low, expected["score"].high]


def test_long_and_candidates_through_compare_and_report(long_case, tmp_path) -> None:
    a = evaluate(long_case["solution"], long_case["a"], "id", **LONG_OPTIONS)
    b = evaluate(long_case["solution"], long_case["b"], "id", **LONG_OPTIONS)
    expected = stats.compare(a, b, n_resamples=300, seed=1)
    done = run_scorer(
        "compare",
        long_case["solution"],
        long_case["a"],
        long_case["b"],
        *LONG_FLAGS,
        "--resamples",
        300,
        "--seed",
        1,
        "--json",
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)["metrics"]["MAP@6"]
    assert (data["a"], data["b"], data["p_value"]) == (expected.a, expected.b, expected.p_value)
    pytest.importorskip("matplotlib")
    out = tmp_path / "report.html"
    done = run_scorer(
        "report",
        long_case["solution"],
        long_case["a"],
        long_case["b"],
        "--out",
        out,
        *LONG_FLAGS,
        "--resamples",
        100,
    )
    assert done.returncode == 0, done.stderr
    assert f'data-value="{a.score!r}"' in out.read_text()


def test_long_and_candidates_through_codabench_and_evalai(long_case, tmp_path) -> None:
    ref, res, out = tmp_path / "in" / "ref", tmp_path / "in" / "res", tmp_path / "out"
    for folder in (ref, res, out):
        folder.mkdir(parents=True)
    (ref / "solution.csv").write_bytes(long_case["solution"].read_bytes())
    (res / "submission.csv").write_bytes(long_case["a"].read_bytes())
    expected = evaluate(long_case["solution"], long_case["a"], "id", **LONG_OPTIONS)
    values, _ = score_directories(tmp_path / "in", out, row_id_column_name="id", **LONG_OPTIONS)
    assert values["map_at_6"] == expected.score
    shown = evalai.evaluate(
        long_case["solution"], long_case["a"], "test", row_id_column_name="id", **LONG_OPTIONS
    )
    assert shown["submission_result"] == {"map_at_6": expected.public_score}
    done = run_scorer("codabench", tmp_path / "in", tmp_path / "out2", *LONG_FLAGS)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    ("flag", "value"),
    [
        ("--layout", "tall"),
        ("--solution-layout", "wide,long"),
        ("--format", "csv"),
        ("--candidate-rule", "all"),
        ("--unjudged", "skip"),
    ],
)
def test_a_malformed_value_is_a_usage_error(flag, value) -> None:
    done = run_scorer("a.csv", "b.csv", flag, value)
    assert done.returncode == 2
    assert f"argument {flag}: invalid choice: '{value}'" in done.stderr


def test_score_takes_every_shape() -> None:
    solution = pd.DataFrame({"id": ["u1", "u1"], "items": ["a", "b"]})
    submission = pd.DataFrame({"id": ["u1", "u1"], "items": ["b", "x"], "r": ["1", "2"]})
    value = scorer.score(
        solution, submission, "id", layout="long", solution_layout="long", rank_column_name="r"
    )
    assert value == 0.5


# --- the documentation's examples -----------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            (
                "shapes/solution_long.csv",
                "shapes/submission_long.csv",
                "--solution-layout",
                "long",
                "--layout",
                "long",
                "--rank-column",
                "rank",
                "-k",
                "3",
            ),
            {"MAP@3": Fraction(19, 24)},
        ),
        (
            (
                "shapes/solution.csv",
                "shapes/submission_long.csv",
                "--layout",
                "long",
                "--rank-column",
                "rank",
                "-k",
                "3",
                "--candidates-column",
                "candidates",
                "--candidate-rule",
                "permutation",
            ),
            {"MAP@3": Fraction(19, 24)},
        ),
        (
            (
                "trec/qrels.txt",
                "trec/run.txt",
                "--format",
                "trec",
                "-m",
                "MAP(norm=relevant)",
                "-m",
                "P@2",
            ),
            {"MAP(norm=relevant)@all": Fraction(13, 24), "P@2": Fraction(1, 2)},
        ),
        (
            (
                "trec/qrels.txt",
                "trec/run.txt",
                "--format",
                "trec",
                "-m",
                "MAP(norm=relevant)",
                "--unjudged",
                "drop",
            ),
            {"MAP(norm=relevant)@all": Fraction(19, 24)},
        ),
    ],
)
def test_the_readme_examples(args, expected) -> None:
    paths = [FIXTURES / a if a.endswith((".csv", ".txt")) else a for a in args]
    done = run_scorer(*paths, "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["metrics"] == {k: float(v) for k, v in expected.items()}


def test_the_readme_trec_example_is_trec_evals() -> None:
    qrels, run_ = {}, {}
    for line in (FIXTURES / "trec" / "qrels.txt").read_text().splitlines():
        qid, _, doc, rel = line.split()
        if int(rel) >= 0:
            qrels.setdefault(qid, {})[doc] = int(rel)
    for line in (FIXTURES / "trec" / "run.txt").read_text().splitlines():
        qid, _, doc, _, score, _ = line.split()
        run_.setdefault(qid, {})[doc] = float(score)
    theirs = trec_eval().RelevanceEvaluator(qrels, {"map", "P"}).evaluate(run_)
    assert np.mean([theirs[q]["map"] for q in qrels]) == float(Fraction(13, 24))
    assert abs(np.mean([theirs[q]["P_5"] for q in qrels]) - 0.3) <= 1e-12
