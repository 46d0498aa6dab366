"""The metric family: MAP, P, R, F1, MRR, HitRate, RPrec, nDCG, ERR, nERR, DCG and the set
measures SetP, SetR, SetF and Jaccard, and the pair measure AUC.

:func:`parse` turns a name such as ``"nDCG(gain=linear)@10"`` into a
:class:`Measure`; :meth:`Measure.compute` maps the shared
:class:`Judgements` to per-user values whose ``mean`` is correctly rounded.

Examples
--------
>>> import numpy as np
>>> j = Judgements(np.array([[1, 0, 1, 1, 0, 1, 0, 0]], bool), np.array([4]), k=8)
>>> {str(m): m.compute(j).mean() for m in parse_all(["MAP@4", "P@4", "RPrec", "MRR"], k=8)}
{'MAP@4': 0.6041666666666666, 'P@4': 0.75, 'RPrec': 0.75, 'MRR@8': 1.0}
"""

from scorer.align.judgements import Judgements
from scorer.measures.names import DIALECTS, parse, parse_all, trec_eval_measures, trec_name
from scorer.measures.registry import (
    REGISTRY,
    Family,
    Measure,
    Param,
    UserValues,
    codabench_key,
)

__all__ = [
    "DIALECTS",
    "REGISTRY",
    "Family",
    "Judgements",
    "Measure",
    "Param",
    "UserValues",
    "codabench_key",
    "parse",
    "parse_all",
    "trec_eval_measures",
    "trec_name",
]
