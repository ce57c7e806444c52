"""What ``recycle balance`` may change and what it aims at (docs/balance.md).

A *knob* is one integer of the game's text that the designer lets vary over a range:

* a declared constant ``(declare N 'NAME)`` is named ``NAME``;
* a value of a point map ``(set (game points MAP) (((ATT : V) ... N) ...))`` is named
  ``MAP.V`` — the values of its entry's ``(ATT : V)`` pairs joined by ``+``, e.g.
  ``PENALTY.HEARTS`` or ``PENALTY.Q+SPADES`` in Hearts (``#2``, ``#3``, ... tell apart
  entries that would have the same name).

``--vary NAME=LO..HI`` (every integer from LO to HI) or ``NAME=LO..HI:STEP``. A variant's
text is the game's with each knob's integer replaced at its span, so comments and layout
stay the author's.

A *target* is a measure and what the designer wants of it: ``NAME=VALUE`` or
``NAME=LO..HI`` (a range; either end may be left out), or ``ladder=ordered``. The measures
(``MEASURES``) and the distance of a measured value from its target (``Target.distance``)
are defined in docs/balance.md. Everything here comes from the command line or a request:
a bad spec raises ``BalanceError`` with one line saying what is wrong.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..errors import printable
from .mutations import Offsets, constant_sites, points_sites

MAX_VALUES = 1000  # values of one knob (a wider range needs a :STEP)
MAX_KNOBS = 12
# measure: (what it is, whether it is a rate in [0, 1]); docs/balance.md defines each
MEASURES = {
    "first_player": ("the first seat's (P0) share of the wins, ties shared", True),
    "ties": ("the share of games with two or more sides tied for best", True),
    "decisions": ("the mean number of decisions in a game", False),
    "score_gap": ("the mean gap between the winner's score and the next best", False),
    "ladder": ("the weakest step of the skill ladder: the lowest win rate of a rung against the one below", True),
}
CAP = 5.0  # a target's distance is at most this (a count 150 times too large or small)

_NUMBER = r"-?\d+(?:\.\d+)?"
_VARY = re.compile(r"^([A-Za-z_][A-Za-z0-9_\-+.#]*)=(-?\d{1,9})\.\.(-?\d{1,9})(?::(\d{1,9}))?$")
_TARGET = re.compile(rf"^([a-z_]+)=(?:({_NUMBER})|({_NUMBER})?\.\.({_NUMBER})?|(ordered))$")


class BalanceError(ValueError):
    """A ``--vary`` or ``--target`` that cannot be used (one line: what is wrong)."""


@dataclass(frozen=True)
class Knob:
    """One integer of the game's text and the values it may take."""

    name: str
    original: int
    values: tuple[int, ...]
    span: tuple[int, int]  # offsets of the integer in the game's text


@dataclass(frozen=True)
class Target:
    """What the designer wants of a measure: ``low <= value <= high`` (equal for a value)."""

    measure: str
    low: float | None
    high: float | None
    text: str

    def distance(self, value: float) -> float:
        """How far ``value`` is from the target: 0 inside it; for a rate, the difference in rate
        units; for a count, the size of the log ratio ``|ln((1 + value) / (1 + end))|`` to the
        target's nearer end (twice too long weighs as half as long); at most ``CAP``."""
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return CAP
        lo = -math.inf if self.low is None else self.low
        hi = math.inf if self.high is None else self.high
        if lo <= value <= hi:
            return 0.0
        end = lo if value < lo else hi
        if MEASURES[self.measure][1]:
            return min(CAP, abs(value - end))
        return min(CAP, abs(math.log((1 + value) / (1 + end))))


def knobs_of(game) -> dict[str, tuple[int, tuple[int, int]]]:
    """Everything of ``game`` (a ``PreparedGame``) that can be varied: name → (its value, its span)."""
    source = game.source
    off = Offsets(source.text)
    out: dict = {}

    def put(name, atom):
        base, k = name, 1
        while name in out:
            k += 1
            name = f"{base}#{k}"
        out[name] = (int(atom.value), off.span(atom))

    for atom, name in constant_sites(source):
        put(name.lstrip("'"), atom)
    for atom, mapname, entry in points_sites(source):
        put(f"{mapname}.{_entry_name(atom, entry)}", atom)
    return out


def _entry_name(atom, entry: str) -> str:
    """The values of a point-map entry's ``(ATT : V)`` pairs joined by ``+`` (the attribute's
    name where a value is an expression, e.g. ``SUIT`` for ``(SUIT : (game str LEAD))``)."""
    pairs = re.findall(r"\(\s*([^\s():]+)\s*:\s*(\([^()]*\)|[^\s()]+)\s*\)", entry)
    name = "+".join(att if v.startswith("(") else v for att, v in pairs) if pairs else entry
    return re.sub(r"[^A-Za-z0-9_\-+]", "_", name)


