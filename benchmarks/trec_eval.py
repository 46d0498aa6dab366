"""Time ``scorer trec-eval`` against pytrec_eval and trec_eval on an MS MARCO-shaped run.

The run (made here, seeded): ``--queries`` queries (default 6,980, MS MARCO's dev set)
each retrieving ``--depth`` passages (default 1,000) of a collection of 8,841,823, scores
descending with about 2 % tied with each query's top score; the qrels: 1 to 4 relevant
passages a query (grade 2 for a fifth of them), retrieved near the top for 60 % of the
queries. Every peer computes map, ndcg_cut.10, P.10, recall.1000 and recip_rank over every
query, from the two files, each in a fresh process, in turn (scorer, pytrec_eval,
trec_eval, scorer, ...) so that a drift in the machine's speed touches them alike:

- ``scorer``: ``python -m scorer trec-eval -m map -m ndcg_cut.10 -m P.10 -m recall.1000
  -m recip_rank QRELS RUN`` (and ``--json`` once, for the correctly rounded means);
- ``pytrec_eval``: its ``parse_qrel``, ``parse_run`` and ``RelevanceEvaluator``, the
  means taken over its per-query values;
- ``trec_eval``: the binary given with ``--trec-eval PATH`` (trec_eval 10.0 built with
  ``-O2``), when given.

Checks that the values agree (trec_eval's printed lines equal the scorer's line for line;
pytrec_eval's means within 1e-9), then prints each peer's median wall time and peak
memory and the scorer's ratio to each, and writes them as JSON.

With ``--judged N``, the qrels judge N documents of each query instead (rel 0, 1 or 2,
about 60 % of them 0), half of them among the query's retrieved ones: qrels as large as
the run, the case where trec_eval is fastest against the scorer. ``--all-trec`` asks for
``-m all_trec`` (pytrec_eval, which lacks some of its measures, is then left out, and
the lines compared are all but ``rbp``'s: trec_eval 10 reads two uninitialised variables
there with grades above 1, docs/trec-eval.md).

Usage::

    python benchmarks/trec_eval.py        # writes benchmarks/data/trec/q6980_d1000_s11_j0/
    python benchmarks/trec_eval.py --trec-eval PATH --repeats 5
    python benchmarks/trec_eval.py --queries 700 --repeats 1   # a quick look
    python benchmarks/trec_eval.py --queries 2000 --depth 100 --judged 1000 --all-trec \
        --trec-eval PATH
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import launch_in_turn, machine

DATA = Path(__file__).resolve().parent / "data" / "trec"
RESULTS = Path(__file__).resolve().parent / "results" / "trec_eval.json"
COLLECTION = 8_841_823  # MS MARCO's passages
MEASURES = ("map", "ndcg_cut.10", "P.10", "recall.1000", "recip_rank")
PRINTED = {"map": "map", "ndcg_cut_10": "ndcg_cut.10", "P_10": "P.10"}
PRINTED |= {"recall_1000": "recall.1000", "recip_rank": "recip_rank"}

_PYTREC_EVAL = """
import json, sys
import pytrec_eval
with open(sys.argv[1]) as qrels_file, open(sys.argv[2]) as run_file:
    qrels, run = pytrec_eval.parse_qrel(qrels_file), pytrec_eval.parse_run(run_file)
