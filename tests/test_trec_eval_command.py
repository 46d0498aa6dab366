"""``scorer trec-eval`` against trec_eval 10's own output (stored beside the fixtures:
fixtures/trec/command/README.md), its options one by one and together, its other
outputs and its errors."""

from __future__ import annotations

import json
import re
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest

from scorer.adapters.cli import main
from scorer.adapters.trec_eval import requested
from tests import paths
from tests.commands import run_scorer

FIXTURES = paths.FIXTURES / "trec" / "command"
SPEC = json.loads((FIXTURES / "cases.json").read_text())
CASES = {case["name"]: case for case in SPEC["cases"]}


def trec_eval(capsys, *args: object) -> tuple[int, str, str]:
    """``scorer trec-eval ARGS``: the exit code, standard output and standard error."""
    code = main(["trec-eval", *map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def case_args(name: str) -> list[str]:
    case = CASES[name]
    return [*case["args"].split(), str(FIXTURES / SPEC["qrels"]), str(FIXTURES / case["run"])]


def _alike(text: str, unlike: dict[str, str]) -> list[str]:
    """The lines of ``text`` but those a case's ``unlike`` names (by measure, or by
    measure and qid), each for the reason stored beside it."""
    kept = []
    for line in text.splitlines():
        name, qid, _ = line.split("\t")
        if name.strip() not in unlike and f"{name.strip()} {qid}" not in unlike:
            kept.append(line)
    return kept


@pytest.mark.parametrize("name", list(CASES))
def test_the_output_is_trec_evals_line_for_line(capsys, name) -> None:
    code, out, err = trec_eval(capsys, *case_args(name))
    assert code == 0, err
    expected = (FIXTURES / "expected" / f"{name}.txt").read_text()
    unlike = CASES[name].get("unlike", {})
    if not unlike:
        assert out == expected
    assert _alike(out, unlike) == _alike(expected, unlike)
    assert len(_alike(expected, unlike)) > 0.9 * len(expected.splitlines())


def test_what_differs_from_trec_eval_is_only_what_the_cases_say(capsys) -> None:
    """all_trec: relstring is not printed; the other lines set aside are printed, with
    the scorer's value."""
    _, out, _ = trec_eval(capsys, *case_args("all_trec_together"))
    expected = (FIXTURES / "expected" / "all_trec_together.txt").read_text().splitlines()
    ours = {tuple(line.split("\t")[:2]): line for line in out.splitlines()}
    for line in expected:
        name, qid, _ = line.split("\t")
        if name.strip() == "relstring":
            assert (name, qid) not in ours
        else:
            assert (name, qid) in ours, line
    num_rel = [line for line in out.splitlines() if line.startswith("num_rel ")]
    assert num_rel[-1].endswith("\tall\t3")  # the queries' own lines summed
    assert sum(int(line.split("\t")[2]) for line in num_rel[:-1]) == 3


def test_every_option_has_a_case_and_the_cases_differ() -> None:
    """Each option is seen against trec_eval, and changes the output on these files."""
    outputs = {name: (FIXTURES / "expected" / f"{name}.txt").read_text() for name in CASES}
    for flag, name in [("-c", "complete"), ("-J", "judged_only"), ("-l", "level_2"),
                       ("-M", "max_3"), ("-n", "no_summary")]:  # fmt: skip
        assert flag in CASES[name]["args"].split()
        assert outputs[name] != outputs["per_query"], name
    assert outputs["per_query"] != outputs["measures"]  # -q
    assert outputs["left_out"] != outputs["complete"]  # a missing query left out, or 0


def test_long_options_and_joined_values_are_trec_evals(capsys) -> None:
    files = case_args("measures")[-2:]
    short = trec_eval(capsys, "-q", "-J", "-l", "2", "-M", "3", "-m", "P.2", *files)
    joined = trec_eval(capsys, "-qJ", "-l2", "-M3", "-mP.2", *files)
    long = trec_eval(
        capsys, "--query_eval_wanted", "--Judged_docs_only", "--level_for_rel", "2",
        "--Max_retrieved_per_topic", "3", "--measure", "P.2", *files,
    )  # fmt: skip
    assert short == joined == long and short[0] == 0


def test_full_precision_gives_the_correctly_rounded_mean(capsys) -> None:
    code, out, _ = trec_eval(capsys, "--precision", "full", *case_args("per_query"))
    assert code == 0
    expected = (FIXTURES / "expected" / "per_query.txt").read_text().splitlines()
    lines = out.splitlines()
    assert [line.rsplit("\t", 1)[0] for line in lines] == [
        line.rsplit("\t", 1)[0] for line in expected
    ]
    for got, four in zip(lines, expected, strict=True):
        name, _, value = got.split("\t")
        if name.strip() not in ("runid", "num_q"):
            assert f"{float(value):6.4f}" == four.split("\t")[2], got
    # P at a cut-off and success are whole fifths, halves...: exact from the 4 decimals.
    for name in ("P_1", "P_2", "P_5", "success_1", "success_3"):
        values = [Fraction(line.split("\t")[2]) for line in expected if line.startswith(name)]
        per_query, summary = values[:-1], values[-1]
        mean = sum(per_query) / len(per_query)
        full = next(line for line in lines if line.startswith(f"{name} ") and "\tall\t" in line)
        assert float(full.split("\t")[2]) == float(mean)
        assert abs(summary - mean) < Fraction(1, 10**4)


def test_json_holds_the_same_values(capsys) -> None:
    code, out, _ = trec_eval(capsys, "--json", *case_args("per_query"))
    assert code == 0
    data = json.loads(out)
    assert (data["runid"], data["all"]["num_q"]) == ("runB", 6)
    assert all("num_q" not in values for values in data["queries"].values())
    _, text, _ = trec_eval(capsys, "--precision", "full", *case_args("per_query"))
    for line in text.splitlines():
        name, qid, value = (part.strip() for part in line.split("\t"))
        if name in ("runid", "num_q"):
            continue
        shown = data["all"][name] if qid == "all" else data["queries"][qid][name]
        if name.startswith("num_"):  # a count, printed and written as an integer
            assert type(shown) is int and str(shown) == value, line
        else:
            assert repr(float(value)) == repr(shown), line
    # -n: no summary, as the text's lines have none.
    code, out, _ = trec_eval(capsys, "--json", "-n", *case_args("per_query"))
    assert (code, json.loads(out)) == (0, {"queries": data["queries"]})
    _, out, _ = trec_eval(capsys, "--json", "-n", *case_args("per_query")[1:])
    assert json.loads(out) == {}


def test_measures_are_read_as_trec_eval_reads_them() -> None:
    measures, runid = requested(["P.10,5", "map", "P.20"])
    assert [(name, str(measure)) for name, measure in measures] == [
        ("map", "MAP(norm=relevant)@all"),
        ("P_5", "P@5"),
        ("P_10", "P@10"),
    ]
    assert not runid
    assert requested(["runid"]) == ([], True)
    assert requested(None)[1] and requested(["set"])[1]
    names = [name for name, _ in requested(["ndcg_cut", "success"])[0]]
    assert names[:2] == ["ndcg_cut_5", "ndcg_cut_10"] and names[-1] == "success_10"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-m", "nothing"], r"trec_eval has no measure 'nothing' \(-m nothing\)\. Its measures: "
         r"num_q, num_ret, .*, unj, runid, relstring; its sets: official, all_trec, set\."),
        (["-m", "P.0"], r"trec_eval's P takes positive cut-offs without duplicates "
         r"\(e\.g\. 'P\.5,10'\)\. Got P\.0 instead\."),
        (["-m", "P.5,5"], r"without duplicates \(e\.g\. 'P\.5,10'\)\. Got P\.5,5 instead\."),
        (["-m", "P.x"], r"trec_eval's P takes whole numbers such as 5 \(e\.g\. 'P\.5,10'\)\. "
         r"Got P\.x"),
        # The whole of what was written, and the piece refused in it.
        (["-m", "P.5,"], r"takes whole numbers such as 5 \(e\.g\. 'P\.5,10'\)\. Got P\.5, instead "
         r"\(not one: ''\)\."),
        (["-m", "ndcg_cut.5,x"], r"Got ndcg_cut\.5,x instead \(not one: 'x'\)\."),
        # The count of values first; then each value's digits, said.
        (["-m", "utility.100000"], r"trec_eval's utility takes 4 values \(e\.g\. "
         r"'utility\.1,-1,0,0'\)\. Got utility\.100000 instead\."),
        (["-m", "rbp.p=0.99999"], r"trec_eval's rbp takes decimals of at most 4 digits either "
         r"side of the point, such as 0\.9 \(e\.g\. 'rbp\.p=0\.9'\)\. Got rbp\.p=0\.99999 "
         r"instead \(not one: '0\.99999'\)\."),
        (["-m", "set_F.1,2"], r"trec_eval's set_F takes 1 value \(e\.g\. 'set_F\.1'\)\. "
         r"Got set_F\.1,2 instead\."),
        (["-m", "map.5"], r"trec_eval's map takes no parameters \(e\.g\. 'map'\)\. Got map\.5"),
        (["-m", "relstring.5"], r"trec_eval's relstring \(the first ranks' judgements as text\) "
         r"is not printed by scorer trec-eval: leave it out of -m\."),
        # Digits of other scripts are no trec_eval number (int() would read them).
        (["-m", "P.\u0663"], r"trec_eval's P takes whole numbers such as 5 .*"
         r"Got P\.\u0663 instead"),
        (["-m", "set_F.\u0660.5"], r"Got set_F\.\u0660\.5 instead"),
        (["-l", "0", "-m", "map"], r"-l must be at least 1 \(the smallest rel that is relevant\)"
         r"\. Got 0\."),
        (["-M", "0", "-m", "map"], r"-M must be at least 1 \(the documents counted per query\)"
         r"\. Got 0\."),
        # trec_eval's options for outputs the scorer does not make.
        (["-R", "prefs"], r"-R prefs: scorer trec-eval reads trec_eval's qrels format only "
         r"\(-R qrels, the default\)\. Convert the file, or leave -R out\."),
        (["-T", "tsv"], r"-T tsv: .* trec_results format only \(-T trec_results, the default\)"),
        (["-Z", "zscores.txt"], r"-Z zscores\.txt: scorer trec-eval prints no z-scores\."),
        (["-o"], r"-o: scorer trec-eval prints trec_eval's current output format only\."),
    ],
)  # fmt: skip
def test_usage_errors_are_exit_2(capsys, args, message) -> None:
    code, out, err = trec_eval(capsys, *args, *case_args("measures")[-2:])
    assert code == 2 and out == ""
    assert re.search(message, err), err


