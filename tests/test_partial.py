"""A run scored in parts (scorer.partial) gives what evaluate gives on the whole data:
every value (float.hex), split, count, warning, and error class and text, for any
split into parts, any order and grouping of the merge, and through JSON."""

from __future__ import annotations

import random
import re
from fractions import Fraction

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scorer
from scorer.check.findings import MAX_EXPONENTIAL_GRADE
from scorer.errors import HostVisibleError, ParticipantVisibleError, ScorerError
from scorer.measures.exact_means import ExactSums, MicroSums
from scorer.measures.registry import REGISTRY
from scorer.partial import Partial, finish, merge, partition, score_part

ITEMS = [f"i{j}" for j in range(1, 30)]  # no leading zero, no comma: see test docstring


def _measure_names(
    draw: st.DrawFn, k: int, max_grades: bool = True, graded: bool = True
) -> list[str]:
    """Every family of the registry (or a drawn few, so that large grades meet only
    linear gains), each with drawn parameters (``avg=micro`` among them) and cut-off (a
    set measure's whole row among them); under binary relevance, none that needs judged
    non-relevant items (``AUC``: refused without grades or candidates)."""
    every = draw(st.booleans())
    names = []
    for family in REGISTRY:
        if family.needs_non_relevant and not graded:
            continue
        if not every and draw(st.integers(0, 2)):
            continue
        params = []
        for param in family.params:
            if param.choices is not None:
                params.append(f"{param.name}={draw(st.sampled_from(param.choices))}")
            elif (param.name != "max_grade" or max_grades) and draw(st.booleans()):
                params.append(f"{param.name}={draw(st.integers(3, 5))}")
        name = family.name + (f"({','.join(params)})" if params else "")
        if family.has_cutoff and not (family.whole_row and draw(st.booleans())):
            name += f"@{draw(st.integers(1, k))}"
        names.append(name)
    return names or ["MAP"]


@st.composite
def runs(draw: st.DrawFn) -> dict:
    """A solution, a submission (valid or not) and options, all drawn."""
    n_users = draw(st.integers(0, 30))
    ids = [f"u{i}" for i in range(n_users)]
    k = draw(st.sampled_from([1, 3, 10, 22, 30]))
    graded = draw(st.booleans())
    steep = graded and draw(st.integers(0, 9)) == 0  # past exponential gains' bound, or 2^31
    truth = [
        draw(st.lists(st.sampled_from(ITEMS), max_size=6)) for _ in ids
    ]  # repeats: duplicate_ground_truth
    solution = {"id": ids, "items": [" ".join(t) for t in truth]}
    if graded:
        top = draw(st.sampled_from([31, 2**31, 2**31 + 1])) if steep else 3
        solution["grades"] = [" ".join(str(draw(st.integers(0, top))) for _ in t) for t in truth]
    if draw(st.booleans()):
        solution["Usage"] = [draw(st.sampled_from(["Public", "Private", "Ignored"])) for _ in ids]
    rows = []
    invalid = draw(st.integers(0, 5)) == 0
    for user in ids:
        if invalid and draw(st.integers(0, 4)) == 0:
            continue  # a missing row
        width = draw(st.integers(0, k + (2 if invalid else 0)))
        ranked = draw(st.lists(st.sampled_from(ITEMS), min_size=width, max_size=width))
        shown = user
        if invalid and draw(st.integers(0, 6)) == 0:
            shown = draw(st.sampled_from([f" {user}", user.upper(), user.replace("u", "u0")]))
        rows.append((shown, " ".join(ranked)))
        if invalid and draw(st.integers(0, 8)) == 0:
            rows.append((user, ""))  # a duplicated row id
    if invalid and draw(st.booleans()):
        rows.append((f"x{draw(st.integers(0, 9))}", "i1"))  # an unknown row id
    if invalid and draw(st.integers(0, 3)) == 0:
        rows.append(("", "i2"))  # an empty row id
    rows = draw(st.permutations(rows))
    options = {
        "k": k,
        # A max_grade below a part's largest grade is refused by that part alone
        # (README, "Beyond one machine"): drawn only below the steep grades.
        "metrics": _measure_names(draw, k, max_grades=not steep, graded=graded),
        "empty_ground_truth": draw(st.sampled_from(["skip", "zero"])),
        "extra_predictions": draw(st.sampled_from(["error", "truncate"])),
        "unknown_row_ids": draw(st.sampled_from(["error", "ignore"])),
        "normalization": draw(st.sampled_from(["min_k", "relevant", "hits"])),
    }
    if graded:
        options["grade_column_name"] = "grades"
        options["relevance_threshold"] = draw(st.integers(1, 2))
    submission = pd.DataFrame(rows, columns=["id", "items"], dtype=object)
    if not rows:
        submission = pd.DataFrame({"id": pd.Series([], dtype=object), "items": []})
    return {"solution": pd.DataFrame(solution), "submission": submission, "options": options}


