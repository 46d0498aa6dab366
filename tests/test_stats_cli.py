"""``--ci``, ``scorer compare`` and ``scorer report`` end to end, against the Python API."""

from __future__ import annotations

import base64
import io
import json
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import scorer
from scorer import stats
from scorer.stats.report import MISSING_MATPLOTLIB
from tests.commands import run_python, run_scorer
from tests.paths import EXAMPLE, ROOT
from tests.reports import Report, parse_report

SOLUTION = EXAMPLE / "solution.csv"
SUBMISSION = EXAMPLE / "submission.csv"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def better(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A second valid submission: c05 and c06 now find their items first."""
    path = tmp_path_factory.mktemp("better") / "better.csv"
    text = SUBMISSION.read_text().replace(
        "c05,0706016001 0464297007 0372860001", "c05,0464297007 0706016001 0372860001"
    )
    path.write_text(text.replace("c06,\n", "c06,0399223001\n"))
    return path


@pytest.fixture(scope="module")
def invalid(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("invalid") / "invalid.csv"
    path.write_text("customer_id,prediction\nc01,a\n")
    return path


def test_ci_human_output_and_json_equal_the_api() -> None:
    result = scorer.evaluate(SOLUTION, SUBMISSION)
    expected = stats.bootstrap(result, n_resamples=500, seed=3)
    done = run_scorer(SOLUTION, SUBMISSION, "--ci", "--resamples", 500, "--seed", 3)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    start = lines.index("95% intervals (percentile bootstrap over users, 500 resamples, seed 3):")
    score = expected["score"]
    assert lines[start + 1] == f"  MAP@10  overall  0.650000  [{score.low:.6f}, {score.high:.6f}]"
    private = expected["private"]
    assert lines[start + 3].split() == [
        "Private",
        f"{private.value:.6f}",
        f"[{private.low:.6f},",
        f"{private.high:.6f}]",
    ]
    data = json.loads(
        run_scorer(SOLUTION, SUBMISSION, "--ci", "--resamples", 500, "--seed", 3, "--json").stdout
    )
    assert data["intervals"] == {
        "MAP@10": {split: [i.low, i.high] for split, i in expected.items()}
    }
    assert "intervals" not in json.loads(run_scorer(SOLUTION, SUBMISSION, "--json").stdout)


def test_ci_settings_are_a_usage_error() -> None:
    done = run_scorer(SOLUTION, SUBMISSION, "--ci", "--resamples", 0)
    assert done.returncode == 2
    assert "number of resamples must be an int from 1 to 10,000,000, not 0" in done.stderr


def test_compare_table_and_json_equal_the_api(better: Path) -> None:
    a = scorer.evaluate(SOLUTION, SUBMISSION)
    b = scorer.evaluate(SOLUTION, better)
    expected = stats.compare(a, b, n_resamples=2000, seed=1)
    assert expected.exact and expected.wins == 2 and expected.losses == 0
    done = run_scorer("compare", SOLUTION, SUBMISSION, better, "--resamples", 2000, "--seed", 1)
    assert done.returncode == 0, done.stderr
    row = next(line for line in done.stdout.splitlines() if line.startswith("MAP@10"))
    assert row.split() == [
        "MAP@10",
        f"{expected.a:.6f}",
        f"{expected.b:.6f}",
        f"{expected.difference:+.6f}",
        f"[{expected.low:+.6f},",
        f"{expected.high:+.6f}]",
        stats.format_p_value(expected.p_value),
        "2",
        "/",
        "3",
        "/",
        "0",
    ]
    done = run_scorer(
        "compare", SOLUTION, SUBMISSION, better, "--resamples", 2000, "--seed", 1, "--json"
    )
    data = json.loads(done.stdout)["metrics"]["MAP@10"]
    assert data == {
        "a": expected.a,
        "b": expected.b,
        "difference": expected.difference,
        "interval": [expected.low, expected.high],
        "p_value": expected.p_value,
        "p_value_exact": True,
        "wins": 2,
        "ties": 3,
        "losses": 0,
    }


def test_the_report_and_compare_give_one_p_value_by_default(tmp_path) -> None:
    """Monte-Carlo (more than 16 users differ): the report's comparison used 1,000
    resamples and scorer compare 10,000, so one pair had two p-values. One default now
    (stats.PAIRED_RESAMPLES), and each output says how many it used."""
    pytest.importorskip("matplotlib")
    from scorer.stats import report

    rng = np.random.default_rng(4)
    ids = [f"u{i}" for i in range(120)]
    solution = pd.DataFrame({"id": ids, "items": [f"i{rng.integers(6)}" for _ in ids]})
    paths = []
    for name in ("a", "b"):
        ranked = [" ".join(f"i{j}" for j in rng.permutation(6)[:3]) for _ in ids]
        paths.append(tmp_path / f"{name}.csv")
        pd.DataFrame({"id": ids, "items": ranked}).to_csv(paths[-1], index=False)
    solution.to_csv(tmp_path / "solution.csv", index=False)
    a, b = (scorer.evaluate(tmp_path / "solution.csv", path) for path in paths)
    expected = stats.compare(a, b)
    assert not expected.exact and expected.n_resamples == stats.PAIRED_RESAMPLES == 10_000
    out = tmp_path / "report.html"
    out.write_text(report.build_report({"a": a, "b": b}), encoding="utf-8")
    cells = parse_report(out).tables[1][1]
    assert float(cells[6][0]) == expected.p_value
    assert "10,000 resamples and sign patterns" in out.read_text(encoding="utf-8")
    assert "users within each split, 1,000 resamples" in out.read_text(encoding="utf-8")
    done = run_scorer("compare", tmp_path / "solution.csv", *paths, "--json")
    found = json.loads(done.stdout)
    assert found["metrics"]["MAP@10"]["p_value"] == expected.p_value
    assert found["n_resamples"] == 10_000


def test_compare_with_itself_on_the_command_line() -> None:
    done = run_scorer("compare", SOLUTION, SUBMISSION, SUBMISSION, "--json")
    data = json.loads(done.stdout)["metrics"]["MAP@10"]
    assert (data["difference"], data["interval"], data["p_value"]) == (0.0, [0.0, 0.0], 1.0)
    assert (data["wins"], data["ties"], data["losses"]) == (0, 5, 0)


def test_compare_names_the_invalid_submission(invalid: Path, better: Path) -> None:
    done = run_scorer("compare", SOLUTION, invalid, better)
    assert done.returncode == 1
    assert done.stderr.startswith(f"Submission A ({invalid}): The submission is invalid")
    assert "Submission B" not in done.stderr
    done = run_scorer("compare", SOLUTION, better, invalid)
    assert done.returncode == 1
    assert done.stderr.startswith(f"Submission B ({invalid}): The submission is invalid")
    done = run_scorer("compare", SOLUTION, invalid, invalid)
    assert done.returncode == 1
    assert "Submission A (" in done.stderr and "Submission B (" in done.stderr


def test_compare_unknown_measure_is_a_usage_error(better: Path) -> None:
    # An explicit k bounds every cut-off (without one, nDCG@11 would raise k to 11).
    done = run_scorer("compare", SOLUTION, SUBMISSION, better, "--metric", "nDCG@11", "--k", "10")
    assert done.returncode == 2
    assert "'nDCG@11'" in done.stderr and "cut-off" in done.stderr


def test_report_is_self_contained_and_its_numbers_are_the_apis(tmp_path, better) -> None:
    pytest.importorskip("matplotlib")
    out = tmp_path / "report.html"
    figures = tmp_path / "figures"
    done = run_scorer(
        "report", SOLUTION, SUBMISSION, better, "--out", out, "--resamples", 300,
        "--seed", 2, "--figures-dir", figures,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    text = out.read_text(encoding="utf-8")
    assert "<script" not in text and "http" not in text
    report = parse_report(out)
    assert len(report.images) == 4  # two figures per submission
    for source in report.images:
        prefix = "data:image/png;base64,"
        assert source.startswith(prefix)
        png = base64.b64decode(source[len(prefix) :], validate=True)
        assert png.startswith(PNG_SIGNATURE)
        try:
            from PIL import Image
        except ImportError:
            continue
        with Image.open(io.BytesIO(png)) as image:
            image.verify()
            assert image.format == "PNG"
    assert sorted(p.name for p in figures.iterdir()) == [
        "hit_rate_by_rank_1.png",
        "hit_rate_by_rank_2.png",
        "per_user_values_1.png",
        "per_user_values_2.png",
    ]
    a = scorer.evaluate(SOLUTION, SUBMISSION)
    b = scorer.evaluate(SOLUTION, better)
    headline = report.tables[0]
    expected_rows = []
    for name, result in (("submission.csv", a), ("better.csv", b)):
        for split, i in stats.bootstrap(result, n_resamples=300, seed=2).items():
            split_name = {"score": "overall", "public": "Public", "private": "Private"}[split]
            expected_rows.append([name, "MAP@10", split_name, i.value, i.low, i.high])
    got_rows = [
        [row[0][1], row[1][1], row[2][1], *(float(value) for value, _ in row[3:])]
        for row in headline[1:]
    ]
    assert got_rows == expected_rows
    for row in headline[1:]:
        for value, shown in row[3:]:
            assert shown == f"{float(value):.6f}"
    comparison = stats.compare(a, b, n_resamples=300, seed=2)
    header, cells = (tuple(shown for _, shown in row) for row in report.tables[1])
    assert header == (
        "measure", "B", "A value", "B value", "B - A", "95% interval", "p-value", "test",
        "B wins / ties / loses",
    )  # fmt: skip
    values = [row for row, _ in report.tables[1][1]]
    numbers = [float(v) for value in values[2:7] for v in value.split()]
    assert numbers == [
        comparison.a,
        comparison.b,
        comparison.difference,
        comparison.low,
        comparison.high,
        comparison.p_value,
    ]
    assert cells[1] == "better.csv"
    assert "A, the baseline of every row: submission.csv." in out.read_text(encoding="utf-8")
    assert cells[4:] == (
        f"{comparison.difference:+.6f}",
        f"[{comparison.low:+.6f}, {comparison.high:+.6f}]",
        stats.format_p_value(comparison.p_value),  # as scorer compare prints it
        "exact",
        "2 / 3 / 0",
    )
    assert cells[4].startswith("+")
    figure = stats.hit_rate_by_rank(a)
    rank_table = next(t for t in report.tables if t[0][1][1] == "hit share")
    assert [float(row[1][0]) for row in rank_table[1:]] == figure.hit_share.tolist()
    assert [float(row[2][0]) for row in rank_table[1:]] == figure.cumulative_precision.tolist()


def test_report_of_one_submission_with_segments(tmp_path) -> None:
    pytest.importorskip("matplotlib")
    solution = tmp_path / "solution.csv"
    lines = SOLUTION.read_text().splitlines()
    segments = ["country", "se", "se", "de", "de", "se", "fr", "de"]
    solution.write_text(
        "\n".join(f"{line},{s}" for line, s in zip(lines, segments, strict=True)) + "\n"
    )
    out = tmp_path / "one.html"
    done = run_scorer(
        "report", solution, SUBMISSION, "--out", out, "--segment-column-name", "country"
    )
    assert done.returncode == 0, done.stderr
    report = parse_report(out)
    result = scorer.evaluate(solution, SUBMISSION, segment_column_name="country")
    segment_table = next(t for t in report.tables if t[0][0][1] == "country")
    assert [(row[0][1], row[1][1], float(row[2][0])) for row in segment_table[1:]] == [
        (b.label, str(b.n_users), b.mean) for b in stats.by_segment(result)
    ]
    shake = stats.shake_up(result, n_splits=1000, seed=0)
    shake_table = next(t for t in report.tables if t[0][0][1] == "Private - Public")
    assert [float(v) for v, _ in shake_table[1]] == [
        shake.observed,
        shake.mean,
        shake.low,
        shake.high,
    ]


def test_report_without_matplotlib_says_how_to_install_it(tmp_path) -> None:
    blocker = (
        "import sys; sys.modules['matplotlib'] = None; "  # any import of it now fails
        "from scorer.adapters.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    out = tmp_path / "report.html"
    done = run_python("-c", blocker, "report", SOLUTION, SUBMISSION, "--out", out)
    assert done.returncode == 2
    assert done.stderr == f"scorer: host error: {MISSING_MATPLOTLIB}\n"
    assert 'pip install "rankscore[report]"' in done.stderr
    assert not out.exists()


def test_the_install_hint_names_the_distribution_everywhere() -> None:
    """The package index's ``scorer`` is another project: every hint installs ``rankscore``."""
    texts = [ROOT / "README.md", *ROOT.glob("scorer/**/*.py"), *ROOT.glob("docs/**/*.md")]
    wrong = [str(p) for p in texts if 'install "scorer[' in p.read_text(encoding="utf-8")]
    assert wrong == []
    assert 'pip install "rankscore[report]"' in MISSING_MATPLOTLIB


@pytest.mark.parametrize("target", ["solution", "submission", "figure"])
def test_report_never_replaces_an_input(tmp_path, target) -> None:
    pytest.importorskip("matplotlib")
    solution = tmp_path / "sol.csv"
    submission = tmp_path / "sub.csv"
    solution.write_bytes(SOLUTION.read_bytes())
    submission.write_bytes(SUBMISSION.read_bytes())
    figures = tmp_path / "figures"
    out = tmp_path / "report.html"
    if target == "figure":  # the first figure's file name is the submission's
        figures.mkdir()
        submission = figures / "hit_rate_by_rank_1.png"
        submission.write_bytes(SUBMISSION.read_bytes())
    else:
        out = {"solution": solution, "submission": submission}[target]
    before = (solution.read_bytes(), submission.read_bytes())
    done = run_scorer("report", solution, submission, "--out", out, "--figures-dir", figures)
    assert done.returncode == 2, done.stderr
    flag = "--figures-dir" if target == "figure" else "--out"
    assert re.search(
        r"Cannot write (the report|a figure) to .* it is the (solution|submission 1) "
        rf"file and would be replaced\. Choose another path for {flag}\.",
        done.stderr,
    )
    assert (solution.read_bytes(), submission.read_bytes()) == before


def test_report_figures_are_written_atomically(tmp_path, monkeypatch) -> None:
    pytest.importorskip("matplotlib")
    from scorer.adapters import commands, output

    written: list[tuple[str, str | bytes]] = []
    monkeypatch.setattr(output, "write_atomic", lambda path, data: written.append((path, data)))
    args = commands.report_parser(lambda parser: None).parse_args(
        [str(SOLUTION), str(SUBMISSION), "--out", str(tmp_path / "r.html"),
         "--figures-dir", str(tmp_path / "figures"), "--resamples", "50"]
    )  # fmt: skip
    commands.report_command(args, {})
    names = sorted(os.path.basename(path) for path, _ in written)
    assert names == ["hit_rate_by_rank_1.png", "per_user_values_1.png", "r.html"]
    assert os.listdir(tmp_path / "figures") == []  # nothing written but through write_atomic


def test_report_sections_are_one_per_submission_whatever_their_names(tmp_path) -> None:
    pytest.importorskip("matplotlib")
    paths = []
    for folder, name in (("x", "a (1)"), ("y", "a"), ("z", "a")):
        (tmp_path / folder).mkdir()
        paths.append(tmp_path / folder / name)
        paths[-1].write_bytes(SUBMISSION.read_bytes())
    out = tmp_path / "report.html"
    done = run_scorer("report", SOLUTION, *paths, "--out", out, "--resamples", 50)
    assert done.returncode == 0, done.stderr
    report = parse_report(out)
    assert len(report.images) == 6
    headline = [row[0][1] for row in report.tables[0][1:]]
    assert list(dict.fromkeys(headline)) == ["a (1)", "a (2)", "a (3)"]


def test_report_ticks_are_bounded_for_a_large_k(tmp_path) -> None:
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    from scorer.stats import report

    result = scorer.evaluate(SOLUTION, SUBMISSION, k=100_000)
    drawn: list[int] = []
    original = Figure.savefig

    def spy(self, *args, **kwargs):
        drawn.append(len(self.axes[0].get_xticks()))
        drawn.append(len(self.axes[0].patches))
        return original(self, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Figure, "savefig", spy)
        report.hit_rate_figure(result)
    ticks, patches = drawn
    assert ticks <= 14 and patches <= 2


def test_report_of_rows_read_whole_shows_the_first_ten_thousand_ranks(tmp_path) -> None:
    """No k and a set measure: one row of 30,000 items makes 30,000 ranks; the figure
    and table keep the first 10,000 and say so (a million ranks overflowed the
    figure's renderer: an internal error)."""
    pytest.importorskip("matplotlib")
    import pandas as pd

    solution = pd.DataFrame({"id": ["a", "b"], "items": ["x5 x20000", "y"]})
    row = " ".join(f"x{n}" for n in range(30_000))
    submission = pd.DataFrame({"id": ["a", "b"], "items": [row, "y"]})
    result = scorer.evaluate(solution, submission, metrics=["SetF"])
    assert result.options.k is None and len(result.hits_at_rank) == 30_000
    parsed = _report_html({"a": result}, tmp_path)
    assert "Ranks 1 to 10,000 of 30,000 shown." in (tmp_path / "report.html").read_text()
    rank_table = next(t for t in parsed.tables if t[0][1][1] == "hit share")
    assert len(rank_table) == 1 + 10_000
    assert "k=none (whole rows)" in (tmp_path / "report.html").read_text()


def _report_html(results: dict, tmp_path: Path) -> Report:
    from scorer.stats import report

    out = tmp_path / "report.html"
    out.write_text(report.build_report(results, n_resamples=200, seed=3), encoding="utf-8")
    return parse_report(out)


def test_report_figures_share_their_y_scales(tmp_path, better) -> None:
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    from scorer.stats import report

    results = {"a": scorer.evaluate(SOLUTION, SUBMISSION), "b": scorer.evaluate(SOLUTION, better)}
    shares = [stats.hit_rate_by_rank(r).hit_share.max() for r in results.values()]
    assert shares[0] != shares[1]  # on their own scales the two would differ
    tops: list[float] = []
    original = Figure.savefig

    def spy(self, *args, **kwargs):
        tops.append(self.axes[0].get_ylim()[1])
        return original(self, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Figure, "savefig", spy)
        report.build_report(results, n_resamples=50)
    hit_a, histogram_a, hit_b, histogram_b = tops
    assert hit_a == hit_b == max(shares) * 1.25
    counts = [
        np.histogram(r.measure_values().values[r.measure_values().scored], np.linspace(0, 1, 21))[0]
        for r in results.values()
    ]
    assert histogram_a == histogram_b == max(c.max() for c in counts) * 1.05


def test_report_numbers_are_formatted_for_people(tmp_path, better) -> None:
    pytest.importorskip("matplotlib")
    results = {"a": scorer.evaluate(SOLUTION, SUBMISSION), "b": scorer.evaluate(SOLUTION, better)}
    report = _report_html(results, tmp_path)
    headline = report.tables[0]
    assert [row[2][1] for row in headline[1:4]] == ["overall", "Public", "Private"]
    standings = next(t for t in report.tables if t[0][2][1] == "rank")
    for row in standings[1:]:
        for value, shown in (row[2], row[4]):  # the ranks with the real split
            assert shown == f"{float(value):.0f}" and shown in ("1", "2")
        for value, shown in row[5:8]:  # the expected rank (a mean) and its quantiles
            whole = float(value).is_integer()
            assert shown == (f"{float(value):.0f}" if whole else f"{float(value):.1f}")
    shake = stats.shake_up(results, n_splits=1000, seed=3)
    assert [float(row[5][0]) for row in standings[1:]] == [
        s.expected_private_rank for s in shake.standings.values()
    ]


def test_report_shake_up_differences_are_signed(tmp_path) -> None:
    pytest.importorskip("matplotlib")
    report = _report_html({"a": scorer.evaluate(SOLUTION, SUBMISSION)}, tmp_path)
    shake_table = next(t for t in report.tables if t[0][0][1] == "Private - Public")
    for value, shown in shake_table[1]:
        assert shown == f"{float(value):+.6f}"


def test_report_tables_fit_the_page(tmp_path, better) -> None:
    """Each table scrolls inside its own box rather than overflow the page, its names
    wrap (so do the headings and notes that name a submission), and the comparison keeps
    to nine columns (A is named once, above it)."""
    pytest.importorskip("matplotlib")
    from scorer.stats import report

    results = {"a" * 60: scorer.evaluate(SOLUTION, SUBMISSION)}
    results["b" * 60] = scorer.evaluate(SOLUTION, better)
    text = report.build_report(results, n_resamples=50)
    assert text.count('<div class="table"><table>') == text.count("<table>")
    assert ".table { max-width: 100%; overflow-x: auto;" in text
    assert f'<td class="name">{"b" * 60}</td>' in text
    assert "td.name { text-align: left; overflow-wrap: anywhere;" in text
    assert "color: #222; overflow-wrap: break-word; }" in text  # headings and notes wrap too
    assert '<th>measure</th><th class="name">B</th><th>A value</th>' in text
    path = tmp_path / "r.html"
    path.write_text(text, encoding="utf-8")
    comparison = next(t for t in parse_report(path).tables if t[0][0][1] == "measure")
    assert len(comparison[0]) == len(comparison[1]) == 9
