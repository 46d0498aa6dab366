"""One self-contained HTML report: tables, and PNG figures embedded as base64.

No JavaScript, no network: the file opens anywhere and can be attached to an email.
Numbers are printed for people (values with six decimals, differences signed, ranks as
integers where they are whole, p-values as ``scorer compare`` prints them) and each
carries its full value in a ``data-value`` attribute. Every submission's figures share
their y scales, so they compare by eye. Plots need matplotlib, an optional extra
(``pip install "rankscore[report]"``); nothing else in :mod:`scorer` imports it.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from scorer import stats
from scorer.errors import HostVisibleError
from scorer.result import SPLIT_NAMES, ScoreResult, measure_name
from scorer.stats import pages

#: Ranks drawn as bars in the hit-rate figure; beyond, one filled step line.
_MAX_BARS = 64
#: The hit-rate figure and table show at most this many ranks: rows read whole (no k)
#: may be a million long, and neither a figure nor a table of a million ranks is read.
_MAX_RANKS = 10_000
INSTALL_LINE = 'python -m pip install "rankscore[report]"'
MISSING_MATPLOTLIB = (
    "The report needs matplotlib, an optional extra. Install it with: "
    f'{INSTALL_LINE} (from a checkout of the source: python -m pip install ".[report]").'
)


def require_matplotlib() -> None:
    """Raise a :class:`HostVisibleError` with the install line if matplotlib is absent."""
    try:
        import matplotlib  # noqa: F401
    except ImportError as exc:
        raise HostVisibleError(MISSING_MATPLOTLIB) from exc


def build_report(
    results: Mapping[str, ScoreResult],
    metrics: Sequence[str] | None = None,
    *,
    n_resamples: int | None = None,
    level: float = 0.95,
    seed: int = 0,
    title: str = "Scoring report",
    figures: dict[str, bytes] | None = None,
) -> str:
    """The HTML report of one or several submissions scored against one solution.

    Parameters
    ----------
    results : mapping of str to ScoreResult
        Submission name -> its result, all against the same solution and options.
    metrics : list of str, optional
        The measures, by any name the registry parses; default every measure of
        the first result. The first one is the shake-up's and the histogram's.
    n_resamples : int, optional
        The resamples of the intervals and of the comparisons; by default each takes
        its own (``stats.bootstrap``'s 1,000 and ``stats.compare``'s 10,000, so a
        pair's p-value is ``scorer compare``'s).
    level, seed
        For the intervals, the comparisons and the shake-up.
    title : str
    figures : dict, optional
        If given, filled with each figure's PNG bytes by file name.

    Returns
    -------
    str
        A complete HTML document.
    """
    names = list(results)
    first = results[names[0]]
    require_matplotlib()
    for name in names[1:]:
        stats.check_paired(first, results[name])
    settings = {"level": level, "seed": seed} | (
        {} if n_resamples is None else {"n_resamples": n_resamples}
    )
    measures = [measure_name(first, m) for m in metrics] if metrics else list(first.measures)
    for result in results.values():  # every measure computed for every submission
        for measure in measures:
            measure_name(result, measure)
    parts = [
        f"<h1>{pages.text(title)}</h1>",
        _summary(first, measures, settings),
        "<h2>Scores and intervals</h2>",
        _headline(results, measures, settings),
    ]
    if len(names) > 1:
        parts += ["<h2>Paired comparisons</h2>", _comparisons(results, measures, settings)]
    if first.public_score is not None and first.private_score is not None:
        shake_up = _shake_up(results, measures[0], seed)
        parts += ["<h2>Shake-up: Public against Private</h2>", shake_up]
    tops = shared_tops(results, measures[0])
    for index, name in enumerate(names, start=1):
        parts.append(f"<h2>Submission {pages.text(name)}</h2>")
        parts.append(_diagnostics(results[name], measures, index, figures, tops))
    body = "\n".join(parts)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{pages.text(title)}</title>\n<style>{pages.STYLE}</style>\n</head>\n"
        f"<body>\n{body}\n</body>\n</html>\n"
    )


def shared_tops(results: Mapping[str, ScoreResult], metric: str) -> tuple[float, float]:
    """The tops of the y axes every submission's figures share: the hit-rate figure's
    (the largest hit share of any submission, plus a quarter for the legend) and the
    histogram's (its tallest bar in any submission, plus a twentieth)."""
    hit_share = max(float(_hit_rate(r).hit_share.max(initial=0)) for r in results.values())
    tallest = max(int(_histogram_counts(r, metric).max(initial=0)) for r in results.values())
    return _hit_rate_top(hit_share), max(1, tallest) * 1.05