def _command(*args: object) -> subprocess.CompletedProcess:
    return run_scorer("trec-eval", *args)


def test_an_invalid_run_is_exit_1_naming_the_line_and_the_fix(tmp_path) -> None:
    run = tmp_path / "run"
    run.write_text("qid docno score\n101 Q0 d1 1 x tag\n")
    done = _command("-m", "map", FIXTURES / "qrels.txt", run)
    assert done.returncode == 1 and done.stdout == ""
    assert "1. Malformed lines" in done.stderr
    assert "examples (lines): 1: 'qid docno score'" in done.stderr
    assert "(a trec_eval file has no header line: remove it)" in done.stderr
    assert "2. Invalid scores" in done.stderr and "examples (lines): 2: 'x'" in done.stderr


def test_invalid_qrels_and_missing_files_are_exit_2(tmp_path) -> None:
    qrels = tmp_path / "qrels"
    qrels.write_text("101 0 d1\n")
    done = _command("-m", "map", qrels, FIXTURES / "run.txt")
    assert done.returncode == 2
    assert "The solution is invalid" in done.stderr and "Malformed lines" in done.stderr
    missing = _command("-m", "map", tmp_path / "nothing", FIXTURES / "run.txt")
    assert missing.returncode == 2 and "nothing" in missing.stderr
    usage = _command("-m", "map", FIXTURES / "qrels.txt")
    assert usage.returncode == 2 and "the following arguments are required: run" in usage.stderr