def _outcome(run):
    try:
        return scorer.evaluate(run["solution"], run["submission"], "id", **run["options"])
    except ScorerError as error:
        return error


def _largest_grade(run) -> int | None:
    """The whole solution's largest grade: the front ends' first pass. None above the
    exponential gains' bound: the part holding such a grade finds that problem itself,
    and score_part refuses a max_grade above it (2**max_grade would never finish)."""
    if "grades" not in run["solution"]:
        return None
    grades = [int(g) for cell in run["solution"]["grades"] for g in cell.split()]
    largest = max(grades, default=0)
    return largest if largest <= MAX_EXPONENTIAL_GRADE else None


def _partials(run, n_parts: int, seed: int, max_grade: int | None) -> list[Partial]:
    solution, submission = run["solution"], run["submission"]
    parts_of_solution = partition(solution["id"], n_parts, seed)
    parts_of_submission = partition(submission["id"], n_parts, seed)
    return [
        score_part(
            solution[parts_of_solution == part],
            submission[parts_of_submission == part],
            "id",
            max_grade=max_grade,
            **run["options"],
        )
        for part in range(n_parts)
    ]


def _merged(partials: list[Partial], rng: random.Random) -> Partial:
    """Merged in a random order and grouping, some through their JSON form."""
    pool = [Partial.from_json(p.to_json()) if rng.random() < 0.5 else p for p in partials]
    rng.shuffle(pool)
    while len(pool) > 1:
        i = rng.randrange(len(pool) - 1)
        pool[i : i + 2] = [merge(pool[i], pool[i + 1])]
        if rng.random() < 0.3:
            pool[i] = Partial.from_json(pool[i].to_json())
    return pool[0]


def _assert_same(expected, run, partials: list[Partial], rng: random.Random) -> None:
    merged = _merged(partials, rng)
    if isinstance(expected, ScorerError):
        with pytest.raises(type(expected)) as caught:
            finish(merged)
        assert str(caught.value) == str(expected)
        return
    result = finish(merged)
    assert result == expected
    pairs = [
        (result.metrics, expected.metrics),
        (result.public_metrics or {}, expected.public_metrics or {}),
        (result.private_metrics or {}, expected.private_metrics or {}),
    ]
    for mine, theirs in pairs:
        assert {n: v.hex() for n, v in mine.items()} == {n: v.hex() for n, v in theirs.items()}
    assert result.hits_at_rank.tolist() == expected.hits_at_rank.tolist()


@given(runs(), st.integers(1, 64), st.integers(0, 2**32), st.randoms(use_true_random=False))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_parts_merged_in_any_order_give_the_whole_runs_result(run, n_parts, seed, rng) -> None:
    """Random data (valid and invalid), every measure of the registry with drawn
    parameters, 1 to 64 parts (many empty, or holding only Ignored or skipped users),
    merged in random order and grouping, partly through JSON.

    Item ids keep no leading zero and no comma: those hints compare a row with the
    other rows (the usual zero-padded width, the first predicted ids) and are computed
    within each part (README, "Beyond one machine")."""
    expected = _outcome(run)
    partials = _partials(run, n_parts, seed, _largest_grade(run))
    _assert_same(expected, run, partials, rng)


def _exact(sums: ExactSums | MicroSums) -> object:
    """What the sums add up to: micro ones keep their numerators and denominators."""
    return sums.by_label if isinstance(sums, MicroSums) else sums.totals()


