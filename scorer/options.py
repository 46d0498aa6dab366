"""The scoring options, each declared once, and validated once with scikit-learn's phrasing.

:data:`OPTIONS` holds one :class:`Option` per keyword of :func:`scorer.evaluate`: its
name, its constraint (type or choices, and the message for a bad value), its default,
a one-line doc, and its command-line flag. :class:`Options` checks its fields against
these records; the command line builds its flags from them, the EvalAI adapter accepts
exactly their names, the docs' table of options is :func:`markdown_table`, and
tests keep ``evaluate``'s and ``score``'s signatures equal to them. Adding an option
is its record here, the place it acts, and its tests.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Literal, get_args

from scorer.errors import HostVisibleError

EmptyGroundTruth = Literal["skip", "zero"]
ExtraPredictions = Literal["error", "truncate"]
Normalization = Literal["min_k", "relevant", "hits"]
UnknownRowIds = Literal["error", "ignore"]
Layout = Literal["wide", "long"]
InputFormat = Literal["table", "trec"]
CandidateRule = Literal["none", "permutation", "subset"]
Unjudged = Literal["keep", "drop"]
MissingRows = Literal["error", "empty", "skip"]
Dialect = Literal["kaggle", "trec", "ir_measures"]

#: ``k`` when the host does not give it and no measure's cut-off is larger.
DEFAULT_K = 10

#: The most predictions a row may hold when rows are read whole (no ``k`` given and no
#: measure with a cut-off: ``k`` stays ``None``). No row a file within its limits can
#: hold comes near it, so those limits alone bound a row.
WHOLE_ROW = 2**62


def row_bound(k: int | None) -> int:
    """The most predictions a row may hold: ``k``, or :data:`WHOLE_ROW` for whole rows.

    Examples
    --------
    >>> row_bound(12), row_bound(None) == WHOLE_ROW
    (12, True)
    """
    return WHOLE_ROW if k is None else k


#: The options' defaults under ``format="trec"``, trec_eval's rules (an option given
#: wins): a qrels query missing from the run is left out of the mean, a query with no
#: relevant document is scored, a run query the qrels lack is ignored, and with ``k``
#: only each query's first ``k`` documents count (``-M``). Without ``k``, every
#: retrieved document counts.
TREC_DEFAULTS: dict[str, str] = {
    "missing_rows": "skip",
    "empty_ground_truth": "zero",
    "unknown_row_ids": "ignore",
    "extra_predictions": "truncate",
}


def format_defaults(given: Mapping[str, Any]) -> dict[str, Any]:
    """The keywords given, with the defaults of the format they name (:data:`TREC_DEFAULTS`
    for ``format="trec"``) for those not given.

    Examples
    --------
    >>> format_defaults({"format": "trec", "missing_rows": "empty"})["missing_rows"]
    'empty'
    >>> format_defaults({"format": "trec"})["empty_ground_truth"], format_defaults({})
    ('zero', {})
    """
    if given.get("format") != "trec":
        return dict(given)
    return {**TREC_DEFAULTS, **given}


@dataclass(frozen=True)
class Interval:
    """An int at least ``low`` (``None`` too when ``none_ok``), as scikit-learn says it.

    Examples
    --------
    >>> Interval(1).check("k", 3), Interval(1, none_ok=True).check("k", None)
    (3, None)
    >>> Interval(1).check("k", 0)
    Traceback (most recent call last):
    ...
    scorer.errors.HostVisibleError: The 'k' parameter must be an int in the range [1, inf). \
Got 0 instead.
    """

    low: int
    none_ok: bool = False

    def check(self, name: str, value: Any) -> Any:
        """``value`` as a Python int (or ``None``), else a :class:`HostVisibleError`."""
        if value is None and self.none_ok:
            return None
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < self.low:
            raise HostVisibleError(
                f"The {name!r} parameter must be an int in the range [{self.low}, inf). "
                f"Got {value!r} instead."
            )
        return int(value)

    def describe(self) -> str:
        return f"any int ≥ {self.low}"


@dataclass(frozen=True)
class Choices:
    """One of the values of a ``Literal`` (read with :func:`typing.get_args`), or
    ``None`` when ``none_ok`` (then settled from other options).

    Examples
    --------
    >>> Choices(EmptyGroundTruth).values
    ('skip', 'zero')
    >>> Choices(EmptyGroundTruth).check("empty_ground_truth", "drop")
    Traceback (most recent call last):
    ...
    scorer.errors.HostVisibleError: The 'empty_ground_truth' parameter must be a str among \
