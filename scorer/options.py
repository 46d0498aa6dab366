"""The scoring options, each declared once, and validated once with scikit-learn's phrasing.

:data:`OPTIONS` holds one :class:`Option` per keyword of :func:`scorer.evaluate`: its
name, its constraint (:mod:`scorer.constraints`: the allowed values, the message for a
bad one, the values tests try), its default, a one-line doc, and its command-line flag;
:data:`COMBINATIONS` the options that cannot go together. Everything else is built from
them: :class:`Options` (the settings, checked), the keywords and docstrings of
``evaluate``, ``score`` and ``score_part`` (:func:`takes_options`), the command line's
flags, the EvalAI adapter's keywords and the docs' table (:func:`markdown_table`).
Adding an option is its record here and the place it acts.
"""

from __future__ import annotations

import functools
import inspect
import re
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, make_dataclass
from typing import Any, Literal

from scorer.constraints import CheckedWhereUsed, Choices, Constraint, Interval, Text, Weights
from scorer.errors import HostVisibleError, refuse_unknown_keywords

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


#: A link to a page of the docs, in an option's documentation: ``[text](page.md#part)``.
_DOCS_LINK = re.compile(r"\[([^\]]+)\]\(([\w-]+)\.md(?:#[\w-]*)?\)")


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
    positional : bool
        Also given by position, after the solution and the submission (Kaggle's
        metric signature: ``row_id_column_name``).
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
    positional: bool = False

    def check(self, value: Any) -> Any:
        """The value, normalised (an int as a Python int), or a :class:`HostVisibleError`."""
        return self.constraint.check(self.name, value)

    def help(self) -> str:
        """The command line's help for this option: its documentation as plain text, a
        link to a page of the docs as the page's name, another option by its flag.

        Examples
        --------
        >>> print(OPTION["layout"].help())
        the submission's shape: one row per row id with a list of items, or one row per \
(row id, item) ranked by --rank-column, --score-column or file order (see Long layout, \
docs/shapes.md) (default: wide)
        """
        text = self.cli_help
        if text is None:
            default = self.default_doc if self.default_doc is not None else str(self.default)
            text = f"{self.doc.rstrip('.')} (default: {default})"
        return plain_text(text)

    def numpydoc(self) -> str:
        """The option's entry in a numpydoc Parameters section.

        Examples
        --------
        >>> print(OPTION["relevance_threshold"].numpydoc())
        relevance_threshold : int, default 1
            the smallest grade the binary measures count as relevant
        """
        if self.default is None:
            default = "optional"
        else:
            shown = f'"{self.default}"' if isinstance(self.default, str) else self.default
            default = f"default {shown}"
        text = textwrap.fill(self.doc, 84, initial_indent="    ", subsequent_indent="    ")
        return f"{self.name} : {self.constraint.type_doc}, {default}\n{text}"

    def parameter(self) -> inspect.Parameter:
        """The option as a parameter of a signature."""
        kind = inspect.Parameter.KEYWORD_ONLY
        if self.positional:
            kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
        return inspect.Parameter(
            self.name, kind, default=self.default, annotation=self.constraint.annotation
        )


