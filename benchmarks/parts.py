"""One run scored whole, or in parts in one process: the cost of scoring in parts.

Both modes read ``solution.csv`` and ``submission.csv`` of a generated data set
(``generate.py``) as Arrow tables of strings, then either call
:func:`scorer.evaluate` on them (``single``), or split both by
:func:`scorer.partial.partition` and :func:`scorer.partial.split_by_part` (each part
gathered when its turn comes), score each part with
:func:`scorer.partial.score_part`, merge the partials through their JSON form and
finish (``parts``). Neither mode starts a thread of its own: the scorer's one other
thread (the solution's lists encoded while the submission is read) runs in every part
as in the single run. Each prints its three MAP@10 values as ``float.hex`` and exits 1
unless they are the correctly rounded values of the generator's exact fractions.
Time the two modes as whole processes, in turn, to compare them.

Usage::

    python benchmarks/parts.py benchmarks/data/n2000000_s0 single
    python benchmarks/parts.py benchmarks/data/n2000000_s0 parts --parts 8
"""

from __future__ import annotations

import argparse
import json
import sys
from fractions import Fraction
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pcsv

import scorer
from scorer.partial import Partial, finish, merge, partition, score_part, split_by_part


def read(path: Path) -> pa.Table:
    """A CSV file with every column as a string (as the scorer reads it)."""
    with open(path, "rb") as handle:
        header = handle.readline().decode().strip().split(",")
    convert = pcsv.ConvertOptions(column_types=dict.fromkeys(header, pa.string()))
    return pcsv.read_csv(path, convert_options=convert)


def in_parts(solution: pa.Table, submission: pa.Table, n_parts: int) -> scorer.ScoreResult:
    """Every part gathered and scored in turn (one part's rows held at a time), each
    partial through JSON, merged, finished."""
    id_name = solution.column_names[0]
    parts_of_solution = partition(solution.column(id_name), n_parts)
    parts_of_submission = partition(submission.column(id_name), n_parts)
    solution_parts = split_by_part(solution, parts_of_solution, n_parts)
    submission_parts = split_by_part(submission, parts_of_submission, n_parts)
    texts = []
    for solution_part, submission_part in zip(solution_parts, submission_parts, strict=True):
        texts.append(score_part(solution_part, submission_part).to_json())
        del solution_part, submission_part  # freed before the next part is gathered
    return finish(merge(*(Partial.from_json(text) for text in texts)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("mode", choices=["single", "parts"])
    parser.add_argument("--parts", type=int, default=8)
    args = parser.parse_args(argv)
    solution = read(args.directory / "solution.csv")
    submission = read(args.directory / "submission.csv")
    if args.mode == "single":
        result = scorer.evaluate(solution, submission)
    else:
        result = in_parts(solution, submission, args.parts)
    meta = json.loads((args.directory / "meta.json").read_text())
    found = [result.score, result.public_score, result.private_score]
    names = ["map_at_10", "public_map_at_10", "private_map_at_10"]
    exact = [float(Fraction(meta[name])) for name in names]
    print(json.dumps({name: value.hex() for name, value in zip(names, found, strict=True)}))
    return 0 if found == exact else 1


if __name__ == "__main__":
    sys.exit(main())
