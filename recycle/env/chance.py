"""Chance as the rules draw it: a stepped state whose randomness is chosen from outside.

A seeded game draws every shuffle, ``random`` and tie of ``max``/``min`` from its generator.
A *chance-driven* state (``ChanceState``) draws nothing: each draw that matters is a
**chance node** (``ChanceNode``) whose outcomes and probabilities are exact, and the caller
(the OpenSpiel adapter, ``recycle solve``) picks the outcome:

* a **shuffle** leaves its location's order undrawn. Each card that then leaves the location
  while its place is undrawn is a chance node whose outcomes are the cards it could be, each
  as likely (drawing cards from the top of a shuffled pile one at a time is Fisher-Yates from
  the top, the seeded shuffle's own order of draws: the same distribution). The last card
  left is no draw. A location any player may see has its whole order drawn at once.
* ``(random ...)`` and a tie of ``max``/``min`` among n is a node of n outcomes, each 1/n.

How: the state runs with a ``ChanceStream`` as its generator. It answers a draw from the
outcomes chosen so far (``Script``) or stops the step with ``NeedChance``; a shuffle puts the
cards drawn so far on top and the others below in card order, and a step that moves one of
those undrawn cards out needs that shuffle's next card. A step that needed an outcome is
played again with it (a game is deterministic given its chance outcomes and choices): from
the state before the step (``rules.py``), or from the start of the game for the steps before
the first decision. Seeded states are untouched: a seed plays exactly as before.

A rule may also *read* an undrawn card without moving it (``top`` of a hidden pile in a
condition). So a step that leaves shuffles partly undrawn is run a second time from the state
before it, with their undrawn cards in the opposite order: when anything differs (the cards
elsewhere, storages, events, who moves next, the options), the step read one, and the next
card of the shuffle it read (found shuffle by shuffle) is drawn. Two orders that happen to
give the same outcome can hide a read that a third would show: the check is of two orders.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..lang.forms.values import MoveEvent, may_see


class NeedChance(BaseException):
    """A step reached a draw no outcome was chosen for (not an error: the state waits for it).
    A BaseException so that the engine passes it through as it does an interrupt."""

    def __init__(self, node: ChanceNode):
        super().__init__(node)
        self.node = node


@dataclass(frozen=True)
class ChanceNode:
    """A draw that waits for its outcome: ``kind`` "card" (the next card of shuffle number
    ``index``, outcomes = card ids) or "pick" (draw number ``index`` among ``len(outcomes)``,
    outcomes = 0..n-1). Every outcome is equally likely."""

    kind: str
    index: int
    outcomes: tuple

    def probabilities(self) -> list[tuple[int, float]]:
        p = 1.0 / len(self.outcomes)
        return [(int(o), p) for o in self.outcomes]


@dataclass
class Script:
    """The chance outcomes chosen so far: per shuffle, its cards from the top; the picks in order."""

    cards: dict = field(default_factory=dict)  # shuffle number -> [card, ...] (first = top)
    picks: list = field(default_factory=list)

    def copy(self) -> Script:
        return Script({k: v[:] for k, v in self.cards.items()}, self.picks[:])

    def add(self, node: ChanceNode, outcome: int) -> None:
        if outcome not in node.outcomes:
            raise ValueError(f"{outcome} is not an outcome of this chance node ({len(node.outcomes)} outcomes)")
        if node.kind == "card":
            self.cards.setdefault(node.index, []).append(outcome)
        else:
            self.picks.append(outcome)


class _Pick(float):
    """What ``ChanceStream.random()`` returns: every engine draw is ``int(random() * n)``,
    so the product with n is where the number of outcomes is known (kept in this module,
    so the engine's draws stay one multiplication)."""

    __slots__ = ()
    stream = None

    def __mul__(self, n):
        return self.stream.pick(int(n)) + 0.5

    __rmul__ = __mul__


@dataclass
class _Shuffled:
    """A shuffle of this run: its number, location, where the log was, and its undrawn cards."""

    number: int
    loc: int
    at: int
    undrawn: frozenset


class ChanceStream:
    """The generator of a chance-driven state (see the module docstring)."""

    def __init__(self, script: Script, state, log: list):
        self.script = script
        self.state = state
        self.log = log
        self.nshuffles = 0
        self.npicks = 0
        self.shuffled: list[_Shuffled] = []
        self._last_at = None
        # shuffles whose undrawn cards go below in descending card order (ALL: every one);
        # the check of a step that may read them (``_reads_undrawn``)
        self.flip: frozenset | object = frozenset()
        pick = type("_BoundPick", (_Pick,), {"__slots__": (), "stream": self})
        self._pick = pick(0.5)

    # the engine's generator interface: random(), getstate/setstate (options listed in a dry run
    # rewind it), copy (State.clone)
    def random(self):
        return self._pick

    def getstate(self):
        return (self.nshuffles, self.npicks, len(self.shuffled))

    def setstate(self, st) -> None:
        self.nshuffles, self.npicks, k = st
        del self.shuffled[k:]
        self._last_at = None

    def copy_for(self, state, log: list) -> ChanceStream:
        c = ChanceStream(self.script.copy(), state, log)
        c.nshuffles, c.npicks, c.shuffled = self.nshuffles, self.npicks, self.shuffled[:]
        return c

    def pick(self, n: int) -> int:
        k = self.npicks
        self.npicks += 1
        if n <= 1:
            return 0
        picks = self.script.picks
        if k < len(picks):
            if not 0 <= picks[k] < n:
                raise ValueError(f"chance pick {k}: outcome {picks[k]} of {n}")
            return picks[k]
        raise NeedChance(ChanceNode("pick", k, tuple(range(n))))

    def chance_shuffle(self, lst: list) -> None:
        """A shuffle of ``lst``: the cards drawn so far on top (first drawn = top), the rest
        below in card order (which no rule may rely on: moving one out needs a draw)."""
        k = self.nshuffles
        self.nshuffles += 1
        drawn = self.script.cards.get(k, ())
        drawn_set = set(drawn)
        flip = self.flip is ALL or k in self.flip
        rest = sorted((c for c in lst if c not in drawn_set), reverse=flip)
        # the location's own card objects (an outcome is a plain int; a card is a ``Card``)
        card = {int(c): c for c in lst}
        lst[:] = rest + [card[c] for c in reversed(drawn)]
        loc = next((i for i, x in enumerate(self.state.locs) if x is lst), -1)
        self.shuffled.append(_Shuffled(k, loc, len(self.log), frozenset(rest)))

    def left(self, e) -> None:
        """``e`` (a MoveEvent) took a card out of ``e.src``: if it was an undrawn card of the
        latest shuffle there, and not the last one, the step stops here for its draw (the
        rest of the step would run on a card no outcome chose: ``_run`` asks ``missing``)."""
        sh = self.last_at.get(e.src)
        if sh is None or e.card not in sh.undrawn:
            return
        outcomes = sh.undrawn.difference(self.script.cards.get(sh.number, ()))
        if e.card in outcomes and len(outcomes) > 1:
            raise NeedChance(ChanceNode("card", sh.number, tuple(sorted(outcomes))))

    @property
    def last_at(self) -> dict:
        """Per location, its latest shuffle of this run (an earlier one is moot)."""
        got = self._last_at
        if got is None or got[0] != len(self.shuffled):
            got = self._last_at = (len(self.shuffled), {sh.loc: sh for sh in self.shuffled if sh.loc >= 0})
        return got[1]

    def missing(self) -> ChanceNode | None:
        """The first shuffle whose undrawn cards mattered in this run (a card moved out of
        its place, or a location some player sees), as the node of its next card."""
        s = self.state
        infos = s.game.layout.infos
        players = range(s.game.nplayers)
        best = None
        log = self.log
        for i, sh in enumerate(self.shuffled):
            if len(sh.undrawn) <= 1 or sh.loc < 0:
                continue
            when = None
            later = any(o.loc == sh.loc for o in self.shuffled[i + 1 :])
            if not later and any(may_see(infos[sh.loc], p, s.team_of) for p in players):
                when = sh.at
            else:
                # until this location is shuffled again
                end = next((o.at for o in self.shuffled[i + 1 :] if o.loc == sh.loc), len(log))
                for j in range(sh.at, min(end, len(log))):
                    e = log[j]
                    if type(e) is MoveEvent and e.src == sh.loc and e.card in sh.undrawn:
                        when = j
                        break
            outcomes = sh.undrawn - set(self.script.cards.get(sh.number, ()))
            if when is not None and len(outcomes) > 1 and (best is None or when < best[0]):
                best = (when, ChanceNode("card", sh.number, tuple(sorted(outcomes))))
        return None if best is None else best[1]


ALL = object()


class DrawWatch:
    """The event sink of a chance-driven state: passes events on to its log and stops the
    step at the move of an undrawn card (``ChanceStream.left``), where it needs a draw."""

    __slots__ = ("stream", "log")

    def __init__(self, stream: ChanceStream, log: list):
        self.stream = stream
        self.log = log

    def append(self, e) -> None:
        self.log.append(e)
        if type(e) is MoveEvent and e.src is not None:
            self.stream.left(e)

    def __len__(self) -> int:
        return len(self.log)

    def __iter__(self):
        return iter(self.log)


def _run(s, step):
    """Run one step of a chance-driven state: the node it needs, or None."""
    try:
        step()
    except NeedChance as need:
        # a card moved out of its undrawn place earlier in the step is drawn first
        return s.rng.missing() or need.node
    return s.rng.missing()


def _begun(game, script: Script, log: list, max_steps: int, flip=frozenset()):
    s = game._fresh_state(0, log, max_steps, False, None)
    s.rng = ChanceStream(script, s, log)
    s.events = DrawWatch(s.rng, log)
    s.rng.flip = flip
    s.unsaved = "it is chance-driven: its chance outcomes, not a seed, make it"
    return s, _run(s, lambda: s._advance(lambda: game._begin(s)))


def chance_state(game, script: Script, log: list, max_steps: int, check: bool = True):
    """A new chance-driven state of ``game`` with the outcomes of ``script``, played to its
    first decision; returns (state, the node it waits for or None). Events go to ``log``.
    ``check``: find out whether the step read an undrawn card without moving it."""
    s, node = _begun(game, script, log, max_steps)
    if node is None and check:

        def again(flip):
            t, n = _begun(game, script.copy(), [], max_steps, flip)
            return t, n, 0

        node = _reads_undrawn(s, 0, again)
    return s, node


def chance_apply(s, option: int, check: bool = True):
    """Apply ``option`` to a chance-driven state; returns the node it now waits for, or None.
    ``check``: find out whether the step read an undrawn card without moving it."""
    before = chance_clone(s, s.rng.log[:]) if check and _active(s.rng) else None
    node = _run(s, lambda: s.apply(option))
    if node is None and before is not None:
        at = len(before.rng.log)

        def again(flip):
            t = chance_clone(before, before.rng.log[:])
            _permute(t, flip)
            t.rng.flip = flip
            return t, _run(t, lambda: t.apply(option)), at

        node = _reads_undrawn(s, at, again)
    return node


def _active(stream) -> list:
    """The shuffles of a state whose order is still partly undrawn (and that no later shuffle
    of the same location has made moot)."""
    out = []
    for i, sh in enumerate(stream.shuffled):
        if len(sh.undrawn) > 1 and sh.loc >= 0 and not any(o.loc == sh.loc for o in stream.shuffled[i + 1 :]):
            out.append(sh)
    return out


def _permute(t, flip) -> None:
    """Reverse the undrawn cards of the shuffles in ``flip`` among their places in ``t``."""
    for sh in _active(t.rng):
        if flip is ALL or sh.number in flip:
            lst = t.locs[sh.loc]
            places = [i for i, c in enumerate(lst) if c in sh.undrawn]
            cards = [lst[i] for i in reversed(places)]
            for i, c in zip(places, cards):
                lst[i] = c


def _signature(s, at: int):
    """What a step did, its undrawn cards' order left out: the cards of every location (an
    undrawn card as -1), the storages, the events since ``at``, who is to move and how many
    options they have."""
    hide: dict = {}
    for sh in _active(s.rng):
        hide.setdefault(sh.loc, set()).update(sh.undrawn)
    locs = tuple(tuple(-1 if c in hide.get(i, ()) else int(c) for c in lst) for i, lst in enumerate(s.locs))
    events = tuple(
        (e.action, int(e.card), e.src, e.dst)
        if type(e) is MoveEvent
        else tuple(e)
        if type(e) is tuple
        else (e.slot, e.value)
        for e in s.rng.log[at:]
    )
    over = s.frames is None
    return locs, tuple(s.ints), tuple(s.strs), events, over, None if over else (s.current_player(), s.num_options())


def _reads_undrawn(s, at: int, again):
    """A step's outcome, when it depends on the order of undrawn cards (a rule read one
    without moving it): the node of the next card of the shuffle it read, else None. The
    step is run again with the undrawn cards in the opposite order, all of them, then shuffle
    by shuffle to find the one it read."""
    active = _active(s.rng)
    if not active:
        return None
    mine = _signature(s, at)
    t, node, _ = again(ALL)
    if node is None and _signature(t, at) == mine:
        return None
    for sh in reversed(active):
        t, node, _ = again(frozenset({sh.number}))
        if node is not None or _signature(t, at) != mine:
            return ChanceNode("card", sh.number, tuple(sorted(sh.undrawn)))
    return ChanceNode("card", active[-1].number, tuple(sorted(active[-1].undrawn)))


def place_drawn(s, number: int, card: int) -> None:
    """In ``s``, put ``card``, just drawn from shuffle ``number`` (made before now), in the
    topmost undrawn place of its location, and count it drawn."""
    shuffled = s.rng.shuffled
    for i, sh in enumerate(shuffled):
        if sh.number == number and sh.loc >= 0 and card in sh.undrawn:
            lst = s.locs[sh.loc]
            places = [k for k, c in enumerate(lst) if c in sh.undrawn]
            at = next((k for k in places if lst[k] == card), None)
            if at is not None:  # else it left the location while its place did not matter
                top = places[-1]
                lst[at], lst[top] = lst[top], lst[at]
            shuffled[i] = _Shuffled(sh.number, sh.loc, sh.at, sh.undrawn - {card})
            s.rng._last_at = None
            return


def chance_clone(s, log: list):
    """A copy of a chance-driven state that logs to ``log`` (a copy of its log)."""
    t = s.clone(rng=s.rng)
    t.rng = s.rng.copy_for(t, log)
    t.events = DrawWatch(t.rng, log)
    return t
