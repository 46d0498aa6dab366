"""EvalAI evaluation script (EvalAI-Starters layout): the worker imports this package and
calls its ``evaluate``.

The worker has no copy of the scorer: build its wheel (``python -m build`` in the scorer's
repository gives ``dist/rankscore-VERSION-py3-none-any.whl``) and put it next to this
file; it is installed the first time the worker imports the package (pip brings numpy,
pandas and pyarrow along if the worker lacks them). Once ``rankscore`` is published,
install ``rankscore==VERSION`` by name instead.
"""

import importlib.util
import subprocess
import sys
from pathlib import Path

if importlib.util.find_spec("scorer") is None:
    wheels = sorted(Path(__file__).parent.glob("rankscore-*.whl"))
    if not wheels:
        raise ImportError("Put the scorer's wheel (rankscore-*.whl) in evaluation_script/.")
    subprocess.check_call([sys.executable, "-m", "pip", "install", str(wheels[-1])])

from .main import evaluate

__all__ = ["evaluate"]
