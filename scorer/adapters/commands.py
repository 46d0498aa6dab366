"""The statistics on the command line: ``--ci``, ``scorer compare`` and ``scorer report``.

:mod:`scorer.adapters.cli` dispatches here; this module parses the subcommands' arguments,
scores the submissions and prints. The maths is :mod:`scorer.stats`, the HTML
:mod:`scorer.stats.report`.
"""

from __future__ import annotations

import argparse
import json
import os
from collections import Counter
from collections.abc import Sequence
from typing import Any

from scorer import stats
from scorer.adapters.output import Parser, emit, refuse_overwriting_inputs, write_output
from scorer.errors import HostVisibleError, ParticipantVisibleError
from scorer.read.inputs import as_string_table
from scorer.result import SPLIT_NAMES, ScoreResult

DEFAULT_LEVEL = 0.95


def add_ci_options(parser: argparse.ArgumentParser, resamples: int | None, ci_flag: bool) -> None:
    """Add ``--resamples``, ``--seed``, ``--level`` (and ``--ci`` for the score command);
    ``resamples=None``: each statistic's own default (the report's)."""
    group = parser.add_argument_group("statistics (percentile bootstrap over users)")
    if ci_flag:
        group.add_argument(
            "--ci",
            action="store_true",
            help="add bootstrap confidence intervals per measure and split (JSON: 'intervals')",
        )
    group.add_argument(
        "--resamples",
        type=int,
        default=resamples,
        metavar="N",
        help="bootstrap resamples (default: %(default)s)"
        if resamples is not None
        else f"resamples (default: {stats.INTERVAL_RESAMPLES:,} for the intervals, "
        f"{stats.PAIRED_RESAMPLES:,} for the paired comparisons, as scorer compare)",
    )
    group.add_argument(
        "--seed", type=int, default=0, metavar="S", help="random seed (default: %(default)s)"
    )
    group.add_argument(
        "--level",
        type=float,
        default=DEFAULT_LEVEL,
        metavar="L",
        help="confidence level of the intervals (default: %(default)s)",
    )


def intervals(result: ScoreResult, args: argparse.Namespace) -> dict[str, dict] | None:
    """The ``--ci`` intervals of every measure of the result, measure name -> split ->
    Interval; None without ``--ci``."""
    if not getattr(args, "ci", False):
        return None
    settings = {"n_resamples": args.resamples, "level": args.level, "seed": args.seed}
    return {name: stats.bootstrap(result, name, **settings) for name in result.measures}


def intervals_json(found: dict[str, dict]) -> dict[str, dict[str, list[float]]]:
    """``{measure: {split: [low, high]}}``."""
    return {
        name: {split: [i.low, i.high] for split, i in splits.items()}
        for name, splits in found.items()
    }


def format_intervals(
    found: dict[str, dict],
    args: argparse.Namespace,
    method: str = "percentile bootstrap over users",
) -> str:
    """The human lines of ``--ci``.

    Examples
    --------
    >>> found = {"MAP@10": {"score": stats.Interval(0.5, 0.25, 0.75)}}
    >>> args = argparse.Namespace(level=0.95, resamples=1000, seed=0)
    >>> print(format_intervals(found, args))
    95% intervals (percentile bootstrap over users, 1,000 resamples, seed 0):
      MAP@10  overall  0.500000  [0.250000, 0.750000]
    """
    lines = [
        f"{args.level:.0%} intervals ({method}, {args.resamples:,} resamples, seed {args.seed}):"
    ]
    width = max(7, *(len(name) for name in found))
    for name, splits in found.items():
        for position, (split, i) in enumerate(splits.items()):
            label = name if position == 0 else ""
            shown = SPLIT_NAMES.get(split, split)
            lines.append(
                f"  {label:<{width}} {shown:<8} {i.value:.6f}  [{i.low:.6f}, {i.high:.6f}]"
            )
    return "\n".join(lines)


