"""The ``scorer`` command: parse arguments, call :func:`scorer.evaluate`, print.

Two forms share every scoring option::

    scorer SOLUTION SUBMISSION [options]         score one submission
    scorer codabench INPUT_DIR OUTPUT_DIR [...]  Codabench / CodaLab scoring program
    scorer compare SOLUTION A B [C ...]          does B beat A? (paired statistics)
    scorer report SOLUTION SUBMISSION... --out   self-contained HTML report
    scorer leaderboard SOLUTION SUBMISSION...    rank many submissions (ties, intervals, tiers)
    scorer recipes [NAME] [--json]               the competitions' recipes (--recipe NAME)

Exit codes: 0 scored, 1 invalid submission (the participant-visible message on
stderr), 2 host or usage error, 3 internal error (a short message; the traceback
with ``--debug``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import re
import sys
import traceback
from collections.abc import Callable, Sequence
from dataclasses import fields
from typing import Any

import pyarrow as pa

import scorer
from scorer.adapters.commands import add_ci_options, format_intervals, intervals, intervals_json
from scorer.adapters.output import (
    Parser,
    emit,
    refuse_overwriting_inputs,
    warning_lines,
    write_output,
)
from scorer.adapters.process import prefer_jemalloc
from scorer.constraints import Choices, Interval, Weights
from scorer.errors import HostVisibleError, ParticipantVisibleError, Problem, withheld
from scorer.measures.registry import describe
from scorer.options import OPTIONS, Option, plain_text
from scorer.read.files import DEFAULT_LIMITS, ReadLimits
from scorer.read.limits import DEFAULT_PART_MEMORY
from scorer.result import ScoreResult
from scorer.stats import INTERVAL_RESAMPLES

EXIT_SCORED = 0
EXIT_INVALID_SUBMISSION = 1
EXIT_HOST_ERROR = 2
EXIT_INTERNAL_ERROR = 3

_UNITS = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9, "kib": 2**10, "mib": 2**20, "gib": 2**30}
_UNITS.update({"kb": 10**3, "mb": 10**6, "gb": 10**9})


def parse_size(text: str) -> int:
    """Parse a byte count such as ``1000``, ``512KiB``, ``1GiB`` or ``2GB``.

    Examples
    --------
    >>> parse_size("1GiB"), parse_size("512 KiB"), parse_size("2MB"), parse_size("100")
    (1073741824, 524288, 2000000, 100)
    """
    match = re.fullmatch(r"\s*([0-9]+)\s*([a-zA-Z]*)\s*", text)
    unit = match and _UNITS.get(match.group(2).lower())
    if not match or unit is None:
        raise argparse.ArgumentTypeError(
            f"invalid size {text!r}: use a whole number of bytes, optionally with a unit "
            "(KiB, MiB, GiB, KB, MB, GB), e.g. 2GiB"
        )
    return int(match.group(1)) * unit


def format_size(size: int) -> str:
    """Write a byte count with the largest binary unit that divides it.

    Examples
    --------
    >>> format_size(2**30), format_size(2**19), format_size(1000)
    ('1GiB', '512KiB', '1000')
    """
    for unit, factor in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size % factor == 0:
            return f"{size // factor}{unit}"
    return str(size)


def add_scoring_options(parser: argparse.ArgumentParser) -> None:
    """Add every option of :func:`scorer.evaluate` and the read limits to ``parser``: one
    flag per declaration in :data:`scorer.options.OPTIONS`, under the option's name."""
    group = parser.add_argument_group("scoring options (as in the Python API)")
    for option in OPTIONS:
        if option.flags:
            group.add_argument(*option.flags, **_argparse_settings(option))
    add_read_limits(parser)


def add_read_limits(parser: argparse.ArgumentParser) -> None:
    """Add the read limits' flags (:class:`~scorer.read.files.ReadLimits`) and ``--debug``."""
    limits = parser.add_argument_group("input limits (sizes accept KiB, MiB, GiB)")
    meanings = {
        "max_input_bytes": "largest input file, as stored",
        "max_decompressed_bytes": "largest CSV text once decompressed",
        "max_line_bytes": "longest CSV line",
        "max_field_bytes": "longest cell",
        "max_columns": "most columns",
        "max_compression_ratio": "largest expansion of gzip or zip data",
    }
    for item in fields(ReadLimits):
        default = getattr(DEFAULT_LIMITS, item.name)
        is_size = item.name.endswith("_bytes")
        limits.add_argument(
            "--" + item.name.replace("_", "-"),
            type=parse_size if is_size else int,
            default=default,
            metavar="BYTES" if is_size else "N",
            help=f"{meanings[item.name]} (default: {format_size(default) if is_size else default})",
        )
    parser.add_argument(
        "--debug", action="store_true", help="show the traceback of an internal error"
    )


