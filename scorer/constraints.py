"""What a value may be, declared once for every option of :func:`scorer.evaluate` and
every parameter of a measure, after scikit-learn's ``Interval`` and ``StrOptions``.

Each constraint gives the check and its message in scikit-learn's words, the docs' and
the help's wording, the parse of a value written in a measure's name (``RBP(p=0.9)``),
its annotation, and the values tests try (its bounds, just inside and just outside).
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, get_args

from scorer.errors import HostVisibleError

#: A decimal number as a file writes it (a score): an optional sign, digits with an
#: optional point, an optional exponent; ASCII digits only.
DECIMAL = r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$"

#: What :meth:`Constraint.accept` returns for a value it refuses.
REFUSED: Any = object()


class Constraint:
    """What every constraint does; each type gives ``accept``, ``phrase`` and ``samples``."""

    none_ok = False
    syntax = ""  # how a measure's name writes a value, when the phrase does not say it
    type_doc = ""  # numpydoc's type of a value
    annotation: Any = Any

    def accept(self, value: Any) -> Any:
        """``value`` normalised (an int as a Python int), or :data:`REFUSED`."""
        raise NotImplementedError

    def phrase(self) -> str:
        """The allowed values, in scikit-learn's words."""
        raise NotImplementedError

    def wording(self) -> str:
        """The allowed values, in the docs' and the help's words."""
        return self.phrase()

    def parse(self, text: str) -> Any:
        """A value as a measure's name writes it (``0.9``, ``linear``), or :data:`REFUSED`."""
        return REFUSED

    def text(self, value: Any) -> str:
        """A value as a measure's name writes it."""
        return str(value)

    def samples(self, valid: bool, written: bool) -> list[Any]:
        raise NotImplementedError  # the values tests try: valid_samples, invalid_samples

    def valid_samples(self, written: bool = False) -> tuple[Any, ...]:
        """Values it takes (as a measure's name writes them, if ``written``)."""
        return tuple(self.samples(True, written))

    def invalid_samples(self, written: bool = False) -> tuple[Any, ...]:
        """Values it refuses, each with :meth:`message`'s words."""
        return tuple(self.samples(False, written))

    def message(self, name: str, value: Any, family: str = "", whole: str = "") -> str:
        """Why ``value`` is refused (written in ``whole``, the name of a ``family`` measure)."""
        if not family:
            return f"The {name!r} parameter must be {self.phrase()}. Got {value!r} instead."
        return (
            f"The {name!r} parameter of {family} must be {self.phrase()}{self.syntax}. "
            f"Got {value!r} in {whole!r} instead."
        )

    def check(self, name: str, value: Any) -> Any:
        """``value`` normalised, or a :class:`~scorer.errors.HostVisibleError`."""
        found = None if value is None and self.none_ok else self.accept(value)
        if found is REFUSED:
            raise HostVisibleError(self.message(name, value))
        return found

    def check_text(self, name: str, text: str, family: str, whole: str) -> Any:
        """A value written in the measure name ``whole``, or a :class:`HostVisibleError`."""
        if (found := self.parse(text)) is REFUSED:
            raise HostVisibleError(self.message(name, text, family, whole))
        return found


