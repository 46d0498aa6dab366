"""The final leaderboard (``scorer.leaderboard``, ``scorer leaderboard``, ``scorer compare``
with more than two submissions): values, ties, tiers against slow references, invariance,
copies, outputs parsed back."""

from __future__ import annotations

import csv
import html
import inspect
import io
import json
import math
import os
import re
import subprocess
import sys
import unicodedata
from dataclasses import replace
from fractions import Fraction
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import scorer
from scorer.options import OPTIONS
from scorer.stats.copies import NEAR_COPY_SHARE
from scorer.stats.leaderboard import printable
from scorer.stats.ranking import competition_ranks, holm
from tests import paths
from tests.commands import run_scorer, run_scorer_process
from tests.reference import (
    reference_ap,
    reference_holm,
    reference_ranks,
    reference_sign_flip_p,
    reference_tiers,
)

ITEMS = [f"i{j}" for j in range(12)]


def contest(n_users: int, n_submissions: int, seed: int, k: int = 5) -> tuple[pd.DataFrame, dict]:
    """A solution with Usage and submissions of random rankings (a shared random part, so
    that some pairs differ little)."""
    rng = np.random.default_rng(seed)
    ids = [f"u{i:03d}" for i in range(n_users)]
    truth = [" ".join(rng.choice(ITEMS, rng.integers(1, 4), replace=False)) for _ in ids]
    usage = rng.choice(["Public", "Private"], n_users)
    solution = pd.DataFrame({"id": ids, "items": truth, "Usage": usage})
    submissions = {}
    for s in range(n_submissions):
        rows = [" ".join(rng.choice(ITEMS, k, replace=False)) for _ in ids]
        submissions[f"s{s}"] = pd.DataFrame({"id": ids, "items": rows})
    return solution, submissions


@pytest.fixture(scope="module")
def board_and_inputs() -> tuple[scorer.Leaderboard, pd.DataFrame, dict]:
    solution, submissions = contest(120, 4, seed=1)
    submissions["copy"] = submissions["s1"].iloc[::-1].reset_index(drop=True)
    submissions["broken"] = pd.DataFrame({"id": ["u000"], "items": ["i1"]})
    return scorer.leaderboard(solution, submissions, k=5, resamples=300), solution, submissions


def test_values_are_evaluates_bit_for_bit(board_and_inputs) -> None:
    board, solution, submissions = board_and_inputs
    for row in board.rows:
        if row.error is not None:
            continue
        result = scorer.evaluate(solution, submissions[row.submission], k=5)
        expected = {"overall": result.score, "Public": result.public_score}
        expected["Private"] = result.private_score
        assert row.value == expected[row.split]
        assert row.metrics == {"MAP@5": expected[row.split]}


def test_an_invalid_submission_is_a_row_with_its_participant_message(board_and_inputs) -> None:
    board, solution, submissions = board_and_inputs
    with pytest.raises(scorer.ParticipantVisibleError) as raised:
        scorer.evaluate(solution, submissions["broken"], k=5)
    rows = [row for row in board.rows if row.entry == "broken"]
    assert [row.split for row in rows] == ["overall", "Public", "Private"]
    assert all(row.rank is None and row.error == str(raised.value) for row in rows)
    assert rows == [r for r in board.rows if r.error is not None]


def test_an_invalid_submissions_message_keeps_its_lines_in_every_page() -> None:
    # Its message echoes a row id of its own holding a run of backticks: in Markdown it
    # stays inside its fence; in HTML its line breaks and indents are kept.
    solution, submissions = contest(10, 1, seed=7)
    bad = pd.concat([submissions["s0"], pd.DataFrame({"id": ["x````y"], "items": ["i1"]})])
    board = scorer.leaderboard(solution, {"s0": submissions["s0"], "bad": bad}, k=5)
    error = next(row.error for row in board.rows if row.entry == "bad")
    assert "x````y" in error and len(error.splitlines()) > 3
    section = board.to_markdown().split("## Invalid submissions\n\n")[1].split("\n## ")[0]
    lines = "".join(f"  {line}\n" for line in error.splitlines())
    assert section == f"- bad:\n\n  `````text\n{lines}  `````\n"
    assert f'<td class="message">{html.escape(error)}</td>' in board.to_html()
    assert "td.message { text-align: left; white-space: pre-wrap;" in board.to_html()


def test_a_board_of_invalid_submissions_only_has_the_overall_rows() -> None:
    # Which splits a result has is read off a valid result (docs/leaderboard.md).
    solution, _ = contest(10, 0, seed=8)
    broken = {name: pd.DataFrame({"id": ["u000"], "items": ["i1"]}) for name in "ab"}
    board = scorer.leaderboard(solution, broken, k=5, resamples=10)
    assert [(row.split, row.entry) for row in board.rows] == [("overall", "a"), ("overall", "b")]
    assert all(row.rank is None and "Missing rows" in (row.error or "") for row in board.rows)


def test_ranks_tie_exactly_and_skip() -> None:
    assert competition_ranks(np.array([0.3, 0.7, 0.3, 0.1, 0.7])).tolist() == [3, 1, 3, 5, 1]
    close = np.nextafter(0.5, 1.0)  # one bit apart: no tie
    assert competition_ranks(np.array([0.5, close, 0.5])).tolist() == [2, 1, 2]


@given(st.lists(st.sampled_from([0.0, 0.25, 0.5, 1 / 3, 1.0]), min_size=1, max_size=12))
def test_ranks_are_one_plus_the_larger_values(values: list[float]) -> None:
    expected = reference_ranks({str(i): Fraction(v) for i, v in enumerate(values)})
    assert competition_ranks(np.array(values)).tolist() == list(expected.values())


def test_copies_tie_and_are_grouped(board_and_inputs) -> None:
    board = board_and_inputs[0]
    ranks = {row.entry: row for row in board.table("overall")}
    copy, original = ranks["copy"], ranks["s1"]
    assert (copy.rank, copy.rank_low, copy.rank_high, copy.tier, copy.value_low) == (
        original.rank,
        original.rank_low,
        original.rank_high,
        original.tier,
        original.value_low,
    )
    assert board.copies.identical == (("copy", "s1"),)


def test_holm_adjusts_as_the_step_down_procedure_rejects() -> None:
    p = np.array([0.01, 0.04, 0.03, 0.5, 0.012])
    adjusted = holm(p)
    pairs = {(str(i), "x"): Fraction(value) for i, value in enumerate(p.tolist())}
    for alpha in (0.01, 0.05, 0.06, 0.2):
        rejected = {pair for pair in pairs if adjusted[int(pair[0])] <= alpha}
        assert rejected == reference_holm(pairs, Fraction(alpha))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(3, 8), st.integers(2, 5))
