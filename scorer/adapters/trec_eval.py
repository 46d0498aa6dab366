"""``scorer trec-eval``: trec_eval 10's command line and its output, line for line.

::

    scorer trec-eval [-q] [-m MEASURE]... [-c] [-J] [-l N] [-M N] [-n] QRELS RUN

The options are trec_eval's: ``-m`` (repeatable, with trec_eval's parameter syntax:
``-m P.5,10``, ``-m ndcg_cut.10``, ``-m official``, ``-m all_trec``), ``-q`` (each query
too), ``-c`` (a query the run lacks counts 0), ``-J`` (judged documents only), ``-l N``
(relevance level), ``-M N`` (documents counted per query) and ``-n`` (no summary). So is
the output: one line per measure and query, ``measure<TAB>qid<TAB>value``, the name
padded to 22 characters, values as ``%6.4f`` and counts as integers, measures in
trec_eval's order, each query's lines in qid byte order, then the summary (``all``),
``runid`` and ``num_q`` among them when asked. The summary's value is trec_eval's: the
sum of the queries' values in that order, divided by the number of queries.
``--precision full`` prints every value with all its digits, the summary being the
correctly rounded mean; ``--json`` prints the same as one JSON object. Scoring goes
through :func:`scorer.evaluate` with ``format="trec"``: what differs from trec_eval is
listed in docs/trec-eval.md.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass

import numpy as np

import scorer
from scorer.adapters.cli import add_read_limits, read_limits
from scorer.adapters.output import emit
from scorer.errors import HostVisibleError
from scorer.result import ScoreResult

#: The measures this command prints itself (not the registry's): trec_eval's ``runid``
#: (the run's tag) and ``num_q`` (the queries averaged over).
RUNID, NUM_Q = "runid", "num_q"
_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


@dataclass(frozen=True)
class TrecName:
    """One of trec_eval's measures and the registry's measure(s) it is.

    Attributes
    ----------
    name : str
        trec_eval's name (``ndcg_cut``).
    template : str
        The registry's name, ``{}`` standing for a cut-off (``nDCG(gain=linear)@{}``).
    cutoffs : tuple of int
        trec_eval's default cut-offs; empty for a measure that takes none.
    """

    name: str
    template: str
    cutoffs: tuple[int, ...] = ()

    def printed(self, params: str | None) -> list[tuple[str, str]]:
        """The (trec_eval name, registry name) of each measure ``-m name.params`` asks
        for, cut-offs ascending (trec_eval's defaults without ``params``)."""
        if not self.cutoffs:
            if params is not None:
                raise HostVisibleError(
                    f"trec_eval's {self.name} takes no parameters. Got -m {self.name}.{params}."
                )
            return [(self.name, self.template)]
        cutoffs = self.cutoffs if params is None else _cutoffs(self.name, params)
        return [(f"{self.name}_{c}", self.template.format(c)) for c in cutoffs]


def _cutoffs(name: str, params: str) -> tuple[int, ...]:
    """``-m name.5,10``'s cut-offs, ascending: positive whole numbers, each once."""
    texts = params.split(",")
    if not all(text.isdigit() and len(text) <= 18 for text in texts):
        raise HostVisibleError(
            f"trec_eval's {name} takes cut-offs, whole numbers separated by commas (e.g. "
            f"-m {name}.5,10). Got -m {name}.{params}."
        )
    cutoffs = sorted(int(text) for text in texts)
    if cutoffs[0] <= 0 or len(set(cutoffs)) < len(cutoffs):
        raise HostVisibleError(
            f"trec_eval's {name} takes positive cut-offs, each once. Got -m {name}.{params}."
        )
    return tuple(cutoffs)


#: trec_eval 10's measures this command computes, in the order trec_eval prints them.
TREC_NAMES: tuple[TrecName, ...] = (
    TrecName(RUNID, RUNID),
    TrecName(NUM_Q, NUM_Q),
    TrecName("map", "MAP(norm=relevant)"),
    TrecName("Rprec", "RPrec"),
    TrecName("recip_rank", "MRR"),
    TrecName("P", "P@{}", _CUTOFFS),
    TrecName("recall", "R@{}", _CUTOFFS),
    TrecName("ndcg", "nDCG(gain=linear)"),
    TrecName("ndcg_cut", "nDCG(gain=linear)@{}", _CUTOFFS),
    TrecName("map_cut", "MAP(norm=relevant)@{}", _CUTOFFS),
    TrecName("success", "HitRate@{}", (1, 5, 10)),
    TrecName("set_P", "SetP"),
    TrecName("set_recall", "SetR"),
    TrecName("set_F", "SetF"),
)
#: trec_eval's names for sets of measures, as its measures.c lists them.
_COUNTS = (RUNID, NUM_Q, "num_ret", "num_rel", "num_rel_ret")
TREC_NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": (*_COUNTS, "map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"),
    "set": (*_COUNTS, "utility", "set_P", "set_recall", "set_relative_P", "set_map", "set_F"),
    "all_trec": (
        *_COUNTS, "map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P",
        "relstring", "recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref", "utility",
        "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut",
        "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map",
        "set_F", "num_nonrel_judged_ret",
    ),
}  # fmt: skip
_BY_NAME = {measure.name: measure for measure in TREC_NAMES}


