"""The measures' worked examples (docs/measures.md#measures) on the files of
fixtures/measures/, the parser, graded-relevance validation and the interfaces' keys."""

from __future__ import annotations

import json
import math
import re
from fractions import Fraction
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorer import HostVisibleError, ParticipantVisibleError, evaluate, score
from scorer.adapters.codabench import scores
from scorer.adapters.evalai import to_evalai
from scorer.measures import REGISTRY, parse, parse_all
from scorer.measures.registry import Example, canonical_names
from tests import paths
from tests.commands import run_scorer
from tests.declared import MEASURES, written_values
from tests.paths import DOCS

FIXTURES = paths.FIXTURES / "measures"
#: Each fixture folder's ranking, written as the registry's examples write theirs; the
#: values come from the registry, the one place they are written.
CASES = json.loads((FIXTURES / "cases.json").read_text())


def case_example(name: str) -> Example:
    """The fixture's ranking as an (unvalued) registry example."""
    case = CASES[name]
    return Example(
        "",
        case["ranked"],
        case["relevant"],
        Fraction(0),
        missed_grade=case.get("missed_grade", 1),
        judged_zeros="grade_column" in case,
    )


def ranking_key(example: Example) -> tuple:
    return (
        [user.split() for user in example.ranked.split("|")],
        example.relevant_counts(),
        example.missed_grade,
        example.graded(),
    )


def examples_of(name: str) -> list[Example]:
    """The registry's worked examples on the ranking of fixture ``name``."""
    key = ranking_key(case_example(name))
    found = [e for f in REGISTRY for e in f.examples if ranking_key(e) == key]
    assert found, f"no worked example in the registry is on fixture {name}'s ranking"
    return found


def run_case(name: str, metrics: list[str]):
    """The fixture scored with its ``k``, raised to the largest cut-off asked for."""
    case = CASES[name]
    folder = FIXTURES / name
    cutoffs = [parse(metric, k=10**6).cutoff or 0 for metric in metrics]
    return evaluate(
        folder / "solution.csv",
        folder / "submission.csv",
        k=max(case["k"], *cutoffs),
        metrics=metrics,
        grade_column_name=case.get("grade_column"),
    )


@pytest.mark.parametrize("name", list(CASES))
def test_each_fixture_holds_the_ranking_it_declares(name: str) -> None:
    """Read back from the files: each user's grades in rank order, |R|, the missed grades."""
    case, folder = CASES[name], FIXTURES / name
    solution = pd.read_csv(folder / "solution.csv", dtype=str).set_index("user_id")
    submission = pd.read_csv(folder / "submission.csv", dtype=str).set_index("user_id")
    ranked, relevant, missed = [], [], set()
    for user, row in solution.iterrows():
        items = row["items"].split()
        grades = row[case["grade_column"]].split() if "grade_column" in case else ["1"] * len(items)
        judged = dict(zip(items, map(int, grades), strict=True))
        predicted = submission.loc[user, "items"].split()
        ranked.append(" ".join(str(judged.get(item, 0)) for item in predicted))
        relevant.append(sum(grade > 0 for grade in judged.values()))
        missed |= {g for item, g in judged.items() if item not in predicted and g > 0}
    declared = case_example(name)
    assert " | ".join(ranked) == declared.ranked
    assert relevant == declared.relevant_counts()
    assert missed <= {declared.missed_grade}


@pytest.mark.parametrize(
    ("case", "example"),
    [(c, e) for c in CASES for e in examples_of(c)],
    ids=lambda x: getattr(x, "measure", x),
)
def test_the_registrys_worked_examples_hold_on_the_fixtures_files(
    case: str, example: Example
) -> None:
    result = run_case(case, [example.measure])
    assert list(result.metrics) == [example.measure]
    if isinstance(example.value, Fraction):
        assert result.score == float(example.value)  # the correctly rounded exact mean
    else:
        assert abs(result.score - example.value) <= example.tolerance