def test_trec_evals_options_that_change_nothing_here_are_taken(capsys) -> None:
    """A script that passes trec_eval's -N, -D or the default formats runs unchanged."""
    files = case_args("per_query")
    expected = trec_eval(capsys, *files)
    assert expected[0] == 0
    given = ("-N", "1000", "-D", "0", "-R", "qrels", "-T", "trec_results")
    assert trec_eval(capsys, *given, *files) == expected
    long = ("--Number_docs_in_coll", "1000", "--Debug_level", "1", "--Rel_info_format=qrels")
    assert trec_eval(capsys, *long, *files) == expected


def test_the_version_is_on_standard_error_as_trec_evals(capsys) -> None:
    with pytest.raises(SystemExit) as ended:
        main(["trec-eval", "-v"])
    captured = capsys.readouterr()
    assert ended.value.code == 0 and captured.out == ""
    assert re.fullmatch(r"scorer trec-eval \S+ \(trec_eval 10's command line\)\n", captured.err)


def test_warnings_go_to_standard_error_and_leave_the_lines_alone(capsys) -> None:
    """A qrels query the run lacks is left out with a warning naming it; a docno judged
    twice warns the host (docs/trec-eval.md); standard output is trec_eval's lines."""
    files = case_args("left_out")[-2:]
    code, out, err = trec_eval(capsys, "-m", "map", *files)
    assert code == 0 and re.fullmatch(r"map\s+\tall\t\d\.\d{4}\n", out)
    assert err.startswith("Warnings (2):\n  - [submission] 1 qid of the qrels has no line in ")
    assert "left out of the mean, as trec_eval does (-c scores them 0)" in err
    code, out_json, err_json = trec_eval(capsys, "--json", "-m", "map", *files)
    assert code == 0 and err_json == err and json.loads(out_json)


