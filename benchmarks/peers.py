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


PIPELINES = {"polars": polars_map, "duckdb": duckdb_map}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("engine", choices=sorted(PIPELINES))
    parser.add_argument("solution")
    parser.add_argument("submission")
    parser.add_argument("--k", type=int, default=10)
    args = parser.parse_args(argv)
    print(repr(PIPELINES[args.engine](args.solution, args.submission, args.k)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
