"""A person at the table: the ``human`` player kind, and hints from the computer players.

``HumanPlayer`` chooses by asking an interface: an object with ``choose(view, options) ->
index`` (or a plain function of the same two arguments). It hands the interface exactly
what a player of someone else's gets — a ``PlayerView`` and ``PublicOption``s, plain data
from which nothing hidden is reachable — so a person sees no more than a computer player may.
The terminal interface lives in ``recycle.cli.play``; a test can pass a function.

``hint(view, options, spec, seed)`` asks a look-ahead player (``strongest``: the best kind
among those at the table, never the cheating ``omniscient``) which option it would play,
and its estimated chance of winning with each option, from the seat's live ``Observation``
(it samples worlds from it, so a hint never uses a card hidden from the seat). While the
interface is asked, ``HumanPlayer.hint(spec, seed)`` asks about the decision waiting.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from collections.abc import Sequence

from ..engine.runner import privileged
from ..streams import Stream

# kinds whose per-option values are chances of winning, best first (omniscient cheats: never)
HINT_KINDS = ("ismcts", "pimc")
# a hint looks at least this far (a person waits a second for it; the opponents play faster)
HINT_BUDGET = 200
# the hint player when no look-ahead player sits at the table
DEFAULT_HINT = f"ismcts:{HINT_BUDGET}"


@privileged  # it hands its interface the public view only; the live one serves hints
class HumanPlayer:
    """A person: asks ``ui.choose(view, options)`` (or ``ui(view, options)``) for an index."""

    needs_view = True
    kind = "human"
    name = "human"

    def __init__(self, ui=None):
        self.ui = ui
        self._asking = None  # (Observation, Options) of the decision the interface is asked

    def choose(self, view, options: Sequence, rng: random.Random) -> int:
        ui = self.ui
        if ui is None:
            raise ValueError(
                "a human player needs an interface to ask the person (HumanPlayer(ui)); "
                "play with `recycle play` or `recycle run --players human,...`"
            )
        from ..engine.public import player_view, public_options

        state = options[0]._state
        ask = getattr(ui, "choose", ui)
        self._asking = (view, options)
        try:
            return ask(player_view(state, view.player), public_options(state, options))
        finally:
            self._asking = None

    def hint(self, spec: str = DEFAULT_HINT, seed: int = 0) -> Hint:
        """``hint`` for the decision the interface is being asked about."""
        if self._asking is None:
            raise ValueError("no decision is waiting for this player")
        return hint(*self._asking, spec, seed)

    def __repr__(self) -> str:
        return "human"


# a figure from fewer tries than this is said to be a guess
FEW_TRIES = 30
# the interval shown with a chance: about 95% (Wilson's score interval)
Z = 1.96


@dataclass
class Hint:
    """What a computer player would play: ``choice`` (an option index), its name, and per
    option the estimated chance of winning (``None`` for an option it did not look at) and
    how many playouts (``visits``) that estimate rests on (``None``: not known).

    A chance read alone reads as a certainty (``0%`` beside an option tried three times);
    ``figure(i)`` says it with its interval and its tries, and ``few(i)`` whether it rests
    on fewer than ``FEW_TRIES``: the terminal and the studio both show these."""

    player: str
    choice: int
    chances: list
    visits: list = field(default_factory=list)

    def tries(self, i: int) -> int | None:
        """How many playouts option ``i``'s estimate rests on (None: not known)."""
        return self.visits[i] if i < len(self.visits) else None

    def few(self, i: int) -> bool:
        """Whether option ``i``'s figure is a guess: not tried, or fewer than ``FEW_TRIES`` tries."""
        n = self.tries(i)
        return self.chances[i] is None or (n is not None and n < FEW_TRIES)

    def interval(self, i: int) -> tuple[float, float] | None:
        """About 95% of option ``i``'s chance of winning (Wilson's score interval of its
        tries); None when it was not tried or its tries are not known."""
        p, n = self.chances[i], self.tries(i)
        if p is None or not n:
            return None
        centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
        half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
        return max(0.0, centre - half), min(1.0, centre + half)

    def figure(self, i: int) -> str:
        """Option ``i``'s chance in words: ``33% (20-48%, 38 tries)``, ``0% (0-56%, only 3
        tries: a guess)``, ``not tried``."""
        p, n = self.chances[i], self.tries(i)
        if p is None:
            return "not tried"
        if n is None:
            return f"{p:.0%}"
        lo, hi = self.interval(i)
        spread = f"{100 * lo:.0f}-{hi:.0%}"
        if n < FEW_TRIES:
            return f"{p:.0%} ({spread}, only {n} {'try' if n == 1 else 'tries'}: a guess)"
        return f"{p:.0%} ({spread}, {n} tries)"

    def advice(self, who: str, place: int, words: str) -> str:
        """The hint in the game's words: ``hint from P2's ismcts:300: 4. follow suit: J♦
        (estimated chance of winning 33% (20-48%, 38 tries))``; ``place`` is the option's
        number as shown, ``words`` its words as shown, ``who`` from ``adviser``."""
        chance = (
            "" if self.chances[self.choice] is None else f" (estimated chance of winning {self.figure(self.choice)})"
        )
        return f"hint from {who}: {place}. {words}{chance}"

    def figures(self) -> list[str]:
        """``figure(i)`` of every option."""
        return [self.figure(i) for i in range(len(self.chances))]