def test_a_docno_judged_twice_warns_the_host(capsys, tmp_path) -> None:
    qrels = tmp_path / "qrels"
    # Judged twice at 0 too: a judgement repeated, whatever its rel, not a relevant item.
    qrels.write_text("q1 0 d1 1\nq1 0 d1 2\nq2 0 d1 0\nq2 0 d1 0\nq2 0 d2 1\n")
    run = tmp_path / "run"
    run.write_text("q1 Q0 d1 1 2.0 r\nq2 Q0 d2 1 2.0 r\n")
    code, out, err = trec_eval(capsys, "-m", "map", qrels, run)
    assert (code, out) == (0, "map                   \tall\t1.0000\n")
    assert err == (
        "Warnings (1):\n  - [host] 2 qids of the qrels have a docno judged on more than one "
        "line; its largest rel counts (trec_eval stops at it). Examples: 'q1', 'q2'\n"
    )


def test_the_qrels_and_the_run_swapped_are_said_to_be(tmp_path) -> None:
    qrels, run = FIXTURES / "qrels.txt", FIXTURES / "run.txt"
    swapped = _command("-m", "map", run, qrels)
    assert swapped.returncode == 2
    assert "; the lines look like a run: the qrels come first, then the run" in swapped.stderr
    judged = _command("-m", "map", qrels, qrels)  # the qrels as the run: exit 1, the run's
    assert judged.returncode == 1
    assert "; the lines look like qrels: the qrels come first, then the run" in judged.stderr
    tabbed = tmp_path / "run.tsv"  # MS MARCO's runs: fields separated by tabs
    tabbed.write_text(run.read_text().replace(" ", "\t"))
    swapped = _command("-m", "map", tabbed, qrels)
    assert "; the lines look like a run: the qrels come first" in swapped.stderr
    assert "no header line" not in swapped.stderr  # the first line is a run's, not a header
    short = tmp_path / "run"
    short.write_text("101 Q0 d1 1 2.5\n")  # a run's line short of its tag: no such hint
    assert "look like" not in _command("-m", "map", qrels, short).stderr


def test_a_cut_past_every_document_is_no_cut(capsys) -> None:
    """trec_eval takes any -M; one past what an int64 holds counts every document."""
    _, every, _ = trec_eval(capsys, "-q", *case_args(next(iter(CASES)))[-2:])
    code, out, err = trec_eval(capsys, "-q", "-M", 10**20, *case_args(next(iter(CASES)))[-2:])
    assert (code, out) == (0, every), err


def test_nothing_to_print_prints_nothing(capsys) -> None:
    assert trec_eval(capsys, "-n", *case_args(next(iter(CASES)))[-2:])[:2] == (0, "")