def requested(arguments: list[str] | None) -> list[tuple[str, str]]:
    """The (trec_eval name, registry name) of every measure the ``-m`` arguments ask
    for, in trec_eval's order. As trec_eval reads them: a name is exact (case counts),
    a nickname marks its measures, a measure asked twice is computed once, with the
    parameters of the first ``-m`` that gives some; none means ``-m official``.

    Examples
    --------
    >>> requested(["P.10,5", "map", "P.20", "ndcg_cut.10"])
    [('map', 'MAP(norm=relevant)'), ('P_5', 'P@5'), ('P_10', 'P@10'), \
('ndcg_cut_10', 'nDCG(gain=linear)@10')]
    """
    marked: dict[str, str | None] = {}
    for argument in arguments or ["official"]:
        name, dot, params = argument.partition(".")
        if name in TREC_NICKNAMES:
            names = TREC_NICKNAMES[name]
        elif name in _BY_NAME or name in TREC_NICKNAMES["all_trec"]:
            names = (name,)
        else:
            raise HostVisibleError(
                f"trec_eval has no measure {name!r} (-m {argument}): name one of "
                f"{[m.name for m in TREC_NAMES]}, or official, all_trec or set. trec_eval's "
                "names are case-sensitive; parameters follow a dot (-m P.5,10)."
            )
        for each in names:
            if marked.get(each) is None:
                marked[each] = params if dot and each == name else None
    missing = [name for name in marked if name not in _BY_NAME]
    if missing:
        raise HostVisibleError(
            f"trec_eval's {', '.join(missing)} {'is' if len(missing) == 1 else 'are'} not "
            "computed by this version: name the measures with -m (e.g. -m map -m P.10)."
        )
    return [
        pair for measure in TREC_NAMES if measure.name in marked
        for pair in measure.printed(marked[measure.name])
    ]  # fmt: skip


def trec_eval_parser() -> argparse.ArgumentParser:
    """The command's arguments: trec_eval's options (short and long spellings), the two
    files, the output's form and the read limits."""
    parser = argparse.ArgumentParser(
        prog="scorer trec-eval",
        description="trec_eval 10's command line and output, line for line (docs/trec-eval.md). "
        "Exit codes: 0 scored, 1 invalid run, 2 invalid qrels or usage, 3 internal error.",
    )
    parser.add_argument("qrels", help="trec_eval qrels file: qid iter docno rel")
    parser.add_argument("run", help="trec_eval run file: qid Q0 docno rank score tag")
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


def trec_eval_command(args: argparse.Namespace) -> None:
    """Score the run and print trec_eval's lines (or JSON)."""
    measures = requested(args.measure)
    names = [name for _, name in measures if name not in (RUNID, NUM_Q)]
    if args.level_for_rel < 1:
        raise HostVisibleError(
            f"-l must be at least 1 (the smallest rel that is relevant). Got {args.level_for_rel}."
        )
    result = scorer.evaluate(
        args.qrels,
        args.run,
        format="trec",
        metrics=names or None,  # runid and num_q alone: any measure scores the run
        k=args.Max_retrieved_per_topic,
        missing_rows="empty" if args.complete_rel_info_wanted else "skip",
        unjudged="drop" if args.Judged_docs_only else "keep",
        relevance_threshold=args.level_for_rel,
        limits=read_limits(args),
    )
    table = TrecTable.of(result, measures)
    if args.json:
        emit(json.dumps(table.as_json(args.query_eval_wanted), indent=2, allow_nan=False))
    else:
        full = args.precision == "full"
        emit(table.text(args.query_eval_wanted, not args.nosummary, full))


