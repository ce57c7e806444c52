"""The rounds of a game as ``recycle play`` tells them: where a round (a deal of Hearts,
a round of Schwimmen) ends, and what it changed.

A round ends where the game gathers its cards back: after at least one decision, no
player holds a card any more (every card lies in the table's locations, as when the
tricks go back to the stock, or the hands are shown and shuffled in). What it changed is
read from the game's storages (public to every player): their values at the round's first
decision and when it ended (when the next round's first card reaches a player, before the
next round resets anything, or at the game's end). Only the storages the game shows
(``;@ hide:`` ones left out) are told, in its words (``;@ label:``).

``RoundWatch`` follows the state's recorded events as they come (``feed``); the play
screen asks it at each decision, pauses with ``summary_lines`` of every round that ended,
and shows at the game's end how every round was dealt (``Round.deal``: every card, so it
is shown only then).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..lang.forms.values import MEMORY, MoveEvent, StorageEvent
from ..lang.syntax.notes import NO_WORDS
from .table import OWNER_WIDTH, owner_of, seat_title, zero_tells


@dataclass
class Round:
    """One round: its number (from 1), the decision it started at (its first), the
    storages' values then (``start``: label -> value), where it ended (``last``: the
    decision its cards were gathered at, None while it goes on) and the values then
    (``end``, after the first ``upto`` of the game's events), and how it was dealt (``deal``:
    location label -> card names, all revealed)."""

    number: int
    first: int
    start: dict
    deal: dict
    last: int | None = None
    end: dict | None = None
    upto: int = 0  # the game's events up to its end (the next round's are not its)


class RoundWatch:
    """Rounds of one game, followed through its events (see the module docstring)."""

    def __init__(self, game):
        self.game = game
        infos = game.layout.infos
        # the locations whose cards a player holds (a memory copy is not a card held)
        self.held = [info.owner_kind != "game" and info.visibility != MEMORY for info in infos]
        self.counts = [0] * len(infos)
        self.holding = 0  # cards in players' (and teams') locations now
        self.values: dict = {}  # storage label -> value now
        self.rounds: list[Round] = []
        self.ended = 0  # rounds ended (the next one, if any, is the one going on)
        self.gathered = False  # the cards of the round going on were gathered: it ends
        self.seen = 0  # events followed so far
        self.told = 0  # rounds ended that the screen has shown

    def feed(self, events) -> None:
        """Follow the events recorded since the last call (``events``: all of the game's)."""
        for k in range(self.seen, len(events)):
            ev = events[k]
            if isinstance(ev, StorageEvent):
                self.values[ev.slot] = ev.value
            elif isinstance(ev, MoveEvent):
                self._move(ev, k)
        self.seen = len(events)

    def _move(self, ev, k: int) -> None:
        for where, step in ((ev.src, -1), (ev.dst, 1)):
            if where is None or where >= len(self.counts):
                continue
            self.counts[where] += step
            if not self.held[where]:
                continue
            before = self.holding
            self.holding += step
            if before and not self.holding and ev.decision >= 1:
                self._gathered(ev.decision)
            elif not before and self.holding and self.gathered:
                self._end(k)  # the next round's first card: what the last one left is final

    def _gathered(self, decision: int) -> None:
        if not self.gathered and self.ended < len(self.rounds):
            self.rounds[self.ended].last = decision
            self.gathered = True

    def _end(self, upto: int) -> None:
        self.rounds[self.ended].end = dict(self.values)
        self.rounds[self.ended].upto = upto
        self.ended += 1
        self.gathered = False

    def at_decision(self, state) -> None:
        """A decision of ``state`` waits (its events fed): a round whose cards were gathered
        ends (with the values now), and a new round starts here if none goes on."""
        from ..study.records import deal_of

        if self.gathered:
            self._end(self.seen)
        if self.ended == len(self.rounds):
            self.rounds.append(Round(len(self.rounds) + 1, state.decisions, dict(self.values), deal_of(state)))

    def finish(self) -> Round | None:
        """At the game's end (its events fed): the last round, ended with the final values
        (None if no round started)."""
        if self.ended < len(self.rounds):
            self._end(self.seen)
        return self.rounds[-1] if self.rounds else None

    def untold(self) -> list[Round]:
        """The rounds ended that the screen has not shown yet (then counted as shown)."""
        out = self.rounds[self.told : self.ended]
        self.told = self.ended
        return out

    def rewind(self, events, decisions: int) -> None:
        """The deal was played again up to the decision ``decisions`` (undo), with these
        events: follow them afresh, keeping the rounds started by then. Every round but the
        last of those ended (and was shown) before that decision."""
        kept = [r for r in self.rounds if r.first <= decisions]
        for r in kept:
            r.last = r.end = None
        self.__init__(self.game)
        self.rounds = kept
        self.feed(events)
        self.told = max(0, len(kept) - 1)


def _shown(game, values: dict) -> dict:
    """``{owner key: {words of the storage: (name, value)}}`` of the storages the game shows."""
    words = getattr(game, "words", NO_WORDS)
    out: dict = {}
    for label, v in values.items():
        key, name = owner_of(label)
        shown = words.slot(name)
        if shown is not None:
            out.setdefault(key, {})[shown] = (name, v)
    return out


def summary_lines(game, rnd: Round, names: list[str], me: int) -> list[str]:
    """What round ``rnd`` changed: one line per player (``me`` first) with every storage shown
    that some player has (0 where it is 0: your own score too), and how much it changed when
    it was not 0 before (``lives 2 (-1)``, ``score 12 (+7)``; a value the game names in
    words, what it was: ``sunk yes (was 0)``); then the teams' and the table's storages that
    changed. Nothing shown changed: no line."""
    words = getattr(game, "words", NO_WORDS)
    before, after = _shown(game, rnd.start), _shown(game, rnd.end or {})
    # the players' storages in use: every player shows each of them
    used: dict = {}  # in the order they were first set (for anyone)
    nonzero: set = set()
    for key, slots in after.items():
        if key[0] == "player":
            for label, (name, v) in slots.items():
                used.setdefault(label, name)
                if v or before.get(key, {}).get(label, (name, 0))[1]:
                    nonzero.add(label)
    used = {label: name for label, name in used.items() if label in nonzero}
    zero_told = {label for label, name in used.items() if zero_tells(words, name)}
    order = [("player", me)] + [("player", p) for p in range(game.nplayers) if p != me]
    order += sorted(k for k in after if k[0] == "team") + [("game", 0)]
    lines = []
    for key in order:
        was, now = before.get(key, {}), after.get(key, {})
        if key[0] == "player":  # a count some player has: 0 too; a flag or a word: where set or changed
            slots = {
                label: now.get(label, (name, 0))
                for label, name in used.items()
                if label in zero_told or now.get(label, (name, 0))[1] or was.get(label, (name, 0))[1]
            }
        else:
            slots = now
        parts = []
        for label, (name, v) in slots.items():
            old = was.get(label, (name, 0))[1]
            if key[0] != "player" and v == old:
                continue  # the table's: only what changed
            told, then = words.value(name, v), words.value(name, old)
            text = f"{label} {told}"
            if v != old and (told != str(v) or then != str(old) or not isinstance(v, int)):
                text += f" (was {then})"  # a value in words: what it was, not a difference
            elif v != old and old:
                text += f" ({v - old:+d})"
            parts.append(text)
        if key[0] == "player":
            title = seat_title(key[1], me, names)
        else:
            title = f"Team T{key[1]}" if key[0] == "team" else "Table"
        if parts:
            lines.append(f"{title:<{OWNER_WIDTH}}{' · '.join(parts)}")
    return lines
