"""The table as one seat may see it, in lines of text: what ``recycle play`` shows a person.

Everything here is built from an ``Observation`` (the seat's cards, counts of the rest,
the storages, the cards it knows the place of) and from the game's events told as the
seat saw them: a card is named only when the seat may see where it came from or where it
went; otherwise it is "?". Nothing here looks at a card the seat may not see. Only
``reveal_lines``, for a finished game, shows every card.
"""

from __future__ import annotations

import re

from ..engine.describe import place_name
from ..engine.transcript import ARROWS
from ..lang.forms.values import PRIVATE, MoveEvent, StorageEvent
from ..lang.syntax.notes import NO_WORDS

# hands sorted by suit (colours alternating) and rank, aces high
SUIT_ORDER = {"SPADES": 0, "HEARTS": 1, "CLUBS": 2, "DIAMONDS": 3}
RANK_ORDER = {r: k for k, r in enumerate(["TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE", "TEN"])}
RANK_ORDER.update(
    {
        "2": 0,
        "3": 1,
        "4": 2,
        "5": 3,
        "6": 4,
        "7": 5,
        "8": 6,
        "9": 7,
        "10": 8,
        "J": 9,
        "JACK": 9,
        "Q": 10,
        "QUEEN": 10,
        "K": 11,
        "KING": 11,
        "A": 12,
        "ACE": 12,
    }
)
LABEL = re.compile(r"^(.*)\((P|T)(\d+)\)$")
OWNER_WIDTH = 15
MAX_NARRATIVE = 14  # lines of "since your last turn" shown at most
MAX_GROUP = 5  # lines for one decision's consequences at most
STORAGE_WIDTH = 100  # characters of storage changes told after one decision


def card_key(game, c: int):
    attrs = game.card_attrs[c]
    suit, rank = attrs.get("SUIT"), attrs.get("RANK")
    if suit in SUIT_ORDER and rank in RANK_ORDER:
        return (0, SUIT_ORDER[suit], RANK_ORDER[rank], c)
    return (1, game.card_name(c), 0, c)


def hand_text(game, cards: list) -> str:
    """Cards sorted by suit and rank, a wider gap between suits: ``8♠ Q♠  2♥ 9♥``."""
    known = sorted((c for c in cards if c is not None), key=lambda c: card_key(game, c))
    out, last = [], None
    for c in known:
        suit = game.card_attrs[c].get("SUIT")
        if out and suit != last:
            out.append("")
        out.append(game.card_name(c))
        last = suit
    hidden = sum(1 for c in cards if c is None)
    if hidden:
        out.append(f"+{hidden} face down")
    return " ".join(out)


def pile_text(game, cards: list) -> str:
    """Cards in the order they lie (bottom first): piles and tricks keep their order."""
    return " ".join("?" if c is None else game.card_name(c) for c in cards)


def owner_of(label: str) -> tuple:
    """``((kind, index), name)`` of a storage label: ``SCORE(P1)`` -> ``(("player", 1), "SCORE")``,
    a table's ``POT`` -> ``(("game", 0), "POT")``."""
    m = LABEL.match(label)
    if not m:
        return ("game", 0), label
    return ("player" if m.group(2) == "P" else "team", int(m.group(3))), m.group(1)


def storage_texts(obs) -> list[tuple[tuple, str]]:
    """The storages ``obs.player`` may see, as the game names them (``;@`` notes: a hidden
    storage left out, a label and value words used): ``((owner kind, owner), "suit led ♣")``
    in the game's order; the owner kind is ``player``, ``team`` or ``game``. The terminal
    (``table_lines``) and the studio's table both show these (``storage_parts``)."""
    return storage_parts(obs.game, {**obs.ints(), **obs.strs()}, obs.ints())


def zero_tells(words, name: str) -> bool:
    """Is a storage's 0 worth showing? Yes for a count (a score, lives); not for a flag or a
    value the game names in words but not its 0 (``SUNK`` 1="yes")."""
    named = words.values.get(name)
    return named is None or "0" in named


def storage_parts(game, values: dict, ints: dict) -> list[tuple]:
    """``(owner key, "words value")`` of the storages the game shows (``;@ hide:`` ones left
    out, ``;@ label:`` words used), in the order of ``values`` (label -> value; 0 and "" are
    not set). An integer count that some player has set is shown for every player, 0 where
    it is not set: your own score of 0 too (``zero_tells``)."""
    words = getattr(game, "words", NO_WORDS)
    in_use: dict = {}  # the players' integer storages set for someone, by name
    for label in ints:
        key, name = owner_of(label)
        if key[0] == "player" and zero_tells(words, name):
            in_use.setdefault(name, None)
    out = []
    done: set = set()
    for label, v in values.items():
        key, name = owner_of(label)
        if key[0] == "player" and name in in_use:
            if name in done:
                continue
            done.add(name)
            for p in range(game.nplayers):  # every player's, where the first is met
                shown = words.slot(name)
                if shown is not None:
                    out.append((("player", p), f"{shown} {words.value(name, values.get(f'{name}(P{p})', 0))}"))
            continue
        shown = words.slot(name)
        if shown is not None:  # None: a storage the game hides (``;@ hide:``)
            out.append((key, f"{shown} {words.value(name, v)}"))
    return out


