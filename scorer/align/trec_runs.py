"""A trec_eval run judged against its qrels as trec_eval judges it: the measures' arrays.

The queries are the qrels' qids (in byte order), every one of them, a query whose lines
are all unjudged or not relevant included (trec_eval scores it). A run's lines are
ranked per query by score, higher first, equal scores by docno in *descending* byte
order (``comp_sim_docno`` in trec_eval's ``form_res_rels.c``); the ``rank`` field is
ignored. Then, as trec_eval's options say: only the first ``max_ranked`` documents of
each query count (``-M``), each document takes its judgement (the qrels' grade, a
negative ``rel`` as in the pool but unjudged, or not in the pool), and with
``judged_only`` (``-J``) the documents not judged are dropped and the ranks closed up.

Everything works on whole arrays: the queries are found by sorting the runs of equal
qids (a run lists a query's lines together: millions of lines, thousands of runs),
lines are ordered by one sort of (query, score) and only tied lines compare their
docnos, and docnos are matched through keyed 64-bit prints
(:func:`~scorer.align.joins.string_prints`), searched among the qrels' sorted ones and
every match confirmed string for string (pairs whose prints collide share a key and
are told apart by their strings): no hash of a participant's string and no table of
our own, O(n log n) whatever the files hold.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from scorer.align.joins import StringIndex, byte_order_codes, print_key, string_prints
from scorer.align.judgements import Distinct, FlatHits, Judgements, NonRelevant
from scorer.arrays import (
    BLOCK_ROWS,
    lexicographic_order,
    parallel_map,
    search_sorted,
    to_arrow,
    to_numpy,
)
from scorer.errors import MAX_EXAMPLES, Finding, smallest_values
from scorer.options import WHOLE_ROW
from scorer.read.trec import TrecFile

#: The judgement of a ranked document not in the qrels (trec_eval's RELVALUE_NONPOOL),
#: and of one whose qrels line has a negative ``rel`` (RELVALUE_UNJUDGED).
NOT_IN_POOL, UNJUDGED = -1, -2
_MIX = np.uint64(0x9E3779B97F4A7C15)


@dataclass(frozen=True)
class TrecRules:
    """trec_eval's options that change which documents count.

    Attributes
    ----------
    relevance_level : int
        The smallest ``rel`` that is relevant (``-l``).
    max_ranked : int or None
        Only each query's first documents count (``-M``); ``None``: all of them.
    judged_only : bool
        Drop the documents the qrels do not judge, closing up the ranks (``-J``).
    """

    relevance_level: int = 1
    max_ranked: int | None = None
    judged_only: bool = False


@dataclass(frozen=True)
class TrecJudged:
    """A run judged against its qrels.

    Attributes
    ----------
    queries : pyarrow.Array
        The qrels' qids, each once, in byte order: query ``u`` is user ``u``.
    judgements : Judgements
        The measures' arrays (flat: one entry per ranked document with a grade above 0).
    lengths : ndarray of int64
        Documents ranked per query (after ``max_ranked`` and ``judged_only``).
    in_run : ndarray of bool
        Whether the run has a line for each query.
    n_repeated_judgements : ndarray of int64
        Per query, the qrels lines that judge a docno already judged (the largest
        ``rel`` counts).
    n_unjudged_lines : int
        Qrels lines with a negative ``rel`` (in the pool, not judged).
    unknown_qids : pyarrow.Array
        The run's qids that the qrels do not hold (each once, byte order).
    run_id : str
        The run's ``tag`` on its last line.
    qrels_problems, run_problems : tuple of Finding
        What is wrong with each file.
    row_prints : ndarray of uint64, optional
        Per query, a print of the run's ranking (its first ``max_ranked`` docnos in rank
        order, a query it lacks ranks nothing), under the key it was asked for: equal
        for identical rankings (:mod:`scorer.stats.copies`).
    """

    queries: pa.Array
    judgements: Judgements
    lengths: np.ndarray
    in_run: np.ndarray
    n_repeated_judgements: np.ndarray
    n_unjudged_lines: int
    unknown_qids: pa.Array
    run_id: str
    qrels_problems: tuple[Finding, ...]
    run_problems: tuple[Finding, ...]
    row_prints: np.ndarray | None = None


@dataclass(frozen=True)
class _Qrels:
    """The qrels' judged pairs, each (query, docno) once: sorted by pair key."""

    queries: pa.Array
    keys: np.ndarray  # pair keys, sorted, distinct
    users: np.ndarray  # each pair's query
    grades: np.ndarray  # each pair's rel (the largest given), UNJUDGED when negative
    docnos: pa.ChunkedArray  # each pair's docno
    n_repeated: np.ndarray  # per query
    n_unjudged_lines: int