names = ["map", "ndcg_cut_10", "P_10", "recall_1000", "recip_rank"]
values = pytrec_eval.RelevanceEvaluator(qrels, set(names)).evaluate(run)
print(json.dumps({name: sum(v[name] for v in values.values()) / len(values) for name in names}))
"""


def generate(
    folder: Path, queries: int, depth: int, seed: int, judged: int = 0
) -> tuple[Path, Path]:
    """Write ``qrels.txt`` and ``run.txt`` (unless they are there for these settings)."""
    folder.mkdir(parents=True, exist_ok=True)
    qrels_path, run_path, stamp = folder / "qrels.txt", folder / "run.txt", folder / "settings"
    settings = f"{queries} {depth} {seed} {judged}"
    if stamp.exists() and stamp.read_text() == settings and run_path.exists():
        return qrels_path, run_path
    rng = np.random.default_rng(seed)
    qids = np.sort(rng.choice(1_200_000, queries, replace=False))
    docs = _distinct_rows(rng, queries, depth)
    scores = np.sort(rng.random((queries, depth)) * 30, axis=1)[:, ::-1]
    tied = rng.random((queries, depth)) < 0.02
    scores = np.where(tied, scores[:, :1], scores).round(4)
    lines = [
        pa.array(np.repeat(qids, depth)),
        "Q0",
        pa.array(docs.reshape(-1)),
        pa.array(np.tile(np.arange(1, depth + 1), queries)),
        pa.array(scores.reshape(-1)),
        "bm25\n",
    ]
    _write_lines(run_path, lines)
    if judged:
        _write_judged(qrels_path, rng, qids, docs, judged)
        stamp.write_text(settings)
        return qrels_path, run_path
    n_relevant = rng.integers(1, 5, queries)
    near_top = np.minimum(rng.geometric(0.05, (queries, 4)) - 1, depth - 1)
    relevant = np.where(
        (rng.random(queries) < 0.6)[:, None],
        np.take_along_axis(docs, near_top, axis=1),
        rng.integers(0, COLLECTION, (queries, 4)),
    )
    relevant = np.sort(relevant, axis=1)
    keep = np.arange(4)[None, :] < n_relevant[:, None]
    keep[:, 1:] &= relevant[:, 1:] != relevant[:, :-1]  # each passage once
    grades = np.where(rng.random((queries, 4)) < 0.2, 2, 1)
    rows = np.nonzero(keep)
    grades_ended = pc.binary_join_element_wise(
        pc.cast(pa.array(grades[rows]), pa.string()), "\n", ""
    )
    _write_lines(qrels_path, [pa.array(qids[rows[0]]), "0", pa.array(relevant[rows]), grades_ended])
    stamp.write_text(settings)
    return qrels_path, run_path


def _write_judged(
    path: Path, rng: np.random.Generator, qids: np.ndarray, docs: np.ndarray, judged: int
) -> None:
    """``judged`` judgements a query: half of them of retrieved documents, the rest of
    others, each once (rel 0, 1 or 2 with chances 0.6, 0.2 and 0.2)."""
    queries, depth = docs.shape
    retrieved = min(judged // 2, depth)
    picked = np.argsort(rng.random((queries, depth)), axis=1)[:, :retrieved]
    others = _distinct_rows(rng, queries, judged - retrieved) + COLLECTION  # never retrieved
    pool = np.concatenate([np.take_along_axis(docs, picked, axis=1), others], axis=1)
    grades = rng.choice(np.array([0, 0, 0, 1, 2]), pool.shape)
    grades_ended = pc.binary_join_element_wise(
        pc.cast(pa.array(grades.reshape(-1)), pa.string()), "\n", ""
    )
    lines = [pa.array(np.repeat(qids, judged)), "0", pa.array(pool.reshape(-1)), grades_ended]
    _write_lines(path, lines)


def _distinct_rows(rng: np.random.Generator, rows: int, width: int) -> np.ndarray:
    """``rows`` rows of ``width`` distinct passages each: drawn, and the repeats drawn
    again until there are none (a few rounds)."""
    docs = rng.integers(0, COLLECTION, (rows, width))
    while True:
        ordered = np.sort(docs, axis=1)
        repeated = np.zeros_like(docs, dtype=bool)
        repeated[:, 1:] = ordered[:, 1:] == ordered[:, :-1]
        if not repeated.any():
            return docs
        order = np.argsort(docs, axis=1, kind="stable")
        marked = np.zeros_like(repeated)
        np.put_along_axis(marked, order, repeated, axis=1)
        docs[marked] = rng.integers(0, COLLECTION, int(marked.sum()))


def _write_lines(path: Path, fields: list) -> None:
    """Write space-separated fields a row a line (the last field ends with the newline)."""
    columns = [pc.cast(f, pa.string()) if isinstance(f, pa.Array) else f for f in fields]
    joined = pc.binary_join_element_wise(*columns, " ")
    offsets = np.frombuffer(joined.buffers()[1], dtype=np.int32)[joined.offset :]
    path.write_bytes(joined.buffers()[2].to_pybytes()[offsets[0] : offsets[len(joined)]])


def peers(
    qrels: Path, run: Path, trec_eval: str | None, all_trec: bool = False
) -> dict[str, list[str]]:
    """The commands timed, by peer."""
    names = ["all_trec"] if all_trec else MEASURES
    measures = [arg for name in names for arg in ("-m", name)]
    commands = {
        "scorer": [sys.executable, "-m", "scorer", "trec-eval", *measures, str(qrels), str(run)]
    }
    if not all_trec:
        commands["pytrec_eval"] = [sys.executable, "-c", _PYTREC_EVAL, str(qrels), str(run)]
    if trec_eval:
        commands["trec_eval"] = [trec_eval, *measures, str(qrels), str(run)]
    return commands


def check(found: dict[str, dict], exact: dict[str, float]) -> None:
    """The peers' values agree: trec_eval's lines are the scorer's (``rbp``'s aside,
    see the module's docstring), pytrec_eval's means within 1e-9 of the scorer's
    correctly rounded ones."""

    def lines(name: str) -> list[str]:
        return [line for line in found[name]["stdout"].splitlines() if line.split()[0] != "rbp"]

    if "trec_eval" in found and lines("trec_eval") != lines("scorer"):
        raise AssertionError("trec_eval and the scorer print different lines")
    if "pytrec_eval" not in found:
        return
    theirs = json.loads(found["pytrec_eval"]["stdout"])
    for name, value in theirs.items():
        if abs(value - exact[name]) > 1e-9:
            raise AssertionError(f"{name}: pytrec_eval {value!r}, scorer {exact[name]!r}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=6980)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--judged", type=int, default=0, help="judgements per query")
    parser.add_argument("--all-trec", action="store_true", help="-m all_trec")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--trec-eval", metavar="PATH", help="a trec_eval 10 binary")
    parser.add_argument("--json", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    shape = f"q{args.queries}_d{args.depth}_s{args.seed}_j{args.judged}"  # a folder per shape
    qrels, run = generate(DATA / shape, args.queries, args.depth, args.seed, args.judged)
    commands = peers(qrels, run, args.trec_eval, args.all_trec)
    with_json = [*commands["scorer"][:4], "--json", *commands["scorer"][4:]]
    exact_json = launch_in_turn({"scorer": with_json}, 1)["scorer"]["stdout"]
    exact = {printed: json.loads(exact_json)["all"][printed] for printed in PRINTED}
    found = launch_in_turn(commands, args.repeats)
    check(found, exact)
    rows = {
        name: {k: v for k, v in timing.items() if k != "stdout"} for name, timing in found.items()
    }
    for name in rows:
        if name != "scorer":
            rows[name]["scorer_ratio"] = rows["scorer"]["seconds"] / rows[name]["seconds"]
    judged = f", {args.judged:,} judged" if args.judged else ""
    measures = "all_trec" if args.all_trec else " ".join(MEASURES)
    print(
        f"{args.queries:,} queries x {args.depth:,} retrieved{judged}, -m {measures}, "
        f"{args.repeats} runs each, in turn"
    )
    print("| peer | median wall (s) | peak memory (MiB) | scorer / peer |")
    print("|---|---:|---:|---:|")
    for name, row in rows.items():
        ratio = f"{row['scorer_ratio']:.2f}" if "scorer_ratio" in row else "-"
        print(f"| {name} | {row['seconds']:.2f} | {row['peak_rss_mb']:.0f} | {ratio} |")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    settings = {"queries": args.queries, "depth": args.depth, "repeats": args.repeats}
    settings |= {"judged": args.judged, "all_trec": args.all_trec}
    args.json.write_text(json.dumps({"machine": machine(), **settings, "peers": rows}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