def said_words(state, options, i: int) -> str | None:
    """Option ``i`` of a decision in the words its chooser is shown (``public_options``),
    when the game names it (a ``;@ name:`` note), for telling the chooser's own move, forced
    or chosen, as the game says it; None where the game does not name it (its moves are told)."""
    from ..engine.describe import option_name
    from ..engine.public import public_options

    if option_name(state.game, options[i].steps) is None:
        return None
    return public_options(state, options)[i].words


def seat_title(p: int, me: int, names: list[str]) -> str:
    """How the screen names seat ``p`` to the person at ``me``: ``You, P0`` or ``P1 random``."""
    return f"You, P{p}" if p == me else f"P{p} {names[p] if p < len(names) else ''}".rstrip()


def table_lines(obs, names: list[str], deal, to_move: int | None = None) -> list[str]:
    """The table as ``obs.player`` may see it: one block per player (the seat first), then
    the table's own locations and storages. ``names[p]`` is who sits at seat p."""
    game = obs.game
    me = obs.player
    layout = game.layout
    known = obs.known_locations()
    known_at: dict[int, list] = {}
    for c, where in known.items():
        known_at.setdefault(where, []).append(c)
    blocks: dict = {}

    def block(key):
        return blocks.setdefault(key, {"shown": [], "counts": [], "storage": []})

    for info in layout.infos:
        try:
            n = obs.count(info.index)
        except IndexError:  # a location made after this state was (a computed name)
            continue
        if not n:
            continue
        key = (info.owner_kind, info.owner)
        b = block(key)
        if obs.can_see(info.index):
            cards = obs.cards(info.index)
            mine = key == ("player", me)
            text = hand_text(game, cards) if mine and info.kind != "vloc" else pile_text(game, cards)
            b["shown"].append(f"{info.name} ({n})  {text}" if n > 1 else f"{info.name}  {text}")
        else:
            where = f"{info.name} {n} card{'s' if n != 1 else ''}"
            if info.owner_kind == "game":
                where += " face down"
            if info.index in known_at:
                where += f" (you know {hand_text(game, known_at[info.index])})"
            b["counts"].append(where)
    for key, text in storage_texts(obs):
        block(key)["storage"].append(text)
    lines = []
    order = [("player", me)] + [("player", p) for p in range(game.nplayers) if p != me]
    order += sorted(k for k in blocks if k[0] == "team") + [("game", 0)]
    for key in order:
        b = blocks.get(key)
        kind, who = key
        if kind == "player":
            title = seat_title(who, me, names)
            if to_move == who and who != me:
                title += " *"
        elif kind == "team":
            title = f"Team T{who}"
        else:
            title = "Table"
        if b is None:
            if kind == "player":
                lines.append(f"{title:<{OWNER_WIDTH}}(no cards)")
            continue
        rows = b["shown"] + [" · ".join(part for part in (" · ".join(b["counts"]), " · ".join(b["storage"])) if part)]
        rows = [r for r in rows if r] or ["(no cards)"]
        for k, row in enumerate(rows):
            lines.append(f"{title if k == 0 else '':<{OWNER_WIDTH}}{row}")
    return lines


def _group_moves(events, game, infos, me: int, can_see) -> list[str]:
    """Moves of one decision told as the seat saw them: ``P1's HAND → TRICK: Q♠``."""
    groups: dict = {}
    for ev in events:
        groups.setdefault((ev.action, ev.src, ev.dst), []).append(ev)
    parts = []
    done = set()
    for (action, src, dst), evs in groups.items():
        if (action, src, dst) in done:
            continue
        done.add((action, src, dst))

        def named(group):
            shown = [
                game.card_name(e.card)
                for e in group
                if (e.src is not None and can_see(e.src)) or (e.dst is not None and can_see(e.dst))
            ]
            hidden = len(group) - len(shown)
            if hidden and not shown:
                return f"{hidden} card{'s' if hidden != 1 else ''}" if hidden > 1 else "a card"
            return " ".join(shown + ["?"] * hidden)

        a = place_name(infos[src], me) if src is not None else "(new)"
        b = place_name(infos[dst], me) if dst is not None else "(forgotten)"
        if action == "swap":
            back = groups.get((action, dst, src), [])
            done.add((action, dst, src))
            parts.append(
                f"{a} {ARROWS['swap']} {b}: {named(evs)} for {named(back)}"
                if back
                else f"{a} {ARROWS['swap']} {b}: {named(evs)}"
            )
        elif action == "remember":
            parts.append(f"{b} remembers {named(evs)}")
        elif action == "forget":
            parts.append(f"{a} forgets {named(evs)}")
        else:
            parts.append(f"{a} {ARROWS['move']} {b}: {named(evs)}")
    return parts


