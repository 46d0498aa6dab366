"""``scorer trec-eval``: trec_eval 10's command line and its output, line for line.

::

    scorer trec-eval [-q] [-m MEASURE]... [-c] [-J] [-l N] [-M N] [-n] QRELS RUN

The options are trec_eval's: ``-m`` (repeatable, with trec_eval's parameter syntax:
``-m P.5,10``, ``-m ndcg_cut.10``, ``-m official``, ``-m all_trec``), ``-q`` (each query
too), ``-c`` (a query the run lacks counts 0), ``-J`` (judged documents only), ``-l N``
(relevance level), ``-M N`` (documents counted per query) and ``-n`` (no summary). So is
the output: one line per measure and query, ``measure<TAB>qid<TAB>value``, the name
padded to 22 characters, values as ``%6.4f`` and counts as integers, measures in
trec_eval's order (:func:`scorer.measures.trec_eval_measures`), each query's lines in qid
byte order, then the summary (``all``), ``runid`` among it when asked. A mean's summary
is trec_eval's: the sum of the queries' values in that order, divided by the number of
queries; a count's is its sum, a geometric mean's the correctly rounded one.
``--precision full`` prints every value with all its digits (the summary of a mean is
then the correctly rounded mean); ``--json`` prints the same as one JSON object. Scoring
goes through :func:`scorer.evaluate` with ``format="trec"``; what differs from trec_eval
is listed in docs/trec-eval.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

import scorer
from scorer.adapters.output import emit, warning_lines
from scorer.errors import HostVisibleError
from scorer.measures import Measure, trec_eval_measures
from scorer.measures.names import TREC_MEASURES, TREC_NICKNAMES, TREC_PRINTED_ONLY
from scorer.read.files import ReadLimits
from scorer.result import ScoreResult

#: The run's tag, which trec_eval prints among the summary when asked (by name or by a
#: set of measures: every one of trec_eval's sets names it).
RUNID = "runid"
_WITH_RUNID = (RUNID, "official", "all_trec", "set")
#: trec_eval prints these in the summary only (no line per query).
SUMMARY_ONLY = ("num_q", "gm_map", "gm_bpref")


def trec_eval_parser(
    add_read_limits: Callable[[argparse.ArgumentParser], None],
) -> argparse.ArgumentParser:
    """The command's arguments: trec_eval's options (short and long spellings), the two
    files, the output's form and the read limits (the command line's flags for them,
    which ``add_read_limits`` adds)."""
    parser = argparse.ArgumentParser(
        prog="scorer trec-eval",
        description="trec_eval 10's command line and output, line for line (docs/trec-eval.md). "
        "Exit codes: 0 scored, 1 invalid run, 2 invalid qrels or usage, 3 internal error.",
    )
    parser.add_argument("qrels", help="trec_eval qrels file: qid iter docno rel")
    parser.add_argument(
        "run", help="trec_eval run file: qid Q0 docno rank score tag ('-': standard input)"
    )
    flags = (
        ("-q", "--query_eval_wanted", "also give each query's values"),
        ("-c", "--complete_rel_info_wanted", "average over every query of the qrels, "
         "a query missing from the run counting 0 (default: leave it out)"),
        ("-J", "--Judged_docs_only", "drop the documents the qrels do not judge first"),
        ("-n", "--nosummary", "no summary (the 'all' lines)"),
    )  # fmt: skip
    for short, long, help_text in flags:
        parser.add_argument(short, long, action="store_true", help=help_text)
    parser.add_argument(
        "-m",
        "--measure",
        action="append",
        metavar="MEASURE",
        help="a measure, repeatable, with trec_eval's parameters (-m P.5,10) or a set "
        "(official, all_trec, set); default: official",
    )
    parser.add_argument(
        "-l", "--level_for_rel", type=int, default=1, metavar="N", help="smallest relevant rel"
    )
    parser.add_argument(
        "-M",
        "--Max_retrieved_per_topic",
        type=int,
        metavar="N",
        help="only each query's first N documents count (default: all)",
    )
    for short, long, metavar, help_text in _NOT_TAKEN:
        parser.add_argument(short, long, metavar=metavar, help=help_text)
    parser.add_argument(
        "-o", "--Output_old_results_format", action="store_true", help="refused (exit 2)"
    )
    parser.add_argument(
        "-v", "--version", action=_Version, nargs=0, help="print the version and exit"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--precision",
        choices=("4", "full"),
        default="4",
        help="4 decimals as trec_eval (default), or every digit (the summary the correctly "
        "rounded mean)",
    )
    add_read_limits(parser)
    return parser


class _Version(argparse.Action):
    """``-v``: the version on standard error, then exit 0, as trec_eval does."""

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        version = f"scorer trec-eval {scorer.__version__} (trec_eval 10's command line)"
        print(version, file=sys.stderr)
        parser.exit()


#: trec_eval's options whose values change nothing the scorer prints, or that it refuses
#: unless given trec_eval's default (:data:`_DEFAULT_FORMATS`).
_NOT_TAKEN = (
    ("-D", "--Debug_level", "N", "accepted, ignored (trec_eval's debugging output)"),
    ("-N", "--Number_docs_in_coll", "N", "accepted, ignored (docs/trec-eval.md)"),
    ("-R", "--Rel_info_format", "FORMAT", "qrels only, trec_eval's default"),
    ("-T", "--Results_format", "FORMAT", "trec_results only, trec_eval's default"),
    ("-Z", "--Zscore", "FILE", "refused (exit 2): no z-scores"),
)
#: The one value each format option takes (its flag, its field): trec_eval's default.
_DEFAULT_FORMATS = {("-R", "Rel_info_format"): "qrels", ("-T", "Results_format"): "trec_results"}


def refuse_untaken(args: argparse.Namespace) -> None:
    """Refuse the trec_eval options whose output the scorer does not make: another
    format of the qrels or of the run, z-scores, the old output format.

    Examples
    --------
    >>> refuse_untaken(argparse.Namespace(Rel_info_format="qrels", Results_format=None,
    ...                                   Zscore=None, Output_old_results_format=False))
    >>> refuse_untaken(argparse.Namespace(Rel_info_format="prefs", Results_format=None,
    ...                                   Zscore=None, Output_old_results_format=False))
    Traceback (most recent call last):
    ...
    scorer.errors.HostVisibleError: -R prefs: scorer trec-eval reads trec_eval's qrels \
format only (-R qrels, the default). Convert the file, or leave -R out.
    """
    for (short, field), default in _DEFAULT_FORMATS.items():
        given = getattr(args, field)
        if given not in (None, default):
            raise HostVisibleError(
                f"{short} {given}: scorer trec-eval reads trec_eval's {default} format only "
                f"({short} {default}, the default). Convert the file, or leave {short} out."
            )
    if args.Zscore is not None:
        raise HostVisibleError(
            f"-Z {args.Zscore}: scorer trec-eval prints no z-scores. Leave -Z out and "
            "standardise the values printed."
        )
    if args.Output_old_results_format:
        raise HostVisibleError(
            "-o: scorer trec-eval prints trec_eval's current output format only. Leave -o out."
        )


def requested(arguments: list[str] | None) -> tuple[list[tuple[str, Measure]], bool]:
    """The measures the ``-m`` arguments ask for, as trec_eval reads them (``official``
    without any), and whether ``runid`` is among them. trec_eval's ``relstring`` (the
    first ranks' judgements as text) is not printed.

    Examples
    --------
    >>> measures, runid = requested(["P.10,5", "map", "P.20", "runid"])
    >>> [name for name, _ in measures], runid
    (['map', 'P_5', 'P_10'], True)
    """
    arguments = arguments or ["official"]
    names = [argument.strip().partition(".")[0] for argument in arguments]
    known = [m.name for m in TREC_MEASURES] + list(TREC_PRINTED_ONLY)
    for argument, name in zip(arguments, names, strict=True):
        if name.lower() not in {n.lower() for n in [*known, *TREC_NICKNAMES]}:
            raise HostVisibleError(
                f"trec_eval has no measure {name!r} (-m {argument}). Its measures: "
                f"{', '.join(known)}; its sets: {', '.join(TREC_NICKNAMES)}."
            )
    if "relstring" in (name.lower() for name in names):
        raise HostVisibleError(
            "trec_eval's relstring (the first ranks' judgements as text) is not printed by "
            "scorer trec-eval: leave it out of -m."
        )
    return trec_eval_measures(arguments), any(name.lower() in _WITH_RUNID for name in names)


def trec_eval_command(args: argparse.Namespace, limits: ReadLimits) -> None:
    """Score the run and print trec_eval's lines (or JSON); its warnings on standard
    error."""
    refuse_untaken(args)
    measures, runid = requested(args.measure)
    most = args.Max_retrieved_per_topic
    if most is not None and most > MAX_RANKED:
        most = None  # more documents than any query can have: every one counts
    if args.qrels == "-":
        raise HostVisibleError(
            "The qrels '-': trec_eval reads standard input for the run only (scorer "
            "trec-eval QRELS -). Give the qrels' path."
        )
    for flag, value, meaning in [
        ("-l", args.level_for_rel, "the smallest rel that is relevant"),
        ("-M", 1 if most is None else most, "the documents counted per query"),
    ]:
        if value < 1:
            raise HostVisibleError(f"{flag} must be at least 1 ({meaning}). Got {value}.")
    result = scorer.evaluate(
        args.qrels,
        run_path(args.run),
        format="trec",
        metrics=[measure for _, measure in measures] or None,  # runid alone: any measure
        k=most,
        missing_rows="empty" if args.complete_rel_info_wanted else "skip",
        unjudged="drop" if args.Judged_docs_only else "keep",
        relevance_threshold=args.level_for_rel,
        limits=limits,
    )
    for line in warning_lines(result.warnings):
        print(line, file=sys.stderr)
    table = TrecTable.of(result, measures, runid)
    if args.json:
        data = table.as_json(args.query_eval_wanted, not args.nosummary)
        emit(json.dumps(data, indent=2, allow_nan=False))
    else:
        full = args.precision == "full"
        for block in table.blocks(args.query_eval_wanted, not args.nosummary, full):
            emit(block)


#: Where a process reads its standard input as a file (trec_eval's run ``-``).
STDIN = "/dev/stdin"


def run_path(path: str) -> str:
    """The run's path: ``-`` is standard input, as for trec_eval (read as a pipe,
    within the read limits), where the system names it :data:`STDIN`."""
    if path != "-":
        return path
    if not os.path.exists(STDIN):
        raise HostVisibleError(
            f"The run '-' (standard input) needs {STDIN}, which this system lacks: "
            "give the run's path."
        )
    return STDIN


#: A -M past this is every document: no query can hold more (int64 counts).
MAX_RANKED = 2**62
#: Lines (one query's value of one measure each) made and printed at a time, at least
#: one query's.
LINES_PER_BLOCK = 1 << 16


@dataclass(frozen=True)
class TrecTable:
    """The values trec_eval prints: per scored query (qid byte order) and overall.

    Attributes
    ----------
    names : list of str
        trec_eval's printed names, in its order.
    counts : ndarray of bool
        Whether each measure is a count (printed as an integer, summed overall).
    qids : ndarray of object
        The scored queries.
    values : ndarray of float64, shape (len(qids), len(names))
        Each scored query's value of each measure.
    summary : ndarray of float64
        trec_eval's summary of each measure: a mean's as trec_eval computes it (the
        queries' values summed in qid order, over their number), a count's sum, a
        geometric mean's correctly rounded value.
    means : ndarray of float64
        Each measure's run value as :func:`scorer.evaluate` gives it (a mean's
        correctly rounded).
    run_id : str or None
        The run's tag, when asked for.
    """

    names: list[str]
    counts: np.ndarray
    qids: np.ndarray
    values: np.ndarray
    summary: np.ndarray
    means: np.ndarray
    run_id: str | None

    @classmethod
    def of(cls, result: ScoreResult, measures: list[tuple[str, Measure]], runid: bool) -> TrecTable:
        scored = np.asarray(result.user_scored)
        names = [name for name, _ in measures]
        columns = [np.asarray(result.user_values[str(m)], dtype=np.float64) for _, m in measures]
        values = np.stack(columns, axis=1)[scored] if columns else np.zeros((scored.sum(), 0))
        counts = np.array([m.family.summed for _, m in measures], dtype=bool)
        means = np.array([result.metrics[str(m)] for _, m in measures], dtype=np.float64)
        # trec_eval adds the queries' values one after the other, in qid order.
        totals = np.cumsum(values, axis=0)[-1] if len(values) else np.zeros(len(names))
        arithmetic = np.array([m.is_a_mean for _, m in measures], dtype=bool)
        summary = np.where(arithmetic, totals / max(len(values), 1), means)
        qids = np.array(result.row_ids.to_pylist(), dtype=object)[scored]  # type: ignore[union-attr]
        run_id = (result.run_id or "") if runid else None
        return cls(names, counts, qids, values, summary, means, run_id)

    def text(self, per_query: bool, summary: bool, full: bool) -> str:
        """trec_eval's lines: each query's (with ``per_query``), then the summary."""
        return "\n".join(self.blocks(per_query, summary, full))

    def blocks(self, per_query: bool, summary: bool, full: bool) -> Iterator[str]:
        """:meth:`text` a block of queries at a time (each block its lines, without the
        last line end), so that the lines of every query are never all held: trec_eval
        prints as it goes. Nothing at all when there is no line to print."""
        shown = [name not in SUMMARY_ONLY for name in self.names]
        if per_query and any(shown) and len(self.qids):
            names = [name for name, keep in zip(self.names, shown, strict=True) if keep]
            labels = pa.array([f"{name:<22}" for name in names], pa.large_string())
            step = max(1, LINES_PER_BLOCK // len(names))
            for start in range(0, len(self.qids), step):
                block = slice(start, start + step)
                cells = self._formatted(self.values[block][:, shown], full, self.counts[shown])
                # Joined by Arrow, each line as long as its own qid (numpy's fixed-width
                # strings would pad every line to the block's longest qid).
                # (From Python lists: pyarrow 14 makes no large strings of numpy's.)
                qids = pa.array(self.qids[block].tolist(), pa.large_string())
                lines = pc.binary_join_element_wise(
                    labels.take(pa.array(np.tile(np.arange(len(names)), len(cells)))),
                    qids.take(pa.array(np.repeat(np.arange(len(cells)), len(names)))),
                    pa.array(cells.ravel().tolist(), pa.large_string()),
                    pa.scalar("\t", pa.large_string()),
                )
                yield "\n".join(lines.to_pylist())
        if summary:
            lines = [] if self.run_id is None else [f"{RUNID:<22}\tall\t{self.run_id}"]
            overall = self._formatted(self.means if full else self.summary, full, self.counts)
            lines += [
                f"{name:<22}\tall\t{value}"
                for name, value in zip(self.names, overall.tolist(), strict=True)
            ]
            if lines:
                yield "\n".join(lines)

    def as_json(self, per_query: bool, summary: bool = True) -> dict:
        """As :meth:`text` prints: with ``summary``, the run id (when asked) and each
        measure's run value (a mean correctly rounded); with ``per_query``, each query's
        values. A count is an integer.

        Examples
        --------
        >>> table = TrecTable(["num_ret", "P_5"], np.array([True, False]), np.array(["q1"]),
        ...     np.array([[5.0, 0.4]]), np.array([5.0, 0.4]), np.array([5.0, 0.4]), None)
        >>> table.as_json(per_query=True, summary=False)
        {'queries': {'q1': {'num_ret': 5, 'P_5': 0.4}}}
        """
        data: dict = {} if self.run_id is None or not summary else {RUNID: self.run_id}
        if summary:
            data["all"] = _jsonable(self.names, self.counts.tolist(), self.means.tolist())
        if per_query:
            shown = np.array([name not in SUMMARY_ONLY for name in self.names], dtype=bool)
            names = [name for name, keep in zip(self.names, shown, strict=True) if keep]
            counts = self.counts[shown].tolist()
            data["queries"] = {
                qid: _jsonable(names, counts, row)
                for qid, row in zip(self.qids.tolist(), self.values[:, shown].tolist(), strict=True)
            }
        return data

    @staticmethod
    def _formatted(values: np.ndarray, full: bool, counts: np.ndarray) -> np.ndarray:
        """Values as trec_eval prints them (``%6.4f``, counts as integers), or with every
        digit."""
        text = values.astype(str) if full else np.char.mod("%6.4f", values)
        whole = np.char.mod("%d", np.round(values).astype(np.int64))
        return np.where(counts, whole, text)


def _jsonable(names: list[str], counts: list[bool], values: list[float]) -> dict:
    """``names`` to ``values``, a count's as an integer."""
    return {
        name: int(value) if count else value
        for name, count, value in zip(names, counts, values, strict=True)
    }