def _hit_rate(result: ScoreResult) -> stats.HitRateByRank:
    """The hit rate by rank, its first :data:`_MAX_RANKS` ranks."""
    figure = stats.hit_rate_by_rank(result)
    shown = slice(0, _MAX_RANKS)
    return replace(
        figure,
        rank=figure.rank[shown],
        hit_share=figure.hit_share[shown],
        cumulative_precision=figure.cumulative_precision[shown],
    )


def _left_out_ranks(result: ScoreResult) -> str:
    """A note when the hit-rate figure and table leave ranks out (else nothing)."""
    hits = result.hits_at_rank
    total = 0 if hits is None else len(hits)
    if total <= _MAX_RANKS:
        return ""
    return f'<p class="note">Ranks 1 to {_MAX_RANKS:,} of {total:,} shown.</p>'


def _hit_rate_top(largest_share: float) -> float:
    """The hit-rate figure's y top: room above the largest bar for the legend."""
    return max(1e-9, largest_share) * 1.25


def hit_rate_figure(result: ScoreResult, top: float | None = None) -> bytes:
    """The hit-rate-by-rank figure as PNG: bars of the hit share at each rank and the
    cumulative precision as a line over them; the y axis up to ``top`` (default: this
    result's own :func:`shared_tops`); at most :data:`_MAX_RANKS` ranks."""
    figure = _hit_rate(result)
    if top is None:
        top = _hit_rate_top(float(figure.hit_share.max(initial=0)))

    def draw(axes: Any) -> None:
        from matplotlib.ticker import MaxNLocator

        label = "hit share at rank i"
        if len(figure.rank) <= _MAX_BARS:
            axes.bar(figure.rank, figure.hit_share, color="#4c72b0", label=label)
        else:  # one artist however many ranks (a bar each took a minute at K = 10^6)
            edges = np.append(figure.rank, figure.rank[-1] + 1) - 0.5
            axes.stairs(figure.hit_share, edges, fill=True, color="#4c72b0", label=label)
        axes.plot(
            figure.rank,
            figure.cumulative_precision,
            color="#dd8452",
            marker="o" if len(figure.rank) <= _MAX_BARS else None,
            label="cumulative precision P(i)",
        )
        axes.set_xlabel("rank i")
        axes.set_ylabel(f"share of {figure.n_users:,} scored users")
        # At most a dozen ticks, whatever K is.
        axes.xaxis.set_major_locator(MaxNLocator(nbins=12, integer=True))
        axes.set_ylim(0, top)
        axes.legend(loc="upper right")
        axes.set_title("Hit rate by rank")

    return _png(draw)


#: The histogram's bins: twenty of width 0.05 over [0, 1].
_BINS = np.linspace(0, 1, 21)


def _histogram_counts(result: ScoreResult, metric: str | None) -> np.ndarray:
    values = result.measure_values(metric)
    return np.histogram(values.values[values.scored], bins=_BINS)[0]


def values_histogram(
    result: ScoreResult, metric: str | None = None, top: float | None = None
) -> bytes:
    """The distribution of the scored users' values as a PNG histogram, the y axis up
    to ``top`` (default: matplotlib's choice)."""
    values = result.measure_values(metric)
    scored = values.values[values.scored]

    def draw(axes: Any) -> None:
        axes.hist(scored, bins=_BINS, color="#55a868")
        if top is not None:
            axes.set_ylim(0, top)
        axes.set_xlabel(f"per-user {values.name}")
        axes.set_ylabel("users")
        axes.set_title(f"Distribution of per-user {values.name} ({len(scored):,} users)")

    return _png(draw)