def test_the_ideal_is_never_built_from_the_hits() -> None:
    result = run_case("binary_10110100", ["nDCG@3"])
    assert abs(result.score - 0.919720789148) > 0.2  # the widely copied bug's value


def test_one_pass_gives_every_measure_the_same_values_as_alone() -> None:
    names = list(dict.fromkeys(e.measure for e in examples_of("binary_10110100")))
    together = run_case("binary_10110100", names)
    for name in names:
        assert together.metrics[name] == run_case("binary_10110100", [name]).score


# The parser.


#: Every family with every parameter value, at cut-offs of one to three digits, and the
#: names of the registry's worked examples.
ROUND_TRIP = [variant.at(cutoff) for variant in MEASURES for cutoff in (1, 12, 100)]
ROUND_TRIP += [example.measure for family in REGISTRY for example in family.examples]


@pytest.mark.parametrize("name", list(dict.fromkeys(ROUND_TRIP)))
def test_canonical_names_round_trip(name: str) -> None:
    assert str(parse(name, k=100)) == name
    assert str(parse(name.lower(), k=100)) == name
    assert str(parse(name.upper(), k=100)) == name


def test_every_family_is_in_the_round_trip_list() -> None:
    tested = {parse(name, k=100).family.name for name in ROUND_TRIP}
    assert {family.name for family in REGISTRY} == tested


@pytest.mark.parametrize(
    ("written", "canonical"),
    [
        ("ndcg@10", "nDCG@10"),
        ("NDCG(GAIN=LINEAR)@10", "nDCG(gain=linear)@10"),
        ("nDCG(gain=exp)@10", "nDCG@10"),
        ("map", "MAP@10"),
        ("MAP(norm=min_k)@5", "MAP@5"),
        ("recall@5", "R@5"),
        ("precision @ 3", "P@3"),
        ("recip_rank", "MRR@10"),
        ("hit_rate@2", "HitRate@2"),
        ("success@2", "HitRate@2"),
        ("r-precision", "RPrec"),
        (" nerr ( max_grade = 3 ) @ 4 ", "nERR(max_grade=3)@4"),
        ("ndcg@k", "nDCG@10"),
    ],
)
def test_aliases_and_case_map_to_the_canonical_name(written: str, canonical: str) -> None:
    assert str(parse(written, k=10)) == canonical


def test_normalization_is_maps_default_norm() -> None:
    assert str(parse("MAP@5", k=5, normalization="hits")) == "MAP(norm=hits)@5"
    assert str(parse("MAP(norm=min_k)@5", k=5, normalization="hits")) == "MAP@5"


@pytest.mark.parametrize(
    ("written", "message"),
    [
        ("mapp@10", re.escape(f"must name a measure among {canonical_names()} (e.g. ")),
        ("", r"must name a measure among .* Got '' instead"),
        ("MAP@@3", r"written Name\(param=value,...\)@cutoff"),
        (
            "nDCG(norm=min_k)@5",
            r"parameters of nDCG must be among \['gain', 'discount', 'ideal'\].*Got 'norm=min_k'",
        ),
        ("HitRate(norm=min_k)@5", r"parameters of HitRate must be among \['avg'\]"),
        ("MAP(norm=kaggle)", r"'norm' parameter of MAP must be a str among \['min_k', 'relevant'"),
        ("ERR(max_grade=-1)", r"'max_grade' parameter of ERR must be an int in the range \[0, 30"),
        ("MAP@11", r"cut-off of 'MAP@11' must be an int in the range \[1, 10\].*Got 11 instead"),
        ("MAP@0", r"cut-off of 'MAP@0' must be an int in the range \[1, 10\]"),
        ("MAP@x", r"cut-off of 'MAP@x' must be an int in the range \[1, 10\] or 'all'. Got 'x'"),
        ("RPrec@5", r"RPrec takes no cut-off: it reads each user's first \|R\| predictions"),
        ("AUC@5", r"AUC takes no cut-off: it reads each user's whole ranking\. Write 'AUC'"),
    ],
)
def test_parser_errors_list_the_valid_choices(written: str, message: str) -> None:
    with pytest.raises(HostVisibleError, match=message):
        parse(written, k=10)


