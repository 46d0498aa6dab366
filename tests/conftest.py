"""Shared test settings.

Hypothesis has no per-example deadline, since a first call may pay one-off set-up costs
(Arrow kernels, regex compilation) and CI machines are noisy.

The ``slow`` marker: every test in a module named ``test_hostile_*`` or ``test_fuzz_*``
(children under an address-space cap, crafted files of millions of rows, hypothesis
over whole files), in the modules of :data:`SLOW_MODULES`, and any test marked so itself
(whole runs split into parts, drawn by hypothesis). ``pytest -m "not slow"`` is
the quick subset for development; CI runs everything.
"""

from __future__ import annotations

import pytest
from hypothesis import settings

settings.register_profile("default", deadline=None)
settings.load_profile("default")

SLOW_PREFIXES = ("test_hostile_", "test_fuzz_")
SLOW_MODULES = ("test_cost_harness", "test_spark", "test_information_boundary")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        module = item.path.stem
        if module.startswith(SLOW_PREFIXES) or module in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
