"""Deterministic H&M-shaped MAP@10 data, with its exact score computed independently.

The shape follows the H&M Personalized Fashion Recommendations competition:

- row ids are 64 lowercase hex characters (``customer_id``);
- item ids are 10 digits with a leading zero (``0706016001``), drawn from a catalogue
  of 100,000 items with a Zipf-like popularity;
- each user has 1 to 30 relevant items (log-normal, median 3), unique within the row;
- each user has exactly 10 predictions, mostly popular items plus a few injected hits
  (a few percent of all predictions are hits), and a small share of rows repeat an item
  (which keeps its rank and earns nothing);
- the submission's rows are shuffled; the solution has a ``Usage`` column, ~30 % Public.

The exact MAP@10 (overall, Public, Private) is computed here by a plain Python loop in
integer arithmetic, independently of :mod:`scorer`, and written next to the files so
that every benchmark run checks correctness too.

Usage::

    python benchmarks/generate.py 137198            # -> benchmarks/data/n137198_s0/
    python benchmarks/generate.py 13720 --second    # and submission_b.csv, for compare
    python benchmarks/generate.py --long            # and submission_long.csv (13.7 M lines)
    python benchmarks/generate.py 13720 --seed 3 --out /some/dir
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv

K = 10
N_ITEMS = 100_000
ZIPF_EXPONENT = 0.9
MAX_RELEVANT = 30
CANDIDATES = 16  # popular draws per user, of which the first 10 distinct are kept
HIT_INJECTION = 0.02  # share of candidate slots replaced by one of the user's relevant items
REPEAT_SHARE = 0.002  # share of users whose row repeats an item
PUBLIC_SHARE = 0.3
LCM = 2520  # lcm(1..10): every P(i) * 2520 is an integer
HM_USERS = 1_371_980
DATA_DIR = Path(__file__).resolve().parent / "data"


@dataclass(frozen=True)
class Dataset:
    """Paths and facts of one generated data set."""

    directory: Path
    solution: Path
    submission: Path
    meta: dict

    @property
    def exact_map(self) -> Fraction:
        """The exact MAP@10 over every scored user."""
        return Fraction(self.meta["map_at_10"])


def dataset_dir(n_users: int, seed: int = 0, root: Path = DATA_DIR) -> Path:
    """Where :func:`ensure` keeps the data set for ``n_users`` and ``seed``."""
    return Path(root) / f"n{n_users}_s{seed}"


def ensure(n_users: int, seed: int = 0, root: Path = DATA_DIR) -> Dataset:
    """Return the data set, generating it first if it is not complete on disk."""
    directory = dataset_dir(n_users, seed, root)
    meta_path = directory / "meta.json"
    if meta_path.exists():
        meta = json.loads(meta_path.read_text())
        return Dataset(directory, directory / "solution.csv", directory / "submission.csv", meta)
    return generate(n_users, directory, seed)


def generate(n_users: int, directory: str | os.PathLike, seed: int = 0) -> Dataset:
    """Write ``solution.csv``, ``submission.csv`` and ``meta.json`` into ``directory``.

    The same ``n_users`` and ``seed`` always give the same bytes. ``meta.json`` is
    written last, so its presence means the data set is complete.
    """
    if n_users < 1:
        raise ValueError("n_users must be at least 1")
    rng = np.random.default_rng([seed, n_users])
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)

    item_ids = _catalogue(rng)
    popularity = 1.0 / np.arange(1, N_ITEMS + 1) ** ZIPF_EXPONENT
    popularity /= popularity.sum()
    user_ids = _user_ids(rng, n_users)
    rel_offsets, rel_items = _relevant_sets(rng, n_users, popularity)
    predictions = _predictions(rng, n_users, popularity, rel_offsets, rel_items)
    public = rng.random(n_users) < PUBLIC_SHARE
    order = rng.permutation(n_users)

    solution_lines = ["customer_id,prediction,Usage"]
    rel_text = item_ids[rel_items]
    bounds = rel_offsets.tolist()
    usage = np.where(public, "Public", "Private").tolist()
    for user, uid in enumerate(user_ids):
        items = " ".join(rel_text[bounds[user] : bounds[user + 1]].tolist())
        solution_lines.append(f"{uid},{items},{usage[user]}")
    pred_text = item_ids[predictions]
    submission_lines = ["customer_id,prediction"]
    submission_lines += [
        f"{user_ids[user]},{' '.join(pred_text[user].tolist())}" for user in order.tolist()
    ]
    _write(directory / "solution.csv", solution_lines)
    _write(directory / "submission.csv", submission_lines)

    exact, n_hits = exact_map_at_10(rel_offsets, rel_items, predictions, public)
    ordered = np.sort(predictions, axis=1)
    n_repeat_rows = int((ordered[:, 1:] == ordered[:, :-1]).any(axis=1).sum())
    meta = {
        "n_users": n_users,
        "seed": seed,
        "k": K,
        "n_items_catalogue": N_ITEMS,
        "n_relevant_median": float(np.median(np.diff(rel_offsets))),
        "n_relevant_max": int(np.diff(rel_offsets).max()),
        "n_public": int(public.sum()),
        "n_repeat_rows": n_repeat_rows,
        "hit_share": n_hits / predictions.size,
        **{name: str(value) for name, value in exact.items()},
        **{f"{name}_float": float(value) for name, value in exact.items()},
        "solution_bytes": (directory / "solution.csv").stat().st_size,
        "submission_bytes": (directory / "submission.csv").stat().st_size,
    }
    _write(directory / "meta.json", [json.dumps(meta, indent=2)])
    return Dataset(directory, directory / "solution.csv", directory / "submission.csv", meta)


def exact_map_at_10(
    rel_offsets: np.ndarray, rel_items: np.ndarray, predictions: np.ndarray, public: np.ndarray
) -> tuple[dict[str, Fraction], int]:
    """Exact MAP@10 by the textbook loop, in integers (no float, no :mod:`scorer`).

    For a user with hits at ranks i (first occurrences only), ``2520 * P(i)`` is an
    integer, so ``AP * 2520 * min(|R|, 10)`` is too; the mean is a :class:`Fraction`.
    Also returns the number of credited hits.

    Examples
    --------
    >>> exact, hits = exact_map_at_10(np.array([0, 2, 3]), np.array([7, 8, 9]),
    ...                               np.array([[7, 1, 8], [9, 9, 2]]), np.array([True, False]))
    >>> exact["map_at_10"], exact["public_map_at_10"], exact["private_map_at_10"], hits
    (Fraction(11, 12), Fraction(5, 6), Fraction(1, 1), 3)
    """
    bounds = rel_offsets.tolist()
    rows = predictions.tolist()
    relevant = rel_items.tolist()
    scaled = []  # AP * 2520 * 2520, an integer
    n_hits = 0
    for user, row in enumerate(rows):
        truth = set(relevant[bounds[user] : bounds[user + 1]])
        seen: set[int] = set()
        hits = 0
        summed = 0  # sum of P(i) * 2520 over credited ranks
        for rank, item in enumerate(row[:K], start=1):
            if item in truth and item not in seen:
                hits += 1
                summed += hits * LCM // rank
            seen.add(item)
        scaled.append(summed * (LCM // min(len(truth), K)))
        n_hits += hits
    scaled_array = np.array(scaled, dtype=object)
    result = {"map_at_10": Fraction(int(scaled_array.sum()), LCM * LCM * len(rows))}
    for name, mask in (("public_map_at_10", public), ("private_map_at_10", ~public)):
        count = int(mask.sum())
        if count:
            result[name] = Fraction(int(scaled_array[mask].sum()), LCM * LCM * count)
    return result, n_hits


def _catalogue(rng: np.random.Generator) -> np.ndarray:
    """10-digit item ids with a leading zero, in popularity order (most popular first)."""
    numbers = rng.choice(900_000_000, size=N_ITEMS, replace=False) + 100_000_000
    return np.array([f"{number:010d}" for number in numbers.tolist()])


def _user_ids(rng: np.random.Generator, n_users: int) -> list[str]:
    text = rng.integers(0, 256, size=32 * n_users, dtype=np.uint8).tobytes().hex()
    ids = [text[64 * i : 64 * (i + 1)] for i in range(n_users)]
    if len(set(ids)) != n_users:  # 256 random bits: never in practice
        raise RuntimeError("duplicate user id generated; change the seed")
    return ids


def _relevant_sets(
    rng: np.random.Generator, n_users: int, popularity: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per user, unique relevant item codes: ``rel_items[offsets[u]:offsets[u + 1]]``."""
    wanted = np.clip(np.rint(np.exp(rng.normal(np.log(3.0), 0.9, n_users))), 1, MAX_RELEVANT)
    wanted = wanted.astype(np.int64)
    users = np.repeat(np.arange(n_users, dtype=np.int64), wanted)
    items = rng.choice(N_ITEMS, size=len(users), p=popularity)
    tiebreak = rng.random(len(users))
    order = np.lexsort((tiebreak, items, users))
    users, items = users[order], items[order]
    keep = np.ones(len(users), dtype=bool)
    keep[1:] = (users[1:] != users[:-1]) | (items[1:] != items[:-1])
    users, items = users[keep], items[keep]
    # Shuffle within each user so the row is not sorted by popularity.
    order = np.lexsort((rng.random(len(users)), users))
    users, items = users[order], items[order]
    offsets = np.zeros(n_users + 1, dtype=np.int64)
    offsets[1:] = np.cumsum(np.bincount(users, minlength=n_users))
    return offsets, items