def strongest(specs: Sequence[str]) -> str:
    """The player spec to ask for hints: the strongest fair kind among ``specs`` (ISMCTS,
    then PIMC) with the largest budget of that kind at the table but at least
    ``HINT_BUDGET``; else ``DEFAULT_HINT``."""
    for kind in HINT_KINDS:
        found = [s.strip() for s in specs if s.strip().partition(":")[0] == kind]
        if found:

            def budget(s: str) -> int:
                b = s.partition(":")[2]
                return int(b) if b.isdigit() else 0

            return f"{kind}:{max(HINT_BUDGET, *(budget(s) for s in found))}"
    return DEFAULT_HINT


def hint(view, options: Sequence, spec: str = DEFAULT_HINT, seed: int = 0, stop=None) -> Hint:
    """Ask a fresh player of ``spec`` about this decision, from ``view`` only (see the
    module docstring). ``seed`` seeds its own generator: the game's are not touched.
    ``stop`` (a function of no argument) ends the search early when it says True: the hint
    then rests on the tries made, and says so through their counts."""
    from .lookahead import AI_KINDS  # not the package's make_player: no import cycle

    kind, _, budget = spec.strip().partition(":")
    if kind not in AI_KINDS:
        raise ValueError(f"a hint needs a look-ahead player kind ({', '.join(AI_KINDS)}), not {spec!r}")
    player = AI_KINDS[kind](int(budget) if budget else None)
    player.stop = stop
    choice = int(player.choose(view, options, Stream(seed)))
    values = getattr(player, "last_values", None) or [None] * len(options)
    visits = getattr(player, "last_visits", None)
    chances = []
    for i, v in enumerate(values):
        if visits is not None and not visits[i]:
            chances.append(None)  # never tried: no estimate
        else:
            chances.append(None if v is None else max(0.0, min(1.0, float(v))))
    tried = [int(n) for n in visits] if visits is not None else [None] * len(chances)
    return Hint(player.name, choice, chances, tried)


def adviser(specs: Sequence[str], me: int) -> tuple[str, str]:
    """``(spec, who)``: the player kind asked for ``me``'s hints (``strongest`` of the others
    at the table) and who that is in words: ``P2's ismcts:200`` when a player at the table
    is that very player, else ``an ismcts:200 adviser`` (the kind of the strongest, with more
    budget). The terminal and the studio's table both say it so."""
    spec = strongest([s for p, s in enumerate(specs) if p != me])
    seats = [p for p, s in enumerate(specs) if p != me and s.strip() == spec]
    if seats:
        return spec, f"P{seats[0]}'s {spec}"
    return spec, f"{'an' if spec[:1] in 'aeiou' else 'a'} {spec} adviser"
