"""Players: anything with ``choose(view, options, rng) -> index``.

A player receives its view (what it may know) and the legal options, never the state
itself: a player of someone else's gets plain data (``engine.public``: ``PlayerView`` and
``PublicOption``) from which nothing hidden is reachable; the package's own players, which
are registered with ``engine.runner.privileged``, get the live ``Observation`` (the
look-ahead players sample worlds from it). ``needs_view = False`` lets the loop skip
building a view for players that ignore it (the random player), which keeps rollouts fast.
"""

from __future__ import annotations

import random
from typing import Protocol
from collections.abc import Sequence

from ..engine.runner import RandomPlayer, consult, privileged


class Player(Protocol):
    """The player protocol: pick one of ``len(options)`` legal options by index."""

    needs_view: bool

    def choose(self, view, options: Sequence, rng: random.Random) -> int: ...


@privileged
class ScriptedPlayer:
    """Plays a fixed list of option indices, for tests; then falls back to ``fallback``.

    Shared by all seats when the script is the whole game's decision sequence.
    """

    needs_view = False
    name = "scripted"

    def __init__(self, script: Sequence[int], fallback: Player | None = None):
        self.script = list(script)
        self.position = 0
        self.fallback = fallback

    def choose(self, view, options, rng: random.Random) -> int:
        if self.position < len(self.script):
            i = self.script[self.position]
            self.position += 1
            if not 0 <= i < len(options):
                raise ValueError(f"scripted choice {i} but only {len(options)} options")
            return i
        if self.fallback is None:
            raise ValueError("the script ran out of choices")
        # the fallback gets what its own kind may receive (a player of someone else's: no state)
        o = options[0]
        return consult(self.fallback, o._state, o.player, options, rng)


PLAYER_KINDS = {"random": RandomPlayer}


def player_kinds() -> dict:
    """Every player kind by name: ``random`` here, the look-ahead players of ``recycle.ai``,
    and ``human`` (a person, asked through an interface: ``recycle.players.human``)."""
    from .human import HumanPlayer
    from .lookahead import AI_KINDS

    return {**PLAYER_KINDS, **AI_KINDS, "human": HumanPlayer}


def make_player(spec: str):
    """One player from a spec like ``random``, ``pimc``, ``ismcts:200`` (kind:budget) or
    ``ismcts:200:deduce`` (a look-ahead player that samples only worlds in which the others'
    earlier choices were legal: ``engine.deduce``; ``ismcts:deduce`` keeps the default budget)."""
    kinds = player_kinds()
    kind, *rest = spec.strip().split(":")
    if kind not in kinds:
        raise ValueError(f"unknown player {spec!r}; known: {', '.join(sorted(kinds))}")
    cls = kinds[kind]
    deduce = bool(rest) and rest[-1] == "deduce"
    if deduce:
        rest = rest[:-1]
    if len(rest) > 1:
        raise ValueError(f"bad player {spec!r}: expected kind, kind:ITERATIONS or kind:ITERATIONS:deduce")
    budget = rest[0] if rest else ""
    if not budget and not deduce:
        return cls()
    if cls is RandomPlayer or kind == "human":
        raise ValueError(f"player {kind!r} takes no budget or option")
    try:
        n = int(budget) if budget else None
    except ValueError:
        raise ValueError(f"bad budget in {spec!r}: expected kind:ITERATIONS, e.g. pimc:200") from None
    return cls(n, deduce=True) if deduce else cls(n)


def make_players(spec: str | None, nplayers: int) -> list:
    """Players from a CLI spec like ``random`` or ``ismcts:100,random`` (one per seat, last repeats).

    Kinds: random, greedy, pimc, ismcts, omniscient (cheats: sees hidden cards), human (a
    person; give each ``HumanPlayer`` its ``ui``); an optional ``:N`` sets the budget in
    iterations (see ``recycle.ai``).
    """
    names = [p.strip() for p in (spec or "random").split(",") if p.strip()] or ["random"]
    if len(names) > nplayers:
        raise ValueError(f"{len(names)} players given for a game of {nplayers}")
    return [make_player(names[min(seat, len(names) - 1)]) for seat in range(nplayers)]
