"""Score Spark DataFrames exactly, part by part: :func:`evaluate` (docs/beyond-one-machine.md,
"Beyond one machine"). Needs the ``spark`` extra (``pip install "rankscore[spark]"``, Spark 3.5 or
later); nothing else in :mod:`scorer` imports pyspark.

Spark only moves rows: both frames get each row's part (:func:`scorer.partial.partition`,
computed in Spark from the row id), are co-grouped by it, and each part is scored by
:func:`scorer.partial.score_part` on an executor (``applyInArrow`` on Spark 4, else
``applyInPandas``); the partials come back to the driver as JSON text, a few kilobytes
each, and are merged and finished there.
"""

from __future__ import annotations

from functools import cache
from functools import partial as bind
from typing import Any

import pandas as pd
import pyarrow as pa

from scorer.adapters.engines import (
    free_name,
    n_parts_of,
    part_text,
    refuse_other_frames,
    require,
    row_id_of,
    run,
)
from scorer.partial import partition
from scorer.result import ScoreResult

_OUTPUT = "partial string"


def evaluate(
    solution: Any,
    submission: Any,
    row_id_column_name: str | None = None,
    *,
    n_parts: int | None = None,
    part_seed: int = 0,
    **options: Any,
) -> ScoreResult:
    """:func:`scorer.evaluate` on two Spark DataFrames, scored in parts on the executors.

    The result equals :func:`scorer.evaluate`'s on the same data (the frames as Arrow
    tables, or as pandas DataFrames of string columns): every value (``==``), split,
    count and warning, and for invalid input the same error class and message. The
    per-user arrays stay empty, as after :func:`scorer.partial.finish`.

    Parameters
    ----------
    solution, submission : pyspark.sql.DataFrame
        The solution and the submission, with the columns :func:`scorer.evaluate`
        takes (read CSV files as strings: ``inferSchema`` off).
    row_id_column_name : str, optional
        The row-id column; the solution's first column by default.
    n_parts : int, optional
        How many parts (co-groups) to score: each is held whole by one Python worker,
        about 650 bytes per user. By default one per 500,000 solution rows (the
        solution is counted first).
    part_seed : int, default 0
        The seed of :func:`scorer.partial.partition`: another seed, another split
        (and the same result).
    **options
        :func:`scorer.evaluate`'s keyword arguments, as far as
        :func:`scorer.partial.score_part` takes them.

    Returns
    -------
    ScoreResult

    Raises
    ------
    ParticipantVisibleError, HostVisibleError
        As :func:`scorer.evaluate` raises them; or pyspark is not installed, or an
        input is not a Spark DataFrame.

    Examples
    --------
    >>> import scorer, scorer.spark
    >>> from pyspark.sql import SparkSession  # doctest: +SKIP
    >>> spark = SparkSession.builder.master("local[2]").getOrCreate()  # doctest: +SKIP
    >>> solution = spark.createDataFrame([("u1", "a b"), ("u2", "c")], "id string, items string")
    ... # doctest: +SKIP
    >>> submission = spark.createDataFrame([("u2", "c"), ("u1", "b")], "id string, items string")
    ... # doctest: +SKIP
    >>> scorer.spark.evaluate(solution, submission, "id", k=2, n_parts=2).score  # doctest: +SKIP
    0.75
    """
    sql = require("pyspark.sql", "spark", "pyspark")
    refuse_other_frames({"solution": solution, "submission": submission}, sql.DataFrame, "spark")
    from pyspark.sql.pandas.types import to_arrow_schema

    schemas = to_arrow_schema(solution.schema), to_arrow_schema(submission.schema)
    row_id = row_id_of(row_id_column_name, schemas[0].names)
    key = free_name(schemas[0].names, schemas[1].names)
    count = cache(solution.count)  # once, and only after the options are checked

    def score_parts(part_options: dict[str, Any]) -> list[str]:
        how_many = n_parts_of(n_parts, count)
        sides = [
            frame.withColumn(
                key,
                _parts_udf(schema.field(row_id).type, how_many, part_seed)(frame[_quoted(row_id)]),
            ).groupBy(key)
            for frame, schema in zip((solution, submission), schemas, strict=True)
        ]
        grouped = sides[0].cogroup(sides[1])
        score = bind(_score_cogroup, schemas, row_id, part_options)
        if hasattr(grouped, "applyInArrow"):  # Spark 4: the parts stay Arrow tables
            scored = grouped.applyInArrow(score, _OUTPUT)
        else:
            scored = grouped.applyInPandas(score, _OUTPUT)
        return [row[0] for row in scored.collect()]

    empty = [schema.empty_table() for schema in schemas]
    if n_parts is not None:
        n_parts_of(n_parts, count)  # refused before any job runs
    return run(empty[0], empty[1], row_id, options, score_parts)


def _quoted(name: str) -> str:
    """A column name as Spark resolves it literally (dots and backticks included)."""
    return "`" + name.replace("`", "``") + "`"


def _parts_udf(id_type: pa.DataType, n_parts: int, seed: int) -> Any:
    """A pandas UDF giving each row id its part, as Arrow holds the id (so that an
    integer id with gaps, a float in pandas, hashes as its integer text)."""
    from pyspark.sql.functions import pandas_udf

    def parts(ids: pd.Series) -> pd.Series:
        return pd.Series(partition(pa.Array.from_pandas(ids, type=id_type), n_parts, seed))

    return pandas_udf(parts, "long")  # type: ignore[call-overload]


def _score_cogroup(
    schemas: tuple[pa.Schema, pa.Schema],
    row_id: str,
    options: dict[str, Any],
    solution: pa.Table | pd.DataFrame,
    submission: pa.Table | pd.DataFrame,
) -> pa.Table | pd.DataFrame:
    """One co-group (part) scored on an executor: its partial's JSON text, as a table
    of the type Spark handed over."""
    text = part_text(_side(solution, schemas[0]), _side(submission, schemas[1]), row_id, options)
    if isinstance(solution, pd.DataFrame):
        return pd.DataFrame({"partial": [text]})
    return pa.table({"partial": [text]})


def _side(data: pa.Table | pd.DataFrame, schema: pa.Schema) -> pa.Table:
    """A part of one input as an Arrow table of the input's own columns and types
    (without the part column; pandas' floats for integers with gaps turned back)."""
    if data.shape[1] == 0:  # a side without rows may come without columns
        return schema.empty_table()
    if isinstance(data, pd.DataFrame):
        return pa.Table.from_pandas(data[schema.names], schema=schema, preserve_index=False)
    return data.select(schema.names)