def test_tiers_and_p_values_equal_the_exact_references(seed: int, n_users: int, n: int) -> None:
    """At most 8 users: every test enumerates its sign patterns; p-values, Holm and the
    tiers from their definitions, on AP@3 computed in fractions."""
    solution, submissions = contest(n_users, n, seed, k=3)
    solution = solution.drop(columns="Usage")
    board = scorer.leaderboard(solution, submissions, k=3, resamples=50, alpha=0.5)
    truth = {row.id: set(row.items.split()) for row in solution.itertuples()}
    aps = {
        name: [
            reference_ap(dict(zip(s.id, s["items"], strict=True))[u].split(), truth[u], 3)
            for u in truth
        ]
        for name, s in submissions.items()
    }
    values = {name: sum(a, Fraction(0)) / n_users for name, a in aps.items()}
    p_values = {}
    for pair in board.pairs:
        differences = [x - y for x, y in zip(aps[pair.first], aps[pair.second], strict=True)]
        p_values[(pair.first, pair.second)] = reference_sign_flip_p(differences)
        assert pair.exact and pair.p_value == float(p_values[(pair.first, pair.second)])
        assert pair.difference == float(values[pair.first]) - float(values[pair.second])
    assert len(p_values) == n * (n - 1) // 2
    tiers = reference_tiers(values, reference_holm(p_values, Fraction(1, 2)))
    assert {row.entry: row.tier for row in board.rows} == tiers
    assert {row.entry: row.rank for row in board.rows} == reference_ranks(values)


def test_monte_carlo_p_values_estimate_the_exact_one() -> None:
    """20 users differ: too many to enumerate in the package, not for the reference."""
    ids = [f"u{i:02d}" for i in range(20)]
    solution = pd.DataFrame({"id": ids, "items": ["a"] * 20})
    b_first = [True] * 13 + [False] * 7  # B finds the item first for 13 users, A for 7
    a = pd.DataFrame({"id": ids, "items": ["z a" if first else "a z" for first in b_first]})
    b = pd.DataFrame({"id": ids, "items": ["a z" if first else "z a" for first in b_first]})
    board = scorer.leaderboard(solution, {"a": a, "b": b}, k=2, resamples=20_000, seed=4)
    (pair,) = board.pairs
    # Every difference is 1/2 in size: a sign pattern's statistic is |2 j - 20| / 2 for j
    # positive signs, so the 2^20 patterns are counted by j.
    observed = abs(sum(1 if first else -1 for first in b_first))
    extreme = sum(math.comb(20, j) for j in range(21) if abs(2 * j - 20) >= observed)
    assert not pair.exact
    assert abs(pair.p_value - extreme / 2**20) < 0.02


def test_the_same_leaderboard_whatever_the_submissions_order(tmp_path: Path) -> None:
    solution, submissions = contest(150, 4, seed=7)
    paths = []
    for name, table in submissions.items():
        table.to_csv(tmp_path / f"{name}.csv", index=False)
        paths.append(tmp_path / f"{name}.csv")
    first = scorer.leaderboard(solution, paths, k=5, resamples=200, seed=3)
    again = scorer.leaderboard(solution, paths[::-1], k=5, resamples=200, seed=3)
    backwards = {f"{name}.csv": table for name, table in reversed(list(submissions.items()))}
    frames = scorer.leaderboard(solution, backwards, k=5, resamples=200, seed=3)
    assert first.to_json() == again.to_json()
    assert [r for r in first.rows] == [r for r in frames.rows]
    assert first.pairs == frames.pairs
    assert any(not pair.exact for pair in first.pairs)  # the Monte-Carlo path ran


def test_pairs_tested_a_block_at_a_time_give_the_same_leaderboard(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from scorer.stats import ranking

    solution, submissions = contest(60, 6, seed=12)
    whole = scorer.leaderboard(solution, submissions, k=5, resamples=100)
    monkeypatch.setattr(ranking, "_PAIR_BLOCK", 4)
    blocks = scorer.leaderboard(solution, submissions, k=5, resamples=100)
    assert (blocks.rows, blocks.pairs) == (whole.rows, whole.pairs)
    assert len(whole.pairs) == 3 * 15


def test_the_same_leaderboard_whatever_the_threads(tmp_path: Path) -> None:
    solution, submissions = contest(300, 3, seed=11)
    solution.to_csv(tmp_path / "solution.csv", index=False)
    for name, table in submissions.items():
        table.to_csv(tmp_path / f"{name}.csv", index=False)
    outputs = []
    for threads in ("1", "2"):
        names = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
        env = {**os.environ, **dict.fromkeys(names, threads)}
        args = [tmp_path / "solution.csv", *(tmp_path / f"{n}.csv" for n in submissions)]
        done = run_scorer("leaderboard", *args, "-k", "5", "--json", env=env, timeout=300)
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]


def test_teams_take_their_best_submission_on_each_split(board_and_inputs) -> None:
    _, solution, submissions = board_and_inputs
    runs = {name: table for name, table in submissions.items() if name != "broken"}
    teams = {"s0": "red", "s1": "red", "s2": "blue", "s3": "blue", "copy": "green"}
    board = scorer.leaderboard(solution, runs, k=5, teams=teams, resamples=100)
    alone = scorer.leaderboard(solution, runs, k=5, resamples=100)
    for row in board.rows:
        members = [r for r in alone.table(row.split) if teams[r.entry] == row.entry]
        best = max(members, key=lambda r: (r.value, [-ord(c) for c in r.entry]))
        assert (row.submission, row.value) == (best.entry, best.value)
    assert sorted({row.entry for row in board.rows}) == ["blue", "green", "red"]


def test_teams_must_cover_every_submission() -> None:
    solution, submissions = contest(10, 2, seed=0)
    with pytest.raises(scorer.HostVisibleError, match=r"1 submissions have no team: \['s1'\]"):
        scorer.leaderboard(solution, submissions, teams={"s0": "a"})


def test_near_copies_are_listed_with_their_share_across_line_endings(tmp_path: Path) -> None:
    solution, submissions = contest(200, 1, seed=5)
    original = submissions["s0"]
    lines = [f"{row.id},{row.items}" for row in original.itertuples()]
    (tmp_path / "original.csv").write_text("id,items\n" + "\n".join(lines) + "\n")
    spaced = [
        f"{row.id}, {'   '.join(row.items.split())} " for row in original.iloc[::-1].itertuples()
    ]
    (tmp_path / "spaced.csv").write_bytes(("id,items\r\n" + "\r\n".join(spaced) + "\r\n").encode())
    near = original.copy()
    near.loc[: 200 * (1 - NEAR_COPY_SHARE) - 1, "items"] = "i0 i1 i2 i3 i4"  # 10 % of rows
    far = original.copy()
    far.loc[:100, "items"] = "i0 i1 i2 i3 i4"
    inputs = {
        "original": tmp_path / "original.csv",
        "spaced": tmp_path / "spaced.csv",
        "near": near,
        "far": far,
    }
    board = scorer.leaderboard(solution, inputs, k=5, resamples=0)
    assert board.copies.identical == (("original", "spaced"),)
    changed = int((near["items"] != original["items"]).sum())
    share = (200 - changed) / 200
    assert share >= NEAR_COPY_SHARE
    assert board.copies.similar == (("near", "original", share), ("near", "spaced", share))


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from(["a", "ab", "abc", "b", "bc", "c"]), max_size=4),
        min_size=1,
        max_size=6,
    ),
    st.integers(1, 4),
)
@example([["a", "bc"], ["ab", "c"], ["abc"], [], ["a", "bc", "c"]], 2)  # the same bytes
def test_row_prints_are_the_same_through_any_spacing(rows: list[list[str]], k: int) -> None:
    """Cells single-spaced and the same items spaced otherwise give the same prints, and
    two rows' prints are equal exactly when their top k items are."""
    import pyarrow as pa

    from scorer.align.item_lists import split_lists
    from scorer.stats.copies import row_prints

    users = np.arange(len(rows))
    single = split_lists(pa.array([" ".join(row) for row in rows], pa.large_string()))
    spaced = split_lists(pa.array(["  ".join(row) + " " for row in rows]))
    prints = row_prints(single, users, len(rows), k, (5, 7))
    assert prints.tolist() == row_prints(spaced, users, len(rows), k, (5, 7)).tolist()
    same = [[a[:k] == b[:k] for b in rows] for a in rows]
    assert [[x == y for y in prints] for x in prints] == same