OPTIONS: tuple[Option, ...] = (
    Option(
        "row_id_column_name",
        CheckedWhereUsed("a column of the solution", "id"),
        None,
        "the row-id column (third positional argument, as in Kaggle's metric signature)",
        ("--row-id-column",),
        "NAME",
        default_doc="the solution's first column",
        setting=False,
        positional=True,
    ),
    Option(
        "k",
        Interval(int, 1, none_ok=True),
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
        CheckedWhereUsed(
            "measure names, e.g. `MAP@12`, `nDCG(gain=linear)@10`",
            ["MRR@3"],
            "str | Measure | Sequence[str | Measure] | None",
            "str or list of str",
        ),
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
        "there: a table refuses it, since a participant could leave out the rows it scores "
        "worst on); their count is a warning",
        ("--missing-rows",),
    ),
    Option(
        "target_type_column_name",
        CheckedWhereUsed("a column of the solution and the submission", "kind"),
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
        CheckedWhereUsed("a column of the solution", "grades"),
        None,
        "a solution column of space-separated non-negative integer grades, one per target item",
        ("--grade-column",),
        "NAME",
        default_doc="every listed item has grade 1",
    ),
    Option(
        "relevance_threshold",
        Interval(int, 1),
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
        CheckedWhereUsed("a column of a long submission", "rank"),
        None,
        "a long submission's column of ranks: whole numbers from 1, best first, gaps allowed",
        ("--rank-column",),
        "NAME",
        default_doc="none",
    ),
    Option(
        "score_column_name",
        CheckedWhereUsed("a column of a long submission", "score"),
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
        CheckedWhereUsed("a column of the solution", "candidates"),
        None,
        "a solution column of each row's candidate items (see [Candidates](shapes.md#candidates))",
        ("--candidates-column",),
        "NAME",
        default_doc="none",
    ),
    Option(
        "candidates",
        CheckedWhereUsed(
            "a path, DataFrame or Arrow table",
            "candidates.csv",
            "TableLike | None",
            "DataFrame, pyarrow.Table or path",
        ),
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
        Text(token=True),
        None,
        "an empty solution cell and an empty submission cell both stand for this one item "
        "(Instacart: `None`, so that predicting `None` for an order with no reorder is a hit)",
        ("--empty-token",),
        "ITEM",
        default_doc="none (an empty cell is the empty set)",
    ),
    Option(
        "segment_column_name",
        CheckedWhereUsed("a column of the solution", "country"),
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
        CheckedWhereUsed("a `ReadLimits`", None, "ReadLimits | None", "ReadLimits"),
        None,
        "bounds on input files read from a path: sizes, line and cell length, columns "
        "(see [File formats and limits](formats-and-limits.md#file-formats-and-limits))",
        default_doc="`ReadLimits()`",
        setting=False,
        flag_doc="`--max-input-bytes`, `--max-columns`, ... (one per field)",
    ),
    Option(
        "recipe",
        CheckedWhereUsed("a recipe's name (`scorer recipes` lists them)", "otto-2023"),
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

#: Each option's first flag (the command line's help names the flag where the
#: documentation names the keyword).
_FLAG_OF = {o.name: o.flags[0] for o in OPTIONS if o.flags}
#: A keyword of more than one word, and an option given a value (``format="trec"``).
_OPTION_NAME = re.compile(r"\b[a-z]+(?:_[a-z]+)+\b")
_ASSIGNED = re.compile(r"\b([a-z][a-z_]*)=([\"'])([^\"']*)\2")


def plain_text(text: str) -> str:
    """Documentation as the command line's help shows it: a link to a page of the docs
    as the page's name, an option's keyword as its flag, no code marks.

    Examples
    --------
    >>> plain_text("`rank_column_name` (see [Long layout](shapes.md#long-layout))")
    '--rank-column (see Long layout, docs/shapes.md)'
    >>> plain_text('`format="trec"` only')
    '--format trec only'
    """
    text = _DOCS_LINK.sub(r"\1, docs/\2.md", text)
    text = _ASSIGNED.sub(
        lambda given: f"{_FLAG_OF[given[1]]} {given[3]}" if given[1] in _FLAG_OF else given[0],
        text,
    )
    text = _OPTION_NAME.sub(lambda name: _FLAG_OF.get(name[0], name[0]), text)
    return text.replace("`", "")


#: Each option's default: what :func:`scorer.evaluate` takes when it is not given.
DEFAULTS: dict[str, Any] = {option.name: option.default for option in OPTIONS}


#: The options that decide how scores are computed: :class:`Options`' fields, reported
#: in ``ScoreResult.options``.
SETTINGS: tuple[Option, ...] = tuple(option for option in OPTIONS if option.setting)


def _both_ranks(options: Any) -> str | None:
    if options.rank_column_name and options.score_column_name:
        return (
            "rank_column_name and score_column_name cannot both be given: a long "
            "submission is ranked by its ranks or by its scores. Got "
            f"{options.rank_column_name!r} and {options.score_column_name!r}."
        )
    return None


def _ranks_of_a_wide_submission(options: Any) -> str | None:
    ranked_by = "rank_column_name" if options.rank_column_name else "score_column_name"
    if getattr(options, ranked_by) and (options.layout != "long" or options.format == "trec"):
        return (
            f"{ranked_by} applies to a long submission (layout='long'); got "
            f"layout={options.layout!r}, format={options.format!r}. Pass layout='long', or "
            f"leave {ranked_by} out (a trec_eval run is always ranked by its scores)."
        )
    return None


def _graded_empty_token(options: Any) -> str | None:
    graded: dict[str, str] = {}  # each option that makes the relevance graded, as given
    if options.grade_column_name is not None:
        graded["grade_column_name"] = f"grade_column_name={options.grade_column_name!r}"
    if options.format == "trec":
        graded["format"] = "format='trec' (trec_eval's qrels are graded)"
    if options.empty_token is not None and graded:
        return (
            "empty_token applies to binary relevance: an empty cell stands for one item, "
            "which a grade column cannot grade. Leave out empty_token or "
            f"{next(iter(graded))}. Got empty_token={options.empty_token!r}, "
            f"{', '.join(graded.values())}."
        )
    return None


def _long_trec_files(options: Any) -> str | None:
    if options.format == "trec" and (options.layout, options.solution_layout) != ("wide", "wide"):
        return (
            "format='trec' reads trec_eval's own files, one line per pair: leave layout "
            f"and solution_layout at 'wide'. Got layout={options.layout!r}, "
            f"solution_layout={options.solution_layout!r}."
        )
    return None


def _skipped_rows_of_a_table(options: Any) -> str | None:
    if options.missing_rows == "skip" and options.format != "trec":
        return (
            "missing_rows='skip' leaves a query that a trec_eval run lacks out of the mean: "
            "trec_eval's rule, for its files only (format='trec'). In a table it would let a "
            "submission leave out the rows it scores worst on. Pass missing_rows='error' (a "
            "missing row id is invalid) or 'empty' (scored as an empty ranking). Got "
            f"missing_rows='skip', format={options.format!r}."
        )
    return None


def _both_type_sources(options: Any) -> str | None:
    by_column, by_separator = options.target_type_column_name, options.row_id_type_separator
    if by_column is not None and by_separator is not None:
        return (
            "Give the target types either as a column (target_type_column_name="
            f"{by_column!r}) or in the row ids (row_id_type_separator={by_separator!r}), "
            "not both."
        )
    return None


def _weights_without_types(options: Any) -> str | None:
    by_column, by_separator = options.target_type_column_name, options.row_id_type_separator
    if options.type_weights is not None and by_column is None and by_separator is None:
        return (
            "type_weights needs target types: name their column (target_type_column_name, "
            "--target-type-column) or the row ids' separator (row_id_type_separator, "
            "--row-id-type-separator)."
        )
    return None


@dataclass(frozen=True)
class Combination:
    """Options that cannot go together (each alone is valid): ``refusal(options)`` is
    the message refusing them, or ``None``. With ``exclusive``, at most one of ``names``
    may be given, and one given with a recipe replaces the recipe's other."""

    names: tuple[str, ...]
    refusal: Callable[[Any], str | None]
    exclusive: bool = False


#: Every rule on options together, checked in this order by :class:`Options`.
COMBINATIONS: tuple[Combination, ...] = (
    Combination(("rank_column_name", "score_column_name"), _both_ranks, exclusive=True),
    Combination(("rank_column_name", "score_column_name", "layout"), _ranks_of_a_wide_submission),
    Combination(("empty_token", "grade_column_name", "format"), _graded_empty_token),
    Combination(("format", "layout", "solution_layout"), _long_trec_files),
    Combination(("missing_rows", "format"), _skipped_rows_of_a_table),
    Combination(
        ("target_type_column_name", "row_id_type_separator"), _both_type_sources, exclusive=True
    ),
    Combination(("type_weights", "target_type_column_name"), _weights_without_types),
)


def _check_settings(self: Any) -> None:
    """Each field checked against its declaration, then every :data:`COMBINATIONS` rule."""
    for option in SETTINGS:
        object.__setattr__(self, option.name, option.check(getattr(self, option.name)))
    for combination in COMBINATIONS:
        refusal = combination.refusal(self)
        if refusal is not None:
            raise HostVisibleError(refusal)


_OPTIONS_DOC = """The options that decide how scores are computed, each checked against its
declaration in :data:`OPTIONS` (built by keyword only), then against
:data:`COMBINATIONS`.

Parameters
----------
{parameters}

Examples
--------
>>> Options(k=12).k
12
>>> Options(k=0)
Traceback (most recent call last):
...
scorer.errors.HostVisibleError: The 'k' parameter must be an int in the range [1, inf). ...
>>> Options(rank_column_name="rank", score_column_name="score", layout="long")
Traceback (most recent call last):
...
scorer.errors.HostVisibleError: rank_column_name and score_column_name cannot both be given: \
a long submission is ranked by its ranks or by its scores. Got 'rank' and 'score'.
"""

Options = make_dataclass(
    "Options",
    [(o.name, o.constraint.annotation, field(default=o.default)) for o in SETTINGS],
    namespace={
        "__module__": __name__,
        "__doc__": _OPTIONS_DOC.format(parameters="\n".join(o.numpydoc() for o in SETTINGS)),
        "__post_init__": _check_settings,
    },
    frozen=True,
    kw_only=True,
)


def takes_options(
    leave_out: tuple[str, ...] = (), replace: dict[str, Option] | None = None
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Give ``function(solution, submission, *, own..., **options)`` every declared
    option (but ``leave_out``; ``replace`` puts another declaration in one's place, as
    :func:`scorer.score`'s ``metric`` for ``metrics``) in its signature, after its
    positional parameters and before its own keywords, and in its docstring's
    Parameters section (polars' pattern: ``__signature__`` set on a wrapper).

    The function is called with the options given (by name), once bound to that
    signature (an unknown keyword is a :class:`TypeError` naming the closest known
    one): it fills in the defaults itself (:data:`DEFAULTS`), since a recipe needs to
    know which were given.

    Examples
    --------
    >>> run = takes_options(leave_out=("limits", "recipe"))(lambda a, b, **options: options)
    >>> run("s.csv", "t.csv", "id", k=3)
    {'row_id_column_name': 'id', 'k': 3}
    >>> list(inspect.signature(run).parameters)[:5]
    ['a', 'b', 'row_id_column_name', 'k', 'metrics']
    """
    replaced = replace or {}

    def declare(function: Callable[..., Any]) -> Callable[..., Any]:
        own = inspect.signature(function).parameters.values()
        first = [p for p in own if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
        last = [p for p in own if p.kind is inspect.Parameter.KEYWORD_ONLY]
        options = [replaced.get(name, OPTION[name]) for name in OPTION if name not in leave_out]
        declared = [option.parameter() for option in options]
        positional = [p for p in declared if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
        keywords = [p for p in declared if p.kind is inspect.Parameter.KEYWORD_ONLY]
        signature = inspect.signature(function).replace(
            parameters=[*first, *positional, *keywords, *last]
        )
        names = list(signature.parameters)

        @functools.wraps(function)
        def with_options(*args: Any, **kwargs: Any) -> Any:
            refuse_unknown_keywords(function.__name__, kwargs, names)
            by_position = list(signature.bind(*args, **kwargs).arguments.items())[: len(args)]
            return function(**dict(by_position), **kwargs)  # keywords in the order given

        entries = [option.numpydoc() for option in options]
        # The declared signature is the one to read: not the function's (tools that
        # unwrap, such as the API reference's, would show ``**options``).
        del with_options.__wrapped__  # type: ignore[attr-defined]
        with_options.__signature__ = signature  # type: ignore[attr-defined]
        with_options.__doc__ = _with_entries(function.__doc__ or "", entries, last)
        return with_options

    return declare


def _with_entries(doc: str, entries: list[str], last: list[inspect.Parameter]) -> str:
    """``doc`` with ``entries`` in its Parameters section, before the first of ``last``'s
    entries (else at the section's end), indented as the section is."""
    lines = doc.splitlines()
    start = next((i + 2 for i, line in enumerate(lines) if line.strip() == "Parameters"), 0)
    if not start:
        return doc
    indent = lines[start - 1][: len(lines[start - 1]) - len(lines[start - 1].lstrip())]
    own = {f"{indent}{p.name}" for p in last}
    ends = [
        i
        for i in range(start, len(lines))
        if lines[i].partition(" : ")[0] in own
        or (i + 1 < len(lines) and re.fullmatch(rf"{indent}-+", lines[i + 1]))
    ]
    at = ends[0] if ends else len(lines)
    while not lines[at - 1].strip():
        at -= 1
    block = [indent + line for entry in entries for line in entry.splitlines()]
    return "\n".join([*lines[:at], *block, *lines[at:]])


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
            values = option.constraint.wording()
            if option.constraint.none_ok:
                values += f"; by default {option.default_doc}"
        else:
            default = option.default_doc or f"`{option.default}`"
            values = f"{default}; {option.constraint.wording()}"
        cells = (f"`{option.name}`", flags, values, option.doc)
        lines.append("| " + " | ".join(cell.replace("|", bar) for cell in cells) + " |")
    return "\n".join(lines)
