"""The report's HTML read back: its images, and the ``data-value`` cells of each of its
tables, row by row."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path


class Report(HTMLParser):
    """Collects images and the ``data-value`` cells of each table, row by row."""

    def __init__(self) -> None:
        super().__init__()
        self.images: list[str] = []
        self.tables: list[list[list[tuple[str | None, str]]]] = []
        self._cell: list | None = None

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "img":
            self.images.append(attributes["src"])
        elif tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = [attributes.get("data-value"), ""]

    def handle_data(self, data):
        if self._cell is not None:
            self._cell[1] += data

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append(tuple(self._cell))
            self._cell = None


def parse_report(path: Path) -> Report:
    parser = Report()
    parser.feed(path.read_text(encoding="utf-8"))
    parser.close()
    return parser