def judge_run(
    qrels: TrecFile,
    run: TrecFile,
    rules: TrecRules,
    copy_key: tuple[int, int] | None = None,
) -> TrecJudged:
    """Judge ``run`` against ``qrels`` under ``rules`` (pass a run no one else holds:
    its columns are freed as they are used); with ``copy_key``, also print each query's
    ranking under it (:attr:`TrecJudged.row_prints`).

    Examples
    --------
    >>> from scorer.read.trec import parse_trec
    >>> qrels = parse_trec(b"q1 0 a 1\\nq1 0 b 2\\nq2 0 c 0\\nq3 0 d -1\\n", "qrels")
    >>> run = parse_trec(b"q1 Q0 b 1 0.5 t\\nq1 Q0 x 2 0.5 t\\nq1 Q0 a 3 0.9 t\\nq9 Q0 a 1 1 t\\n",
    ...                  "run")
    >>> judged = judge_run(qrels, run, TrecRules())
    >>> judged.queries.to_pylist(), judged.lengths.tolist(), judged.in_run.tolist()
    (['q1', 'q2', 'q3'], [3, 0, 0], [True, False, False])
    >>> flat = judged.judgements.flat  # a first (0.9), then x before b (ties: docno descending)
    >>> flat.users.tolist(), flat.ranks.tolist(), flat.grades.tolist()
    ([0, 0], [0, 2], [1, 2])
    >>> judged.judgements.n_relevant.tolist(), judged.unknown_qids.to_pylist()
    ([2, 0, 0], ['q9'])
    """
    key = print_key()
    truth = _judged_pairs(qrels, key)
    n_queries = len(truth.queries)
    run_qids, run_id, run_problems = run.qids, run.run_id, run.problems
    run_users = StringIndex(truth.queries).find(run_qids)  # per run of equal qids
    in_run = np.zeros(n_queries, dtype=bool)
    in_run[run_users[run_users >= 0]] = True
    users = np.repeat(run_users.astype(np.int32), np.diff(run.qid_ends, prepend=0))
    docnos, scores = run.docnos, run.values
    del run  # its columns are freed as they are replaced (the caller keeps no reference)
    if (users < 0).any():  # lines of queries the qrels lack are set aside
        lines = np.flatnonzero(users >= 0)
        users, docnos, scores = users[lines], docnos.take(to_arrow(lines)), scores[lines]
        del lines
    # The docnos' prints on one worker while another sorts the lines' keys.
    ranking, prints = parallel_map(
        lambda make: make(),
        [lambda: _Ranking(users, scores, docnos, n_queries), lambda: _prints(docnos, key)],
    )
    row_prints = None
    if copy_key is not None:
        row_prints = _row_prints(ranking, docnos, copy_key, n_queries, rules.max_ranked)
    pair_keys = _pair_keys(users, prints)
    del prints
    problems = [*run_problems, *_repeated_docnos(pair_keys, ranking, rules, truth.queries)]
    lines, grades = _judged_lines(truth, pair_keys, users, docnos)
    del pair_keys
    ranks = ranking.ranks(lines)
    lengths = ranking.lengths
    if rules.max_ranked is not None:
        kept = ranks < rules.max_ranked
        lines, grades, ranks = lines[kept], grades[kept], ranks[kept]
        lengths = np.minimum(lengths, rules.max_ranked)
    users = users[lines].astype(np.int64)
    order = lexicographic_order(users, ranks)
    users, grades, ranks = users[order], grades[order], ranks[order]
    if rules.judged_only:  # the unjudged dropped: each query's judged documents ranked anew
        kept = grades >= 0
        users, grades = users[kept], grades[kept]
        lengths = np.bincount(users, minlength=n_queries).astype(np.int64)
        ranks = np.arange(len(users), dtype=np.int64) - (np.cumsum(lengths) - lengths)[users]
    _, unknown = byte_order_codes(run_qids.filter(to_arrow(run_users < 0)))
    return TrecJudged(
        truth.queries,
        _judgements(truth, users, ranks, grades, lengths, rules),
        lengths,
        in_run,
        truth.n_repeated,
        truth.n_unjudged_lines,
        unknown,
        run_id,
        qrels.problems,
        tuple(problems),
        row_prints,
    )


