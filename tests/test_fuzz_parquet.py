"""The fuzzer's Parquet target: its seeds are read, and it fails what would be exit 3."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from fuzz import parquet


def test_every_seed_is_a_parquet_file_the_scorer_reads():
    assert len(parquet.seed_files()) == 48
    for index, data in enumerate(parquet.seed_files()):
        assert data[:4] == data[-4:] == b"PAR1"
        assert parquet.seed_headers(index)  # every seed has pages to mutate
        parquet.check_parquet(data)


@settings(max_examples=30, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(parquet.mutated_parquet())
def test_mutated_files_end_in_a_score_or_a_participant_error(data):
    parquet.check_parquet(data)


def test_an_internal_error_fails_the_target(monkeypatch):
    def crash(*args, **kwargs):
        raise IndexError("what would be exit 3")

    monkeypatch.setattr(parquet, "evaluate", crash)
    with pytest.raises(IndexError, match="exit 3"):
        parquet.check_parquet(parquet.seed_files()[0])


def test_a_cost_past_the_limits_fails_the_target(monkeypatch):
    monkeypatch.setattr(parquet, "MEMORY_SLACK_BYTES", -(1 << 40))
    with pytest.raises(AssertionError, match=r"bytes of Parquet peaked at"):
        parquet.check_parquet(parquet.seed_files()[0])
