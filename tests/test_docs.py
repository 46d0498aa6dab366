"""The front door and the manual: the README's example prints what it says, every page
is in the site's navigation, and every relative link of the README and the pages leads to
a file that exists (``mkdocs build --strict`` in CI checks the pages' anchors too)."""

from __future__ import annotations

import contextlib
import doctest
import io
import json
import math
import re
import shlex
from pathlib import Path

import numpy as np
import pytest

from scorer.measures.registry import REGISTRY, RUNNING
from tests.paths import EXAMPLE, ROOT

DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md"))


def _python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, re.DOTALL)


def _prints_what_its_comments_say(code: str, name: str) -> None:
    """Run ``code``; each ``print(...)  # text`` line must print ``text``."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, name, "exec"), {"__name__": name})
    promised = [line.split("  # ", 1)[1] for line in code.splitlines() if "print(" in line]
    assert printed.getvalue().splitlines() == promised


def test_the_readmes_python_example_prints_what_its_comments_say() -> None:
    (code,) = _python_blocks((ROOT / "README.md").read_text(encoding="utf-8"))
    _prints_what_its_comments_say(code, "README.md")


#: Pages whose Python examples run from the repository's root on its fixtures.
RUNNABLE_PYTHON = ["hosting.md", "pipelines.md"]


@pytest.mark.parametrize("page", RUNNABLE_PYTHON)
def test_the_pages_python_examples_print_what_their_comments_say(
    page: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    blocks = [
        code
        for code in _python_blocks((DOCS / page).read_text(encoding="utf-8"))
        if "print(" in code
        and all("  # " in line for line in code.splitlines() if "print(" in line)
    ]
    assert blocks, f"{page} has no example that promises its output"
    for code in blocks:
        _prints_what_its_comments_say(code, page)


def _command_samples(kind: str = "json") -> list[tuple[str, str, str]]:
    """Every ``scorer ...`` command alone in a bash block, followed by a ``kind`` block."""
    pattern = re.compile(rf"```bash\nscorer ([^\n]*)\n```\n\n```{kind}\n(.*?)```", re.DOTALL)
    return [
        (page.name, command, shown)
        for page in [ROOT / "README.md", *PAGES]
        for command, shown in pattern.findall(page.read_text(encoding="utf-8"))
    ]


def test_there_are_command_samples_to_check() -> None:
    assert len(_command_samples()) >= 2
    assert _command_samples("text")


@pytest.mark.parametrize(("page", "command", "shown"), _command_samples("text"))
def test_each_output_sample_is_what_its_command_prints(
    page: str,
    command: str,
    shown: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _printed(command, monkeypatch, capsys) == shown


@pytest.mark.parametrize(("page", "command", "shown"), _command_samples())
def test_each_json_sample_is_what_its_command_prints(
    page: str,
    command: str,
    shown: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Run from the repository's root, the command prints the page's JSON (as data)."""
    assert json.loads(_printed(command, monkeypatch, capsys)) == json.loads(shown)


