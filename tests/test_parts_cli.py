"""The command line on directories of Parquet parts: scored part by part, the result is
evaluate's on the whole data (values, splits, counts, warnings, error text)."""

from __future__ import annotations

import json
import os

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import scorer
from scorer.adapters.cli import main
from scorer.adapters.parts import chosen_parts, parquet_files


def _run(n_users: int = 400, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    ids = [f"c{i:05d}" for i in range(n_users)]
    truth = [" ".join(f"i{j}" for j in rng.choice(30, rng.integers(0, 4), replace=False))
             for _ in ids]  # fmt: skip
    ranked = [" ".join(f"i{j}" for j in rng.choice(30, rng.integers(0, 6), replace=False))
              for _ in ids]  # fmt: skip
    usage = rng.choice(["Public", "Private", "Ignored"], n_users)
    solution = pd.DataFrame({"customer_id": ids, "prediction": truth, "Usage": usage})
    submission = pd.DataFrame({"customer_id": ids, "prediction": ranked}).sample(
        frac=1, random_state=seed
    )
    return solution, submission


def _write_dataset(frame: pd.DataFrame, folder, n_files: int, hive: bool) -> None:
    """The rows in ``n_files`` Parquet files in any order (as an engine writes them),
    in hive-style subfolders or side by side, beside a _SUCCESS marker."""
    os.makedirs(folder, exist_ok=True)
    (folder / "_SUCCESS").write_text("")
    chunks = np.array_split(np.arange(len(frame)), n_files)
    for index, rows in enumerate(chunks):
        place = folder / f"bucket={index % 2}" if hive else folder
        os.makedirs(place, exist_ok=True)
        table = pa.Table.from_pandas(frame.iloc[rows], preserve_index=False)
        pq.write_table(table, place / f"part-{index:05d}.parquet")


@pytest.mark.parametrize(("n_parts", "hive"), [("1", False), ("3", True), ("7", False)])
def test_parts_give_the_whole_runs_result(tmp_path, capsys, n_parts, hive) -> None:
    solution, submission = _run()
    _write_dataset(solution, tmp_path / "solution", 3, hive)
    _write_dataset(submission, tmp_path / "submission", 4, not hive)
    metrics = ["MAP@5", "nDCG@5", "P(avg=micro)@3"]
    expected = scorer.evaluate(solution, submission, k=5, metrics=metrics)
    flags = [f"--metric={m}" for m in metrics]
    code = main([str(tmp_path / "solution"), str(tmp_path / "submission"), "-k", "5",
                 "--parts", n_parts, "--json", *flags])  # fmt: skip
    assert code == 0
    found = json.loads(capsys.readouterr().out)
    assert found == json.loads(json.dumps(expected.to_dict()))
    assert main([str(tmp_path / "solution"), str(tmp_path / "submission"), "-k", "5", *flags]) == 0
    assert capsys.readouterr().out.startswith(f"MAP@5: {expected.score!r}")


@pytest.mark.parametrize("n_parts", ["1", "4"])
def test_auc_with_candidates_in_parts_is_evaluates(tmp_path, capsys, n_parts) -> None:
    """The candidates column of the solution's parts gives AUC its non-relevant items
    (refused before as "the solution judges none", even in one part)."""
    solution, submission = _run(seed=2)
    ranked = dict(zip(submission["customer_id"], submission["prediction"], strict=True))
    solution["cands"] = [
        " ".join(dict.fromkeys([*truth.split(), *ranked[i].split(), "i29"]))
        for i, truth in zip(solution["customer_id"], solution["prediction"], strict=True)
    ]
    options = {"metrics": ["AUC", "MAP@5"], "candidates_column_name": "cands", "k": 5}
    expected = scorer.evaluate(solution, submission, candidate_rule="subset", **options)
    _write_dataset(solution, tmp_path / "solution", 2, False)
    _write_dataset(submission, tmp_path / "submission", 3, False)
    code = main([str(tmp_path / "solution"), str(tmp_path / "submission"), "--parts", n_parts,
                 "--json", "--metric=AUC", "--metric=MAP@5", "-k", "5",
                 "--candidates-column", "cands", "--candidate-rule", "subset"])  # fmt: skip
    assert code == 0
    assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(expected.to_dict()))


def test_parts_with_ci_print_poisson_intervals_the_same_for_any_parts(tmp_path, capsys) -> None:
    solution, submission = _run()
    _write_dataset(solution, tmp_path / "solution", 2, False)
    _write_dataset(submission, tmp_path / "submission", 2, False)
    outputs = []
    for n_parts in ("1", "4"):
        main([str(tmp_path / "solution"), str(tmp_path / "submission"), "--parts", n_parts,
              "--ci", "--resamples", "50", "--seed", "3"])  # fmt: skip
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]
    assert "95% intervals (Poisson bootstrap over row ids, 50 resamples, seed 3):" in outputs[0]


def test_an_invalid_submission_in_parts_reads_as_evaluates(tmp_path, capsys) -> None:
    solution, submission = _run()
    broken = submission.iloc[5:].copy()  # five rows missing
    broken.iloc[0, 1] = " ".join(f"i{j}" for j in range(12))  # too many predictions
    _write_dataset(solution, tmp_path / "solution", 2, False)
    _write_dataset(broken, tmp_path / "submission", 3, True)
    with pytest.raises(scorer.ParticipantVisibleError) as expected:
        scorer.evaluate(solution, broken)
    code = main([str(tmp_path / "solution"), str(tmp_path / "submission"), "--parts", "5"])
    assert code == 1
    assert str(expected.value) in capsys.readouterr().err


def test_parts_refuse_what_they_cannot_read(tmp_path, capsys) -> None:
    solution, submission = _run(20)
    _write_dataset(solution, tmp_path / "solution", 2, False)
    os.makedirs(tmp_path / "empty")
    assert main([str(tmp_path / "solution"), str(tmp_path / "empty")]) == 2  # a usage error
    assert "is a directory holding no .parquet file" in capsys.readouterr().err
    os.makedirs(tmp_path / "csv")
    submission.to_csv(tmp_path / "csv" / "part-0.parquet", index=False)
    assert main([str(tmp_path / "solution"), str(tmp_path / "csv")]) == 1
    assert "Not a Parquet file" in capsys.readouterr().err
    _write_dataset(submission, tmp_path / "big", 1, False)
    code = main([str(tmp_path / "solution"), str(tmp_path / "big"), "--max-input-bytes", "100"])
    assert code == 2  # every part file is held to the read limits, the solution's first
    assert "File too large" in capsys.readouterr().err
    assert main([str(tmp_path / "solution"), str(tmp_path / "big"), "--parts", "0"]) == 2
    # no budget for a part: a usage error, not a ZeroDivisionError (exit 3)
    assert main([str(tmp_path / "solution"), str(tmp_path / "big"), "--part-memory", "0"]) == 2
    assert "'part_memory' parameter (--part-memory) must be an int" in capsys.readouterr().err


def test_the_number_of_parts_follows_the_size_and_budget(tmp_path) -> None:
    solution, _ = _run(2000)
    _write_dataset(solution, tmp_path / "s", 4, True)
    files = parquet_files(str(tmp_path / "s"), scorer.HostVisibleError)
    assert len(files) == 4 and all(f.endswith(".parquet") for f in files)
    size = sum(os.path.getsize(f) for f in files)
    assert chosen_parts(files, size * 4) == 1
    assert chosen_parts(files, size) == 4
    assert chosen_parts(files, 1) == 256
