"""The one registry of measures, and the parser of their names.

Names are written ``Name(param=value,...)@cutoff`` (ir_measures' syntax), matched
without regard to case; a parsed :class:`Measure` prints back to its canonical name
(``str(parse("ndcg@10")) == "nDCG@10"``). The parser, the command line's help, the
Codabench keys, the EvalAI entries and the README's table all read :data:`REGISTRY`:
adding a measure is one pure function over
:class:`~scorer.align.judgements.Judgements` plus one :class:`Family` here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from scorer.align.judgements import Judgements
from scorer.errors import HostVisibleError
from scorer.measures import binary, graded
from scorer.measures.exact_means import ExactMean, Floats

UserValues = ExactMean | Floats


@dataclass(frozen=True)
class Param:
    """One parameter of a measure family.

    Attributes
    ----------
    name : str
    choices : tuple of str, or None
        The allowed values; ``None`` for a non-negative integer.
    default : str, int or None
        The value when the name does not give one (``None``: from the data).
    """

    name: str
    choices: tuple[str, ...] | None
    default: str | int | None

    def allowed(self) -> str:
        """The allowed values, in scikit-learn's words."""
        if self.choices is None:
            return "an int in the range [0, inf)"
        return f"a str among {list(self.choices)}"


@dataclass(frozen=True)
class Family:
    """A measure family: its name, parameters, maths and documentation.

    Attributes
    ----------
    name : str
        The canonical name, e.g. ``"nDCG"``.
    aliases : tuple of str
        Other accepted names (matched without regard to case, as the name is).
    compute : callable
        ``compute(judgements, cutoff, **params)``: the per-user values.
    params : tuple of Param
    has_cutoff : bool
        ``False`` for ``RPrec``, whose depth is each user's ``|R|``.
    exact : bool
        Whether the values are exact fractions (else float64, as nDCG).
    definition : str
        One line for the command line's help and the README's table.
    example : str
        A worked example with its exact value, for the README's table.
    """

    name: str
    aliases: tuple[str, ...]
    compute: Callable[..., UserValues]
    params: tuple[Param, ...] = ()
    has_cutoff: bool = True
    exact: bool = True
    definition: str = ""
    example: str = ""

    def param(self, name: str) -> Param | None:
        """The parameter of this name (case-insensitive), if any."""
        return next((p for p in self.params if p.name == name.lower()), None)


REGISTRY: tuple[Family, ...] = (
    Family(
        "MAP",
        ("ap",),
        binary.mean_average_precision,
        (Param("norm", ("min_k", "relevant", "hits"), "min_k"),),
        definition="AP@K, divided by min(|R|,K), |R| (trec_eval map_cut) or the hits",
        example="MAP@4 = 29/48 (`norm=hits`: 29/36); MAP@8 = 37/48",
    ),
    Family(
        "P",
        ("precision", "prec"),
        binary.precision,
        definition="hits / K (a short row still divides by K, as trec_eval)",
        example="P@4 = 3/4; P@8 = 4/8",
    ),
    Family(
        "R",
        ("recall",),
        binary.recall,
        (Param("norm", ("relevant", "min_k"), "relevant"),),
        definition="hits / |R|, or hits / min(|R|,K) (OTTO's recall@20)",
        example="R@4 = 3/4; R@2 = 1/4, `norm=min_k`: 1/2",
    ),
    Family(
        "F1",
        ("f", "fmeasure"),
        binary.f1,
        definition="2·P·R / (P + R) = 2·hits / (K + |R|), 0 without a hit",
        example="F1@4 = 3/4; F1@8 = 2/3",
    ),
    Family(
        "MRR",
        ("rr", "recip_rank"),
        binary.reciprocal_rank,
        definition="1 / rank of the first hit within K, 0 without one",
        example="MRR@8 = 1; three users, first hits at 1, 3, none: MRR@4 = 4/9",
    ),
    Family(
        "HitRate",
        ("hit_rate", "hr", "success"),
        binary.hit_rate,
        definition="1 if any hit within K, else 0",
        example="the three users: HitRate@2 = 1/3, HitRate@3 = 2/3",
    ),
    Family(
        "RPrec",
        ("r_prec", "rprecision", "r-precision"),
        binary.r_precision,
        has_cutoff=False,
        definition="hits within the first |R| predictions / |R| (no cut-off)",
        example="RPrec = 3/4",
    ),
    Family(
        "nDCG",
        ("ndcg_cut",),
        graded.ndcg,
        (Param("gain", ("exp", "linear"), "exp"),),
        exact=False,
        definition="DCG@K / IDCG@K, gain 2^grade - 1 or grade, ideal from the full truth",
        example="nDCG@3 = 0.703918089034, nDCG@8 = 0.892753790770",
    ),
    Family(
        "ERR",
        (),
        graded.err,
        (Param("max_grade", None, None),),
        definition="Σ (1/i)·Pr_i·Π_{j<i}(1 - Pr_j), Pr = (2^grade - 1) / 2^max_grade",
        example="grades 3 2 0 1, G = 3: ERR@4 = 1845/2048",
    ),
    Family(
        "nERR",
        (),
        graded.normalized_err,
        (Param("max_grade", None, None),),
        definition="ERR@K / ERR@K of the ideal ordering of the full truth",
        example="grades 3 2 0 1: nERR@3 = 276/277, nERR@4 = 1107/1108",
    ),
)

