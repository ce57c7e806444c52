"""Readable transcripts of a recorded game: decisions in words, card movements,
storage changes, final scores. Hidden cards stay hidden unless ``reveal``.
"""

from __future__ import annotations

from ..lang.forms.values import MEMORY, PUBLIC, Card, PLoc, PlayerId, StorageEvent, TeamId
from ..lang.forms.spelling import spelled
from ..lang.forms.values import may_see

SUITS = {"HEARTS": "♥", "DIAMONDS": "♦", "CLUBS": "♣", "SPADES": "♠"}
ASCII_SUITS = {"HEARTS": "H", "DIAMONDS": "D", "CLUBS": "C", "SPADES": "S"}
ARROWS = {"move": "→", "swap": "⇄", "remember": "remembers", "forget": "forgets", "create": "→"}
ASCII_ARROWS = {**ARROWS, "move": "->", "swap": "<->", "create": "->"}
TIMES = ["×"]


def use_ascii() -> None:
    """Card names and transcripts in plain ASCII (``10S``, ``->``), for a terminal or pipe
    whose encoding cannot show suit symbols and arrows."""
    SUITS.update(ASCII_SUITS)
    ARROWS.update(ASCII_ARROWS)
    TIMES[0] = "x"


RANKS = {
    "ACE": "A",
    "TWO": "2",
    "THREE": "3",
    "FOUR": "4",
    "FIVE": "5",
    "SIX": "6",
    "SEVEN": "7",
    "EIGHT": "8",
    "NINE": "9",
    "TEN": "10",
    "JACK": "J",
    "QUEEN": "Q",
    "KING": "K",
}


def card_name(attrs: dict) -> str:
    """``A♠`` for cards with RANK and a French SUIT, else the attribute values joined by '-'."""
    rank, suit = attrs.get("RANK"), attrs.get("SUIT")
    if rank is not None and suit in SUITS:
        return RANKS.get(rank, rank) + SUITS[suit]
    vals = [v for k, v in attrs.items() if k not in ("COLOR", "__serial__")]
    return "-".join(vals) or f"card{attrs.get('__serial__', '')}"


def _card_text(game, s, c, viewer) -> str:
    if viewer is None:
        return game.card_name(c)
    info = game.layout.info(s.card_loc[c])
    if may_see(info, viewer, s.team_of):
        return game.card_name(c)
    return "?"


def _value_text(game, s, v, viewer) -> str:
    if isinstance(v, Card):
        return _card_text(game, s, v, viewer)
    if isinstance(v, PlayerId):
        return f"P{int(v)}"
    if isinstance(v, TeamId):
        return f"T{int(v)}"
    if isinstance(v, PLoc):
        return game.layout.info(v.idx).label
    if isinstance(v, list):
        return "[" + " ".join(_value_text(game, s, x, viewer) for x in v[:8]) + (" ..." if len(v) > 8 else "") + "]"
    return str(v)


def render(node, bindings: dict, env, game, s, viewer) -> str:
    """The form's text (its node written back: lang/forms/spelling.py) with bound variables
    replaced by their values."""

    def value_of(name: str) -> str | None:
        if name not in bindings:
            return None
        what = bindings[name]
        value = what.value if hasattr(what, "value") else env[what]
        return _value_text(game, s, value, viewer)

    return spelled(node, value_of)


def describe_option(game, s, steps, chooser: int | None, viewer: int | None = -1) -> str:
    """The option's actions in words. ``viewer`` -1: a spectator (public cards only); None: all."""
    spectator = viewer
    parts = []
    for item, env in steps:
        text = render(item.node, item.scope.names(), env, game, s, spectator)
        if not parts or parts[-1][0] != text:
            parts.append([text, 1])
        else:
            parts[-1][1] += 1
    return "; ".join(t if k == 1 else f"{t} {TIMES[0]}{k}" for t, k in parts)


def _public(vis) -> bool:
    return vis == PUBLIC or vis == MEMORY


def transcript(game, result, reveal: bool = False) -> list[str]:
    """Lines of a transcript of a recorded ``GameResult``."""
    layout = game.layout
    lines = [f"{game.name}: {game.nplayers} players, seed {result.seed}"]
    decisions = {d.index: d for d in result.choices}
    shown_decision = 0
    pending: list = []

    def flush():
        if not pending:
            return
        ev = pending[0]
        src = layout.info(ev.src).label if ev.src is not None else "(new)"
        dst = layout.info(ev.dst).label if ev.dst is not None else "(forgotten)"
        names = []
        for e in pending:
            if reveal or _public(e.src_vis) or _public(e.dst_vis):
                names.append(game.card_name(e.card))
            else:
                names.append("?")
        arrow = ARROWS[ev.action]
        if ev.action == "create":
            text = f"{len(names)} new cards into {dst}"
        else:
            text = f"{src} {arrow} {dst}: " + " ".join(names)
        lines.append(f"    {text}")
        pending.clear()

    for ev in result.events or []:
        while shown_decision < ev.decision:
            flush()
            shown_decision += 1
            d = decisions.get(shown_decision)
            if d is not None:
                lines.append(f"[{d.index}] P{d.player} chooses option {d.chosen + 1} of {d.options}: {d.description}")
        if isinstance(ev, StorageEvent):
            flush()
            lines.append(f"    {ev.slot} = {ev.value}")
            continue
        if pending and (pending[0].src, pending[0].dst, pending[0].action) != (ev.src, ev.dst, ev.action):
            flush()
        pending.append(ev)
    flush()
    for k in range(shown_decision + 1, result.decisions + 1):
        d = decisions.get(k)
        if d is not None:
            lines.append(f"[{d.index}] P{d.player} chooses option {d.chosen + 1} of {d.options}: {d.description}")
    if result.scores is None:
        lines.append(f"Stopped after {result.decisions} decisions, {result.steps} steps")
        return lines
    lines.append("Final scores: " + ", ".join(f"P{p} {v}" for p, v in enumerate(result.scores)))
    if len(result.winners) == 1:
        lines.append(f"Winner: P{result.winners[0]}")
    else:
        lines.append("Tie for first: " + ", ".join(f"P{p}" for p in result.winners))
    lines.append(f"{result.decisions} decisions, {result.steps} steps")
    return lines
