"""Several targets per row id (OTTO), wired: each type scored on its own rows, weighted
totals rounded once, missing rows scored as empty, every interface, the bootstrap."""

from __future__ import annotations

import contextlib
import io
import json
from fractions import Fraction

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer import HostVisibleError, ParticipantVisibleError, evaluate, score
from scorer.adapters.cli import main
from scorer.adapters.codabench import scores
from scorer.adapters.evalai import to_evalai
from scorer.partial import finish, score_part
from scorer.stats import bootstrap, compare, shake_up
from tests.paths import DOCS

TYPES = ("clicks", "carts", "orders")
OTTO_WEIGHTS = {"clicks": 0.1, "carts": 0.3, "orders": 0.6}
RECALL = "R(norm=min_k)@20"
MICRO = "R(norm=min_k,avg=micro)@20"


@pytest.fixture(autouse=True)
def _keep_the_memory_pool():
    """``main()`` picks Arrow's allocator for its process: give this one its own back."""
    previous = pa.default_memory_pool()
    yield
    pa.set_memory_pool(previous)


def reference(labels, predictions, weights, k=20):
    """Slow and obvious: per type, the mean over sessions with a truth of
    |set(first k predictions) ∩ truth| / min(k, |truth|) (a missing row predicts
    nothing), Σ Fraction(w_t) · mean_t; and OTTO's micro average from the same hits."""
    by_type, micro, total = {}, {}, Fraction(0)
    for kind in weights:
        values, hits_sum, events_sum = [], 0, 0
        for session, truth in labels.items():
            if not truth[kind]:
                continue
            hits = len(set(predictions.get((session, kind), [])[:k]) & truth[kind])
            values.append(Fraction(hits, min(k, len(truth[kind]))))
            hits_sum += hits
            events_sum += min(k, len(truth[kind]))
        by_type[kind] = sum(values, Fraction(0)) / len(values)
        micro[kind] = Fraction(hits_sum, events_sum)
        total += Fraction(weights[kind]) * by_type[kind]
    return total, by_type, micro


def otto_frames(labels, predictions, order):
    solution = pd.DataFrame(
        {
            "session_type": [f"{s}_{t}" for s in labels for t in TYPES],
            "labels": [" ".join(sorted(labels[s][t])) for s in labels for t in TYPES],
        }
    )
    keys = list(predictions)
    submission = pd.DataFrame(
        {
            "session_type": [f"{keys[i][0]}_{keys[i][1]}" for i in order],
            "labels": [" ".join(predictions[keys[i]]) for i in order],
        }
    )
    return solution, submission


sessions = st.dictionaries(
    st.sampled_from([f"{n}" for n in range(8)] + ["a_b", "x_y_z"]),  # row ids holding "_"
    st.fixed_dictionaries({t: st.sets(st.sampled_from("abcdefgh"), max_size=4) for t in TYPES}),
    min_size=1,
    max_size=6,
)