_BY_NAME: dict[str, Family] = {
    name.lower(): family for family in REGISTRY for name in (family.name, *family.aliases)
}
_SYNTAX = re.compile(
    r"\s*(?P<name>[A-Za-z][\w\-]*)\s*(?:\((?P<params>[^()]*)\))?\s*(?:@\s*(?P<cutoff>[^@]*?))?\s*"
)
_MAX_NAME_CHARS = 200
_EXAMPLES = "e.g. 'MAP@12', 'nDCG(gain=linear)@10', 'R(norm=min_k)@20', 'RPrec'"


@dataclass(frozen=True)
class Measure:
    """A parsed measure: a family, its parameters and its cut-off.

    Attributes
    ----------
    family : Family
    params : tuple of (str, value) pairs
        Every parameter of the family, in registry order, with its value.
    cutoff : int or None
        ``None`` only for families without a cut-off (``RPrec``).

    Examples
    --------
    >>> m = parse("ndcg(GAIN=Linear)@10", k=10)
    >>> str(m), m.key, m.params
    ('nDCG(gain=linear)@10', 'ndcg_gain_linear_at_10', (('gain', 'linear'),))
    """

    family: Family
    params: tuple[tuple[str, Any], ...]
    cutoff: int | None

    def __str__(self) -> str:
        pairs = zip(self.params, self.family.params, strict=True)
        shown = [f"{name}={value}" for (name, value), p in pairs if value != p.default]
        text = self.family.name + (f"({','.join(shown)})" if shown else "")
        return text if self.cutoff is None else f"{text}@{self.cutoff}"

    def __repr__(self) -> str:
        return f"Measure({str(self)!r})"

    @property
    def name(self) -> str:
        """The canonical name, ``str(self)``."""
        return str(self)

    @property
    def key(self) -> str:
        """The Codabench / EvalAI key: lower case, ``@`` -> ``_at_``, other runs of
        non-alphanumerics -> ``_`` (``nDCG(gain=linear)@10`` -> ``ndcg_gain_linear_at_10``)."""
        return codabench_key(str(self))

    def compute(self, judgements: Judgements) -> UserValues:
        """Each user's value of this measure (a pure function of ``judgements``)."""
        cutoff = judgements.k if self.cutoff is None else self.cutoff
        return self.family.compute(judgements, cutoff, **dict(self.params))


def codabench_key(name: str) -> str:
    """A canonical name as a leaderboard key.

    Examples
    --------
    >>> codabench_key("nDCG(gain=linear)@10"), codabench_key("MAP@12"), codabench_key("RPrec")
    ('ndcg_gain_linear_at_10', 'map_at_12', 'rprec')
    """
    text = name.lower().replace("@", "_at_")
    return re.sub(r"[^a-z0-9]+", "_", text).strip("_")


def canonical_names() -> list[str]:
    """Every family's canonical name, in registry order."""
    return [family.name for family in REGISTRY]


def _unknown(text: object, why: str = "") -> HostVisibleError:
    return HostVisibleError(
        f"The 'metrics' parameter must name a measure among {canonical_names()} "
        f"({_EXAMPLES}){why}. Got {text!r} instead."
    )


