"""Regenerate the README's generated sections from their declarations.

Each section of :data:`SECTIONS` is the text between ``<!-- generated: NAME -->`` and
``<!-- end generated: NAME -->`` in README.md, written by its renderer, a function
named ``"module:function"`` that returns Markdown.

Usage::

    python tools/tables.py            # rewrite every section in README.md
    python tools/tables.py --check    # exit 1, naming each section that differs
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from collections.abc import Sequence
from pathlib import Path

SECTIONS = {
    "measures": "scorer.measures.registry:markdown_table",
    "options": "scorer.options:markdown_table",
    "competitions": "scorer.recipes:markdown_table",
}

README = Path(__file__).resolve().parent.parent / "README.md"


def render(target: str) -> str:
    """The Markdown a ``"module:function"`` renderer returns."""
    if str(README.parent) not in sys.path:  # run from a checkout without an install
        sys.path.insert(0, str(README.parent))
    module, _, function = target.partition(":")
    return getattr(importlib.import_module(module), function)()


def rewrite(text: str, name: str, body: str) -> str:
    """``text`` with the body of section ``name`` replaced by ``body``.

    Examples
    --------
    >>> rewrite("a\\n<!-- generated: t -->\\nold\\n<!-- end generated: t -->\\nz", "t", "new")
    'a\\n<!-- generated: t -->\\nnew\\n<!-- end generated: t -->\\nz'
    """
    start, end = f"<!-- generated: {name} -->\n", f"\n<!-- end generated: {name} -->"
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.DOTALL)
    if len(pattern.findall(text)) != 1:
        raise SystemExit(f"README.md must hold the markers of section {name!r} once: {start!r}")
    return pattern.sub(lambda _: start + body + end, text)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if stale")
    parser.add_argument("--file", type=Path, default=README, help="the file (default README.md)")
    args = parser.parse_args(argv)
    text = args.file.read_text(encoding="utf-8")
    new = text
    stale = []
    for name, target in SECTIONS.items():
        updated = rewrite(new, name, render(target))
        if updated != new:
            stale.append(name)
        new = updated
    if args.check:
        for name in stale:
            print(
                f"{args.file.name}: section {name!r} differs from {SECTIONS[name]}; "
                "run python tools/tables.py",
                file=sys.stderr,
            )
        return 1 if stale else 0
    if new != text:
        args.file.write_text(new, encoding="utf-8")
    for name in stale:
        print(f"{args.file.name}: rewrote section {name!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
