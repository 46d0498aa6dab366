"""Exact, fast and hardened MAP@K for Kaggle-style ranking competitions.

>>> import pandas as pd
>>> from scorer import score
>>> solution = pd.DataFrame({"id": ["u1"], "items": ["a b"]})
>>> score(solution, pd.DataFrame({"id": ["u1"], "items": ["a x b"]}), "id")  # (1 + 2/3) / 2
0.8333333333333334
"""

import importlib
from typing import TYPE_CHECKING, Any

from scorer.api import evaluate, score
from scorer.errors import HostVisibleError, ParticipantVisibleError, Problem
from scorer.options import Options
from scorer.read.files import ReadLimits
from scorer.recipes import list_recipes
from scorer.result import ScoreResult, ScoreWarning
from scorer.version import __version__

if TYPE_CHECKING:  # imported when first asked for (:data:`_LAZY`)
    from scorer.stats.leaderboard import leaderboard
    from scorer.stats.standings import Leaderboard

__all__ = [
    "HostVisibleError",
    "Leaderboard",
    "Options",
    "ParticipantVisibleError",
    "Problem",
    "ReadLimits",
    "ScoreResult",
    "ScoreWarning",
    "__version__",
    "evaluate",
    "leaderboard",
    "list_recipes",
    "score",
]


#: Names imported when first asked for, and their modules: scoring one submission needs
#: none of them, and importing them was a fifth of a small file's run.
_LAZY = {"leaderboard": "scorer.stats.leaderboard", "Leaderboard": "scorer.stats.standings"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'scorer' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
