"""The final leaderboard as a document: its rows, pairs, copies and audit, and how it is
written (CSV, JSON, Markdown, LaTeX, HTML). :func:`scorer.leaderboard` builds it
(:mod:`scorer.stats.leaderboard`); docs/leaderboard.md says what each column means.

Every format carries the audit (inputs' SHA-256, versions, options, seed, resamples);
numbers are written for people with six decimals in the tables and in full (the
shortest text that reads back as the same float) in CSV, JSON and the HTML's
``data-value`` attributes.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from scorer.stats import pages
from scorer.stats.comparison import format_level
from scorer.stats.copies import NEAR_COPY_SHARE, Copies

#: The splits in the order every output lists them.
SPLITS = ("overall", "Public", "Private")


@dataclass(frozen=True)
class Row:
    """One entry (a team, or a submission without teams) on one split.

    Attributes
    ----------
    split : str
        ``"overall"``, ``"Public"`` or ``"Private"``.
    entry : str
        The team, or the submission's name without teams.
    submission : str or None
        The submission whose value the entry has on this split (a team's best); None
        when none of the entry's submissions is valid.
    value : float or None
        Its value of the leaderboard measure, as :func:`scorer.evaluate` gives it.
    rank : int or None
        1 + the number of entries with a larger value (equal values share a rank).
    rank_low, rank_high : int or None
        The entry's rank interval over the shared bootstrap.
    value_low, value_high : float or None
        Its value's interval over the same resamples.
    tier : int or None
        Its tier: 1 for every entry not significantly worse than the best, and so on.
    metrics : dict of str to float
        Every measure's value of the submission on this split.
    error : str or None
        When no submission of the entry is valid: why (the participant's message).
    """

    split: str
    entry: str
    submission: str | None
    value: float | None
    rank: int | None = None
    rank_low: int | None = None
    rank_high: int | None = None
    value_low: float | None = None
    value_high: float | None = None
    tier: int | None = None
    metrics: dict[str, float | None] = field(default_factory=dict)
    error: str | None = None


@dataclass(frozen=True)
class Pair:
    """The paired test of two entries on one split (``first`` the better by value).

    Attributes
    ----------
    split, first, second : str
    difference : float
        ``first``'s value minus ``second``'s (never negative).
    low, high : float
        The bootstrap interval of the difference.
    p_value : float
        The two-sided paired randomisation test of "no difference".
    adjusted : float
        Holm's adjustment over every pair of the split.
    exact : bool
        Whether the test enumerates every swap pattern (else Monte-Carlo).
    significant : bool
        ``adjusted <= alpha``.
    """

    split: str
    first: str
    second: str
    difference: float
    low: float
    high: float
    p_value: float
    adjusted: float
    exact: bool
    significant: bool


@dataclass(frozen=True)
class Submission:
    """One submission of the leaderboard.

    Attributes
    ----------
    name, team : str
    source : str
        Its path, or ``"table"`` when given as a DataFrame or an Arrow table.
    sha256 : str
        The SHA-256 of its file's bytes (of a table: of its canonical bytes,
        docs/leaderboard.md#audit).
    values : dict of str to float or None
        Its value of the leaderboard measure per split (None when invalid).
    error : str or None
        The participant's message when it is invalid.
    warnings : tuple of str
        The warnings a participant may see about it.
    """

    name: str
    team: str
    source: str
    sha256: str
    values: dict[str, float | None]
    error: str | None = None
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Audit:
    """What a leaderboard was made from and with.

    Attributes
    ----------
    inputs : dict of str to str
        The SHA-256 of the solution (and of the candidates, given as a table of their
        own); each submission's is in :attr:`Submission.sha256`.
    versions : dict of str to str
        Python, rankscore, numpy, pandas and pyarrow.
    options : dict
        The scoring options as given (a recipe applied).
    seed, resamples : int
    alpha : float
    """

    inputs: dict[str, str]
    versions: dict[str, str]
    options: dict[str, Any]
    seed: int
    resamples: int
    alpha: float


@dataclass(frozen=True)
class Leaderboard:
    """Every submission scored against one solution, ranked per split.

    Attributes
    ----------
    metric : str
        The leaderboard measure (the first measure).
    measures : tuple of str
        Every measure computed.
    rows : tuple of Row
        One per entry and split: split by split, best first (ties by name).
    pairs : tuple of Pair
        Every pair of valid entries on every split.
    submissions : tuple of Submission
        Every submission, by name.
    copies : Copies
        Identical and near-identical rankings (host only).
    audit : Audit
    notes : tuple of str
        What the host should know (a recipe's options replaced, statistics left out).
    """

    metric: str
    measures: tuple[str, ...]
    rows: tuple[Row, ...]
    pairs: tuple[Pair, ...]
    submissions: tuple[Submission, ...]
    copies: Copies
    audit: Audit
    notes: tuple[str, ...] = ()

    @property
    def splits(self) -> tuple[str, ...]:
        """The splits ranked, in :data:`SPLITS` order."""
        present = {row.split for row in self.rows}
        return tuple(split for split in SPLITS if split in present)

    def table(self, split: str = "overall") -> list[Row]:
        """The rows of one split, best first."""
        return [row for row in self.rows if row.split == split]

    def to_dict(self) -> dict[str, Any]:
        """Everything, as JSON-ready values."""
        return {
            "metric": self.metric,
            "measures": list(self.measures),
            "splits": list(self.splits),
            "rows": [asdict(row) for row in self.rows],
            "pairs": [asdict(pair) for pair in self.pairs],
            "submissions": [{**asdict(s), "warnings": list(s.warnings)} for s in self.submissions],
            "copies": {
                "identical": [list(group) for group in self.copies.identical],
                "similar": [
                    {"first": a, "second": b, "share": share} for a, b, share in self.copies.similar
                ],
                "threshold": NEAR_COPY_SHARE,
            },
            "audit": asdict(self.audit),
            "notes": list(self.notes),
        }

    def to_json(self) -> str:
        """:meth:`to_dict` as indented JSON."""
        return json.dumps(self.to_dict(), indent=2, allow_nan=False, ensure_ascii=False)

    def to_csv(self) -> str:
        """One line per entry and split; each line also carries the audit."""
        return to_csv(self)

    def to_markdown(self) -> str:
        """A table per split (value, interval, rank, tier; the best in bold), then the
        copies (host only), the invalid submissions and the audit."""
        return to_markdown(self)

    def to_latex(self) -> str:
        """A ``tabular`` per split (the best in bold), the audit in comments."""
        return to_latex(self)

    def to_html(self, title: str = "Leaderboard") -> str:
        """A self-contained page in the report's style, the rank intervals drawn."""
        return to_html(self, title)

    def render(self, suffix: str) -> str:
        """The document for a file name's suffix: ``.csv``, ``.json``, ``.md``,
        ``.tex`` or ``.html``."""
        return {
            ".csv": self.to_csv,
            ".json": self.to_json,
            ".md": self.to_markdown,
            ".tex": self.to_latex,
            ".html": self.to_html,
        }[suffix.lower()]()


#: The output formats by file suffix.
SUFFIXES = (".csv", ".json", ".md", ".tex", ".html")


def _level(board: Leaderboard) -> str:
    """The intervals' level as a percentage, exactly as given (97.5%, not 98%)."""
    return format_level(1 - board.audit.alpha)


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:.6f}"


def _interval(low: float | None, high: float | None) -> str:
    return "" if low is None or high is None else f"[{low:.6f}, {high:.6f}]"


def _ranks(low: int | None, high: int | None, dash: str = "\u2013") -> str:
    if low is None or high is None:
        return ""
    return str(low) if low == high else f"{low}{dash}{high}"


def _full(value: Any) -> str:
    """A CSV cell: a float in full (reads back as the same float), nothing for None."""
    if value is None:
        return ""
    return repr(value) if isinstance(value, float) else str(value)


def _audit_lines(board: Leaderboard) -> list[str]:
    audit = board.audit
    lines = [
        f"metric: {board.metric}; seed {audit.seed}; resamples {audit.resamples}; "
        f"alpha {audit.alpha}",
        "versions: " + ", ".join(f"{name} {v}" for name, v in audit.versions.items()),
        "options: " + json.dumps(audit.options, sort_keys=True, ensure_ascii=False),
    ]
    lines += [f"sha256 {role}: {digest}" for role, digest in audit.inputs.items()]
    lines += [f"sha256 submission {_quoted(s.name)}: {s.sha256}" for s in board.submissions]
    return lines


def _quoted(name: str) -> str:
    """A name in the audit's lines: a JSON string, with no line break and no backquote
    (a Markdown fence or a LaTeX comment line holds it whatever it is)."""
    return json.dumps(name, ensure_ascii=False).replace("`", "\\u0060")


def to_csv(board: Leaderboard) -> str:
    """:meth:`Leaderboard.to_csv`."""
    others = [name for name in board.measures if name != board.metric]
    digests = {s.name: s.sha256 for s in board.submissions}
    audit = board.audit
    constant = {
        "metric": board.metric,
        "seed": audit.seed,
        "resamples": audit.resamples,
        "alpha": audit.alpha,
        "solution_sha256": audit.inputs.get("solution", ""),
        "versions": json.dumps(audit.versions, sort_keys=True),
        "options": json.dumps(audit.options, sort_keys=True, ensure_ascii=False),
        "notes": json.dumps(list(board.notes), ensure_ascii=False),
    }
    header = [
        "split",
        "rank",
        "entry",
        "submission",
        "value",
        "value_low",
        "value_high",
        "rank_low",
        "rank_high",
        "tier",
        *others,
        "error",
        "submission_sha256",
        *constant,
    ]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for row in board.rows:
        cells = [getattr(row, name) for name in header[1:10]]
        writer.writerow(
            [
                row.split,
                *map(_full, cells),
                *(_full(row.metrics.get(name)) for name in others),
                row.error or "",
                digests.get(row.submission or "", ""),
                *map(_full, constant.values()),
            ]
        )
    return out.getvalue()


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>|#&~])")


def _markdown(text: str) -> str:
    r"""Text in a Markdown table cell: special characters escaped (``&`` too, so that no
    name becomes an entity, and ``~``), one line.

    Examples
    --------
    >>> print(_markdown("win&shy;ner ~~x~~ |a|"))
    win\&shy;ner \~\~x\~\~ \|a\|
    """
    return _MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(text.split()))


def _fenced(text: str) -> list[str]:
    r"""``text`` as it is, line by line, in a fenced block indented into a list item:
    its fence longer than any run of backticks in it, so no line of a participant's
    message can close it.

    Examples
    --------
    >>> _fenced("1. Missing rows\n   found: ```")
    ['  ````text', '  1. Missing rows', '     found: ```', '  ````']
    """
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"  {fence}text", *(f"  {line}" for line in text.splitlines()), f"  {fence}"]


