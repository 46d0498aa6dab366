"""The fuzzer's cost target passes random inputs and fails a costly one."""

from __future__ import annotations

import pytest

from fuzz.cost import Cost, Fit, calibrate, check_cost, random_submission


def test_a_random_input_is_within_the_fit_of_random_inputs():
    fit = calibrate()
    assert fit.per_byte_seconds > 0 and fit.per_byte_memory > 0
    check_cost(fit, (random_submission(1 << 20, seed=9), "gzip"))


def test_an_input_far_above_the_fit_fails(monkeypatch):
    # A fit as if scoring cost nothing, without slack: any input is then far above it.
    monkeypatch.setattr("fuzz.cost.MEMORY_SLACK_BYTES", 0)
    monkeypatch.setattr("fuzz.cost.TIME_SLACK_SECONDS", 0.0)
    free = Fit(Cost(0.0, 0), per_byte_seconds=0.0, per_byte_memory=0.0)
    with pytest.raises(AssertionError, match=r"decoded bytes \(csv\) (took|peaked)"):
        check_cost(free, (random_submission(1 << 16, seed=3), "csv"))