@settings(max_examples=150, deadline=None)
@given(sessions, st.data())
def test_each_type_and_the_weighted_total_match_the_reference(labels, data):
    for kind in TYPES:  # every type needs a scorable row
        if not any(truth[kind] for truth in labels.values()):
            labels[next(iter(labels))][kind] = {"a"}
    predictions = {}
    for session in labels:
        for kind in TYPES:
            predictions[(session, kind)] = data.draw(
                st.lists(st.sampled_from("abcdefghz"), max_size=20), label="predicted"
            )
    missing = data.draw(st.sets(st.sampled_from(list(predictions))), label="missing")
    for key in missing:
        del predictions[key]
    weights = data.draw(
        st.sampled_from([OTTO_WEIGHTS, {"clicks": 1.0, "carts": 0.0, "orders": 2.5}, None])
    )
    order = data.draw(st.permutations(range(len(predictions))))
    solution, submission = otto_frames(labels, predictions, order)
    result = evaluate(
        solution,
        submission,
        k=20,
        metrics=[RECALL],
        row_id_type_separator="_",
        type_weights=weights,
        missing_rows="empty",
        per_user=True,
    )
    expected_weights = weights or {t: Fraction(1, 3) for t in TYPES}
    total, by_type, micro = reference(labels, predictions, expected_weights)
    assert result.score == float(total)  # rounded once
    assert result.metrics == {RECALL: float(total)}
    assert result.by_type == {kind: {RECALL: float(by_type[kind])} for kind in sorted(TYPES)}
    # OTTO's own micro average, exactly, from the per-row table: one row per (row id, type).
    table = result.per_user
    assert len(table) == 3 * len(labels)
    for kind in TYPES:
        rows = table[(table["type"] == kind) & (table["n_relevant"] > 0)]
        events = np.minimum(rows["n_relevant"], 20)
        assert Fraction(int(rows["hits"].sum()), int(events.sum())) == micro[kind]
    # OTTO's formula itself: a micro average per type, through the measure.
    otto = evaluate(
        solution,
        submission,
        k=20,
        metrics=[MICRO],
        row_id_type_separator="_",
        type_weights=weights,
        missing_rows="empty",
    )
    otto_total = sum((Fraction(expected_weights[t]) * micro[t] for t in TYPES), Fraction(0))
    assert otto.score == float(otto_total)
    assert otto.by_type == {kind: {MICRO: float(micro[kind])} for kind in sorted(TYPES)}
    count = sum(1 for s in labels for t in TYPES if (s, t) not in predictions)
    warned = [w for w in result.warnings if w.code == "missing_rows"]
    assert [w.count for w in warned] == ([count] if count else [])


def test_otto_weighted_total_of_the_exact_rationals_is_rounded_once():
    # Per type 1/3, 2/3 and 1/3: 0.1/3 + 0.3*2/3 + 0.6/3 with each weight the exact
    # rational of its float, then one rounding; summing rounded floats can differ.
    solution = pd.DataFrame(
        {
            "session_type": [f"{s}_{t}" for s in "123" for t in TYPES],
            "labels": ["a", "a", "a"] * 3,
        }
    )
    predicted = {"clicks": "1", "carts": "12", "orders": "1"}
    submission = solution.assign(
        labels=["a" if s in predicted[t] else "z" for s in "123" for t in TYPES]
    )
    result = evaluate(
        solution, submission, metrics=[RECALL], row_id_type_separator="_", type_weights=OTTO_WEIGHTS
    )
    exact = sum(Fraction(OTTO_WEIGHTS[t]) * Fraction(len(predicted[t]), 3) for t in TYPES)
    assert result.score == float(exact)
    assert result.by_type["carts"][RECALL] == 2 / 3


def test_a_type_column_scores_as_the_row_id_separator_does():
    rng = np.random.default_rng(3)
    ids = [f"{s}" for s in range(30)]
    solution = pd.DataFrame(
        {
            "session": [s for s in ids for _ in TYPES],
            "type": [t for _ in ids for t in TYPES],
            "labels": [" ".join(rng.choice(list("abcdef"), size=2)) for _ in range(90)],
        }
    )
    submission = solution.assign(
        labels=[" ".join(rng.choice(list("abcdef"), size=4)) for _ in range(90)]
    ).iloc[rng.permutation(90)]
    by_column = evaluate(
        solution, submission, "session", target_type_column_name="type", metrics=["MAP", "P@2"]
    )

    def joined(frame):
        return pd.DataFrame(
            {"session_type": frame["session"] + "_" + frame["type"], "labels": frame["labels"]}
        )

    by_separator = evaluate(
        joined(solution), joined(submission), row_id_type_separator="_", metrics=["MAP", "P@2"]
    )
    assert by_column.metrics == by_separator.metrics
    assert by_column.by_type == by_separator.by_type
    assert by_column.weights == {t: 1 / 3 for t in sorted(TYPES)}
    per_user = evaluate(
        solution, submission, "session", target_type_column_name="type", per_user=True
    ).per_user
    assert per_user.index.tolist()[:3] == ["0", "0", "0"]
    assert per_user["type"].tolist()[:3] == list(TYPES)


