"""Measure names: the registry's own syntax, trec_eval's and ir_measures', by dialect.

A name is parsed in one of three dialects (the ``dialect`` option):

- ``"kaggle"`` (tables): the registry's names mean what the registry says (``MAP@10``
  divides by min(|R|, 10), ``nDCG@10`` has gains 2^grade - 1) and a name without a
  cut-off is cut at ``k``;
- ``"trec"`` (trec_eval's files): trec_eval's names first (``map``, ``P``,
  ``ndcg_cut``, ...), then ir_measures', then the registry's; a name without a cut-off
  reads the whole ranking, and a trec_eval name without parameters takes trec_eval's
  defaults (``P`` is P at 5, 10, 15, 20, 30, 100, 200, 500 and 1000);
- ``"ir_measures"``: ir_measures' names first (``AP@10`` divides by |R|, ``nDCG@10``
  has linear gains, ``SetF(beta=2)`` is trec_eval's ``set_F.2``), then trec_eval's, then
  the registry's; no cut-off means the whole ranking.

trec_eval's ``-m`` spellings with parameters (``ndcg_cut.5,10``, ``P.5``,
``iprec_at_recall.0.1``, ``rbp.p=0.8``) and pytrec_eval's (``ndcg_cut_10``, ``P_5``)
mean trec_eval's measures in every dialect. A canonical name (``str(measure)``)
parses back to its measure in the ``kaggle`` dialect, where the registry's names
are the registry's; :data:`BORROWED` lists every borrowed spelling, which the docs'
table of names (:func:`borrowed_table`) shows.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal, get_args

from scorer.constraints import decimal_text
from scorer.errors import HostVisibleError, format_count
from scorer.measures.family import Family
from scorer.measures.registry import REGISTRY, Measure

Dialect = Literal["kaggle", "trec", "ir_measures"]
DIALECTS: tuple[str, ...] = get_args(Dialect)

_BY_NAME: dict[str, Family] = {
    name.lower(): family for family in REGISTRY for name in (family.name, *family.aliases)
}
_FAMILY: dict[str, Family] = {family.name: family for family in REGISTRY}
_SYNTAX = re.compile(
    r"\s*(?P<name>[A-Za-z0-9][\w\-]*)\s*(?:\((?P<params>[^()]*)\))?\s*(?:@\s*(?P<cutoff>[^@]*?))?\s*"
)
# trec_eval's -m spelling (name.params) and pytrec_eval's printed one (name_params).
_TREC_SYNTAX = re.compile(
    r"\s*(?P<name>[A-Za-z0-9_]+?)(?:\.(?P<params>[^()@\s]+)|_(?P<printed>(?:p=)?-?[0-9][^()@\s]*))\s*"
)
_MAX_NAME_CHARS = 200
_EXAMPLES = "e.g. 'MAP@12', 'nDCG(gain=linear)@10', 'R(norm=min_k)@20', 'RPrec'"
#: The digits a trec_eval parameter's decimal may have either side of the point.
_DIGITS = 4
_DECIMAL = rf"-?(?:[0-9]{{1,{_DIGITS}}}(?:\.[0-9]{{0,{_DIGITS}}})?|\.[0-9]{{1,{_DIGITS}}})"


@dataclass(frozen=True)
class TrecMeasure:
    """One of trec_eval 10's measures, as its ``-m`` option names it.

    Attributes
    ----------
    name : str
        trec_eval's name (``ndcg_cut``).
    template : str
        The registry's measure, its parameters as ``{}`` (``nDCG(gain=linear)@{}``).
    kind : {"fixed", "cutoffs", "levels", "value", "pairs"}
        How trec_eval reads its parameters: none; positive int cut-offs; decimals
        (one measure each); decimals filling the template together; ``p=X``.
    defaults : tuple of str
        trec_eval's default parameters, as its source writes them.
    at_cutoff : str
        For a measure over the whole ranking, the same cut at ``@K`` (``map@10`` is
        ``map_cut.10`` in the ``trec`` dialect); empty when a cut-off is refused.
    in_all_trec : bool
        Whether trec_eval's ``all_trec`` asks for it (else only by its name).
    """

    name: str
    template: str
    kind: str = "fixed"
    defaults: tuple[str, ...] = ()
    at_cutoff: str = ""
    in_all_trec: bool = True

    def measures(self, params: str | None) -> list[str]:
        """The canonical names of the measures ``name.params`` asks for (trec_eval's
        defaults when ``params`` is ``None``), cut-offs and levels ascending."""
        values = self.defaults if params is None else tuple(params.split(","))
        if self.kind == "fixed":
            if params is not None:
                raise _trec_error(self, params, "takes no parameters")
            return [self.template]
        if self.kind == "cutoffs":
            cutoffs = [_trec_number(self, params, value, r"[0-9]{1,100}") for value in values]
            if min(map(int, cutoffs)) <= 0 or len(set(map(int, cutoffs))) < len(cutoffs):
                raise _trec_error(self, params, "takes positive cut-offs without duplicates")
            return [self.template.format(c) for c in sorted(cutoffs, key=int)]
        if self.kind == "levels":
            levels = [Fraction(_trec_number(self, params, value, _DECIMAL)) for value in values]
            if len(set(levels)) < len(levels):
                raise _trec_error(self, params, "takes levels without duplicates")
            return [self.template.format(decimal_text(level)) for level in sorted(levels)]
        if self.kind == "pairs":
            found = [value.partition("=") for value in values]
            if any(name != "p" or not equals for name, equals, _ in found) or len(found) != 1:
                raise _trec_error(
                    self, params, "takes p=X (the persistence); gains per grade are not supported"
                )
            return [
                self.template.format(
                    decimal_text(Fraction(_trec_number(self, params, found[0][2], _DECIMAL)))
                )
            ]
        if len(values) != self.template.count("{}"):  # the count first: 'utility.100000'
            count = format_count(self.template.count("{}"), "value")
            raise _trec_error(self, params, f"takes {count}")
        written = [
            decimal_text(Fraction(_trec_number(self, params, value, _DECIMAL))) for value in values
        ]
        return [self.template.format(*written)]

    def printed(self, measure: Measure) -> str:
        """trec_eval's printed name of ``measure`` (one of this measure's)."""
        if self.kind == "fixed":
            return self.name
        if self.kind == "cutoffs":
            return f"{self.name}_{measure.cutoff}"
        values = dict(measure.params)
        if self.kind == "levels":
            level = next(v for v in values.values() if isinstance(v, Fraction))
            return f"{self.name}_{float(level):3.2f}"
        given = [decimal_text(v) for v in values.values() if isinstance(v, Fraction)]
        if self.kind == "pairs":
            return self.name if given == [self.defaults[0][2:]] else f"{self.name}_p={given[0]}"
        if self.name == "set_F":  # β² may be written as β
            square = _square(values)
            return self.name if square == 1 else f"{self.name}_{decimal_text(square)}"
        return self.name if tuple(given) == self.defaults else f"{self.name}_{','.join(given)}"


def _square(values: dict[str, Any]) -> Fraction:
    return values["beta"] ** 2 if values.get("beta2") is None else values["beta2"]


def _trec_number(measure: TrecMeasure, params: str | None, value: str, pattern: str) -> str:
    """``value``, one piece of ``params`` (the parameters as written), if it matches."""
    if not re.fullmatch(pattern, value.strip()):
        example = measure.defaults[0].removeprefix("p=")
        why = f"takes {_NUMBER_WORDS[measure.kind]} such as {example}"
        raise _trec_error(measure, params, why, None if value == params else value)
    return value.strip()


#: What a parameter of each kind is written as.
_NUMBER_WORDS = {
    "cutoffs": "whole numbers",
    **dict.fromkeys(
        ("levels", "value", "pairs"),
        f"decimals of at most {_DIGITS} digits either side of the point,",
    ),
}


def _trec_error(
    measure: TrecMeasure, params: str | None, why: str, piece: str | None = None
) -> HostVisibleError:
    # A list of cut-offs or levels is shown by its first two; values filling the
    # template together, all of them. The parameters as written, and the piece of them
    # refused when there are several.
    example = ",".join(measure.defaults if measure.kind == "value" else measure.defaults[:2])
    spelled = f"{measure.name}.{example}" if example else measure.name
    which = "" if piece is None else f" (not one: {piece!r})"
    return HostVisibleError(
        f"trec_eval's {measure.name} {why} (e.g. {spelled!r}). "
        f"Got {measure.name}.{params} instead{which}."
    )


_CUTOFFS = ("5", "10", "15", "20", "30", "100", "200", "500", "1000")
#: trec_eval 10's measures that need only qrels and a run, in the order it prints them
#: (``runid`` and ``relstring`` are no measures of the registry: the command prints
#: them).
TREC_MEASURES: tuple[TrecMeasure, ...] = (
    TrecMeasure("num_q", "NumQ"),
    TrecMeasure("num_ret", "NumRet"),
    TrecMeasure("num_rel", "NumRel"),
    TrecMeasure("num_rel_ret", "NumRelRet"),
    TrecMeasure("map", "MAP(norm=relevant)@all", at_cutoff="MAP(norm=relevant)@{}"),
    TrecMeasure(
        "gm_map",
        "MAP(norm=relevant,mean=geometric)@all",
        at_cutoff="MAP(norm=relevant,mean=geometric)@{}",
    ),
    TrecMeasure("Rprec", "RPrec"),
    TrecMeasure("bpref", "Bpref"),
    TrecMeasure("recip_rank", "MRR@all", at_cutoff="MRR@{}"),
    TrecMeasure(
        "iprec_at_recall", "IPrec(recall={})", "levels", tuple(str(n / 10) for n in range(11))
    ),
    TrecMeasure("P", "P@{}", "cutoffs", _CUTOFFS),
    TrecMeasure("recall", "R@{}", "cutoffs", _CUTOFFS),
    TrecMeasure("infAP", "infAP"),
    TrecMeasure("gm_bpref", "Bpref(mean=geometric)"),
    TrecMeasure(
        "Rprec_mult", "RPrec(mult={})", "levels", tuple(str(n / 10) for n in range(2, 21, 2))
    ),
    TrecMeasure("utility", "Utility(a={},b={},c={},d={})", "value", ("1", "-1", "0", "0")),
    TrecMeasure("11pt_avg", "IPrecAvg"),
    TrecMeasure("binG", "BinG"),
    TrecMeasure("G", "G"),
    TrecMeasure("dcg", "DCG(gain=linear)@all", at_cutoff="DCG(gain=linear)@{}", in_all_trec=False),
    TrecMeasure(
        "ideal_dcg",
        "IDCG(gain=linear)@all",
        at_cutoff="IDCG(gain=linear)@{}",
        in_all_trec=False,
    ),
    TrecMeasure("ndcg", "nDCG(gain=linear)@all", at_cutoff="nDCG(gain=linear)@{}"),
    TrecMeasure("ndcg_rel", "nDCGRel"),
    TrecMeasure("Rndcg", "RnDCG"),
    TrecMeasure("ndcg_cut", "nDCG(gain=linear)@{}", "cutoffs", _CUTOFFS),
    TrecMeasure("map_cut", "MAP(norm=relevant)@{}", "cutoffs", _CUTOFFS),
    TrecMeasure("relative_P", "R(norm=min_k)@{}", "cutoffs", _CUTOFFS),
    TrecMeasure("success", "HitRate@{}", "cutoffs", ("1", "5", "10")),
    TrecMeasure("set_P", "SetP"),
    TrecMeasure("set_relative_P", "SetP(norm=min)"),
    TrecMeasure("set_recall", "SetR"),
    TrecMeasure("set_map", "SetAP"),
    TrecMeasure("set_F", "SetF(beta2={})", "value", ("1",)),
    TrecMeasure("num_nonrel_judged_ret", "NumNonRelJudgedRet"),
    TrecMeasure("yaap", "YAAP", in_all_trec=False),
    TrecMeasure("rbp", "RBP(p={})", "pairs", ("p=0.9",)),
    TrecMeasure("rbp_resid", "RBPResidual(p={})", "pairs", ("p=0.9",)),
    TrecMeasure("unj", "Unjudged@{}", "cutoffs", ("5", "10", "20")),
)
_TREC: dict[str, TrecMeasure] = {m.name.lower(): m for m in TREC_MEASURES}
#: trec_eval's nicknames for sets of measures (its ``-m official``, ``all_trec``, ``set``).
TREC_NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": (
        *("num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref"),
        *("recip_rank", "iprec_at_recall", "P"),
    ),
    "all_trec": tuple(m.name for m in TREC_MEASURES if m.in_all_trec),
    "set": (
        *("num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall"),
        *("set_relative_P", "set_map", "set_F"),
    ),
}
#: trec_eval's measures that are printed, not computed: the run's tag and the grades of
#: the first ranks as a string.
TREC_PRINTED_ONLY = ("runid", "relstring")


# ----------------------------------------------------------------------------- ir_measures
def _ir_cutoff(cutoff: str | None, required: bool, name: str, example: str = "10") -> str:
    if cutoff is None:
        if required:
            raise HostVisibleError(
                f"ir_measures' {name} needs a cut-off: write {name}@{example}. Got {name!r} "
                "instead."
            )
        return "@all"
    return f"@{cutoff}"


def _refused_params(name: str, params: dict[str, str], allowed: Sequence[str]) -> None:
    for key, value in params.items():
        if key == "rel" and value == "1":
            continue
        if key not in allowed:
            why = (
                "one relevance level per run: set relevance_threshold (ir_measures' rel=1 is "
                "the default)"
                if key == "rel"
                else "unjudged='drop' for the whole run"
                if key == "judged_only"
                else f"its parameters are {list(allowed) or 'none'}"
            )
            raise HostVisibleError(
                f"ir_measures' {name}({key}={value}) is not supported: {why}. Got "
                f"{name}({key}={value}) instead."
            )


IrHandler = Callable[[dict[str, str], str | None], str]


def _ir(
    template: str,
    required: bool = False,
    allowed: Sequence[str] = (),
    spelled: str | None = None,
    example: str = "10",
) -> IrHandler:
    """ir_measures' measure ``spelled`` (by default the template's family) as the
    registry's ``template``."""

    def handle(params: dict[str, str], cutoff: str | None) -> str:
        name = spelled or template.split("(")[0].split("@")[0]
        _refused_params(name, params, allowed)
        if "{cutoff}" in template:
            found = _ir_cutoff(cutoff, required, name, example)[1:]
            return template.format(cutoff=found, **params)
        if cutoff is not None:
            raise HostVisibleError(f"ir_measures' {name} takes no cut-off. Got @{cutoff} instead.")
        return template.format(**params)

    return handle


