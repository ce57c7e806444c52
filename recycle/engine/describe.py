"""Options in words: what an option would do, as the player choosing it sees it.

The option is run on a copy of the state with events recorded, and the events are told
as sentences: ``play Q♠ from your HAND to TRICK``, ``swap 9♣ from your HAND for 10♣
from MIDDLE``, ``take a card from STOCK into your HAND``, ``set PASS to 1``. Cards the
viewer may not see where they lie now are "a card"; locations owned by the
viewer are "your ...", other players' are "P2's ...".

Told to its chooser, an option names only what the chooser knows *before* choosing (issue
25, item 15): a storage value the option sets after it moved a card the chooser does not
see now, or after it drew from the game's generator (the future), is withheld (``set
TOTAL(P0)``, not ``set TOTAL(P0) to 15``). What a player of someone else's receives goes
further (``public``): its words are what every one of several worlds consistent with its
information would say.
"""

from __future__ import annotations

from ..lang.forms.values import Card, MoveEvent, StorageEvent, may_see
from ..lang.nodes.actions import Pass
from ..streams import Stream


class _Drawn:
    """The marker ``effects(..., watch=True)`` puts among the events where the option
    first draws from the game's generator."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "DRAWN"


DRAWN = _Drawn()
# told to the chooser for what an option does after it draws from the game's generator
AT_RANDOM = "then something decided at random"


class _WatchedRng(Stream):
    """A copy of a state's generator that marks, in the events, where it is drawn from.
    (``random`` and ``getrandbits`` are what every other draw goes through.)"""

    def random(self):
        self._mark()
        return super().random()

    def getrandbits(self, k):
        self._mark()
        return super().getrandbits(k)

    def _mark(self) -> None:
        sink = self.sink
        if not sink or sink[-1] is not DRAWN:
            sink.append(DRAWN)


def place_name(info, viewer: int | None) -> str:
    """``your HAND``, ``P2's HAND``, ``T1's PILE`` or ``STOCK``."""
    if info.owner_kind == "game":
        return info.name
    if info.owner_kind == "player" and viewer is not None and info.owner == viewer:
        return f"your {info.name}"
    return f"{'P' if info.owner_kind == 'player' else 'T'}{info.owner}'s {info.name}"


def seen_now(state, ev, viewer: int | None) -> bool:
    """May ``viewer`` see the card of event ``ev`` where it lies now, before the option is
    chosen (not where the event takes it from)? A card that would arrive face up in the
    viewer's hand is still unknown to it, and so is one the option would draw and then
    discard from that hand. A card the option itself creates is told by the event's own place."""
    if viewer is None:
        return True
    if ev.card < len(state.card_loc):
        where = state.card_loc[ev.card]
    else:
        where = ev.src if ev.src is not None else ev.dst
    return may_see(state.game.layout.infos[where], viewer, state.team_of)


def effects(state, steps, chooser: int, watch: bool = False) -> list:
    """The events the option's steps would cause, worked out on a copy of ``state``;
    ``watch`` also puts ``DRAWN`` where the option draws from the game's generator."""
    events: list = []
    if watch:
        rng = _WatchedRng.keyed(0)
        rng.setstate(state.rng.getstate())
        rng.sink = events
        t = state.clone(rng=rng)
    else:
        t = state.clone()
    t.events = events
    t.chooser = chooser
    memo: dict = {}  # (views an option's variables hold are copied: a move out of one changes it)
    for item, env in steps:
        item.run(t, t.env if env is state.env else [_copied(v, memo) for v in env])
    return events


def _copied(v, memo: dict):
    """A copy of a variable's value for working out an option on a copy of the state: a view
    or group list is copied (each once, ``memo``), so that the option's moves out of it leave
    the original's, which the chosen option will run on, untouched."""
    if not isinstance(v, list):
        return v
    got = memo.get(id(v))
    if got is None:
        got = memo[id(v)] = type(v)(_copied(x, memo) for x in v)
    return got


