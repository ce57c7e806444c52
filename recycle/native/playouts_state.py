"""Look-ahead playouts started from a native state itself, not by replaying the game.

The real game has a native twin (``Twin``): a ``NativeState`` (recycle/native/stepping.py)
stepped with the real game's choices, on from where it stood at the player's last decision
(a new deal starts a new twin). At a decision, each sampled world is a copy of the twin's
block with the world's cards put in their places and its chance stream set; it follows the
tree's choices (the path from the root), then plays on at random to the end in one native
call. Nothing is played twice: the replay of ``runtime_resume`` is left only to what the twin
cannot follow (a game with a simultaneous stage: the twin holds the real game's pending picks,
which Python's sampled worlds draw anew).

The values are the Python engine's, draw for draw, as the replay's (the same checks decline the
same worlds: recycle/native/playouts.py, ``NativePlayouts.root`` and ``world_places``).
"""

from __future__ import annotations

from ..streams import Stream
from .runtime import CHANCE_N, DECISIONS, MAX_WORK, PLAYERS_N, STATUS, STEPS, WORK


SIMULTANEOUS = "its options changed with an earlier pick"  # in a stage lang/forms/form_simultaneous.py wrote


class Twin:
    """The native twin of one real game (see the module's docstring)."""

    def __init__(self, native):
        self.native = native  # the game's NativeGame
        self.state = None  # the twin NativeState, stopped at the last root it reached
        self.key = None  # (chance key, max steps): which game it is
        self.taken: tuple = ()  # the real game's choices of two or more options it applied

    def at_root(self, root):
        """The twin stopped at ``root`` (stepped on from where it stood), or None when it
        cannot follow the real game there."""
        from .stepping import start_keys

        if SIMULTANEOUS in self.native.source:
            # the real game's pending picks are in the twin; Python's worlds draw them anew
            return None
        st = self.state
        key = (root.chance_key, root.max_steps)
        h = root.history
        if st is None or self.key != key or h[: len(self.taken)] != self.taken or self._decisions() > root.decisions:
            if st is not None:
                st.release()
            st = start_keys(self.native, root.chance_key, 0, root.max_steps, 1 << 62)
            self.state, self.key, self.taken = st, key, ()
        taken = len(self.taken)
        while not st.is_terminal() and self._decisions() < root.decisions:
            n = st.num_options()
            if n > 1:
                if taken >= len(h) or h[taken] >= n:
                    return self._lost()
                st.apply(h[taken])
                taken += 1
            else:
                st.apply(0)
        self.taken = h[:taken]
        ctr = st.arrays()[8]
        if st.is_terminal() or taken != len(h) or int(ctr[CHANCE_N]) != root.chance_count:
            return self._lost()
        return st

    def _decisions(self) -> int:
        return int(self.state.arrays()[8][DECISIONS])

    def _lost(self):
        self.state.release()
        self.state, self.key, self.taken = None, None, ()

    def play(self, root, places: list, future: tuple, root_work: int, path: list, draw: Stream):
        """``NativePlayouts.play`` from the twin: (scores, steps, work left), ``draw`` moved on
        as Python would; None when it declines (nothing changed)."""
        st = self.at_root(root)
        if st is None:
            return None
        w = st.clone()
        with w._runner.lock:  # (as NativePlayouts._play_blind: no other thread's state in place meanwhile)
            try:
                return finish_world(w, places, future, root_work, path, draw)
            finally:
                w.release()


def finish_world(w, places: list, future: tuple, root_work: int, path: list, draw: Stream):
    """Play the world of the ``NativeState`` ``w`` (a copy of a state stopped at the root: the
    twin's, or a blind start's, recycle/native/blind.py) to its end: its cards put at ``places``,
    its chance stream set to ``future``, the choices of ``path`` forced, the rest drawn from
    ``draw`` as Python draws them. (scores, steps, work left), ``draw`` moved on; None when
    native code declines (``draw`` unchanged)."""
    a = w.arrays()
    locs, card_loc, ctr, keys, ver = a[0], a[2], a[8], a[9], a[12]
    for j in range(0, len(places), 3):
        i, k, c = places[j], places[j + 1], places[j + 2]
        locs[i, k] = c
        card_loc[c] = i
    ver += 1  # every location may have changed: no answer remembered holds
    keys[0] = future[0] & ((1 << 64) - 1)
    ctr[CHANCE_N] = future[1]
    keys[1] = draw.key
    ctr[PLAYERS_N] = draw.count
    budget = root_work // 4  # the native count is coarser (playouts.py)
    ctr[MAX_WORK] = int(ctr[WORK]) + budget
    forced = list(path)
    while not w.is_terminal():
        n = w.num_options()
        if n > 1 and forced:
            k = forced.pop(0)
            if k >= n:
                return None
            w.apply(k)
            continue
        if n > 1:
            a = w.arrays()
            pl = Stream.keyed(int(a[9][1]))
            pl.count = int(a[8][PLAYERS_N])
            k = int(pl.random() * n)
            a[8][PLAYERS_N] = pl.count
        else:
            k = 0
        if forced:
            w.apply(k)
        else:
            w.finish(k)
    a = w.arrays()
    ctr = a[8]
    if w._status or int(ctr[STATUS]) != 0:
        return None
    draw.count = int(ctr[PLAYERS_N])
    used = budget - (int(ctr[MAX_WORK]) - int(ctr[WORK]))
    return w.returns(), int(ctr[STEPS]), root_work - used