def test_no_measure_and_duplicates() -> None:
    with pytest.raises(HostVisibleError, match=r"at least one measure .* Got \[\] instead"):
        parse_all([], k=10)
    assert [str(m) for m in parse_all(["ndcg", "nDCG(gain=exp)@10"])] == ["nDCG@10"]


def test_errors_surface_through_evaluate_before_any_file_is_read(tmp_path: Path) -> None:
    missing = tmp_path / "nothing.csv"
    with pytest.raises(HostVisibleError, match="cut-off of 'nDCG@20'"):
        evaluate(missing, missing, k=12, metrics=["nDCG@20"])


# Graded relevance.

SOLUTION = pd.DataFrame({"id": ["u1", "u2"], "items": ["a b c", "d e"], "grades": ["3 1 0", "2 0"]})
SUBMISSION = pd.DataFrame({"id": ["u1", "u2"], "items": ["c b a", "e d"]})


@pytest.mark.parametrize(
    ("grades", "message"),
    [
        (["3 1", "2 0"], r"(?s)Grades do not match the items.*1 row with another number.*'u1'"),
        (["3 1 -1", "2 0"], r"(?s)Invalid grades.*1 row with a negative"),
        (["3 1 0.5", "2 x"], r"(?s)Invalid grades.*2 rows with .*'u1', 'u2'"),
        (["3 1 2147483649", "2 0"], r"an integer from 0 to 2,147,483,648"),
    ],
)
def test_bad_grades_are_host_errors(grades: list[str], message: str) -> None:
    solution = SOLUTION.assign(grades=grades)
    with pytest.raises(HostVisibleError, match=message):
        evaluate(solution, SUBMISSION, k=3, grade_column_name="grades")


def test_grade_column_needs_a_target_column_and_must_exist() -> None:
    with pytest.raises(HostVisibleError, match="Grade column without a target column"):
        evaluate(SOLUTION[["id", "grades"]], SUBMISSION, k=3, grade_column_name="grades")
    with pytest.raises(HostVisibleError, match=r"(?s)Grade column not found.*'grade'"):
        evaluate(SOLUTION, SUBMISSION, k=3, grade_column_name="grade")
    with pytest.raises(HostVisibleError, match="Ambiguous target column"):
        evaluate(SOLUTION, SUBMISSION, k=3)  # a grade column not named is a third column


@pytest.mark.parametrize("threshold", [0, -1, 1.5, True, "2"])
def test_relevance_threshold_must_be_a_positive_int(threshold: object) -> None:
    with pytest.raises(HostVisibleError, match=r"'relevance_threshold' parameter must be an int"):
        evaluate(
            SOLUTION, SUBMISSION, k=3, grade_column_name="grades", relevance_threshold=threshold
        )


def test_max_grade_below_the_solutions_grades_is_a_host_error() -> None:
    with pytest.raises(
        HostVisibleError, match=r"'max_grade' parameter of ERR must be at least .* 3"
    ):
        evaluate(
            SOLUTION, SUBMISSION, k=3, grade_column_name="grades", metrics=["ERR(max_grade=2)"]
        )


def test_grade_zero_items_are_judged_but_not_relevant() -> None:
    result = evaluate(
        SOLUTION, SUBMISSION, k=3, grade_column_name="grades", metrics=["P@1", "R@3", "nDCG@1"]
    )
    assert result.metrics["P@1"] == 0.0  # u1's c and u2's e have grade 0
    assert result.metrics["R@3"] == 1.0
    assert result.metrics["nDCG@1"] == 0.0


