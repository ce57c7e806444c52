"""A table in the browser: people and computer players at one game.

Every message a seat's browser receives is made by ``Table.seat_view(seat)`` and by
nothing else, from that seat's ``Observation`` only: its visible cards by name, every
other location as a count, the history told as the seat saw it
(``recycle.cli.table.narrative_lines``), its own options in words when it is to move. No
card id is sent, and no other seat's options. Only when the game is over does the view add
the final reveal. A seat acts only through its own secret link (``Table.act`` checks it).

The deal is the seed of the game's generator, so no seat is told it: a table deals from a
secret of 128 bits (``security.new_deal_secret``) unless its owner chose a deal number, and
a seat's messages name the deal only by its place at the table ("deal 2 at this table").
Hints draw from a fresh secret of their own, an error of recycle's own is told without its
place (which names the seed), and the record of a finished deal, which holds the seed, is
written for the owner alone (mode 0600, under a name that is not the seed).
"""

from __future__ import annotations

import secrets
import sys
import threading
import time
from pathlib import Path

from ..cli.table import (
    card_key,
    narrative_lines,
    reveal_lines,
    said_words,
    storage_texts,
)
from ..engine.game import DEFAULT_MAX_STEPS, GameResult, players_stream, rank
from ..engine.public import public_options
from ..engine.runner import replay_choices, sees_true_cards
from ..env.engines import check_engine, is_native, played_by, reference_of, synced, table_state
from ..errors import RecycleBug, RecycleError
from ..players import make_player
from ..players.human import adviser, hint
from .hints import HINTS
from .security import Refused, new_deal_secret, new_token

HISTORY_LINES = 400
# how long a hint or a computer seat's decision may think before it decides on what it has
# (the search's budget bounds its work; this bounds its time on a slow or busy machine)
HINT_SECONDS = 20.0
SEAT_SECONDS = 30.0