def _storage_parts(events, words=NO_WORDS) -> list[str]:
    """The storages set, each with its last value, on one line (none: no line), in the
    game's words (``words``: hidden storages left out, labels and value words used)."""
    last: dict = {}
    for ev in events:
        shown = words.slot(ev.slot)
        if shown is not None:
            last[shown] = words.value(ev.slot, ev.value)
    text = " · ".join(f"{slot} = {v}" for slot, v in last.items())
    if len(text) > STORAGE_WIDTH:
        text = text[: STORAGE_WIDTH - 4].rsplit(" · ", 1)[0] + " ..."
    return [text] if text else []


FORCED = "only one option: "
UNSEEN = "chose (unseen until every player has chosen)"


def narrative_lines(
    obs,
    events,
    log,
    since: int,
    names: list[str],
    full: bool = False,
    said: dict | None = None,
    hidden: set | None = None,
) -> list[str]:
    """What happened from decision ``since`` on, as ``obs.player`` saw it: for each decision
    who chose and what it did, then what the game did after it. ``events`` are the state's
    recorded events; ``log`` lists ``(decision, player, options, chosen)``; ``said`` gives the
    words of the options ``obs.player`` chose that the game names (by decision), told instead
    of their events. A
    decision of ``obs.player``'s with one option is told as forced (``FORCED``); another
    player's is not (how many options they had may depend on cards this seat does not see).
    Unless ``full``, the game's moves after one decision are cut to ``MAX_GROUP`` lines.
    ``hidden``: the decisions of simultaneous stages (every player chooses, the choices applied
    together after the last): another player's is told as made but unseen, and what the
    choices did is told under each chooser when they are applied."""
    game = obs.game
    infos = game.layout.infos
    words = getattr(game, "words", NO_WORDS)
    me = obs.player
    can_see = obs.can_see
    who = {d: p for d, p, _, _ in log}
    forced = {d for d, p, n, _ in log if p == me and n == 1}
    said = said or {}
    by_decision: dict[int, list] = {}
    for ev in events:
        if ev.decision >= since:
            by_decision.setdefault(ev.decision, []).append(ev)
    lines = []
    for d in sorted(set(by_decision) | {k for k in who if k >= since}):
        evs = by_decision.get(d, [])
        p = who.get(d)
        label = "deal" if d == 0 else "you" if p == me else f"P{p}" if p is not None else "game"
        own = [e for e in evs if e.chooser is not None and (e.chooser == p or not hidden)]
        rest = [e for e in evs if e.chooser is None]
        parts = _group_moves([e for e in own if isinstance(e, MoveEvent)], game, infos, me, can_see)
        parts += _storage_parts([e for e in own if isinstance(e, StorageEvent)], words)
        told_by: list = []  # (seat, line) of the decision's chooser and, in a simultaneous stage, the others
        if p is not None:
            unseen = hidden and d in hidden and p != me and not parts
            told = (said.get(d) if p == me else None) or "; ".join(parts) or (UNSEEN if unseen else "pass")
            told_by.append((p, f"  {label:<6}{FORCED if d in forced else ''}{told}"))
        if hidden:  # the other choices of a simultaneous stage, applied now: each under its chooser
            for c in sorted({e.chooser for e in evs if e.chooser is not None and e.chooser != p}):
                theirs = [e for e in evs if e.chooser == c]
                done = _group_moves([e for e in theirs if isinstance(e, MoveEvent)], game, infos, me, can_see)
                done += _storage_parts([e for e in theirs if isinstance(e, StorageEvent)], words)
                told_by.append((c, f"  {'you' if c == me else f'P{c}':<6}{'; '.join(done) or 'pass'}"))
        lines.extend(line for _, line in sorted(told_by, key=lambda t: t[0]))  # (in seat order)
        then = _group_moves([e for e in rest if isinstance(e, MoveEvent)], game, infos, me, can_see)
        then += _storage_parts([e for e in rest if isinstance(e, StorageEvent)], words)
        if p is None and then:
            lines.append(f"  {label:<6}{then.pop(0)}")
        if len(then) > MAX_GROUP and not full:  # keep the storages (the last line): who lost, who scored
            then = then[: MAX_GROUP - 2] + [f"... {len(then) - MAX_GROUP + 1} more moves"] + then[-1:]
        lines.extend(f"  {'':<6}then {t}" for t in then)
    return lines