def test_results_are_bit_identical_under_row_shuffles():
    rng = np.random.default_rng(7)
    rows = [f"{s}_{t}" for s in range(200) for t in TYPES]
    solution = pd.DataFrame(
        {
            "id": rows,
            "items": [
                " ".join(rng.choice(list("abcdefgh"), size=rng.integers(0, 4))) for _ in rows
            ],
            "Usage": rng.choice(["Public", "Private"], size=len(rows)),
        }
    )
    solution.loc[0:2, "items"] = "a"
    submission = pd.DataFrame(
        {"id": rows, "items": [" ".join(rng.choice(list("abcdefgh"), size=5)) for _ in rows]}
    )
    options = {"row_id_type_separator": "_", "metrics": ["nDCG@5", "MAP@5"], "k": 5}
    first = evaluate(solution, submission, **options)
    again = evaluate(
        solution.iloc[rng.permutation(len(rows))],
        submission.iloc[rng.permutation(len(rows))],
        **options,
    )
    # Everything but the warnings' examples, which follow the submission's row order.
    assert {**first.to_dict(), "warnings": None} == {**again.to_dict(), "warnings": None}
    assert first.public_by_type is not None and first.private_by_type is not None
    assert set(first.public_by_type) == set(TYPES)


def test_missing_rows_are_an_error_by_default_and_empty_on_request():
    solution = pd.DataFrame({"id": ["1_a", "1_b", "2_a", "2_b"], "items": ["x", "y", "x", "y"]})
    submission = pd.DataFrame({"id": ["1_a", "2_b"], "items": ["x", "y"]})
    with pytest.raises(ParticipantVisibleError, match="Missing rows"):
        evaluate(solution, submission, row_id_type_separator="_")
    result = evaluate(solution, submission, row_id_type_separator="_", missing_rows="empty")
    assert result.by_type == {"a": {"MAP@10": 0.5}, "b": {"MAP@10": 0.5}}
    assert str(result.warnings[0]) == (
        "2 row ids of the sample submission have no row in the submission; each is scored "
        "as an empty ranking (missing_rows='empty'). Examples: '1_b', '2_a'"
    )
    # Without target types too (trec_eval -c), and a missing row is not also "empty".
    plain = evaluate(
        pd.DataFrame({"id": ["u", "v"], "items": ["x", "x"]}),
        pd.DataFrame({"id": ["u"], "items": ["x"]}),
        missing_rows="empty",
    )
    assert plain.score == 0.5
    assert [w.code for w in plain.warnings] == ["missing_rows", "short_rows"]


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"type_weights": {"a": 1.0}}, "type_weights needs target types"),
        (
            {"row_id_type_separator": "_", "target_type_column_name": "t"},
            "either as a column",
        ),
        ({"row_id_type_separator": ""}, "must be a non-empty str or None. Got '' instead"),
        (
            {"row_id_type_separator": "_", "type_weights": {"a": 1.0}},
            r"no weight for 'b'",
        ),
        (
            {"row_id_type_separator": "_", "type_weights": {"a": 1.0, "b": 1, "c": 2}},
            r"not a type of the solution: 'c'",
        ),
        (  # named in sorted order, whatever the mapping's order (a partial run's is sorted)
            {"row_id_type_separator": "_", "type_weights": {"z": 1, "a": 1.0, "c": 2, "b": 1}},
            r"not a type of the solution: 'c', 'z'\.",
        ),
        (
            {"row_id_type_separator": "_", "type_weights": {"a": float("nan"), "b": 1}},
            r"finite weight ≥ 0\. Got .* \(bad: 'a'\)",
        ),
        (
            {"row_id_type_separator": "_", "type_weights": {"a": -0.5, "b": True}},
            r"\(bad: 'a', 'b'\)",
        ),
        ({"row_id_type_separator": "_", "type_weights": {}}, "Got {} instead"),
        ({"target_type_column_name": "kind"}, "no target type column 'kind'"),
        ({"missing_rows": "zero"}, r"among \['error', 'empty', 'skip'\]"),
    ],
)
def test_bad_type_options_are_host_errors(options, match):
    solution = pd.DataFrame({"id": ["1_a", "1_b"], "items": ["x", "y"]})
    with pytest.raises(HostVisibleError, match=match):
        evaluate(solution, solution, **options)