class Table:
    """Deals of ``game`` with ``specs`` (one per seat: ``human`` or a computer kind): the
    first from ``deal`` when the owner chose one, else from a secret (``new_deal_secret``)."""

    def __init__(
        self,
        game,
        path,
        specs: list[str],
        deal: int | None = None,
        records: Path | None = None,
        max_steps: int = DEFAULT_MAX_STEPS,
        engine: str = "auto",
    ):
        if len(specs) != game.nplayers:
            raise ValueError(f"{game.name} has {game.nplayers} seats; {len(specs)} players given")
        self.game = game
        self.path = Path(path)
        self.specs = list(specs)
        self.records = records
        self.max_steps = max_steps
        # auto by default, as `recycle play`: native code steps the game when it builds here (the
        # seats' views say which engine plays: ``played_by``)
        self.engine = check_engine(engine)
        self.tokens = {p: new_token() for p, s in enumerate(specs) if s == "human"}
        if not self.tokens:
            raise ValueError("a table needs at least one human seat")
        self.players = [None if s == "human" else make_player(s) for s in specs]
        self.cond = threading.Condition(threading.RLock())
        self.version = 0
        self.dealt = 0  # deals at this table so far: what a seat is told of the deal
        self.start(new_deal_secret() if deal is None else deal)

    # -- the deal -------------------------------------------------------------------------
    def start(self, deal: int) -> None:
        """Deal ``deal`` (the seed: secret) afresh and let the computer players play up to a person."""
        from ..study.records import Recorder

        with self.cond:
            self.generation = getattr(self, "generation", 0) + 1
            self.dealt += 1
            self.deal = deal
            self.rng = players_stream(deal)  # as PreparedGame.play: records replay
            self.recorder = Recorder(self.game)
            self.log: list[tuple] = []
            self.hidden: set = set()  # the decisions of simultaneous stages (told as unseen)
            self.snapshots: list[tuple] = []
            self.events: list = []
            self.error = None
            self.saved = None
            self.hints: dict = {}
            # per person, decision -> the words of their own move (chosen or forced) where the
            # game names it: the history tells it so, as the terminal does
            self.said: dict = {p: {} for p in self.tokens}
            self.hint_waiting: set = getattr(self, "hint_waiting", set())  # seats whose hint is queued
            self.message = {p: "" for p in self.tokens}
            self.state = self._dealt()
            if self.state.is_terminal():  # a game of no decision (War): saved before any page sees its end
                self._finish()
            self._changed()
            self._computers()  # (under the lock: see _computers)

    def played_by(self):
        """Which engine steps the deal (``env.engines.played_by``; call with the lock held)."""
        return played_by(self.state, self.engine)

    def _dealt(self):
        """The deal at its first decision, on the table's engine (``table_state``)."""
        return table_state(self.game, self.deal, self.max_steps, self.engine, record=self.events, track=True)

    def _changed(self) -> None:
        self.version += 1
        self.cond.notify_all()

    def seat_of(self, token: str | None) -> int | None:
        """The seat whose secret link carries ``token`` (None: no seat of this table)."""
        from .security import same

        for p, t in self.tokens.items():
            if same(token, t):
                return p
        return None

    def _computers(self) -> None:
        """Play the computer seats' decisions (and forced ones) in a thread, up to a person.
        The thread started last plays: one that has handed the table to a person may still be
        about to look again when the person's move starts the next (``driver``, counted with the
        lock held from the move on, so that no such thread sees the move before the count)."""
        with self.cond:
            self.driver = getattr(self, "driver", 0) + 1
            driver = self.driver
        threading.Thread(target=self._play_computers, args=(driver,), name="studio-table", daemon=True).start()

    def _play_computers(self, driver: int) -> None:
        # a computer player thinks without the lock (the pages keep seeing the table, marked
        # "thinking"); nothing else may change the state meanwhile: act, undo and hint are
        # refused while a computer seat is to move, and a new deal ends this thread
        with self.cond:
            generation = self.generation
        while True:
            with self.cond:
                if self.generation != generation or self.driver != driver:
                    return
                s = self.state
                try:
                    while not s.is_terminal() and s.num_options() == 1:
                        self._apply(s.current_player(), s.legal_options(), 0)
                    if s.is_terminal():
                        self._finish()
                        self._changed()
                        return
                    p = s.current_player()
                    pl = self.players[p]
                    if pl is None:
                        self._changed()
                        return
                    options = s.legal_options()
                    view = (
                        _player_observation(s, p, getattr(pl, "deduce", False), sees_true_cards(pl))
                        if pl.needs_view
                        else None
                    )
                except (RecycleError, RecycleBug) as exc:
                    self.error = seat_error(exc)
                    self._changed()
                    return
                self._changed()
            # a computer seat's search ends when the table is dealt again or after SEAT_SECONDS
            # (then it decides on what it has: the table's play depends on the machine only then)
            deadline = time.monotonic() + SEAT_SECONDS
            if hasattr(pl, "stop"):
                pl.stop = lambda: self.generation != generation or time.monotonic() > deadline  # noqa: B023 - this decision's
            try:
                i = int(pl.choose(view, options, self.rng))
            except (RecycleError, RecycleBug) as exc:
                with self.cond:
                    self.error = seat_error(exc)
                    self._changed()
                return
            with self.cond:
                if self.generation != generation or self.driver != driver:
                    return
                try:
                    self._apply(p, options, i)
                    while not self.state.is_terminal() and self.state.num_options() == 1:
                        self._apply(self.state.current_player(), self.state.legal_options(), 0)
                    if self.state.is_terminal():  # saved before any page can see the end
                        self._finish()
                except (RecycleError, RecycleBug) as exc:
                    self.error = seat_error(exc)
                    self._changed()
                    return

    def _apply(self, p: int, options, i: int) -> None:
        s = self.state
        if self.players[p] is None and len(options) > 1:
            self.snapshots.append((len(s.history), self.rng.getstate(), len(self.recorder.decisions), len(self.log)))
        if self.players[p] is None:
            words = said_words(s, options, i)
            if words is not None:
                self.said[p][s.decisions] = words
        if hasattr(reference_of(s).waiting, "hide_pending"):
            self.hidden.add(s.decisions)
        self.recorder.on_decision(s, p, options, i)
        self.log.append((s.decisions, p, len(options), i))
        s.apply(i)
        synced(s)  # (a native state's events: every seat's page reads them)

    def _finish(self) -> None:
        from .writes import save_record

        if getattr(self, "finished", None) == self.generation:  # (once a deal: act or the thread)
            return
        self.finished = self.generation
        s = self.state
        scores = s.returns()
        ranks, winners = rank(scores, self.game.scoring_max)
        result = GameResult(self.deal, scores, ranks, winners, s.decisions, s.options_total, s.steps, s)
        rec = self.recorder.finish(result, self.path, self.specs, self.max_steps)
        if self.records is not None:
            try:  # through no link, owner-only, under a random name in the safe alphabet (writes.py)
                self.saved = save_record(self.records, self.game.name, rec)
            except Refused as exc:
                self.saved = None
                self.error = f"the record could not be saved: {exc.message}"
            except OSError as exc:
                self.saved = None
                self.error = f"the record could not be saved: {exc.strerror or exc}"

    # -- what a seat does -------------------------------------------------------------------
    def _must_be(self, seat: int, claimed) -> None:
        if claimed is not None and claimed != seat:
            raise Refused(403, f"this link is seat P{seat}'s: it cannot act for P{claimed}")

    def act(self, seat: int, claimed, option, decision=None) -> None:
        """The person at ``seat`` plays ``option`` (an index) at ``decision`` (the decision
        number the page showed: a stale click is refused rather than played elsewhere)."""
        self._must_be(seat, claimed)
        with self.cond:
            s = self.state
            if s.is_terminal():
                raise Refused(409, "the game is over")
            if s.current_player() != seat or self._busy():
                raise Refused(409, f"it is not P{seat}'s turn")
            if decision is not None and decision != s.decisions:
                raise Refused(409, "the table has moved on: look again")
            options = s.legal_options()
            if not isinstance(option, int) or isinstance(option, bool) or not 0 <= option < len(options):
                raise Refused(400, f"choose an option from 0 to {len(options) - 1}")
            try:
                self._apply(seat, options, option)
                while not s.is_terminal() and s.num_options() == 1:
                    self._apply(s.current_player(), s.legal_options(), 0)
                if s.is_terminal():  # saved before any page can see the end (not by the thread after)
                    self._finish()
            except (RecycleError, RecycleBug) as exc:
                self.error = seat_error(exc)
            self.hints.pop(seat, None)
            self.message[seat] = ""
            self._changed()
            self._computers()  # (under the lock: see _computers)

    def again(self, seat: int, claimed, new: bool) -> None:
        """After the end: the same deal again, or (``new``) a new one from a fresh secret."""
        self._must_be(seat, claimed)
        with self.cond:
            if not self.state.is_terminal():
                raise Refused(409, "the game is not over yet")
            deal = new_deal_secret() if new else self.deal
        self.start(deal)

    def _busy(self) -> bool:
        s = self.state
        return not s.is_terminal() and self.players[s.current_player()] is not None

    def undo(self, seat: int, claimed) -> None:
        """Take back the person's last decision (a table with one person only): the deal is
        played again to that point with the same choices and random numbers."""
        self._must_be(seat, claimed)
        if len(self.tokens) > 1:
            raise Refused(409, "undo is for a table with one person: the others have seen the move")
        with self.cond:
            if self._busy():
                raise Refused(409, "wait: a computer player is thinking")
            if not self.snapshots:
                self.message[seat] = "nothing to undo: you have not decided anything yet in this deal"
                self._changed()
                return
            hlen, rng_state, nrec, nlog = self.snapshots.pop()
            history = self.state.history[:hlen]
            self.events.clear()
            s = self._dealt()
            replay_choices(s, history)
            synced(s)
            self.state = s
            self.rng.setstate(rng_state)
            del self.recorder.decisions[nrec:]
            del self.log[nlog:]
            self.hidden = {d for d in self.hidden if d < s.decisions}
            for said in self.said.values():
                for d in [d for d in said if d >= s.decisions]:
                    del said[d]
            self.saved = None
            self.hints.clear()
            self.message[seat] = "took back your last decision"
            self._changed()

    def hint(self, seat: int, claimed) -> None:
        """Ask the strongest fair computer kind at the table, from the seat's view only. The
        request only queues it (``hints.HINTS``: one hint at a time in the studio, one per
        seat waiting, in the order asked); it thinks on a copy of the state, without the
        lock, and the seat's view shows it when it is ready."""
        self._must_be(seat, claimed)
        with self.cond:
            s = self.state
            if s.is_terminal() or s.current_player() != seat or self._busy():
                raise Refused(409, "a hint is for your turn")
            copy, d, generation = s.clone(track=True), s.decisions, self.generation
            spec, who = adviser(self.specs, seat)

            def work():
                try:
                    # a seed of its own, not derived from the deal's: a hint is no window on the seed
                    # ends when the seat has moved on, the table dealt again or HINT_SECONDS passed
                    deadline = time.monotonic() + HINT_SECONDS

                    def stop():
                        return self.generation != generation or self.state.decisions != d or time.monotonic() > deadline

                    got = hint(
                        _player_observation(copy, seat),
                        copy.legal_options(),
                        spec,
                        seed=secrets.randbits(64),
                        stop=stop,
                    )
                    failed = None
                except (RecycleError, RecycleBug, ValueError) as exc:
                    got, failed = None, seat_error(exc) if not isinstance(exc, ValueError) else str(exc)
                with self.cond:
                    self.hint_waiting.discard(seat)
                    if self.generation == generation and self.state.decisions == d:
                        if got is not None:
                            self.hints[seat] = (d, got, who)
                        else:
                            self.message[seat] = f"the hint failed: {failed}"
                    self._changed()

            HINTS.ask(self.tokens[seat], work)
            self.hint_waiting.add(seat)
            self._changed()

    # -- what a seat sees ---------------------------------------------------------------------
    def names(self, seat: int) -> list[str]:
        return ["you" if p == seat else ("person" if s == "human" else s) for p, s in enumerate(self.specs)]

    def seat_view(self, seat: int) -> dict:
        """Everything the seat's browser is sent (see the module docstring)."""
        with self.cond:
            return seat_view(self, seat)


