"""The command line's one process-wide choice, made unless the environment chose, and
no other: the library tunes no process."""

from __future__ import annotations


def test_the_command_line_prefers_jemalloc(monkeypatch):
    import pyarrow as pa

    from scorer.adapters.process import prefer_jemalloc

    previous = pa.default_memory_pool()
    try:
        monkeypatch.delenv("ARROW_DEFAULT_MEMORY_POOL", raising=False)
        prefer_jemalloc()
        try:
            expected = pa.jemalloc_memory_pool().backend_name
        except NotImplementedError:  # a pyarrow without jemalloc keeps its default
            expected = previous.backend_name
        assert pa.default_memory_pool().backend_name == expected
        pa.set_memory_pool(previous)
        monkeypatch.setenv("ARROW_DEFAULT_MEMORY_POOL", "system")  # the host's choice
        prefer_jemalloc()
        assert pa.default_memory_pool().backend_name == previous.backend_name
    finally:
        pa.set_memory_pool(previous)


def test_no_process_tuning_inside_the_package() -> None:
    """No private numpy function, no call into the C library: such settings belong to
    the process's environment (the Docker image's, docs/performance.md)."""
    from pathlib import Path

    import scorer

    sources = Path(scorer.__file__).parent.rglob("*.py")
    found = [
        (path.name, word)
        for path in sources
        for word in ("_set_madvise_hugepage", "ctypes", "mallopt")
        if word in path.read_text(encoding="utf-8")
    ]
    assert found == []
