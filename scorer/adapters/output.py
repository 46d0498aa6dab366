"""What the command line prints on standard output or writes to a file, and what
happens when it cannot."""

from __future__ import annotations

import argparse
import contextlib
import errno
import os
import re
import sys
from collections.abc import Sequence
from typing import IO, Any, NoReturn

from scorer.errors import HostVisibleError, closest
from scorer.read.files import write_atomic
from scorer.result import ScoreWarning


class Parser(argparse.ArgumentParser):
    """argparse's parser whose usage errors name the closest flag or choice (argparse's
    own suggestion where it has one: Python 3.14's ``suggest_on_error``).

    Examples
    --------
    >>> parser = Parser(prog="scorer")
    >>> _ = parser.add_argument("--grade-column")
    >>> parser.suggestion("unrecognized arguments: --grade-colunm g")
    "; did you mean '--grade-column'?"
    >>> parser.suggestion("argument --x: invalid choice: 'minn' (choose from 'min_k', 'hits')")
    "; did you mean 'min_k'?"
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if sys.version_info >= (3, 14):
            kwargs.setdefault("suggest_on_error", True)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        super().error(message + self.suggestion(message))

    def print_help(self, file: IO[str] | None = None) -> None:
        """The help on standard output as every output is written (:func:`emit`: UTF-8
        whatever the locale, all of it or exit 2)."""
        if file is not None:
            super().print_help(file)
            return
        try:
            emit(self.format_help().rstrip("\n"))
        except HostVisibleError as exc:
            self.exit(2, f"scorer: host error: {exc}\n")

    def suggestion(self, message: str) -> str:
        """The flag or choice closest to the one ``message`` refuses, as a sentence."""
        unknown = re.match(r"unrecognized arguments: (.*)", message)
        choice = re.search(r"invalid choice: '(.*?)'.*\(choose from (.*)\)", message)
        found = None
        if unknown:
            flags = re.findall(r"(?<![\w-])--?[A-Za-z][\w-]*", self.format_help())
            words = [w.split("=")[0] for w in unknown.group(1).split() if w.startswith("-")]
            found = next(filter(None, (closest(word, flags) for word in words)), None)
        elif choice and "maybe you meant" not in message:
            options = [option.strip(" '") for option in choice.group(2).split(",")]
            found = closest(choice.group(1), options)
        return "" if found is None else f"; did you mean {found!r}?"


def utf8_text(text: str) -> str:
    r"""``text`` as UTF-8 can write it: a lone surrogate (a byte of a file's name that is
    no UTF-8, as Python reads it) as its escape.

    Examples
    --------
    >>> utf8_text("runs/n\udcff.csv"), utf8_text("équipe")
    ('runs/n\\udcff.csv', 'équipe')
    """
    return text if text.isascii() else text.encode("utf-8", "backslashreplace").decode("utf-8")


def emit(text: str) -> None:
    """Print ``text`` (:func:`utf8_text`) and a newline on standard output, flushed. A
    standard output that cannot be written (a closed pipe, a full disk) is the host's
    error (exit 2)."""
    try:
        _write_whole(utf8_text(text) + "\n")
    except OSError as exc:
        _discard_stdout()
        raise HostVisibleError(
            f"Cannot write to standard output: {exc.strerror or exc}. "
            "Check where the output goes (a closed pipe or a full disk)."
        ) from exc


def _write_whole(text: str) -> None:
    """Write ``text`` to standard output, every byte or an error. A large write that a
    pipe's reader stops reading, or that fills a disk, writes part of it; Python's
    buffered writer returns the shorter count, which its text layer drops (the command
    would end with exit 0 and its output cut short), so the bytes go to the binary
    buffer until all are written. A stream with no bytes beneath it (a ``StringIO`` a
    caller redirected to) takes the text."""
    if sys.stdout is None:  # started with standard output closed (">&-")
        raise OSError(errno.EBADF, "standard output is closed")
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    sys.stdout.flush()
    unwritten = memoryview(text.encode("utf-8"))
    while unwritten:  # a short write, then an error: at most a few rounds
        unwritten = unwritten[buffer.write(unwritten) :]
    buffer.flush()


def warning_lines(warnings: Sequence[ScoreWarning]) -> list[str]:
    """A run's warnings as the command line prints them: a count, then one line each,
    marked with whom it is for (none: no line).

    Examples
    --------
    >>> empty = ScoreWarning("empty_rows", "1 row has no prediction.", 1, (), "participant")
    >>> warning_lines([empty])
    ['Warnings (1):', '  - [submission] 1 row has no prediction.']
    """
    if not warnings:
        return []
    lines = [f"Warnings ({len(warnings)}):"]
    for warning in warnings:
        about = "submission" if warning.audience == "participant" else "host"
        lines.append(f"  - [{about}] {warning}")
    return lines


def write_output(path: str, text: str | bytes) -> None:
    """Write an output file atomically (text as :func:`utf8_text`); a failure is the
    host's (exit 2)."""
    try:
        write_atomic(path, utf8_text(text) if isinstance(text, str) else text)
    except OSError as exc:
        raise HostVisibleError(f"Cannot write {path!r}: {exc.strerror or exc}.") from exc


def _discard_stdout() -> None:
    """Point standard output at the null device, so that the interpreter's own flush at
    exit cannot fail once more (and turn the documented exit code into another)."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def refuse_overwriting_inputs(
    output: str,
    inputs: dict[str, str],
    what: str = "the per-user scores",
    flag: str = "--per-user",
) -> None:
    """Refuse an output path that is one of the inputs (the same file by any path), before
    any input is read: an output never replaces an input.

    Examples
    --------
    >>> refuse_overwriting_inputs(__file__, {"solution": __file__})
    Traceback (most recent call last):
    ...
    scorer.errors.HostVisibleError: Cannot write the per-user scores to ... the solution file ...
    """
    for role, path in inputs.items():
        same = os.path.realpath(output) == os.path.realpath(path)
        with contextlib.suppress(OSError):
            same = same or os.path.samefile(output, path)
        if same:
            raise HostVisibleError(
                f"Cannot write {what} to {output!r}: it is the {role} file "
                f"and would be replaced. Choose another path for {flag}."
            )