def _player_observation(s, p: int, deduce: bool = False, true_cards: bool = False):
    """What a computer player (or a hint) at seat ``p`` decides from: a native state's deals
    worlds from a blind copy (``OutsideState.player_observation``; ``deduce``: with the others'
    earlier choices, made blind; ``true_cards``: a cheating seat's, the live observation of the
    twin, as the reference engine hands it: ``engine.runner.sees_true_cards``), a reference
    State's is its own."""
    return s.player_observation(p, deduce, true_cards) if is_native(s) else s.observation(p)


def seat_error(exc) -> str:
    """What a seat is told of an error: a game's error as it is (its place in the game file);
    an error of recycle's own without its place, which names the seed (the whole of it goes
    to the server's log)."""
    if isinstance(exc, RecycleBug):
        print(exc.format(), file=sys.stderr)
        return f"internal error: {exc.message} (a bug in recycle, not in the game; the server's log has the details)"
    return exc.format()


def owner_name(key: tuple, seat: int) -> str:
    """Who owns a location or storage, as a seat's page names it: ``you``, ``P1``, ``team T0``, ``table``."""
    kind, who = key
    if kind == "player":
        return "you" if who == seat else f"P{who}"
    return f"team T{who}" if kind == "team" else "table"


def location_rows(obs, seat: int) -> list[dict]:
    """The table as ``seat`` may see it: each non-empty location with its owner, its size and
    the names of its cards where the seat may see them (else no card at all)."""
    game = obs.game
    known: dict = {}
    for c, where in obs.known_locations().items():
        known.setdefault(where, []).append(c)
    rows = []
    for info in game.layout.infos:
        try:
            n = obs.count(info.index)
        except IndexError:
            continue
        if not n:
            continue
        owner = owner_name((info.owner_kind, info.owner), seat)
        row = {"owner": owner, "name": info.name, "count": n, "cards": None, "known": []}
        if obs.can_see(info.index):
            cards = obs.cards(info.index)
            if owner == "you" and info.kind != "vloc":  # a hand, sorted by suit and rank as on a terminal
                cards = sorted(cards, key=lambda c: card_key(game, c))
            row["cards"] = [game.card_name(c) for c in cards]
        elif info.index in known:
            row["known"] = [game.card_name(c) for c in known[info.index]]
        rows.append(row)
    return rows