def test_the_solution_row_id_index_is_made_once(monkeypatch) -> None:
    """Every submission of a leaderboard probes the solution's row ids through one index,
    its print groups made once (a single run frees them once its rows are matched)."""
    from scorer.align import joins
    from scorer.stats.leaderboard import _Scorer, _Source

    made = []
    original = joins._print_groups

    def counted(strings, key):
        made.append(len(strings))
        return original(strings, key)

    monkeypatch.setattr(joins, "_print_groups", counted)
    solution, submissions = contest(40, 3, seed=4)
    scoring = _Scorer(solution, None, {"k": 5})
    index = scoring.half.solution.row_id_index
    for submission in submissions.values():
        scoring.scored(scoring.checked(_Source("", "", submission), (3, 5))[1], (3, 5))
    assert "_groups" in vars(index)
    # once, as the solution is checked (the submissions' own row ids, as many, are
    # matched against it and never grouped)
    assert made.count(len(solution)) == 1


def test_one_submission_in_memory_at_a_time(monkeypatch) -> None:
    """While a submission is scored, the result of the one before it is gone (zip() once
    held each result while the next was scored: docs/leaderboard.md, "Memory")."""
    import gc
    import weakref

    from scorer.stats import leaderboard as board_module

    results: list[weakref.ref] = []
    alive_at_start: list[int] = []
    add, score = board_module._Kept.add, board_module._Scorer.scored

    def kept(self, index, result, prints):
        results.append(weakref.ref(result))
        add(self, index, result, prints)

    def scored(self, checked, key):
        gc.collect()
        alive_at_start.append(sum(found() is not None for found in results))
        return score(self, checked, key)

    monkeypatch.setattr(board_module._Kept, "add", kept)
    monkeypatch.setattr(board_module._Scorer, "scored", scored)
    solution, submissions = contest(50, 4, seed=6)
    scorer.leaderboard(solution, submissions, k=5, resamples=0)
    assert alive_at_start == [0, 0, 0, 0]


@pytest.mark.parametrize("given", ["tables", "files"])
@pytest.mark.parametrize("where", ["scoring", "keeping"])
def test_an_error_while_scoring_leaves_no_submission_being_read(
    monkeypatch, tmp_path, where, given
) -> None:
    """The next submission is read on the pool while one is scored (and a file's
    SHA-256 taken beside its reading); an error in the scoring, or in keeping what the
    statistics need of it, leaves once that reading and that digest have ended, or
    with them cancelled before they began (they never begin later)."""
    import threading
    import time

    from scorer.stats import leaderboard as board_module

    checked, digest = board_module._Scorer.checked, board_module.input_sha256
    events, lock = [], threading.Lock()

    def slowly(name: str, work):
        with lock:
            events.append(("read", name))
        if not name.endswith("s0"):  # still at work once the first has failed
            time.sleep(0.3)
        found = work()
        with lock:
            events.append(("done", name))
        return found

    def counted(self, source, key, *taken):
        return slowly(source.name, lambda: checked(self, source, key, *taken))

    def digested(data, limits=None):
        if not isinstance(data, str | os.PathLike):  # a table's, taken once it is read
            return digest(data, limits)
        return slowly(f"sha256 {Path(data).stem}", lambda: digest(data, limits))

    def fails(self, found, key):
        raise MemoryError("no memory left to score")

    monkeypatch.setattr(board_module._Scorer, "checked", counted)
    monkeypatch.setattr(board_module, "input_sha256", digested)
    if where == "scoring":
        monkeypatch.setattr(board_module._Scorer, "scored", fails)
    else:
        monkeypatch.setattr(board_module._Kept, "add", lambda *_: fails(None, None, None))
    solution, submissions = contest(60, 3, seed=8)
    if given == "files":
        for name, table in submissions.items():
            table.to_csv(tmp_path / f"{name}.csv", index=False)
            submissions[name] = tmp_path / f"{name}.csv"
    # The error is held, with its frames, as a caller (or a notebook's last traceback)
    # would hold it: the reading ahead must have ended all the same.
    with pytest.raises(MemoryError, match="no memory left to score") as held:
        scorer.leaderboard(solution, submissions, k=5, resamples=0)
    with lock:
        events.append(("raised", ""))
    time.sleep(0.5)  # time for a reading left behind to show (none may)
    raised = events.index(("raised", ""))
    begun = {name for what, name in events[:raised] if what == "read"}
    assert events[raised + 1 :] == []
    assert begun == {name for what, name in events[:raised] if what == "done"} >= {"s0"}
    assert ("sha256 s0" in begun) == (given == "files")
    assert held.value.__traceback__ is not None


def test_the_statistics_need_resamples() -> None:
    solution, submissions = contest(30, 2, seed=2)
    board = scorer.leaderboard(solution, submissions, k=5, resamples=0)
    assert all(row.tier is None and row.rank is not None for row in board.rows)
    assert board.pairs == () and board.notes == (
        "resamples=0: values and ranks only, without intervals, tests or tiers.",
    )


def test_target_types_and_micro_measures_rank_as_evaluate_scores() -> None:
    rng = np.random.default_rng(3)
    ids = [f"{s}_{kind}" for s in range(60) for kind in ("clicks", "orders")]
    truth = [" ".join(rng.choice(ITEMS, 2, replace=False)) for _ in ids]
    usage = [split for split in ("Public", "Private") * 30 for _ in range(2)]  # by session
    solution = pd.DataFrame({"id": ids, "items": truth, "Usage": usage})
    runs = {
        f"r{s}": pd.DataFrame({"id": ids, "items": [" ".join(rng.choice(ITEMS, 4)) for _ in ids]})
        for s in range(3)
    }
    options = {"row_id_type_separator": "_", "metrics": ["R(avg=micro)@4"], "k": 4}
    board = scorer.leaderboard(solution, runs, resamples=200, **options)
    for row in board.rows:
        result = scorer.evaluate(solution, runs[row.submission], **options)
        split = {"overall": result.score, "Public": result.public_score}
        assert row.value == {**split, "Private": result.private_score}[row.split]
        assert row.tier is not None and row.rank_low <= row.rank_high
    assert len(board.pairs) == 3 * 3