def _ir_ndcg(params: dict[str, str], cutoff: str | None) -> str:
    _refused_params("nDCG", params, ("dcg",))
    gains = {"log2": "linear", "exp-log2": "exp"}
    if params.get("dcg", "log2") not in gains:
        raise HostVisibleError(
            f"ir_measures' nDCG(dcg=...) must be among {list(gains)}. Got {params['dcg']!r} "
            "instead."
        )
    return f"nDCG(gain={gains[params.get('dcg', 'log2')]}){_ir_cutoff(cutoff, False, 'nDCG')}"


def _ir_rbp(params: dict[str, str], cutoff: str | None) -> str:
    if params.get("rel") != "1":
        raise HostVisibleError(
            "ir_measures' RBP without rel=1 uses trectools' graded RBP (raw grades as gains, "
            "tied scores averaged), which the scorer does not reproduce: write RBP(rel=1,p=0.8) "
            "(binary gains, as ir_measures' cwl_eval) or rbp.p=0.8 (trec_eval's gains). Got "
            f"RBP({','.join(f'{k}={v}' for k, v in params.items())}) instead."
        )
    _refused_params("RBP", params, ("p",))
    if cutoff is not None:
        raise HostVisibleError(f"ir_measures' RBP(rel=1) takes no cut-off. Got @{cutoff} instead.")
    return f"RBP(p={params.get('p', '0.8')},gain=binary)"


