"""The benchmark data are right: the generator's exact MAP@10 is what the scorer computes.

No timing here (benchmarks/run.py does that); only correctness at small N, including
the exact fallback every join takes when keyed prints collide.
"""

from __future__ import annotations

import doctest
import json
import re
from fractions import Fraction
from pathlib import Path

import pandas as pd
import pytest

from scorer import evaluate, score
from tests.benchmark_modules import load
from tests.seams import collide_prints

generate = load("generate")
run = load("run")

# Each AP is a float within a few ulps of its exact value and the mean is correctly
# rounded, so the score is within 1e-13 (relative) of the exact MAP.
RELATIVE = Fraction(1, 10**13)


def close(value: float | None, exact: Fraction) -> bool:
    return value is not None and abs(Fraction(value) - exact) <= exact * RELATIVE


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory):
    return generate.generate(3_000, tmp_path_factory.mktemp("bench"), seed=11)


def test_exact_map_is_what_score_computes(dataset) -> None:
    exact = dataset.exact_map
    assert exact == Fraction(dataset.meta["map_at_10"])
    assert 0 < exact < Fraction(1, 5)  # a few percent of hits, as on H&M
    assert close(score(str(dataset.solution), str(dataset.submission)), exact)


def test_public_and_private_exact(dataset) -> None:
    result = evaluate(dataset.solution, dataset.submission)
    assert close(result.public_score, Fraction(dataset.meta["public_map_at_10"]))
    assert close(result.private_score, Fraction(dataset.meta["private_map_at_10"]))
    assert (result.n_scored, result.n_skipped, result.n_ignored) == (3_000, 0, 0)
    codes = [w.code for w in result.warnings]
    assert codes == (["repeated_items"] if dataset.meta["n_repeat_rows"] else [])


def test_dataframes_and_paths_agree_bit_for_bit(dataset) -> None:
    solution = pd.read_csv(dataset.solution, dtype=str, keep_default_na=False)
    submission = pd.read_csv(dataset.submission, dtype=str, keep_default_na=False)
    from_paths = score(str(dataset.solution), str(dataset.submission))
    assert score(solution, submission, "customer_id") == from_paths
    shuffled = submission.sample(frac=1.0, random_state=3)
    assert score(solution.iloc[::-1], shuffled, "customer_id") == from_paths


def test_print_collisions_give_the_exact_map(dataset, monkeypatch) -> None:
    """Every keyed print equal: each join falls back to the exact sort of the strings."""
    collide_prints(monkeypatch)
    expected = dataset.exact_map
    result = evaluate(dataset.solution, dataset.submission)
    assert close(result.score, expected)
    assert close(result.public_score, Fraction(dataset.meta["public_map_at_10"]))


def test_the_peer_is_faithful(dataset) -> None:
    assert close(run.peer_score(dataset), dataset.exact_map)


def test_files_have_the_hm_shape(dataset) -> None:
    solution = pd.read_csv(dataset.solution, dtype=str, keep_default_na=False)
    submission = pd.read_csv(dataset.submission, dtype=str, keep_default_na=False)
    assert list(solution.columns) == ["customer_id", "prediction", "Usage"]
    assert list(submission.columns) == ["customer_id", "prediction"]
    assert solution["customer_id"].str.fullmatch(r"[0-9a-f]{64}").all()
    assert set(submission["customer_id"]) == set(solution["customer_id"])
    assert (submission["customer_id"] != solution["customer_id"]).any()  # shuffled
    predictions = submission["prediction"].str.split()
    assert (predictions.str.len() == 10).all()
    items = {item for row in predictions for item in row}
    assert all(re.fullmatch(r"0[1-9][0-9]{8}", item) for item in items)
    relevant = solution["prediction"].str.split().str.len()
    assert relevant.min() >= 1 and relevant.max() <= 30 and relevant.median() == 3
    assert 0.25 < (solution["Usage"] == "Public").mean() < 0.35


def test_generation_is_deterministic(tmp_path: Path) -> None:
    first = generate.generate(200, tmp_path / "a", seed=5)
    again = generate.generate(200, tmp_path / "b", seed=5)
    other = generate.generate(200, tmp_path / "c", seed=6)
    assert first.submission.read_bytes() == again.submission.read_bytes()
    assert first.solution.read_bytes() == again.solution.read_bytes()
    assert first.solution.read_bytes() != other.solution.read_bytes()
    assert first.meta["map_at_10"] == again.meta["map_at_10"]


def test_ensure_reuses_complete_data(tmp_path: Path) -> None:
    made = generate.ensure(100, seed=2, root=tmp_path)
    assert made.directory == tmp_path / "n100_s2"
    reused = generate.ensure(100, seed=2, root=tmp_path)
    assert reused.meta == made.meta


def test_generator_doctests() -> None:
    outcome = doctest.testmod(generate)
    assert outcome.attempted > 0 and outcome.failed == 0