def test_trec_files_rank_as_evaluate_scores_them(tmp_path: Path) -> None:
    """A qrels solution is read once by the leaderboard for every run (trec_eval's
    files have no header)."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{q} 0 d{d} {(q + d) % 3}\n" for q in range(8) for d in range(5)))
    runs = {}
    for name, shift in (("bm25", 0), ("dense", 2)):
        path = tmp_path / f"{name}.run"
        lines = [
            f"q{q} Q0 d{(d + shift + q) % 6} {d + 1} {10 - d} {name}\n"
            for q in range(8)
            for d in range(4)
        ]
        path.write_text("".join(lines))
        runs[name] = path
    options = {"format": "trec", "metrics": ["MAP", "nDCG@3"]}
    board = scorer.leaderboard(qrels, runs, resamples=100, **options)
    for row in board.rows:
        result = scorer.evaluate(qrels, runs[row.entry], **options)
        assert (row.value, row.metrics) == (result.score, result.metrics)
    # trec_eval's files read names in the trec dialect: MAP is trec_eval's map.
    assert board.metric == "MAP(norm=relevant)@all" and len(board.pairs) == 1


def test_trec_runs_ranked_alike_are_copies_whatever_their_line_order(tmp_path: Path) -> None:
    """A trec_eval run's rankings are printed as it is judged: the same documents in the
    same order (by score) are a copy, the file's line order and rank field aside."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{q} 0 d{d} {(q + d) % 2}\n" for q in range(6) for d in range(4)))
    lines = [f"q{q} Q0 d{d} {d} {9 - d} tag\n" for q in range(6) for d in range(5)]
    runs = {"a": lines, "b": lines[::-1], "c": [line.replace("d4", "d9") for line in lines]}
    paths = {}
    for name, text in runs.items():
        paths[name] = tmp_path / f"{name}.run"
        paths[name].write_text("".join(text))
    board = scorer.leaderboard(qrels, paths, resamples=50, format="trec", metrics=["map"])
    assert board.copies.identical == (("a", "b"),)


def test_gap_is_ranked_without_statistics() -> None:
    solution = pd.DataFrame({"id": ["a", "b", "c"], "label": ["x", "y", "z"]})
    runs = {
        "good": pd.DataFrame({"id": ["a", "b", "c"], "label": ["x 0.9", "y 0.8", "q 0.1"]}),
        "poor": pd.DataFrame({"id": ["a", "b", "c"], "label": ["q 0.9", "y 0.8", "q 0.1"]}),
    }
    board = scorer.leaderboard(solution, runs, metrics=["GAP"], k=1)
    assert [(row.entry, row.rank, row.tier) for row in board.rows] == [
        ("good", 1, None),
        ("poor", 2, None),
    ]
    assert "GAP is not a mean over rows" in board.notes[0]


def test_a_recipe_applies_as_in_evaluate() -> None:
    solution, submissions = contest(40, 2, seed=9, k=12)
    board = scorer.leaderboard(solution, submissions, recipe="h-and-m-2022", resamples=0)
    for row in board.table("Private"):
        result = scorer.evaluate(solution, submissions[row.entry], recipe="h-and-m-2022")
        assert (board.metric, row.value) == ("MAP@12", result.private_score)
    assert board.audit.options["metrics"] == ["MAP@12"]


def test_the_signature_takes_every_declared_option() -> None:
    parameters = inspect.signature(scorer.leaderboard).parameters
    own = ["teams", "resamples", "seed", "alpha"]
    assert list(parameters) == ["solution", "submissions", *(o.name for o in OPTIONS), *own]
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'per_user'"):
        scorer.leaderboard(pd.DataFrame(), {}, per_user=True)
    with pytest.raises(TypeError, match=r"Did you mean 'resamples'\?"):
        scorer.leaderboard(pd.DataFrame(), {}, resample=10)


def test_the_command_has_a_flag_for_every_declared_option() -> None:
    from scorer.adapters.cli import add_scoring_options
    from scorer.adapters.commands import leaderboard_parser

    flags = leaderboard_parser(add_scoring_options)._option_string_actions
    assert all(flag in flags for option in OPTIONS for flag in option.flags)
    assert {"--manifest", "--out", "--resamples", "--seed", "--alpha"} <= set(flags)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"resamples": -1}, "resamples must be an int from 0 to 10,000,000, not -1"),
        ({"resamples": 10**7 + 1}, "resamples must be an int from 0 to 10,000,000, not 10000001"),
        ({"alpha": 1.0}, "alpha must be a number strictly between 0 and 1, not 1.0"),
        ({"seed": "x"}, "seed must be an int >= 0, not 'x'"),
    ],
)
def test_settings_are_checked(settings: dict, message: str) -> None:
    with pytest.raises(scorer.HostVisibleError, match=re.escape(message)):
        scorer.leaderboard(pd.DataFrame(), {}, **settings)


def test_audit_names_inputs_versions_options_and_seed(board_and_inputs, tmp_path: Path) -> None:
    board, solution, _ = board_and_inputs
    audit = board.audit
    assert (audit.seed, audit.resamples, audit.alpha, audit.options) == (0, 300, 0.05, {"k": 5})
    assert set(audit.versions) == {"python", "rankscore", "numpy", "pandas", "pyarrow"}
    solution.to_csv(tmp_path / "solution.csv", index=False)
    again = scorer.leaderboard(tmp_path / "solution.csv", {"s": solution[["id", "items"]]})
    import hashlib

    digest = hashlib.sha256((tmp_path / "solution.csv").read_bytes()).hexdigest()
    assert again.audit.inputs == {"solution": digest}
    for text in (board.to_csv(), board.to_json(), board.to_markdown(), board.to_latex()):
        assert audit.inputs["solution"] in text and "seed" in text


def test_csv_and_json_read_back(board_and_inputs) -> None:
    board = board_and_inputs[0]
    assert json.loads(board.to_json()) == json.loads(json.dumps(board.to_dict()))
    rows = list(csv.DictReader(io.StringIO(board.to_csv())))
    assert len(rows) == len(board.rows)
    for line, row in zip(rows, board.rows, strict=True):
        assert (line["split"], line["entry"]) == (row.split, row.entry)
        assert (float(line["value"]) if line["value"] else None) == row.value
        assert (int(line["tier"]) if line["tier"] else None) == row.tier
        assert (float(line["value_low"]) if line["value_low"] else None) == row.value_low
        assert line["error"] == (row.error or "")


def test_markdown_reads_back_with_the_best_in_bold(board_and_inputs) -> None:
    board = board_and_inputs[0]
    text = board.to_markdown()
    for split in board.splits:
        section = text.split(f"## {split}\n\n")[1].split("\n\n")[0].splitlines()
        assert section[1] == "|---:|---|---:|---|---|---:|"
        cells = [re.split(r"(?<!\\)\|", line)[1:-1] for line in section[2:]]
        for found, row in zip(cells, board.table(split), strict=True):
            value = found[2].strip()
            assert found[1].strip().replace("\\", "") == row.entry
            if row.rank == 1:
                assert value == f"**{row.value:.6f}**"
            elif row.value is not None:
                assert value == f"{row.value:.6f}"


def test_latex_is_balanced_with_one_cell_per_column(board_and_inputs) -> None:
    board = board_and_inputs[0]
    text = board.to_latex()
    body = "\n".join(line for line in text.splitlines() if not line.startswith("%"))
    assert body.count("{") - body.count(r"\{") == body.count("}") - body.count(r"\}")
    assert body.count(r"\begin{tabular}") == body.count(r"\end{tabular}") == len(board.splits)
    rows = [line for line in body.splitlines() if line.endswith(r"\\")]
    assert all(len(re.split(r"(?<!\\)&", line)) == 6 for line in rows)
    assert len(rows) == len(board.rows) + len(board.splits)  # a header per table
    assert r"\textbf{" in body


class _Checked(HTMLParser):
    """Every element closed in order (void elements aside)."""

    VOID = frozenset({"meta", "line", "br", "img"})

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.svgs = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.svgs += tag == "svg"
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list) -> None:
        pass

    def handle_endtag(self, tag: str) -> None:
        assert self.stack.pop() == tag


