"""Regenerate the documentation's generated sections from their declarations.

Each section of :data:`SECTIONS` is the text between ``<!-- generated: NAME -->`` and
``<!-- end generated: NAME -->`` in its page under ``docs/``, written by its renderer, a
function named ``"module:function"`` that returns Markdown. The tables of worked values
come from one place each: the registry's worked examples (which a test evaluates), or the
scorer run on the fixtures that the tests check against exact fractions.

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
from fractions import Fraction
from pathlib import Path

#: Section name: (its page, from the repository's root; its renderer).
SECTIONS = {
    "measures": ("docs/measures.md", "scorer.measures.registry:markdown_table"),
    "options": ("docs/options.md", "scorer.options:markdown_table"),
    "competitions": ("docs/recipes.md", "scorer.recipes:markdown_table"),
    "worked-ap": ("docs/getting-started.md", "tools.tables:worked_ap_table"),
    "normalisations": ("docs/options.md", "tools.tables:normalisations_table"),
    "graded-examples": ("docs/measures.md", "tools.tables:graded_examples_table"),
    "disagreements": ("docs/measures.md", "tools.tables:disagreements_table"),
    "json-output": ("docs/pipelines.md", "tools.tables:json_output_sample"),
    "borrowed-names": ("docs/measures.md", "scorer.measures.names:borrowed_table"),
}

ROOT = Path(__file__).resolve().parent.parent


def render(target: str) -> str:
    """The Markdown a ``"module:function"`` renderer returns."""
    if str(ROOT) not in sys.path:  # run from a checkout without an install
        sys.path.insert(0, str(ROOT))
    module, _, function = target.partition(":")
    return getattr(importlib.import_module(module), function)()


def _row(*cells: object) -> str:
    return "| " + " | ".join(map(str, cells)) + " |"


def _approx(value: Fraction | float, digits: int = 6) -> str:
    return f"{float(value):.{digits}f}"


def _shown(value: Fraction | float) -> str:
    return str(value) if isinstance(value, Fraction) else repr(value)


def _registry_examples(ranked: str) -> list:
    from scorer.measures.registry import REGISTRY

    return [e for family in REGISTRY for e in family.examples if e.ranked == ranked]


def _files_ranking(folder: Path) -> tuple[list[str], list[int]]:
    """Each user's predictions in a fixture folder as relevance in rank order (``1 0 1``),
    or as the items themselves when one repeats, and each user's |R|."""
    import pandas as pd

    def lists(name: str) -> pd.Series:
        return pd.read_csv(folder / name, dtype=str).set_index("user_id")["items"].str.split()

    truth, rows = lists("solution.csv"), lists("submission.csv")
    shown = []
    for user, relevant in truth.items():
        row = rows[user]
        if len(set(row)) < len(row):
            shown.append(f"predictions `{' '.join(row)}`, R = {{{', '.join(relevant)}}}")
        else:
            shown.append(" ".join(str(int(item in relevant)) for item in row))
    return shown, [len(set(relevant)) for relevant in truth]


def _exact_ap(folder: Path, **options: object) -> tuple[Fraction, list[Fraction]]:
    """The scorer's exact MAP on a fixture folder, and each user's AP."""
    import numpy as np

    from scorer import evaluate

    result = evaluate(folder / "solution.csv", folder / "submission.csv", **options)
    (values,) = result.exact_values.values()
    users = np.arange(len(result.row_ids))
    return values.exact_mean(), [values.exact_mean(users == user) for user in users]


def worked_ap_table() -> str:
    """getting-started.md's worked examples: the scorer's exact AP@10 on each folder of
    ``fixtures/worked/`` (``tests/test_average_precision.py`` checks them as fractions)."""
    lines = [_row("ranked relevance", "\\|R\\|", "AP@10", "≈"), "|---|---|---|---|"]
    for folder in sorted((ROOT / "fixtures" / "worked").iterdir()):
        shown, relevant = _files_ranking(folder)
        mean, each = _exact_ap(folder)
        value = " and ".join(map(str, each)) + (f", MAP = {mean}" if len(each) > 1 else "")
        lines.append(
            _row(" and ".join(shown), " and ".join(map(str, relevant)), value, _approx(mean))
        )
    return "\n".join(lines)


