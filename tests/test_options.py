"""Each option is declared once (scorer.options.OPTIONS); every interface is derived from
or checked against that declaration, so that none can drift from it."""

from __future__ import annotations

import argparse
import inspect
import re
from dataclasses import fields
from pathlib import Path
from typing import get_args

import pandas as pd
import pytest

import scorer
from scorer.adapters import cli, commands, evalai
from scorer.constraints import CheckedWhereUsed, Choices
from scorer.errors import HostVisibleError
from scorer.options import OPTION, OPTIONS, Options, markdown_table
from tests.declared import other_value
from tests.paths import ROOT

DECLARED = [option.name for option in OPTIONS]


def keyword_parameters(function) -> dict[str, object]:
    """A function's keyword-only parameters and their defaults, in order."""
    return {
        name: parameter.default
        for name, parameter in inspect.signature(function).parameters.items()
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY
    }


def test_evaluate_signature_is_the_declarations() -> None:
    parameters = inspect.signature(scorer.evaluate).parameters
    assert parameters["row_id_column_name"].default is None
    # Its third positional argument (Kaggle's metric signature); the rest by keyword, then
    # ``per_user``, evaluate's own switch for the per-user table.
    given = {"row_id_column_name": None, **keyword_parameters(scorer.evaluate)}
    assert given.pop("per_user") is False
    assert list(given) == DECLARED
    assert given == {option.name: option.default for option in OPTIONS}
    for option in OPTIONS:  # as the API reference shows them
        assert parameters[option.name].annotation == option.constraint.annotation, option.name


def test_score_part_takes_evaluates_options_but_the_segments() -> None:
    from scorer.partial import score_part

    parameters = inspect.signature(score_part).parameters
    declared = [name for name in DECLARED if name != "segment_column_name"]
    assert [name for name in parameters if name in OPTION] == declared
    assert set(declared) <= documented(score_part)
    with pytest.raises(TypeError, match="segment_column_name"):
        score_part("unread.csv", "unread.csv", segment_column_name="country")


def test_an_unknown_keyword_is_a_type_error_naming_it() -> None:
    for function in (scorer.evaluate, scorer.score):
        with pytest.raises(TypeError, match="'normalisation'"):
            function("unread.csv", "unread.csv", normalisation="hits")


def test_score_signature_is_the_declarations_with_one_metric() -> None:
    given = {"row_id_column_name": None, **keyword_parameters(scorer.score)}
    declared = {option.name: option.default for option in OPTIONS}
    declared = {
        ("metric" if name == "metrics" else name): value for name, value in declared.items()
    }
    assert given == declared
    assert list(given) == list(declared)


def documented(function) -> set[str]:
    """The names of a numpydoc Parameters section."""
    return set(re.findall(r"^(\w+) : ", inspect.getdoc(function) or "", re.M))


def test_every_option_is_documented_in_the_docstrings() -> None:
    assert set(DECLARED) <= documented(scorer.evaluate)
    assert {option.name for option in OPTIONS if option.setting} <= documented(Options)
    # score "takes the same arguments as evaluate", checked above by its signature
    assert "same arguments as :func:`evaluate`" in inspect.getdoc(scorer.score)


def test_options_fields_are_the_declared_settings() -> None:
    declared = {option.name: option.default for option in OPTIONS if option.setting}
    assert {item.name: item.default for item in fields(Options)} == declared
    assert [item.name for item in fields(Options)] == list(declared)


def test_options_are_built_by_keyword_only() -> None:
    with pytest.raises(TypeError):
        Options(12)  # type: ignore[misc]
    assert Options(k=12, normalization="hits").k == 12


def test_choices_are_the_declared_values_default_first() -> None:
    for option in OPTIONS:
        if isinstance(option.constraint, Choices):
            literal = option.constraint.literal
            expected = literal if isinstance(literal, tuple) else get_args(literal)
            assert option.constraint.values == expected
            settled = option.constraint.none_ok and option.default is None  # by other options
            assert settled or option.constraint.values[0] == option.default, option.name