def test_grades_never_reach_participant_text() -> None:
    """Two solutions that differ only in their grades give the same participant-visible
    text for an invalid submission and the same warnings for a valid one."""
    invalid = pd.DataFrame({"id": ["u1", "u1"], "items": ["a", "b"]})
    messages, warnings = [], []
    for grades in (["3 1 0", "2 0"], ["0 0 9", "1 1"]):
        solution = SOLUTION.assign(grades=grades)
        with pytest.raises(ParticipantVisibleError) as error:
            evaluate(solution, invalid, k=3, grade_column_name="grades")
        messages.append(str(error.value))
        result = evaluate(
            solution,
            SUBMISSION.assign(items=["c c", ""]),
            k=3,
            grade_column_name="grades",
            metrics=["nDCG", "ERR"],
        )
        warnings.append([str(w) for w in result.warnings if w.audience == "participant"])
    assert messages[0] == messages[1]
    assert warnings[0] == warnings[1]
    assert "9" not in messages[1]


# Interfaces.

USAGE_SOLUTION = pd.DataFrame(
    {
        "id": ["u1", "u2", "u3"],
        "items": ["a b", "c", "d"],
        "Usage": ["Public", "Private", "Ignored"],
    }
)
USAGE_SUBMISSION = pd.DataFrame({"id": ["u1", "u2", "u3"], "items": ["b a", "x c", "d"]})


def test_result_carries_every_measure_and_its_per_user_arrays() -> None:
    names = ["MAP@2", "nDCG(gain=linear)@2", "MRR@1"]
    result = evaluate(USAGE_SOLUTION, USAGE_SUBMISSION, k=2, metrics=names, per_user=True)
    assert result.measures == tuple(names)
    assert result.metrics == {
        "MAP@2": 0.75,
        "nDCG(gain=linear)@2": result.metrics[names[1]],
        "MRR@1": 0.5,
    }
    assert result.public_metrics == {"MAP@2": 1.0, "nDCG(gain=linear)@2": 1.0, "MRR@1": 1.0}
    assert result.private_metrics["MRR@1"] == 0.0
    assert result.user_scored.tolist() == [True, True, False]
    assert result.user_usage.tolist() == [0, 1, 2]
    assert result.user_values["MRR@1"][:2].tolist() == [1.0, 0.0]
    assert list(result.per_user.columns) == [*names, "hits", "n_relevant", "scored"]
    assert result.per_user_ap.tolist()[:2] == [1.0, 0.5]
    assert result.exact_values["MAP@2"].exact_mean(result.user_scored) == Fraction(3, 4)


def test_default_call_keeps_todays_keys_and_columns() -> None:
    result = evaluate(
        USAGE_SOLUTION, USAGE_SUBMISSION, k=2, normalization="relevant", per_user=True
    )
    assert result.measures == ("MAP(norm=relevant)@2",)
    assert result.metric == "map_at_2"
    assert list(result.per_user.columns) == ["ap", "hits", "n_relevant", "scored"]
    assert scores(result) == {"map_at_2": 0.75, "map_at_2_public": 1.0, "map_at_2_private": 0.5}


def test_score_takes_one_metric() -> None:
    assert score(USAGE_SOLUTION, USAGE_SUBMISSION, k=2, metric="MRR@1") == 0.5
    assert score(USAGE_SOLUTION, USAGE_SUBMISSION, k=2) == 0.75