def _ir_num_ret(params: dict[str, str], cutoff: str | None) -> str:
    _refused_params("NumRet", params, ())
    return "NumRelRet" if params.get("rel") == "1" else "NumRet"


def _ir_set_p(params: dict[str, str], cutoff: str | None) -> str:
    _refused_params("SetP", params, ("relative",))
    relative = params.get("relative", "False").lower() in ("true", "1")
    return "SetP(norm=min)" if relative else "SetP"


def _ir_refused(why: str) -> IrHandler:
    def handle(params: dict[str, str], cutoff: str | None) -> str:
        raise HostVisibleError(why)

    return handle


#: ir_measures' names (``ir_measures.parse_measure``'s syntax) and their measures here.
IR_MEASURES: dict[str, tuple[IrHandler, str]] = {
    "AP": (_ir("MAP(norm=relevant)@{cutoff}"), "AP divided by |R| (trec_eval's map, map_cut)"),
    "MAP": (_ir("MAP(norm=relevant)@{cutoff}"), "AP, as ir_measures' AP"),
    "nDCG": (
        _ir_ndcg,
        "nDCG with linear gains (trec_eval's ndcg, ndcg_cut); dcg=exp-log2: 2^g - 1",
    ),
    "P": (_ir("P@{cutoff}", required=True), "hits / K (trec_eval's P)"),
    "R": (_ir("R@{cutoff}", required=True), "hits / |R| (trec_eval's recall)"),
    "RR": (
        _ir("MRR@{cutoff}", spelled="RR"),
        "reciprocal rank of the first hit (trec_eval's recip_rank)",
    ),
    "Rprec": (_ir("RPrec"), "R-precision (trec_eval's Rprec)"),
    "Bpref": (_ir("Bpref"), "trec_eval's bpref"),
    "infAP": (_ir("infAP"), "trec_eval's infAP"),
    "IPrec": (_ir("IPrec(recall={cutoff})", True, example="0.5"), "trec_eval's iprec_at_recall"),
    "Judged": (_ir("Judged@{cutoff}"), "the judged share of the first min(K, n) ranked"),
    "NumQ": (_ir("NumQ"), "trec_eval's num_q"),
    "NumRel": (_ir("NumRel"), "trec_eval's num_rel"),
    "NumRet": (_ir_num_ret, "trec_eval's num_ret; NumRet(rel=1): num_rel_ret"),
    "SetAP": (_ir("SetAP"), "trec_eval's set_map"),
    "SetF": (
        _ir("SetF(beta2={beta})", allowed=("beta",)),
        "trec_eval's set_F: ir_measures passes beta to trec_eval, which reads it as β²",
    ),
    "SetP": (_ir_set_p, "trec_eval's set_P; relative=True: set_relative_P"),
    "SetRelP": (_ir("SetP(norm=min)"), "trec_eval's set_relative_P"),
    "SetR": (_ir("SetR"), "trec_eval's set_recall"),
    "Success": (_ir("HitRate@{cutoff}", True, spelled="Success"), "trec_eval's success"),
    "RBP": (_ir_rbp, "RBP(rel=1,p=X): binary gains (cwl_eval); without rel: refused"),
    "ERR": (
        _ir_refused(
            "ir_measures' ERR@k is gdeval's (its own grade scale), which the scorer does not "
            "reproduce: write ERR(max_grade=G)@k for this scorer's ERR."
        ),
        "refused: gdeval's ERR",
    ),
}
_IR: dict[str, str] = {name.lower(): name for name in IR_MEASURES}
_IR_DEFAULTS = {"SetF": {"beta": "1"}, "RBP": {"p": "0.8"}}
#: The parameters ir_measures gives each measure: a name with others (the registry's
#: ``norm=``, ``gain=``) is the registry's.
_IR_PARAMS: dict[str, set[str]] = {
    name: {"rel", "judged_only", *extra}
    for name, extra in {
        **dict.fromkeys(IR_MEASURES, ()),
        "nDCG": ("dcg", "gains"),
        "SetF": ("beta",),
        "SetP": ("relative",),
        "RBP": ("p",),
    }.items()
}


