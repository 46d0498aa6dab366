"""A run scored in parts (scorer.partial) gives what evaluate gives on the whole data:
every value (float.hex), split, count, warning, and error class and text, for any
split into parts, any order and grouping of the merge, and through JSON."""

from __future__ import annotations

import itertools
import json
import random
import re
from dataclasses import replace
from fractions import Fraction

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scorer
from fuzz.partials import check_partial_text, partial_texts
from scorer.check.findings import MAX_EXPONENTIAL_GRADE, WARNING_WORDS
from scorer.errors import HostVisibleError, ParticipantVisibleError, ScorerError
from scorer.measures.exact_means import ExactSums, MicroSums
from scorer.measures.registry import REGISTRY
from scorer.partial import Partial, finish, merge, partition, score_part, split_by_part
from tests.declared import choices, param_values, variants
from tests.paths import DOCS

ITEMS = [f"i{j}" for j in range(1, 30)]


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
        # GAP, and trec_eval's sums, geometric means and utility: refused in parts
        refused = family.scored or family.summed or family.signed
        if (family.needs_non_relevant and not graded) or refused:
            continue
        if not every and draw(st.integers(0, 2)):
            continue
        params = []
        one_of = draw(st.sampled_from(family.one_of)) if family.one_of else None
        for param in family.params:
            values = [text for text, _ in param_values(family, param) if text != "geometric"]
            if param.name in family.one_of and param.name != one_of:
                continue
            drawn = (param.name != "max_grade" or max_grades) and draw(st.booleans())
            if values and (param.required or drawn):
                params.append(f"{param.name}={draw(st.sampled_from(values))}")
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
        # (docs/beyond-one-machine.md, "Beyond one machine"): drawn only below the steep grades.
        "metrics": _measure_names(draw, k, max_grades=not steep, graded=graded),
        "empty_ground_truth": draw(choices("empty_ground_truth")),
        "extra_predictions": draw(choices("extra_predictions")),
        "unknown_row_ids": draw(choices("unknown_row_ids")),
        "normalization": draw(choices("normalization")),
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


#: Parts per run: one, a few, and many (mostly empty ones); each part costs a score_part call.
PART_COUNTS = st.sampled_from([1, 2, 3, 5, 8, 13, 64])


@pytest.mark.slow
@given(runs(), PART_COUNTS, st.integers(0, 2**32), st.randoms(use_true_random=False))
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_parts_merged_in_any_order_give_the_whole_runs_result(run, n_parts, seed, rng) -> None:
    """Random data (valid and invalid), every measure of the registry with drawn
    parameters, 1 to 64 parts (many empty, or holding only Ignored or skipped users),
    merged in random order and grouping, partly through JSON (the hints about item ids,
    every warning code: test_every_warning_code_in_parts_is_evaluates)."""
    expected = _outcome(run)
    partials = _partials(run, n_parts, seed, _largest_grade(run))
    _assert_same(expected, run, partials, rng)


def _hint_row(rng: np.random.Generator, pool: list[str], truth: list[str], k: int) -> str:
    """A ranking that may provoke any warning about rows: empty, a repeat, lost zeros,
    commas, floats, or the solution's own items with zeros it lost."""
    kind = int(rng.integers(0, 9))
    chosen = [str(x) for x in rng.choice(pool, size=int(rng.integers(1, k + 1)))]
    forms = {
        0: "",
        1: " ".join(chosen[:1] * 2),
        2: " ".join(x.lstrip("0") or "0" for x in chosen),
        3: ",".join(chosen),
        4: " ".join(x.lstrip("0") + ".0" for x in chosen),
        5: " ".join(f"{float(x):.9e}" if x.isdigit() else x for x in chosen),
        6: " ".join(f"0{x}" for x in truth[:k]),  # the solution lost zeros
    }
    return forms.get(kind, " ".join(chosen))


def test_every_warning_code_in_parts_is_evaluates() -> None:
    """Every warning about rows, from parts merged, is evaluate's exactly: the same
    words, counts and examples (lost zeros once, where each part gave its own; the usual
    zero-padded width of the whole submission, which no part sees alone), whatever the
    number of parts."""
    seen: set[str] = set()
    for seed in range(60):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(3, 40))
        ids = [f"c{i:02d}" for i in range(n)]
        padded = [f"0{v:09d}" for v in rng.integers(10**8, 10**9, size=13)]
        pool = padded[:10] + [x.lstrip("0") for x in padded[10:]] + ["a", "b"]
        truth = [[str(x) for x in rng.choice(pool, size=int(rng.integers(0, 4)))] for _ in ids]
        usage = rng.choice(["Public", "Private", "Ignored"], size=n, p=[0.5, 0.4, 0.1])
        if rng.random() < 0.1:
            usage[:] = "Private"
        solution = pd.DataFrame({"id": ids, "items": [" ".join(t) for t in truth], "Usage": usage})
        rows = [_hint_row(rng, pool, t, 5) for t in truth]
        if rng.random() < 0.2:  # every id read as a number
            rows = [" ".join(x.lstrip("0") for x in r.split() if x.isdigit()) for r in rows]
        submission = pd.DataFrame({"id": ids, "items": rows})
        options = {"k": 5, "missing_rows": str(rng.choice(["error", "empty"]))}
        if options["missing_rows"] == "empty":
            submission = submission.drop(index=int(rng.integers(0, n)))
        expected = scorer.evaluate(solution, submission, "id", **options)
        run = {"solution": solution, "submission": submission, "options": options}
        partials = _partials(run, int(rng.integers(1, 12)), seed, None)
        assert finish(_merged(partials, random.Random(seed))).warnings == expected.warnings
        seen.update(w.code for w in expected.warnings)
    trec_only = {"missing_queries", "missing_queries_scored", "repeated_judgements"}  # trec_eval
    assert seen == {*WARNING_WORDS, "no_public_users", "no_private_users"} - trec_only


