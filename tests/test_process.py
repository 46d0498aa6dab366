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


def test_the_docker_images_process_settings_are_documented() -> None:
    """Each environment setting of the image is named, with its value, where the
    performance page says what it buys."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    dockerfile = (root / "Dockerfile").read_text(encoding="utf-8")
    settings = re.findall(r"\b((?:NUMPY|MALLOC)_[A-Z_]+)=(\S+)", dockerfile)
    assert {name for name, _ in settings} == {"MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_"}
    performance = (root / "docs" / "performance.md").read_text(encoding="utf-8")
    for name, value in settings:
        assert f"{name}={value}" in performance, name