def test_weights_whose_total_overflows_are_a_host_error_in_evaluate_and_parts(tmp_path):
    """1e308 twice is past the largest float: a HostVisibleError (exit 2), not an
    OverflowError (exit 3), in one run and in parts."""
    solution = pd.DataFrame({"id": ["1_a", "1_b"], "items": ["x", "y"]})
    weights = {"a": 1e308, "b": 1e308}
    match = r"past the largest float .*type_weights \{'a': 1e\+308, 'b': 1e\+308\}"
    with pytest.raises(HostVisibleError, match=match):
        evaluate(solution, solution, row_id_type_separator="_", type_weights=weights)
    part = score_part(solution, solution, "id", row_id_type_separator="_", type_weights=weights)
    with pytest.raises(HostVisibleError, match=match):
        finish(part)
    solution.to_csv(tmp_path / "s.csv", index=False)
    flags = ["--row-id-type-separator", "_", "--type-weight", "a=1e308", "--type-weight", "b=1e308"]
    code, _ = _run([str(tmp_path / "s.csv"), str(tmp_path / "s.csv"), *flags])
    assert code == 2


def test_a_solution_row_without_a_type_and_a_type_without_rows_are_host_errors():
    solution = pd.DataFrame({"id": ["1_a", "2", "1_b"], "items": ["x", "y", ""]})
    with pytest.raises(HostVisibleError, match="Row ids without a target type"):
        evaluate(solution, solution, row_id_type_separator="_")
    solution = pd.DataFrame({"id": ["1_a", "1_b"], "items": ["x", ""]})
    with pytest.raises(HostVisibleError, match=r"No row of the target type\(s\) 'b' can be scored"):
        evaluate(solution, solution, row_id_type_separator="_")


def test_submission_type_problems_are_listed_with_the_others():
    solution = pd.DataFrame(
        {"id": ["1", "1", "2", "2"], "t": ["a", "b", "a", "b"], "items": ["x", "y", "x", "y"]}
    )
    submission = pd.DataFrame(
        {"id": ["1", "1", "2", "2", "3"], "t": ["a", "views", "a", "", "a"], "items": ["x"] * 5}
    )
    with pytest.raises(ParticipantVisibleError) as raised:
        evaluate(solution, submission, "id", target_type_column_name="t")
    text = str(raised.value)
    for title in ("Empty target types", "Unknown target types", "Unknown row ids", "Missing rows"):
        assert title in text
    assert "found:    1 row whose type is not one of 'a', 'b': e.g. 'views'" in text
    with pytest.raises(ParticipantVisibleError, match="Missing target type column"):
        evaluate(solution, submission.drop(columns="t"), "id", target_type_column_name="t")
    # Unknown types dropped as unknown row ids are, with unknown_row_ids="ignore".
    kept = submission.iloc[[0, 2, 3, 4]].assign(t=["a", "a", "b", "a"])
    kept = pd.concat([kept, submission.iloc[[1]]])
    result = evaluate(
        solution,
        kept,
        "id",
        target_type_column_name="t",
        unknown_row_ids="ignore",
        missing_rows="empty",
    )
    assert result.by_type == {"a": {"MAP@10": 1.0}, "b": {"MAP@10": 0.0}}


def test_a_type_holding_the_first_joiner_uses_the_next():
    solution = pd.DataFrame({"id": ["1", "1"], "t": ["add_to_cart", "b"], "items": ["x", "y"]})
    submission = pd.DataFrame({"id": ["1"], "t": ["b"], "items": ["y"]})
    with pytest.raises(ParticipantVisibleError, match="'1:add_to_cart'"):
        evaluate(solution, submission, "id", target_type_column_name="t")