@dataclass(frozen=True)
class Interval(Constraint):
    """An int, or an exact decimal (``kind=Fraction``, at most ``digits`` digits either
    side of the point in a name), between bounds (``None``: none; ``closed``: "both",
    "left", "right" or "neither").

    Examples
    --------
    >>> Interval(Fraction, 0, 1, "neither").parse("0.8")
    Fraction(4, 5)
    >>> Interval(Fraction, 0, 1, "neither").check("p", 1)
    Traceback (most recent call last):
    ...
    scorer.errors.HostVisibleError: The 'p' parameter must be a decimal in the range (0, 1). \
Got 1 instead.
    >>> Interval(Fraction, 0, 1, "neither").valid_samples(written=True)
    ('0.0001', '0.0002', '0.5', '0.9998', '0.9999')
    """

    kind: type
    low: int | Fraction
    high: int | Fraction | None = None
    closed: str = "both"
    none_ok: bool = False
    digits: int = 4

    def __post_init__(self) -> None:
        decimal = self.kind is Fraction
        syntax = f" (up to {self.digits} digits either side of the point)" if decimal else ""
        object.__setattr__(self, "syntax", syntax)
        object.__setattr__(self, "type_doc", "decimal" if decimal else "int")
        object.__setattr__(self, "annotation", self.kind | None if self.none_ok else self.kind)

    @property
    def step(self) -> int | Fraction:
        """The distance between two neighbouring values a name can write."""
        return 1 if self.kind is int else Fraction(1, 10**self.digits)

    def accept(self, value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            return REFUSED
        if self.kind is int and not isinstance(value, numbers.Integral):
            return REFUSED
        found = self.kind(repr(value) if isinstance(value, float) else value)
        return found if self._within(found) else REFUSED

    def _within(self, value: int | Fraction) -> bool:
        above = value > self.low or (value == self.low and self.closed in ("both", "left"))
        below = self.high is None or value < self.high
        return above and (below or (value == self.high and self.closed in ("both", "right")))

    def _positive(self) -> bool:
        return self.kind is Fraction and self.low == 0 and not self._within(0) and not self.high

    def phrase(self) -> str:
        if self._positive():
            return "a positive decimal such as 0.5 or 2"
        left = "[" if self._within(self.low) else "("
        right = ")" if self.high is None or not self._within(self.high) else "]"
        high = "inf" if self.high is None else self.text(self.high)
        kind = "an int" if self.kind is int else "a decimal"
        return f"{kind} in the range {left}{self.text(self.low)}, {high}{right}"

    def wording(self) -> str:
        if self.high is None:
            if self._positive():
                return "a positive decimal"
            return f"any {'int' if self.kind is int else 'decimal'} ≥ {self.text(self.low)}"
        return self.phrase().replace(" the range ", " ")

    def parse(self, text: str) -> Any:
        digits = f"{'-?' if self.low < 0 else ''}[0-9]{{1,{self.digits}}}"  # ASCII digits
        pattern = digits if self.kind is int else f"{digits}(\\.[0-9]{{1,{self.digits}}})?"
        return self.accept(self.kind(text)) if re.fullmatch(pattern, text) else REFUSED

    def text(self, value: Any) -> str:
        return str(int(value)) if self.kind is int else decimal_text(Fraction(value))

    def samples(self, valid: bool, written: bool) -> list[Any]:
        step = self.step
        first = self.low if self._within(self.low) else self.low + step
        last = self.high if self.high is None or self._within(self.high) else self.high - step
        if valid and last is None:  # a moderate value, and the largest a name can write
            found: list[Any] = [first, first + step, first + 10, 10**self.digits - step]
        elif valid:
            middle = math.floor(Fraction(first + last, 2) / step) * step
            found = [first, first + step, middle, last - step, last]
        else:
            found = [first - step] + ([] if last is None else [last + step])
        found = [self.kind(v) for v in found if not valid or self._within(v)]
        if valid:
            return [self.text(v) for v in found] if written else found + [None] * self.none_ok
        wrong = ["", "x", "1/2", "9" * (self.digits + 1), "\u0663"] if written else [True, "1"]
        wrong += [] if self.kind is Fraction else ["1.5" if written else 1.5]
        wrong += [] if written or self.none_ok else [None]
        return [self.text(v) for v in found] + wrong if written else found + wrong


def decimal_text(value: Fraction) -> str:
    """A finite decimal as written: ``Fraction(1, 2)`` -> ``"0.5"``, ``Fraction(2)`` -> ``"2"``.

    Examples
    --------
    >>> decimal_text(Fraction(1, 2)), decimal_text(Fraction(2)), decimal_text(Fraction(-5, 4))
    ('0.5', '2', '-1.25')
    """
    sign, value = ("-", -value) if value < 0 else ("", value)
    whole, rest = divmod(value.numerator, value.denominator)
    digits = ""
    while rest:
        digit, rest = divmod(rest * 10, value.denominator)
        digits += str(digit)
    return f"{sign}{whole}.{digits}" if digits else f"{sign}{whole}"


@dataclass(frozen=True)
class Choices(Constraint):
    """One of a ``Literal``'s values (or of a tuple of str); a measure's name writes it
    in any case.

    Examples
    --------
    >>> from typing import Literal
    >>> Choices(Literal["skip", "zero"]).check("empty_ground_truth", "drop")
    Traceback (most recent call last):
    ...
    scorer.errors.HostVisibleError: The 'empty_ground_truth' parameter must be a str among \
['skip', 'zero']. Got 'drop' instead.
    """

    literal: Any
    none_ok: bool = False

    def __post_init__(self) -> None:
        named = isinstance(self.literal, tuple)
        object.__setattr__(self, "values", self.literal if named else get_args(self.literal))
        object.__setattr__(self, "type_doc", "{" + ", ".join(map('"{}"'.format, self.values)) + "}")
        annotation = str if named else self.literal
        object.__setattr__(self, "annotation", annotation | None if self.none_ok else annotation)

    def accept(self, value: Any) -> Any:
        return value if isinstance(value, str) and value in self.values else REFUSED

    def phrase(self) -> str:
        return f"a str among {list(self.values)}{' or None' if self.none_ok else ''}"

    def wording(self) -> str:
        return ", ".join(f'`"{value}"`' for value in self.values)

    def parse(self, text: str) -> Any:
        return self.accept(text.lower())

    def samples(self, valid: bool, written: bool) -> list[Any]:
        first = self.values[0]
        if valid:
            return [*self.values, *([first.upper()] if written else [None] * self.none_ok)]
        found = [f"{first}x", "", *([] if written else [first.upper(), None, 1])]
        found = [value for value in found if value is not None or not self.none_ok]
        return [value for value in dict.fromkeys(found) if value not in self.values]


@dataclass(frozen=True)
class Text(Constraint):
    """A non-empty str that UTF-8 can encode, or ``None``; with ``token``, one item id
    (no whitespace).

    Examples
    --------
    >>> Text(token=True).check("empty_token", "no order")
    Traceback (most recent call last):
    ...
    scorer.errors.HostVisibleError: The 'empty_token' parameter must be one item id (a \
non-empty str without whitespace) or None. Got 'no order' instead.
    """

    token: bool = False
    none_ok: bool = True
    type_doc = "str"
    annotation = str | None

    def accept(self, value: Any) -> Any:
        spaced = self.token and isinstance(value, str) and any(c.isspace() for c in value)
        return value if isinstance(value, str) and value and not spaced else REFUSED

    def phrase(self) -> str:
        if self.token:
            return "one item id (a non-empty str without whitespace) or None"
        return "a non-empty str or None"

    def wording(self) -> str:
        return "one item id (no whitespace)" if self.token else "a non-empty string"

    def check(self, name: str, value: Any) -> Any:
        """The value, or an error; text that UTF-8 cannot encode (a command line's bytes
        that are not UTF-8 become lone surrogates, which no Arrow string holds) too."""
        found = super().check(name, value)
        if found is not None and found.encode("utf-8", "replace").decode() != found:
            raise HostVisibleError(
                f"The {name!r} parameter must be text that UTF-8 can encode. Got {value!r} "
                "instead (bytes that are not UTF-8 on a command line give this): write it in "
                "UTF-8."
            )
        return found

    def samples(self, valid: bool, written: bool) -> list[Any]:
        return ["None", "_", None] if valid else ["", 1, *(["a b", "a\tb"] if self.token else [])]


@dataclass(frozen=True)
class Weights(Constraint):
    """A mapping of non-empty str to a finite weight ≥ 0 (as a float), or ``None``;
    whether each key is a known target type is checked where the types are known.

    Examples
    --------
    >>> Weights().check("type_weights", {"clicks": -1})
    Traceback (most recent call last):
    ...
    scorer.errors.HostVisibleError: The 'type_weights' parameter must be a mapping of target \
type to a finite weight ≥ 0. Got {'clicks': -1} instead (bad: 'clicks').
    """

    none_ok: bool = True
    type_doc = "mapping of str to float"
    annotation = Mapping[str, float] | None

    def accept(self, value: Any) -> Any:
        if not isinstance(value, Mapping) or not value or _bad_weights(value):
            return REFUSED
        return {str(key): float(weight) for key, weight in value.items()}

    def phrase(self) -> str:
        return "a mapping of target type to a finite weight ≥ 0"

    def message(self, name: str, value: Any, family: str = "", whole: str = "") -> str:
        bad = _bad_weights(value) if isinstance(value, Mapping) else []
        shown = f" (bad: {', '.join(repr(key) for key in bad[:5])})" if bad else ""
        return super().message(name, value).removesuffix(" instead.") + f" instead{shown}."

    def samples(self, valid: bool, written: bool) -> list[Any]:
        if valid:
            return [{"clicks": 0.1, "orders": 1}, {"clicks": 0}, None]
        return [{}, {"clicks": -1}, {"clicks": math.inf}, {"": 1}, {"clicks": True}, "x=1"]


def _bad_weights(weights: Mapping) -> list[Any]:
    """The keys that are no target type's name or whose weight is no finite number ≥ 0."""
    return [
        key
        for key, weight in weights.items()
        if not (isinstance(key, str) and key)
        or isinstance(weight, bool)
        or not isinstance(weight, numbers.Real)
        or not (math.isfinite(float(weight)) and float(weight) >= 0)
    ]


@dataclass(frozen=True)
class CheckedWhereUsed(Constraint):
    """A value checked where it acts (a column name against the solution's header, a
    measure name by the registry), because only there is a bad one known; ``sample``
    is one such value, for tests."""

    kind: str
    sample: Any = None
    annotation: Any = "str | None"
    type_doc: str = "str"

    def accept(self, value: Any) -> Any:
        return value

    def phrase(self) -> str:
        return self.kind

    def samples(self, valid: bool, written: bool) -> list[Any]:
        return [self.sample] if valid else []