def test_html_is_well_formed_with_the_intervals_drawn(board_and_inputs) -> None:
    board = board_and_inputs[0]
    page = board.to_html("Final <standings>")
    checked = _Checked()
    checked.feed(page)
    assert checked.stack == []
    ranked = [row for row in board.rows if row.rank is not None]
    assert checked.svgs == len(ranked)
    assert "<title>Final &lt;standings&gt;</title>" in page
    assert page.count('<tr class="best">') == sum(row.rank == 1 for row in board.rows)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("contest")
    solution, submissions = contest(80, 3, seed=4)
    solution.to_csv(folder / "solution.csv", index=False)
    runs = folder / "runs"
    runs.mkdir()
    for name, table in submissions.items():
        table.to_csv(runs / f"{name}.csv", index=False)
    (runs / "bad.csv").write_text("id,items\nu000,i1\n")
    (folder / "manifest.csv").write_text(
        "submission,team,name\nruns/s0.csv,red,first\nruns/s1.csv,red,second\nruns/s2.csv,blue,third\n"
    )
    return folder


def test_the_command_ranks_a_directory_as_the_api_does(files: Path) -> None:
    done = run_scorer("leaderboard", files / "solution.csv", files / "runs", "-k", "5", "--json")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    expected = scorer.leaderboard(files / "solution.csv", files / "runs", k=5)
    assert found["rows"] == json.loads(expected.to_json())["rows"]
    assert [s["name"] for s in found["submissions"]] == ["bad.csv", "s0.csv", "s1.csv", "s2.csv"]


def test_the_command_reads_a_manifest_with_teams(files: Path, tmp_path: Path) -> None:
    out = tmp_path / "board.csv"
    args = ["--manifest", files / "manifest.csv", "-k", "5", "--out", out]
    done = run_scorer("leaderboard", files / "solution.csv", *args)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"Leaderboard written to {out} (3 submissions, 0 invalid)\n"
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert {row["entry"] for row in rows} == {"red", "blue"}
    assert {row["submission"] for row in rows} <= {"first", "second", "third"}


@pytest.mark.parametrize("suffix", [".csv", ".json", ".md", ".tex", ".html"])
def test_the_command_writes_each_format(files: Path, tmp_path: Path, suffix: str) -> None:
    out = tmp_path / f"board{suffix}"
    done = run_scorer(
        "leaderboard", files / "solution.csv", files / "runs", "-k", "5", "--out", out
    )
    assert done.returncode == 0, done.stderr
    board = scorer.leaderboard(files / "solution.csv", files / "runs", k=5)
    assert out.read_text() == board.render(suffix)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["runs", "--out", "board.txt"], "--out names the format by its suffix"),
        (["runs/s0.csv", "runs/none.csv"], "1 submission file does not exist: 'none.csv'"),
        (
            ["runs/s0.csv", "runs/x.csv", "nope.csv"],
            "2 submission files do not exist: 'nope.csv' (",
        ),
        (["runs", "--manifest", "manifest.csv"], "as files or as --manifest, not both"),
        ([], "No submission: give submission files"),
        (["runs", "--out", "solution.csv"], "it is the solution file and would be replaced"),
        (["runs/s0.csv", "runs/s1.csv", "--out", "runs/s0.csv"], "s0.csv file and would be"),
        (["runs", "--out", "runs/board.csv"], "it is in the folder of the submissions"),
        (["runs/s0.csv", "runs"], "1 submission path is not a file: 'runs'"),
        (["--manifest", "nowhere.csv"], "The manifest '"),
        (["runs", "--json", "--out", "board.json"], "Give --json (the JSON on standard"),
    ],
)
def test_the_command_refuses_with_a_host_error(files: Path, args: list, message: str) -> None:
    paths = [files / a if not a.startswith("-") and a != "board.txt" else a for a in args]
    done = run_scorer("leaderboard", files / "solution.csv", *paths, "-k", "5")
    assert done.returncode == 2
    assert message in done.stderr


def test_compare_with_more_than_two_submissions_gives_every_pair(files: Path) -> None:
    runs = [files / "runs" / f"s{i}.csv" for i in range(3)]
    done = run_scorer(
        "compare", files / "solution.csv", *runs, "-k", "5", "--json", "--resamples", 500
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)["metrics"]["MAP@5"]
    assert [(p["a"], p["b"]) for p in found["pairs"]] == [("1", "2"), ("1", "3"), ("2", "3")]
    expected = scorer.leaderboard(
        files / "solution.csv", dict(zip("123", runs, strict=True)), k=5, resamples=500
    )
    values = {row.entry: row.value for row in expected.table()}
    for pair in found["pairs"]:
        assert pair["difference"] == values[pair["b"]] - values[pair["a"]]
        assert pair["p_value_holm"] >= pair["p_value"]
    assert [s["tier"] for s in found["submissions"]] == [
        {row.entry: row.tier for row in expected.table()}[label] for label in "123"
    ]
    human = run_scorer("compare", files / "solution.csv", *runs, "-k", "5", "--resamples", 500)
    assert "pair   B - A" in human.stdout and "Holm" in human.stdout


def test_compare_refuses_an_invalid_submission_among_many(files: Path) -> None:
    runs = [files / "runs" / "s0.csv", files / "runs" / "s1.csv", files / "runs" / "bad.csv"]
    done = run_scorer("compare", files / "solution.csv", *runs, "-k", "5")
    assert done.returncode == 1
    assert done.stderr.startswith("Submission 3 (")


def test_options_may_come_between_the_submissions(files: Path) -> None:
    runs = [files / "runs" / f"s{i}.csv" for i in range(2)]
    done = run_scorer("leaderboard", files / "solution.csv", "-k", "5", *runs, "--json")
    assert done.returncode == 0, done.stderr
    expected = scorer.leaderboard(files / "solution.csv", runs, k=5)
    assert json.loads(done.stdout)["rows"] == json.loads(expected.to_json())["rows"]


def test_compare_of_many_invalid_submissions_gives_their_messages(files: Path) -> None:
    bad = files / "runs" / "bad.csv"
    done = run_scorer("compare", files / "solution.csv", bad, bad, bad, "-k", "5")
    assert done.returncode == 1, done.stderr
    assert done.stderr.count("Missing rows") == 3 and "internal error" not in done.stderr


def test_a_broken_link_among_the_submissions_is_refused_by_name(tmp_path: Path) -> None:
    solution, submissions = contest(10, 1, seed=5)
    runs = tmp_path / "runs"
    runs.mkdir()
    submissions["s0"].to_csv(runs / "s0.csv", index=False)
    (runs / "gone.csv").symlink_to(tmp_path / "nowhere.csv")
    refused = re.escape("1 submission file does not exist: 'gone.csv'")
    with pytest.raises(scorer.HostVisibleError, match=refused):
        scorer.leaderboard(solution, runs, k=5)


#: Names a participant controls (a file's name), hostile in some format: line breaks, a
#: Markdown fence, LaTeX, a right-to-left override, an undecodable byte.
HOSTILE_NAMES = ["a\rb", "x\n```\n<img>\n\\input{secret}", "evil\u202etxt.csv", "b\udcff.csv"]