def to_markdown(board: Leaderboard) -> str:
    """:meth:`Leaderboard.to_markdown`."""
    lines = [f"# Leaderboard: {_markdown(board.metric)}", ""]
    header = ["Rank", "Entry", board.metric, f"{_level(board)} interval", "Rank interval", "Tier"]
    for split in board.splits:
        lines += [f"## {split}", "", "| " + " | ".join(map(_markdown, header)) + " |"]
        lines.append("|---:|---|---:|---|---|---:|")
        for row in board.table(split):
            value = _number(row.value) if row.error is None else "invalid"
            if row.rank == 1:
                value = f"**{value}**"
            cells = [
                "" if row.rank is None else str(row.rank),
                _markdown(row.entry),
                value,
                _interval(row.value_low, row.value_high),
                _ranks(row.rank_low, row.rank_high),
                "" if row.tier is None else str(row.tier),
            ]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    lines += _markdown_sections(board)
    return "\n".join(lines) + "\n"


def _markdown_sections(board: Leaderboard) -> list[str]:
    lines = []
    copies = board.copies
    if copies.identical or copies.similar:
        lines += ["## Copies (host only)", ""]
        lines += ["- identical rankings: " + ", ".join(map(_markdown, g)) for g in copies.identical]
        lines += [
            f"- {_markdown(a)} and {_markdown(b)}: {share:.2%} of rows identical"
            for a, b, share in copies.similar
        ]
        lines.append("")
    invalid = [s for s in board.submissions if s.error is not None]
    if invalid:
        lines += ["## Invalid submissions", ""]
        for submission in invalid:
            lines += [f"- {_markdown(submission.name)}:", "", *_fenced(submission.error or ""), ""]
    if board.notes:
        lines += ["## Notes", "", *(f"- {_markdown(note)}" for note in board.notes), ""]
    return [*lines, "## Audit", "", "```text", *_audit_lines(board), "```"]


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "$": r"\$",
    "&": r"\&",
    "#": r"\#",
    "^": r"\textasciicircum{}",
    "_": r"\_",
    "%": r"\%",
    "~": r"\textasciitilde{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}