@given(runs(), st.integers(1, 8))
@settings(max_examples=30, deadline=None)
def test_one_part_or_many_give_the_same_partial_sums(run, n_parts) -> None:
    """Merging is exact: the merged sums of many parts equal the one part's."""
    max_grade = _largest_grade(run)
    whole = _partials(run, 1, 0, max_grade)[0]
    merged = merge(*_partials(run, n_parts, 1, max_grade))
    if whole.stage or merged.stage:
        assert whole.stage == merged.stage
        return
    assert {n: _exact(s) for n, s in merged.sums.items()} == {
        n: _exact(s) for n, s in whole.sums.items()
    }
    assert merged.counts == whole.counts


def test_map_at_30_in_32_parts_is_bit_for_bit_the_single_run() -> None:
    """The measured regression: K = 30, most rows 10 wide, three 25 wide, 32 parts.
    Parts without a wide row took AP's exact route, the whole run the float one: the
    Private score was 1 ulp off (0x1.203e6d77a604dp-5 against ...cp-5)."""
    rng = np.random.default_rng(0)
    n_users = 3000
    ids = [f"u{i}" for i in range(n_users)]
    truth = [" ".join(f"i{j}" for j in rng.choice(60, rng.integers(1, 8), replace=False))
             for _ in ids]  # fmt: skip
    widths = np.full(n_users, 10)
    widths[[5, 1234, 2999]] = 25
    ranked = [" ".join(f"i{j}" for j in rng.choice(60, w, replace=False)) for w in widths]
    usage = rng.choice(["Public", "Private"], n_users)
    solution = pd.DataFrame({"id": ids, "items": truth, "Usage": usage})
    submission = pd.DataFrame({"id": ids, "items": ranked})
    expected = scorer.evaluate(solution, submission, "id", k=30)
    run = {"solution": solution, "submission": submission, "options": {"k": 30}}
    partials = _partials(run, 32, 0, None)
    result = finish(merge(*partials))
    assert result == expected
    assert result.private_score.hex() == expected.private_score.hex()
    # And the value is the correctly rounded mean of the per-user float64 APs.
    floats = expected.user_values["MAP@30"][usage == "Private"]
    assert expected.private_score == float(
        sum((Fraction(v) for v in floats), Fraction(0)) / len(floats)
    )


def _graded_run() -> dict:
    solution = pd.DataFrame(
        {"id": ["u1", "u2", "u3", "u4"], "items": ["a b", "c", "d", "e"],
         "grades": ["3 1", "1", "2", "1"]}
    )  # fmt: skip
    submission = pd.DataFrame({"id": ["u1", "u2", "u3", "u4"], "items": ["b a", "c", "x d", "e"]})
    options = {"k": 3, "metrics": ["ERR", "nERR@2", "MAP"], "grade_column_name": "grades"}
    return {"solution": solution, "submission": submission, "options": options}


@pytest.mark.parametrize("metric", ["ERR", "nERR@3"])
def test_a_max_grade_above_the_exponential_bound_is_refused_before_any_work(metric) -> None:
    table = pd.DataFrame({"id": ["u1"], "items": ["a"], "grades": ["1"]})
    with pytest.raises(HostVisibleError, match=rf"must be at most 30 with {re.escape(metric)}"):
        score_part(
            table,
            table.drop(columns="grades"),
            "id",
            max_grade=2**31 + 1,
            metrics=[metric],
            grade_column_name="grades",
        )
    # A measure that does not take it as its own leaves it unchecked against 30.
    score_part(
        table,
        table.drop(columns="grades"),
        "id",
        max_grade=2**31 + 1,
        metrics=["nDCG(gain=linear)@3"],
        grade_column_name="grades",
    )


def test_err_default_max_grade_given_once_is_the_whole_runs() -> None:
    run = _graded_run()
    expected = _outcome(run)
    for n_parts in (1, 2, 3, 4):
        assert finish(merge(*_partials(run, n_parts, 0, 3))) == expected


def test_parts_that_took_other_largest_grades_are_refused() -> None:
    run = _graded_run()
    solution = run["solution"]
    parts = [solution.iloc[:1], solution.iloc[1:]]  # largest grades 3 and 2
    submission = run["submission"]
    partials = [
        score_part(part, submission[submission["id"].isin(part["id"])], "id", **run["options"])
        for part in parts
    ]
    with pytest.raises(HostVisibleError, match=r"largest grades differ \(2, 3\).*max_grade=3"):
        finish(merge(*partials))
    with pytest.raises(HostVisibleError, match="at least the largest grade"):
        score_part(parts[0], submission.iloc[:1], "id", max_grade=2, **run["options"])


