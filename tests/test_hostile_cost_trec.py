"""A trec_eval run crafted against the check of repeated docnos: every line of one query
retrieving one docno (each line a repeat, so each is an example candidate and the joined
qid and docno of each is made), against a run of as many random lines. The run ends as
documented, within the resource contract (docs/formats-and-limits.md: 256 MiB + 4 x the
decoded inputs, each field's text plus 8 bytes) and in CPU time like the random run.
(Its peak is above the random run's, which finds no repeat: the check of the repeated
lines holds their keys and docnos, within the contract.)"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tests.cost import (
    DECODED_BYTES_PER_CELL,
    MAX_TIME_RATIO,
    assert_ended,
    cost_run,
    memory_bound,
    write_bytes,
)

LINES = 1_000_000
QID = "q" * 40  # a long qid: each repeated line's example joins it to its docno


def _decoded(path: Path, fields: int) -> int:
    """A headerless file of whitespace-separated fields, as the contract counts it."""
    lines = path.read_bytes().count(b"\n")
    return path.stat().st_size + DECODED_BYTES_PER_CELL * fields * lines


def test_a_run_repeating_one_docno_on_every_line_costs_like_a_random_run(tmp_path: Path):
    qrels = write_bytes(tmp_path, "qrels", f"{QID} 0 d1 1\n".encode())
    crafted = write_bytes(tmp_path, "crafted", f"{QID} Q0 d1 1 1.5 t\n".encode() * LINES)
    docnos = (np.random.default_rng(0).permutation(LINES) + 10**6).astype(str)  # distinct
    random = write_bytes(
        tmp_path, "random", "".join(f"{QID} Q0 {d} 1 1.5 t\n" for d in docnos).encode()
    )
    repeated, distinct = (cost_run("trec-eval", qrels, run) for run in (crafted, random))
    assert_ended(repeated, 1)
    assert_ended(distinct, 0)
    assert f"examples (qid docno): '{QID}' 'd1'\n" in repeated.stderr  # the repeats' example
    decoded = _decoded(crafted, 6) + _decoded(qrels, 4)
    assert repeated.peak_rss_bytes <= memory_bound(decoded)
    assert repeated.cpu_seconds <= MAX_TIME_RATIO * distinct.cpu_seconds


def test_a_run_of_fields_cut_by_carriage_returns_is_one_long_line(tmp_path: Path):
    """A run line of 50 MB whose fields a CR separates (trec_eval's lines end at LF
    alone, a CR is whitespace within one): the check of line lengths reads it as the
    parser does, one line past the limit, and refuses it, within the contract (read as
    lines cut by each CR, it passed the check and its parse held ten times its size)."""
    qrels = write_bytes(tmp_path, "qrels", b"q1 0 d1 1\n")
    crafted = write_bytes(tmp_path, "crafted", b"q1 Q0 d1 1 1 t" + b"\rx" * 25_000_000 + b"\n")
    found = cost_run("trec-eval", qrels, crafted)
    assert_ended(found, 1)
    assert "Line too long" in found.stderr and "1 line longer" in found.stderr
    assert found.peak_rss_bytes <= memory_bound(_decoded(crafted, 6) + _decoded(qrels, 4))


def test_docnos_of_every_length_cost_like_docnos_of_one(tmp_path: Path):
    """A run whose docnos take every length from 8 to 1,400 bytes, against as many
    bytes of docnos of one length: their prints are mixed a word at a time across all
    lengths at once, so a file cannot make the passes over words one per length (they
    were: about 20 times the CPU time)."""
    qrels = write_bytes(tmp_path, "qrels", b"q1 0 d1 1\n")

    def run(width) -> Path:
        lines, size, i = [], 0, 0
        while size < 12 << 20:
            line = f"q1 Q0 {str(i).rjust(width(i), 'x')} 1 1.5 t\n"
            lines.append(line)
            size, i = size + len(line), i + 1
        return write_bytes(tmp_path, f"run{width(1)}", "".join(lines).encode())

    crafted, plain = run(lambda i: 8 + i % 1393), run(lambda i: 704)
    varied, uniform = (cost_run("trec-eval", qrels, path) for path in (crafted, plain))
    assert_ended(varied, 0)
    assert_ended(uniform, 0)
    assert varied.cpu_seconds <= MAX_TIME_RATIO * uniform.cpu_seconds
    assert varied.peak_rss_bytes <= memory_bound(_decoded(crafted, 6) + _decoded(qrels, 4))


def test_one_long_qid_or_many_cut_offs_cost_their_own_lines(tmp_path: Path):
    """Each query's lines (``-q``) are printed a block of lines at a time, each line as
    long as its own qid: a qid of nearly 1 MiB beside 4,095 short ones, or a measure of
    1,000 cut-offs, stay within the contract (padded to the longest qid, 4,096 queries'
    lines at a time, the first took 15 GiB)."""
    long_qid = "q" * 1_000_000
    short = "".join(f"q{i} 0 d1 1\n" for i in range(4095))
    run = write_bytes(tmp_path, "run", b"q1 Q0 d1 1 1 t\n")
    cut_offs = "P." + ",".join(map(str, range(1, 1001)))
    for first, measures, lines in (
        (long_qid, ["-m", "num_ret", "-m", "P.5"], 2),
        ("q4095", ["-m", cut_offs], 1000),
    ):
        qrels = write_bytes(tmp_path, "qrels", f"{first} 0 d1 1\n{short}".encode())
        found = cost_run("trec-eval", "-q", "-c", *measures, qrels, run)
        assert_ended(found, 0)
        assert found.stdout.count("\n") == 4097 * lines
        assert found.stdout.count(f"\t{first}\t") == lines
        assert found.peak_rss_bytes <= memory_bound(_decoded(qrels, 4) + _decoded(run, 6))


def test_a_docno_of_a_megabyte_in_every_block_costs_like_short_docnos(tmp_path: Path):
    """A run with a docno of 1,000,000 bytes every 1,700 lines (one in each block of
    lines the reader takes, each block's docnos printed apart), against a random run of
    as many bytes: a long string's print is made a 512-byte piece at a time, so its
    passes over words are a few hundred, not one per 8 bytes (there were 125,000 in
    every block: 20 times the random run's CPU time)."""
    rng = np.random.default_rng(2)

    def run(name: str, long: bool) -> Path:
        lines, size, n = [], 0, 0
        while size < 10 << 20:
            docno = b"%x" % n + b"d" * 1_000_000 if long and n % 1700 == 0 else b"doc%x" % n
            lines.append(b"q%d Q0 %s %d %.4f r\n" % (n % 1000, docno, n, rng.random()))
            size, n = size + len(lines[-1]), n + 1
        return write_bytes(tmp_path, name, b"".join(lines))

    qrels = write_bytes(
        tmp_path, "qrels", b"".join(b"q%d 0 doc%x 1\n" % (q, q) for q in range(1000))
    )
    crafted, random = run("crafted", True), run("random", False)
    found, baseline = (cost_run("trec-eval", qrels, path) for path in (crafted, random))
    assert_ended(found, 0)
    assert_ended(baseline, 0)
    assert found.cpu_seconds <= MAX_TIME_RATIO * baseline.cpu_seconds
    assert found.peak_rss_bytes <= memory_bound(_decoded(crafted, 6) + _decoded(qrels, 4))
