"""``python -m scorer``: the same as the ``scorer`` command."""

import sys


def _short_of_memory(exc: BaseException) -> bool:
    """Whether ``exc`` is the machine falling short: a MemoryError, or an extension
    module the loader could not map (under a cap on the address space)."""
    if isinstance(exc, MemoryError):
        return True
    text = str(exc)
    return isinstance(exc, ImportError) and (
        "failed to map segment" in text or "Cannot allocate memory" in text
    )


if __name__ == "__main__":
    try:
        from scorer.adapters.cli import main

        code = main()
    except (MemoryError, ImportError) as exc:  # an import or a start-up fell short
        if not _short_of_memory(exc):
            raise
        print(f"scorer: host error: out of memory while starting ({exc}).", file=sys.stderr)
        raise SystemExit(2) from None
    raise SystemExit(code)