def test_names_are_shown_as_one_line_of_visible_characters() -> None:
    solution, submissions = contest(30, 4, seed=6)
    runs = dict(zip(HOSTILE_NAMES, submissions.values(), strict=True))
    board = scorer.leaderboard(solution, runs, k=5, resamples=50)
    shown = {"a\\x0db", "x\\x0a```\\x0a<img>\\x0a\\input{secret}", "evil\\u202etxt.csv"}
    assert {row.entry for row in board.rows} == shown | {"b\\udcff.csv"}
    for suffix in (".csv", ".json", ".md", ".tex", ".html"):
        text = board.render(suffix) if suffix != ".html" else board.to_html()
        text.encode("utf-8")  # no lone surrogate left
        assert "\r" not in text and "\u202e" not in text
    rows = list(csv.DictReader(io.StringIO(board.to_csv())))
    assert len(rows) == len(board.rows)
    markdown = board.to_markdown()
    assert markdown.count("```") == 2  # the audit's fence, closed only by itself
    latex = board.to_latex()
    head = latex[: latex.index("\\begin{table}")].splitlines()
    assert all(line.startswith("% ") for line in head if line)  # no name ends a comment


@pytest.mark.parametrize(
    "names",
    [
        ("a\rb", "a\\x0db"),
        ("a b", "a  b"),
        ("a b", "a\u00a0b"),
        ("a b", "a b "),
        ("\u00e9quipe", "e\u0301quipe"),  # é whole, or e and its accent
    ],
)
def test_names_that_show_alike_are_refused(names: tuple[str, str]) -> None:
    solution, submissions = contest(10, 2, seed=7)
    tables = list(submissions.values())
    with pytest.raises(scorer.HostVisibleError, match="2 submission names show alike"):
        scorer.leaderboard(solution, dict(zip(names, tables, strict=True)), k=5)
    if names[0].strip() != names[1].strip():  # a team's surrounding spaces are no part of it
        teams = {"r1": names[0], "r2": names[1]}
        with pytest.raises(scorer.HostVisibleError, match="2 team names show alike"):
            scorer.leaderboard(solution, {"r1": tables[0], "r2": tables[1]}, teams=teams, k=5)


@given(st.text())
def test_printable_leaves_no_hidden_character(text: str) -> None:

    hidden = {"Cc", "Cf", "Zl", "Zp", "Cs"}
    shown = printable(text)
    assert not any(unicodedata.category(c) in hidden for c in shown)
    if not any(unicodedata.category(c) in hidden for c in text):
        assert shown == text


def test_teams_are_named_without_surrounding_spaces_and_must_be_a_mapping() -> None:
    solution, submissions = contest(20, 2, seed=8)
    board = scorer.leaderboard(solution, submissions, teams={"s0": "Red", "s1": " Red "})
    assert {row.entry for row in board.rows} == {"Red"}
    with pytest.raises(scorer.HostVisibleError, match="teams maps each submission's name"):
        scorer.leaderboard(solution, submissions, teams=["Red"])
    with pytest.raises(scorer.HostVisibleError, match="teams must be non-empty strings"):
        scorer.leaderboard(solution, submissions, teams={"s0": "Red", "s1": "  "})


