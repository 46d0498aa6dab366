"""The HTML both self-contained pages share (the report, the leaderboard): the style
sheet, tables in their own scrolling boxes, and cells that show a number for people
and keep its full value in ``data-value``."""

from __future__ import annotations

import html

import numpy as np

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 60em; padding: 0 1em;
       color: #222; overflow-wrap: break-word; }
.table { max-width: 100%; overflow-x: auto; margin: 0.5em 0 1.5em; }
table { border-collapse: collapse; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.4em; text-align: right;
         font-variant-numeric: tabular-nums; }
th:first-child, td:first-child { text-align: left; }
td.name { text-align: left; overflow-wrap: anywhere; min-width: 10em; }
td.message { text-align: left; white-space: pre-wrap; overflow-wrap: anywhere; }
th.name { text-align: left; }
img { max-width: 100%; }
.note { color: #555; font-size: 0.9em; }
"""


def table(header: list[str], rows: list[list[str]], marked: frozenset[int] = frozenset()) -> str:
    """A table in its own scrolling box; a column of names has its header aligned as
    its names are (left); the rows at the positions ``marked`` have the class ``best``."""
    names = [bool(rows) and cell.startswith('<td class="name"') for cell in (rows or [[]])[0]]
    head = "".join(
        f'<th class="name">{text(h)}</th>' if i < len(names) and names[i] else f"<th>{text(h)}</th>"
        for i, h in enumerate(header)
    )
    body = "".join(
        ('<tr class="best">' if position in marked else "<tr>")
        + "".join(cell if cell.startswith("<td") else f"<td>{cell}</td>" for cell in row)
        + "</tr>"
        for position, row in enumerate(rows)
    )
    return f'<div class="table"><table><tr>{head}</tr>{body}</table></div>'


def number(value: float | None) -> str:
    """A table cell: six decimals shown, the exact float in ``data-value``.

    Examples
    --------
    >>> number(2 / 3), number(None)
    ('<td data-value="0.6666666666666666">0.666667</td>', '<td>-</td>')
    """
    if value is None or not np.isfinite(value):
        return "<td>-</td>"
    return cell(f"{value:.6f}", value)


def signed(value: float | None) -> str:
    """A difference: signed, six decimals.

    Examples
    --------
    >>> signed(0.0123), signed(-0.5)
    ('<td data-value="0.0123">+0.012300</td>', '<td data-value="-0.5">-0.500000</td>')
    """
    if value is None or not np.isfinite(value):
        return "<td>-</td>"
    return cell(f"{value:+.6f}", value)


def rank(value: float) -> str:
    """A rank: an integer when it is whole, else one decimal (a mean or a quantile).

    Examples
    --------
    >>> rank(2.0), rank(1.25)
    ('<td data-value="2.0">2</td>', '<td data-value="1.25">1.2</td>')
    """
    shown = f"{value:.0f}" if float(value).is_integer() else f"{value:.1f}"
    return cell(shown, float(value))


def cell(shown: str, *values: float) -> str:
    """A table cell showing ``shown``, its full value(s) in ``data-value``."""
    exact = " ".join(repr(float(v)) for v in values)
    return f'<td data-value="{exact}">{text(shown)}</td>'


def name(name: str) -> str:
    """A submission's name: a file name, wrapped wherever needed to fit the page."""
    return f'<td class="name">{text(name)}</td>'


def message(message: str) -> str:
    """A message of several lines, shown with its line breaks and indents."""
    return f'<td class="message">{text(message)}</td>'


def text(value: object) -> str:
    return html.escape(str(value))