def test_codabench_and_evalai_have_every_measure_in_each_split() -> None:
    result = evaluate(USAGE_SOLUTION, USAGE_SUBMISSION, k=2, metrics=["nDCG(gain=linear)@2", "P@1"])
    written = scores(result)
    assert list(written) == [
        "ndcg_gain_linear_at_2",
        "ndcg_gain_linear_at_2_public",
        "ndcg_gain_linear_at_2_private",
        "p_at_1",
        "p_at_1_public",
        "p_at_1_private",
    ]
    assert scores(result, public_only=True) == {
        "ndcg_gain_linear_at_2_public": 1.0,
        "p_at_1_public": 1.0,
    }
    output = to_evalai(result)
    assert output["result"] == [
        {"public_split": {"ndcg_gain_linear_at_2": 1.0, "p_at_1": 1.0}},
        {
            "private_split": {
                "ndcg_gain_linear_at_2": written["ndcg_gain_linear_at_2_private"],
                "p_at_1": 0.0,
            }
        },
    ]


def test_cli_metric_option_json_and_human_output(tmp_path: Path) -> None:
    solution, submission = tmp_path / "solution.csv", tmp_path / "submission.csv"
    USAGE_SOLUTION.to_csv(solution, index=False)
    USAGE_SUBMISSION.to_csv(submission, index=False)
    command = [solution, submission, "-k", "2"]
    done = run_scorer(*command, "-m", "mrr@1", "--metric", "MAP", "--json")
    assert done.returncode == 0, done.stderr
    output = json.loads(done.stdout)
    assert output["metric"] == "mrr_at_1"
    assert output["score"] == 0.5
    assert output["metrics"] == {"MRR@1": 0.5, "MAP@2": 0.75}
    assert output["public_metrics"] == {"MRR@1": 1.0, "MAP@2": 1.0}
    assert output["private_metrics"] == {"MRR@1": 0.0, "MAP@2": 0.5}
    done = run_scorer(*command, "-m", "MRR@1", "-m", "MAP")
    assert done.stdout.startswith(
        "MRR@1: 0.5\n  Public:  1.0\n  Private: 0.0\nMAP@2: 0.75\n  Public:  1.0\n  Private: 0.5\n"
    )
    done = run_scorer(*command, "-m", "nope")
    assert done.returncode == 2
    assert f"must name a measure among {canonical_names()}" in done.stderr
    help_text = run_scorer("--help").stdout
    for family in REGISTRY:
        assert family.name in help_text


def test_the_docs_table_is_the_registrys() -> None:
    from scorer.measures.registry import markdown_table

    page = (DOCS / "measures.md").read_text()
    assert markdown_table() in page


def test_codabench_command_writes_every_measure(tmp_path: Path) -> None:
    example = FIXTURES.parent / "example"
    ref, res, out = tmp_path / "in" / "ref", tmp_path / "in" / "res", tmp_path / "out"
    for folder in (ref, res):
        folder.mkdir(parents=True)
    (ref / "solution.csv").write_bytes((example / "solution.csv").read_bytes())
    (res / "submission.csv").write_bytes((example / "submission.csv").read_bytes())
    done = run_scorer(
        "codabench", tmp_path / "in", out, "-m", "MAP", "-m", "nDCG(gain=linear)@5", "--public-only"
    )
    assert done.returncode == 0, done.stderr
    written = json.loads((out / "scores.json").read_text())
    expected = evaluate(
        example / "solution.csv", example / "submission.csv", metrics=["MAP", "nDCG(gain=linear)@5"]
    )
    assert written == {
        "map_at_10_public": expected.public_metrics["MAP@10"],
        "ndcg_gain_linear_at_5_public": expected.public_metrics["nDCG(gain=linear)@5"],
    }
    assert "private" not in done.stdout


def test_evalai_evaluate_takes_metrics(tmp_path: Path) -> None:
    from scorer.adapters.evalai import evaluate as evalai_evaluate

    example = FIXTURES.parent / "example"
    output = evalai_evaluate(
        example / "solution.csv", example / "submission.csv", "test", metrics=["RPrec", "MAP@3"]
    )
    expected = evaluate(
        example / "solution.csv", example / "submission.csv", metrics=["RPrec", "MAP@3"]
    )
    assert output["result"] == [
        {
            "public_split": {
                "rprec": expected.public_metrics["RPrec"],
                "map_at_3": expected.public_metrics["MAP@3"],
            }
        },
        {
            "private_split": {
                "rprec": expected.private_metrics["RPrec"],
                "map_at_3": expected.private_metrics["MAP@3"],
            }
        },
    ]
    assert output["submission_result"] == output["result"][0]["public_split"]


