"""Every trec_eval 10 measure against trec_eval 10 itself: the outputs of
``trec_eval -q -m all_trec`` (with ``-c``, ``-l 2`` and ``-J``) stored beside the qrels
and runs of ``fixtures/trec/parity/`` (README.md there says how they were made), each
per-query and summary value printed as trec_eval prints it and equal to its digits.

Where they may differ, the rule is checked, never a list of lines (docs/measures.md,
"trec_eval and ir_measures names"):

- a rational value exactly halfway between two printed values: the scorer prints its
  correctly rounded double, trec_eval its own float sums (``bpref`` 547/800 there);
- ``-nan``, trec_eval's 0/0 (``iprec_at_recall``, ``11pt_avg`` with ``-J`` and nothing
  judged retrieved): 0 here, and a number in the summary;
- ``rbp`` under ``all_trec``, where trec_eval 10 reads two uninitialised variables: it is
  checked against ``trec_eval -m rbp`` run alone (``*.rbp*.txt``), which scales the
  gains as its source means to.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from scorer import evaluate
from scorer.measures import Measure, trec_eval_measures
from scorer.measures.names import TREC_PRINTED_ONLY
from tests import paths

FIXTURES = paths.FIXTURES / "trec" / "parity"
#: Each output's run file and evaluate's options, as trec_eval's flag sets them.
VARIANTS = {
    "": ("run", {}),
    ".c": ("missing.run", {"missing_rows": "empty"}),
    ".l2": ("run", {"relevance_threshold": 2}),
    ".J": ("run", {"unjudged": "drop"}),
}
CASES = [(name, flag) for name in ("graded", "deep", "negative") for flag in VARIANTS]
MEASURES = trec_eval_measures(["all_trec"])


def trec_output(path: Path) -> dict[tuple[str, str], str]:
    """trec_eval's ``-q`` output: (printed name, qid or "all") -> the value as printed."""
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        name, qid, value = line.split("\t")
        found[(name.strip(), qid)] = value.strip()
    return found


def printed(value: float, integer: bool) -> str:
    """A value as trec_eval prints it: ``%ld`` for its counts, else ``%6.4f``."""
    return str(int(value)) if integer else f"{value:6.4f}".strip()


def exact_value(result, measure: Measure, user: int | None) -> Fraction | None:
    """A rational measure's exact value for one user (its run value for ``None``)."""
    if not measure.exact:
        return None
    values = result.exact_values[str(measure)]
    values = getattr(values, "rows", values)  # a sum's rows
    if user is None:
        return values.exact_mean()
    return Fraction(int(values.numerator[user]), int(values.denominator[user] or 1))


def halfway(value: Fraction | None, text: str) -> bool:
    """Whether ``value`` lies exactly halfway between two 4-decimal values, ``text`` one
    of them."""
    if value is None or (value * 20000).denominator != 1 or (value * 20000) % 2 == 0:
        return False
    return abs(Fraction(text) - value) == Fraction(1, 20000)


@pytest.mark.parametrize(("name", "flag"), CASES)
def test_every_value_equals_trec_eval_10_to_every_printed_digit(name: str, flag: str) -> None:
    run, options = VARIANTS[flag]
    expected = trec_output(FIXTURES / f"{name}.all_trec{flag}.txt")
    expected.update(trec_output(FIXTURES / f"{name}.rbp{flag}.txt"))
    result = evaluate(
        FIXTURES / f"{name}.qrels",
        FIXTURES / f"{name}.{run}",
        format="trec",
        k=10**6,
        metrics=[measure for _, measure in MEASURES],
        empty_ground_truth="zero",
        **options,
    )
    qids = result.row_ids.to_pylist()
    measures = dict(MEASURES)
    for (trec_name, qid), text in expected.items():
        if trec_name.startswith(TREC_PRINTED_ONLY):  # runid, relstring: no measure's value
            continue
        measure = measures[trec_name]
        user = None if qid == "all" else qids.index(qid)
        ours = (
            result.metrics[str(measure)] if user is None else result.user_values[str(measure)][user]
        )
        shown = printed(ours, measure.family.summed)
        if text.endswith("nan"):  # trec_eval's 0 / 0
            assert user is None or ours == 0, (trec_name, qid, ours)
        elif shown != text:
            assert halfway(exact_value(result, measure, user), text), (trec_name, qid, ours, text)


def test_the_ties_the_rule_allows_are_few() -> None:
    """The halfway rule lets through only what it says: of the fixtures' values, the
    ones trec_eval prints otherwise are rational values exactly halfway."""
    expected = trec_output(FIXTURES / "graded.all_trec.txt")
    assert expected[("bpref", "q002")] == "0.6838"  # 547/800, printed 0.6837 here
    assert not halfway(Fraction(1, 3), "0.3333") and halfway(Fraction(547, 800), "0.6838")
