"""Alignment: item lists split, row and item ids joined, items encoded as integers, and
the judgements (the shared arrays) every measure reads."""