@dataclass(frozen=True)
class TrecTable:
    """The values trec_eval prints: per scored query (qid byte order) and overall.

    Attributes
    ----------
    printed : list of str
        trec_eval's names, in its order (``runid`` and ``num_q`` included when asked).
    qids : ndarray of str
        The scored queries.
    values : ndarray of float64, shape (len(qids), measures)
        Each scored query's value of each measure (without ``runid`` and ``num_q``).
    summary : ndarray of float64
        trec_eval's summary of each measure: the sum of the queries' values in qid order,
        over the number of queries.
    means : ndarray of float64
        The correctly rounded mean of each measure.
    run_id : str
    """

    printed: list[str]
    qids: np.ndarray
    values: np.ndarray
    summary: np.ndarray
    means: np.ndarray
    run_id: str

    @classmethod
    def of(cls, result: ScoreResult, measures: list[tuple[str, str]]) -> TrecTable:
        scored = np.asarray(result.user_scored)
        names = [name for _, name in measures if name not in (RUNID, NUM_Q)]
        columns = [np.asarray(result.user_values[_computed(result, n)])[scored] for n in names]
        values = np.stack(columns, axis=1) if columns else np.zeros((int(scored.sum()), 0))
        # trec_eval adds the queries' values one after the other, in qid order.
        totals = np.cumsum(values, axis=0)[-1] if len(values) else np.zeros(len(names))
        qids = np.array(result.row_ids.to_pylist(), dtype=object)[scored]  # type: ignore[union-attr]
        return cls(
            [printed for printed, _ in measures],
            qids,
            values,
            totals / max(len(values), 1),
            np.array([result.metrics[_computed(result, n)] for n in names]),
            result.run_id or "",
        )

    def text(self, per_query: bool, summary: bool, full: bool) -> str:
        """trec_eval's lines: each query's (with ``per_query``), then the summary."""
        names = [name for name in self.printed if name not in (RUNID, NUM_Q)]
        lines: list[str] = []
        if per_query and names and len(self.qids):
            cells = _formatted(self.values, full)
            labels = np.char.ljust(np.array(names, dtype=str), 22)
            qids = np.char.add(np.char.add("\t", self.qids.astype(str)), "\t")[:, None]
            rows = np.char.add(np.char.add(labels[None, :], qids), cells)
            lines += rows.ravel().tolist()
        if summary:
            shown = _formatted(self.means if full else self.summary, full)
            overall = dict(zip(names, shown.tolist(), strict=True))
            overall[RUNID], overall[NUM_Q] = self.run_id, str(len(self.qids))
            lines += [f"{name:<22}\tall\t{overall[name]}" for name in self.printed]
        return "\n".join(lines)

    def as_json(self, per_query: bool) -> dict:
        """The run id, the number of queries, each measure's correctly rounded mean and,
        with ``per_query``, each query's values."""
        names = [name for name in self.printed if name not in (RUNID, NUM_Q)]
        data: dict = {RUNID: self.run_id, NUM_Q: len(self.qids)}
        data["all"] = {name: float(value) for name, value in zip(names, self.means, strict=True)}
        if per_query:
            data["queries"] = {
                qid: dict(zip(names, row, strict=True))
                for qid, row in zip(self.qids.tolist(), self.values.tolist(), strict=True)
            }
        return data


def _computed(result: ScoreResult, name: str) -> str:
    """The canonical name ``result`` holds ``name``'s values under."""
    from scorer.measures import parse

    return str(parse(name, None, result.options.normalization))


def _formatted(values: np.ndarray, full: bool) -> np.ndarray:
    """Values as trec_eval prints them (``%6.4f``), or with every digit."""
    if full:
        return values.astype(str)
    return np.char.mod("%6.4f", values)