@pytest.mark.parametrize(
    "option",
    [o for o in OPTIONS if not isinstance(o.constraint, CheckedWhereUsed)],
    ids=lambda o: o.name,
)
def test_every_bad_value_gets_the_declared_message(option) -> None:
    assert option.constraint.invalid_samples(), option.name
    for value in option.constraint.invalid_samples():
        expected = option.constraint.message(option.name, value)
        assert expected.startswith(f"The {option.name!r} parameter must be ")
        with pytest.raises(HostVisibleError, match=f"^{re.escape(expected)}$"):
            Options(**{option.name: value})
        with pytest.raises(HostVisibleError, match=f"^{re.escape(expected)}$"):
            scorer.evaluate("unread.csv", "unread.csv", **{option.name: value})


@pytest.mark.parametrize("option", OPTIONS, ids=lambda o: o.name)
def test_every_sampled_value_is_taken(option) -> None:
    for value in option.constraint.valid_samples():
        assert option.check(value) == value, (option.name, value)


def test_todays_messages_are_unchanged() -> None:
    with pytest.raises(HostVisibleError) as caught:
        Options(k=0)
    assert str(caught.value) == (
        "The 'k' parameter must be an int in the range [1, inf). Got 0 instead."
    )
    with pytest.raises(HostVisibleError) as caught:
        Options(empty_ground_truth="drop")
    assert str(caught.value) == (
        "The 'empty_ground_truth' parameter must be a str among ['skip', 'zero']. "
        "Got 'drop' instead."
    )