['skip', 'zero']. Got 'drop' instead.
    """

    literal: Any
    none_ok: bool = False

    @property
    def values(self) -> tuple[str, ...]:
        return get_args(self.literal)

    def check(self, name: str, value: Any) -> Any:
        if value is None and self.none_ok:
            return None
        if not isinstance(value, str) or value not in self.values:
            raise HostVisibleError(
                f"The {name!r} parameter must be a str among {list(self.values)}"
                f"{' or None' if self.none_ok else ''}. Got {value!r} instead."
            )
        return value

    def describe(self) -> str:
        return ", ".join(f'`"{value}"`' for value in self.values)


@dataclass(frozen=True)
class CheckedWhereUsed:
    """A value checked where it acts (a column name against the solution's header, a
    measure name by the measure registry), because only there is a bad one known."""

    kind: str

    def check(self, name: str, value: Any) -> Any:
        return value

    def describe(self) -> str:
        return self.kind


@dataclass(frozen=True)
class Text:
    """A non-empty str, or ``None``.

    Examples
    --------
    >>> Text().check("row_id_type_separator", "_"), Text().check("row_id_type_separator", None)
    ('_', None)
    >>> Text().check("row_id_type_separator", "")
    Traceback (most recent call last):
    ...
    scorer.errors.HostVisibleError: The 'row_id_type_separator' parameter must be a non-empty \
str or None. Got '' instead.
    """

    def check(self, name: str, value: Any) -> Any:
        if value is None or (isinstance(value, str) and value):
            return encodable(name, value)
        raise HostVisibleError(
            f"The {name!r} parameter must be a non-empty str or None. Got {value!r} instead."
        )

    def describe(self) -> str:
        return "a non-empty string"


@dataclass(frozen=True)
class Token:
    """One item id: a non-empty str without whitespace, or ``None``.

    Examples
    --------
    >>> Token().check("empty_token", "None"), Token().check("empty_token", None)
    ('None', None)
    >>> Token().check("empty_token", "no order")
    Traceback (most recent call last):
    ...
    scorer.errors.HostVisibleError: The 'empty_token' parameter must be one item id (a \
non-empty str without whitespace) or None. Got 'no order' instead.
    """

    def check(self, name: str, value: Any) -> Any:
        if value is None or (isinstance(value, str) and value and not any_space(value)):
            return encodable(name, value)
        raise HostVisibleError(
            f"The {name!r} parameter must be one item id (a non-empty str without whitespace) "
            f"or None. Got {value!r} instead."
        )

    def describe(self) -> str:
        return "one item id (no whitespace)"


def encodable(name: str, value: str | None) -> str | None:
    """``value`` if UTF-8 can encode it: a command line turns bytes that are not UTF-8
    into lone surrogates, which no Arrow string can hold.

    Examples
    --------
    >>> encodable("empty_token", "N\\udcff")
    Traceback (most recent call last):
    ...
    scorer.errors.HostVisibleError: The 'empty_token' parameter must be text that UTF-8 can \
encode. Got 'N\\udcff' instead (bytes that are not UTF-8 on a command line give this): \
write it in UTF-8.
    """
    try:
        if value is not None:
            value.encode("utf-8")
    except UnicodeEncodeError:
        raise HostVisibleError(
            f"The {name!r} parameter must be text that UTF-8 can encode. Got {value!r} "
            "instead (bytes that are not UTF-8 on a command line give this): write it in UTF-8."
        ) from None
    return value


def any_space(text: str) -> bool:
    """Whether ``text`` holds whitespace (what separates items in a list cell)."""
    return any(character.isspace() for character in text)


@dataclass(frozen=True)
class Weights:
    """A mapping of non-empty str to a finite weight ≥ 0 (as a float), or ``None``.
    Whether each key is a known target type is checked where the types are known.

    Examples
    --------
    >>> Weights().check("type_weights", {"clicks": 0.1, "orders": 1})
    {'clicks': 0.1, 'orders': 1.0}
    >>> Weights().check("type_weights", {"clicks": -1})
    Traceback (most recent call last):
    ...
    scorer.errors.HostVisibleError: The 'type_weights' parameter must be a mapping of target \
