"""``scorer recipes [NAME] [--json]``: the real competitions' recipes (``--recipe NAME``).

The records are :data:`scorer.recipes.RECIPES`; this module only prints them.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from scorer.adapters.output import Parser, emit
from scorer.recipes import Recipe, find_recipe, list_recipes


def recipes_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="scorer recipes",
        description=(
            "List the recipes of real competitions (name, metric, shape, source), or show "
            "one in full (its options, quirks and a command). Score with one: "
            "scorer SOLUTION SUBMISSION --recipe NAME; options given with it win."
        ),
        epilog="Exit codes: 0 listed, 2 unknown recipe or usage error.",
    )
    parser.add_argument("name", nargs="?", help="show this recipe in full")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument(
        "--debug", action="store_true", help="show the traceback of an internal error"
    )
    return parser


def recipes_command(args: argparse.Namespace) -> None:
    """Run ``scorer recipes``."""
    if args.name is not None:
        recipe = find_recipe(args.name)
        emit(json.dumps(recipe_json(recipe), indent=2) if args.json else format_recipe(recipe))
        return
    recipes = list_recipes()
    if args.json:
        emit(json.dumps([recipe_json(recipe) for recipe in recipes], indent=2))
    else:
        emit("\n".join(format_line(recipe) for recipe in recipes))


def recipe_json(recipe: Recipe) -> dict[str, Any]:
    """Every field of a recipe as plain JSON values (``options`` with ``metrics``)."""
    return {
        "name": recipe.name,
        "competition": recipe.competition,
        "metric": recipe.metric,
        "options": recipe.settings(),
        "shape": recipe.shape,
        "source": recipe.source,
        "quirks": recipe.quirks,
        "command": recipe.command,
    }


def format_line(recipe: Recipe) -> str:
    """One recipe in the list: its name and metric, then its competition, shape and source.

    Examples
    --------
    >>> from scorer.recipes import RECIPE
    >>> print(format_line(RECIPE["expedia-2016"]))
    expedia-2016: MAP@5
      Expedia Hotel Recommendations (Kaggle, 2016)
      shape:  id,hotel_cluster: one row per event, up to 5 space-separated hotel clusters
      source: https://www.kaggle.com/competitions/expedia-hotel-recommendations/overview/evaluation
    """
    return "\n".join(
        [
            f"{recipe.name}: {recipe.metric}",
            f"  {recipe.competition}",
            f"  shape:  {recipe.shape}",
            f"  source: {recipe.source}",
        ]
    )


def format_recipe(recipe: Recipe) -> str:
    """One recipe in full: the list's lines, then its options, quirks and command."""
    options = " ".join(f"{name}={value!r}" for name, value in recipe.settings().items())
    return "\n".join(
        [
            format_line(recipe),
            f"  sets:   {options}",
            f"  quirks: {recipe.quirks}",
            f"  run:    {recipe.command}",
        ]
    )