def scoring_group(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    (group,) = [g for g in parser._action_groups if g.title.startswith("scoring options")]
    return group._group_actions


PARSERS = {
    "score": (cli._score_parser, ["solution", "submission"]),
    "codabench": (cli._codabench_parser, ["input", "output"]),
    "compare": (lambda: commands.compare_parser(cli.add_scoring_options), ["s", "a", "b"]),
    "report": (lambda: commands.report_parser(cli.add_scoring_options), ["s", "t", "--out", "r"]),
}


#: The options of several words that have a flag: the command line's help names the flag.
KEYWORDS = [option.name for option in OPTIONS if option.flags and "_" in option.name]


@pytest.mark.parametrize("command", PARSERS)
def test_command_line_flags_are_the_declarations(command: str) -> None:
    make_parser, positional = PARSERS[command]
    parser = make_parser()
    actions = scoring_group(parser)
    flagged = [option for option in OPTIONS if option.flags]
    assert [action.dest for action in actions] == [option.name for option in flagged]
    for action, option in zip(actions, flagged, strict=True):
        assert tuple(action.option_strings) == option.flags
        assert action.default == option.default
        # Plain text: no Markdown link, no keyword where a flag is meant.
        assert "](" not in action.help and "`" not in action.help, action.help
        assert not [name for name in KEYWORDS if re.search(rf"\b{name}\b", action.help)]
        if isinstance(option.constraint, Choices):
            assert tuple(action.choices) == option.constraint.values
        if option.metavar is not None:
            assert action.metavar == option.metavar
    # Codabench, compare and report hand these to evaluate: every declared option, the
    # read limits (no flag of their own) built from theirs.
    assert set(cli.evaluate_kwargs(parser.parse_args(positional))) == set(DECLARED)


def test_command_line_defaults_are_evaluates_defaults() -> None:
    args = cli._score_parser().parse_args(["solution.csv", "submission.csv"])
    given = cli.evaluate_kwargs(args)
    assert given.pop("limits") == scorer.ReadLimits()
    assert given == {o.name: o.default for o in OPTIONS if o.flags}


def test_evalai_accepts_exactly_the_declared_options() -> None:
    assert ("splits", "metric_name", *DECLARED) == evalai.KEYWORDS
    evalai._check_keywords({name: None for name in DECLARED})
    with pytest.raises(HostVisibleError, match=r"Unknown keyword argument 'per_user'"):
        evalai._check_keywords({"per_user": True})


def test_evalai_passes_every_option_on(monkeypatch: pytest.MonkeyPatch) -> None:
    given = {option.name: other_value(option) for option in OPTIONS}
    passed = {}

    def evaluate(solution: object, submission: object, **options: object) -> None:
        passed.update(options)
        raise LookupError("stopped here")

    monkeypatch.setattr(scorer, "evaluate", evaluate)
    with pytest.raises(LookupError, match="stopped here"):
        evalai.evaluate("solution.csv", "submission.csv", "test", **given)
    assert passed == given


def test_evalai_scores_as_evaluate_does(tmp_path: Path) -> None:
    solution = tmp_path / "solution.csv"
    solution.write_text("id,items,grades,country,kind\nu1,a b,2 1,fr,x\nu2,c,1,de,x\n")
    submission = tmp_path / "submission.csv"
    submission.write_text("id,items,kind\nu1,b a x,x\nu3,c,x\n")
    candidates = tmp_path / "candidates.csv"
    candidates.write_text("id,candidates\nu1_x,a b x\nu2_x,c z\n")  # keyed (row id, type)
    given = {
        "row_id_column_name": "id",
        "k": 3,
        "metrics": ["nDCG@2", "MAP"],
        "dialect": "kaggle",
        "empty_ground_truth": "zero",
        "extra_predictions": "truncate",
        "normalization": "hits",
        "unknown_row_ids": "ignore",
        "missing_rows": "empty",
        "target_type_column_name": "kind",
        "type_weights": {"x": 2.0},
        "grade_column_name": "grades",
        "relevance_threshold": 2,
        "candidates": str(candidates),
        "candidate_rule": "subset",
        "unjudged": "drop",
        "segment_column_name": "country",
        "limits": scorer.ReadLimits(max_columns=10),
    }
    expected = scorer.evaluate(solution, submission, **given)
    assert [w.code for w in expected.warnings][:1] == ["missing_rows"]
    assert expected.metrics == {name: 2 * expected.by_type["x"][name] for name in expected.metrics}
    shown = evalai.evaluate(solution, submission, "test", **given)["submission_result"]
    assert shown == {
        **{expected.key(name): value for name, value in expected.metrics.items()},
        **expected.typed_keys(),
    }


def test_readme_options_table_is_generated() -> None:
    readme = (ROOT / "docs" / "options.md").read_text(encoding="utf-8")
    start, end = "<!-- generated: options -->\n", "\n<!-- end generated: options -->"
    assert readme.count(start) == 1 and readme.count(end) == 1
    assert readme.split(start)[1].split(end)[0] == markdown_table()


def test_every_declared_option_is_one_name() -> None:
    assert len(OPTION) == len(OPTIONS)
    assert all(option.doc and "\n" not in option.doc for option in OPTIONS)


def test_options_in_a_result_are_the_settings() -> None:
    table = pd.DataFrame({"id": ["u1"], "items": ["a"]})
    result = scorer.evaluate(table, table)
    assert list(result.to_dict()["options"]) == [o.name for o in OPTIONS if o.setting]


@pytest.mark.parametrize("option", ["empty_token", "row_id_type_separator"])
def test_text_an_encoding_cannot_write_is_a_host_error(option: str, tmp_path: Path) -> None:
    # A command line gets a lone surrogate from bytes that are not UTF-8 (--empty-token
    # with a Latin-1 byte); Arrow cannot hold it, so it must be refused with the options.
    expected = rf"^The {option!r} parameter must be text that UTF-8 can encode"
    with pytest.raises(HostVisibleError, match=expected):
        Options(**{option: "N\udcff"})
    solution = tmp_path / "solution.csv"
    solution.write_text("id,items\n1_a,x\n2_a,\n")
    with pytest.raises(HostVisibleError, match=expected):
        scorer.evaluate(solution, solution, "id", **{option: "N\udcff"})
