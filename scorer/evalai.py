"""EvalAI's entry point under the name hosts import in a challenge's ``main.py``
(``from scorer.evalai import evaluate``); the adapter is :mod:`scorer.adapters.evalai`."""

from scorer.adapters.evalai import evaluate, to_evalai

__all__ = ["evaluate", "to_evalai"]