def figure_names(n_submissions: int) -> list[str]:
    """The file names of the figures of a report on ``n_submissions`` submissions.

    Examples
    --------
    >>> figure_names(1)
    ['hit_rate_by_rank_1.png', 'per_user_values_1.png']
    """
    return [
        name
        for index in range(1, n_submissions + 1)
        for name in (f"hit_rate_by_rank_{index}.png", f"per_user_values_{index}.png")
    ]


def _png(draw: Callable[[Any], None]) -> bytes:
    from matplotlib.figure import Figure

    figure = Figure(figsize=(6.4, 3.6), dpi=100)
    draw(figure.add_subplot())
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()


def _image(png: bytes, alt: str) -> str:
    encoded = base64.b64encode(png).decode("ascii")
    return f'<p><img alt="{pages.text(alt)}" src="data:image/png;base64,{encoded}"></p>'


def _summary(result: ScoreResult, measures: list[str], settings: dict) -> str:
    options = result.options
    label = "Measure" if len(measures) == 1 else "Measures"
    return (
        f'<p class="note">{label} {pages.text(", ".join(measures))}; '
        f"{result.n_scored:,} users scored, "
        f"{result.n_skipped:,} skipped (no relevant item), {result.n_ignored:,} ignored, "
        f"{result.n_users:,} in the solution. Options: "
        f"k={'none (whole rows)' if options.k is None else options.k}, "
        f"normalization={options.normalization}, "
        f"empty_ground_truth={options.empty_ground_truth}. Intervals: percentile "
        "bootstrap over users within each split, "
        f"{settings.get('n_resamples', stats.INTERVAL_RESAMPLES):,} resamples, "
        f"level {settings['level']}, seed {settings['seed']} (per-user values in float64).</p>"
        + _typed_note(result)
    )


def _typed_note(result: ScoreResult) -> str:
    """For several targets per row id: what the values are and what is drawn."""
    if result.by_type is None:
        return ""
    weights = ", ".join(f"{kind} {weight:g}" for kind, weight in (result.weights or {}).items())
    return (
        '<p class="note">Several targets per row id: each value is the weighted total '
        f"Σ weight · value over the target types (weights: {pages.text(weights)}). Intervals, "
        "comparisons and the shake-up draw row ids with all their types; the diagnostics "
        "of each submission pool the rows of every type.</p>"
    )


def _headline(results: Mapping[str, ScoreResult], measures: list[str], settings: dict) -> str:
    rows = []
    for name, result in results.items():
        for measure in measures:
            for split, interval in stats.bootstrap(result, measure, **settings).items():
                numbers = [pages.number(v) for v in (interval.value, interval.low, interval.high)]
                rows.append([pages.name(name), pages.text(measure), SPLIT_NAMES[split], *numbers])
    level = stats.format_level(settings["level"])
    header = ["submission", "measure", "split", "value", f"{level} low", f"{level} high"]
    return pages.table(header, rows)


def _comparisons(results: Mapping[str, ScoreResult], measures: list[str], settings: dict) -> str:
    names = list(results)
    baseline = results[names[0]]
    rows = []
    for name in names[1:]:
        for measure in measures:
            rows.append(_comparison_row(name, baseline, results[name], measure, settings))
    level = stats.format_level(settings["level"])
    header = ["measure", "B", "A value", "B value", "B - A", f"{level} interval"]
    baseline_note = f'<p class="note">A, the baseline of every row: {pages.text(names[0])}.</p>'
    note = (
        '<p class="note">Paired percentile bootstrap of B - A; two-sided sign-flip '
        "randomisation test, exact over every sign pattern when at most "
        f"{stats.EXACT_SIGN_FLIP_MAX_USERS} users differ, else Monte-Carlo with "
        "(b + 1) / (N + 1); "
        f"{settings.get('n_resamples', stats.PAIRED_RESAMPLES):,} resamples and sign "
        "patterns. Users where B wins / ties / loses against A.</p>"
    )
    table = pages.table([*header, "p-value", "test", "B wins / ties / loses"], rows)
    return baseline_note + table + note