def _predictions(
    rng: np.random.Generator,
    n_users: int,
    popularity: np.ndarray,
    rel_offsets: np.ndarray,
    rel_items: np.ndarray,
) -> np.ndarray:
    """``n_users x 10`` item codes: distinct per row, except a few deliberate repeats."""
    n_relevant = np.diff(rel_offsets)
    result = np.empty((n_users, K), dtype=np.int64)
    todo = np.arange(n_users)
    while len(todo):
        candidates = rng.choice(N_ITEMS, size=(len(todo), CANDIDATES), p=popularity)
        inject = rng.random(candidates.shape) < HIT_INJECTION
        pick = rel_offsets[todo][:, None] + (
            rng.random(candidates.shape) * n_relevant[todo][:, None]
        ).astype(np.int64)
        candidates = np.where(inject, rel_items[np.minimum(pick, len(rel_items) - 1)], candidates)
        order = np.argsort(candidates, axis=1, kind="stable")
        ordered = np.take_along_axis(candidates, order, axis=1)
        first_sorted = np.ones(candidates.shape, dtype=bool)
        first_sorted[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
        first = np.empty(candidates.shape, dtype=bool)
        np.put_along_axis(first, order, first_sorted, axis=1)
        slots = np.sort(np.where(first, np.arange(CANDIDATES), CANDIDATES), axis=1)[:, :K]
        complete = slots[:, -1] < CANDIDATES
        rows = np.flatnonzero(complete)
        result[todo[rows]] = np.take_along_axis(candidates[rows], slots[rows], axis=1)
        todo = todo[~complete]
    repeaters = np.flatnonzero(rng.random(n_users) < REPEAT_SHARE)
    slot = rng.integers(1, K, size=len(repeaters))
    result[repeaters, slot] = result[repeaters, slot - 1]
    return result


def _write(path: Path, lines: list[str]) -> None:
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")  # one per process
    with open(temporary, "w", encoding="utf-8", newline="\n") as handle:
        handle.write("\n".join(lines))
        handle.write("\n")
    os.replace(temporary, path)


def second_submission(dataset: Dataset) -> Path:
    """A second submission for ``compare``: every other row (in file order) moves its
    first prediction to the end. Written once next to the data; deterministic."""
    path = dataset.directory / "submission_b.csv"
    if path.exists():
        return path
    strings = pcsv.ConvertOptions(
        column_types={"customer_id": pa.string(), "prediction": pa.string()}
    )
    table = pcsv.read_csv(dataset.submission, convert_options=strings)
    predictions = table.column("prediction").combine_chunks()
    items = pc.split_pattern(predictions, " ")
    first = pc.list_element(items, 0)
    rest = pc.binary_join(pc.list_slice(items, 1), " ")
    rotated = pc.binary_join_element_wise(rest, first, " ")
    every_other = pa.array(np.arange(len(predictions)) % 2 == 0)
    changed = pc.if_else(every_other, rotated, predictions)
    partial = path.with_suffix(f".{os.getpid()}.partial")  # one per process: tests run side by side
    pcsv.write_csv(
        pa.table({"customer_id": table.column("customer_id"), "prediction": changed}),
        partial,
        write_options=pcsv.WriteOptions(quoting_style="none"),
    )
    os.replace(partial, path)
    return path


def long_submission(dataset: Dataset) -> Path:
    """The submission in the long layout, ``submission_long.csv``: one line per
    (customer, prediction) with its rank 1..10, customers in the wide file's order
    (13.7 M lines at H&M scale). Scored with ``--layout long --rank-column rank``, it
    must give the wide file's exact MAP@10. Written once next to the data."""
    path = dataset.directory / "submission_long.csv"
    if path.exists():
        return path
    strings = pcsv.ConvertOptions(
        column_types={"customer_id": pa.string(), "prediction": pa.string()}
    )
    table = pcsv.read_csv(dataset.submission, convert_options=strings)
    items = pc.split_pattern(table.column("prediction").combine_chunks(), " ")
    lengths = pc.list_value_length(items).to_numpy(zero_copy_only=False)
    rows = np.repeat(np.arange(len(items)), lengths)
    starts = np.cumsum(lengths) - lengths
    ranks = np.arange(len(rows)) - np.repeat(starts, lengths) + 1
    customers = table.column("customer_id").combine_chunks().take(pa.array(rows))
    partial = path.with_suffix(f".{os.getpid()}.partial")  # one per process: tests run side by side
    pcsv.write_csv(
        pa.table(
            {
                "customer_id": customers,
                "prediction": pc.list_flatten(items),
                "rank": pa.array(ranks).cast(pa.string()),
            }
        ),
        partial,
        write_options=pcsv.WriteOptions(quoting_style="none"),
    )
    os.replace(partial, path)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("n_users", type=int, nargs="?", default=HM_USERS)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, help="directory (default: benchmarks/data/nN_sSEED)")
    parser.add_argument(
        "--second",
        action="store_true",
        help="also write submission_b.csv (every other row's first prediction moved last)",
    )
    parser.add_argument(
        "--long",
        action="store_true",
        help="also write submission_long.csv (the submission in the long layout, with ranks)",
    )
    args = parser.parse_args(argv)
    if args.out is None:
        dataset = ensure(args.n_users, args.seed)
    else:
        dataset = generate(args.n_users, args.out, args.seed)
    if args.second:
        second_submission(dataset)
    if args.long:
        long_submission(dataset)
    print(json.dumps({"directory": str(dataset.directory), **dataset.meta}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
