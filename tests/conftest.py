"""Shared test settings.

Hypothesis has no per-example deadline, since a first call may pay one-off set-up costs
(Arrow kernels, regex compilation) and CI machines are noisy.

The ``slow`` marker: every test in a module named ``test_hostile_*`` or ``test_fuzz_*``
(children under an address-space cap, crafted files of millions of rows, hypothesis
over whole files), in the modules of :data:`SLOW_MODULES`, and any test marked so itself
(whole runs split into parts, drawn by hypothesis). ``pytest -m "not slow"`` is
the quick subset for development; CI runs everything. The slow tests run first: with
``--dist worksteal`` (pyproject.toml) the two workers then end together on quick ones, where
a slow test left to the end kept one core idle for minutes.

Every interpreter a test starts (the command line, capped children, the Parquet decoder,
the CSV parser under a cap) keeps its compiled modules in one cache outside the source
tree, whatever ``PYTHONDONTWRITEBYTECODE`` says: each one compiling the package again
cost about 0.2 s of CPU, and the quick subset 29 % of its time (2 min 58 s against
2 min 7 s with the cache). The cache is filled once as the session starts.

Every interpreter the tests start, the workers included, runs OpenBLAS on one thread:
its threads, started as numpy is imported, spin for about 0.1 s of CPU in each process
(a capped run of the shipped example: 0.75 s of CPU against 0.48 s), and the suite
starts hundreds of processes (the capped runs, each CSV parse under a cap, the command
line's tests). The scorer's results do not depend on it (the leaderboard's test of
thread counts sets it itself); a variable set outside the suite is kept.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

import scorer

_PYCACHE = Path(tempfile.gettempdir()) / f"scorer-tests-pycache-{getattr(os, 'getuid', str)()}"
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
os.environ["PYTHONPYCACHEPREFIX"] = str(_PYCACHE)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
_PACKAGE = Path(scorer.__file__).parent  # the package the children import


def pytest_sessionstart(session: pytest.Session) -> None:
    if not hasattr(session.config, "workerinput"):  # once, before any worker starts a test
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(_PACKAGE)], check=False)


settings.register_profile("default", deadline=None)
settings.load_profile("default")

SLOW_PREFIXES = ("test_hostile_", "test_fuzz_")
SLOW_MODULES = ("test_cost_harness", "test_spark", "test_information_boundary")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        module = item.path.stem
        if module.startswith(SLOW_PREFIXES) or module in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
    # The slow tests first, so that the workers end together on quick ones.
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