def _latex(text: str) -> str:
    """Text in a LaTeX table cell: one line, its special characters escaped."""
    return "".join(_LATEX_SPECIAL.get(character, character) for character in " ".join(text.split()))


def to_latex(board: Leaderboard) -> str:
    """:meth:`Leaderboard.to_latex`."""
    notes = [f"note: {' '.join(note.split())}" for note in board.notes]
    lines = [f"% {line}" for line in ["rankscore leaderboard", *_audit_lines(board), *notes]]
    level = _latex(_level(board))
    for split in board.splits:
        lines += [
            r"\begin{table}",
            r"\centering",
            rf"\caption{{{_latex(board.metric)}, {_latex(split)}}}",
            r"\begin{tabular}{rlrlcr}",
            r"\hline",
            rf"Rank & Entry & {_latex(board.metric)} & {level} interval & Rank interval & Tier \\",
            r"\hline",
        ]
        for row in board.table(split):
            value = _number(row.value) if row.error is None else "invalid"
            cells = [
                "" if row.rank is None else str(row.rank),
                _latex(row.entry),
                rf"\textbf{{{value}}}" if row.rank == 1 else value,
                _interval(row.value_low, row.value_high),
                _ranks(row.rank_low, row.rank_high, "--"),
                "" if row.tier is None else str(row.tier),
            ]
            lines.append(" & ".join(cells) + r" \\")
        lines += [r"\hline", r"\end{tabular}", r"\end{table}", ""]
    return "\n".join(lines)