def moved_cards(state, events, viewer: int | None) -> list:
    """The cards the events move or swap, in order, each once: ids where ``viewer`` may see
    them now (``seen_now``), ``None`` for the others."""
    out: list = []
    moved: set = set()
    for ev in events:
        if isinstance(ev, MoveEvent) and ev.action in ("move", "swap") and ev.card not in moved:
            moved.add(ev.card)
            out.append(int(ev.card) if seen_now(state, ev, viewer) else None)
    return out


def knowable_values(state, events: list, viewer: int | None) -> set:
    """The positions (among the option's ``StorageEvent``s, counted from 0) of the values
    the option's chooser ``viewer`` may be told before choosing: those set before the option
    moves a card the viewer does not see now and before it draws from the game's generator
    (``events`` come from ``effects(..., watch=True)``)."""
    told: set = set()
    blind = False
    j = 0
    for ev in events:
        if ev is DRAWN or (isinstance(ev, MoveEvent) and not seen_now(state, ev, viewer)):
            # from here on a value may depend on the card moved unseen or on the future
            blind = True
        elif isinstance(ev, StorageEvent):
            if not blind or viewer is None:
                told.add(j)
            j += 1
    return told


def describe_effects(state, events, viewer: int | None, told: set | None = None) -> str:
    """The events of one option as a sentence (see the module docstring); ``told``: which
    storage values to name (``knowable_values``; all when None)."""
    game = state.game
    infos = game.layout.infos

    def cards(group) -> str:
        names = [game.card_name(ev.card) for ev in group if seen_now(state, ev, viewer)]
        hidden = len(group) - len(names)
        if hidden:
            names.append(
                "a card" if hidden == 1 and not names else f"{hidden} cards" if not names else f"{hidden} more"
            )
        return " ".join(names)

    parts: list[str] = []
    moves = [ev for ev in events if isinstance(ev, MoveEvent)]
    swaps = [ev for ev in moves if ev.action == "swap"]
    others = [ev for ev in moves if ev.action != "swap"]
    # swaps: the cards going each way between two places
    pairs: dict = {}
    for ev in swaps:
        pairs.setdefault(frozenset((ev.src, ev.dst)), []).append(ev)
    for group in pairs.values():
        a, b = group[0].src, group[0].dst
        there = [ev for ev in group if ev.src == a]
        back = [ev for ev in group if ev.src == b]
        parts.append(
            f"swap {cards(there)} from {place_name(infos[a], viewer)} for {cards(back)} "
            f"from {place_name(infos[b], viewer)}"
        )
    run: list = []
    for ev in others + [None]:
        if run and (ev is None or (ev.action, ev.src, ev.dst) != (run[0].action, run[0].src, run[0].dst)):
            first = run[0]
            src = place_name(infos[first.src], viewer) if first.src is not None else None
            dst = place_name(infos[first.dst], viewer) if first.dst is not None else None
            if first.action == "remember":
                parts.append(f"remember {cards(run)} in {dst}")
            elif first.action == "forget":
                parts.append(f"forget {cards(run)} from {src}")
            else:
                parts.append(f"move {cards(run)} from {src} to {dst}")
            run = []
        if ev is not None:
            run.append(ev)
    j = 0
    for ev in events:
        if isinstance(ev, StorageEvent):
            parts.append(f"set {ev.slot} to {ev.value}" if told is None or j in told else f"set {ev.slot}")
            j += 1
    return "; ".join(parts)


def option_name(game, steps) -> tuple | None:
    """``(words, binds)``: the game's name of the option of ``steps`` (a ``;@ name:`` note
    on its form, ``lang/syntax/notes.py``), or None."""
    words = getattr(game, "words", None)
    if words is None or not words.names:
        return None
    for item, _ in steps:
        node = getattr(item, "node", None)
        if node is not None:
            got = words.option_name(node.span)
            if got is not None:
                return got
    return None


