"""The statistics on the command line: ``--ci``, ``scorer compare``, ``scorer report`` and
``scorer leaderboard``.

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
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from scorer import stats
from scorer.adapters.output import Parser, emit, refuse_overwriting_inputs, write_output
from scorer.errors import HostVisibleError, ParticipantVisibleError
from scorer.read.inputs import as_string_table, refuse_piped_qrels
from scorer.result import SPLIT_NAMES, ScoreResult
from scorer.stats.resampling import check_settings

if TYPE_CHECKING:
    from scorer.stats.standings import Leaderboard

# The leaderboard's modules are imported by the commands that use them: the score
# command, which imports this module for --ci, needs none of them.

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
    level = stats.format_level(args.level)
    lines = [f"{level} intervals ({method}, {args.resamples:,} resamples, seed {args.seed}):"]
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
    :class:`ParticipantVisibleError` names each invalid one with its problems. trec_eval's
    qrels are read with each run (a run is judged as it is read), from their path.
    """
    limits = kwargs.get("limits")
    trec = kwargs.get("format") == "trec"
    if trec:
        refuse_piped_qrels(solution)
    table = solution if trec else as_string_table(solution, HostVisibleError, limits)
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
            "every measure named with -m/--metric (default: MAP@K). With more than two "
            "submissions: every pair, Holm-corrected, and the tiers."
        ),
        epilog="Exit codes: 0 compared, 1 a submission is invalid, 2 host or usage error.",
    )
    parser.add_argument("solution", help="solution file")
    parser.add_argument(
        "submissions",
        nargs="+",
        metavar="SUBMISSION",
        help="two submissions, A (the baseline) and B (the candidate); or more, compared "
        "pair by pair with Holm-corrected p-values and tiers at 1 - level",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    add_ci_options(parser, resamples=stats.PAIRED_RESAMPLES, ci_flag=False)
    add_scoring_options(parser)
    return parser


def compare_command(args: argparse.Namespace, kwargs: dict[str, Any]) -> None:
    """Run ``scorer compare``."""
    if len(args.submissions) < 2:
        raise HostVisibleError("scorer compare needs at least two submissions.")
    if len(args.submissions) > 2:
        compare_many(args, kwargs)
        return
    args.a, args.b = args.submissions
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
        f"{stats.format_level(args.level)} interval",
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


def compare_many(args: argparse.Namespace, kwargs: dict[str, Any]) -> None:
    """``scorer compare`` with more than two submissions: for every measure, each
    submission's rank and tier and every pair (B - A in the order given) with its
    interval, p-value and Holm's adjustment, over the scored users."""
    from scorer.stats.leaderboard import leaderboards

    # The flags as two submissions check them, but 0 resamples: values and ranks only.
    check_settings(args.resamples, args.level, args.seed, least=0)
    labels = submission_labels(len(args.submissions))
    boards = leaderboards(
        args.solution,
        dict(zip(labels, args.submissions, strict=True)),
        resamples=args.resamples,
        seed=args.seed,
        alpha=round(1 - args.level, 12) or 1 - args.level,  # 0.05, not 0.050000000000000044
        **kwargs,
    )
    board = next(iter(boards.values()))
    failures = [
        f"Submission {s.name} ({s.source}): {s.error}" for s in board.submissions if s.error
    ]
    if failures:
        raise ParticipantVisibleError("\n\n".join(sorted(failures, key=_label_order)))
    found = {name: _compared(board, labels) for name, board in boards.items()}
    if args.json:
        data = {
            "metrics": found,
            "submissions": dict(zip(labels, args.submissions, strict=True)),
            "n_resamples": args.resamples,
            "level": args.level,
            "alpha": board.audit.alpha,
            "seed": args.seed,
        }
        emit(json.dumps(data, indent=2, allow_nan=False))
    else:
        emit(format_many(found, args, labels, board.audit.alpha))


def _label_order(text: str) -> int:
    return int(text.split()[1])


def _compared(board: Leaderboard, labels: list[str]) -> dict[str, Any]:
    """One measure's ranks, tiers and pairs on the overall split, in the order given."""
    rows = {row.entry: row for row in board.table("overall")}
    position = {label: i for i, label in enumerate(labels)}
    pairs = []
    for pair in (p for p in board.pairs if p.split == "overall"):
        a, b = sorted((pair.first, pair.second), key=position.__getitem__)
        flip = pair.first == a  # the pair is written better first; we want B - A
        pairs.append(
            {
                "a": a,
                "b": b,
                "difference": 0.0 - pair.difference if flip else pair.difference,
                "interval": [0.0 - pair.high, 0.0 - pair.low] if flip else [pair.low, pair.high],
                "p_value": pair.p_value,
                "p_value_holm": pair.adjusted,
                "p_value_exact": pair.exact,
                "significant": pair.significant,
            }
        )
    pairs.sort(key=lambda p: (position[p["a"]], position[p["b"]]))
    return {
        "submissions": [
            {
                "submission": label,
                "value": rows[label].value,
                "rank": rows[label].rank,
                "rank_interval": [rows[label].rank_low, rows[label].rank_high],
                "tier": rows[label].tier,
            }
            for label in labels
        ],
        "pairs": pairs,
        "notes": list(board.notes),
    }


def format_many(
    found: dict[str, dict[str, Any]], args: argparse.Namespace, labels: list[str], alpha: float
) -> str:
    """The readable tables of ``scorer compare`` with more than two submissions."""
    lines = [f"{label}: {path}" for label, path in zip(labels, args.submissions, strict=True)]
    level = stats.format_level(args.level)
    for name, table in found.items():
        ranks = [("submission", "value", "rank", f"{level} rank interval", "tier")]
        for s in table["submissions"]:
            low, high = s["rank_interval"]
            ranks.append(
                (
                    s["submission"],
                    f"{s['value']:.6f}",
                    str(s["rank"]),
                    "" if low is None else f"{low}-{high}",
                    "" if s["tier"] is None else str(s["tier"]),
                )
            )
        header = (
            "pair",
            "B - A",
            f"{level} interval",
            "p-value",
            "Holm",
            "",
        )
        rows = [header]
        for p in table["pairs"]:
            low, high = p["interval"]
            rows.append(
                (
                    f"{p['b']} - {p['a']}",
                    f"{p['difference']:+.6f}",
                    f"[{low:+.6f}, {high:+.6f}]",
                    stats.format_p_value(p["p_value"]) + ("" if p["p_value_exact"] else "*"),
                    stats.format_p_value(p["p_value_holm"]),
                    "significant" if p["significant"] else "",
                )
            )
        pairs = _aligned(rows) if table["pairs"] else []
        lines += ["", name, *_aligned(ranks), "", *pairs, *table["notes"]]
    lines.append(
        f"\nTiers: tier 1 holds every submission not significantly worse than the best, at "
        f"a family-wise level of {alpha:g} (Holm's step-down over every pair); then the "
        "same from the best left. Two-sided paired sign-flip tests, exact over every sign "
        f"pattern when at most {stats.EXACT_SIGN_FLIP_MAX_USERS} users differ (* "
        f"Monte-Carlo, {args.resamples:,} patterns shared by every pair, (b + 1) / (N + 1)); "
        f"intervals from one bootstrap of users shared by every submission (seed {args.seed})."
    )
    return "\n".join(lines)


def _aligned(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]


def leaderboard_parser(add_scoring_options) -> argparse.ArgumentParser:
    from scorer.stats.standings import SUFFIXES

    parser = argparse.ArgumentParser(
        prog="scorer leaderboard",
        usage="scorer leaderboard SOLUTION (SUBMISSION... | DIR | --manifest CSV) "
        "[--out FILE] [options]",
        description=(
            "Score every submission against one solution (read once) and rank them on "
            "every split: exact ties, rank intervals from one bootstrap of users shared by "
            "all, tiers from paired tests Holm-corrected at --alpha, copies (host only) and "
            "the audit (inputs' SHA-256, versions, options, seed). An invalid submission is "
            "a row with its message."
        ),
        epilog="Exit codes: 0 ranked (invalid submissions included), 2 host or usage error.",
    )
    parser.add_argument("solution", help="solution file")
    parser.add_argument(
        "submissions",
        nargs="*",
        metavar="SUBMISSION",
        help="submission files, or one directory of them (hidden files left out)",
    )
    parser.add_argument(
        "--manifest",
        metavar="CSV",
        help="the submissions as a CSV: columns submission (a path, relative to the "
        "manifest's folder), team, and optionally name",
    )
    parser.add_argument(
        "--out",
        metavar="FILE",
        help="write the leaderboard to FILE, as its suffix says: "
        f"{', '.join(SUFFIXES)} (default: Markdown on standard output)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print the JSON on standard output (without --out)"
    )
    parser.add_argument(
        "--title", default="Leaderboard", help="the HTML page's title (default: %(default)s)"
    )
    group = parser.add_argument_group("statistics")
    group.add_argument(
        "--resamples",
        type=int,
        default=1000,
        metavar="N",
        help="bootstrap resamples and swap patterns; 0: values and ranks only "
        "(default: %(default)s)",
    )
    group.add_argument(
        "--seed", type=int, default=0, metavar="S", help="random seed (default: %(default)s)"
    )
    group.add_argument(
        "--alpha",
        type=float,
        default=0.05,
        metavar="A",
        help="the tiers' family-wise error rate; intervals at 1 - A (default: %(default)s)",
    )
    add_scoring_options(parser)
    return parser


def leaderboard_command(args: argparse.Namespace, kwargs: dict[str, Any]) -> None:
    """Run ``scorer leaderboard``."""
    from scorer.stats.leaderboard import input_sha256, leaderboard
    from scorer.stats.standings import SUFFIXES

    submissions, teams = leaderboard_inputs(args)
    suffix = None
    if args.out is not None and args.json:
        raise HostVisibleError(
            "Give --json (the JSON on standard output) or --out FILE (the format its suffix "
            "names, .json for JSON), not both."
        )
    if args.out is not None:
        suffix = os.path.splitext(args.out)[1].lower()
        if suffix not in SUFFIXES:
            raise HostVisibleError(
                f"--out names the format by its suffix, one of {', '.join(SUFFIXES)}; "
                f"got {args.out!r}."
            )
        refuse_overwriting_inputs(
            args.out, _inputs(args, submissions, kwargs), "the leaderboard", "--out"
        )
    board = leaderboard(
        args.solution,
        submissions,
        teams=teams,
        resamples=args.resamples,
        seed=args.seed,
        alpha=args.alpha,
        **kwargs,
    )
    if args.manifest is not None:
        found = {**board.audit.inputs, "manifest": input_sha256(args.manifest)}
        board = replace(board, audit=replace(board.audit, inputs=found))
    if suffix is None:
        emit(board.to_json() if args.json else board.to_markdown().rstrip("\n"))
        return
    write_output(args.out, board.to_html(args.title) if suffix == ".html" else board.render(suffix))
    invalid = sum(s.error is not None for s in board.submissions)
    emit(
        f"Leaderboard written to {args.out} ({len(board.submissions):,} submissions, "
        f"{invalid:,} invalid)"
    )


def _inputs(
    args: argparse.Namespace, submissions: dict[str, str] | list[str] | str, kwargs: dict
) -> dict[str, str]:
    """Every file the leaderboard reads, by role; a folder of submissions refused as the
    output's folder (the next leaderboard of that folder would read the output)."""
    inputs = {"solution": args.solution}
    if args.manifest is not None:
        inputs["manifest"] = args.manifest
    if isinstance(kwargs.get("candidates"), str):
        inputs["candidates"] = kwargs["candidates"]
    if isinstance(submissions, dict):
        inputs.update({f"submission {n}": p for n, p in submissions.items()})
    elif isinstance(submissions, list):
        inputs.update({f"submission {p}": p for p in submissions})
    elif os.path.realpath(os.path.dirname(os.path.abspath(args.out))) == os.path.realpath(
        submissions
    ):
        raise HostVisibleError(
            f"Cannot write the leaderboard to {args.out!r}: it is in the folder of the "
            "submissions, and the next leaderboard of that folder would read it as one. "
            "Choose a path outside it for --out."
        )
    return inputs


def leaderboard_inputs(
    args: argparse.Namespace,
) -> tuple[dict[str, str] | list[str] | str, dict[str, str] | None]:
    """The submissions and teams the command line names: files, one directory, or a
    manifest (exactly one of these)."""
    if args.manifest is not None and args.submissions:
        raise HostVisibleError("Give the submissions as files or as --manifest, not both.")
    if args.manifest is not None:
        return read_manifest(args.manifest)
    if not args.submissions:
        raise HostVisibleError(
            "No submission: give submission files, one directory of them, or --manifest CSV."
        )
    if len(args.submissions) == 1 and os.path.isdir(args.submissions[0]):
        return args.submissions[0], None
    return list(args.submissions), None


def read_manifest(path: str) -> tuple[dict[str, str], dict[str, str]]:
    """The submissions (name -> path) and teams (name -> team) a manifest lists: columns
    ``submission`` (a path, relative to the manifest's folder), ``team`` and optionally
    ``name`` (by default the file name, :func:`submission_names`)."""
    from scorer.stats.leaderboard import submission_names

    if not os.path.isfile(path):
        raise HostVisibleError(
            f"The manifest {path!r} {'is not a file' if os.path.exists(path) else 'does not exist'}"
            f". Check the path and the working directory ({os.getcwd()!r})."
        )
    table = as_string_table(path, HostVisibleError)
    columns = {name: table.column(name).to_pylist() for name in table.names}
    problems = []
    missing = [name for name in ("submission", "team") if name not in columns]
    extra = sorted(set(columns) - {"submission", "team", "name"})
    if missing or extra:
        problems.append(
            f"its columns must be submission, team and optionally name; missing {missing}, "
            f"unexpected {extra}"
        )
    else:
        for name, cells in columns.items():
            empty = [i + 2 for i, cell in enumerate(cells) if not cell]
            if empty:
                problems.append(f"column {name!r} is empty on line(s) {empty[:5]}")
    if problems:
        raise HostVisibleError(f"The manifest {path!r} is not usable: " + "; ".join(problems) + ".")
    folder = os.path.dirname(os.path.abspath(path))
    paths = [os.path.join(folder, cell) for cell in columns["submission"]]
    names = columns.get("name") or submission_names(paths)
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise HostVisibleError(
            f"The manifest {path!r} names several submissions alike: {repeated[:5]!r}. "
            "Give each a different name (column name)."
        )
    return dict(zip(names, paths, strict=True)), dict(zip(names, columns["team"], strict=True))