def parse(text: str | Measure, k: int = 10, normalization: str = "min_k") -> Measure:
    """Parse ``Name(param=value,...)@cutoff`` into a :class:`Measure`.

    Parameters
    ----------
    text : str or Measure
        The name, in any case; a Measure is returned as it is (its cut-off checked).
    k : int, default 10
        The run's ``k``: the cut-off when none is written, and the largest allowed.
    normalization : str, default "min_k"
        MAP's ``norm`` when the name does not give one (``evaluate``'s ``normalization=``).

    Raises
    ------
    HostVisibleError
        Unknown name or parameter, a bad value, or a cut-off outside [1, k]; the
        message lists the valid choices.

    Examples
    --------
    >>> str(parse("map")), str(parse("Recall(norm=min_k)@5")), str(parse("rprec"))
    ('MAP@10', 'R(norm=min_k)@5', 'RPrec')
    >>> str(parse("MAP@12", k=12, normalization="relevant"))
    'MAP(norm=relevant)@12'
    >>> parse("mapp@5")
    Traceback (most recent call last):
    ...
    scorer.errors.HostVisibleError: The 'metrics' parameter must name a measure among ['MAP', ...
    """
    if isinstance(text, Measure):
        _check_cutoff(text.cutoff, k, str(text))
        return text
    # A name is short; a bound keeps the regular expression linear whatever it is given.
    short = isinstance(text, str) and len(text) <= _MAX_NAME_CHARS
    match = _SYNTAX.fullmatch(text) if short else None
    if match is None:
        raise _unknown(text, ", written Name(param=value,...)@cutoff")
    family = _BY_NAME.get(match["name"].lower())
    if family is None:
        raise _unknown(text)
    values = _parse_params(family, match["params"], text)
    if family.name == "MAP" and "norm" not in values:
        values["norm"] = _check_value(family, family.params[0], normalization, text)
    params = tuple((p.name, values.get(p.name, p.default)) for p in family.params)
    return Measure(family, params, _parse_cutoff(family, match["cutoff"], k, text))


def parse_all(
    texts: str | Measure | Iterable[str | Measure] | None,
    k: int = 10,
    normalization: str = "min_k",
) -> tuple[Measure, ...]:
    """Parse several names (default ``MAP@k``); a name given twice is kept once.

    Examples
    --------
    >>> [str(m) for m in parse_all(["ndcg@5", "MAP", "nDCG(gain=exp)@5"], k=5)]
    ['nDCG@5', 'MAP@5']
    """
    if texts is None:
        texts = ["MAP"]  # the cut-off is k, however many digits k has
    elif isinstance(texts, (str, Measure)):
        texts = [texts]
    measures = [parse(t, k, normalization) for t in texts]
    if not measures:
        raise HostVisibleError(
            f"The 'metrics' parameter must name at least one measure ({_EXAMPLES}). Got [] instead."
        )
    return tuple({str(m): m for m in measures}.values())


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
        values[param.name] = _check_value(family, param, value, whole)
    return values


def _check_value(family: Family, param: Param, value: str, whole: str) -> str | int:
    if param.choices is None:
        if re.fullmatch(r"\d{1,4}", value.strip()):
            return int(value)
    elif value.strip().lower() in param.choices:
        return value.strip().lower()
    raise HostVisibleError(
        f"The {param.name!r} parameter of {family.name} must be {param.allowed()}. "
        f"Got {value!r} in {whole!r} instead."
    )


def _parse_cutoff(family: Family, text: str | None, k: int, whole: str) -> int | None:
    if not family.has_cutoff:
        if text is not None:
            raise HostVisibleError(
                f"{family.name} takes no cut-off: it reads each user's first |R| predictions. "
                f"Write {family.name!r}. Got {whole!r} instead."
            )
        return None
    if text is None or text.strip().lower() == "k":
        return k
    if not re.fullmatch(r"\d{1,100}", text.strip()):  # any k a host may give, bounded
        raise HostVisibleError(
            f"The cut-off of {whole!r} must be an int in the range [1, {k}]. Got {text!r} instead."
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


def describe(families: Mapping[str, Family] | None = None) -> str:
    """One line per family, for the command line's help.

    Examples
    --------
    >>> print(describe().splitlines()[1])
    P@K: hits / K (a short row still divides by K, as trec_eval)
    """
    lines = []
    for family in REGISTRY if families is None else families.values():
        params = ",".join(
            f"{p.name}={'|'.join(p.choices) if p.choices else 'G'}" for p in family.params
        )
        name = family.name + (f"({params})" if params else "") + ("@K" if family.has_cutoff else "")
        lines.append(f"{name}: {family.definition}")
    return "\n".join(lines)


def markdown_table() -> str:
    """The README's table of measures, from the registry (a test keeps them equal).

    Examples
    --------
    >>> print(markdown_table().splitlines()[2])
    | `MAP@K` | `norm=min_k` \\| `relevant` \\| `hits` | AP@K, ... | rational | MAP@4 = 29/48 ...
    """
    lines = [
        "| measure | parameters (default first) | per user | exact? | worked example |",
        "|---|---|---|---|---|",
    ]
    bar = "\\|"  # a literal | inside a Markdown table cell
    for family in REGISTRY:
        params = "; ".join(
            f"`{p.name}=" + f"` {bar} `".join(p.choices) + "`"
            if p.choices
            else f"`{p.name}=G` (default: the solution's largest grade)"
            for p in family.params
        )
        name = f"`{family.name}@K`" if family.has_cutoff else f"`{family.name}`"
        kind = "rational" if family.exact else "float64"
        definition = family.definition.replace("|", bar)
        lines.append(f"| {name} | {params or '-'} | {definition} | {kind} | {family.example} |")
    return "\n".join(lines)