def normalisations_table() -> str:
    """options.md's three normalisations: the scorer's exact AP@3 on
    ``fixtures/normalizations/``."""
    folder = ROOT / "fixtures" / "normalizations"
    (ranked,), (relevant,) = _files_ranking(folder)
    rows = [
        ("min_k", "(default, Kaggle)", f"min({relevant}, 3) = {min(relevant, 3)}"),
        ("relevant", "(trec_eval, ranx)", relevant),
        ("hits", "(torchmetrics)", ranked.split()[:3].count("1")),
    ]
    lines = [_row("`normalization`", "denominator", "AP@3"), "|---|---|---|"]
    for name, who, denominator in rows:
        value, _ = _exact_ap(folder, k=3, normalization=name)
        lines.append(_row(f'`"{name}"` {who}', denominator, f"{value} ≈ {_approx(value, 4)}"))
    return "\n".join(lines)


def graded_examples_table() -> str:
    """measures.md's graded examples: the registry's worked examples on grades 3 2 0 1."""
    from scorer.measures.registry import GRADED

    lines = [_row("judged items not retrieved", "measure", "value", "≈"), "|---|---|---|---|"]
    for example in _registry_examples(GRADED):
        missed = example.relevant_counts()[0] - sum(g > 0 for g in example.rankings()[0])
        judged = f"{missed} of grade {example.missed_grade}" if missed else "none"
        value = example.value
        lines.append(_row(judged, f"`{example.measure}`", _shown(value), _approx(value)))
    return "\n".join(lines)


#: Where published definitions disagree: (the ranking's name in the registry's module,
#: the measure, whose definition it is).
DISAGREEMENTS = (
    ("RUNNING", "MAP@4", "AP's denominator min(\\|R\\|, K): Kaggle, the default"),
    ("RUNNING", "MAP(norm=relevant)@4", "AP's denominator \\|R\\|: trec_eval `map_cut_K`, ranx"),
    ("RUNNING", "MAP(norm=hits)@4", "AP's denominator the hits: torchmetrics"),
    ("RUNNING", "nDCG@3", "nDCG's ideal from the full truth, as trec_eval"),
    ("GRADED", "ERR@4", "ERR's G = the solution's largest grade (here, 3)"),
    ("GRADED", "ERR(max_grade=4)@4", "ERR's G = 4: ir_measures' gdeval route"),
    ("GRADED", "nERR@4", "nERR, G = 3"),
    ("GRADED", "nERR(max_grade=4)@4", "nERR, G = 4"),
)


def disagreements_table() -> str:
    """measures.md's disagreements: values taken from the registry's worked examples."""
    from scorer.measures import registry

    lines = [_row("ranking", "definition", "measure", "value", "≈"), "|---|---|---|---|---|"]
    for ranking, name, who in DISAGREEMENTS:
        ranked = getattr(registry, ranking)
        example = next(e for e in _registry_examples(ranked) if e.measure == name)
        shown = f"`{ranked}`, \\|R\\| = {example.relevant_counts()[0]}"
        value = example.value
        lines.append(_row(shown, who, f"`{name}`", _shown(value), _approx(value, 4)))
    return "\n".join(lines)


def json_output_sample() -> str:
    """pipelines.md's ``--json`` sample: the command and what it prints on the shipped
    example (``tests/test_docs.py`` runs the command again and compares)."""
    import contextlib
    import io

    from scorer.adapters.cli import main

    files = ["fixtures/example/solution.csv", "fixtures/example/submission.csv"]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        main([*(str(ROOT / file) for file in files), "--json"])
    command = " ".join(["scorer", *files, "--json"])
    return f"```bash\n{command}\n```\n\n```json\n{printed.getvalue()}```"


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