def seat_view(table: Table, seat: int) -> dict:
    """The one message a seat receives (call with the table's lock held)."""
    s = table.state
    game = table.game
    over = s.is_terminal()
    obs = s.observation(seat)
    names = table.names(seat)
    busy = table._busy()
    to_move = None if over else s.current_player()
    view = {
        "game": game.name,
        "deal_at_table": table.dealt,
        "seat": seat,
        "players": names,
        "version": table.version,
        "decision": s.decisions,
        "to_move": to_move,
        "over": over,
        "thinking": busy,
        "locations": location_rows(obs, seat),
        # as the game names them, and where the terminal shows them: in their owner's block
        "storages": [{"owner": owner_name(key, seat), "text": text} for key, text in storage_texts(obs)],
        "history": narrative_lines(
            obs, table.events, table.log, 0, names, full=True, said=table.said.get(seat), hidden=table.hidden
        )[-HISTORY_LINES:],
        "options": [],
        "hint": None,
        "hint_pending": seat in table.hint_waiting,
        "undo": len(table.tokens) == 1,
        "message": table.message.get(seat, ""),
        "error": table.error,
        "result": None,
        # which engine steps the game: "played by: native code" (or the reference interpreter, and why)
        "engine": table.played_by().line(),
    }
    if not over and to_move == seat and not busy:
        # the words a seat may read: worked out in worlds dealt from its own information, so
        # that no hidden card and no value computed from one reaches its browser (engine/public.py)
        view["options"] = [o.describe() for o in public_options(s, s.legal_options())]
        got = table.hints.get(seat)
        if got is not None and got[0] == s.decisions:
            _, h, who = got
            view["hint"] = {
                "who": who,
                "choice": h.choice,
                "figures": h.figures(),
                "few": [h.few(i) for i in range(len(h.chances))],
                "advice": h.advice(who, h.choice + 1, view["options"][h.choice]),
            }
    if over:
        winners = s.winners()
        view["result"] = {
            "scores": s.returns(),
            "winners": winners,
            "reveal": reveal_lines(s, names),
            "record": table.saved,
            "you": "win" if winners == [seat] else "share" if seat in winners else "lose",
        }
    return view