def received_lines(obs, events, since: int) -> list[str]:
    """The cards ``obs.player`` received from other players from decision ``since`` on (a
    Hearts pass, a Go Fish answer): those moved from another player's (or team's) location
    into a location of the seat's that only it sees, named where the seat may see them, one
    line per giver: ``You received from P1: 3♠ 8♠ A♠``. Told apart from the account of the
    moves, which may be cut short."""
    game = obs.game
    infos = game.layout.infos
    me = obs.player
    got: dict = {}
    for ev in events:
        if (
            ev.decision < since
            or not isinstance(ev, MoveEvent)
            or ev.action not in ("move", "swap")
            or ev.src is None
            or ev.dst is None
        ):
            continue
        src, dst = infos[ev.src], infos[ev.dst]
        if (
            dst.owner_kind == "player"
            and dst.owner == me
            and dst.visibility == PRIVATE
            and src.owner_kind != "game"
            and not (src.owner_kind == "player" and src.owner == me)
        ):
            giver = f"{'P' if src.owner_kind == 'player' else 'T'}{src.owner}"
            got.setdefault(giver, []).append(ev.card if obs.can_see(ev.dst) else None)
    return [f"You received from {giver}: {' '.join(hand_text(game, cards).split())}" for giver, cards in got.items()]


def display_positions(obs) -> dict:
    """Where each card the seat sees is shown on its table (``table_lines``): card ->
    ``(location index, place)``, its own hands sorted as ``hand_text`` shows them."""
    game = obs.game
    me = obs.player
    out: dict = {}
    for info in game.layout.infos:
        try:
            if not obs.count(info.index) or not obs.can_see(info.index):
                continue
        except IndexError:
            continue
        cards = [c for c in obs.cards(info.index) if c is not None]
        if info.owner_kind == "player" and info.owner == me and info.kind != "vloc":
            cards = sorted(cards, key=lambda c: card_key(game, c))
        for k, c in enumerate(cards):
            out.setdefault(c, (0 if info.owner_kind == "player" and info.owner == me else 1, info.index, k))
    return out


def display_order(obs, options) -> list[int]:
    """The options' indices in the order to show them: the options one form offers (the
    cards of an ``any``, next to each other in the list) sorted by where their cards are
    shown on the table (``display_positions``: a card passed or played from the hand in
    the hand's order); the others, and a form's options of which some move a card the
    seat does not see, where they are."""
    pos = display_positions(obs)
    order = list(range(len(options)))

    def form(o):
        key = getattr(o, "key", None)
        if not key or not all(isinstance(step, tuple) and len(step) == 3 for step in key):
            return None
        return tuple(step[:2] for step in key)

    def where(o):
        cards = tuple(getattr(o, "cards", ()) or ())
        if not cards or any(c is None or c not in pos for c in cards):
            return None
        return tuple(pos[c] for c in cards)

    start = 0
    while start < len(options):
        f = form(options[start])
        end = start + 1
        while end < len(options) and f is not None and form(options[end]) == f:
            end += 1
        keys = [where(options[k]) for k in range(start, end)]
        if end - start > 1 and all(k is not None for k in keys):
            order[start:end] = [k for _, k in sorted(zip(keys, range(start, end)))]
        start = end
    return order


def options_lines(options, figures=None, best: int | None = None) -> list[str]:
    """The options numbered from 1 in words as the chooser sees them; with a hint, each
    one's figure (``Hint.figure``: the estimated chance of winning, its interval and its
    tries, or "not tried") and the hint's choice marked."""
    width = len(str(len(options)))
    lines = []
    column = max((len(f) for f in figures or () if f), default=0)
    for i, o in enumerate(options):
        text = o.describe()
        if figures is not None:
            f = figures[i] if i < len(figures) and figures[i] else "not tried"
            mark = "  <- hint" if i == best else ""
            lines.append(f"  {i + 1:>{width}}  {f:<{column}}  {text}{mark}")
        else:
            lines.append(f"  {i + 1:>{width}}  {text}")
    return lines


def reveal_lines(state, names: list[str]) -> list[str]:
    """A finished game with every card shown: each player's locations, the table's, the
    final scores and the winners."""
    game = state.game
    lines = []
    for info in game.layout.infos:
        if info.index < len(state.locs) and state.locs[info.index]:
            cards = [int(c) for c in state.locs[info.index]]
            text = hand_text(game, cards) if info.owner_kind == "player" else pile_text(game, cards)
            lines.append(f"  {info.label:<14}{text}")
    scores = state.returns()
    winners = state.winners()
    lines.append(
        "Final scores: "
        + ", ".join(f"P{p} {names[p] if p < len(names) else ''} {v}".replace("  ", " ") for p, v in enumerate(scores))
    )
    wn = [f"P{p} ({names[p]})" if p < len(names) else f"P{p}" for p in winners]
    lines.append(("Winner: " if len(wn) == 1 else "Tie for first: ") + ", ".join(wn))
    return lines