def _given_params(match: re.Match[str]) -> set[str]:
    """The parameter names a name gives (``AP(rel=2)``: ``{"rel"}``), in lower case."""
    items = (match["params"] or "").split(",")
    return {item.partition("=")[0].strip().lower() for item in items if item.strip()}


# ----------------------------------------------------------------------------- parsing
def _unknown(text: object, dialect: str, why: str = "") -> HostVisibleError:
    known = list(  # each lower-case name once: trec_eval's bpref is the registry's Bpref
        dict.fromkeys(
            [
                *_BY_NAME,
                *(_TREC if dialect != "kaggle" else ()),
                *(_IR if dialect == "ir_measures" else ()),
            ]
        )
    )
    name = text.split("(")[0].split("@")[0].split(".")[0].strip() if isinstance(text, str) else ""
    close = difflib.get_close_matches(name.lower(), known, n=3, cutoff=0.7)
    spelled = {
        **{f.name.lower(): f.name for f in REGISTRY},
        **{k: m.name for k, m in _TREC.items()},
        **_IR,
    }
    hint = f" Did you mean {', '.join(repr(spelled.get(c, c)) for c in close)}?" if close else ""
    return HostVisibleError(
        f"The 'metrics' parameter must name a measure among "
        f"{[family.name for family in REGISTRY]} ({_EXAMPLES}; trec_eval's names such as "
        f"'ndcg_cut.10' and ir_measures' under dialect='ir_measures'){why}. Got {text!r} "
        f"instead.{hint}"
    )


