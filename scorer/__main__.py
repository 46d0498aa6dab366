"""``python -m scorer``: the same as the ``scorer`` command."""

from scorer.adapters.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
