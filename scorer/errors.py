"""The two error classes and the shape of every problem report.

A :class:`Problem` is one thing wrong with an input: what was expected, what was
found, how many rows are affected, a few example row ids and the fix. Validation
collects them all and raises once, so a participant sees every problem in one run.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from scorer.arrays import to_arrow

MAX_EXAMPLES = 5
ROW_IDS = "row ids"
#: Examples that are a trec_eval run's qid and docno, joined by a space: each part is
#: shown (and shortened) on its own, so that a long qid never hides the docno.
QID_DOCNO = "qid docno"
ROW_NUMBERS = "row numbers, 1 = first data row"
#: Examples that are line numbers, each with the line's text (a headerless file).
LINES = "lines"
_MAX_EXAMPLE_CHARS = 80


class ScorerError(Exception):
    """Base class of the errors the scorer raises on purpose.

    Parameters
    ----------
    message : str
        The full, human-readable message.
    problems : sequence of Problem
        The individual problems the message lists, for programs that want them.
    findings : sequence of Finding
        The same as records, when they are about rows (merged across the parts of a
        run split into parts; ``scorer.partial``).
    """

    def __init__(
        self, message: str, problems: Sequence[Problem] = (), findings: Sequence[Finding] = ()
    ) -> None:
        super().__init__(message)
        self.problems: tuple[Problem, ...] = tuple(problems)
        self.findings: tuple[Finding, ...] = tuple(findings)


class ParticipantVisibleError(ScorerError):
    """The submission is invalid; the message is safe to show to the participant.

    The name is the one Kaggle's metric harness recognises. Messages never contain
    solution values (relevant item ids), only public row ids and the participant's
    own input.
    """


class HostVisibleError(ScorerError):
    """The solution or the configuration is wrong; only the host should see this."""


def format_example(value: object) -> str:
    """Show one example value with ``repr`` so stray whitespace is visible.

    Examples
    --------
    >>> format_example(" u1")
    "' u1'"
    >>> format_example("x" * 100)
    "'xxxxxxxxxx...xxx...' (100 characters)"
    """
    text = str(value)
    if len(text) <= _MAX_EXAMPLE_CHARS:
        return repr(text)
    return f"{text[: _MAX_EXAMPLE_CHARS - 2]!r}... ({len(text)} characters)".replace("'...", "...'")


def smallest_values(values: pa.Array, mask: np.ndarray | None = None) -> tuple[str, ...]:
    """Up to five distinct values where ``mask`` holds, the smallest first (byte order).

    Every example row id is chosen so: the solution's row order is hidden (a host may
    sort it by ``Usage``), the submission's is no part of what it means, and a run
    split into parts picks the same five as one run (the five smallest of the parts'
    five smallest: :func:`smallest_of`). At most five passes, each a selection.

    Examples
    --------
    >>> smallest_values(pa.array(["u9", "b", "a", "u10"]), np.array([True, True, False, True]))
    ('b', 'u10', 'u9')
    >>> smallest_values(pa.array(["b", "a", "b", "a", "c"]))
    ('a', 'b', 'c')
    >>> smallest_values(pa.array([None, "b", None]))
    ('b',)
    """
    chosen = values if mask is None else values.filter(to_arrow(mask))
    chosen = chosen.drop_null()  # a missing value is no example (pyarrow 14 selects none)
    found: list[str] = []
    while len(found) < MAX_EXAMPLES and len(chosen):
        order = pc.select_k_unstable(
            chosen, k=MAX_EXAMPLES - len(found), sort_keys=[("values", "ascending")]
        )
        top = chosen.take(order)
        for value in top.to_pylist():
            if not found or value != found[-1]:
                found.append(str(value))
        chosen = chosen.filter(pc.greater(chosen, top[len(top) - 1]))  # (no pa.scalar: pandas)
    return tuple(found[:MAX_EXAMPLES])


def smallest_of(*groups: Sequence[str]) -> tuple[str, ...]:
    """The five smallest distinct values of several groups (byte order of UTF-8).

    Examples
    --------
    >>> smallest_of(("b", "u1"), ("a", "b", "\u00e9"), ())
    ('a', 'b', 'u1', 'é')
    """
    return tuple(sorted({v for group in groups for v in group}, key=str.encode)[:MAX_EXAMPLES])


@dataclass(frozen=True)
class Finding:
    """One problem or warning as a record, before it is put into words.

    Parameters
    ----------
    kind : str
        What was found, e.g. ``"missing_rows"`` or a warning's code.
    counts : tuple of (str, int) pairs
        Named counts: added when records of several parts merge (a name starting with
        ``max_`` takes the largest).
    examples : tuple of str
        Up to five example row ids, the smallest distinct ones in byte order.
    values : tuple of str
        Other values the words need: the five smallest distinct (as examples), or the
        words themselves for kinds that keep them.

    Examples
    --------
    >>> a = Finding("too_many_predictions", (("rows", 2), ("max_items", 14)), ("u7", "u9"))
    >>> b = Finding("too_many_predictions", (("rows", 1), ("max_items", 12)), ("u10",))
    >>> a.merged(b)
    Finding(kind='too_many_predictions', counts=(('rows', 3), ('max_items', 14)), \
examples=('u10', 'u7', 'u9'), values=())
    """

    kind: str
    counts: tuple[tuple[str, int], ...] = ()
    examples: tuple[str, ...] = ()
    values: tuple[str, ...] = ()

    def count(self, name: str) -> int:
        """The count of this name (0 when not recorded)."""
        return next((value for key, value in self.counts if key == name), 0)

    def merged(self, other: Finding) -> Finding:
        """This record and another of the same kind from another part, as one."""
        names = list(dict.fromkeys([*(k for k, _ in self.counts), *(k for k, _ in other.counts)]))
        counts = tuple(
            (
                name,
                max(self.count(name), other.count(name))
                if name.startswith("max_")
                else self.count(name) + other.count(name),
            )
            for name in names
        )
        keeps_words = self.values == other.values
        values = self.values if keeps_words else smallest_of(self.values, other.values)
        return Finding(self.kind, counts, smallest_of(self.examples, other.examples), values)


def example_row_numbers(mask: np.ndarray) -> tuple[str, ...]:
    """Up to five 1-based numbers of the rows (or lines) where ``mask`` holds.

    Examples
    --------
    >>> example_row_numbers(np.array([True, False, True]))
    ('1', '3')
    """
    return tuple(str(i + 1) for i in np.flatnonzero(mask)[:MAX_EXAMPLES])


def format_count(count: int, noun: str) -> str:
    """Return ``'1 row'`` or ``'1,234 rows'``.

    Examples
    --------
    >>> format_count(1, "row")
    '1 row'
    >>> format_count(1234, "row id")
    '1,234 row ids'
    """
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


#: Names longer than this are never compared for a suggestion (difflib's cost grows
#: with the product of the lengths; a hostile header may hold a name of a megabyte).
_MAX_SUGGESTED_CHARS = 100


def closest(name: object, choices: Iterable[str]) -> str | None:
    """The choice closest to ``name`` (difflib's ratio at least 0.6, or the same name in
    another case), if any; names past 100 characters are never compared.

    Examples
    --------
    >>> closest("itemz", ["id", "items"]), closest("USAGE", ["Usage"]), closest("x", ["id"])
    ('items', 'Usage', None)
    """
    if not isinstance(name, str) or len(name) > _MAX_SUGGESTED_CHARS:
        return None
    known = [c for c in choices if isinstance(c, str) and len(c) <= _MAX_SUGGESTED_CHARS]
    found = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    found = found or [c for c in known if c.strip().casefold() == name.strip().casefold()]
    return found[0] if found else None


def did_you_mean(name: object, choices: Iterable[str]) -> str:
    """``" Did you mean 'x'?"`` for the choice :func:`closest` finds, else ``""``.

    Examples
    --------
    >>> did_you_mean("gradez", ["id", "items", "grades"])
    " Did you mean 'grades'?"
    """
    found = closest(name, choices)
    return "" if found is None else f" Did you mean {found!r}?"


def refuse_unknown_keywords(function: str, given: Iterable[str], known: Sequence[str]) -> None:
    """Python's :class:`TypeError` for a keyword ``function`` does not take, with the
    closest one it does (Python 3.13 suggests one too; earlier versions do not).

    Examples
    --------
    >>> refuse_unknown_keywords("evaluate", ["k", "metric"], ["k", "metrics"])
    Traceback (most recent call last):
    ...
    TypeError: evaluate() got an unexpected keyword argument 'metric'. Did you mean 'metrics'?
    """
    for name in given:
        if name not in known:
            found = closest(name, known)
            hint = "" if found is None else f". Did you mean {found!r}?"
            raise TypeError(f"{function}() got an unexpected keyword argument {name!r}{hint}")


@dataclass(frozen=True)
class Problem:
    """One problem found in an input.

    Parameters
    ----------
    title : str
        A short name, e.g. ``"Duplicated row ids"``.
    expected : str
        What the scorer expected.
    found : str
        What it found, with the total count.
    fix : str
        How to fix it.
    examples : tuple of str
        Up to five example row ids (or row numbers), already chosen.
    example_label : str
        What the examples are, e.g. ``"row ids"``.
    """

    title: str
    expected: str
    found: str
    fix: str
    examples: tuple[str, ...] = field(default_factory=tuple)
    example_label: str = ROW_IDS

    def render(self) -> str:
        """Format the problem as a few indented lines.

        Examples
        --------
        >>> print(Problem("Duplicated row ids", "each row id once", "2 row ids twice",
        ...               "remove the extra rows", ("a", "b")).render())
        Duplicated row ids
           expected: each row id once
           found:    2 row ids twice
           examples (row ids): 'a', 'b'
           fix:      remove the extra rows
        """
        lines = [self.title, f"   expected: {self.expected}", f"   found:    {self.found}"]
        if self.examples:
            shown = ", ".join(self._shown(e) for e in self.examples[:MAX_EXAMPLES])
            lines.append(f"   examples ({self.example_label}): {shown}")
        lines.append(f"   fix:      {self.fix}")
        return "\n".join(lines)

    def _shown(self, example: str) -> str:
        """One example as its label says: numbers as they are, a qid and docno each
        part on its own (:data:`QID_DOCNO`), anything else :func:`format_example`."""
        if self.example_label in (ROW_NUMBERS, LINES):
            return str(example)
        if self.example_label == QID_DOCNO:
            return " ".join(map(format_example, str(example).split(" ", 1)))
        return format_example(example)


def format_problems(subject: str, problems: Sequence[Problem]) -> str:
    """Join problems into one numbered message.

    Examples
    --------
    >>> p = Problem("Empty file", "a CSV file with a header row", "0 bytes", "export again")
    >>> print(format_problems("The submission", [p]))
    The submission is invalid (1 problem):
    1. Empty file
       expected: a CSV file with a header row
       found:    0 bytes
       fix:      export again
    """
    head = f"{subject} is invalid ({format_count(len(problems), 'problem')}):"
    body = [f"{i}. {p.render()}" for i, p in enumerate(problems, start=1)]
    return "\n".join([head, *body])


def raise_if_any(problems: Sequence[Problem], error: type[ScorerError], subject: str) -> None:
    """Raise ``error`` listing every problem, or do nothing when there is none.

    Examples
    --------
    >>> raise_if_any([], ParticipantVisibleError, "The submission")
    """
    if problems:
        raise error(format_problems(subject, problems), problems)


class MissingInputError(HostVisibleError, FileNotFoundError):
    """An input path that does not exist: a usage error (CLI exit 2), not an invalid file.

    Also a :class:`FileNotFoundError`, as ``pandas.read_csv`` raises for a missing path.
    """


class InputIsADirectoryError(HostVisibleError, IsADirectoryError):
    """An input path that is a directory: a usage error (CLI exit 2), not an invalid file."""


def withheld(error: HostVisibleError, reason: str) -> str:
    """A host error's message for a place participants may read: its problems' titles only.

    A host error can quote the solution (a line Arrow could not parse, its unknown
    ``Usage`` values and the row ids holding them, how many rows are Ignored). It
    depends on the solution and the options alone, so the host sees the details by
    scoring the sample submission with the same solution and options
    (docs/decisions.md#information-boundary).

    Examples
    --------
    >>> error = HostVisibleError("Usage 'private' in row 'u7'",
    ...                          [Problem("Unknown Usage values", "", "", "")])
    >>> print(withheld(error, "participants may read this log"))
    the solution, its folder or the options are invalid (Unknown Usage values); ...
    """
    titles = "; ".join(dict.fromkeys(problem.title for problem in error.problems))
    return (
        "the solution, its folder or the options are invalid"
        + (f" ({titles})" if titles else "")
        + f"; details are withheld because {reason}: score the sample submission with the "
        "same solution and options to see them."
    )