names = st.sampled_from(REGISTRY).flatmap(
    lambda family: st.tuples(
        st.just(family),
        st.tuples(
            *(
                written_values(p.constraint)
                if p.required
                else st.none() | written_values(p.constraint)
                for p in family.params
            )
        ),
        st.integers(1, 50),
    )
)


def _square_root(text: str) -> Fraction | None:
    value = Fraction(text)
    top, bottom = math.isqrt(value.numerator), math.isqrt(value.denominator)
    return Fraction(top, bottom) if Fraction(top, bottom) ** 2 == value else None


@given(names)
def test_any_parsed_name_prints_back_to_itself(drawn) -> None:
    family, values, cutoff = drawn
    values = list(values)
    for extra in family.one_of[1:]:  # SetF takes beta or beta2
        if values[0] is not None:
            values[[p.name for p in family.params].index(extra)] = None
    given_params = [
        f"{p.name}={v}" for p, v in zip(family.params, values, strict=True) if v is not None
    ]
    text = family.name.upper() + (f"({','.join(given_params)})" if given_params else "")
    text += f"@{cutoff}" if family.has_cutoff else ""
    measure = parse(text, k=50)
    assert str(parse(str(measure), k=50)) == str(measure)
    expected = {
        p.name: p.default if v is None else p.constraint.parse(v)
        for p, v in zip(family.params, values, strict=True)
    }
    if expected.get("beta2") is not None and _square_root(str(expected["beta2"])) is not None:
        expected["beta"], expected["beta2"] = _square_root(str(expected["beta2"])), None
    assert dict(measure.params) == expected


PARAMS = [(family, param) for family in REGISTRY for param in family.params]


@pytest.mark.parametrize(("family", "param"), PARAMS, ids=[f"{f.name}:{p.name}" for f, p in PARAMS])
def test_every_parameter_takes_its_samples_and_refuses_the_rest(family, param) -> None:
    """Each value its constraint samples (the bounds and just inside them) is taken and
    printed back; each it refuses (just outside, the wrong form) gets its message."""
    cutoff = "@3" if family.has_cutoff else ""
    for text in param.constraint.valid_samples(written=True):
        measure = parse(f"{family.name}({param.name}={text}){cutoff}", k=3)
        values = dict(measure.params)
        if param.name == "beta2" and values["beta2"] is None:  # a square's β² is held as β
            values["beta2"] = values["beta"] ** 2
        assert values[param.name] == param.constraint.parse(text.lower())
        assert parse(str(measure), k=3) == measure
    assert param.constraint.invalid_samples(written=True)
    for text in param.constraint.invalid_samples(written=True):
        whole = f"{family.name}({param.name}={text}){cutoff}"
        expected = param.constraint.message(param.name, text, family.name, whole)
        with pytest.raises(HostVisibleError, match=f"^{re.escape(expected)}$"):
            parse(whole, k=3)


def test_a_long_name_is_refused_quickly() -> None:
    with pytest.raises(HostVisibleError, match="must name a measure"):
        parse("MAP@" + " " * 100_000 + "x", k=10)


@pytest.mark.parametrize("name", ["ERR(max_grade=31)@10", "nERR(max_grade=9999)@10"])
def test_err_grade_scale_stops_where_grades_stop(name: str) -> None:
    solution = pd.DataFrame({"id": ["a"], "items": ["x"]})
    family, _, rest = name.partition("(max_grade=")
    expected = (
        f"The 'max_grade' parameter of {family} must be an int in the range [0, 30]. "
        f"Got {rest.partition(')')[0]!r} in {name!r} instead."
    )
    with pytest.raises(HostVisibleError, match=f"^{re.escape(expected)}$"):
        evaluate(solution, solution, metrics=[name])
    at_most = evaluate(solution, solution, metrics=[name.replace("31", "30").replace("9999", "30")])
    # A hit of grade 1 stops the user with probability (2 - 1) / 2^30; nERR divides by that.
    assert at_most.score == (1.0 if name.startswith("n") else float(Fraction(1, 2**30)))