def _exact(sums: ExactSums | MicroSums) -> object:
    """What the sums add up to: micro ones keep their numerators and denominators."""
    return sums.by_label if isinstance(sums, MicroSums) else sums.totals()


@pytest.mark.slow
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


@pytest.mark.parametrize("n_parts", [1, 3, 8])
def test_whole_rows_in_parts_give_the_whole_runs_result(n_parts: int) -> None:
    """No k and no measure with a cut-off: rows are read whole in every part (a row far
    longer in one part than in any other included), and k stays None after the merge."""
    rng = random.Random(n_parts)
    ids = [f"u{i}" for i in range(40)]
    truths = [" ".join(map(str, rng.sample(range(60), rng.randint(0, 6)))) for _ in ids]
    lengths = [rng.randint(0, 30) for _ in ids]
    lengths[7] = 3000
    cells = [" ".join(str(rng.randrange(80)) for _ in range(n)) for n in lengths]
    run = {
        "solution": pd.DataFrame({"id": ids, "items": truths}),
        "submission": pd.DataFrame({"id": ids, "items": cells}),
        "options": {"metrics": ["SetF(beta=2)", "Jaccard", "RPrec", "SetP(avg=micro)"]},
    }
    expected = _outcome(run)
    assert expected.options.k is None
    _assert_same(expected, run, _partials(run, n_parts, 5, None), random.Random(1))


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


#: Every family whose run value is a sum or whose values may be negative, and a geometric
#: mean: the parts' sums (natural numbers, added) carry none of them.
_NOT_IN_PARTS = [
    variants(family)[0].name for family in REGISTRY if family.summed or family.signed
] + ["gm_map"]


@pytest.mark.parametrize("metric", _NOT_IN_PARTS)
def test_sums_geometric_means_and_signed_values_are_refused_in_parts(metric) -> None:
    table = pd.DataFrame({"id": ["u1"], "items": ["a"]})
    with pytest.raises(HostVisibleError, match=r"cannot be scored in parts yet: its value is"):
        score_part(table, table, "id", metrics=[metric])


@pytest.mark.parametrize("metric", ["ERR", "nERR@3"])
def test_a_max_grade_above_the_exponential_bound_is_refused_before_scoring(metric) -> None:
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


def test_a_solution_grade_above_the_bound_is_refused_in_evaluates_words() -> None:
    """A front end passes the solution's largest grade as max_grade: when that grade is
    over the bound, the part says what evaluate says of the solution, not of max_grade."""
    solution = pd.DataFrame({"id": ["u1", "u2"], "items": ["a", "b"], "grades": ["31", "1"]})
    submission = solution.drop(columns="grades")
    options = {"metrics": ["ERR@3"], "grade_column_name": "grades"}
    with pytest.raises(HostVisibleError) as whole:
        scorer.evaluate(solution, submission, "id", **options)
    with pytest.raises(HostVisibleError) as part:
        finish(score_part(solution, submission, "id", max_grade=31, **options))
    assert str(part.value) == str(whole.value)
    assert "max_grade' parameter" not in str(part.value)


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


def _chunked(frame: pd.DataFrame, rows_per_chunk: int) -> pa.Table:
    """A frame as an Arrow table of string columns in chunks (as a CSV reader gives)."""
    columns = {name: pa.array(frame[name].tolist(), pa.string()) for name in frame.columns}
    table = pa.table(columns)
    return pa.Table.from_batches(table.to_batches(max_chunksize=rows_per_chunk), table.schema)


@pytest.mark.slow
@given(runs(), PART_COUNTS, st.integers(1, 7), st.integers(0, 2**32))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_parts_split_by_part_give_the_whole_runs_result(run, n_parts, rows_per_chunk, seed):
    """Chunked Arrow tables split by split_by_part: every part a slice of one gathered
    table, read by score_part without a copy of its own, scores as the whole run."""
    solution = _chunked(run["solution"], rows_per_chunk)
    submission = _chunked(run["submission"], rows_per_chunk)
    arrow_run = {**run, "solution": solution, "submission": submission}
    expected = _outcome(arrow_run)
    pieces = [
        split_by_part(table, partition(table.column("id"), n_parts, seed), n_parts)
        for table in (solution, submission)
    ]
    partials = [
        score_part(a, b, "id", max_grade=_largest_grade(run), **run["options"])
        for a, b in zip(*pieces, strict=True)
    ]
    _assert_same(expected, arrow_run, partials, random.Random(seed))


@given(
    st.lists(st.text(max_size=4), max_size=40),
    st.integers(1, 9),
    st.integers(1, 300),
    st.randoms(use_true_random=False),
)
@settings(max_examples=200, deadline=None)
def test_split_by_part_is_a_filter_per_part(texts, rows_per_chunk, n_parts, rng) -> None:
    """Against the plain reference: each part holds the rows a filter keeps, in their
    order, every column one chunk."""
    numbers = pa.array(range(len(texts)), pa.int64())
    table = pa.table({"id": pa.array(texts, pa.string()), "n": numbers})
    table = pa.Table.from_batches(table.to_batches(max_chunksize=rows_per_chunk), table.schema)
    parts = np.array([rng.randrange(n_parts) for _ in texts], dtype=np.int64)
    found = list(split_by_part(table, parts, n_parts))
    assert len(found) == n_parts
    for p, part in enumerate(found):
        expected = table.filter(pa.array(parts == p, pa.bool_()))
        assert part.schema == table.schema
        assert part.to_pydict() == expected.to_pydict()
        assert all(column.num_chunks == 1 for column in part.columns)