type to a finite weight ≥ 0. Got {'clicks': -1} instead (bad: 'clicks').
    """

    def check(self, name: str, value: Any) -> Any:
        if value is None:
            return None
        message = (
            f"The {name!r} parameter must be a mapping of target type to a finite weight ≥ 0. "
            f"Got {value!r} instead"
        )
        if not isinstance(value, Mapping) or not value:
            raise HostVisibleError(message + ".")
        bad = [key for key, weight in value.items() if not _good_weight(key, weight)]
        if bad:
            shown = ", ".join(repr(key) for key in bad[:5])
            raise HostVisibleError(f"{message} (bad: {shown}).")
        return {str(key): float(weight) for key, weight in value.items()}

    def describe(self) -> str:
        return "a mapping of target type to a finite weight ≥ 0"


def _good_weight(key: Any, weight: Any) -> bool:
    if not isinstance(key, str) or not key:
        return False
    if isinstance(weight, bool) or not isinstance(weight, numbers.Real):
        return False
    return math.isfinite(float(weight)) and float(weight) >= 0


Constraint = Interval | Choices | CheckedWhereUsed | Text | Token | Weights


@dataclass(frozen=True)
class Option:
    """One keyword of :func:`scorer.evaluate`, declared once.

    Attributes
    ----------
    name : str
        The Python keyword (``evaluate``, ``score``, EvalAI) and the ``Options`` field.
    constraint : Interval, Choices or CheckedWhereUsed
        The allowed values and the message for a bad one.
    default : object
        The value when not given.
    doc : str
        One line: the docs' table and the command line's help.
    flags : tuple of str
        The command-line flags; none for an option given by flags of its own (``limits``).
    metavar : str, optional
        The command line's name for the value.
    default_doc : str, optional
        How the default reads, when it is not a plain value (``None`` = "from the data").
    cli_help : str, optional
        The command line's help, when it says more than ``doc (default: ...)``.
    repeatable : bool
        The flag may be given several times (``-m MAP@12 -m nDCG@12``).
    setting : bool
        A field of :class:`Options`, reported in ``ScoreResult.options``; the others
        name inputs (columns, measures, read limits).
    flag_doc : str, optional
        How the command line gives an option that has no flag of its own.
    """

    name: str
    constraint: Constraint
    default: Any
    doc: str
    flags: tuple[str, ...] = ()
    metavar: str | None = None
    default_doc: str | None = None
    cli_help: str | None = None
    repeatable: bool = False
    setting: bool = True
    flag_doc: str | None = None

    def check(self, value: Any) -> Any:
        """The value, normalised (an int as a Python int), or a :class:`HostVisibleError`."""
        return self.constraint.check(self.name, value)

    def shown_default(self) -> str:
        """The default as the help and the docs say it."""
        return self.default_doc if self.default_doc is not None else str(self.default)

    def help(self) -> str:
        """The command line's help for this option."""
        if self.cli_help is not None:
            return self.cli_help
        doc = self.doc.replace("`", "").rstrip(".")
        return f"{doc} (default: {self.shown_default().replace('`', '')})"


