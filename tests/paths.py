"""Where the tests find the repository's own files: its root, the fixtures and the shipped
example (the files the README scores)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
EXAMPLE = FIXTURES / "example"
DOCS = ROOT / "docs"