def test_partials_of_other_options_do_not_merge() -> None:
    run = _graded_run()
    a = score_part(run["solution"], run["submission"], "id", **run["options"])
    b = score_part(run["solution"], run["submission"], "id", **{**run["options"], "k": 4})
    with pytest.raises(HostVisibleError, match="different options"):
        merge(a, b)
    with pytest.raises(HostVisibleError, match="at least one partial"):
        merge()


def test_a_partial_is_small_versioned_json() -> None:
    rng = np.random.default_rng(1)
    ids = [f"u{i}" for i in range(20_000)]
    truth = [" ".join(f"i{j}" for j in rng.choice(50, 4, replace=False)) for _ in ids]
    ranked = [" ".join(f"i{j}" for j in rng.choice(50, 10, replace=False)) for _ in ids]
    solution = pd.DataFrame({"id": ids, "items": truth, "Usage": "Public"})
    submission = pd.DataFrame({"id": ids, "items": ranked})
    metrics = ["MAP@10", "nDCG@10", "P@10", "R@10", "MRR@10", "HitRate@10"]
    text = score_part(solution, submission, "id", metrics=metrics).to_json()
    assert len(text) < 8_000
    assert '"version":1' in text
    with pytest.raises(HostVisibleError, match=r"version 1 was expected.*Got version 2"):
        Partial.from_json(text.replace('"version":1', '"version":2'))
    with pytest.raises(HostVisibleError, match="altered"):
        Partial.from_json(text.replace('"k":10', '"k":11'))
    with pytest.raises(HostVisibleError, match="not a partial"):
        Partial.from_json("[1, 2]")


def test_no_scorable_user_is_decided_after_the_merge() -> None:
    solution = pd.DataFrame(
        {"id": ["u1", "u2"], "items": ["a", ""], "Usage": ["Ignored", "Public"]}
    )
    submission = pd.DataFrame({"id": ["u1", "u2"], "items": ["a", "b"]})
    run = {"solution": solution, "submission": submission, "options": {}}
    expected = _outcome(run)
    assert isinstance(expected, HostVisibleError)
    partials = _partials(run, 2, 0, None)
    assert all(p.stage == 0 for p in partials)  # no part raises it
    with pytest.raises(HostVisibleError) as caught:
        finish(merge(*partials))
    assert str(caught.value) == str(expected)


def test_errors_of_several_parts_are_one_message() -> None:
    solution = pd.DataFrame({"id": [f"u{i}" for i in range(12)], "items": "a"})
    submission = pd.DataFrame(
        {"id": ["u1", "u1", "u2", "u2", " u3", "U4", "x", "u5", "u6", "u7", "u8"],
         "items": ["a", "a", "", "", "a", "a", "a", "a b c", "a", "a", "a"]}
    )  # fmt: skip
    run = {"solution": solution, "submission": submission, "options": {"k": 2}}
    expected = _outcome(run)
    assert isinstance(expected, ParticipantVisibleError)
    assert "Missing rows" in str(expected) and "Duplicated row ids" in str(expected)
    assert "would match once surrounding whitespace is removed" in str(expected)
    for n_parts in (2, 5, 16):
        with pytest.raises(ParticipantVisibleError) as caught:
            finish(merge(*_partials(run, n_parts, 3, None)))
        assert str(caught.value) == str(expected)


def test_partition_is_stable_and_normalised() -> None:
    ids = ["u1", " u1 ", "U1", "u1\u3000", "7", "7.0", "007", "", None]
    parts = partition(ids, 1000)
    assert len(set(parts[:4].tolist())) == 1 and len(set(parts[4:7].tolist())) == 1
    assert parts[7] == parts[8]  # a missing id is the empty one
    assert partition(pd.Series([7, 8]), 1000).tolist() == partition(["7", "8"], 1000).tolist()
    assert partition(ids, 1000, seed=1).tolist() != parts.tolist()
    many = partition([f"c{i:016x}" for i in range(1, 64_001)], 64)
    counts = np.bincount(many, minlength=64)
    assert counts.min() > 800 and counts.max() < 1200  # about 1,000 each
    with pytest.raises(HostVisibleError, match="n_parts"):
        partition(ids, 0)