def test_split_by_part_refuses_parts_that_are_no_partition() -> None:
    table = pa.table({"id": ["u1", "u2"]})
    for parts in ([0], [0, 3], [-1, 0], [0.0, 1.0], [[0], [1]]):
        with pytest.raises(HostVisibleError, match=r"'parts' parameter .* 0 \.\. 2 per row"):
            next(split_by_part(table, parts, 3))
    with pytest.raises(HostVisibleError, match="n_parts"):
        next(split_by_part(table, [0, 0], 0))
    assert [
        len(part) for part in split_by_part(pa.table({"id": pa.array([], pa.string())}), [], 2)
    ] == [0, 0]


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


def test_partition_refuses_what_is_no_row_id_or_no_number_of_parts() -> None:
    """A lone surrogate (no UTF-8 text) and 2^70 parts (past an int64) are host errors,
    not UnicodeEncodeError and OverflowError; split_by_part takes any number of parts
    without allocating one count per part."""
    for ids in (["u1", "\ud800"], pd.Series(["\udcff"], dtype=object)):
        with pytest.raises(HostVisibleError, match=r"row-id column is invalid[\s\S]*UTF-8"):
            partition(ids, 4)
    with pytest.raises(HostVisibleError, match=r"\[1, 9223372036854775807\]\. Got 118059162"):
        partition(["u1"], 2**70)
    assert 0 <= partition(["u1"], 2**63 - 1)[0] < 2**63 - 1
    table = pa.table({"id": ["u1", "u2"]})
    parts = split_by_part(table, [2**40, 1], 2**41)  # a count per part would be 16 TiB
    assert [next(parts).num_rows for _ in range(3)] == [0, 1, 0]


@given(
    st.lists(st.one_of(st.none(), st.text(alphabet="0aA7. \u3000é_", max_size=5)), max_size=60),
    st.lists(st.integers(0, 70), max_size=6),
    st.sampled_from([None, "_"]),
)
@settings(max_examples=200, deadline=None)
def test_partition_of_chunks_is_partition_of_the_whole(ids, cuts, separator) -> None:
    """Against the plain reference (the ids as one list): the same parts whatever the
    chunks (pieces joined across chunks and cut within them, a few rows at a time)."""
    import scorer.partial as partial

    bounds = sorted({0, len(ids), *(min(cut, len(ids)) for cut in cuts)})
    chunks = [pa.array(ids[a:b], pa.string()) for a, b in itertools.pairwise(bounds)]
    expected = partition(ids, 97, type_separator=separator).tolist()
    saved = partial._PIECE_ROWS
    try:
        partial._PIECE_ROWS = 7
        found = partition(pa.chunked_array(chunks, pa.string()), 97, type_separator=separator)
    finally:
        partial._PIECE_ROWS = saved
    assert found.tolist() == expected


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
    """docs/beyond-one-machine.md, "Beyond one machine": its example asserts what it shows."""

    page = DOCS / "beyond-one-machine.md"
    section = page.read_text(encoding="utf-8")
    start = section.index("```python") + len("```python")
    code = section[start : section.index("```\n\n", start)]
    namespace: dict = {}
    exec(compile(code, "docs/beyond-one-machine.md", "exec"), namespace)
    assert namespace["result"].score == float(Fraction(5, 6))  # (1 + 1/2 + 1) / 3, u4 skipped


def test_a_type_column_needs_the_whole_solutions_types() -> None:
    """A part cannot tell a type its rows lack from one the solution lacks."""
    solution = pd.DataFrame({"id": ["s1", "s1"], "kind": ["a", "b"], "items": ["x", "y"]})
    options = {"target_type_column_name": "kind"}
    with pytest.raises(HostVisibleError, match=r"needs target_types.*Got None"):
        score_part(solution, solution, "id", **options)
    with pytest.raises(HostVisibleError, match=r"(?s)Target types not given.*'b'"):
        score_part(solution, solution, "id", target_types=["a"], **options)
    result = finish(score_part(solution, solution, "id", target_types=["b", "a"], **options))
    assert result == scorer.evaluate(solution, solution, "id", **options)
    assert result.types == ("a", "b") and result.by_type == {
        "a": {"MAP@10": 1.0},
        "b": {"MAP@10": 1.0},
    }