OPTIONS: tuple[Option, ...] = (
    Option(
        "row_id_column_name",
        CheckedWhereUsed("a column of the solution"),
        None,
        "the row-id column (third positional argument, as in Kaggle's metric signature)",
        ("--row-id-column",),
        "NAME",
        default_doc="the solution's first column",
        setting=False,
    ),
    Option(
        "k",
        Interval(1, none_ok=True),
        None,
        "the cut-off, and the most predictions a row may hold: MAP@5 (Expedia), MAP@7 "
        "(Santander), MAP@12 (H&M). When not given: 10, raised to the largest cut-off among "
        "the measures (`-m MAP@12` alone: 12); when no measure has a cut-off (`SetF`, "
        "`Jaccard`, `RPrec`, `AUC` without `@K`), none: rows are read whole, bounded only by "
        "the file limits. A `k` given always bounds every row",
        ("-k", "--k"),
        "K",
        default_doc=f"`{DEFAULT_K}`, or the measures' largest cut-off if larger; none (whole "
        "rows) when no measure has a cut-off",
        cli_help=f"the cut-off: MAP@K (default: {DEFAULT_K}); when not given and a --metric "
        "measure names a larger cut-off, the largest of them (-m MAP@12 alone: 12); when no "
        "measure has a cut-off (-m SetF), none: rows are read whole, bounded only by the file "
        "limits",
    ),
    Option(
        "metrics",
        CheckedWhereUsed("measure names, e.g. `MAP@12`, `nDCG(gain=linear)@10`"),
        None,
        "the measures computed in one pass (see [Measures](measures.md#measures)); the first "
        "is the leaderboard score",
        ("-m", "--metric"),
        "NAME",
        default_doc="MAP@K",
        cli_help="a measure to compute, repeatable; the first is the leaderboard metric "
        "(default: MAP@K). Names are case-insensitive, the cut-off defaults to K",
        repeatable=True,
        setting=False,
    ),
    Option(
        "dialect",
        Choices(Dialect, none_ok=True),
        None,
        "whose meaning a measure name borrowed from another tool takes: the registry's and "
        "Kaggle's (`MAP@10` divides by min(|R|,10), `nDCG@10` has gains 2^grade - 1), "
        "trec_eval's (`map`, `P` at its default cut-offs, no cut-off: the whole ranking) or "
        "ir_measures' (`AP@10` divides by |R|, `nDCG@10` has linear gains); see [trec_eval "
        "and ir_measures names](measures.md#trec_eval-and-ir_measures-names)",
        ("--dialect",),
        default_doc='`"kaggle"`, or `"trec"` with `format="trec"`',
    ),
    Option(
        "empty_ground_truth",
        Choices(EmptyGroundTruth),
        "skip",
        "a user with no relevant item is left out of the mean (H&M), or scores 0 "
        "(Santander). Its row must be in the submission either way.",
        ("--empty-ground-truth",),
    ),
    Option(
        "extra_predictions",
        Choices(ExtraPredictions),
        "error",
        "a row with more than K predictions is invalid, or only its first K count (as "
        "Kaggle-lineage code does)",
        ("--extra-predictions",),
    ),
    Option(
        "normalization",
        Choices(Normalization),
        "min_k",
        "AP's denominator: min(|R|, K) (Kaggle), |R| (trec_eval `map_cut_K`, ranx), or the "
        "number of hits in the top K (torchmetrics; no hit scores 0)",
        ("--normalization",),
    ),
    Option(
        "unknown_row_ids",
        Choices(UnknownRowIds),
        "error",
        "a submission row whose id is not in the solution is invalid, or dropped (for a "
        "solution that lists only users with ground truth while the sample submission lists "
        "everyone). Missing rows are always an error.",
        ("--unknown-row-ids",),
    ),
    Option(
        "missing_rows",
        Choices(MissingRows),
        "error",
        "a row id (or row id and target type) missing from the submission is invalid (the "
        "Kaggle rule), scored as an empty ranking (OTTO's reference code, trec_eval `-c`), or "
        'left out of the mean (trec_eval\'s default; `format="trec"` only, and its default '
        "there); their count is a warning",
        ("--missing-rows",),
    ),
    Option(
        "target_type_column_name",
        CheckedWhereUsed("a column of the solution and the submission"),
        None,
        "a column holding each row's target type (several targets per row id, see "
        "[Several targets per row id](shapes.md#several-targets-per-row-id)); each type is scored "
        "on its own rows",
        ("--target-type-column",),
        "NAME",
        default_doc="none",
    ),
    Option(
        "row_id_type_separator",
        Text(),
        None,
        "split each row id at its last separator into the row id and its target type "
        "(`42_clicks` with `_`: OTTO)",
        ("--row-id-type-separator",),
        "SEP",
        default_doc="none",
    ),
    Option(
        "type_weights",
        Weights(),
        None,
        "each target type's weight in the leaderboard value Σ w_t · value_t (OTTO: "
        "`clicks=0.1`, `carts=0.3`, `orders=0.6`); every type of the solution needs one",
        ("--type-weight",),
        "TYPE=W",
        default_doc="1 / (number of types) each",
        cli_help="a target type's weight, TYPE=W, repeatable (e.g. --type-weight clicks=0.1); "
        "without any, each type weighs 1 / (number of types)",
        repeatable=True,
    ),
    Option(
        "grade_column_name",
        CheckedWhereUsed("a column of the solution"),
        None,
        "a solution column of space-separated non-negative integer grades, one per target item",
        ("--grade-column",),
        "NAME",
        default_doc="every listed item has grade 1",
    ),
    Option(
        "relevance_threshold",
        Interval(1),
        1,
        "the smallest grade the binary measures count as relevant",
        ("--relevance-threshold",),
        "G",
    ),
    Option(
        "layout",
        Choices(Layout),
        "wide",
        "the submission's shape: one row per row id with a list of items, or one row per "
        "(row id, item) ranked by `rank_column_name`, `score_column_name` or file order "
        "(see [Long layout](shapes.md#long-layout))",
        ("--layout",),
    ),
    Option(
        "solution_layout",
        Choices(Layout),
        "wide",
        "the solution's shape: one row per row id, or one row per (row id, relevant item) "
        "with an optional grade; a row id with no relevant item once with an empty item",
        ("--solution-layout",),
    ),
    Option(
        "rank_column_name",
        CheckedWhereUsed("a column of a long submission"),
        None,
        "a long submission's column of ranks: whole numbers from 1, best first, gaps allowed",
        ("--rank-column",),
        "NAME",
        default_doc="none",
    ),
    Option(
        "score_column_name",
        CheckedWhereUsed("a column of a long submission"),
        None,
        "a long submission's column of scores: finite numbers, higher first, equal scores "
        "by item id ascending (byte order)",
        ("--score-column",),
        "NAME",
        default_doc="none (no rank or score column: the file order of each row id's rows)",
    ),
    Option(
        "format",
        Choices(InputFormat),
        "table",
        "how files are read: tables with a header (CSV, gzip, zip, Parquet, DataFrames), or "
        "trec_eval's headerless qrels (solution) and run (submission) files (see "
        "[TREC files](shapes.md#trec-files))",
        ("--format",),
    ),
    Option(
        "candidates_column_name",
        CheckedWhereUsed("a column of the solution"),
        None,
        "a solution column of each row's candidate items (see [Candidates](shapes.md#candidates))",
        ("--candidates-column",),
        "NAME",
        default_doc="none",
    ),
    Option(
        "candidates",
        CheckedWhereUsed("a path, DataFrame or Arrow table"),
        None,
        "a table of candidates of its own: the solution's row-id column and one column of "
        "items (a list per row, or one item per row)",
        ("--candidates",),
        "PATH",
        default_doc="none",
        setting=False,
    ),
    Option(
        "candidate_rule",
        Choices(CandidateRule),
        "none",
        "what a row may rank: anything, every candidate exactly once and nothing else, or "
        "only candidates, each at most once",
        ("--candidate-rule",),
    ),
    Option(
        "unjudged",
        Choices(Unjudged),
        "keep",
        "predicted items the solution does not list (neither relevant nor graded 0) are kept, "
        "or dropped and the ranks closed up before scoring (trec_eval `-J`)",
        ("--unjudged",),
    ),
    Option(
        "empty_token",
        Token(),
        None,
        "an empty solution cell and an empty submission cell both stand for this one item "
        "(Instacart: `None`, so that predicting `None` for an order with no reorder is a hit)",
        ("--empty-token",),
        "ITEM",
        default_doc="none (an empty cell is the empty set)",
    ),
    Option(
        "segment_column_name",
        CheckedWhereUsed("a column of the solution"),
        None,
        "a solution column of segment labels (e.g. a country), set aside for the "
        "statistics' and the report's breakdown",
        ("--segment-column-name",),
        "NAME",
        default_doc="none",
        setting=False,
    ),
    Option(
        "limits",
        CheckedWhereUsed("a `ReadLimits`"),
        None,
        "bounds on input files read from a path: sizes, line and cell length, columns "
        "(see [File formats and limits](formats-and-limits.md#file-formats-and-limits))",
        default_doc="`ReadLimits()`",
        setting=False,
        flag_doc="`--max-input-bytes`, `--max-columns`, ... (one per field)",
    ),
    Option(
        "recipe",
        CheckedWhereUsed("a recipe's name (`scorer recipes` lists them)"),
        None,
        "a real competition's measures and options in one word (see "
        "[Competitions](recipes.md#competitions)); options given with it win, and a host warning "
        "names each one that replaced the recipe's",
        ("--recipe",),
        "NAME",
        default_doc="none",
        setting=False,
    ),
)

