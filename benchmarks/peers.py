"""MAP@K as a dataframe engine computes it: the same formula in polars and in duckdb.

Each pipeline reads both CSV files with every column as a string, splits the
space-separated lists, keeps the first K predictions, credits a prediction when it is
relevant and the first occurrence of its item in the row, and averages
``sum(P(i) * rel(i)) / min(|R|, K)`` over the users with a relevant item (``Ignored``
rows left out), as the scorer's default MAP@K does. No validation: these are the
straightforward pipelines a host would write, the baselines the scorer's command line
is timed against (``run.py``). Each prints its MAP@K, a float mean (close to the exact
value, not correctly rounded).

Usage::

    python benchmarks/peers.py polars SOLUTION SUBMISSION [--k 10]
    python benchmarks/peers.py duckdb SOLUTION SUBMISSION [--k 10]
    python benchmarks/peers.py polars-otto SOLUTION SUBMISSION  # OTTO's shape, k=20
"""

from __future__ import annotations

import argparse

ROW_ID = "customer_id"
TARGET = "prediction"


def polars_map(solution: str, submission: str, k: int) -> float:
    """MAP@K with polars' lazy engine."""
    import polars as pl

    read = {"infer_schema": False}
    truth = (
        pl.scan_csv(solution, **read)
        .filter(pl.col("Usage") != "Ignored")
        .select(
            pl.col(ROW_ID),
            pl.col(TARGET).str.split(" ").list.eval(pl.element().filter(pl.element() != "")),
        )
        .select(pl.col(ROW_ID), pl.col(TARGET).list.unique().alias("truth"))
        .filter(pl.col("truth").list.len() > 0)
    )
    predicted = (
        pl.scan_csv(submission, **read)
        .select(
            pl.col(ROW_ID),
            pl.col(TARGET)
            .str.split(" ")
            .list.eval(pl.element().filter(pl.element() != ""))
            .list.head(k)
            .alias("items"),
        )
        .explode("items")
        .with_columns(pl.int_range(pl.len()).over(ROW_ID).alias("rank"))
        .filter(pl.col("items").is_not_null())
        .with_columns(pl.col("rank").min().over(ROW_ID, "items").alias("first"))
    )
    hits = (
        truth.explode("truth")
        .join(predicted, left_on=[ROW_ID, "truth"], right_on=[ROW_ID, "items"])
        .filter(pl.col("rank") == pl.col("first"))
        .sort(ROW_ID, "rank")
        .with_columns((pl.int_range(pl.len()).over(ROW_ID) + 1).alias("hit_number"))
        .group_by(ROW_ID)
        .agg((pl.col("hit_number") / (pl.col("rank") + 1)).sum().alias("precision_sum"))
    )
    scores = (
        truth.join(hits, on=ROW_ID, how="left")
        .select(
            pl.col("precision_sum").fill_null(0.0)
            / pl.min_horizontal(pl.col("truth").list.len(), pl.lit(k))
        )
        .collect()
    )
    return float(scores.to_series().mean())


def duckdb_map(solution: str, submission: str, k: int) -> float:
    """MAP@K in duckdb's SQL."""
    import duckdb

    query = f"""
    WITH truth AS (
        SELECT DISTINCT {ROW_ID} AS id, item
        FROM (
            SELECT {ROW_ID}, unnest(string_split({TARGET}, ' ')) AS item
            FROM read_csv('{solution}', all_varchar = true, header = true)
            WHERE Usage <> 'Ignored'
        ) WHERE item <> ''
    ),
    relevant AS (SELECT id, count(*) AS n_relevant FROM truth GROUP BY id),
    predicted AS (
        SELECT id, item, rank, min(rank) OVER (PARTITION BY id, item) AS first
        FROM (
            SELECT {ROW_ID} AS id, unnest(items) AS item,
                   generate_subscripts(items, 1) AS rank
            FROM (
                SELECT {ROW_ID},
                       list_filter(string_split({TARGET}, ' '), lambda x: x <> '')[1:{k}] AS items
                FROM read_csv('{submission}', all_varchar = true, header = true)
            )
        )
    ),
    hits AS (
        SELECT p.id, p.rank,
               row_number() OVER (PARTITION BY p.id ORDER BY p.rank) AS hit_number
        FROM predicted p JOIN truth t ON p.id = t.id AND p.item = t.item
        WHERE p.rank = p.first
    ),
    sums AS (SELECT id, sum(hit_number / rank) AS precision_sum FROM hits GROUP BY id)
    SELECT avg(coalesce(s.precision_sum, 0) / least(r.n_relevant, {k}))
    FROM relevant r LEFT JOIN sums s ON r.id = s.id
    """
    return float(duckdb.sql(query).fetchall()[0][0])


