"""Look-ahead playouts in machine code: a sampled world finished by the native engine.

A look-ahead player (recycle/players/lookahead.py) samples worlds at its decision (the
*root*): copies of the state whose hidden cards are re-dealt, each with a chance stream of its
own. It walks its tree in a world with ``apply`` and then finishes the game at random. That
last part, the playout, is most of an iteration's time; here it is played in machine code.

Native code cannot start inside a game's nested stages and loops, so it starts where it
always does, at the beginning, and plays the game again up to the root with the choices the
real game made (``history``) and the real game's chance stream. There the world's cards are
put in their places and its chance stream takes over (``runtime_resume.arrive``); then the choices of
the tree are forced (the path from the root) and the rest is random, drawn from the player's
stream at the point it has reached. Replaying costs a few microseconds: the native engine plays
a whole Hearts deal in about 30.

The result is the Python engine's, draw for draw, in every case native code finishes (the
differential test of tests/native/test_playouts.py compares the look-ahead players' values with
native playouts on and off). Where native code could differ it declines, and the caller plays
that world on in Python, as before:

* a variable or a loop of the game holds, at the root, a card the world re-dealt (Python
  renames it in the world; native code holds the real one);
* the game's chance stream is not a plain ``Stream`` (a state made from outside), so it cannot
  be replayed;
* native code stops the playout: a rule broken (an impossible world), the step limit, the
  work budget (counted coarsely natively: a quarter of the world's budget is the limit), or
  a replay that does not reach the root as the real game did (``MISMATCH``).

The work a finished playout used is counted in native units (runtime.py's counter: a unit per
loop element, move, option and turn) against the decision's budget.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..lang.forms.values import Card
from ..streams import Stream


@dataclass
class Root:
    """What every world sampled at one decision shares."""

    chance_key: int  # the real game's chance stream, replayed up to the root
    chance_count: int  # its draws before the root
    history: tuple  # the choices of two or more options made before the root
    decisions: int  # the decisions counted at the root (itself included)
    max_steps: int
    held: tuple  # (location, index, card): cards the game's variables and loops hold at the root
    slots: tuple  # (location, index): the places a world may re-deal


def _cards_held(values, out: set, seen: set) -> None:
    for v in values:
        if isinstance(v, Card):
            out.add(int(v))
        elif isinstance(v, (list, tuple)) and id(v) not in seen:
            seen.add(id(v))
            _cards_held(v, out, seen)


class NativePlayouts:
    """A game's native playouts (one per player and game; not shared between threads)."""

    def __init__(self, native):
        import numpy as np

        self.native = native
        self.nplayers = native.game.nplayers
        self.arrays = native.new_arrays()
        self.out = np.zeros(7 + self.nplayers, np.int64)
        # the rollouts' arguments of the module's one entry (``games``), unused by a playout
        self.no_keys = np.zeros((1, 2), np.uint64)
        self.scores = np.zeros((1, self.nplayers), np.int64)
        self.counts = np.zeros((1, 5), np.int64)
        self.where = np.zeros((0, native.ncards), np.int32)
        self.played = 0  # playouts finished natively
        self.declined = 0  # playouts left to Python

    def root(self, view) -> Root | None:
        """The decision ``view`` (an ``Observation`` of the real state) waits at, as native
        playouts need it; None when they cannot start there."""
        s = view._state
        if type(s.rng) is not Stream or s.frames is None:
            return None
        held: set = set()
        seen: set = set()
        if s.env is not None:
            # the variables in scope at the choice (a slot out of scope may hold a card an
            # earlier turn left there: Python renames it too, and nothing reads it again)
            env = s.env
            _cards_held([env[j] for j in s.waiting.live if j < len(env)], held, seen)
        _cards_held([f[0] for f in s.frames if type(f) is tuple], held, seen)
        places = []
        for c in sorted(held):
            i = s.card_loc[c] if c < len(s.card_loc) else -1
            if i < 0 or i >= len(s.locs):
                continue
            lst = s.locs[i]
            places.append((i, lst.index(c), c))
        slots = tuple((i, k) for family, _ordered in view._redeal_plan() for i, k, _c in family)
        return Root(s.rng.key, s.rng.count, tuple(s.history), s.decisions, s.max_steps, tuple(places), slots)

    def world_places(self, root: Root, world):
        """The world's cards in the places it may re-deal, flat (location, index, card, ...),
        or None when it moved a card the game's variables hold (native code could not follow)."""
        locs = world.locs
        for i, k, c in root.held:
            if locs[i][k] != c:
                return None
        out = []
        for i, k in root.slots:
            out += (i, k, int(locs[i][k]))
        return out

    def play(self, root: Root, places: list, future: tuple, root_work: int, path: list, draw: Stream):
        """Finish the world natively: ``places`` its cards (``world_places``), ``future`` its
        chance stream at the root (key, count), ``root_work`` the work it had left there,
        ``path`` the choices of two or more options made in it since the root (those of the
        tree). Returns (scores, steps, work left) and moves ``draw`` (the players' stream) on
        as Python would have; None when native code declines (nothing is changed then)."""
        import numpy as np

        from .runtime_resume import R_HEADER

        forced = list(root.history) + list(path)
        header = [len(forced), root.decisions, 0, root_work // 4, root.chance_count, future[1], len(places) // 3,
                  len(root.history)]
        resume = np.array(header + forced + places, np.int64)
        assert len(header) == R_HEADER
        a = self.arrays
        keys = a[9]
        keys[0] = root.chance_key
        keys[1] = draw.key
        keys[2] = future[0] & ((1 << 64) - 1)
        out = self.out
        out[5] = draw.count
        ng = self.native
        ng.module.games(ng.initial, a[:15] + (resume,), ng.nteams, self.no_keys, root.max_steps, 0, self.scores,
                        self.counts, self.where, False, out)
        if out[0] != 0:
            self.declined += 1
            return None
        self.played += 1
        draw.count = int(out[5])
        used = root_work // 4 - int(out[6])
        return [int(v) for v in out[7:]], int(out[1]), root_work - used


def warm_playout(native) -> None:
    """Compile (or load) the native playout: one from the start of a game of seed 0."""
    from ..streams import CHANCE, PLAYERS, stream_key

    p = NativePlayouts(native)
    root = Root(stream_key(0, CHANCE), 0, (), 1, 100_000, (), ())
    # a root that is the first decision, with no re-deal: a random game of seed 0
    p.play(root, [], (stream_key(0, CHANCE), 0), native.game.max_work, [], Stream.keyed(stream_key(0, PLAYERS)))
