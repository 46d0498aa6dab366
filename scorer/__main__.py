"""``python -m scorer``: the same as the ``scorer`` command."""

import sys

if __name__ == "__main__":
    try:
        from scorer.adapters.cli import main
    except MemoryError as exc:  # numpy's or pyarrow's import fell short: exit 2, as any run
        print(f"scorer: host error: out of memory while starting ({exc}).", file=sys.stderr)
        raise SystemExit(2) from None
    raise SystemExit(main())
