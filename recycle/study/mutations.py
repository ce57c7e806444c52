"""Mutation operators for ``recycle evolve``: small edits of a game's source text.

Each operator finds its *sites* in the parsed game (forms with their spans), picks one with
the generator it is given, and returns a ``Mutation``: the text edits to make at the spans
of the forms it changes (so that the rest of the file, comments included, stays as the
author wrote it) and a one-line description. The operators (docs/evolve.md):

* ``constant``: a declared constant ``(declare N 'NAME)`` gets another value (``nudge``);
* ``points``: one value of a point map ``(set (... points NAME) (((ATT : V) ... N) ...))``;
* ``threshold``: an integer compared in an end condition ``(end ...)``, e.g. the 3 of
  ``(== (size ('P iloc PASS)) 3)`` or the 1000 of ``(>= (game sto BATTLES) 1000)``;
* ``drop-option``: one option of a ``(choice (...))`` with two or more options is removed;
* ``duplicate-option``: one option of a choice with two or more is written twice (a random
  player then takes it twice as often; a look-ahead player is not changed by it).

An operator may make a game that does not load or does not end: ``recycle.study.evolve``
loads and trial-plays every variant and keeps only the valid ones.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..lang.syntax import edits
from ..lang.syntax.reader import _BREAK


@dataclass(frozen=True)
class Mutation:
    """One change of a game's text: ``edits`` are (start, end, new text) offsets of the
    text it was made for, ``description`` says what changed, in words."""

    operator: str
    line: int
    description: str
    edits: tuple

    def apply(self, text: str) -> str:
        """The text with the edits made (they do not overlap; made from the last one)."""
        for start, end, new in sorted(self.edits, reverse=True):
            text = text[:start] + new + text[end:]
        return text


class Offsets:
    """1-based (line, column) of a span → offset in the text (line breaks as ``reader.position``)."""

    def __init__(self, text: str):
        self.starts = [0] + [m.end() for m in _BREAK.finditer(text)]

    def __call__(self, line: int, column: int) -> int:
        return self.starts[line - 1] + column - 1

    def span(self, node) -> tuple[int, int]:
        sp = node.span
        return self(sp.line, sp.column), self(sp.end_line, sp.end_column)


def nudge(value: int, rng: random.Random) -> int:
    """Another value near ``value``: up or down by a quarter of it (at least 1); 0 and 1
    (often switches) become each other or 2; a value never turns negative."""
    if value == 0:
        return 1
    if value == 1:
        return rng.choice((0, 2))
    step = max(1, round(abs(value) * 0.25))
    new = value + rng.choice((-step, step))
    return new if (new >= 0 or value < 0) else value + step


def _int_edit(source, atom, rng, what: str, operator: str) -> Mutation:
    off = Offsets(source.text)
    start, end = off.span(atom)
    new = nudge(int(atom.value), rng)
    return Mutation(
        operator,
        atom.span.line,
        f"{operator}: {what} {atom.value} → {new} (line {atom.span.line})",
        ((start, end, str(new)),),
    )


# -- the operators ----------------------------------------------------------------------------


def constant_sites(source) -> list:
    """``(declare N 'NAME)`` forms: (the integer as written, the name)."""
    return edits.declared_integers(source)


def constant(source, rng: random.Random) -> Mutation | None:
    """A declared constant gets another value (``nudge``)."""
    sites = constant_sites(source)
    if not sites:
        return None
    atom, name = rng.choice(sites)
    return _int_edit(source, atom, rng, f"the constant {name}", "constant")


def points_sites(source) -> list:
    """The integer of every entry of every point map: (the integer as written, the map's
    name, the entry)."""
    return edits.point_values(source)


def points(source, rng: random.Random) -> Mutation | None:
    """One value of a point map gets another value (``nudge``)."""
    sites = points_sites(source)
    if not sites:
        return None
    atom, name, entry = rng.choice(sites)
    return _int_edit(source, atom, rng, f"points {name} {entry}", "points")


def threshold_sites(source) -> list:
    """Integers compared in end conditions: (the integer as written, the comparison as text)."""
    return edits.end_thresholds(source)


def threshold(source, rng: random.Random) -> Mutation | None:
    """An integer compared in an end condition gets another value (``nudge``)."""
    sites = threshold_sites(source)
    if not sites:
        return None
    atom, comparison = rng.choice(sites)
    return _int_edit(source, atom, rng, f"end condition {comparison}:", "threshold")


def choice_sites(source, least: int) -> list:
    """``(choice (option ...))`` forms with at least ``least`` options: their options as written."""
    return edits.choice_options(source, least)


def _pick_option(source, rng: random.Random):
    """An option of a choice with two or more, drawn by ``rng``: ``(the choice's options, its
    index, the option, its start and end offsets, the start of its first line)``, or None."""
    sites = choice_sites(source, 2)
    if not sites:
        return None
    options = rng.choice(sites)
    k = rng.randrange(len(options))
    opt = options[k]
    text = source.text
    start, end = Offsets(text).span(opt)
    return options, k, opt, start, end, text.rfind("\n", 0, start) + 1


def drop_option(source, rng: random.Random) -> Mutation | None:
    """One option of a choice with two or more is removed (its line too, when it leaves
    nothing else on it)."""
    picked = _pick_option(source, rng)
    if picked is None:
        return None
    options, k, opt, start, end, line_start = picked
    text = source.text
    # remove the whole lines when the option stands alone on them
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    if not text[line_start:start].strip() and not text[end:line_end].strip() and line_end < len(text):
        start, end = line_start, line_end + 1
    return Mutation(
        "drop-option",
        opt.span.line,
        f"drop-option: option {k + 1} of {len(options)} of a choice removed: {_short(opt)} (line {opt.span.line})",
        ((start, end, ""),),
    )


def duplicate_option(source, rng: random.Random) -> Mutation | None:
    """One option of a choice with two or more is written twice, the copy on a line of its own
    just after it (in a choice of one option the copy would change nothing but the count)."""
    picked = _pick_option(source, rng)
    if picked is None:
        return None
    options, k, opt, start, end, line_start = picked
    text = source.text
    before = text[line_start:start]
    indent = before if not before.strip() else " " * (start - line_start)
    return Mutation(
        "duplicate-option",
        opt.span.line,
        f"duplicate-option: option {k + 1} of {len(options)} of a choice written twice: {_short(opt)} "
        f"(line {opt.span.line})",
        ((end, end, "\n" + indent + text[start:end]),),
    )


def _short(node, width: int = 60) -> str:
    s = str(node)
    return s if len(s) <= width else s[: width - 1] + "…"


OPERATORS = {
    "constant": constant,
    "points": points,
    "threshold": threshold,
    "drop-option": drop_option,
    "duplicate-option": duplicate_option,
}
"""Every mutation operator by name (docs/evolve.md)."""


def mutate(source, rng: random.Random, operators=None) -> Mutation | None:
    """A random mutation of ``source`` by one of ``operators`` (names; default all) that has
    a site in this game; None when none has."""
    names = list(operators or OPERATORS)
    rng.shuffle(names)
    for name in names:
        m = OPERATORS[name](source, rng)
        if m is not None:
            return m
    return None