def test_every_family_without_a_cut_off_says_what_it_reads() -> None:
    assert all(family.reads for family in REGISTRY if not family.has_cutoff)


@pytest.mark.parametrize(
    ("written", "dialect", "canonical"),
    [
        # one name, two meanings: the dialect decides
        ("AP@10", "kaggle", ["MAP@10"]),
        ("AP@10", "ir_measures", ["MAP(norm=relevant)@10"]),
        ("map@10", "trec", ["MAP(norm=relevant)@10"]),
        ("nDCG@10", "kaggle", ["nDCG@10"]),
        ("nDCG@10", "ir_measures", ["nDCG(gain=linear)@10"]),
        ("SetF(beta=2)", "kaggle", ["SetF(beta=2)"]),
        ("SetF(beta=2)", "ir_measures", ["SetF(beta2=2)"]),
        ("map", "kaggle", ["MAP@100"]),
        ("map", "trec", ["MAP(norm=relevant)@all"]),
        # trec_eval's and pytrec_eval's spellings mean trec_eval's measures everywhere
        ("ndcg_cut.5,10", "kaggle", ["nDCG(gain=linear)@5", "nDCG(gain=linear)@10"]),
        ("ndcg_cut_10", "kaggle", ["nDCG(gain=linear)@10"]),
        ("P_5", "ir_measures", ["P@5"]),
        ("set_F.4", "kaggle", ["SetF(beta=2)"]),
        ("iprec_at_recall.0.1", "kaggle", ["IPrec(recall=0.1)"]),
        ("Rprec_mult.0.2", "trec", ["RPrec(mult=0.2)"]),
        ("gm_map", "kaggle", ["MAP(norm=relevant,mean=geometric)@all"]),
        ("success", "trec", ["HitRate@1", "HitRate@5", "HitRate@10"]),
        # a tool's exact spelling claims the name first
        ("rbp", "ir_measures", ["RBP"]),
        ("RBP(rel=1,p=0.8)", "ir_measures", ["RBP(p=0.8,gain=binary)"]),
    ],
)
def test_a_borrowed_name_means_what_its_dialect_says(
    written: str, dialect: str, canonical: list[str]
) -> None:
    assert [str(m) for m in parse_all([written], k=100, dialect=dialect)] == canonical


@pytest.mark.parametrize(
    ("written", "dialect", "message"),
    [
        ("bpreff", "trec", r"Got 'bpreff' instead\. Did you mean 'Bpref', 'gm_bpref'\?$"),
        ("Success", "ir_measures", r"ir_measures' Success needs a cut-off: write Success@10"),
        ("IPrec", "ir_measures", r"ir_measures' IPrec needs a cut-off: write IPrec@0\.5"),
        ("RR(judged_only=1)", "ir_measures", r"is not supported: unjudged='drop' for the"),
        ("RBP", "ir_measures", r"trectools' graded RBP .* write RBP\(rel=1,p=0\.8\)"),
    ],
)
def test_a_refused_borrowed_name_says_what_to_write(
    written: str, dialect: str, message: str
) -> None:
    with pytest.raises(HostVisibleError, match=message):
        parse_all([written], k=100, dialect=dialect)


def test_a_spelling_of_several_measures_is_refused_where_one_is_named() -> None:
    with pytest.raises(HostVisibleError, match=r"'ndcg_cut\.5,10' names 2 measures .* name one"):
        parse("ndcg_cut.5,10", k=100)