#: Each option by name.
OPTION: dict[str, Option] = {option.name: option for option in OPTIONS}


@dataclass(frozen=True, kw_only=True)
class Options:
    """The options that decide how scores are computed, each checked against its
    declaration in :data:`OPTIONS` (built by keyword only).

    Parameters
    ----------
    k : int, optional
        Cut-off: only the first ``k`` predictions of a row are scored, and no row may
        hold more. ``None``: :func:`scorer.evaluate` sets it to 10, raised to the largest
        cut-off among the measures; when no measure has a cut-off (``SetF``, ``Jaccard``,
        ``RPrec``, ``AUC`` without ``@K``) it stays ``None`` in the result: rows are read
        whole, bounded only by the file limits.
    dialect : {"kaggle", "trec", "ir_measures"}, optional
        Whose meaning a borrowed measure name takes; ``None``: ``"trec"`` with
        ``format="trec"``, else ``"kaggle"`` (:func:`scorer.evaluate` settles it).
    empty_ground_truth : {"skip", "zero"}, default "skip"
        Users with no relevant item: excluded from the mean (H&M) or counted as AP 0
        (Santander).
    extra_predictions : {"error", "truncate"}, default "error"
        A row with more than ``k`` predictions is invalid, or only its first ``k`` count.
    normalization : {"min_k", "relevant", "hits"}, default "min_k"
        Divide a user's summed precision by ``min(|R|, k)`` (Kaggle), ``|R|``
        (trec_eval ``map_cut``) or the number of hits in the top ``k`` (torchmetrics).
    unknown_row_ids : {"error", "ignore"}, default "error"
        Submission rows whose id is not in the solution are invalid, or dropped.
    missing_rows : {"error", "empty", "skip"}, default "error"
        A row id missing from the submission is invalid, scored as an empty ranking, or
        (``format="trec"``, its default there) left out of the mean.
    target_type_column_name : str, optional
        The column holding each row's target type (several targets per row id).
    row_id_type_separator : str, optional
        Split each row id at its last separator into (row id, target type).
    type_weights : dict of str to float, optional
        Each target type's weight; ``None``: 1 / (number of types) each.
    grade_column_name : str, optional
        The solution's column of graded relevance; ``None`` for binary relevance.
    relevance_threshold : int, default 1
        The smallest grade the binary measures count as relevant.
    layout : {"wide", "long"}, default "wide"
        The submission's shape.
    solution_layout : {"wide", "long"}, default "wide"
        The solution's shape.
    rank_column_name : str, optional
        A long submission's ranks.
    score_column_name : str, optional
        A long submission's scores; with neither, each row id's rows in file order.
    format : {"table", "trec"}, default "table"
        Tables with a header, or trec_eval's qrels and run files.
    candidates_column_name : str, optional
        The solution's column of each row's candidates.
    candidate_rule : {"none", "permutation", "subset"}, default "none"
        What a row may rank, given its candidates.
    unjudged : {"keep", "drop"}, default "keep"
        Keep predicted items the solution does not list, or drop them (trec_eval ``-J``).
    empty_token : str, optional
        The item an empty solution or submission cell stands for (Instacart: ``"None"``).

    Examples
    --------
    >>> Options(k=12).k
    12
    >>> Options(k=0)
    Traceback (most recent call last):
    ...
    scorer.errors.HostVisibleError: The 'k' parameter must be an int in the range [1, inf). ...
    >>> Options(normalization="kaggle")
    Traceback (most recent call last):
    ...
    scorer.errors.HostVisibleError: The 'normalization' parameter must be a str among [...]. ...
    """

    k: int | None = OPTION["k"].default
    dialect: Dialect | None = OPTION["dialect"].default
    empty_ground_truth: EmptyGroundTruth = OPTION["empty_ground_truth"].default
    extra_predictions: ExtraPredictions = OPTION["extra_predictions"].default
    normalization: Normalization = OPTION["normalization"].default
    unknown_row_ids: UnknownRowIds = OPTION["unknown_row_ids"].default
    missing_rows: MissingRows = OPTION["missing_rows"].default
    target_type_column_name: str | None = OPTION["target_type_column_name"].default
    row_id_type_separator: str | None = OPTION["row_id_type_separator"].default
    type_weights: dict[str, float] | None = OPTION["type_weights"].default
    grade_column_name: str | None = OPTION["grade_column_name"].default
    relevance_threshold: int = OPTION["relevance_threshold"].default
    layout: Layout = OPTION["layout"].default
    solution_layout: Layout = OPTION["solution_layout"].default
    rank_column_name: str | None = OPTION["rank_column_name"].default
    score_column_name: str | None = OPTION["score_column_name"].default
    format: InputFormat = OPTION["format"].default
    candidates_column_name: str | None = OPTION["candidates_column_name"].default
    candidate_rule: CandidateRule = OPTION["candidate_rule"].default
    unjudged: Unjudged = OPTION["unjudged"].default
    empty_token: str | None = OPTION["empty_token"].default

    def __post_init__(self) -> None:
        for item in fields(self):
            value = OPTION[item.name].check(getattr(self, item.name))
            object.__setattr__(self, item.name, value)
        self._check_combination()

    def _check_combination(self) -> None:
        """Options that cannot go together (each alone is valid).

        Examples
        --------
        >>> Options(rank_column_name="rank", score_column_name="score", layout="long")
        Traceback (most recent call last):
        ...
        scorer.errors.HostVisibleError: rank_column_name and score_column_name cannot both \
be given: a long submission is ranked by its ranks or by its scores. Got 'rank' and 'score'.
        """
        ranked_by = [
            name for name in ("rank_column_name", "score_column_name") if getattr(self, name)
        ]
        if len(ranked_by) == 2:
            raise HostVisibleError(
                "rank_column_name and score_column_name cannot both be given: a long "
                "submission is ranked by its ranks or by its scores. Got "
                f"{self.rank_column_name!r} and {self.score_column_name!r}."
            )
        if ranked_by and (self.layout != "long" or self.format == "trec"):
            raise HostVisibleError(
                f"{ranked_by[0]} applies to a long submission (layout='long'); got "
                f"layout={self.layout!r}, format={self.format!r}. Pass layout='long', or "
                f"leave {ranked_by[0]} out (a trec_eval run is always ranked by its scores)."
            )
        graded: dict[str, str] = {}  # each option that makes the relevance graded, as given
        if self.grade_column_name is not None:
            graded["grade_column_name"] = f"grade_column_name={self.grade_column_name!r}"
        if self.format == "trec":
            graded["format"] = "format='trec' (trec_eval's qrels are graded)"
        if self.empty_token is not None and graded:
            raise HostVisibleError(
                "empty_token applies to binary relevance: an empty cell stands for one item, "
                "which a grade column cannot grade. Leave out empty_token or "
                f"{next(iter(graded))}. Got empty_token={self.empty_token!r}, "
                f"{', '.join(graded.values())}."
            )
        if self.missing_rows == "skip" and self.format != "trec":
            raise HostVisibleError(
                "missing_rows='skip' leaves a query missing from a trec_eval run out of the "
                "mean (trec_eval's rule): it applies to format='trec'. Use 'error' or 'empty' "
                f"for tables. Got format={self.format!r}."
            )
        if self.format == "trec" and (self.layout, self.solution_layout) != ("wide", "wide"):
            raise HostVisibleError(
                "format='trec' reads trec_eval's own files, one line per pair: leave layout "
                f"and solution_layout at 'wide'. Got layout={self.layout!r}, "
                f"solution_layout={self.solution_layout!r}."
            )


def markdown_table() -> str:
    """The docs' table of options, from :data:`OPTIONS` (``python tools/tables.py``).

    Examples
    --------
    >>> print(markdown_table().splitlines()[6])
    | `empty_ground_truth` | `--empty-ground-truth` | `"skip"`, `"zero"` | a user with no ...
    """
    bar = "\\|"  # a literal | inside a Markdown table cell
    lines = [
        "| option | flag | values (default first) | meaning |",
        "|---|---|---|---|",
    ]
    for option in OPTIONS:
        flags = ", ".join(f"`{flag}`" for flag in option.flags) or option.flag_doc or "-"
        if isinstance(option.constraint, Choices):
            values = option.constraint.describe()
            if option.constraint.none_ok:
                values += f"; by default {option.default_doc}"
        else:
            default = option.default_doc or f"`{option.default}`"
            values = f"{default}; {option.constraint.describe()}"
        cells = (f"`{option.name}`", flags, values, option.doc)
        lines.append("| " + " | ".join(cell.replace("|", bar) for cell in cells) + " |")
    return "\n".join(lines)