@pytest.mark.parametrize("seed", range(4))
def test_trec_files_split_by_query_give_the_whole_runs_result(tmp_path, seed) -> None:
    """trec_eval's qrels and run, each part a pair of files of its own (split by query
    id): negative rels counted, queries only in the run ignored, ties by docno."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(40):
        docs = rng.choice(30, 8, replace=False)
        qrels += [f"q{q} 0 d{d} {rng.integers(-1, 3)}" for d in docs[: rng.integers(0, 6)]]
        if q % 7:  # q0, q7, ... missing from the run: missing rows
            run += [f"q{q} Q0 d{d} {r} {rng.integers(0, 4)} tag" for r, d in enumerate(docs)]
    run += [f"z{q} Q0 d1 1 1.5 tag" for q in range(3)]  # only in the run: ignored
    options = {"format": "trec", "k": 8, "metrics": ["MAP(norm=relevant)", "nDCG", "P@2"],
               "missing_rows": "empty", "unjudged": ["keep", "drop"][seed % 2]}  # fmt: skip
    whole = [tmp_path / "qrels", tmp_path / "run"]
    for path, lines in zip(whole, (qrels, run), strict=True):
        path.write_text("\n".join(lines) + "\n")
    expected = scorer.evaluate(*whole, **options)
    assert expected.warnings  # missing rows scored as empty, unjudged lines
    parts = _trec_parts(tmp_path, qrels, run, 3, seed)
    partials = [score_part(*paths, **options) for paths in parts]
    result = finish(merge(*partials))
    assert result == expected
    assert result.warnings == expected.warnings and result.options == expected.options


# Every shape: the long layout (submission and solution), candidates (a column or a
# table of their own), unjudged items dropped, missing rows scored as empty and target
# types (in the row ids or a column of their own), drawn together on random data.

TYPES = ("carts", "clicks", "orders")


@st.composite
def shaped_runs(draw: st.DrawFn) -> dict:
    """A run of :func:`runs` put into drawn shapes: its solution and submission as the
    scorer reads them, the options naming the shapes, and how to split it
    (``separator``: the row ids' type separator; ``tables``: the tables to split)."""
    run = draw(runs())
    solution, submission, options = run["solution"], run["submission"], dict(run["options"])
    options["metrics"] = options["metrics"][:3]
    candidates = None
    separator = None
    typed = draw(st.sampled_from([None, None, "separator", "column"]))
    if typed is not None:
        kinds = draw(st.lists(st.sampled_from(TYPES), min_size=1, max_size=3, unique=True))
        if draw(st.booleans()):
            weights = {kind: draw(st.sampled_from([0.1, 0.3, 0.6, 1.0])) for kind in kinds}
            options["type_weights"] = weights
        # user u<n> is session s<n // len(kinds)>, type kinds[n % len(kinds)]: the types
        # of a session share its row id
        sessions = {f"u{n}": f"s{n // len(kinds)}" for n in range(len(solution))}
        kind_of = {f"u{n}": kinds[n % len(kinds)] for n in range(len(solution))}
        shown = [
            (
                sessions.get(re.sub(r"^u0*(\d)", r"u\1", i.strip().lower()), "x"),
                kind_of.get(i, kinds[0]),
            )
            for i in submission["id"]
        ]
        solution = solution.assign(
            id=[sessions[i] for i in solution["id"]], kind=[kind_of[i] for i in solution["id"]]
        )
        submission = submission.assign(
            id=[_near(i, s) for i, (s, _) in zip(submission["id"], shown, strict=True)],
            kind=[k for _, k in shown],
        )
        if typed == "separator":
            separator = "_"
            options["row_id_type_separator"] = "_"
            solution, submission = _joined(solution), _joined(submission)
        else:
            options["target_type_column_name"] = "kind"
    if draw(st.integers(0, 3)) == 0:
        options["missing_rows"] = "empty"
    if draw(st.integers(0, 3)) == 0:
        options["unjudged"] = "drop"
    if draw(st.integers(0, 3)) == 0:
        pool = [draw(st.lists(st.sampled_from(ITEMS), max_size=4)) for _ in range(len(solution))]
        if draw(st.booleans()):  # mostly valid: each row's submitted items are candidates
            submitted = dict(zip(submission["id"], submission["items"], strict=False))
            pool = [
                p + submitted.get(i, "").split() for p, i in zip(pool, solution["id"], strict=True)
            ]
        cells = [
            " ".join(dict.fromkeys(t.split() + extra))
            for t, extra in zip(solution["items"], pool, strict=True)
        ]
        options["candidate_rule"] = draw(st.sampled_from(["subset", "permutation"]))
        if draw(st.booleans()):  # the candidates that are not relevant: AUC's non-relevant
            options["metrics"] = [*options["metrics"], "AUC"]
        if typed == "column" or draw(st.booleans()):  # a table is keyed by row id alone
            solution = solution.assign(cands=cells)
            options["candidates_column_name"] = "cands"
        else:
            candidates = pd.DataFrame({"id": solution["id"], "items": cells})
    if typed != "column" and draw(st.integers(0, 2)) == 0:  # the type column is wide only
        solution = _long(solution, "grades" in solution, draw(st.booleans()))
        options["solution_layout"] = "long"
    if typed != "column" and draw(st.integers(0, 2)) == 0:
        by = draw(st.sampled_from([None, "rank", "score"]))
        submission = _long(submission, False, by is None, by)
        options["layout"] = "long"
        if by is not None:
            options[f"{by}_column_name"] = by
    tables = {"solution": solution, "submission": submission}
    if candidates is not None:
        tables["candidates"] = candidates
    types = sorted(set(solution["kind"])) if typed == "column" else None
    return {"tables": tables, "options": options, "separator": separator, "types": types}


def _trec_parts(folder, qrels: list[str], run: list[str], n_parts: int, seed: int):
    """The qrels and run lines of each part (by their qid's ``partition``) written to
    files of their own: the paths of each part's two files."""
    parts = []
    for part in range(n_parts):
        paths = [folder / f"qrels{part}", folder / f"run{part}"]
        for path, lines in zip(paths, (qrels, run), strict=True):
            ids = [line.split()[0] for line in lines]
            mine = [line for line, p in zip(lines, partition(ids, n_parts, seed), strict=True)
                    if p == part]  # fmt: skip
            path.write_text("".join(line + "\n" for line in mine))
        parts.append(paths)
    return parts


def _joined(table: pd.DataFrame) -> pd.DataFrame:
    """The type column written into the row ids: ``s3_clicks``."""
    ids = [f"{i}_{kind}" for i, kind in zip(table["id"], table["kind"], strict=True)]
    return table.drop(columns="kind").assign(id=pd.Series(ids, index=table.index, dtype=object))


def _near(shown: str, session: str) -> str:
    """The session id written as the user id was (a near miss stays one; an unknown or
    empty id stays as it was)."""
    if not shown.strip() or session == "x":
        return shown
    near = session.upper() if shown.strip() != shown.strip().lower() else session
    return (" " if shown.startswith(" ") else "") + (
        near.replace("s", "s0") if "u0" in shown else near
    )


def _long(table: pd.DataFrame, graded: bool, shuffled: bool, by: str | None = None):
    """One row per (row id, item), a row id without items listed once with an empty
    item; the other columns repeated on each of its rows."""
    rows = []
    for _, row in table.iterrows():
        items = row["items"].split()
        grades = row["grades"].split() if graded else [""] * len(items)
        for rank, (item, grade) in enumerate(zip(items, grades, strict=True), start=1):
            rows.append({**row, "items": item, "grades": grade, "rank": str(rank),
                         "score": str(-rank)})  # fmt: skip
        if not items:
            rows.append({**row, "items": "", "grades": "", "rank": "1", "score": "0"})
    columns = [*table.columns, *([by] if by else [])]
    long = pd.DataFrame(rows, columns=[*table.columns, "rank", "score"], dtype=object)
    long = long[columns]
    if shuffled or by is None:
        return long
    return long.sample(frac=1, random_state=len(long))


def _shaped_outcome(run):
    tables = run["tables"]
    try:
        return scorer.evaluate(
            tables["solution"], tables["submission"], "id",
            candidates=tables.get("candidates"), **run["options"],
        )  # fmt: skip
    except ScorerError as error:
        return error


def _shaped_partials(run, n_parts: int, seed: int, max_grade: int | None) -> list[Partial]:
    tables = run["tables"]
    parts = {
        name: partition(table["id"], n_parts, seed, type_separator=run["separator"])
        for name, table in tables.items()
    }
    return [
        score_part(
            tables["solution"][parts["solution"] == part],
            tables["submission"][parts["submission"] == part],
            "id",
            max_grade=max_grade,
            target_types=run["types"],
            candidates=(
                tables["candidates"][parts["candidates"] == part]
                if "candidates" in tables
                else None
            ),
            **run["options"],
        )
        for part in range(n_parts)
    ]


def _shaped_largest_grade(run) -> int | None:
    """As :func:`_largest_grade`: None above the exponential gains' bound (the front
    ends' convention; the part holding such a grade finds it itself)."""
    solution = run["tables"]["solution"]
    if "grades" not in solution:
        return None
    largest = max((int(g) for cell in solution["grades"] for g in cell.split()), default=0)
    return largest if largest <= MAX_EXPONENTIAL_GRADE else None


@pytest.mark.slow
@given(shaped_runs(), PART_COUNTS, st.integers(0, 2**32), st.randoms(use_true_random=False))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_every_shape_in_parts_gives_the_whole_runs_result(run, n_parts, seed, rng) -> None:
    """The long layout, candidates, dropped unjudged items, missing rows scored as empty
    and target types, drawn together on random data (valid and invalid), split into 1 to
    16 parts by row id (with types in the row ids, by the row id before the separator:
    a session's types stay together): every value, split, per-type value, warning and
    error text is the whole run's."""
    expected = _shaped_outcome(run)
    try:
        partials = _shaped_partials(run, n_parts, seed, _shaped_largest_grade(run))
    except ScorerError as error:  # the same in every part: a missing column, ...
        assert (type(error), str(error)) == (type(expected), str(expected))
        return
    _assert_same(expected, run, partials, rng)
    backwards = {name: table.iloc[::-1] for name, table in run["tables"].items()}
    reversed_run = {**run, "tables": backwards}  # the rows in another order
    reversed_partials = _shaped_partials(reversed_run, n_parts, seed, _shaped_largest_grade(run))
    _assert_same(_shaped_outcome(reversed_run), reversed_run, reversed_partials, rng)
    if not isinstance(expected, ScorerError):
        result = finish(_merged(partials, rng))
        assert result.by_type == expected.by_type
        assert result.public_by_type == expected.public_by_type
        assert result.private_by_type == expected.private_by_type
        assert result.types == expected.types and result.weights == expected.weights
        assert result.warnings == expected.warnings


# The sharded Poisson bootstrap: score_part(..., resamples=N, seed=S), finish fills
# result.intervals with method="poisson".


def _bootstrap_run(typed: bool = False) -> dict:
    rng = np.random.default_rng(5)
    n = 300
    ids = [f"u{i // 2}_{['a', 'b'][i % 2]}" if typed else f"u{i}" for i in range(n)]
    truth = [" ".join(f"i{j}" for j in rng.choice(12, rng.integers(0, 4), replace=False))
             for _ in ids]  # fmt: skip
    ranked = [" ".join(f"i{j}" for j in rng.choice(12, 5, replace=False)) for _ in ids]
    usage = rng.choice(["Public", "Private"], n).tolist()
    if typed:  # a session's types share a split
        usage = [usage[i - i % 2] for i in range(n)]
    solution = pd.DataFrame({"id": ids, "items": truth, "Usage": usage})
    submission = pd.DataFrame({"id": ids[::-1], "items": ranked[::-1]})
    options = {"k": 5, "metrics": ["MAP@5", "nDCG@5", "P(avg=micro)@5", "RPrec"]}
    if typed:
        options["row_id_type_separator"] = "_"
    return {"solution": solution, "submission": submission, "options": options}


def _sharded(run, n_parts: int, resamples: int = 60, seed: int = 11):
    sep = run["options"].get("row_id_type_separator")
    solution, submission = run["solution"], run["submission"]
    parts = (partition(solution["id"], n_parts, 3, type_separator=sep),
             partition(submission["id"], n_parts, 3, type_separator=sep))  # fmt: skip
    return [
        score_part(
            solution[parts[0] == p],
            submission[parts[1] == p],
            "id",
            resamples=resamples,
            seed=seed,
            **run["options"],
        )
        for p in range(n_parts)
    ]


@pytest.mark.parametrize("typed", [False, True])
def test_poisson_intervals_are_the_same_for_any_number_of_parts(typed) -> None:
    run = _bootstrap_run(typed)
    expected = scorer.evaluate(run["solution"], run["submission"], "id", **run["options"])
    found = []
    for n_parts in (1, 2, 7):
        partials = _sharded(run, n_parts)
        merged = merge(*(Partial.from_json(p.to_json()) for p in partials[::-1]))
        result = finish(merged)
        assert result == expected  # the point values are untouched
        found.append(result.intervals)
    assert found[0] == found[1] == found[2]
    intervals = found[0]
    assert set(intervals) == set(expected.measures)
    for name, by_split in intervals.items():
        assert set(by_split) == {"score", "public", "private"}
        for split, interval in by_split.items():
            assert interval.method == "poisson"
            assert interval.low <= interval.value <= interval.high, (name, split, interval)
            assert interval.low < interval.high
    other_seed = finish(merge(*_sharded(run, 2, seed=12))).intervals
    assert other_seed != intervals


def test_poisson_intervals_equal_a_slow_reference_of_the_same_weights() -> None:
    """Replicate by replicate, Σ w·x / Σ w over the scored users as Fractions (the
    users' float64 values; a micro measure's Σ w·num / Σ w·den), from the weights of
    :func:`scorer.stats.poisson.poisson_weights` row by row; then the inverted-CDF
    95% quantiles."""
    from scorer.partial import _id_prints
    from scorer.stats.poisson import poisson_weights

    run = _bootstrap_run()
    resamples, seed = 40, 9
    result = finish(merge(*_sharded(run, 3, resamples, seed)))
    whole = scorer.evaluate(run["solution"], run["submission"], "id", **run["options"])
    prints = _id_prints(whole.row_ids, 0, None)
    scored = whole.user_scored
    for name in whole.measures:
        value = whole.exact_values[name]
        micro = hasattr(value, "numerator") and "micro" in name
        for split, members in {"score": scored, "public": scored & _split(whole, "Public"),
                               "private": scored & _split(whole, "Private")}.items():  # fmt: skip
            drawn = []
            for r in range(resamples):
                top = bottom = Fraction(0)
                for u in np.flatnonzero(members):
                    w = int(poisson_weights(prints[u : u + 1], seed, r, r + 1)[0, 0])
                    if micro:
                        top += w * int(value.numerator[u])
                        bottom += w * int(value.denominator[u])
                    else:
                        top += w * Fraction(float(whole.user_values[name][u]))
                        bottom += w
                drawn.append(float(top / bottom) if bottom else 0.0)
            drawn.sort()
            low, high = drawn[max(1, int(np.ceil(resamples * 0.025 - 1e-9))) - 1], drawn[
                max(1, int(np.ceil(resamples * 0.975 - 1e-9))) - 1]  # fmt: skip
            interval = result.intervals[name][split]
            assert (interval.low, interval.high) == (low, high), (name, split)


def _split(result, split: str) -> np.ndarray:
    from scorer.check.findings import USAGE_VALUES

    return np.asarray(result.user_usage) == USAGE_VALUES.index(split)


def test_no_resamples_no_intervals_and_bad_settings_are_refused() -> None:
    run = _bootstrap_run()
    assert finish(merge(*_sharded(run, 2, resamples=0))).intervals is None
    # 0 is allowed (no intervals), so the message says from 0.
    with pytest.raises(
        HostVisibleError, match="number of resamples must be an int from 0 to 10,000,000, not -1"
    ):
        _sharded(run, 1, resamples=-1)
    with pytest.raises(HostVisibleError, match="seed must be an int >= 0"):
        _sharded(run, 1, seed=-2)
    with pytest.raises(HostVisibleError, match="different options"):
        merge(*_sharded(run, 1, seed=1), *_sharded(run, 1, seed=2))


# Problems of the long layout's pivot and of trec_eval's files, in parts: counted over the
# whole run, their examples the smallest row ids; a trec_eval file's lines are named by
# their numbers in the file read (a part's own file), so only those examples differ.


def _long_problems_run() -> dict:
    """A long solution and submission with every problem their pivots find, spread over
    many row ids (so that any split puts some in each part)."""
    ids = [f"u{i:02d}" for i in range(40)]
    solution_rows, submission_rows = [], []
    for n, i in enumerate(ids):
        usage = "Public" if n % 2 else "Private"
        solution_rows.append((i, "i1", "1", usage))
        solution_rows.append((i, "i2 i3" if n % 9 == 0 else "i2", "" if n % 7 == 0 else "2",
                              "Private" if n % 5 == 0 else usage))  # fmt: skip
        ranks = ["1", "2", "3"]
        if n % 3 == 0:
            ranks[1] = "0" if n % 2 else "x"
        if n % 4 == 0:
            ranks[2] = ranks[0]
        cells = ["i1", "i4 i5" if n % 11 == 0 else "i2", "i3"]
        submission_rows += [(i, c, r) for c, r in zip(cells, ranks, strict=True)]
    solution = pd.DataFrame(solution_rows, columns=["id", "items", "grades", "Usage"])
    submission = pd.DataFrame(submission_rows, columns=["id", "items", "rank"])
    options = {"solution_layout": "long", "layout": "long", "rank_column_name": "rank",
               "grade_column_name": "grades", "k": 3}  # fmt: skip
    return {"solution": solution, "submission": submission, "options": options}


@pytest.mark.parametrize("invalid", ["solution", "submission"])
def test_long_pivot_problems_in_parts_are_the_whole_runs(invalid) -> None:
    run = _long_problems_run()
    if invalid == "submission":  # the solution made valid: the submission's turn
        valid = run["solution"].assign(items="i1", grades="1", Usage="Public")
        run = {**run, "solution": valid}
    expected = _outcome(run)
    kind = HostVisibleError if invalid == "solution" else ParticipantVisibleError
    assert isinstance(expected, kind)
    titles = {
        "solution": ["Several items in one cell", "Not one grade per item",
                     "Several values of 'Usage' for one row id"],
        "submission": ["Several items in one cell", "Invalid ranks", "Duplicated ranks"],
    }[invalid]  # fmt: skip
    for title in titles:
        assert title in str(expected)
    for n_parts, seed in [(1, 0), (2, 1), (3, 2), (5, 3), (16, 4)]:
        partials = _partials(run, n_parts, seed, None)
        with pytest.raises(kind) as caught:
            finish(merge(*partials))
        assert str(caught.value) == str(expected)


def test_invalid_scores_in_parts_are_the_whole_runs() -> None:
    run = _long_problems_run()
    run["solution"] = run["solution"].assign(items="i1", grades="1", Usage="Public")
    submission = run["submission"].rename(columns={"rank": "score"})
    submission["score"] = ["nan" if n % 5 == 0 else str(n) for n in range(len(submission))]
    options = {**run["options"], "score_column_name": "score"}
    del options["rank_column_name"]
    run = {**run, "submission": submission, "options": options}
    expected = _outcome(run)
    assert "Invalid scores" in str(expected)
    for n_parts, seed in [(2, 1), (3, 2), (7, 3)]:
        with pytest.raises(ParticipantVisibleError) as caught:
            finish(merge(*_partials(run, n_parts, seed, None)))
        assert str(caught.value) == str(expected)


@pytest.mark.parametrize("invalid", ["qrels", "run"])
def test_malformed_trec_lines_in_parts_are_the_whole_runs(tmp_path, invalid) -> None:
    qrels = [f"q{q:02d} 0 d{d} {d % 3}" for q in range(30) for d in range(4)]
    run = [f"q{q:02d} Q0 d{d} {d} {10 - d} tag" for q in range(30) for d in range(6)]
    lines = qrels if invalid == "qrels" else run
    for q in range(0, 30, 4):  # a field short on some lines, and a docno given twice
        lines[q * 4 + 1] = lines[q * 4 + 1].rsplit(" ", 1)[0]
        if invalid == "run":
            lines.append(f"q{q:02d} Q0 d0 9 0.5 tag")
    whole = [tmp_path / "qrels", tmp_path / "run"]
    for path, text in zip(whole, (qrels, run), strict=True):
        path.write_text("\n".join(text) + "\n")
    options = {"format": "trec", "k": 5, "metrics": ["MAP"]}
    kind = HostVisibleError if invalid == "qrels" else ParticipantVisibleError
    with pytest.raises(kind, match="Malformed lines") as expected:
        scorer.evaluate(*whole, **options)

    def unnumbered(message: str) -> str:  # a part's line numbers are its own file's
        return re.sub(r"examples \(lines\): .*", "examples (lines): ...", message)

    assert "examples (lines): 2: " in str(expected.value)
    for n_parts, seed in [(1, 0), (2, 1), (3, 2), (6, 3)]:
        parts = _trec_parts(tmp_path, qrels, run, n_parts, seed)
        partials = [score_part(*paths, **options) for paths in parts]
        with pytest.raises(kind) as caught:
            finish(merge(*partials))
        assert unnumbered(str(caught.value)) == unnumbered(str(expected.value))


# Partials from workers that cannot be trusted: from_json, merge and finish check what
# they read (docs/beyond-one-machine.md, "Partials from other machines").


def _forged(text: str, path: tuple, value: object, fingerprint: bool = False) -> str:
    """The partial's text with one value replaced (and its fingerprint made again)."""
    data = json.loads(text)
    place = data
    for key in path[:-1]:
        place = place[key]
    place[path[-1]] = value
    if fingerprint:
        data["fingerprint"] = Partial(data["settings"]).fingerprint
    return json.dumps(data)


def _forty_rows() -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(7)
    ids = [f"u{i}" for i in range(40)]
    truth = [" ".join(f"i{j}" for j in rng.choice(12, rng.integers(1, 4), replace=False))
             for _ in ids]  # fmt: skip
    ranked = [" ".join(f"i{j}" for j in rng.choice(12, 5, replace=False)) for _ in ids]
    usage = rng.choice(["Public", "Private"], 40)
    return (
        pd.DataFrame({"id": ids, "items": truth, "Usage": usage}),
        pd.DataFrame({"id": ids, "items": ranked}),
    )


@pytest.mark.parametrize(
    ("path", "value", "match"),
    [
        # sums no rows can give: MAP 2.0, 2.5, 3.1e29 and -312.5 before
        (("sums", "MAP@5", "by_label", 0), {"1": "40"}, "sums of 'MAP@5' that no"),
        (("sums", "MAP@5", "by_label", 0), {"2": "100"}, "sums of 'MAP@5' that no"),
        (("sums", "MAP@5", "by_label", 0), {"1": str(31 * 10**29)}, "sums of 'MAP@5' that no"),
        (("sums", "MAP@5", "by_label", 0), {"2": "-625"}, "sums of 'MAP@5' that no|whole"),
        (("sums", "nDCG@5", "by_label", 1), {"-1": "9007199254740993"}, "that no"),
        (("sums", "P(avg=micro)@5", "micro", 0), ["9", "3"], "sums of 'P\\(avg=micro\\)@5'"),
        (("counts", "n_users"), 50, "50 users, but 40 scored"),
        (("counts", "label_0"), -1, "from 0 to"),
        (("counts", "width"), 2**50, "widest ranking of 1125899906842624"),  # 7 PiB before
        (("hits_at_rank",), ["999"], "hits at a rank that are more than the scored"),
        (("sums", "MAP@5", "by_label", 0), {"0": "1"}, "that no"),  # ZeroDivisionError before
        (("sums", "nDCG@5", "by_label", 0), {"-99999999": "1"}, "that no"),  # 2**-99999999
        (("sums", "MAP@5", "by_label"), [{}], "a list of 2"),
        (("warnings", 0, "kind"), "no_such_warning", "a record of kind 'no_such_warning'"),
        (("warnings", 0, "counts"), [["rows", "x"]], "a whole number written as text"),
        (
            ("problems",),
            [{"kind": "stated", "counts": [], "examples": [], "values": ["a"]}],
            "cannot be read|stage",
        ),
        (("stage",), 7, "stage is 7"),
        (("sums",), {}, "sums of other measures"),  # KeyError before
        (("replicates",), {"": []}, "replicates of a run without resamples"),
    ],
)
def test_a_partial_no_part_can_give_is_refused_naming_the_problem(path, value, match) -> None:
    """Each of these finished at a value no run gives (2.0, 2.5, 3.1e29, -312.5) or raised
    ZeroDivisionError, KeyError or a 7 PiB MemoryError: a HostVisibleError now, from
    from_json and, for a partial made in Python, from merge and finish."""
    solution, submission = _forty_rows()
    metrics = ["MAP@5", "nDCG@5", "P(avg=micro)@5"]
    text = score_part(solution, submission, "id", k=5, metrics=metrics).to_json()
    forged = _forged(text, path, value, fingerprint=True)
    with pytest.raises(HostVisibleError, match=match):
        Partial.from_json(forged)


def test_malformed_partial_text_is_a_host_error_naming_where() -> None:
    """RecursionError, OverflowError, KeyError, ValueError and TypeError before."""
    solution, submission = _forty_rows()
    text = score_part(solution, submission, "id", k=5).to_json()
    cases = [
        ("[" * 100_000 + "]" * 100_000, "recursion"),
        (text.replace('"version":1', '"version":1,"hits_at_rank":["9' + "9" * 5000 + '"]'),
         "not a partial's JSON form"),
        (json.dumps({k: v for k, v in json.loads(text).items() if k != "counts"}),
         "the partial lacks the fields 'counts'"),
        (_forged(text, ("hits_at_rank",), "12"), r"the partial.hits_at_rank is '12', where a list"),
        (_forged(text, ("counts", "width"), 1.5), r"counts\['width'\] is 1.5, where a whole"),
        (_forged(text, ("settings", "seed"), "zero"), "settings.seed is 'zero'"),
        (_forged(text, ("settings", "options", "k"), -3, fingerprint=True), "settings are refused"),
        (_forged(text, ("settings", "options", "kk"), 3, fingerprint=True), "cannot be read"),
        (b"\xff\xfe", "not a partial's JSON form"),
    ]  # fmt: skip
    for forged, match in cases:
        with pytest.raises(HostVisibleError, match=match):
            Partial.from_json(forged)


def test_the_same_part_merged_twice_is_refused() -> None:
    """A part merged twice gave 50 users for a 40-row solution (and its sums twice)."""
    solution, submission = _forty_rows()
    parts = partition(solution["id"], 4), partition(submission["id"], 4)
    partials = [
        score_part(solution[parts[0] == p], submission[parts[1] == p], "id", k=5) for p in range(4)
    ]
    expected = scorer.evaluate(solution, submission, "id", k=5)
    assert finish(merge(*partials)) == expected
    for twice in ([*partials, partials[2]], [merge(*partials[:3]), partials[1]]):
        with pytest.raises(HostVisibleError, match=r"share 1 part\(s\) .*merged twice"):
            merge(*twice)
    empty = score_part(solution.iloc[:0], submission.iloc[:0], "id", k=5)
    assert finish(merge(empty, *partials, empty)) == expected  # no rows: nothing twice
    for partial in partials:  # and a partial says which part it is through JSON
        assert Partial.from_json(partial.to_json()).parts == partial.parts
    forged = replace(partials[0], counts={**partials[0].counts, "n_users": 50})
    with pytest.raises(HostVisibleError, match="users, but"):
        finish(forged)


@settings(max_examples=150, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(partial_texts())
def test_any_text_ends_in_a_partial_or_a_host_error(text: str) -> None:
    """Real partials with values changed (a forger's fingerprint among them), or any
    text: from_json gives a partial or a HostVisibleError, finish a result in range or a
    ScorerError, and a partial merged with itself is refused (fuzz/partials.py)."""
    check_partial_text(text)


@pytest.mark.parametrize("submission_rows", [0, 2])
def test_a_solution_without_rows_is_the_hosts_error_in_parts_too(submission_rows: int) -> None:
    """A part may have no solution row; the parts together may not, as a whole run."""
    solution = pd.DataFrame({"id": [], "items": []}, dtype=str)
    submission = pd.DataFrame(
        {"id": ["u1", "u2"][:submission_rows], "items": ["a", "b"][:submission_rows]}
    )
    with pytest.raises(HostVisibleError, match="No rows") as whole:
        scorer.evaluate(solution, submission)
    parts = [
        score_part(solution, submission, "id"),
        score_part(solution, submission.iloc[:0], "id"),
    ]
    with pytest.raises(HostVisibleError) as merged:
        finish(merge(*parts))
    assert str(merged.value) == str(whole.value)