OTTO_ROW_ID, OTTO_TARGET = "session_type", "labels"
OTTO_WEIGHTS = {"clicks": 0.1, "carts": 0.3, "orders": 0.6}


def polars_otto(solution: str, submission: str, k: int = 20) -> float:
    """OTTO's weighted Recall@20 with polars' lazy engine: rows ``SESSION_TYPE``, the
    type after the last ``_``; per row, the first ``k`` predictions as a set against
    the truth, over ``min(k, |truth|)``; per type the mean over rows with a truth (the
    scorer's ``R(norm=min_k)@20``), weighted 0.1 / 0.3 / 0.6. OTTO's own micro
    average (Σ hits / Σ min(k, |truth|)) comes from the same table at no extra cost.
    """
    import polars as pl

    read = {"infer_schema": False}

    def items(column: pl.Expr) -> pl.Expr:
        return (
            column.fill_null("").str.split(" ").list.eval(pl.element().filter(pl.element() != ""))
        )

    truth = (
        pl.scan_csv(solution, **read)
        .select(pl.col(OTTO_ROW_ID), items(pl.col(OTTO_TARGET)).list.unique().alias("truth"))
        .with_columns(pl.min_horizontal(pl.col("truth").list.len(), pl.lit(k)).alias("events"))
        .filter(pl.col("events") > 0)
    )
    predicted = pl.scan_csv(submission, **read).select(
        pl.col(OTTO_ROW_ID), items(pl.col(OTTO_TARGET)).list.head(k).list.unique().alias("items")
    )
    hits = (
        truth.select(OTTO_ROW_ID, "truth")
        .explode("truth")
        .join(
            predicted.explode("items"),
            left_on=[OTTO_ROW_ID, "truth"],
            right_on=[OTTO_ROW_ID, "items"],
        )
        .group_by(OTTO_ROW_ID)
        .agg(pl.len().alias("hits"))
    )
    by_type = (
        truth.select(OTTO_ROW_ID, "events")
        .join(hits, on=OTTO_ROW_ID, how="left")
        .with_columns(
            pl.col("hits").fill_null(0),
            pl.col(OTTO_ROW_ID).str.split("_").list.last().alias("type"),
        )
        .group_by("type")
        .agg(
            (pl.col("hits") / pl.col("events")).mean().alias("recall"),
            (pl.col("hits").sum() / pl.col("events").sum()).alias("otto_recall"),
        )
        .collect()
    )
    recall = dict(zip(by_type["type"], by_type["recall"], strict=True))
    return sum(weight * recall[kind] for kind, weight in OTTO_WEIGHTS.items())


PIPELINES = {"polars": polars_map, "duckdb": duckdb_map, "polars-otto": polars_otto}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("engine", choices=sorted(PIPELINES))
    parser.add_argument("solution")
    parser.add_argument("submission")
    parser.add_argument("--k", type=int, default=None, help="default 10 (20 for polars-otto)")
    args = parser.parse_args(argv)
    k = args.k if args.k is not None else (20 if args.engine == "polars-otto" else 10)
    print(repr(PIPELINES[args.engine](args.solution, args.submission, k)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