def test_the_lines_are_printed_a_block_of_queries_at_a_time(capsys, monkeypatch) -> None:
    import scorer.adapters.trec_eval as command

    files = case_args(next(iter(CASES)))[-2:]
    _, whole, _ = trec_eval(capsys, "-q", "-m", "all_trec", *files)
    monkeypatch.setattr(command, "LINES_PER_BLOCK", 60)  # all_trec's 2 queries a block
    emitted = []
    monkeypatch.setattr(command, "emit", emitted.append)
    trec_eval(capsys, "-q", "-m", "all_trec", *files)
    assert len(emitted) > 2 and "".join(block + "\n" for block in emitted) == whole


def test_the_command_answers_to_the_programs_own_name_too(capsys) -> None:
    files = case_args(next(iter(CASES)))[-2:]
    _, dashed, _ = trec_eval(capsys, "-q", *files)
    assert main(["trec_eval", "-q", *files]) == 0
    assert capsys.readouterr().out == dashed


def test_the_run_dash_is_standard_input(capsys):
    *options, run = case_args(SPEC["cases"][0]["name"])
    expected = trec_eval(capsys, *options, run)
    piped = run_scorer("trec-eval", *options, "-", input=Path(run).read_text())
    assert (piped.returncode, piped.stdout, piped.stderr) == expected


def test_the_qrels_dash_is_refused_as_trec_eval_refuses_it(capsys):
    *options, _, run = case_args(SPEC["cases"][0]["name"])
    code, out, err = trec_eval(capsys, *options, "-", run)
    assert (code, out) == (2, "")
    assert "trec_eval reads standard input for the run only" in err


def test_a_measure_of_several_values_shows_all_of_them_as_its_example(capsys):
    code, _, err = trec_eval(capsys, "-m", "utility.1,-1", *case_args("official")[1:])
    assert code == 2
    assert "takes 4 values (e.g. 'utility.1,-1,0,0'). Got utility.1,-1 instead." in err


@pytest.mark.parametrize("name", ["official", "all_trec", "set", "runid"])
def test_sets_and_runid_are_read_in_any_case(capsys, name) -> None:
    files = case_args("measures")[-2:]
    expected = trec_eval(capsys, "-m", name, *files)
    assert expected[0] == 0 and expected[1]
    for written in (name.upper(), name.capitalize()):
        assert trec_eval(capsys, "-m", written, *files) == expected


def test_a_query_the_run_lacks_is_a_ranking_of_no_document_under_c(capsys, tmp_path) -> None:
    """``-c`` scores a qrels query the run lacks as a ranking of no document: 0 but for
    ``num_rel`` and a ``utility`` whose c or d is not 0, (c - d) x num_rel (trec_eval
    prints its stand-in ranking's value there: docs/trec-eval.md)."""
    (tmp_path / "qrels").write_text("1 0 a 1\n2 0 b 1\n2 0 c 1\n2 0 d 0\n")
    (tmp_path / "run").write_text("1 Q0 a 1 1 r\n")
    files = (tmp_path / "qrels", tmp_path / "run")

    def values(*measures: str) -> dict[tuple[str, str], str]:
        code, out, err = trec_eval(capsys, "-q", "-c", *measures, *files)
        assert code == 0 and "1 qid of the qrels has no line in the run" in err
        return {(name, qid): value for name, qid, value in map(str.split, out.splitlines())}

    a, c, d = Fraction(2), Fraction(1, 2), Fraction(0)  # b counts no document here
    found = values("-m", "utility.2,-1,0.5,0", "-m", "num_rel", "-m", "map")
    n_relevant = 2
    assert found["utility_2,-1,0.5,0", "2"] == f"{float((c - d) * n_relevant):.4f}" == "1.0000"
    assert found["utility_2,-1,0.5,0", "1"] == f"{float(a):.4f}"
    mean = (a + (c - d) * n_relevant) / 2
    assert found["utility_2,-1,0.5,0", "all"] == f"{float(mean):.4f}"
    assert found["num_rel", "2"] == str(n_relevant) and found["map", "2"] == "0.0000"
    assert values("-m", "utility")["utility", "2"] == "0.0000"  # c = d = 0
