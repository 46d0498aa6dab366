"""Exact, fast and hardened MAP@K for Kaggle-style ranking competitions.

>>> import pandas as pd
>>> from scorer import score
>>> solution = pd.DataFrame({"id": ["u1"], "items": ["a b"]})
>>> score(solution, pd.DataFrame({"id": ["u1"], "items": ["a x b"]}), "id")  # (1 + 2/3) / 2
0.8333333333333334
"""

from scorer.api import evaluate, score
from scorer.errors import HostVisibleError, ParticipantVisibleError, Problem
from scorer.options import Options
from scorer.read.files import ReadLimits
from scorer.recipes import list_recipes
from scorer.result import ScoreResult, ScoreWarning
from scorer.stats.leaderboard import leaderboard
from scorer.stats.standings import Leaderboard
from scorer.version import __version__

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