def parse(
    text: str | Measure, k: int = 10, normalization: str = "min_k", dialect: str = "kaggle"
) -> Measure:
    """Parse one measure's name into a :class:`Measure`.

    Parameters
    ----------
    text : str or Measure
        ``Name(param=value,...)@cutoff`` in any case, or a trec_eval or ir_measures
        name (module docstring); a Measure is returned as it is (its cut-off checked).
    k : int, default 10
        The run's ``k``: the cut-off when none is written (``kaggle``), and the
        largest allowed.
    normalization : str, default "min_k"
        MAP's ``norm`` when the name does not give one (``evaluate``'s ``normalization=``).
    dialect : {"kaggle", "trec", "ir_measures"}, default "kaggle"
        Whose meaning a borrowed name takes.

    Raises
    ------
    HostVisibleError
        Unknown name or parameter, a bad value, a cut-off outside [1, k], or a name
        that names several measures (``P.5,10``: :func:`parse_all`); the message lists
        the valid choices.

    Examples
    --------
    >>> str(parse("map")), str(parse("Recall(norm=min_k)@5")), str(parse("rprec"))
    ('MAP@10', 'R(norm=min_k)@5', 'RPrec')
    >>> str(parse("MAP@12", k=12, normalization="relevant"))
    'MAP(norm=relevant)@12'
    >>> str(parse("map", dialect="trec")), str(parse("ndcg_cut_10")), str(parse("set_F.4"))
    ('MAP(norm=relevant)@all', 'nDCG(gain=linear)@10', 'SetF(beta=2)')
    >>> str(parse("AP@10", dialect="ir_measures")), str(parse("AP@10"))
    ('MAP(norm=relevant)@10', 'MAP@10')
    >>> parse("mapp@5")
    Traceback (most recent call last):
    ...
    scorer.errors.HostVisibleError: The 'metrics' parameter must name a measure among ['MAP', ...
    """
    if isinstance(text, Measure):
        _check_cutoff(text.cutoff, k, str(text))
        return text
    found = _parse_text(text, k, normalization, dialect)
    if len(found) != 1:
        raise HostVisibleError(
            f"{text!r} names {len(found)} measures ({', '.join(map(str, found))}): give it in "
            "'metrics', a list, or name one."
        )
    return found[0]


def parse_all(
    texts: str | Measure | Iterable[str | Measure] | None,
    k: int = 10,
    normalization: str = "min_k",
    dialect: str = "kaggle",
) -> tuple[Measure, ...]:
    """Parse several names (default ``MAP@k``); a name naming several measures
    (``ndcg_cut.5,10``, trec_eval's ``P``, ``all_trec``) gives them all, and a measure
    named twice is kept once.

    Examples
    --------
    >>> [str(m) for m in parse_all(["ndcg@5", "MAP", "nDCG(gain=exp)@5"], k=5)]
    ['nDCG@5', 'MAP@5']
    >>> [str(m) for m in parse_all("ndcg_cut.5,10", k=10)]
    ['nDCG(gain=linear)@5', 'nDCG(gain=linear)@10']
    """
    if texts is None:
        texts = ["MAP"]  # the cut-off is k, however many digits k has
    elif isinstance(texts, (str, Measure)):
        texts = [texts]
    measures = [
        m
        for t in texts
        for m in (
            [parse(t, k, normalization)]
            if isinstance(t, Measure)
            else _parse_text(t, k, normalization, dialect)
        )
    ]
    if not measures:
        raise HostVisibleError(
            f"The 'metrics' parameter must name at least one measure ({_EXAMPLES}). Got [] instead."
        )
    return tuple({str(m): m for m in measures}.values())


