"""The documentation's generated sections equal their renderers (``python tools/tables.py``)."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

from tests.commands import run_python
from tests.paths import ROOT

TOOL = ROOT / "tools" / "tables.py"
_spec = importlib.util.spec_from_file_location("tables", TOOL)
assert _spec is not None and _spec.loader is not None
tables = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tables)


def test_the_pages_are_up_to_date() -> None:
    done = run_python(TOOL, "--check")
    assert (done.returncode, done.stderr) == (0, "")


def _copy_pages(root: Path) -> None:
    shutil.copytree(ROOT / "docs", root / "docs", ignore=shutil.ignore_patterns("figures"))


def test_every_stale_section_is_named_and_rewritten(tmp_path: Path) -> None:
    # Every section made stale at once: one check names each, one run rewrites each.
    _copy_pages(tmp_path)
    for name, (page_name, _) in tables.SECTIONS.items():
        page = tmp_path / page_name
        page.write_text(tables.rewrite(page.read_text(), name, f"| stale {name} |"))
    done = run_python(TOOL, "--check", "--root", str(tmp_path))
    assert done.returncode == 1
    for name, (page_name, _) in tables.SECTIONS.items():
        assert f"section {name!r} differs" in done.stderr
        assert f"| stale {name} |" in (tmp_path / page_name).read_text()  # --check changes nothing
    assert run_python(TOOL, "--root", str(tmp_path)).returncode == 0
    for page_name, target in tables.SECTIONS.values():
        page = (tmp_path / page_name).read_text()
        assert page == (ROOT / page_name).read_text()
        assert tables.render(target) in page


def test_missing_markers_are_an_error(tmp_path: Path) -> None:
    _copy_pages(tmp_path)
    (tmp_path / tables.SECTIONS["options"][0]).write_text("# no generated sections\n")
    done = run_python(TOOL, "--check", "--root", str(tmp_path))
    assert done.returncode == 1
    assert "must hold the markers of section 'options'" in done.stderr


def test_the_tools_examples_run() -> None:
    import doctest

    assert doctest.testmod(tables).failed == 0