_PAGE_STYLE = """
.standings td:not(.name) { white-space: nowrap; }
svg.ranks { width: 8em; height: 1em; vertical-align: middle; }
svg.ranks line.span { stroke: #4c72b0; stroke-width: 3; }
svg.ranks line.rank { stroke: #dd8452; stroke-width: 2; }
svg.ranks line.axis { stroke: #ccc; stroke-width: 1; }
tr.best td { font-weight: bold; }
details { margin: 0.5em 0 1.5em; }
@media (max-width: 40em) {
  .standings table { font-size: 0.8em; }
  .standings td.name { min-width: 7em; }
  .standings td:nth-child(4), .standings th:nth-child(4) { display: none; }
  svg.ranks { width: 4.5em; }
}
"""


def to_html(board: Leaderboard, title: str = "Leaderboard") -> str:
    """:meth:`Leaderboard.to_html`."""
    parts = [f"<h1>{pages.text(title)}</h1>", _html_summary(board)]
    for split in board.splits:
        parts += [f"<h2>{pages.text(split)}</h2>", _html_table(board, split)]
        pairs = [pair for pair in board.pairs if pair.split == split]
        if pairs:
            parts.append(_html_pairs(board, pairs))
    parts += _html_sections(board)
    body = "\n".join(parts)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{pages.text(title)}</title>\n<style>{pages.STYLE}{_PAGE_STYLE}</style>\n"
        f"</head>\n<body>\n{body}\n</body>\n</html>\n"
    )


def _html_summary(board: Leaderboard) -> str:
    audit = board.audit
    return (
        f'<p class="note">Ranked by {pages.text(board.metric)}. Intervals: '
        f"{_level(board)} of a bootstrap of users shared by every entry "
        f"({audit.resamples:,} resamples, seed {audit.seed}); tiers from paired "
        f"randomisation tests of every pair, Holm-corrected at alpha {audit.alpha}.</p>"
        + "".join(f'<p class="note">{pages.text(note)}</p>' for note in board.notes)
    )