_ID_TEXT = st.text(
    alphabet=st.sampled_from(list("0aAbB7.1 \t\u3000\u00a0Éé")), min_size=0, max_size=8
)


@given(_ID_TEXT, _ID_TEXT)
@settings(max_examples=400, deadline=None)
def test_ids_a_near_miss_hint_pairs_share_a_part(submitted: str, missing: str) -> None:
    """Each of the first four repairs (whitespace, case, leading zeros, a trailing .0)
    that makes two ids equal puts them in the same part, so the part holding the
    missing id also holds the submitted one, and the hint counts it."""
    from scorer.check.validate import _ID_REPAIRS

    ids = pa.array([submitted, missing], pa.large_string())
    parts = partition(ids, 1 << 30).tolist()
    for repair, _ in _ID_REPAIRS[:4]:
        repaired = repair(ids).to_pylist()
        if repaired[0] == repaired[1]:
            assert parts[0] == parts[1], (repair, repaired)


@given(st.lists(st.text(alphabet=st.characters(max_codepoint=127), max_size=6), max_size=20))
@settings(max_examples=200, deadline=None)
def test_ascii_ids_normalise_alike_on_both_routes(texts: list[str]) -> None:
    from scorer.partial import _normalised

    ascii_route = _normalised(pa.array(texts, pa.large_string())).to_pylist()
    unicode_route = _normalised(pa.array([*texts, "é"], pa.large_string())).to_pylist()[:-1]
    assert ascii_route == unicode_route


def test_a_solutions_problems_name_its_columns_from_any_part() -> None:
    """Every part fails on the solution's rows (item lists in the row-id column): the
    message names the columns as evaluate's does."""
    solution = pd.DataFrame(
        {"prediction": ["0706016001 0706016002", "0372860001", "x"], "customer_id": list("abc")}
    )
    submission = pd.DataFrame({"prediction": ["a", "b", "c"], "customer_id": list("abc")})
    with pytest.raises(HostVisibleError) as expected:
        scorer.evaluate(solution, submission)
    parts = partition(solution["prediction"], 3), partition(submission["prediction"], 3)
    partials = [score_part(solution[parts[0] == p], submission[parts[1] == p]) for p in range(3)]
    with pytest.raises(HostVisibleError) as caught:
        finish(merge(*partials))
    assert str(caught.value) == str(expected.value)
    assert "row_id_column_name='customer_id'" in str(caught.value)


def test_the_readmes_example_runs() -> None:
    """README, "Beyond one machine": its example asserts what it shows."""
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Beyond one machine") :]
    code = section[section.index("```python") + len("```python") : section.index("```\n\n")]
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    assert namespace["result"].score == float(Fraction(5, 6))  # (1 + 1/2 + 1) / 3, u4 skipped


@pytest.mark.parametrize(
    ("option", "shown"),
    [
        ({"layout": "long"}, "layout='long'"),
        ({"solution_layout": "long"}, "solution_layout='long'"),
        ({"format": "trec"}, "format='trec'"),
        ({"candidates_column_name": "candidates"}, "candidates_column_name='candidates'"),
        ({"candidate_rule": "subset"}, "candidate_rule='subset'"),
        ({"unjudged": "drop"}, "unjudged='drop'"),
        ({"missing_rows": "empty"}, "missing_rows='empty'"),
        ({"target_type_column_name": "type"}, "target_type_column_name='type'"),
        ({"row_id_type_separator": "_"}, "row_id_type_separator='_'"),
        ({"candidates": pd.DataFrame({"id": ["u1"], "items": ["a"]})}, "candidates=<table>"),
    ],
)
def test_other_shapes_are_refused_when_split_into_parts(option, shown) -> None:
    """The long layout, trec_eval files, candidates and dropped unjudged items are not
    yet records that parts can merge: refused before any row is read."""
    table = pd.DataFrame({"id": ["u1"], "items": ["a b"]})
    with pytest.raises(HostVisibleError, match=rf"^{shown}: not yet supported when split"):
        score_part(table, table, "id", **option)
