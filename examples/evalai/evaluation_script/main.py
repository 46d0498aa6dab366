"""The challenge's scoring: MAP@10 on the Public and Private splits.

Set ``k``, the other scoring options and the split codenames of the challenge's
``challenge_config.yaml`` here.
"""

from functools import partial

from scorer.adapters.evalai import evaluate as _evaluate

evaluate = partial(_evaluate, k=10, splits={"public_split": "public", "private_split": "private"})
