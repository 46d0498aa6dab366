"""Write the README's generated tables from their declarations: ``python tools/tables.py``.

Each section of :data:`SECTIONS` is the text between ``<!-- generated: NAME -->`` and
``<!-- end generated: NAME -->`` in README.md, written by the renderer it names
(``module:function``, returning Markdown). ``--check`` changes nothing: it exits 1 and
names each section that differs from its renderer (a test runs it).
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"

#: Section name -> the renderer of its Markdown, as "module:function".
SECTIONS = {"options": "scorer.options:markdown_table"}


def render(section: str) -> str:
    """The Markdown of one section, from its renderer."""
    module, _, function = SECTIONS[section].partition(":")
    return getattr(importlib.import_module(module), function)()


def rewrite(text: str, section: str, body: str) -> str:
    """``text`` with the lines between the section's markers replaced by ``body``.

    Examples
    --------
    >>> text = "a\\n<!-- generated: x -->\\nold\\n<!-- end generated: x -->\\nb\\n"
    >>> print(rewrite(text, "x", "new"), end="")
    a
    <!-- generated: x -->
    new
    <!-- end generated: x -->
    b
    """
    start, end = f"<!-- generated: {section} -->", f"<!-- end generated: {section} -->"
    pattern = re.compile(re.escape(start) + r"\n.*?" + re.escape(end), re.DOTALL)
    if len(pattern.findall(text)) != 1:
        raise SystemExit(f"README.md must hold the markers {start} ... {end} once each.")
    return pattern.sub(lambda _: f"{start}\n{body}\n{end}", text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a section differs")
    args = parser.parse_args(argv)
    text = README.read_text(encoding="utf-8")
    new = text
    stale = []
    for section in SECTIONS:
        updated = rewrite(new, section, render(section))
        if updated != new:
            stale.append(section)
        new = updated
    if args.check:
        for section in stale:
            print(
                f"README.md: the generated section {section!r} differs from "
                f"{SECTIONS[section]}; run python tools/tables.py"
            )
        return 1 if stale else 0
    if new != text:
        README.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