def _judged_pairs(qrels: TrecFile, key: tuple[int, int]) -> _Qrels:
    """Each (query, docno) pair the qrels judge, once, with its largest ``rel``."""
    codes, queries = byte_order_codes(qrels.qids)
    users = codes[qrels.qid_codes()]
    docnos = qrels.docnos
    keys = _pair_keys(users, _prints(docnos, key))
    # By pair key; the pairs that share one are put in order (the largest rel first) by
    # _same_pairs, so a second sort key would be sorted twice.
    order = np.argsort(keys, kind="stable")
    keys, users, grades = keys[order], users[order], qrels.values[order]
    slots, moved, repeat = _same_pairs(keys, users, docnos, order, grades)
    for column in (keys, users, grades, order):
        column[slots] = column[moved]
    first = np.flatnonzero(~repeat)
    n_repeated = np.bincount(users[repeat], minlength=len(queries)).astype(np.int64)
    grades = grades[first]
    n_unjudged = int(np.count_nonzero(qrels.values < 0))
    return _Qrels(
        queries,
        keys[first],
        users[first],
        np.where(grades < 0, UNJUDGED, grades),
        docnos.take(to_arrow(order[first])),
        n_repeated,
        n_unjudged,
    )


def _pair_keys(users: np.ndarray, prints: np.ndarray) -> np.ndarray:
    """One int64 key per (query, docno print), made in ``prints``' place: equal pairs,
    equal keys (unequal pairs almost never share one, and every match is confirmed)."""
    keys = prints.view(np.uint64)
    for part in _chunks(len(keys)):
        keys[part] ^= users[part].astype(np.uint64) * _MIX
    return keys.view(np.int64)


