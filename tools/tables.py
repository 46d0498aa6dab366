"""Regenerate the documentation's generated sections from their declarations.

Each section of :data:`SECTIONS` is the text between ``<!-- generated: NAME -->`` and
``<!-- end generated: NAME -->`` in its page under ``docs/``, written by its renderer, a
function named ``"module:function"`` that returns Markdown.

Usage::

    python tools/tables.py            # rewrite every stale section
    python tools/tables.py --check    # exit 1, naming each section that differs
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from collections.abc import Sequence
from pathlib import Path

#: Section name: (its page, from the repository's root; its renderer).
SECTIONS = {
    "measures": ("docs/measures.md", "scorer.measures.registry:markdown_table"),
    "options": ("docs/options.md", "scorer.options:markdown_table"),
    "competitions": ("docs/recipes.md", "scorer.recipes:markdown_table"),
}

ROOT = Path(__file__).resolve().parent.parent


def render(target: str) -> str:
    """The Markdown a ``"module:function"`` renderer returns."""
    if str(ROOT) not in sys.path:  # run from a checkout without an install
        sys.path.insert(0, str(ROOT))
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
        raise SystemExit(f"the page must hold the markers of section {name!r} once: {start!r}")
    return pattern.sub(lambda _: start + body + end, text)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if stale")
    parser.add_argument(
        "--root", type=Path, default=ROOT, help="the checkout whose pages to use (default: this)"
    )
    args = parser.parse_args(argv)
    stale = []
    for name, (page, target) in SECTIONS.items():
        path = args.root / page
        text = path.read_text(encoding="utf-8")
        updated = rewrite(text, name, render(target))
        if updated == text:
            continue
        stale.append(name)
        if args.check:
            print(
                f"{page}: section {name!r} differs from {target}; run python tools/tables.py",
                file=sys.stderr,
            )
        else:
            path.write_text(updated, encoding="utf-8")
            print(f"{page}: rewrote section {name!r}")
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