def _otto_files(tmp_path):
    solution = pd.DataFrame(
        {
            "session_type": [f"{s}_{t}" for s in (1, 2) for t in TYPES],
            "labels": ["a", "b c", "c", "d", "", "e f"],
            "Usage": ["Public", "Public", "Public", "Private", "Private", "Private"],
        }
    )
    submission = pd.DataFrame(
        {
            "session_type": ["1_clicks", "1_carts", "1_orders", "2_clicks", "2_orders"],
            "labels": ["a x", "c", "c d", "d", "f"],
        }
    )
    solution.iloc[[0, 1, 2, 3, 5]].to_csv(tmp_path / "sol_public.csv", index=False)
    solution.to_csv(tmp_path / "solution.csv", index=False)
    submission.to_csv(tmp_path / "submission.csv", index=False)
    return tmp_path / "solution.csv", tmp_path / "submission.csv"


def _run(argv):
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(io.StringIO()):
        code = main([str(a) for a in argv])
    return code, stdout.getvalue()


OTTO_FLAGS = [
    "-m",
    RECALL,
    "--row-id-type-separator",
    "_",
    "--missing-rows",
    "empty",
    "--type-weight",
    "clicks=0.1",
    "--type-weight",
    "carts=0.3",
    "--type-weight",
    "orders=0.6",
]


def test_the_command_line_json_codabench_and_evalai(tmp_path):
    solution, submission = _otto_files(tmp_path)
    code, text = _run([solution, submission, *OTTO_FLAGS])
    assert code == 0
    # clicks (1 + 1)/2, carts 1/2 (session 2 has none), orders (1 + 1/2)/2; Public: session
    # 1 only. Private has no carts row to score, so no Private total is reported.
    assert text.splitlines()[:12] == [
        f"{RECALL}: 0.7",
        "  Public:  0.85",
        "By target type (the values above are Σ weight · value):",
        "  carts (weight 0.3):",
        f"    {RECALL}: 0.5",
        "      Public:  0.5",
        "  clicks (weight 0.1):",
        f"    {RECALL}: 1.0",
        "      Public:  1.0",
        "  orders (weight 0.6):",
        f"    {RECALL}: 0.75",
        "      Public:  1.0",
    ]
    assert text.splitlines()[-1] == (
        "  - [host] The Private split has no scorable row of some target type; its weighted "
        "total is not reported."
    )
    code, text = _run([solution, submission, *OTTO_FLAGS, "--json"])
    data = json.loads(text)
    assert data["by_type"]["orders"] == {RECALL: 0.75}
    assert data["weights"] == OTTO_WEIGHTS
    assert data["options"]["type_weights"] == OTTO_WEIGHTS
    result = evaluate(
        solution,
        submission,
        metrics=[RECALL],
        row_id_type_separator="_",
        missing_rows="empty",
        type_weights=OTTO_WEIGHTS,
    )
    keys = scores(result)
    assert keys["r_norm_min_k_at_20_orders"] == 0.75
    assert keys["r_norm_min_k_at_20_clicks_public"] == 1.0
    assert "r_norm_min_k_at_20_private" not in keys
    public = scores(result, public_only=True)
    assert all(key.endswith("_public") for key in public)
    evalai = to_evalai(result)
    assert evalai["submission_result"]["r_norm_min_k_at_20_clicks"] == 1.0
    assert evalai["result"][0]["public_split"]["r_norm_min_k_at_20"] == result.public_score


def test_malformed_type_weight_flags_are_usage_errors(tmp_path):
    solution, submission = _otto_files(tmp_path)
    for bad in (
        ["--type-weight", "clicks"],
        ["--type-weight", "clicks=-1"],
        ["--type-weight", "clicks=inf"],
        ["--type-weight", "=1"],
    ):
        with pytest.raises(SystemExit) as raised:
            _run([solution, submission, "--row-id-type-separator", "_", *bad])
        assert raised.value.code == 2
    code, _ = _run(
        [
            solution,
            submission,
            "--row-id-type-separator",
            "_",
            "--type-weight",
            "clicks=1",
            "--type-weight",
            "clicks=2",
        ]
    )
    assert code == 2