def score_submissions(
    solution: str, submissions: Sequence[str], kwargs: dict[str, Any]
) -> list[ScoreResult]:
    """Score several submissions against one solution, read once.

    Every submission is validated; if any is invalid, one
    :class:`ParticipantVisibleError` names each invalid one with its problems.
    """
    limits = kwargs.get("limits")
    table = as_string_table(solution, HostVisibleError, limits)
    import scorer

    results: list[ScoreResult] = []
    failures: list[str] = []
    for label, path in zip(submission_labels(len(submissions)), submissions, strict=True):
        try:
            results.append(scorer.evaluate(table, path, **kwargs))
        except ParticipantVisibleError as exc:
            failures.append(f"Submission {label} ({path}): {exc}")
    if failures:
        raise ParticipantVisibleError("\n\n".join(failures))
    return results


def submission_labels(count: int) -> list[str]:
    """``A``, ``B``, … for two submissions; ``1``, ``2``, … for more.

    Examples
    --------
    >>> submission_labels(2), submission_labels(3)
    (['A', 'B'], ['1', '2', '3'])
    """
    return ["A", "B"] if count == 2 else [str(i) for i in range(1, count + 1)]


def compare_parser(add_scoring_options) -> argparse.ArgumentParser:
    parser = Parser(
        prog="scorer compare",
        description=(
            "Does submission B beat submission A? Paired bootstrap interval of B - A, "
            "sign-flip randomisation p-value and per-user wins, ties and losses, for "
            "every measure named with -m/--metric (default: MAP@K)."
        ),
        epilog="Exit codes: 0 compared, 1 a submission is invalid, 2 host or usage error.",
    )
    parser.add_argument("solution", help="solution file")
    parser.add_argument("a", help="submission A (the baseline)")
    parser.add_argument("b", help="submission B (the candidate)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    add_ci_options(parser, resamples=stats.PAIRED_RESAMPLES, ci_flag=False)
    add_scoring_options(parser)
    return parser


def compare_command(args: argparse.Namespace, kwargs: dict[str, Any]) -> None:
    """Run ``scorer compare``."""
    a, b = score_submissions(args.solution, [args.a, args.b], kwargs)
    comparisons = [
        stats.compare(a, b, name, n_resamples=args.resamples, level=args.level, seed=args.seed)
        for name in a.measures
    ]
    if args.json:
        emit(json.dumps(comparison_json(comparisons, args), indent=2, allow_nan=False))
    else:
        emit(format_comparisons(comparisons, args))


def comparison_json(comparisons: list[stats.Comparison], args: argparse.Namespace) -> dict:
    """``{"metrics": {NAME: {"a", "b", "difference", "interval", "p_value", ...}}}``."""
    return {
        "metrics": {
            c.metric: {
                "a": c.a,
                "b": c.b,
                "difference": c.difference,
                "interval": [c.low, c.high],
                "p_value": c.p_value,
                "p_value_exact": c.exact,
                "wins": c.wins,
                "ties": c.ties,
                "losses": c.losses,
            }
            for c in comparisons
        },
        "submissions": {"a": args.a, "b": args.b},
        "n_resamples": args.resamples,
        "level": args.level,
        "seed": args.seed,
    }


def format_comparisons(comparisons: list[stats.Comparison], args: argparse.Namespace) -> str:
    """The readable table of ``scorer compare``."""
    header = (
        "measure",
        "A",
        "B",
        "B - A",
        f"{args.level:.0%} interval",
        "p-value",
        "B wins / ties / loses",
    )
    rows = [header]
    for c in comparisons:
        rows.append(
            (
                c.metric,
                f"{c.a:.6f}",
                f"{c.b:.6f}",
                f"{c.difference:+.6f}",
                f"[{c.low:+.6f}, {c.high:+.6f}]",
                stats.format_p_value(c.p_value) + ("" if c.exact else "*"),
                f"{c.wins:,} / {c.ties:,} / {c.losses:,}",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = [f"A: {args.a}", f"B: {args.b}"]
    for row in rows:
        lines.append(
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        )
    lines.append(
        f"Paired percentile bootstrap ({args.resamples:,} resamples, seed {args.seed}); "
        "two-sided sign-flip test (exact over every sign pattern when at most "
        f"{stats.EXACT_SIGN_FLIP_MAX_USERS} users differ; * Monte-Carlo, "
        f"{args.resamples:,} patterns, (b + 1) / (N + 1))."
    )
    return "\n".join(lines)


def report_parser(add_scoring_options) -> argparse.ArgumentParser:
    parser = Parser(
        prog="scorer report",
        description=(
            "Write one self-contained HTML report (figures embedded, no JavaScript): "
            "measures with intervals per split, hit rate by rank, the distribution of "
            "per-user values, |R| and segment breakdowns and, for several submissions, "
            "the paired comparisons and the shake-up. Needs matplotlib: "
            'pip install "rankscore[report]".'
        ),
    )
    parser.add_argument("solution", help="solution file")
    parser.add_argument("submissions", nargs="+", metavar="SUBMISSION", help="submission files")
    parser.add_argument("--out", required=True, metavar="PATH", help="the HTML file to write")
    parser.add_argument(
        "--title", default="Scoring report", help="the report's title (default: %(default)s)"
    )
    parser.add_argument(
        "--figures-dir",
        metavar="DIR",
        help="also write each figure there as a PNG file (created if missing)",
    )
    add_ci_options(parser, resamples=None, ci_flag=False)
    add_scoring_options(parser)
    return parser


def report_command(args: argparse.Namespace, kwargs: dict[str, Any]) -> None:
    """Run ``scorer report``."""
    from scorer.stats import report

    report.require_matplotlib()  # before any scoring: say how to install it
    names = unique_names(args.submissions)
    inputs = report_inputs(args.solution, args.submissions)
    refuse_overwriting_inputs(args.out, inputs, "the report", "--out")
    if args.figures_dir is not None:
        for file_name in report.figure_names(len(names)):
            path = os.path.join(args.figures_dir, file_name)
            refuse_overwriting_inputs(path, inputs, "a figure", "--figures-dir")
    results = score_submissions(args.solution, args.submissions, kwargs)
    figures: dict[str, bytes] = {}
    html = report.build_report(
        dict(zip(names, results, strict=True)),
        n_resamples=args.resamples,
        level=args.level,
        seed=args.seed,
        title=args.title,
        figures=figures,
    )
    write_output(args.out, html)
    emit(f"Report written to {args.out}")
    if args.figures_dir is not None:
        try:
            os.makedirs(args.figures_dir, exist_ok=True)
        except OSError as exc:
            raise HostVisibleError(
                f"Cannot create {args.figures_dir!r}: {exc.strerror or exc}."
            ) from exc
        for file_name, png in figures.items():
            path = os.path.join(args.figures_dir, file_name)
            write_output(path, png)
            emit(f"Figure written to {path}")


def report_inputs(solution: str, submissions: Sequence[str]) -> dict[str, str]:
    """The report's inputs by role, for :func:`refuse_overwriting_inputs`."""
    inputs = {"solution": solution}
    inputs.update({f"submission {i + 1}": path for i, path in enumerate(submissions)})
    return inputs


def unique_names(paths: Sequence[str]) -> list[str]:
    """File names without directories, numbered when two are the same; a number never
    makes a name that another file already has.

    Examples
    --------
    >>> unique_names(["a/sub.csv", "b/sub.csv", "c/other.csv"])
    ['sub.csv (1)', 'sub.csv (2)', 'other.csv']
    >>> unique_names(["x/a (1)", "y/a", "z/a"])
    ['a (1)', 'a (2)', 'a (3)']
    """
    names = [os.path.basename(path) or path for path in paths]
    counts = Counter(names)
    taken = set(names)
    out = []
    number: dict[str, int] = {}
    for name in names:
        if counts[name] == 1:
            out.append(name)
            continue
        label = name
        while label in taken:
            number[name] = number.get(name, 0) + 1
            label = f"{name} ({number[name]})"
        taken.add(label)
        out.append(label)
    return out
