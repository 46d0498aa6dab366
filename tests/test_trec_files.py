"""trec_eval's qrels and run files: the reader against a slow reference of trec_eval's
line rules, the file limits, and values equal to trec_eval's (through pytrec_eval) once
a run and qrels are pivoted by the long layout and scored by ``evaluate``."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer import evaluate
from scorer.align.long_layout import long_solution_to_wide, long_to_wide
from scorer.check.findings import Wording, problems
from scorer.errors import HostVisibleError, ParticipantVisibleError
from scorer.read.files import ReadLimits
from scorer.read.trec import parse_trec, read_trec

pytrec_eval = pytest.importorskip(
    "pytrec_eval", reason="the test extra installs pytrec-eval-terrier"
)


def reference_parse(text: bytes, kind: str):
    """trec_eval's rules, one line at a time: (columns, malformed lines' first fields,
    unjudged)."""
    n_fields, kept = (4, (0, 2, 3)) if kind == "qrels" else (6, (0, 2, 4))
    columns: list[list[str]] = [[], [], []]
    malformed, unjudged = [], 0
    for line in text.split(b"\n"):
        fields = line.split()  # bytes.split(): ASCII whitespace, as C's isspace
        if not fields or (kind == "run" and fields[0].startswith(b"#")):
            continue
        if len(fields) < n_fields or (kind == "qrels" and len(fields) > n_fields):
            malformed.append(fields[0].decode())
            continue
        values = [fields[i].decode() for i in kept]
        if kind == "qrels" and values[2].startswith("-") and values[2].lstrip("-0")[:1].isdigit():
            unjudged += 1
            continue
        for column, value in zip(columns, values, strict=True):
            column.append(value)
    return columns, malformed, unjudged


TOKENS = [b"q1", b"q2", b"Q0", b"d1", b"d\xc3\xa92", b"0", b"1", b"-1", b"-0", b"2.5", b"#", b"#c"]
SEPARATORS = [b" ", b"  ", b"\t", b" \r", b"\x0b", b"\x0c"]


@st.composite
def trec_texts(draw):
    lines = []
    for _ in range(draw(st.integers(0, 12))):
        n = draw(st.integers(0, 8))
        tokens = [draw(st.sampled_from(TOKENS)) for _ in range(n)]
        seps = [draw(st.sampled_from(SEPARATORS)) for _ in range(n + 1)]
        lead = draw(st.sampled_from([b"", b" ", b"\t"]))
        lines.append(lead + b"".join(t + s for t, s in zip(tokens, seps, strict=False)))
    end = draw(st.sampled_from([b"", b"\n", b"\r\n"]))
    return b"\n".join(lines) + end


@settings(max_examples=400, deadline=None)
@given(trec_texts(), st.sampled_from(["qrels", "run"]))
def test_lines_split_as_trec_eval_splits_them(text, kind):
    columns, malformed, unjudged = reference_parse(text, kind)
    parsed = parse_trec(text, kind)
    assert [c.to_pylist() for c in parsed.table.columns] == columns
    assert parsed.n_unjudged == unjudged
    if malformed:
        (record,) = parsed.problems
        assert record.examples == tuple(sorted(set(malformed), key=str.encode)[:5])
        assert record.count("lines") == len(malformed)
    else:
        assert parsed.problems == ()


def test_blocks_of_lines_join_without_losing_a_line(monkeypatch):
    import scorer.read.trec as trec

    monkeypatch.setattr(trec, "_BLOCK_BYTES", 7)
    text = b"".join(b"q%d Q0 d%d 1 %d.5 t\n" % (i, i, i) for i in range(50)) + b"q9 Q0"
    parsed = parse_trec(text, "run")
    assert parsed.table.column("docno").to_pylist() == [f"d{i}" for i in range(50)]
    assert parsed.problems[0].examples == ("q9",)
    assert parsed.problems[0].count("lines") == 1


def test_malformed_lines_message_is_exact():
    (run,) = problems(parse_trec(b"q1 Q0 d1 1 0.5\nq1 Q0 d2 2 0.4 t\n", "run").problems, Wording())
    assert run.render() == (
        "Malformed lines\n"
        "   expected: lines of at least the 6 of qid Q0 docno rank score tag (fields after the "
        "sixth are ignored), separated by spaces or tabs\n"
        "   found:    1 line with fewer fields than the 6 of qid Q0 docno rank score tag\n"
        "   examples (row ids): 'q1'\n"
        "   fix:      write each line as qid Q0 docno rank score tag"
    )


def test_files_are_read_within_the_limits(tmp_path: Path):
    path = tmp_path / "run.gz"
    path.write_bytes(gzip.compress(b"q1 Q0 d1 1 0.5 t\n"))
    assert read_trec(path, "run", ParticipantVisibleError).table.column("qid").to_pylist() == ["q1"]
    long_line = tmp_path / "long.txt"
    long_line.write_bytes(b"q1 0 " + b"d" * 100 + b" 1\n")
    with pytest.raises(HostVisibleError, match=r"Line too long(.|\n)*1 line longer, the longest"):
        read_trec(long_line, "qrels", HostVisibleError, ReadLimits(max_line_bytes=50))
    binary = tmp_path / "bin.txt"
    binary.write_bytes(b"q1 0 d1 1\n\x00")
    with pytest.raises(ParticipantVisibleError, match="binary data: a NUL byte on line 2"):
        read_trec(binary, "run", ParticipantVisibleError)
    latin = tmp_path / "latin.txt"
    latin.write_bytes(b"q1 0 d1 1\n" * 10_000 + b"q1 0 d\xe9 1\n")
    with pytest.raises(HostVisibleError, match="byte 0xe9 on line 10,001 is not UTF-8"):
        read_trec(latin, "qrels", HostVisibleError)
    many = tmp_path / "many.txt"
    many.write_bytes(b"q 0 d 1\n" * 1000)
    with pytest.raises(HostVisibleError, match="Decompressed data too large"):
        read_trec(many, "qrels", HostVisibleError, ReadLimits(max_decompressed_bytes=20_000))


def test_a_parquet_file_is_not_a_trec_file(tmp_path: Path):
    import pyarrow.parquet as pq

    path = tmp_path / "run.parquet"
    pq.write_table(pa.table({"a": ["x"]}), path)
    with pytest.raises(ParticipantVisibleError, match="Not a text file"):
        read_trec(path, "run", ParticipantVisibleError)


# trec_eval name -> ours, for a run whose queries hold at most K documents.
K = 12
PAIRS = {
    "map": f"MAP(norm=relevant)@{K}",
    "P_5": "P@5",
    "P_10": "P@10",
    "recall_5": "R@5",
    "recall_10": "R@10",
    "ndcg_cut_5": "nDCG(gain=linear)@5",
    "ndcg_cut_10": "nDCG(gain=linear)@10",
    "recip_rank": f"MRR@{K}",
    "Rprec": "RPrec",
}


def _random_files(seed: int, n_queries: int = 200) -> tuple[bytes, bytes, dict, dict]:
    """Qrels and run text with many tied scores, and the same data for pytrec_eval."""
    rng = np.random.default_rng(seed)
    catalogue = [f"D{n:02d}" for n in range(40)] + ["d7", "d10", "e"]
    qrels_lines, run_lines, qrels, run = [], [], {}, {}
    for query in range(n_queries):
        qid = f"Q{query}"
        judged = rng.choice(catalogue, size=rng.integers(1, 15), replace=False).tolist()
        grades = rng.integers(0, 4, size=len(judged))
        grades[0] = max(grades[0], 1)
        ranked = rng.choice(catalogue, size=rng.integers(1, K + 1), replace=False).tolist()
        # Scores that float32 holds exactly: pytrec_eval bundles trec_eval 9, which kept
        # scores as float (trec_eval 10 reads doubles, as the scorer does).
        scores = rng.choice([2.0, 1.5, 1.5, 0.25, -0.0, 0.0, 2.0**-140], size=len(ranked))
        scores = scores.tolist()
        qrels[qid] = dict(zip(judged, map(int, grades), strict=True))
        run[qid] = dict(zip(ranked, map(float, scores), strict=True))
        qrels_lines += [f"{qid} 0 {d} {g}" for d, g in zip(judged, grades, strict=True)]
        run_lines += [
            f"{qid}\tQ0 {d} {rank} {s!r} tag"
            for rank, (d, s) in enumerate(zip(ranked, scores, strict=True))
        ]
    order = rng.permutation(len(run_lines))
    run_text = "\n".join(run_lines[i] for i in order) + "\n"
    return "\n".join(qrels_lines).encode(), run_text.encode(), qrels, run


def _scored(qrels_text: bytes, run_text: bytes, ties: str):
    qrels = parse_trec(qrels_text, "qrels").table
    run = parse_trec(run_text, "run").table
    truth = long_solution_to_wide(qrels.column("qid"), qrels.column("docno"), qrels.column("rel"))
    ranked = long_to_wide(
        run.column("qid"), run.column("docno"), scores=run.column("score"), ties=ties
    )
    assert not truth.problems and not ranked.problems
    solution = pa.table({"qid": truth.row_ids, "items": truth.items, "grades": truth.grades})
    submission = pa.table({"qid": ranked.row_ids, "items": ranked.items})
    result = evaluate(
        solution, submission, "qid", k=K, metrics=list(PAIRS.values()), grade_column_name="grades"
    )
    return result, truth.row_ids.to_pylist()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_run_and_qrels_score_as_trec_eval_scores_them(seed):
    qrels_text, run_text, qrels, run = _random_files(seed)
    theirs = pytrec_eval.RelevanceEvaluator(
        qrels, {"map", "P", "recall", "ndcg_cut", "recip_rank", "Rprec"}
    ).evaluate(run)
    ours, qids = _scored(qrels_text, run_text, "descending")
    for trec_name, name in PAIRS.items():
        expected = np.array([theirs[q][trec_name] for q in qids])
        assert np.abs(ours.user_values[name] - expected).max() <= 1e-12, trec_name
        assert abs(ours.metrics[name] - expected.mean()) <= 1e-12, trec_name
    # The other tie order gives other values on these ties: the test sees the rule.
    other, _ = _scored(qrels_text, run_text, "ascending")
    assert other.metrics != ours.metrics