def _printed(
    command: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> str:
    """What the command line prints for ``command``, run from the repository's root."""
    from scorer.adapters.cli import main

    monkeypatch.chdir(ROOT)
    main(shlex.split(command))
    return capsys.readouterr().out


def test_the_readme_stays_a_front_door() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200


def test_every_page_is_in_the_navigation_and_every_entry_is_a_page() -> None:
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    listed = set(re.findall(r":\s*([\w-]+\.md)\s*$", config, re.MULTILINE))
    assert listed == {page.name for page in PAGES}


@pytest.mark.parametrize("path", [ROOT / "README.md", *PAGES], ids=lambda p: p.name)
def test_relative_links_lead_to_files(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#:\s]+)(?:#[^)]*)?\)", text)
    missing = [t for t in targets if not (path.parent / t).exists()]
    assert not missing, missing


#: Values written in the pages' prose, each a worked example of the registry: (page, the
#: text with ``{}`` for each value, each value's (measure, ranking, |R|)).
PROSE_VALUES = [
    ("measures.md", "AUC = 12/16 = {}", [("AUC", RUNNING, 4)]),
    (
        "measures.md",
        "unranked loses its 4 pairs to the ranked non-relevant items: 12/20 = {}",
        [("AUC", RUNNING, 5)],
    ),
    (
        "measures.md",
        "`SetF` = {}, where `F1@10` gives 2/12 = {}",
        [("SetF", "1 0 0", 2), ("F1@10", "1 0 0", 2)],
    ),
    (
        "measures.md",
        "give micro {} where macro gives {}.",
        [("R(norm=min_k,avg=micro)@20", "1 | 0", (1, 10)), ("R(norm=min_k)@20", "1 | 0", (1, 10))],
    ),
]


def _registry_value(measure: str, ranked: str, relevant: int | tuple[int, ...]) -> object:
    (value,) = [
        example.value
        for family in REGISTRY
        for example in family.examples
        if (example.measure, example.ranked, example.relevant) == (measure, ranked, relevant)
    ]
    return value


@pytest.mark.parametrize(("page", "text", "examples"), PROSE_VALUES)
def test_values_in_the_prose_are_the_registrys_worked_examples(
    page: str, text: str, examples: list
) -> None:
    written = text.format(*(_registry_value(*example) for example in examples))
    assert written in " ".join((DOCS / page).read_text(encoding="utf-8").split())


def test_the_ideal_built_from_the_hits_gives_the_value_the_page_shows() -> None:
    """measures.md's counter-example: on the running ranking, nDCG@3 with the ideal built
    from the hits (ranks 1 and 3 moved up to ranks 1 and 2) instead of the full truth."""
    gains = [int(grade) for grade in RUNNING.split()][:3]
    dcg = sum(gain / math.log2(rank + 2) for rank, gain in enumerate(gains))
    ideal_of_hits = sum(1 / math.log2(rank + 2) for rank in range(sum(gains)))
    written = f"that ideal gives nDCG@3 = {dcg / ideal_of_hits:.12f}"
    assert written in " ".join((DOCS / "measures.md").read_text(encoding="utf-8").split())


def test_the_docker_page_matches_the_dockerfile() -> None:
    """The image's name, base and user as the Dockerfile says, and each ``docker run``'s
    arguments after the image's name are a valid ``scorer`` command line."""
    from scorer.adapters.cli import _score_parser, parse_scoring_args

    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    page = " ".join((DOCS / "pipelines.md").read_text(encoding="utf-8").split())
    (name,) = re.findall(r'image\.title="([^"]+)"', dockerfile)
    (base,) = re.findall(r"^FROM (\S+)", dockerfile, re.MULTILINE)
    (user,) = re.findall(r"^USER (\d+)", dockerfile, re.MULTILINE)
    assert f"docker build -t {name} ." in page
    assert f"(`{base}`)" in page
    assert f"user id {user}" in page
    text = (DOCS / "pipelines.md").read_text(encoding="utf-8").replace("\\\n", " ")
    runs = [line for line in text.splitlines() if line.startswith("docker run ")]
    assert len(runs) >= 2
    for run in runs:
        words = shlex.split(run)
        arguments = words[words.index(name) + 1 :]
        parse_scoring_args(_score_parser(), arguments)  # exits 2 on a bad command line


def _commented_commands() -> list[tuple[str, str, list[str]]]:
    """Every ``scorer ...`` command of a bash block whose comment states values:
    (page, the command, the numbers of its comment)."""
    found = []
    for page in [ROOT / "README.md", *PAGES]:
        for block in re.findall(r"```bash\n(.*?)```", page.read_text(encoding="utf-8"), re.DOTALL):
            for line in block.replace("\\\n", " ").splitlines():
                command, _, comment = line.partition("  # ")
                numbers = re.findall(r"(?<![\w@.])\d+\.\d+(?![\w.])", comment)
                if command.startswith("scorer ") and numbers:
                    found.append((page.name, command.removeprefix("scorer "), numbers))
    return found


@pytest.mark.parametrize(("page", "command", "numbers"), _commented_commands())
def test_each_value_a_commands_comment_states_is_what_it_prints(
    page: str,
    command: str,
    numbers: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from scorer.adapters.cli import main

    monkeypatch.chdir(ROOT)
    assert main([*shlex.split(command), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    printed = {repr(value) for value in result["metrics"].values()}
    assert set(numbers) <= printed


def doctest_parser() -> doctest.DocTestParser:
    return doctest.DocTestParser()


def doctest_runner() -> doctest.DocTestRunner:
    # ELLIPSIS: a mean or quantile of many floats may differ in its last digits from one
    # numpy release to another (the order of their additions), and the pages end it in ...
    return doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)


def _interactive_blocks() -> list[tuple[str, str]]:
    """Every Python block of a page written as an interactive session (``>>>``)."""
    return [
        (page.name, code)
        for page in PAGES
        for code in _python_blocks(page.read_text(encoding="utf-8"))
        if code.startswith(">>> ")
    ]


@pytest.mark.parametrize(("page", "code"), _interactive_blocks())
def test_the_pages_interactive_examples_print_what_they_show(
    page: str, code: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    test = doctest_parser().get_doctest(code, {}, page, page, 0)
    runner = doctest_runner()
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


@pytest.fixture(scope="module")
def statistics_data() -> None:
    """The data statistics.md's examples run on, as the page's first command makes it."""
    from tests.benchmark_modules import load

    with contextlib.redirect_stdout(io.StringIO()):
        load("generate").main(["13720", "--second"])


def _console_sessions(page: str) -> list[tuple[str, str]]:
    """Each ``$ scorer ...`` command of the page's console blocks and what it prints."""
    text = (DOCS / page).read_text(encoding="utf-8")
    return re.findall(r"```console\n\$ scorer ([^\n]*)\n(.*?)```", text, re.DOTALL)


_NUMBER = re.compile(r"-?[0-9][0-9,]*(?:\.[0-9]+)?(?:e[-+][0-9]+)?")


def _numpy_draws_as_the_page_was_written() -> bool:
    """Whether numpy's binomial sampler draws as it did when the page was written
    (numpy before 2.5): numpy 2.5 changed about 1 draw in 250 for some parameters, so
    a few resamples of the page's intervals differ there (docs/statistics.md says so)."""
    params = np.random.default_rng(0)
    n, p = params.integers(1, 5000, size=200_000)[:9213], params.random(200_000)[:9213]
    return int(np.random.default_rng(1).binomial(n, p)[-1]) == 2539


def _assert_same_but_for_the_draws(printed: str, shown: str, command: str) -> None:
    """The same words, and the same numbers within 1 % (an interval's bounds are
    order statistics of the resamples: a few changed draws move them slightly)."""
    assert _NUMBER.sub("#", printed) == _NUMBER.sub("#", shown), command
    for found, expected in zip(_NUMBER.findall(printed), _NUMBER.findall(shown), strict=True):
        found_value, expected_value = (float(x.replace(",", "")) for x in (found, expected))
        assert found_value == pytest.approx(expected_value, rel=1e-2, abs=1e-4), command


def test_the_statistics_pages_sessions_print_what_they_show(
    statistics_data: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Whole-output samples on 13,720 users (a few seconds): the console sessions, then
    the interactive one."""
    from scorer.adapters.cli import main

    monkeypatch.chdir(ROOT)
    sessions = _console_sessions("statistics.md")
    assert len(sessions) >= 3
    exact = _numpy_draws_as_the_page_was_written()
    for command, shown in sessions:
        assert main(shlex.split(command)) == 0
        printed = capsys.readouterr().out
        if exact:
            assert printed == shown, command
        else:
            _assert_same_but_for_the_draws(printed, shown, command)
    text = (DOCS / "statistics.md").read_text(encoding="utf-8")
    (code,) = re.findall(r"```pycon\n(.*?)```", text, re.DOTALL)
    test = doctest_parser().get_doctest(code, {}, "statistics.md", "statistics.md", 0)
    runner = doctest_runner()
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def _block_after(page: str, after: str, language: str) -> str:
    """The first ``language`` block after the text ``after`` in the page."""
    text = (DOCS / page).read_text(encoding="utf-8")
    start = text.index(f"```{language}\n", text.index(after)) + len(language) + 4
    return text[start : text.index("```", start)]


def test_the_codabench_scores_sample_is_what_the_command_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from scorer.adapters.cli import main

    ref, res = tmp_path / "input" / "ref", tmp_path / "input" / "res"
    for folder in (ref, res, tmp_path / "output"):
        folder.mkdir(parents=True)
    example = EXAMPLE
    (ref / "solution.csv").write_bytes((example / "solution.csv").read_bytes())
    (res / "submission.csv").write_bytes((example / "submission.csv").read_bytes())
    assert main(["codabench", str(tmp_path / "input"), str(tmp_path / "output")]) == 0
    shown = _block_after("hosting.md", "writes `OUTPUT_DIR/scores.json`", "json")
    written = (tmp_path / "output" / "scores.json").read_text(encoding="utf-8")
    assert json.loads(written) == json.loads(shown)


def test_the_errors_pages_sample_is_the_message() -> None:
    import pandas as pd

    import scorer

    solution = pd.DataFrame({"id": ["u1", "u2"], "items": ["a", "b"]})
    submission = pd.DataFrame({"id": ["u1", " u2"], "items": ["a", "b"]})
    with pytest.raises(scorer.ParticipantVisibleError) as caught:
        scorer.evaluate(solution, submission, "id")
    shown = _block_after("errors.md", "second row id is ` u2` give", "text")
    assert str(caught.value) + "\n" == shown


def test_the_recipes_pages_warning_sample_is_the_warning() -> None:
    import scorer
    from scorer.adapters.cli import format_result

    example = EXAMPLE
    result = scorer.evaluate(
        example / "solution.csv",
        example / "submission.csv",
        recipe="santander-2016",
        empty_ground_truth="skip",
    )
    shown = _block_after("recipes.md", "as a `UserWarning`", "text")
    assert shown in format_result(result) + "\n"


@pytest.mark.parametrize(
    ("page", "kind"), [("measures.md", "measures"), ("recipes.md", "competitions")]
)
def test_the_wide_tables_cards_name_their_columns(page: str, kind: str) -> None:
    """On a narrow screen each row of a wide table is a card whose cells carry their
    column's name (docs/stylesheets/tables.css): the names there are the table's own."""
    text = (DOCS / page).read_text(encoding="utf-8")
    assert f'<div class="wide-table {kind}" markdown>' in text
    header = text.split(f"<!-- generated: {kind} -->\n", 1)[1].splitlines()[0]
    names = [cell.strip() for cell in header.strip("|").split("|")]
    css = (DOCS / "stylesheets" / "tables.css").read_text(encoding="utf-8")
    labels = re.findall(rf'\.{kind} td:nth-child\((\d+)\)::before {{ content: "(.*?): "; }}', css)
    assert [(int(n), label) for n, label in labels] == list(enumerate(names[1:], start=2))


def test_the_leaderboard_pages_session_prints_what_it_shows(
    statistics_data: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The example of docs/leaderboard.md on the 13,720 users of statistics.md and six
    submissions of benchmarks/leaderboard.py; the audit's versions and digests aside
    (they name the machine's packages and the generated files)."""
    from scorer.adapters.cli import main
    from tests.benchmark_modules import load

    with contextlib.redirect_stdout(io.StringIO()):
        load("leaderboard").main(["--users", "13720", "--submissions", "6", "--data-only"])
    text = (DOCS / "leaderboard.md").read_text(encoding="utf-8")
    ((command, shown),) = re.findall(r"````console\n\$ scorer ([^\n]*)\n(.*?)````", text, re.DOTALL)
    monkeypatch.chdir(ROOT)
    assert main(shlex.split(command)) == 0

    def audited(output: str) -> str:
        return re.sub(r"(?m)^(versions|sha256 [^:]*):.*$", r"\1: ...", output)

    printed, shown = audited(capsys.readouterr().out), audited(shown)
    if _numpy_draws_as_the_page_was_written():
        assert printed == shown
    else:
        _assert_same_but_for_the_draws(printed, shown, command)