def _filled(state, steps, words: str, viewer: int | None) -> str:
    """A name's ``{V}`` filled with the value the option binds to 'V: a card's name where the
    viewer sees it now ("a card" elsewhere), a number as it is."""
    from ..lang.syntax.notes import PLACE

    values: dict = {}
    for item, env in steps:
        for var, slot in item.scope.names().items():
            if isinstance(slot, int) and slot < len(env):
                values.setdefault(var, env[slot])
    infos = state.game.layout.infos

    def fill(m):
        v = values.get(m.group(1))
        if isinstance(v, Card):
            where = state.card_loc[v] if v < len(state.card_loc) else None
            seen = viewer is None or (where is not None and may_see(infos[where], viewer, state.team_of))
            return state.game.card_name(v) if seen else "a card"
        if isinstance(v, int):
            return str(int(v))
        if isinstance(v, str):
            return v
        return m.group(0)

    return PLACE.sub(fill, words)


def card_words(state, events, viewer: int | None) -> str:
    """The cards an option moves, as its chooser sees them now: ``9♠ for 10♣`` for a swap,
    ``Q♠`` for a move; a card the viewer does not see is "a card"."""
    game = state.game

    def cards(group) -> str:
        names = [game.card_name(ev.card) for ev in group if seen_now(state, ev, viewer)]
        hidden = len(group) - len(names)
        if hidden:
            names.append("a card" if hidden == 1 else f"{hidden} cards")
        return " ".join(names)

    moves = [ev for ev in events if isinstance(ev, MoveEvent) and ev.action in ("move", "swap")]
    pairs: dict = {}
    runs: dict = {}
    for ev in moves:
        if ev.action == "swap":
            pairs.setdefault(frozenset((ev.src, ev.dst)), []).append(ev)
        else:
            runs.setdefault((ev.src, ev.dst), []).append(ev)
    parts = []
    for group in pairs.values():
        a = group[0].src
        parts.append(f"{cards([ev for ev in group if ev.src == a])} for {cards([ev for ev in group if ev.src != a])}")
    parts += [cards(group) for group in runs.values()]
    return "; ".join(parts)


def describe_option(state, steps, chooser: int, viewer: int | None, events: list | None = None) -> str:
    """The option in words: told to its chooser, the game's name for it when it has one
    (``option_name``, with the cards it moves when it binds one); else ``pass`` when it
    changes nothing that can be told, else what it does. Told to its chooser (``viewer ==
    chooser``), a storage value the option sets after moving a card the
    chooser does not see, or after drawing from the generator, is not named
    (``knowable_values``). ``events``: the option's ``effects(..., watch=True)`` when the
    caller has them already."""
    mine = viewer is not None and viewer == chooser
    if events is None:
        events = effects(state, steps, chooser, watch=mine)
    tail = ""
    if mine and DRAWN in events:
        # what the option does after it draws from the generator is the future's: not told
        cut = events.index(DRAWN)
        if any(isinstance(ev, (MoveEvent, StorageEvent)) for ev in events[cut:]):
            events, tail = events[:cut], AT_RANDOM
    # the game's names are words for the chooser (the play screen); a spectator's transcript
    # tells what the option did, as another player sees it
    named = option_name(state.game, steps) if mine else None
    if named is not None:
        words, binds = named
        if "{" in words:
            return _filled(state, steps, words, viewer)
        told = card_words(state, events, viewer) if binds else ""
        return f"{words}: {told}" if told else words
    text = describe_effects(state, events, viewer, knowable_values(state, events, viewer) if mine else None)
    if tail:
        return f"{text}; {tail}" if text else tail
    if text:
        return text
    if all(isinstance(item.node, Pass) for item, _ in steps):
        return "pass"
    from .transcript import describe_option as render

    return render(state.game, state, steps, chooser, viewer)