def _same_pairs(
    keys: np.ndarray,
    users: np.ndarray,
    docnos: pa.ChunkedArray,
    lines: np.ndarray,
    grades: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For pairs sorted by key, whether each equals the one before it (same query and
    docno) once the pairs that share a key are put in order of query, docno (compared as
    strings, taken from their ``lines`` in ``docnos``) and, with ``grades``, the largest
    grade first: equal pairs then sit together even when two different docnos share a
    print. Returns that reordering as ``slots`` and the positions ``moved`` into them
    (``column[slots] = column[moved]``), and the flags, in the new order. Only the pairs
    that share a key are compared, never the whole column reordered."""
    shared = keys[1:] == keys[:-1]
    starts = np.concatenate([[True], ~shared])  # each key's first pair
    slots = np.flatnonzero(~(starts & np.append(starts[1:], True)))  # keys held twice
    group = np.cumsum(starts)[slots]
    columns = {"group": group, "user": users[slots]}
    columns |= {} if grades is None else {"grade": -grades[slots]}
    table = pa.table({name: to_arrow(values) for name, values in columns.items()})
    table = table.add_column(2, "docno", _strings(docnos, lines[slots]))
    sort_keys = [(name, "ascending") for name in table.column_names]
    ranked = pc.sort_indices(table, sort_keys)
    moved, table = slots[to_numpy(ranked).astype(np.int64)], table.take(ranked)
    same = np.zeros(len(keys), dtype=bool)
    if len(slots) > 1:
        before, after = table.slice(0, len(slots) - 1), table.slice(1)
        equal = to_numpy(pc.equal(before["docno"], after["docno"]), fill=False)
        for name in ("group", "user"):
            equal &= to_numpy(before[name]) == to_numpy(after[name])
        same[slots[1:]] = equal
    return slots, moved, same


class _Ranking:
    """Where lines of a run fall in trec_eval's order (by query, score descending, docno
    descending), found for the few lines that need it rather than by ordering them all.

    Each line gets an int64 key holding its query and its score's leading bits (larger
    scores, smaller keys), and the keys are sorted once, as numbers. A line's rank is
    the count of its query's keys below its own, plus, when others share its key (an
    equal score, or one equal in its leading bits), the count of those before it by
    exact score and docno (strings compared by Arrow, no hash). ``-0.0`` and ``0.0``
    are one score, as they are to trec_eval.

    Attributes
    ----------
    lengths : ndarray of int64
        Each query's lines.
    """

    def __init__(
        self, users: np.ndarray, scores: np.ndarray, docnos: pa.ChunkedArray, n_queries: int
    ) -> None:
        self.users, self.scores, self.docnos = users, scores, docnos
        shift = np.uint64(64 - max(n_queries - 1, 1).bit_length())
        self.keys = np.empty(len(users), dtype=np.int64)
        for part in _chunks(len(users)):  # a chunk at a time: small temporaries
            keys = (scores[part] + 0.0).view(np.uint64)  # + 0.0: -0.0 becomes 0.0
            flip = keys.view(np.int64) >> 63  # all ones for a negative score
            np.invert(flip, out=flip)
            flip &= np.int64(2**63 - 1)
            keys ^= flip.view(np.uint64)  # now larger scores have smaller keys
            keys >>= np.uint64(64) - shift
            keys |= users[part].astype(np.uint64) << shift
            keys ^= np.uint64(2**63)  # unsigned order as signed
            self.keys[part] = keys.view(np.int64)
        # A stable sort, which runs already in order (a file's queries) make near-linear.
        self.order = np.argsort(self.keys, kind="stable")
        self.sorted = self.keys[self.order]
        firsts = np.arange(n_queries + 1, dtype=np.uint64) << shift
        self.firsts = np.searchsorted(self.sorted, (firsts ^ np.uint64(2**63)).view(np.int64))
        self.firsts[-1] = len(self.sorted)
        self.lengths = np.diff(self.firsts).astype(np.int64)

    def ranks(self, lines: np.ndarray) -> np.ndarray:
        """The 0-based rank of each of ``lines`` within its query."""
        keys = self.keys[lines]
        below = np.searchsorted(self.sorted, keys)
        ranks = below - self.firsts[self.users[lines]]
        shared = np.searchsorted(self.sorted, keys, side="right") - below > 1
        if shared.any():
            ranks[shared] += self._before_in_shared_keys(lines[shared])
        return ranks.astype(np.int64)

    def _before_in_shared_keys(self, lines: np.ndarray) -> np.ndarray:
        """For lines whose key others share: how many of those come before each, by
        score descending, then docno descending."""
        shared = np.unique(self.keys[lines])
        lefts = np.searchsorted(self.sorted, shared)
        sizes = np.searchsorted(self.sorted, shared, side="right") - lefts
        group = np.repeat(np.arange(len(shared)), sizes)
        positions = np.repeat(lefts - np.cumsum(sizes) + sizes, sizes) + np.arange(len(group))
        members = self.order[positions]  # every line of those keys, grouped by key
        table = pa.table(
            {"group": to_arrow(group), "score": to_arrow(self.scores[members] + 0.0)}
            | {"docno": _strings(self.docnos, members)}
        )
        sort_keys = [("group", "ascending"), ("score", "descending"), ("docno", "descending")]
        order = to_numpy(pc.sort_indices(table, sort_keys)).astype(np.int64)
        before = np.empty(len(members), dtype=np.int64)
        before[order] = np.arange(len(order)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
        by_line = np.argsort(members)
        return before[by_line[np.searchsorted(members[by_line], lines)]]


def _row_prints(
    ranking: _Ranking,
    docnos: pa.ChunkedArray,
    key: tuple[int, int],
    n_queries: int,
    max_ranked: int | None,
) -> np.ndarray:
    """Per query, the sum (mod 2**64) of its lines' terms, each its docno's keyed print
    mixed with its rank: the same ranking, the same print, in any line order."""
    lines = np.arange(len(ranking.users), dtype=np.int64)
    ranks = ranking.ranks(lines).astype(np.uint64)
    kept = lines if max_ranked is None else lines[ranks < max_ranked]
    terms = _prints(docnos, key).view(np.uint64)[kept] ^ (ranks[kept] * _MIX)
    terms *= np.uint64(key[0])
    terms ^= terms >> np.uint64(31)
    prints = np.zeros(n_queries, dtype=np.uint64)
    np.add.at(prints, ranking.users[kept], terms)
    return prints


def _prints(docnos: pa.ChunkedArray, key: tuple[int, int]) -> np.ndarray:
    """The docnos' keyed prints, a chunk of them at a time."""
    found = [string_prints(chunk, key) for chunk in docnos.chunks]
    return np.concatenate([np.zeros(0, dtype=np.int64), *found])