def _argparse_settings(option: Option) -> dict[str, Any]:
    """``add_argument``'s keywords for one declared option."""
    settings: dict[str, Any] = {"dest": option.name, "default": option.default}
    constraint = option.constraint
    if isinstance(constraint, Choices):
        settings["choices"] = constraint.values
    elif isinstance(constraint, Interval):
        settings["type"] = int
    elif isinstance(constraint, Weights):
        settings["type"] = parse_weight
    if option.repeatable:
        settings["action"] = "append"
    if option.metavar is not None:
        settings["metavar"] = option.metavar
    help_text = option.help()
    if option.name == "metrics":  # the measures' own lines, from their registry
        help_text += ": " + plain_text("; ".join(describe().splitlines()))
    settings["help"] = help_text.replace("%", "%%")
    return settings


def parse_weight(text: str) -> tuple[str, float]:
    """One ``--type-weight TYPE=W``: the type (split at the last ``=``) and a finite
    weight ≥ 0; anything else is a usage error (exit 2).

    Examples
    --------
    >>> parse_weight("clicks=0.1"), parse_weight("a=b=1")
    (('clicks', 0.1), ('a=b', 1.0))
    >>> parse_weight("clicks")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected TYPE=W with a finite weight W ≥ 0, e.g. clicks=0.1; \
got 'clicks'
    """
    kind, _, weight = text.rpartition("=")
    try:
        value = float(weight)
    except ValueError:
        value = float("nan")
    if not kind or not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(
            f"expected TYPE=W with a finite weight W ≥ 0, e.g. clicks=0.1; got {text!r}"
        )
    return kind, value


#: What a flag not given holds while parsing (argparse sets a default only where the
#: namespace has no value), so that a flag given with its default value counts as given.
_NOT_GIVEN = object()


def parse_scoring_args(parser: argparse.ArgumentParser, arguments: list[str]) -> argparse.Namespace:
    """``parser.parse_intermixed_args(arguments)``, noting in ``given_options`` the
    scoring options given on the command line: with ``--recipe`` only those are passed
    on, and win over the recipe's even when equal to the default
    (``--empty-ground-truth skip``)."""
    flagged = [option for option in OPTIONS if option.flags]
    # A repeatable flag appends to what the namespace holds: it starts from its default,
    # None, which no flag can give.
    unset = {option.name: _NOT_GIVEN for option in flagged if not option.repeatable}
    # Options may come between the positional arguments, as with `scorer SOLUTION -k 5
    # SUBMISSION`: also where a positional takes several values (`scorer leaderboard`).
    args = parser.parse_intermixed_args(arguments, argparse.Namespace(**unset))
    args.given_options = set()
    for option in flagged:
        value = getattr(args, option.name)
        if value is _NOT_GIVEN:
            setattr(args, option.name, option.default)
        elif not (option.repeatable and value is None):
            args.given_options.add(option.name)
    return args