def test_the_bootstrap_resamples_sessions_with_all_their_types():
    rng = np.random.default_rng(0)
    n = 400
    rows = [f"{s}_{t}" for s in range(n) for t in TYPES]
    # A session's types agree: all hit or all miss. Resampling rows one by one would
    # break that and give a narrower interval of the weighted total.
    hit = np.repeat(rng.random(n) < 0.5, 3)
    solution = pd.DataFrame({"id": rows, "items": ["a"] * len(rows)})
    submission = solution.assign(items=np.where(hit, "a", "z"))
    result = evaluate(solution, submission, row_id_type_separator="_", type_weights=OTTO_WEIGHTS)
    interval = bootstrap(result, n_resamples=2000, seed=1)["score"]
    assert interval.value == result.score
    assert interval.low < result.score < interval.high
    # Sessions of three perfectly correlated rows: the total's spread is that of a mean of
    # n Bernoulli(1/2) sessions, about 1.96 * 0.5 / sqrt(400) = 0.049 either side.
    assert 0.04 < (interval.high - interval.low) / 2 < 0.06
    again = evaluate(
        solution.iloc[rng.permutation(len(rows))],
        submission,
        row_id_type_separator="_",
        type_weights=OTTO_WEIGHTS,
    )
    assert bootstrap(again, n_resamples=2000, seed=1) == bootstrap(result, n_resamples=2000, seed=1)


def _typed_pair(hits_a, hits_b, usage=None, weights=OTTO_WEIGHTS):
    """Two submissions over sessions x TYPES, every row relevant item "a": a row hits
    when its submission ranks "a" first."""
    rows = [f"{s}_{t}" for s in range(len(hits_a)) for t in TYPES]
    solution = pd.DataFrame({"id": rows, "items": ["a"] * len(rows)})
    if usage is not None:
        solution["Usage"] = np.repeat(usage, len(TYPES))
    results = []
    for hits in (hits_a, hits_b):
        items = np.where(np.asarray(hits).reshape(-1), "a", "z")
        submission = pd.DataFrame({"id": rows, "items": items})
        results.append(
            evaluate(solution, submission, row_id_type_separator="_", type_weights=weights)
        )
    return results


def _weighted_total(hits):
    """Σ_t w_t · (share of sessions whose type-t row hits), exactly."""
    n = len(hits)
    return sum(
        Fraction(str(OTTO_WEIGHTS[kind])) * Fraction(sum(int(h[t]) for h in hits), n)
        for t, kind in enumerate(TYPES)
    )


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_compare_swaps_whole_sessions_exactly_as_a_slow_reference(data):
    n = data.draw(st.integers(2, 7))
    rows = st.lists(st.booleans(), min_size=3, max_size=3)
    hits_a = data.draw(st.lists(rows, min_size=n, max_size=n))
    hits_b = data.draw(st.lists(rows, min_size=n, max_size=n))
    result_a, result_b = _typed_pair(hits_a, hits_b)
    found = compare(result_a, result_b, n_resamples=200)
    observed = abs(_weighted_total(hits_b) - _weighted_total(hits_a))
    extreme = 0
    for pattern in range(2**n):  # every way to swap whole sessions between A and B
        swapped = [
            (b, a) if pattern >> s & 1 else (a, b)
            for s, (a, b) in enumerate(zip(hits_a, hits_b, strict=True))
        ]
        a_side = [pair[0] for pair in swapped]
        b_side = [pair[1] for pair in swapped]
        extreme += abs(_weighted_total(b_side) - _weighted_total(a_side)) >= observed
    assert found.exact
    assert found.p_value == float(Fraction(extreme, 2**n))
    assert found.difference == result_b.score - result_a.score
    own = [
        sum(Fraction(str(OTTO_WEIGHTS[k])) * (int(b[t]) - int(a[t])) for t, k in enumerate(TYPES))
        for a, b in zip(hits_a, hits_b, strict=True)
    ]
    assert (found.wins, found.ties, found.losses) == (
        sum(d > 0 for d in own),
        sum(d == 0 for d in own),
        sum(d < 0 for d in own),
    )


