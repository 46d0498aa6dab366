"""trec_eval's qrels and run files: the reader against a slow reference of trec_eval's
line rules, the file limits, the judging of a run (ranks, ties, -M, -J) against a slow
reference, and values equal to trec_eval's (through pytrec_eval) from ``evaluate``."""

from __future__ import annotations

import gzip
import io
import math
import re
import zipfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer import evaluate
from scorer.align.trec_runs import NOT_IN_POOL, UNJUDGED, TrecRules, judge_run
from scorer.check.findings import Wording, problems
from scorer.errors import HostVisibleError, ParticipantVisibleError
from scorer.read.files import ReadLimits
from scorer.read.trec import parse_trec, read_trec
from tests.commands import run_scorer
from tests.seams import collide_prints

pytrec_eval = pytest.importorskip(
    "pytrec_eval", reason="the test extra installs pytrec-eval-terrier"
)

_DECIMAL = re.compile(rb"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def reference_parse(text: bytes, kind: str) -> dict:
    """trec_eval 10's rules, one line at a time: each kept line's fields, and the
    numbers of the malformed lines and of those whose number is none."""
    n_fields, number = (4, 3) if kind == "qrels" else (6, 4)
    found: dict = {"qids": [], "docnos": [], "values": [], "malformed": [], "invalid": []}
    run_id = ""
    for line_number, line in enumerate(text.split(b"\n"), 1):
        fields = line.split()  # bytes.split(): ASCII whitespace, as C's isspace
        if not fields or fields[0].startswith(b"#"):
            continue
        if len(fields) < n_fields or (kind == "qrels" and len(fields) > n_fields):
            found["malformed"].append(line_number)
            continue
        field = fields[number]
        if kind == "qrels":
            valid = re.fullmatch(rb"[+-]?[0-9]{1,18}", field) is not None
            value = int(field) if valid else 0
        else:
            valid = _DECIMAL.fullmatch(field) is not None and math.isfinite(float(field))
            value = float(field) if valid else 0.0
            run_id = fields[5].decode()
        if not valid:
            found["invalid"].append(line_number)
        found["qids"].append(fields[0].decode())
        found["docnos"].append(fields[2].decode())
        found["values"].append(value)
    return {**found, "run_id": run_id}


TOKENS = [b"q1", b"q2", b"Q0", b"d1", b"d\xc3\xa92", b"0", b"1", b"-1", b"-0", b"+3", b"2.5"]
TOKENS += [b"1e400", b"#", b"#c", b"x"]
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


def lines_of(record) -> list[int]:
    """The line numbers a problem record shows (its first five)."""
    return [int(example.split(":")[0]) for example in record.examples]


@settings(max_examples=300, deadline=None)
@given(trec_texts(), st.sampled_from(["qrels", "run"]))
def test_lines_split_as_trec_eval_splits_them(text, kind):
    expected = reference_parse(text, kind)
    parsed = parse_trec(text, kind)
    assert parsed.qids.take(pa.array(parsed.qid_codes())).to_pylist() == expected["qids"]
    assert parsed.docnos.to_pylist() == expected["docnos"]
    assert parsed.values.tolist() == expected["values"]
    assert parsed.run_id == expected["run_id"]
    records = {record.kind: record for record in parsed.problems}
    for kind_name, key in (("malformed_lines", "malformed"), ("invalid_numbers", "invalid")):
        if expected[key]:
            assert records[kind_name].count("lines") == len(expected[key])
            assert lines_of(records[kind_name]) == expected[key][:5]
        else:
            assert kind_name not in records


def test_blocks_of_lines_join_without_losing_a_line(monkeypatch):
    import scorer.read.trec as trec

    monkeypatch.setattr(trec, "_BLOCK_BYTES", 7)
    text = b"".join(b"q%d Q0 d%d 1 %d.5 t\n" % (i // 3, i, i) for i in range(50)) + b"q9 Q0"
    parsed = parse_trec(text, "run")
    assert parsed.docnos.to_pylist() == [f"d{i}" for i in range(50)]
    assert parsed.values.tolist() == [i + 0.5 for i in range(50)]
    assert np.diff(parsed.qid_ends, prepend=0).sum() == 50
    (record,) = parsed.problems
    assert record.examples == ("51: 'q9 Q0'",) and record.count("lines") == 1


def test_the_lines_messages_name_the_line_and_the_fix():
    text = b"query_id doc_id score\nq1 Q0 d2 2 0.4 t\nq1 Q0 d3 3 x t\n"
    found = problems(parse_trec(text, "run").problems, Wording())
    assert "\n\n".join(p.render() for p in found) == (
        "Malformed lines\n"
        "   expected: lines of at least the 6 fields of qid Q0 docno rank score tag, separated "
        "by spaces or tabs (fields after the sixth are ignored)\n"
        "   found:    1 line with fewer fields\n"
        "   examples (lines): 1: 'query_id doc_id score'\n"
        "   fix:      write each line as qid Q0 docno rank score tag (a trec_eval file has no "
        "header line: remove it)\n\n"
        "Invalid scores\n"
        "   expected: each line's score (field 5 of qid Q0 docno rank score tag) a finite number\n"
        "   found:    1 line whose score is not a finite number\n"
        "   examples (lines): 3: 'x'\n"
        "   fix:      write each score as a plain decimal number such as 0.25 or -1.5e-3"
    )
    (rel,) = problems(parse_trec(b"q1 0 d1 1.5\n", "qrels").problems, Wording())
    assert rel.title == "Invalid rels"
    assert rel.fix.startswith("write each rel as a whole number")


@pytest.mark.parametrize("text", ["# a comment\n#another\n", "#\n\n  \n"])
def test_qrels_without_a_judgement_are_the_hosts_error(tmp_path: Path, text: str):
    # Not a run that names no query of them (the participant's error).
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(text)
    run.write_text("q1 Q0 d1 1 0.5 t\n")
    expected = (
        "No judgement in the qrels\n"
        "   expected: lines 'qid iter docno rel'\n"
        "   found:    only comments (a first field that starts with #) and blank lines\n"
    )
    with pytest.raises(HostVisibleError, match=re.escape(expected)):
        evaluate(qrels, run, format="trec")


def _two_member_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("a.txt", "q1 Q0 d1 1 1 t\n")
        archive.writestr("b.txt", "q1 Q0 d2 1 1 t\n")
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("content", "title", "limits"),
    [
        (b"q1 Q0 d1 1 1 t\n\x00", "Not UTF-8 text", None),
        (b"q1 Q0 d\xe9 1 1 t\n", "Not UTF-8 text", None),
        (gzip.compress(b"q1 Q0 d1 1 1 t\n" * 100, mtime=0)[:30], "Unreadable file", None),
        (_two_member_zip(), "Not exactly one file in the zip archive", None),
        (b"q1 Q0 d1 1 1 t\n", "Line too long", ReadLimits(max_line_bytes=10)),
    ],
    ids=["binary", "latin-1", "broken-gzip", "zip-of-two", "long-line"],
)
def test_a_trec_files_refusal_names_a_trec_eval_file_not_a_csv(tmp_path, content, title, limits):
    path = tmp_path / "run"
    path.write_bytes(content)
    with pytest.raises(ParticipantVisibleError, match=re.escape(title)) as raised:
        read_trec(path, "run", ParticipantVisibleError, limits)
    assert "trec_eval run file" in str(raised.value)
    assert "CSV" not in str(raised.value) and "to_csv" not in str(raised.value)
    if title == "Unreadable file":  # a broken archive: compress it again
        assert "fix:      compress the trec_eval run file again, or give it uncompressed" in str(
            raised.value
        )


def test_a_folder_given_as_a_trec_file_is_refused_as_such(tmp_path):
    with pytest.raises(
        HostVisibleError,
        match=re.escape(
            f"The submission path {str(tmp_path)!r} is a directory. Give the path of the "
            "trec_eval run file itself (plain, gzipped or zipped)."
        ),
    ):
        read_trec(tmp_path, "run", ParticipantVisibleError)


def test_files_are_read_within_the_limits(tmp_path: Path):
    path = tmp_path / "run.gz"
    path.write_bytes(gzip.compress(b"q1 Q0 d1 1 0.5 t\n"))
    assert read_trec(path, "run", ParticipantVisibleError).qids.to_pylist() == ["q1"]
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


# --- judging a run: a slow reference of form_res_rels.c -----------------------------------


def reference_judged(qrels: list[tuple], run: list[tuple], rules: TrecRules) -> dict:
    """Per qrels query (byte order): the judgement of each ranked document, as trec_eval
    10's ``te_form_res_rels`` assigns them (sort by score, then docno, descending; keep
    ``-M``; judge; with ``-J`` drop the unjudged)."""
    judged: dict[str, dict[str, int]] = {}
    for qid, docno, rel in qrels:
        judged.setdefault(qid, {})
        judged[qid][docno] = max(rel, judged[qid].get(docno, rel))
    found = {}
    for qid in sorted(judged, key=str.encode):
        lines = [(docno, score) for q, docno, score in run if q == qid]
        lines.sort(key=lambda line: (-(line[1] + 0.0), _descending(line[0])))
        if rules.max_ranked is not None:
            lines = lines[: rules.max_ranked]
        grades = []
        for docno, _ in lines:
            rel = judged[qid].get(docno)
            grades.append(NOT_IN_POOL if rel is None else UNJUDGED if rel < 0 else rel)
        if rules.judged_only:
            grades = [grade for grade in grades if grade >= 0]
        found[qid] = grades
    return found


def _descending(text: str) -> tuple[int, ...]:
    """A key that sorts strings in descending byte order (a longer one first on a tie,
    as ``strcmp`` puts ``ab`` after ``a``)."""
    return (*(-byte for byte in text.encode()), 0)


@st.composite
def judged_files(draw):
    qids = draw(st.lists(st.sampled_from(["q1", "q10", "q2", "Q", "é"]), min_size=1, max_size=4))
    docs = st.sampled_from(["a", "ab", "b", "B", "d\u00e9", "10", "9"])
    qrels = [
        (draw(st.sampled_from(qids)), draw(docs), draw(st.integers(-2, 3)))
        for _ in range(draw(st.integers(1, 10)))
    ]
    # equal scores, and scores equal but in their last bits (one key for several lines)
    near = [1.0000000000000002, 0.9999999999999999, -1.0000000000000002]
    scores = st.sampled_from([0.0, -0.0, 1.0, 1.0, 2.5, -3.0, 1e-300, -1.0, *near])
    pairs = draw(
        st.lists(st.tuples(st.sampled_from([*qids, "q_extra"]), docs), unique=True, max_size=14)
    )
    run = [(qid, docno, draw(scores)) for qid, docno in pairs]
    rules = TrecRules(
        draw(st.integers(1, 3)), draw(st.sampled_from([None, 1, 2, 5])), draw(st.booleans())
    )
    return qrels, draw(st.permutations(run)), rules


@settings(max_examples=300, deadline=None)
@given(judged_files(), st.booleans())
def test_a_run_is_judged_as_trec_eval_judges_it(files, collide):
    """Also with every docno's print equal (every pair of a query then shares its key,
    which chance alone does once in 2**64 pairs): every pair is still told apart by its
    string."""
    qrels, run, rules = files
    qrels_text = "".join(f"{q} 0 {d} {r}\n" for q, d, r in qrels).encode()
    run_text = "".join(f"{q} Q0 {d} 0 {s!r} tag\n" for q, d, s in run).encode()
    with pytest.MonkeyPatch.context() as patch:
        if collide:
            collide_prints(patch)
        judged = judge_run(parse_trec(qrels_text, "qrels"), parse_trec(run_text, "run"), rules)
    expected = reference_judged(qrels, run, rules)
    assert judged.queries.to_pylist() == list(expected)
    assert judged.lengths.tolist() == [len(grades) for grades in expected.values()]
    flat = judged.judgements.flat
    entries = list(zip(flat.users.tolist(), flat.ranks.tolist(), flat.grades.tolist(), strict=True))
    assert entries == [
        (user, rank, grade)
        for user, grades in enumerate(expected.values())
        for rank, grade in enumerate(grades)
        if grade > 0
    ]
    assert flat.hit.tolist() == [grade >= rules.relevance_level for *_, grade in entries]
    relevant = [
        sum(rel >= rules.relevance_level for rel in _largest(qrels, qid).values())
        for qid in expected
    ]
    assert judged.judgements.n_relevant.tolist() == relevant
    in_run = {q for q, _, _ in run}
    assert judged.in_run.tolist() == [qid in in_run for qid in expected]


def _largest(qrels: list[tuple], qid: str) -> dict[str, int]:
    found: dict[str, int] = {}
    for q, docno, rel in qrels:
        if q == qid:
            found[docno] = max(rel, found.get(docno, rel))
    return found


@pytest.mark.parametrize("collide", [False, True])
def test_a_docno_retrieved_twice_is_found_whatever_its_scores(collide, monkeypatch):
    if collide:  # a, b and a share one key: the repeat is still found by its string
        collide_prints(monkeypatch)
    qrels = parse_trec(b"q1 0 a 1\nq2 0 b 1\n", "qrels")
    run = parse_trec(b"q1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\nq1 Q0 a 3 1 t\nq2 Q0 b 1 1 t\n", "run")
    (record,) = judge_run(qrels, run, TrecRules()).run_problems
    assert (record.kind, record.counts, record.examples) == (
        "docnos_repeated",
        (("qids", 1), ("extra", 1)),
        ("q1 a",),  # the qid and docno of the repeated line
    )
    # past -M, as trec_eval (it checks only the documents it keeps)
    assert judge_run(qrels, run, TrecRules(max_ranked=2)).run_problems == ()


# --- values against trec_eval 9 (pytrec_eval) ----------------------------------------------

PAIRS = {
    "map": "MAP(norm=relevant)@all",
    "P_5": "P@5",
    "P_10": "P@10",
    "recall_5": "R@5",
    "recall_10": "R@10",
    "ndcg_cut_5": "nDCG(gain=linear)@5",
    "ndcg_cut_10": "nDCG(gain=linear)@10",
    "recip_rank": "MRR@all",
    "Rprec": "RPrec",
}


def _random_files(seed: int, n_queries: int = 200) -> tuple[bytes, bytes, dict, dict]:
    """Qrels and run text with many tied scores, queries with no relevant document and
    deep rankings, and the same data for pytrec_eval."""
    rng = np.random.default_rng(seed)
    catalogue = [f"D{n:02d}" for n in range(40)] + ["d7", "d10", "e"]
    qrels_lines, run_lines, qrels, run = [], [], {}, {}
    for query in range(n_queries):
        qid = f"Q{query}"
        judged = rng.choice(catalogue, size=rng.integers(1, 15), replace=False).tolist()
        grades = rng.integers(-1, 4, size=len(judged))
        ranked = rng.choice(catalogue, size=rng.integers(1, 40), replace=False).tolist()
        # Scores that float32 holds exactly: pytrec_eval bundles trec_eval 9, which kept
        # scores as float (trec_eval 10 reads doubles, as the scorer does).
        scores = rng.choice([2.0, 1.5, 1.5, 0.25, -0.0, 0.0, 2.0**-140], size=len(ranked))
        qrels[qid] = {d: int(g) for d, g in zip(judged, grades, strict=True) if g >= 0}
        run[qid] = dict(zip(ranked, map(float, scores.tolist()), strict=True))
        qrels_lines += [f"{qid} 0 {d} {g}" for d, g in zip(judged, grades, strict=True)]
        run_lines += [
            f"{qid}\tQ0 {d} {rank} {s!r} tag"
            for rank, (d, s) in enumerate(zip(ranked, scores.tolist(), strict=True))
        ]
    order = rng.permutation(len(run_lines))
    run_text = "\n".join(run_lines[i] for i in order) + "\n"
    return "\n".join(qrels_lines).encode(), run_text.encode(), qrels, run


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_run_and_qrels_score_as_trec_eval_scores_them(tmp_path, seed):
    qrels_text, run_text, qrels, run = _random_files(seed)
    (tmp_path / "qrels").write_bytes(qrels_text)
    (tmp_path / "run").write_bytes(run_text)
    theirs = pytrec_eval.RelevanceEvaluator(
        qrels, {"map", "P", "recall", "ndcg_cut", "recip_rank", "Rprec"}
    ).evaluate(run)
    metrics = list(PAIRS.values())
    ours = evaluate(tmp_path / "qrels", tmp_path / "run", format="trec", metrics=metrics)
    qids = ours.row_ids.to_pylist()  # every query of the qrels, in byte order
    assert qids == sorted(qids, key=str.encode) and ours.n_scored == len(qids) == len(qrels)
    # pytrec_eval drops a query whose every judgement is negative; trec_eval scores it 0
    unjudged = [q for q in qids if not qrels[q]]
    assert unjudged and not set(unjudged) & set(theirs)
    for trec_name, name in PAIRS.items():
        expected = np.array([theirs[q][trec_name] if qrels[q] else 0.0 for q in qids])
        assert np.abs(ours.user_values[name] - expected).max() <= 1e-12, trec_name
        assert abs(ours.metrics[name] - expected.mean()) <= 1e-12, trec_name


@pytest.mark.parametrize(
    ("filler", "code"), [(b"\n", 0), (b"# a comment\n", 0), (b"q1 Q0\n", 1)], ids=repr
)
@pytest.mark.parametrize("where", ["run", "qrels"])
def test_a_block_of_the_file_without_a_whole_line_is_read_as_any(tmp_path, filler, code, where):
    """A block of a file (the reader takes one of about _BLOCK_BYTES at a time) that
    holds no line of every field, only blank, comment or short lines, adds no query:
    the file scores as without them, or is refused for its short lines (exit 1 for the
    run, 2 for the qrels), never an internal error."""
    import scorer.read.trec as trec

    qrels, run = b"q1 0 d1 1\nq2 0 d3 1\n", b"q1 Q0 d1 1 1 t\n"
    padding = filler * (2 * trec._BLOCK_BYTES // len(filler) + 1)
    (tmp_path / "qrels").write_bytes(padding + qrels if where == "qrels" else qrels)
    (tmp_path / "run").write_bytes(run + padding if where == "run" else run)
    found = run_scorer("trec-eval", "-q", tmp_path / "qrels", tmp_path / "run")
    expected = code if code == 0 or where == "run" else 2
    assert found.returncode == expected, found.stderr
    if expected == 0:
        assert re.search(r"map\s+q1\s+1\.0000", found.stdout)
    else:
        assert "Malformed lines" in found.stderr and "Traceback" not in found.stderr