def evaluate_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of :func:`scorer.evaluate` given on the command line (with
    :func:`parse_scoring_args`: only the options given, which is the same without a recipe)."""
    limits = read_limits(args)
    given = {option.name: getattr(args, option.name) for option in OPTIONS if option.flags}
    if getattr(args, "given_options", None) is not None:
        given = {name: value for name, value in given.items() if name in args.given_options}
    if given.get("type_weights") is not None:
        given["type_weights"] = _weights(given["type_weights"])
    return {**given, "limits": limits}


def read_limits(args: argparse.Namespace) -> ReadLimits:
    """The read limits the flags of :func:`add_read_limits` give."""
    return ReadLimits(**{item.name: getattr(args, item.name) for item in fields(ReadLimits)})


def _weights(pairs: list[tuple[str, float]]) -> dict[str, float]:
    """The ``--type-weight`` flags as a mapping; a type given twice is a usage error."""
    weights = dict(pairs)
    if len(weights) < len(pairs):
        repeated = sorted({kind for kind, _ in pairs if [k for k, _ in pairs].count(kind) > 1})
        shown = ", ".join(map(repr, repeated))
        raise HostVisibleError(
            f"--type-weight gives a weight twice to {shown}; give each type once."
        )
    return weights


def format_result(result: ScoreResult) -> str:
    """The human-readable summary the command prints.

    Examples
    --------
    >>> import pandas as pd
    >>> solution = pd.DataFrame({"id": ["u1", "u2"], "items": ["a", ""]})
    >>> print(format_result(scorer.evaluate(solution, solution, k=3)))
    MAP@3: 1.0
    Users: 1 scored, 1 skipped (no relevant item), 0 ignored; 2 in the solution
    Warnings (2):
      - [submission] 1 row has fewer than 3 predictions; an unused slot can never earn credit. ...
      - [submission] 1 row has no prediction and score 0. Examples: 'u2'
    """
    lines = []
    splits = (("Public", result.public_metrics), ("Private", result.private_metrics))
    for name, value in result.metrics.items():
        lines.append(f"{name}: {value!r}")
        for split, values in splits:
            if values is not None:
                lines.append(f"  {split + ':':<8} {values[name]!r}")
    lines += _by_type_lines(result)
    skipped = "left out" if result.options.format == "trec" else "no relevant item"
    lines.append(
        f"Users: {result.n_scored:,} scored, {result.n_skipped:,} skipped ({skipped}), "
        f"{result.n_ignored:,} ignored; {result.n_users:,} in the solution"
    )
    lines += warning_lines(result.warnings)
    return "\n".join(lines)


def _by_type_lines(result: ScoreResult) -> list[str]:
    """With target types: each type's weight and values (and per split)."""
    if result.by_type is None:
        return []
    weights = result.weights or {}
    lines = ["By target type (the values above are Σ weight · value):"]
    splits = (("Public", result.public_by_type), ("Private", result.private_by_type))
    for kind, values in result.by_type.items():
        lines.append(f"  {kind} (weight {weights.get(kind)!r}):")
        for name, value in values.items():
            lines.append(f"    {name}: {value!r}")
            for split, table in splits:
                if table is not None:
                    lines.append(f"      {split + ':':<8} {table[kind][name]!r}")
    return lines


#: The commands, as ``scorer --help`` lists them before its options.
COMMANDS = (
    ("scorer SOLUTION SUBMISSION [options]", "score one submission (the options below)"),
    ("scorer compare SOLUTION A B [C ...] [options]", "does B beat A? (paired statistics)"),
    ("scorer report SOLUTION SUBMISSION... --out PATH", "self-contained HTML report"),
    ("scorer leaderboard SOLUTION SUBMISSION... [--out FILE]", "rank many: ties, intervals, tiers"),
    ("scorer codabench INPUT_DIR OUTPUT_DIR [options]", "Codabench / CodaLab scoring program"),
    ("scorer recipes [NAME] [--json]", "the real competitions' recipes (--recipe NAME)"),
    ("scorer trec-eval [options] QRELS RUN", "trec_eval's command line and output, faster"),
)