def test_the_paired_interval_draws_sessions_with_all_their_types():
    rng = np.random.default_rng(3)
    n = 400
    # B beats A on every type of a session or on none: drawing rows one by one would
    # break that and narrow the interval of the weighted totals' difference.
    better = np.repeat(rng.random(n) < 0.5, 3).reshape(n, 3)
    result_a, result_b = _typed_pair(np.zeros((n, 3), bool), better)
    found = compare(result_a, result_b, n_resamples=2000, seed=1)
    assert found.low < found.difference < found.high
    # A mean of n Bernoulli(1/2) sessions: 1.96 * 0.5 / sqrt(400) = 0.049 either side.
    assert 0.04 < (found.high - found.low) / 2 < 0.06
    assert compare(result_a, result_b, n_resamples=2000, seed=1) == found


def test_compare_of_typed_files_b_a_is_compare_a_b_mirrored():
    rng = np.random.default_rng(5)
    n = 60
    hits = [rng.random((n, 3)) < share for share in (0.3, 0.35)]
    usage = np.where(rng.random(n) < 0.4, "Public", "Private")
    result_a, result_b = _typed_pair(*hits, usage=usage)
    forward = compare(result_a, result_b, n_resamples=500, seed=3)
    backward = compare(result_b, result_a, n_resamples=500, seed=3)
    assert not forward.exact
    assert (backward.low, backward.high) == (-forward.high, -forward.low)
    assert (backward.p_value, backward.wins, backward.losses) == (
        forward.p_value,
        forward.losses,
        forward.wins,
    )


def test_typed_micro_pairs_with_rows_of_no_denominator_mirror_exactly():
    # Sessions s0 and t0 swap their clicks between A and B; the orders rows score 0 of 0
    # (empty_ground_truth="zero"): the rows' counts, drawn with the parts, tell the two
    # orders apart, and the interval must still be the other order's mirror.
    ids = ["s0_c", "t0_c", "s0_o", "s1_c", "t1_c", "s1_o", "w_o"]
    solution = pd.DataFrame({"id": ids, "items": ["a", "a", "", "a", "a", "", "b"]})
    a = solution.assign(items=["a", "x", "z", "x", "x", "z", "b"])
    b = solution.assign(items=["x", "a", "z", "x", "x", "z", "b"])
    options = {"row_id_type_separator": "_", "empty_ground_truth": "zero"}
    results = [evaluate(solution, s, metrics=["R(avg=micro)@5"], **options) for s in (a, b)]
    for seed in range(6):
        forward = compare(*results, n_resamples=100, seed=seed)
        backward = compare(*results[::-1], n_resamples=100, seed=seed)
        assert (backward.low, backward.high) == (-forward.high, -forward.low), seed


def test_a_typed_shake_up_resplits_sessions_as_an_untyped_one_of_the_same_sessions():
    rng = np.random.default_rng(4)
    n = 120
    session_hits = [rng.random(n) < share for share in (0.3, 0.6)]
    usage = np.where(rng.random(n) < 0.4, "Public", "Private")
    weights = {"clicks": 0.25, "carts": 0.25, "orders": 0.5}  # exact: w * x sums to x
    both = [np.repeat(h, 3).reshape(n, 3) for h in session_hits]
    typed = _typed_pair(*both, usage=usage, weights=weights)
    solution = pd.DataFrame({"id": [str(s) for s in range(n)], "items": ["a"] * n, "Usage": usage})
    untyped = [
        evaluate(solution, solution.assign(items=np.where(h, "a", "z")).drop(columns="Usage"))
        for h in session_hits
    ]
    assert typed[0].score == untyped[0].score
    assert shake_up(typed[0], seed=2) == shake_up(untyped[0], seed=2)
    named = {"a": typed[0], "b": typed[1]}
    assert shake_up(named, seed=2) == shake_up({"a": untyped[0], "b": untyped[1]}, seed=2)