def _listed(names) -> str:
    names = list(names)
    return ", ".join(names) if names else "nothing (no declared constant or point map)"


def parse_vary(spec: str, game) -> Knob:
    """A ``--vary NAME=LO..HI[:STEP]`` of ``game``, or ``BalanceError``."""
    m = _VARY.match(spec.strip())
    if not m:
        raise BalanceError(
            f"bad --vary {printable(spec)!r}: expected NAME=LO..HI or NAME=LO..HI:STEP, e.g. GOAL=50..150"
        )
    name, lo, hi, step = m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4) or 1)
    knobs = knobs_of(game)
    if name not in knobs:
        raise BalanceError(
            f"{printable(name)!r} is not declared in {printable(game.name)}; it can vary: {_listed(knobs)}"
        )
    if lo > hi or step < 1:
        raise BalanceError(f"bad --vary {printable(spec)!r}: LO must be at most HI and STEP at least 1")
    if lo < 0:  # RECYCLE has no negative literal: (declare -2 'X) does not load
        raise BalanceError(f"bad --vary {printable(spec)!r}: a declared constant or point value is 0 or more")
    count = (hi - lo) // step + 1
    if count > MAX_VALUES:
        raise BalanceError(f"--vary {printable(name)}: {count} values; at most {MAX_VALUES} (give a :STEP)")
    value, span = knobs[name]
    return Knob(name, value, tuple(range(lo, hi + 1, step)), span)


def parse_varies(specs: list[str], game) -> list[Knob]:
    """Every ``--vary`` of ``game`` (each name once), or ``BalanceError``."""
    if not specs:
        raise BalanceError(
            f"give at least one --vary NAME=LO..HI; {printable(game.name)} can vary: {_listed(knobs_of(game))}"
        )
    if len(specs) > MAX_KNOBS:
        raise BalanceError(f"at most {MAX_KNOBS} --vary")
    knobs = [parse_vary(s, game) for s in specs]
    names = [k.name for k in knobs]
    twice = next((n for n in names if names.count(n) > 1), None)
    if twice:
        raise BalanceError(f"--vary {printable(twice)} is given twice")
    return knobs


def parse_target(spec: str) -> Target:
    """A ``--target NAME=VALUE``, ``NAME=LO..HI`` or ``ladder=ordered``, or ``BalanceError``."""
    s = spec.strip()
    m = _TARGET.match(s)
    name = s.partition("=")[0]
    if name not in MEASURES:
        raise BalanceError(f"unknown target {printable(name)!r}; known: {', '.join(MEASURES)}")
    if not m:
        raise BalanceError(
            f"bad --target {printable(spec)!r}: expected NAME=VALUE or NAME=LO..HI, e.g. decisions=60..90"
        )
    value, lo, hi, ordered = m.group(2), m.group(3), m.group(4), m.group(5)
    if ordered:
        if name != "ladder":
            raise BalanceError(f"bad --target {printable(spec)!r}: only ladder=ordered")
        return Target(name, 0.5, 1.0, s)  # every rung beats the one below at least half the time
    if value is not None:
        low = high = float(value)
    else:
        if lo is None and hi is None:
            raise BalanceError(f"bad --target {printable(spec)!r}: a range needs at least one end")
        low = None if lo is None else float(lo)
        high = None if hi is None else float(hi)
        if low is not None and high is not None and low > high:
            raise BalanceError(f"bad --target {printable(spec)!r}: LO must be at most HI")
    rate = MEASURES[name][1]
    for v in (low, high):
        if v is not None and (v < 0 or (rate and v > 1)):
            raise BalanceError(
                f"bad --target {printable(spec)!r}: {name} is " + ("a rate in [0, 1]" if rate else "0 or more")
            )
    return Target(name, low, high, s)


def parse_targets(specs: list[str]) -> list[Target]:
    """Every ``--target`` (each measure once), or ``BalanceError``."""
    if not specs:
        raise BalanceError(f"give at least one --target, e.g. first_player=0.5; known: {', '.join(MEASURES)}")
    targets = [parse_target(s) for s in specs]
    names = [t.measure for t in targets]
    twice = next((n for n in names if names.count(n) > 1), None)
    if twice:
        raise BalanceError(f"--target {twice} is given twice")
    return targets


def variant_text(text: str, knobs: list[Knob], values: tuple[int, ...]) -> str:
    """The game's text with each knob's integer replaced by its value in ``values``."""
    for knob, v in sorted(zip(knobs, values), key=lambda kv: kv[0].span, reverse=True):
        start, end = knob.span
        text = text[:start] + str(v) + text[end:]
    return text