def test_second_submission_and_statistics_benchmark(dataset) -> None:
    """The statistics benchmark's second submission is valid and differs; its rows
    hold the ratios docs/performance.md reports."""
    other = run.second_submission(dataset)
    assert run.second_submission(dataset) == other  # written once
    first = pd.read_csv(dataset.submission, dtype=str, keep_default_na=False)
    second = pd.read_csv(other, dtype=str, keep_default_na=False)
    assert list(second["customer_id"]) == list(first["customer_id"])
    moved = first["prediction"].str.split().str[1:].str.join(" ") + " "
    moved += first["prediction"].str.split().str[0]
    changed = second["prediction"] != first["prediction"]
    assert changed.iloc[::2].all() and not changed.iloc[1::2].any()
    assert (second["prediction"].iloc[::2] == moved.iloc[::2]).all()
    row = run.bench_statistics(dataset, repeats=1, scoring_s=1.0)
    a, b = evaluate(dataset.solution, dataset.submission), evaluate(dataset.solution, other)
    assert row["compare_b_minus_a"] == b.score - a.score != 0
    assert row["bootstrap_over_scoring"] == row["bootstrap_s"] > 0
    assert row["compare_rss_ratio"] == row["compare_rss_mb"] / row["score_two_rss_mb"]
    assert set(run.statistics_ratios({"n_users": 1, **row})) == {
        "statistics_n_users",
        "bootstrap_over_scoring",
        "compare_over_scoring",
        "bootstrap_rss_ratio",
        "compare_rss_ratio",
    }


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_engine_baselines_compute_the_exact_map(dataset, engine) -> None:
    """The polars and duckdb pipelines the CLI is timed against compute the same MAP@10
    (float means: within 1e-9 of the exact value)."""
    pytest.importorskip(engine)
    value = load("peers").PIPELINES[engine](str(dataset.solution), str(dataset.submission), 10)
    assert abs(Fraction(value) - dataset.exact_map) <= dataset.exact_map * Fraction(1, 10**9)


@pytest.mark.parametrize("mode", ["single", "parts"])
def test_scoring_in_parts_benchmark_gives_the_exact_map(dataset, mode, capsys) -> None:
    parts = load("parts")
    assert parts.main([str(dataset.directory), mode, "--parts", "5"]) == 0
    printed = capsys.readouterr().out
    assert float.fromhex(json.loads(printed)["map_at_10"]) == float(dataset.exact_map)


def test_the_otto_workload_scores_as_generated(tmp_path: Path) -> None:
    """benchmarks/generate_otto.py: its exact values (computed without the scorer) are
    the scorer's, per type and weighted; OTTO's micro average comes from the per-user
    table; the polars pipeline computes the same weighted total (a float mean)."""
    otto = load("generate_otto")
    data = otto.generate(3_000, seed=4)
    expected = otto.expected_scores(data)
    otto.write(tmp_path, data, 3_000)
    result = evaluate(
        tmp_path / "solution.csv",
        tmp_path / "submission.csv",
        metrics=["R(norm=min_k)@20"],
        row_id_type_separator="_",
        type_weights=otto.WEIGHTS,
        per_user=True,
    )
    assert result.score == expected["macro"]
    for kind in otto.TYPES:
        value = result.by_type[kind]["R(norm=min_k)@20"]
        assert value == float(Fraction(expected["by_type"][kind]))
        rows = result.per_user[result.per_user["type"] == kind]
        events = rows["n_relevant"].clip(upper=20)
        micro = Fraction(int(rows["hits"].sum()), int(events.sum()))
        assert micro == Fraction(expected["otto_by_type"][kind])
    pytest.importorskip("polars")
    peer = load("peers").polars_otto(
        str(tmp_path / "solution.csv"), str(tmp_path / "submission.csv")
    )
    assert abs(Fraction(peer) - Fraction(expected["macro_exact"])) <= Fraction(1, 10**12)


def test_leaderboard_benchmarks_submissions(dataset) -> None:
    """benchmarks/leaderboard.py's submissions: each ranks one fixed list for more rows
    than the one before (so scores less), and the last is the fourth, rows reordered."""
    import scorer

    folder = load("leaderboard").submissions(dataset, 6)
    frames = {p.name: pd.read_csv(p, dtype=str, keep_default_na=False) for p in folder.iterdir()}
    first = pd.read_csv(dataset.submission, dtype=str, keep_default_na=False)
    fixed = first["prediction"].iloc[0]
    shares = [(frames[f"team_{i:02d}.csv"]["prediction"] == fixed).mean() for i in range(5)]
    assert shares == sorted(shares) and shares[0] > 0
    copy, fourth = frames["team_05.csv"], frames["team_03.csv"]
    assert (
        copy.sort_values("customer_id").values.tolist()
        == fourth.sort_values("customer_id").values.tolist()
    )
    assert list(copy["customer_id"]) != list(fourth["customer_id"])
    board = scorer.leaderboard(dataset.solution, folder, resamples=0)
    assert board.copies.identical == (("team_03.csv", "team_05.csv"),)


def test_the_trec_eval_benchmarks_judged_qrels(tmp_path: Path) -> None:
    bench = load("trec_eval")
    qrels, run_file = bench.generate(tmp_path, queries=20, depth=10, seed=3, judged=8)
    judged = [line.split() for line in qrels.read_text().splitlines()]
    retrieved = [line.split() for line in run_file.read_text().splitlines()]
    assert len(judged) == 20 * 8 and {rel for *_, rel in judged} <= {"0", "1", "2"}
    for qid in {line[0] for line in retrieved}:
        docs = [doc for q, _, doc, _ in judged if q == qid]
        ranked = {doc for q, _, doc, *_ in retrieved if q == qid}
        assert len(set(docs)) == 8 and len(ranked.intersection(docs)) == 4
    # The lines compared leave rbp's out (trec_eval 10 reads uninitialised variables).
    printed = {"stdout": "map\tall\t0.5\nrbp\tall\t0.1\n"}
    other_rbp = {"stdout": "map\tall\t0.5\nrbp\tall\t0.9\n"}
    bench.check({"scorer": printed, "trec_eval": other_rbp}, {})
    with pytest.raises(AssertionError, match="print different lines"):
        bench.check({"scorer": printed, "trec_eval": {"stdout": "map\tall\t0.4\n"}}, {})