def _parse_text(text: object, k: int, normalization: str, dialect: str) -> list[Measure]:
    if dialect not in DIALECTS:
        raise HostVisibleError(
            f"The 'dialect' parameter must be a str among {list(DIALECTS)}. Got {dialect!r} "
            "instead."
        )
    # A name is short; a bound keeps the regular expressions linear whatever they are given.
    if not isinstance(text, str) or len(text) > _MAX_NAME_CHARS:
        raise _unknown(text, dialect, ", written Name(param=value,...)@cutoff")
    if text.strip() in TREC_NICKNAMES:
        return [m for name in TREC_NICKNAMES[text.strip()] for m in _trec(name, None, k, "trec")]
    trec_form = _TREC_SYNTAX.fullmatch(text)
    if trec_form and trec_form["name"].lower() in _TREC:
        params = trec_form["params"] if trec_form["printed"] is None else trec_form["printed"]
        return _trec(trec_form["name"], params, k, dialect)
    match = _SYNTAX.fullmatch(text)
    if match is None:
        raise _unknown(text, dialect, ", written Name(param=value,...)@cutoff")
    # Each tool in the dialect's order claims the name if it knows it (as the tool
    # spells it first: trec_eval's rbp before ir_measures' RBP in the ir_measures
    # dialect; then in any case) and every parameter given (the registry's norm=,
    # ir_measures' rel=).
    written, given = match["name"], _given_params(match)
    name, family = written.lower(), _BY_NAME.get(written.lower())
    for source, exact in _SOURCES[dialect]:
        trec = _TREC.get(name) if not exact or written in _TREC_SPELLED else None
        ir = _IR.get(name) if not exact or written in IR_MEASURES else None
        if source == "registry" and family and given <= {p.name for p in family.params}:
            return [_registry(family, match, text, k, normalization, dialect)]
        if source == "trec" and trec and match["params"] is None:
            return _trec_with_cutoff(trec, match["cutoff"], text, k, dialect)
        if source == "ir_measures" and ir and given <= _IR_PARAMS[ir]:
            return [_ir_measure(ir, match, text, k)]
    if family is not None:  # the registry's message names the parameters it takes
        return [_registry(family, match, text, k, normalization, dialect)]
    raise _unknown(text, dialect)


#: Per dialect, whose names claim a name first: (tool, spelled as the tool spells it).
_SOURCES: dict[str, tuple[tuple[str, bool], ...]] = {
    "kaggle": (("registry", False), ("trec", True), ("ir_measures", True), ("trec", False)),
    "trec": (
        *(("trec", True), ("ir_measures", True), ("trec", False), ("ir_measures", False)),
        ("registry", False),
    ),
    "ir_measures": (
        *(("ir_measures", True), ("trec", True), ("ir_measures", False), ("trec", False)),
        ("registry", False),
    ),
}
_TREC_SPELLED = {m.name for m in TREC_MEASURES}


def _canonical(text: str, k: int) -> Measure:
    """A name in the registry's syntax, read as the registry reads it (the tables'
    templates, filled)."""
    match = _SYNTAX.fullmatch(text)
    family = _BY_NAME.get(match["name"].lower()) if match else None
    if match is None or family is None:
        raise HostVisibleError(f"{text!r} is no measure of the registry.")
    return _registry(family, match, text, k, "min_k", "kaggle")


def _trec(name: str, params: str | None, k: int, dialect: str) -> list[Measure]:
    """trec_eval's measure ``name.params`` (its defaults without ``params``)."""
    measure = _TREC[name.lower()]
    if params is None and dialect == "kaggle" and measure.kind == "cutoffs":
        return [_canonical(measure.template.format(k), k)]
    return [_canonical(text, k) for text in measure.measures(params)]


def _trec_with_cutoff(
    measure: TrecMeasure, cutoff: str | None, whole: str, k: int, dialect: str
) -> list[Measure]:
    """trec_eval's measure written with the registry's ``@K``: a cut-off measure at K,
    a measure without cut-offs refused (``map@10``), naming both spellings."""
    if cutoff is None:
        return _trec(measure.name, None, k, dialect)
    if measure.kind == "cutoffs":
        return _trec(measure.name, cutoff.strip(), k, dialect)
    if measure.at_cutoff and re.fullmatch(r"[0-9]{1,100}", cutoff.strip()):
        return [_canonical(measure.at_cutoff.format(cutoff.strip()), k)]
    raise HostVisibleError(
        f"trec_eval's {measure.name} reads the whole ranking and takes no cut-off: write "
        f"{measure.name!r}. Got {whole!r} instead."
    )