def _strings(docnos: pa.ChunkedArray, lines: np.ndarray) -> pa.Array:
    """The docnos of ``lines``, as one array."""
    taken = docnos.take(to_arrow(lines))
    return taken.combine_chunks() if isinstance(taken, pa.ChunkedArray) else taken


def _chunks(n: int) -> list[slice]:
    """Slices of at most :data:`~scorer.arrays.BLOCK_ROWS` rows covering ``0 .. n - 1``."""
    return [slice(start, start + BLOCK_ROWS) for start in range(0, n, BLOCK_ROWS)]


def _repeated_docnos(
    pair_keys: np.ndarray, ranking: _Ranking, rules: TrecRules, queries: pa.Array
) -> list[Finding]:
    """A query retrieving one docno twice among the documents that count (trec_eval
    refuses the run): the count of such queries and of extra lines, the smallest qids.
    The keys are sorted as numbers and only the lines sharing a key are compared as
    strings."""
    ordered = np.sort(pair_keys)
    shared = np.unique(ordered[1:][ordered[1:] == ordered[:-1]])
    del ordered
    if not len(shared):
        return []
    position = np.minimum(np.searchsorted(shared, pair_keys), len(shared) - 1)
    lines = np.flatnonzero(shared[position] == pair_keys)
    if rules.max_ranked is not None:  # as trec_eval: only the documents kept are checked
        lines = lines[ranking.ranks(lines) < rules.max_ranked]
    lines = lines[np.argsort(pair_keys[lines], kind="stable")]
    users = ranking.users[lines]
    slots, moved, repeat = _same_pairs(pair_keys[lines], users, ranking.docnos, lines)
    for column in (lines, users):
        column[slots] = column[moved]
    if not repeat.any():
        return []
    flagged = np.zeros(len(queries), dtype=bool)
    flagged[users[repeat]] = True
    counts = (("qids", int(np.count_nonzero(flagged))), ("extra", int(repeat.sum())))
    return [
        Finding(
            "docnos_repeated",
            counts,
            _repeated_pairs(
                queries, flagged, users[repeat], ranking.docnos.take(to_arrow(lines[repeat]))
            ),
        )
    ]


def _repeated_pairs(
    queries: pa.Array, flagged: np.ndarray, users: np.ndarray, docnos: pa.ChunkedArray
) -> tuple[str, ...]:
    """The smallest ``qid docno`` pairs of the repeated lines (``users`` and ``docnos``
    of each), at most five: the smallest flagged queries' smallest docnos, a query at a
    time (at most five), so that no qid is copied for each line."""
    examples: list[str] = []
    for qid in smallest_values(queries, flagged):
        query = pc.index(queries, qid).as_py()
        found = smallest_values(docnos.filter(to_arrow(users == query)))
        examples += [f"{qid} {docno}" for docno in found[: MAX_EXAMPLES - len(examples)]]
        if len(examples) == MAX_EXAMPLES:
            break
    return tuple(examples)


