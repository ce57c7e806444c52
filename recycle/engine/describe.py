"""Options in words: what an option would do, as the player choosing it sees it.

The option is run on a copy of the state with events recorded, and the events are told
as sentences: ``play Q♠ from your HAND to TRICK``, ``swap 9♣ from your HAND for 10♣
from MIDDLE``, ``take a card from STOCK into your HAND``, ``set PASS to 1``. Cards the
viewer may not see where they lie now are "a card"; locations owned by the
viewer are "your ...", other players' are "P2's ...".
"""

from __future__ import annotations

from ..lang.values import MoveEvent, StorageEvent, may_see


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


def effects(state, steps, chooser: int) -> list:
    """The events the option's steps would cause, worked out on a copy of ``state``."""
    t = state.clone()
    t.events = events = []
    t.chooser = chooser
    for item, env in steps:
        item.run(t, t.env if env is state.env else env[:])
    return events


def describe_effects(state, events, viewer: int | None) -> str:
    """The events of one option as a sentence (see the module docstring)."""
    game = state.game
    infos = game.layout.infos

    def cards(group) -> str:
        names = [game.card_name(ev.card) for ev in group if seen_now(state, ev, viewer)]
        hidden = len(group) - len(names)
        if hidden:
            names.append("a card" if hidden == 1 and not names else f"{hidden} cards" if not names
                         else f"{hidden} more")
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
        parts.append(f"swap {cards(there)} from {place_name(infos[a], viewer)} for {cards(back)} "
                     f"from {place_name(infos[b], viewer)}")
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
    for ev in events:
        if isinstance(ev, StorageEvent):
            parts.append(f"set {ev.slot} to {ev.value}")
    return "; ".join(parts)


def describe_option(state, steps, chooser: int, viewer: int | None) -> str:
    """The option in words; ``pass`` when it changes nothing that can be told."""
    text = describe_effects(state, effects(state, steps, chooser), viewer)
    if text:
        return text
    if all(getattr(item.node, "items", None) and str(item.node.items[0]) == "turn" for item, _ in steps):
        return "pass"
    from .transcript import describe_option as render

    return render(state.game, state, steps, chooser, viewer)