def test_runs_over_different_queries_are_ranked_without_statistics(tmp_path: Path) -> None:
    """trec_eval's default leaves a run's missing queries out of its mean: two runs then
    average over different users, which no paired statistic compares."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{q} 0 d{q} 1\n" for q in range(30)))
    full, partial = tmp_path / "full.run", tmp_path / "partial.run"
    full.write_text("".join(f"q{q} Q0 d{q if q % 2 else 99} 1 9 r\n" for q in range(30)))
    partial.write_text("".join(f"q{q} Q0 d{q} 1 9 r\n" for q in range(0, 30, 3)))
    options = {"format": "trec", "metrics": ["map"]}
    board = scorer.leaderboard(qrels, [full, partial], resamples=200, **options)
    for row in board.rows:
        assert row.value == scorer.evaluate(qrels, tmp_path / row.entry, **options).score
        assert (row.value_low, row.rank_low, row.tier) == (None, None, None)
    assert board.pairs == () and "not scored over the same users" in board.notes[0]
    json.loads(board.to_json())  # no NaN anywhere
    complete = scorer.leaderboard(
        qrels, [full, partial], resamples=200, missing_rows="empty", **options
    )
    assert all(row.tier is not None for row in complete.rows) and complete.notes == ()


def test_the_measure_is_named_as_the_options_name_it_when_no_submission_is_valid(
    tmp_path: Path,
) -> None:
    qrels, good, bad = tmp_path / "qrels.txt", tmp_path / "good.run", tmp_path / "bad.run"
    qrels.write_text("q1 0 d1 1\n")
    good.write_text("q1 Q0 d1 1 9 r\n")
    bad.write_text("junk\n")
    for options in (
        {"format": "trec", "metrics": ["map"]},
        {"format": "trec", "metrics": ["nDCG@5"], "dialect": "ir_measures"},
    ):
        named = scorer.leaderboard(qrels, [good], resamples=0, **options).metric
        assert scorer.leaderboard(qrels, [bad], resamples=0, **options).metric == named


@pytest.mark.parametrize(("alpha", "level"), [(0.025, "97.5%"), (0.001, "99.9%"), (0.05, "95%")])
def test_the_interval_level_is_printed_as_given(board_and_inputs, alpha, level) -> None:
    board = replace(board_and_inputs[0], audit=replace(board_and_inputs[0].audit, alpha=alpha))
    assert f"| {level} interval |" in board.to_markdown()
    assert level.replace("%", r"\%") + " interval" in board.to_latex()


def test_notes_are_in_every_format() -> None:
    solution, submissions = contest(20, 2, seed=10)
    board = scorer.leaderboard(solution, submissions, k=5, resamples=0)
    (note,) = board.notes
    assert f"## Notes\n\n- {note}" in board.to_markdown()
    assert f"% note: {note}" in board.to_latex()
    rows = list(csv.DictReader(io.StringIO(board.to_csv())))
    assert all(json.loads(row["notes"]) == [note] for row in rows)


def test_too_few_resamples_for_the_pairs_is_noted(board_and_inputs) -> None:
    _, solution, submissions = board_and_inputs
    valid = {name: submissions[name] for name in ("s0", "s1", "s2", "s3")}  # 6 pairs
    few = scorer.leaderboard(solution, valid, k=5, resamples=100)
    assert not any(pair.exact for pair in few.pairs)
    assert any("Give at least 120 resamples" in note for note in few.notes)
    enough = scorer.leaderboard(solution, valid, k=5, resamples=119)
    assert not any("resamples" in note for note in enough.notes)


def test_a_solution_without_rows_is_the_hosts_error() -> None:
    solution = pd.DataFrame({"id": [], "items": []}, dtype=str)
    submission = pd.DataFrame({"id": ["u1"], "items": ["a"]})
    with pytest.raises(scorer.HostVisibleError, match="No rows"):
        scorer.evaluate(solution, submission)
    with pytest.raises(scorer.HostVisibleError, match="No rows"):
        scorer.leaderboard(solution, {"s": submission})


def test_alpha_may_be_a_numpy_float() -> None:
    solution, submissions = contest(20, 2, seed=11)
    board = scorer.leaderboard(solution, submissions, k=5, resamples=50, alpha=np.float32(0.1))
    assert board.audit.alpha == np.float32(0.1)


@pytest.mark.parametrize("measure", ["NumRet", "map(mean=geometric)"])
def test_sums_and_geometric_means_are_ranked_without_statistics(
    tmp_path: Path, measure: str
) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{q} 0 d{q} 1\n" for q in range(6)))
    runs = []
    for shift in range(3):
        run = tmp_path / f"r{shift}.run"
        run.write_text("".join(f"q{q} Q0 d{q + shift * (q % 2)} 1 9 r\n" for q in range(6 - shift)))
        runs.append(run)
    options = {"format": "trec", "metrics": [measure], "missing_rows": "empty"}
    board = scorer.leaderboard(qrels, runs, resamples=100, **options)
    for row in board.rows:
        assert row.value == scorer.evaluate(qrels, tmp_path / row.entry, **options).score
        assert (row.rank_low, row.tier) == (None, None)
    assert "is not a mean over rows" in board.notes[0]
    done = run_scorer(
        "compare", qrels, *runs, "--format", "trec", "-m", measure, "--missing-rows", "empty"
    )
    assert done.returncode == 0, done.stderr
    assert "None" not in done.stdout and "is not a mean over rows" in done.stdout


def test_the_same_file_twice_is_refused_by_its_path(files: Path) -> None:
    path = files / "runs" / "s0.csv"
    shown = os.path.normpath(os.path.abspath(path))
    with pytest.raises(scorer.HostVisibleError, match=re.escape(f"given twice: [{shown!r}]")):
        scorer.leaderboard(files / "solution.csv", [path, files / "runs" / "." / "s0.csv"], k=5)


def test_a_split_that_no_resample_draws_has_no_interval_and_a_note() -> None:
    """One Private user and one resample: some seeds draw no Private user. Those boards
    give Private no interval nor tier and say so; none is an internal error."""
    solution = pd.DataFrame(
        {
            "id": ["u1", "u2", "u3"],
            "items": ["a", "b", "c"],
            "Usage": ["Private", "Public", "Public"],
        }
    )
    runs = {
        name: pd.DataFrame({"id": ["u1", "u2", "u3"], "items": cells})
        for name, cells in {
            "r1": ["a", "b", "x"],
            "r2": ["x", "b", "c"],
            "r3": ["a x", "", "c"],
        }.items()
    }
    undrawn_seeds = []
    for seed in range(16):
        board = scorer.leaderboard(solution, runs, resamples=1, seed=seed)
        undrawn = [note for note in board.notes if "gave Private a value" in note]
        private = [row for row in board.rows if row.split == "Private"]
        assert len(private) == 3 and all(row.rank is not None for row in private)
        assert all((row.rank_low is None and row.tier is None) == bool(undrawn) for row in private)
        assert not [pair for pair in board.pairs if pair.split == "Private" and undrawn]
        undrawn_seeds += [seed] if undrawn else []
    assert 0 < len(undrawn_seeds) < 16, undrawn_seeds


def test_an_alpha_no_number_of_resamples_can_reach_says_so() -> None:
    solution, submissions = contest(30, 3, seed=4)
    board = scorer.leaderboard(solution, submissions, k=5, resamples=50, alpha=5e-324)
    assert any(
        "No number of resamples taken (at most 10,000,000) is enough: raise alpha " in note
        for note in board.notes
    ), board.notes


@pytest.mark.parametrize("command", ["compare", "report"])
def test_two_trec_runs_are_compared_from_the_qrels_path(tmp_path: Path, command: str) -> None:
    """compare and report read the qrels with each run, as the leaderboard does (two
    runs once refused them as a table read ahead)."""
    qrels, run = paths.FIXTURES / "trec" / "qrels.txt", paths.FIXTURES / "trec" / "run.txt"
    other = tmp_path / "other.txt"
    other.write_text("".join(reversed(run.read_text().splitlines(keepends=True))))
    out = ["--out", tmp_path / "report.html"] if command == "report" else ["--json"]
    done = run_scorer(command, qrels, run, other, "--format", "trec", "-m", "map", *out)
    assert done.returncode in (0, 2), done.stderr
    if command == "compare":
        assert done.returncode == 0, done.stderr
        found = json.loads(done.stdout)["metrics"]
        value = scorer.evaluate(qrels, run, format="trec", metrics=["map"]).score
        assert [found[name]["a"] for name in found] == [value]
    else:  # without matplotlib the report is refused as documented; never a table error
        assert "not a StringTable" not in done.stderr


def test_a_pairs_interval_is_the_same_whatever_the_entries_are_named() -> None:
    """The same two submissions under each other's names: the entries sort the other
    way, so the pair's difference is computed the other way round and turned, and its
    interval is the same to the bit."""
    solution, submissions = contest(200, 2, seed=11)
    first, second = submissions.values()
    boards = [
        scorer.leaderboard(solution, named, k=5, resamples=1000, seed=3)
        for named in ({"a": first, "b": second}, {"a": second, "b": first})
    ]
    for pair, renamed in zip(boards[0].pairs, boards[1].pairs, strict=True):
        assert (pair.first, pair.second) == (renamed.second, renamed.first)
        same = ("difference", "low", "high", "p_value", "adjusted", "significant")
        assert [getattr(pair, f) for f in same] == [getattr(renamed, f) for f in same]
        assert pair.low < pair.high


@pytest.mark.parametrize(
    ("level", "refused"),
    [
        ("0", "the level must be a number strictly between 0 and 1, not 0.0"),
        ("0.99999999999999989", None),
    ],
)
def test_compare_of_many_reads_the_level_as_two_do(files: Path, level: str, refused) -> None:
    runs = [files / "runs" / f"s{i}.csv" for i in range(3)]
    no_statistics = run_scorer("compare", files / "solution.csv", *runs, "--resamples", "0")
    assert no_statistics.returncode == 0, no_statistics.stderr  # values and ranks only
    negative = run_scorer("compare", files / "solution.csv", *runs, "--resamples", "-1")
    assert negative.returncode == 2
    assert negative.stderr == (
        "scorer: host error: Invalid statistics settings: the number of resamples must be an "
        "int from 0 to 10,000,000, not -1.\n"
    )
    for chosen in (runs[:2], runs):
        done = run_scorer("compare", files / "solution.csv", *chosen, "-k", "5", "--level", level)
        assert done.returncode == (2 if refused else 0), done.stderr
        assert refused is None or refused in done.stderr


def test_a_split_without_a_scorable_user_is_named_in_the_notes() -> None:
    solution = pd.DataFrame(
        {
            "id": ["u1", "u2", "u3"],
            "items": ["a", "b", ""],
            "Usage": ["Public", "Public", "Private"],
        }
    )
    runs = {"r1": pd.DataFrame({"id": ["u1", "u2", "u3"], "items": ["a", "x", "c"]})}
    board = scorer.leaderboard(solution, runs, resamples=10)
    assert {row.split for row in board.rows} == {"overall", "Public"}
    warned = [w for w in scorer.evaluate(solution, runs["r1"]).warnings if w.audience == "host"]
    assert str(warned[0]) in board.notes
    assert "The Private split has no scorable user" in str(warned[0])


def test_a_solution_from_a_pipe_is_read_once(files: Path, tmp_path: Path) -> None:
    """A pipe (``<(cat solution.csv)``) cannot be read a second time after its digest:
    it is read once, as a table, and scored as the file is."""
    import threading

    pipe = tmp_path / "solution.pipe"
    os.mkfifo(pipe)
    text = (files / "solution.csv").read_bytes()

    found = []  # read twice, the second read would wait for a writer for ever
    writer = threading.Thread(target=pipe.write_bytes, args=(text,), daemon=True)
    ranker = threading.Thread(
        target=lambda: found.append(scorer.leaderboard(pipe, files / "runs", k=5, resamples=20)),
        daemon=True,
    )
    writer.start()
    ranker.start()
    ranker.join(60)
    assert found, "the leaderboard waited for a second read of the pipe"
    board = found[0]
    expected = scorer.leaderboard(files / "solution.csv", files / "runs", k=5, resamples=20)
    assert [(row.entry, row.value) for row in board.rows] == [
        (row.entry, row.value) for row in expected.rows
    ]
    assert any(row.value is not None for row in board.rows)


def test_a_file_name_that_is_not_utf8_is_shown_escaped_in_every_output(
    files: Path, tmp_path: Path
) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    odd = os.fsdecode(os.fsencode(str(runs)) + b"/n\xff.csv")
    Path(odd).write_bytes((files / "runs" / "s0.csv").read_bytes())
    done = run_scorer("leaderboard", files / "solution.csv", runs, "-k", "5", "--json")
    assert done.returncode == 0, done.stderr
    (submission,) = json.loads(done.stdout)["submissions"]
    assert (submission["name"], submission["source"]) == ("n\\udcff.csv", printable(odd))
    assert submission["error"] is None
    for suffix in (".json", ".csv", ".md", ".tex", ".html"):
        out = tmp_path / f"board{suffix}"
        done = run_scorer("leaderboard", files / "solution.csv", runs, "-k", "5", "--out", out)
        assert done.returncode == 0, done.stderr
        assert "udcff" in out.read_bytes().decode("utf-8")  # UTF-8, the byte escaped


def test_the_audit_names_a_table_as_a_table_and_escapes_a_path() -> None:
    """A table (candidates read from a pipe) is "table" in the audit, never its cells;
    a path whose bytes are no UTF-8 is escaped, so that every output can write it."""
    from scorer.read.columns import StringTable
    from scorer.stats.leaderboard import _jsonable

    table = scorer.read.inputs.as_string_table(
        pd.DataFrame({"id": ["u1"], "items": ["a"]}), ValueError
    )
    assert isinstance(table, StringTable)
    odd = os.fsdecode(b"cand\xff.csv")
    options = _jsonable({"candidates": table, "segment_column_name": odd})
    assert options == {"candidates": "table", "segment_column_name": "cand\\udcff.csv"}
    json.dumps(options, ensure_ascii=False).encode("utf-8")


def test_every_command_writes_a_name_that_is_not_utf8_escaped(files: Path, tmp_path: Path) -> None:
    """compare's JSON on standard output and any output file: UTF-8, the byte escaped."""
    from scorer.adapters.output import write_output

    odd = os.fsdecode(os.fsencode(str(tmp_path)) + b"/s\xff0.csv")
    Path(odd).write_bytes((files / "runs" / "s0.csv").read_bytes())
    done = subprocess.run(
        [sys.executable, "-m", "scorer", "compare", files / "solution.csv", odd,
         files / "runs" / "s1.csv", "-k", "5", "--json", "--resamples", "50"],
        capture_output=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    json.loads(done.stdout.decode("utf-8"))
    write_output(str(tmp_path / "out.html"), f"<p>{odd}</p>")
    assert (tmp_path / "out.html").read_text(encoding="utf-8") == "<p>" + printable(odd) + "</p>"


def test_trec_qrels_from_a_pipe_are_refused_by_name(tmp_path: Path) -> None:
    """trec_eval's qrels are read with each run: a pipe, readable once, is refused before
    any read (it once gave 'Empty file', or waited for a second writer for ever)."""
    import threading

    pipe = tmp_path / "qrels.pipe"
    os.mkfifo(pipe)
    run = paths.FIXTURES / "trec" / "run.txt"
    found: list[BaseException] = []

    def rank() -> None:
        try:
            scorer.leaderboard(pipe, [run], format="trec", metrics=["map"], resamples=0)
        except scorer.HostVisibleError as exc:
            found.append(exc)

    ranker = threading.Thread(target=rank, daemon=True)
    ranker.start()
    ranker.join(30)
    assert found, "the leaderboard read the pipe (and waited for a writer)"
    assert f"The qrels {str(pipe)!r} are a pipe, which can be read once only" in str(found[0])
    done = run_scorer_process(
        "compare", pipe, run, run, "--format", "trec", "-m", "map", timeout=60
    )
    assert done.returncode == 2 and "are a pipe, which can be read once only" in done.stderr


def test_two_trec_runs_that_leave_out_different_queries_are_told_how_to_pair(
    tmp_path: Path,
) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\nq2 0 d2 1\n")
    one, both = tmp_path / "one.txt", tmp_path / "both.txt"
    one.write_text("q1 Q0 d1 1 2.0 r\n")
    both.write_text("q1 Q0 d1 1 2.0 r\nq2 Q0 d9 1 2.0 r\n")
    done = run_scorer("compare", qrels, one, both, "--format", "trec", "-m", "map")
    assert done.returncode == 2
    assert "The runs leave out different queries of the qrels (missing_rows='skip'" in done.stderr
    paired = run_scorer("compare", qrels, one, both, "--format", "trec", "-m", "map",
                        "--missing-rows", "empty")  # fmt: skip
    assert paired.returncode == 0, paired.stderr


def test_an_invalid_submission_changes_no_other_pairs_exact_test() -> None:
    """The exact test of a pair reads that pair's parts, whatever invalid submissions
    sort before them by name: here one user differs, so its 2 swap patterns give p = 1
    and the two entries share tier 1, with or without the invalid one."""
    ids = [f"u{i}" for i in range(8)]
    solution = pd.DataFrame({"id": ids, "items": ["x"] * 8})
    good = pd.DataFrame({"id": ids, "items": ["x"] * 8})
    near = pd.DataFrame({"id": ids, "items": ["x"] * 7 + ["y"]})
    broken = pd.DataFrame({"id": ["u0"], "items": ["x"]})  # every other row missing
    boards = [
        scorer.leaderboard(solution, submissions, k=1, resamples=100)
        for submissions in (
            {"good": good, "near": near},
            {"0": broken, "good": good, "near": near},
            {"0": broken, "good": good, "near": near, "zz": near.iloc[::-1]},  # a copy
        )
    ]
    for board in boards:
        found = {(p.first, p.second): (p.exact, p.p_value) for p in board.pairs}
        assert found["good", "near"] == (True, 1.0)
        tiers = {(row.entry, row.tier) for row in board.rows if row.value is not None}
        assert {("good", 1), ("near", 1)} <= tiers
    assert [row.error is not None for row in boards[1].rows] == [False, False, True]


def test_markdown_shows_entities_and_tildes_in_names_as_written() -> None:
    """A name's ``&`` and ``~`` are escaped in Markdown: ``win&shy;ner`` must not render
    as a name that shows like ``winner``, nor ``&lt;b&gt;`` as ``<b>``, nor ``~~x~~``
    struck through."""
    solution, submissions = contest(20, 3, seed=9)
    names = ["win&shy;ner", "&lt;b&gt;", "~~struck~~"]
    runs = dict(zip(names, submissions.values(), strict=True))
    board = scorer.leaderboard(solution, runs, k=5)
    cells = [
        re.split(r"(?<!\\)\|", line)[2].strip()
        for line in board.to_markdown().splitlines()
        if line.startswith("| ") and not line.startswith("| Rank")
    ]
    assert cells and all(re.search(r"(?<!\\)[&~]", cell) is None for cell in cells)
    assert {re.sub(r"\\(.)", r"\1", cell) for cell in cells} == set(names)