def test_compare_and_the_report_on_the_command_line_take_typed_files(tmp_path):
    solution, submission = _otto_files(tmp_path)
    other = tmp_path / "other.csv"
    pd.read_csv(submission).assign(labels="c").to_csv(other, index=False)
    code, text = _run(["compare", solution, submission, other, *OTTO_FLAGS, "--seed", "1"])
    assert code == 0
    assert text.splitlines()[2].split()[:3] == ["measure", "A", "B"]
    out = tmp_path / "report.html"
    code, _ = _run(["report", solution, submission, other, *OTTO_FLAGS, "--out", out])
    assert code == 0
    html = out.read_text()
    assert "Several targets per row id: each value is the weighted total" in html
    assert "weights: carts 0.3, clicks 0.1, orders 0.6" in html


def test_a_shake_up_refuses_a_session_whose_types_are_in_different_splits():
    solution = pd.DataFrame(
        {"id": ["1_a", "1_b", "2_a", "2_b"], "items": ["x"] * 4, "Usage": ["Public", "Private"] * 2}
    )
    result = evaluate(solution, solution.drop(columns="Usage"), row_id_type_separator="_")
    with pytest.raises(HostVisibleError, match="2 row ids have target types in different Usage"):
        shake_up(result)


def test_score_takes_the_type_options():
    solution = pd.DataFrame({"id": ["1_a", "1_b"], "items": ["x", "y"]})
    submission = pd.DataFrame({"id": ["1_a", "1_b"], "items": ["x", "z"]})
    assert (
        score(solution, submission, row_id_type_separator="_", type_weights={"a": 0.25, "b": 0.75})
        == 0.25
    )


def test_the_readme_example_prints_what_it_says(capsys):
    readme = (DOCS / "shapes.md").read_text()
    section = readme.split("## Several targets per row id", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    exec(compile(code, "docs/shapes.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    comments = [line.split("# ", 1)[1] for line in code.splitlines() if line.startswith("# ")]
    assert printed == [
        comments[0] + " " + comments[1].lstrip(),
        comments[2],
        comments[3] + " " + comments[4],
    ]


def test_the_bootstrap_of_a_micro_measure_recomputes_each_types_ratio_of_sums():
    # Session i has i true orders, all predicted by the second submission only for even i:
    # per type a ratio of sums, so the interval must contain the value and be deterministic.
    rows, truth, predicted = [], [], []
    for session in range(1, 60):
        for kind in TYPES:
            items = [f"i{j}" for j in range(session % 7 + 1)]
            rows.append(f"{session}_{kind}")
            truth.append(" ".join(items))
            predicted.append(" ".join(items if session % 2 == 0 else ["z"]))
    solution = pd.DataFrame({"id": rows, "items": truth})
    submission = pd.DataFrame({"id": rows, "items": predicted})
    result = evaluate(
        solution,
        submission,
        k=20,
        metrics=[MICRO],
        row_id_type_separator="_",
        type_weights=OTTO_WEIGHTS,
    )
    hits = sum(s % 7 + 1 for s in range(2, 60, 2))
    events = sum(s % 7 + 1 for s in range(1, 60))
    # Every type has the same ratio; the weights' exact rationals sum to 1 - 2**-55.
    weight_sum = sum(map(Fraction, OTTO_WEIGHTS.values()), Fraction(0))
    assert result.score == float(Fraction(hits, events) * weight_sum)
    interval = bootstrap(result, n_resamples=500, seed=3)["score"]
    assert interval.low <= result.score <= interval.high
    assert bootstrap(result, n_resamples=500, seed=3) == {"score": interval}