def _registry(
    family: Family, match: re.Match[str], whole: str, k: int, normalization: str, dialect: str
) -> Measure:
    values = _parse_params(family, match["params"], whole)
    if family.name == "MAP" and "norm" not in values:
        values["norm"] = family.params[0].check_text(family.name, normalization, whole)
    given = [name for name in family.one_of if values.get(name) is not None]
    if len(given) > 1:
        raise HostVisibleError(
            f"{family.name} takes one of {list(family.one_of)}, not both. Got {whole!r} instead."
        )
    if values.get("beta2") is not None and _decimal_root(values["beta2"]) is not None:
        values["beta"], values["beta2"] = _decimal_root(values["beta2"]), None  # set_F.4: β = 2
    missing = [p.name for p in family.params if p.required and p.name not in values]
    if missing:
        raise HostVisibleError(
            f"{family.name} needs {missing[0]}=...: write e.g. {family.name}({missing[0]}=0.5). "
            f"Got {whole!r} instead."
        )
    params = tuple((p.name, values.get(p.name, p.default)) for p in family.params)
    return Measure(family, params, _parse_cutoff(family, match["cutoff"], k, whole, dialect))


def _decimal_root(value: Fraction) -> Fraction | None:
    """The square root of a decimal, when it is one (4 -> 2, 0.25 -> 0.5; 2 -> None)."""
    roots = [round(part**0.5) for part in (value.numerator, value.denominator)]
    root = Fraction(roots[0], roots[1]) if roots[1] else None
    return root if root is not None and root * root == value else None


def _ir_measure(name: str, match: re.Match[str], whole: str, k: int) -> Measure:
    params: dict[str, str] = dict(_IR_DEFAULTS.get(name, {}))
    for item in (match["params"] or "").split(","):
        if item.strip():
            key, equals, value = (part.strip() for part in item.partition("="))
            if not equals:
                raise HostVisibleError(
                    f"ir_measures' parameters are written name=value. Got {item.strip()!r} in "
                    f"{whole!r} instead."
                )
            params[key] = value
    handler, _ = IR_MEASURES[name]
    return _canonical(handler(params, match["cutoff"]), k)


def _parse_params(family: Family, text: str | None, whole: str) -> dict[str, Any]:
    values: dict[str, Any] = {}
    if text is None or not text.strip():
        return values
    for item in text.split(","):
        name, equals, value = (part.strip() for part in item.partition("="))
        param = family.param(name)
        if param is None or not equals:
            valid = [p.name for p in family.params]
            raise HostVisibleError(
                f"The parameters of {family.name} must be among {valid}"
                + ("" if valid else " (it takes none)")
                + f", written name=value. Got {item.strip()!r} in {whole!r} instead."
            )
        values[param.name] = param.check_text(family.name, value, whole)
    return values


def _parse_cutoff(
    family: Family, text: str | None, k: int, whole: str, dialect: str = "kaggle"
) -> int | None:
    if not family.has_cutoff:
        if text is not None:
            raise HostVisibleError(
                f"{family.name} takes no cut-off: it reads {family.reads}. "
                f"Write {family.name!r}. Got {whole!r} instead."
            )
        return None
    whole_ranking = text is not None and text.strip().lower() == "all"
    if (text is None and (family.whole_row or dialect != "kaggle")) or whole_ranking:
        if family.needs_cutoff:
            raise HostVisibleError(
                f"{family.name} divides by its cut-off, so it needs one: write e.g. "
                f"{family.name}@10. Got {whole!r} instead."
            )
        return None
    if text is None or text.strip().lower() == "k":
        return k
    if not re.fullmatch(r"[0-9]{1,100}", text.strip()):  # any k a host may give, bounded
        raise HostVisibleError(
            f"The cut-off of {whole!r} must be an int in the range [1, {k}] or 'all'. Got "
            f"{text!r} instead."
        )
    cutoff = int(text)
    _check_cutoff(cutoff, k, whole)
    return cutoff


def _check_cutoff(cutoff: int | None, k: int, whole: str) -> None:
    if cutoff is not None and not 1 <= cutoff <= k:
        raise HostVisibleError(
            f"The cut-off of {whole!r} must be an int in the range [1, {k}] (no row may hold "
            f"more than k={k} predictions: raise k for a larger cut-off). Got {cutoff!r} instead."
        )


# ----------------------------------------------------------------------------- trec_eval's -m
def trec_name(measure: Measure) -> str | None:
    """trec_eval's printed name of ``measure`` (``ndcg_cut_10``), or ``None`` when
    trec_eval has no such measure.

    Examples
    --------
    >>> [trec_name(parse(n, k=10, dialect="trec")) for n in ("P.5", "map", "set_F.0.5", "MAP@5")]
    ['P_5', 'map', 'set_F_0.5', 'map_cut_5']
    >>> trec_name(parse("MAP@5", k=10)) is None  # Kaggle's AP@5, min(|R|, 5)
    True
    """
    found = trec_entry(measure)
    return None if found is None else found.printed(measure)


def trec_entry(measure: Measure) -> TrecMeasure | None:
    """The trec_eval measure ``measure`` is one of, if any."""
    for entry in TREC_MEASURES:
        if _BY_NAME[re.split(r"[(@]", entry.template)[0].lower()] is not measure.family:
            continue
        for text in _instances(entry, measure):
            if str(_canonical(text, 10**100)) == str(measure):
                return entry
    return None