def _comparison_row(
    name_b: str, a: ScoreResult, b: ScoreResult, measure: str, settings: dict
) -> list[str]:
    c = stats.compare(a, b, measure, **settings)
    return [
        pages.text(measure),
        pages.name(name_b),
        pages.number(c.a),
        pages.number(c.b),
        pages.signed(c.difference),
        pages.cell(f"[{c.low:+.6f}, {c.high:+.6f}]", c.low, c.high),
        pages.cell(stats.format_p_value(c.p_value), c.p_value),
        "exact" if c.exact else "Monte-Carlo",
        f"{c.wins:,} / {c.ties:,} / {c.losses:,}",
    ]


def _shake_up(results: Mapping[str, ScoreResult], metric: str, seed: int) -> str:
    splits = 1000
    note = (
        f'<p class="note">{pages.text(metric)}, {splits:,} random re-splits of the scored users '
        "with the real Public and Private sizes.</p>"
    )
    if len(results) == 1:
        shake = stats.shake_up(next(iter(results.values())), metric, n_splits=splits, seed=seed)
        header = ["Private - Public", "re-split mean", "5 %", "95 %"]
        row = [pages.signed(v) for v in (shake.observed, shake.mean, shake.low, shake.high)]
        return pages.table(header, [row]) + note
    table = stats.shake_up(dict(results), metric, n_splits=splits, seed=seed)
    rows = [
        [
            pages.name(name),
            pages.number(s.public),
            pages.rank(s.public_rank),
            pages.number(s.private),
            pages.rank(s.private_rank),
            pages.rank(s.expected_private_rank),
            pages.rank(s.private_rank_low),
            pages.rank(s.private_rank_high),
        ]
        for name, s in table.standings.items()
    ]
    header = ["submission", "Public", "rank", "Private", "rank", "expected Private rank"]
    standings = pages.table([*header, "5 %", "95 %"], rows)
    swaps = pages.table(
        ["submission", "submission", "probability of swapping"],
        [
            [pages.name(a), pages.name(b), pages.number(p)]
            for (a, b), p in table.swap_probability.items()
        ],
    )
    return standings + swaps + note


def _diagnostics(
    result: ScoreResult,
    measures: list[str],
    index: int,
    figures: dict[str, bytes] | None,
    tops: tuple[float, float],
) -> str:
    measure = measures[0]
    hit_png = hit_rate_figure(result, tops[0])
    histogram_png = values_histogram(result, measure, tops[1])
    if figures is not None:
        hit_name, histogram_name = figure_names(index)[-2:]
        figures[hit_name] = hit_png
        figures[histogram_name] = histogram_png
    figure = _hit_rate(result)
    rank_rows = [
        [str(r), pages.number(h), pages.number(p)]
        for r, h, p in zip(
            figure.rank.tolist(),
            figure.hit_share.tolist(),
            figure.cumulative_precision.tolist(),
            strict=True,
        )
    ]
    parts = [
        "<h3>Hit rate by rank</h3>",
        _image(hit_png, "hit rate by rank"),
        _left_out_ranks(result),
        pages.table(["rank", "hit share", "cumulative precision"], rank_rows),
        f"<h3>Per-user {pages.text(measure)}</h3>",
        _image(histogram_png, f"distribution of per-user {measure}"),
        "<h3>By number of relevant items |R|</h3>",
        _breakdown_table("|R|", stats.by_relevant_count, result, measures),
    ]
    if result.segments is not None:
        column = result.segments.column
        parts += [
            f"<h3>By segment ({pages.text(column)})</h3>",
            _breakdown_table(column, stats.by_segment, result, measures),
        ]
    return "\n".join(parts)


def _breakdown_table(
    label: str,
    breakdown: Callable[[ScoreResult, str], list[stats.Breakdown]],
    result: ScoreResult,
    measures: list[str],
) -> str:
    """One row per group: its scored users and every measure's mean over them."""
    columns = [breakdown(result, measure) for measure in measures]
    cells = [
        [pages.text(rows[0].label), f"{rows[0].n_users:,}", *(pages.number(r.mean) for r in rows)]
        for rows in zip(*columns, strict=True)
    ]
    return pages.table([label, "scored users", *measures], cells)