def _score_parser() -> argparse.ArgumentParser:
    width = max(len(usage) for usage, _ in COMMANDS)
    commands = "\n".join(f"  {usage:<{width}}  {what}" for usage, what in COMMANDS)
    parser = Parser(
        prog="scorer",
        usage="scorer SOLUTION SUBMISSION [options]\n       scorer "
        "{compare,report,leaderboard,codabench,recipes,trec-eval} ... (scorer COMMAND --help)",
        description=(
            "Validate a submission and compute MAP@K (or other measures, --metric).\n\n"
            f"commands (each has its own --help):\n{commands}\n\n"
            "Exit codes: 0 scored, 1 invalid submission, 2 host or usage error, 3 internal "
            "error."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("solution", help="solution file (.csv, .csv.gz, .zip or .parquet)")
    parser.add_argument("submission", help="submission file (.csv, .csv.gz, .zip or .parquet)")
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object (ScoreResult.to_dict())"
    )
    parser.add_argument(
        "--per-user",
        metavar="PATH",
        help="also write each row id's value of every measure (AP by default), hits, |R| "
        "and whether it was scored, as CSV",
    )
    parser.add_argument("--version", action="version", version=f"scorer {scorer.__version__}")
    parts = parser.add_argument_group(
        "Parquet parts (SOLUTION and SUBMISSION as directories of .parquet files)"
    )
    parts.add_argument(
        "--parts",
        type=int,
        metavar="N",
        help="score the inputs in N passes, each holding one part of the row ids (default "
        "with directories: from the inputs' sizes and --part-memory)",
    )
    parts.add_argument(
        "--part-memory",
        type=parse_size,
        default=DEFAULT_PART_MEMORY,
        metavar="SIZE",
        help="the memory one part may take when N is chosen (default: %(default)s bytes)",
    )
    add_ci_options(parser, resamples=INTERVAL_RESAMPLES, ci_flag=True)
    add_scoring_options(parser)
    return parser


def _codabench_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="scorer codabench",
        description=(
            "Codabench / CodaLab scoring program: read the solution from INPUT_DIR/ref/ and "
            "the submission from INPUT_DIR/res/, write OUTPUT_DIR/scores.json."
        ),
    )
    parser.add_argument("input_dir", help="directory holding ref/ and res/")
    parser.add_argument("output_dir", help="directory for scores.json (created if missing)")
    parser.add_argument(
        "--public-only",
        action="store_true",
        help="write only the _public keys, e.g. map_at_K_public (for a phase whose logs "
        "participants can read)",
    )
    add_scoring_options(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return its exit code."""
    prefer_jemalloc()
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == ["codabench"]:
        args = parse_scoring_args(_codabench_parser(), arguments[1:])
        return _run(args, _codabench)
    if arguments[:1] in (["compare"], ["report"], ["leaderboard"]):
        return _run_statistics_command(arguments[0], arguments[1:])
    if arguments[:1] in (["trec-eval"], ["trec_eval"]):  # the program's own name too
        from scorer.adapters.trec_eval import trec_eval_command, trec_eval_parser

        args = trec_eval_parser(add_read_limits).parse_args(arguments[1:])
        return _run(args, lambda parsed: trec_eval_command(parsed, read_limits(parsed)))
    if arguments[:1] == ["recipes"]:
        from scorer.adapters.recipes import recipes_command, recipes_parser

        return _run(recipes_parser().parse_args(arguments[1:]), recipes_command)
    args = parse_scoring_args(_score_parser(), arguments)
    return _run(args, _score)


def _score(args: argparse.Namespace) -> None:
    if _in_parts(args):
        _score_parts(args)
        return
    if args.per_user is not None:
        refuse_overwriting_inputs(
            args.per_user, {"solution": args.solution, "submission": args.submission}
        )
    result = scorer.evaluate(
        args.solution, args.submission, per_user=args.per_user is not None, **evaluate_kwargs(args)
    )
    if args.per_user is not None and result.per_user is not None:
        write_output(args.per_user, result.per_user.to_csv(lineterminator="\n"))
    found = intervals(result, args)
    if args.json:
        data = result.to_dict()
        if found is not None:
            data["intervals"] = intervals_json(found)
        emit(json.dumps(data, indent=2, allow_nan=False))
    else:
        emit(format_result(result))
        if found is not None:
            emit(format_intervals(found, args))


def _score_parts(args: argparse.Namespace) -> None:
    """Directories of Parquet parts, scored part by part (docs/beyond-one-machine.md, "Beyond one
    machine"); ``--ci`` gives the Poisson bootstrap's intervals."""
    if args.per_user is not None:
        raise HostVisibleError("--per-user is not available when the inputs are scored in parts.")
    if args.parts is not None and args.parts < 1:
        raise HostVisibleError(f"--parts must be at least 1. Got {args.parts} instead.")
    from scorer.adapters.parts import evaluate_parts  # only here: a file scored whole needs none

    result = evaluate_parts(
        args.solution,
        args.submission,
        args.parts,
        part_memory=args.part_memory,
        resamples=args.resamples if args.ci else 0,
        seed=args.seed,
        level=args.level,
        **evaluate_kwargs(args),
    )
    found = result.intervals if args.ci else None
    if args.json:
        data = result.to_dict()
        if found is not None:
            data["intervals"] = intervals_json(found)
        emit(json.dumps(data, indent=2, allow_nan=False))
    else:
        emit(format_result(result))
        if found is not None:
            emit(format_intervals(found, args, "Poisson bootstrap over row ids"))


def _run_statistics_command(name: str, arguments: list[str]) -> int:
    from scorer.adapters import commands

    if name == "compare":
        parser, command = commands.compare_parser, commands.compare_command
    elif name == "leaderboard":
        parser, command = commands.leaderboard_parser, commands.leaderboard_command
    else:
        parser, command = commands.report_parser, commands.report_command
    args = parse_scoring_args(parser(add_scoring_options), arguments)
    return _run(args, lambda parsed: command(parsed, evaluate_kwargs(parsed)))


def _in_parts(args: argparse.Namespace) -> bool:
    """Whether the command scores its inputs part by part (``--parts`` or a directory)."""
    if getattr(args, "solution", None) is None or getattr(args, "submission", None) is None:
        return False
    given = getattr(args, "parts", None) is not None
    return given or os.path.isdir(args.solution) or os.path.isdir(args.submission)


def _codabench(args: argparse.Namespace) -> None:
    from scorer.adapters.codabench import score_directories

    values, result = score_directories(
        args.input_dir, args.output_dir, args.public_only, **evaluate_kwargs(args)
    )
    # The platform may show this log to the participant: written scores and
    # submission warnings only.
    lines = [f"{key}: {value!r}" for key, value in values.items()]
    lines += [f"warning: {w}" for w in result.warnings if w.audience == "participant"]
    emit("\n".join(lines))


def _run(args: argparse.Namespace, command: Callable[[argparse.Namespace], None]) -> int:
    try:
        command(args)
    except ParticipantVisibleError as exc:
        print(exc, file=sys.stderr)
        _emit_error_json(args, "submission", str(exc), exc.problems)
        return EXIT_INVALID_SUBMISSION
    except HostVisibleError as exc:
        message = _host_details(exc, args)
        print(f"scorer: host error: {message}", file=sys.stderr)
        _emit_error_json(args, "host", message, () if _log_is_public(args) else exc.problems)
        return EXIT_HOST_ERROR
    except (MemoryError, pa.ArrowException) as exc:  # the machine, not an input, fell short
        if not isinstance(exc, MemoryError) and _THREAD_FAILED not in str(exc):
            return _internal_error(args, exc)
        fix = "give the scorer more memory or lower --max-decompressed-bytes"
        if _in_parts(args):  # a part's share is an estimate of resident memory
            fix = "give the scorer more memory or score in more parts (--parts N)"
        message = (
            f"out of memory ({exc}). Inputs within the limits need up to "
            "256 MiB plus 4 times their decoded size (docs/formats-and-limits.md, 'Resource "
            f"contract'): {fix}."
        )
        print(f"scorer: host error: {message}", file=sys.stderr)
        _emit_error_json(args, "host", message, ())
        return EXIT_HOST_ERROR
    except Exception as exc:
        return _internal_error(args, exc)
    return EXIT_SCORED


#: How Arrow words a thread its pool could not start (no address space left for its stack).
_THREAD_FAILED = "Failed to launch worker thread"


def _internal_error(args: argparse.Namespace, exc: Exception) -> int:
    """Report our own bug: exit 3, the traceback with ``--debug``."""
    if args.debug:
        traceback.print_exception(exc)
    details = "" if _log_is_public(args) and not args.debug else f": {exc}"
    message = f"{type(exc).__name__}{details}"
    print(
        f"scorer: internal error: {message}"
        + ("" if args.debug else " (run again with --debug for the traceback)"),
        file=sys.stderr,
    )
    _emit_error_json(args, "internal", message, ())
    return EXIT_INTERNAL_ERROR


def error_json(kind: str, message: str, problems: Sequence[Problem]) -> str:
    """The JSON object ``--json`` prints on stdout when a run fails.

    ``kind`` is ``"submission"`` (exit 1), ``"host"`` (exit 2) or ``"internal"``
    (exit 3); ``message`` is the text printed on stderr; ``problems`` lists each
    problem as a record.

    Examples
    --------
    >>> problem = Problem("Duplicated row ids", "each row id once", "1 row id twice",
    ...                   "remove the extra rows", ("c01",))
    >>> print(error_json("submission", "The submission is invalid ...", [problem]))
    {"error": {"kind": "submission", "message": "The submission is invalid ...", \
"problems": [{"title": "Duplicated row ids", "expected": "each row id once", \
"found": "1 row id twice", "examples": ["c01"], "example_label": "row ids", \
"fix": "remove the extra rows"}]}}
    """
    records = [
        {
            "title": problem.title,
            "expected": problem.expected,
            "found": problem.found,
            "examples": list(problem.examples),
            "example_label": problem.example_label,
            "fix": problem.fix,
        }
        for problem in problems
    ]
    return json.dumps({"error": {"kind": kind, "message": message, "problems": records}})


def _emit_error_json(
    args: argparse.Namespace, kind: str, message: str, problems: Sequence[Problem]
) -> None:
    """With ``--json``, the error as one JSON object on stdout (the exit code is unchanged)."""
    if getattr(args, "json", False):
        with contextlib.suppress(HostVisibleError):  # standard output itself failed
            emit(error_json(kind, message, problems))


def _log_is_public(args: argparse.Namespace) -> bool:
    """Whether participants may read this run's log (``codabench --public-only``)."""
    return bool(getattr(args, "public_only", False))


def _host_details(error: HostVisibleError, args: argparse.Namespace) -> str:
    """A host error as the log may show it: in full, or without what it quotes of the
    solution when participants may read the log (:func:`~scorer.errors.withheld`)."""
    if not _log_is_public(args):
        return str(error)
    return withheld(error, "participants may read this log (--public-only)")