def _instances(entry: TrecMeasure, measure: Measure) -> list[str]:
    """The canonical names ``entry`` would give with ``measure``'s own parameters."""
    if entry.kind == "fixed":
        return [entry.template]
    if entry.kind == "cutoffs":
        return [entry.template.format(measure.cutoff)] if measure.cutoff else []
    values = [decimal_text(v) for _, v in measure.params if isinstance(v, Fraction)]
    if entry.kind in ("levels", "pairs"):
        return [entry.template.format(v) for v in values[:1]]
    if entry.name == "set_F" and measure.family.name == "SetF":
        return [entry.template.format(decimal_text(_square(dict(measure.params))))]
    return [entry.template.format(*values)] if len(values) == entry.template.count("{}") else []


def trec_eval_measures(arguments: Sequence[str]) -> list[tuple[str, Measure]]:
    """The measures trec_eval's ``-m`` arguments ask for, as trec_eval chooses them:
    every measure named (nicknames expanded), each with the parameters of the first
    argument that gives it some (else its defaults), printed in trec_eval's order under
    trec_eval's printed names. ``runid`` and ``relstring`` (printed, not computed) are
    left out; a run takes its ``k`` from its options, never from the cut-offs.

    Raises
    ------
    HostVisibleError
        An unknown measure or bad parameters, as :func:`parse_all`.

    Examples
    --------
    >>> [name for name, _ in trec_eval_measures(["P.10", "map", "ndcg_cut.5,10", "P"])]
    ['map', 'P_10', 'ndcg_cut_5', 'ndcg_cut_10']
    >>> [name for name, _ in trec_eval_measures(["set_F.1.0", "rbp.p=0.80", "rbp_resid"])]
    ['set_F_1.0', 'rbp_p=0.80', 'rbp_resid']
    >>> len(trec_eval_measures(["all_trec"])), len(trec_eval_measures(["ALL_TREC", "RUNID"]))
    (98, 98)
    """
    chosen: dict[str, str | None] = {}
    nicknames = {nickname.lower(): names for nickname, names in TREC_NICKNAMES.items()}
    printed_only = {name.lower() for name in TREC_PRINTED_ONLY}
    for argument in arguments:  # names in any case, as trec_eval's own (-m OFFICIAL)
        name, dot, params = argument.strip().partition(".")
        names = nicknames.get(name.lower(), (name,)) if not dot else (name,)
        for each in names:
            if each.lower() in printed_only:
                continue
            if each.lower() not in _TREC:
                raise _unknown(argument, "trec")
            key = _TREC[each.lower()].name
            if chosen.get(key) is None:
                chosen[key] = params if dot else None
    found = []
    for entry in TREC_MEASURES:
        if entry.name in chosen:
            given = chosen[entry.name]
            as_written = given is not None and entry.kind in ("value", "pairs")  # one value
            for measure in _trec(entry.name, given, 10**100, "trec"):
                printed = f"{entry.name}_{given}" if as_written else entry.printed(measure)
                found.append((printed, measure))
    return found


# ----------------------------------------------------------------------------- docs
_SHOWN_K = 987654321  # a k no name writes: shown as "k"


def _meaning(text: str, dialect: str) -> str:
    """What ``text`` names in ``dialect``, for the docs' table."""
    try:
        found = [
            str(m).replace(str(_SHOWN_K), "K") for m in parse_all(text, _SHOWN_K, dialect=dialect)
        ]
    except HostVisibleError:
        return "refused"
    shown = ", ".join(f"`{name}`" for name in found)
    if len(found) > 3:
        shown = f"`{found[0]}`, `{found[1]}`, … `{found[-1]}` ({len(found)} measures)"
    return shown


def borrowed_names() -> list[tuple[str, str, str, str, str]]:
    """Every name borrowed from trec_eval and ir_measures, and every alias: (spelling,
    source, and its meaning in the ``kaggle``, ``trec`` and ``ir_measures`` dialects),
    each meaning found by parsing the spelling (``K``: the run's ``k``)."""
    sources: dict[str, list[str]] = {}  # a spelling two tools share: one row, both named
    for name in [m.name for m in TREC_MEASURES]:
        sources.setdefault(name, []).append("trec_eval")
    for name in IR_MEASURES:
        sources.setdefault(name, []).append("ir_measures")
    for family in REGISTRY:
        for alias in family.aliases:
            sources.setdefault(alias, []).append(f"alias of `{family.name}`")
    return [
        (f"`{name}`", ", ".join(found), *(_meaning(name, d) for d in DIALECTS))
        for name, found in sources.items()
    ]


def borrowed_table() -> str:
    """The docs' table of borrowed names (``python tools/tables.py`` writes it).

    Examples
    --------
    >>> print(borrowed_table().splitlines()[6])
    | `map` | trec_eval | `MAP@K` | `MAP(norm=relevant)@all` | `MAP(norm=relevant)@all` |
    """
    lines = [
        "| name | from | `kaggle` (tables) | `trec` (trec_eval's files) | `ir_measures` |",
        "|---|---|---|---|---|",
    ]
    for row in borrowed_names():
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |")
    return "\n".join(lines)