def _judged_lines(
    truth: _Qrels, pair_keys: np.ndarray, users: np.ndarray, docnos: pa.ChunkedArray
) -> tuple[np.ndarray, np.ndarray]:
    """The lines whose (query, docno) the qrels hold, and each one's ``rel`` (or
    :data:`UNJUDGED`); every other line is :data:`NOT_IN_POOL`. The keys are searched
    among the qrels' sorted keys, a block of lines at a time on the thread pool, and
    every pair found by its key confirmed string for string."""
    if not len(truth.keys) or not len(pair_keys):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)

    def found_in(part: slice) -> tuple[np.ndarray, np.ndarray]:
        position = search_sorted(truth.keys, pair_keys[part])
        np.minimum(position, len(truth.keys) - 1, out=position)
        found = np.flatnonzero(truth.keys[position] == pair_keys[part])
        return found + part.start, position[found]

    parts = parallel_map(found_in, _chunks(len(pair_keys)))
    lines = np.concatenate([np.zeros(0, np.int64), *(lines for lines, _ in parts)])
    pairs = np.concatenate([np.zeros(0, np.int64), *(pairs for _, pairs in parts)])
    lines, pairs = _with_pairs_sharing_a_key(truth.keys, lines, pairs)
    same = users[lines] == truth.users[pairs]
    same &= to_numpy(pc.equal(_strings(docnos, lines), _strings(truth.docnos, pairs)), fill=False)
    return lines[same], truth.grades[pairs[same]]


def _with_pairs_sharing_a_key(
    keys: np.ndarray, lines: np.ndarray, pairs: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``lines`` each found at its key's first pair in ``keys`` (sorted), paired as well
    with every other pair of that key: distinct pairs share a key only when their
    prints collide, so each line meets every pair it may equal (a few lines at most)."""
    shared = np.unique(keys[1:][keys[1:] == keys[:-1]])
    at = np.minimum(np.searchsorted(shared, keys[pairs]), len(shared) - 1)
    extra = np.flatnonzero(shared[at] == keys[pairs]) if len(shared) else at[:0]
    sizes = np.searchsorted(keys, keys[pairs[extra]], side="right") - pairs[extra] - 1
    offsets = np.arange(sizes.sum()) - np.repeat(np.cumsum(sizes) - sizes, sizes) + 1
    more_lines = np.repeat(lines[extra], sizes)
    more_pairs = np.repeat(pairs[extra], sizes) + offsets
    return np.concatenate([lines, more_lines]), np.concatenate([pairs, more_pairs])


def _judgements(
    truth: _Qrels,
    users: np.ndarray,
    ranks: np.ndarray,
    grades: np.ndarray,
    lengths: np.ndarray,
    rules: TrecRules,
) -> Judgements:
    """The measures' arrays: the graded entries flat, the judged pairs for the ideal
    orderings, the judged non-relevant ones for the pair measures."""
    n_queries, level = len(truth.queries), rules.relevance_level
    graded = grades > 0
    flat = FlatHits(
        users[graded].astype(np.int64),
        ranks[graded],
        grades[graded],
        grades[graded] >= level,
        width=int(lengths.max(initial=0)),
    )
    judged = truth.grades >= 0
    pair_users, pair_grades = truth.users[judged], truth.grades[judged]
    relevant = pair_grades >= level
    below = (grades >= 0) & (grades < level)
    pooled = grades == UNJUDGED
    return Judgements(
        None,
        np.bincount(pair_users[relevant], minlength=n_queries).astype(np.int64),
        WHOLE_ROW if rules.max_ranked is None else rules.max_ranked,
        None,
        pair_users,
        pair_grades,
        int(pair_grades.max(initial=0)),
        flat,
        Distinct(lengths=lengths),
        NonRelevant(
            users[below].astype(np.int64),
            ranks[below],
            np.bincount(pair_users[~relevant], minlength=n_queries).astype(np.int64),
        ),
        pool=NonRelevant(users[pooled], ranks[pooled], np.zeros(n_queries, dtype=np.int64)),
    )