def _html_table(board: Leaderboard, split: str) -> str:
    rows = board.table(split)
    ranked = max((row.rank_high or row.rank or 0 for row in rows), default=0)
    header = ["rank", "entry", board.metric, f"{_level(board)} interval", "rank interval", "tier"]
    cells = []
    for row in rows:
        value = pages.number(row.value) if row.error is None else "<td>invalid</td>"
        drawn = _rank_svg(row, ranked)
        cells.append(
            [
                "<td>-</td>" if row.rank is None else pages.rank(row.rank),
                pages.name(row.entry),
                value,
                pages.cell(_interval(row.value_low, row.value_high), *_present(row, "value")),
                f"<td>{drawn} {pages.text(_ranks(row.rank_low, row.rank_high))}</td>",
                "<td>-</td>" if row.tier is None else pages.rank(row.tier),
            ]
        )
    best = frozenset(position for position, row in enumerate(rows) if row.rank == 1)
    return f'<div class="standings">{pages.table(header, cells, best)}</div>'


def _present(row: Row, kind: str) -> list[float]:
    low, high = getattr(row, f"{kind}_low"), getattr(row, f"{kind}_high")
    return [] if low is None or high is None else [low, high]


def _rank_svg(row: Row, ranked: int) -> str:
    """The rank interval drawn on a line from rank 1 (left) to the last rank (right)."""
    if row.rank is None or row.rank_low is None or row.rank_high is None or ranked < 2:
        return ""

    def x(rank: float) -> str:
        return f"{4 + 92 * (rank - 1) / (ranked - 1):.2f}"

    return (
        '<svg class="ranks" viewBox="0 0 100 10" preserveAspectRatio="none" role="img" '
        f'aria-label="rank {row.rank}, interval {row.rank_low} to {row.rank_high}">'
        '<line class="axis" x1="4" y1="5" x2="96" y2="5"/>'
        f'<line class="span" x1="{x(row.rank_low)}" y1="5" x2="{x(row.rank_high)}" y2="5"/>'
        f'<line class="rank" x1="{x(row.rank)}" y1="1" x2="{x(row.rank)}" y2="9"/></svg>'
    )


def _html_pairs(board: Leaderboard, pairs: list[Pair]) -> str:
    rows = [
        [
            pages.name(pair.first),
            pages.name(pair.second),
            pages.signed(pair.difference),
            pages.cell(_interval(pair.low, pair.high), pair.low, pair.high),
            pages.cell(_p(pair.p_value), pair.p_value),
            pages.cell(_p(pair.adjusted), pair.adjusted),
            "exact" if pair.exact else "Monte-Carlo",
            "yes" if pair.significant else "no",
        ]
        for pair in pairs
    ]
    header = ["better", "worse", "difference", "interval", "p-value", "Holm", "test", "significant"]
    return (
        f"<details><summary>Every pair ({len(pairs):,} paired tests)</summary>"
        f"{pages.table(header, rows)}</details>"
    )


def _p(p_value: float) -> str:
    return "< 0.0001" if p_value < 1e-4 else f"{p_value:.4f}"


def _html_sections(board: Leaderboard) -> list[str]:
    parts = ["<h2>Copies (host only)</h2>"]
    copies = board.copies
    if not copies.identical and not copies.similar:
        parts.append(
            f'<p class="note">No identical rankings, and no pair with {NEAR_COPY_SHARE:.0%} '
            "or more of its rows identical.</p>"
        )
    if copies.identical:
        groups = [[pages.name(", ".join(group))] for group in copies.identical]
        parts.append(pages.table(["identical rankings"], groups))
    if copies.similar:
        rows = [
            [pages.name(a), pages.name(b), pages.cell(f"{share:.2%}", share)]
            for a, b, share in copies.similar
        ]
        parts.append(pages.table(["submission", "submission", "rows identical"], rows))
    invalid = [s for s in board.submissions if s.error is not None]
    if invalid:
        parts.append("<h2>Invalid submissions</h2>")
        rows = [[pages.name(s.name), pages.message(s.error or "")] for s in invalid]
        parts.append(pages.table(["submission", "why"], rows))
    parts.append("<h2>Audit</h2>")
    parts.append(
        "<ul>" + "".join(f"<li>{pages.text(line)}</li>" for line in _audit_lines(board)) + "</ul>"
    )
    return parts
