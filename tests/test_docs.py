"""The front door and the manual: the README's example prints what it says, every page
is in the site's navigation, and every relative link of the README and the pages leads to
a file that exists (``mkdocs build --strict`` in CI checks the pages' anchors too)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md"))


def _python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, re.DOTALL)


def test_the_readmes_python_example_prints_what_its_comments_say() -> None:
    (code,) = _python_blocks((ROOT / "README.md").read_text(encoding="utf-8"))
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "README.md", "exec"), {})
    promised = [line.split("  # ", 1)[1] for line in code.splitlines() if "print(" in line]
    assert printed.getvalue().splitlines() == promised


def test_the_readme_stays_a_front_door() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200


def test_every_page_is_in_the_navigation_and_every_entry_is_a_page() -> None:
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    listed = set(re.findall(r":\s*([\w-]+\.md)\s*$", config, re.MULTILINE))
    assert listed == {page.name for page in PAGES}


@pytest.mark.parametrize("path", [ROOT / "README.md", *PAGES], ids=lambda p: p.name)
def test_relative_links_lead_to_files(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#:\s]+)(?:#[^)]*)?\)", text)
    missing = [t for t in targets if not (path.parent / t).exists()]
    assert not missing, missing
