"""``recycle play``: a person at the table against the computer players.

    recycle play games/schwimmen-lives.rcy                  you are P0; the others ismcts:30
    recycle play games/hearts.rcy --seat 2 --players pimc:200 --deal 4711
    recycle play mygame.rcy --players greedy,random --record me.json

The person is a ``HumanPlayer`` (``recycle.players.human``) whose interface is a
``Screen``: it shows the table as the seat may see it (``recycle.cli.table``), what
happened since the seat's last turn (its own moves with one option told as forced), and
the options in words (those one form offers in the order their cards are shown), and reads
a key: a number plays that option, ``h`` asks for a hint (``Screen.adviser``: the strongest
fair kind at the table, with at least 200 iterations, and the screen says who: ``P2's
ismcts:300`` or ``an ismcts:200 adviser``), ``u`` takes back the seat's last decision (the
deal is played again to that point: the same deal, the same earlier choices and the same
random numbers for the computer players), ``r`` shows the game so far, ``q`` quits and
saves the record (to ``--record``, else into ``study.records.records_dir()``:
``recycle/records`` in the user's data folder). On a terminal the screen is redrawn with
rich each turn; when standard input is not a terminal it is printed as plain numbered
lines, so that a game can be scripted. The game runs through the one runner,
``recycle.play_out``, so a saved record replays with ``recycle replay``.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Annotated

import typer

from ..engine.game import DEFAULT_MAX_STEPS, GameResult, players_stream, rank
from ..engine.runner import play_out, replay_choices
from ..env.engines import check_engine, played_by, reference_of, synced, table_state
from ..errors import RecycleBug, RecycleError
from ..players import make_player
from ..players.human import HumanPlayer
from .options import GameArg, MaxStepsOpt, MaxWorkOpt, NumPlayersOpt
from .outputs import check_file
from .rounds import RoundWatch, summary_lines
from .screen import Quit, Screen, Terminal, Undo
from .table import (
    MAX_NARRATIVE,
    narrative_lines,
    received_lines,
    reveal_lines,
    said_words,
)

DEFAULT_OPPONENTS = "ismcts:30"  # quick enough to wait for, and not a pushover


class PlaySession(Screen):
    """Deals of one game between the person at ``seat`` and computer players (see the
    module docstring); the game's state, its events, the decisions so far and what undo
    needs to go back."""

    def __init__(
        self,
        term: Terminal,
        game,
        path,
        seat: int,
        specs: list[str],
        deal: int,
        record: Path | None = None,
        max_steps: int = DEFAULT_MAX_STEPS,
        recordable: bool = True,
        engine: str = "auto",
    ):
        names = ["you" if p == seat else s for p, s in enumerate(specs)]
        super().__init__(term, game, names, specs, deal)
        self.path = path
        self.seat = seat
        self.record = record
        self.max_steps = max_steps
        self.human = HumanPlayer(self)
        self.saved: list[Path] = []
        self.replay_with = ""  # the arguments of `recycle replay` for the record saved last
        self.deals_played = 0
        self.recordable = recordable  # False: the game is not the file as it is (--num-players), no record
        # auto by default: native code steps the game when it builds here, and the look-ahead seats
        # and hints play their worlds out natively from a blind copy (recycle/native/blind.py)
        self.engine = check_engine(engine)
        self.engine_said = False  # "played by: ..." is said once, on the first screen

    # -- a deal -------------------------------------------------------------------------------
    def start(self, deal: int) -> None:
        """Deal ``deal`` (its number is the seed: the same number, the same cards)."""
        from ..study.records import Recorder

        self.deal = deal
        self.players = [self.human if p == self.seat else make_player(s) for p, s in enumerate(self.specs)]
        self.rng = players_stream(deal)  # as PreparedGame.play: records replay
        self.recorder = Recorder(self.game)
        self.log: list[tuple] = []  # (decision, player, options, chosen)
        self.chose = {}
        self.hidden: set = set()  # the decisions of simultaneous stages (narrative_lines)
        self.snapshots: list[tuple] = []  # what undo needs, at each of the person's decisions
        self.message = ""
        self.hinted = None
        self.state = self._new_state()
        self.rounds = RoundWatch(self.game)
        if not self.engine_said:
            self.engine_said = True
            self.message = played_by(self.state, self.engine).line()

    def _new_state(self):
        self.events: list = []
        # a searching seat or adviser (ISMCTS) searches whole in machine code from the table's
        # blind copy when the game's search module steps the table
        advisers = [*self.players, make_player(self.adviser(self.seat)[0])]
        search = any(getattr(p, "searches", False) for p in advisers)
        return table_state(
            self.game, self.deal, self.max_steps, self.engine, record=self.events, track=True, search=search
        )

    def play_deal(self) -> None:
        """Play the deal to its end (``Quit`` if the person quits)."""
        while True:
            try:
                play_out(self.state, self.players, self.rng, self._on_decision)
                synced(self.state)  # (a native state's events of the end)
                return
            except Undo:
                self._go_back()

    def _on_decision(self, state, p, options, i) -> None:
        self.rounds.feed(self.events)
        self.rounds.at_decision(state)
        for rnd in self.rounds.untold():
            self.round_over(rnd)
        if p == self.seat and len(options) > 1:
            self.snapshots.append(
                (len(state.history), self.rng.getstate(), len(self.recorder.decisions), len(self.log))
            )
        if p == self.seat:
            # the person's own moves are told in the game's words where it names them (the
            # words the person saw; a forced move's as the person would have been told it)
            from ..engine.describe import option_name

            if option_name(state.game, options[i].steps) is None:
                self.chose.pop(state.decisions, None)
            elif len(options) == 1:
                self.chose[state.decisions] = said_words(state, options, 0)
        if hasattr(reference_of(state).waiting, "hide_pending"):  # a simultaneous stage's decision (told as unseen)
            self.hidden.add(state.decisions)
        self.recorder.on_decision(state, p, options, i)
        self.log.append((state.decisions, p, len(options), i))

    def stop(self, eof: bool) -> None:
        raise Quit(eof)

    def undo(self) -> None:
        if not self.snapshots:
            self.message = "nothing to undo: you have not decided anything yet in this deal"
            return
        raise Undo()

    def _go_back(self) -> None:
        """Play the deal again up to the person's last decision (same choices, same random
        numbers for the computer players): the person then decides it again."""
        hlen, rng_state, nrec, nlog = self.snapshots.pop()
        history = self.state.history[:hlen]
        s = self._new_state()
        replay_choices(s, history)
        self.state = s
        self.rounds.rewind(self.events, s.decisions)
        self.rng.setstate(rng_state)
        del self.recorder.decisions[nrec:]
        del self.log[nlog:]
        self.chose = {d: w for d, w in self.chose.items() if d < s.decisions}
        self.hidden = {d for d in self.hidden if d < s.decisions}
        self.hinted = None
        self.message = "took back your last decision"

    # -- what the screen shows -----------------------------------------------------------------
    def decision(self, view) -> int:
        return self.state.decisions

    def narrative(self, view) -> list[str]:
        return narrative_lines(
            view, self.events, self.log, self.since(), self.names, said=self.chose, hidden=self.hidden
        )

    def since(self) -> int:
        """The person's last decision of two or more options (0 before the first)."""
        mine = [d for d, p, n, _ in self.log if p == self.seat and n > 1]
        return mine[-1] if mine else 0

    def received(self, view) -> list[str]:
        return received_lines(view, self.events, self.since())

    def round_over(self, rnd) -> None:
        """Round ``rnd`` ended (its cards were gathered; ``rounds``): show what happened since
        the person's last turn and what the round changed, and wait for Enter (on a
        terminal; plain lines go on, so that a script's keys stay the same)."""
        view = self.state.observation(self.seat)
        lines = [("bold reverse", f" {self.game.name} · deal #{self.deal} · round {rnd.number} is over ")]
        # every move of the round's end (the hands shown, the cards gathered): not cut short
        story = narrative_lines(
            view,
            self.events[: rnd.upto],
            self.log,
            self.since(),
            self.names,
            full=True,
            said=self.chose,
            hidden=self.hidden,
        )[-MAX_NARRATIVE:]
        if story:
            lines += [("bold", "The last moves:")] + story
        lines.append(("bold", f"Round {rnd.number} (decisions {rnd.first} to {rnd.last}), what it changed:"))
        lines += summary_lines(self.game, rnd, self.names, self.seat)
        self.term.show(lines, clear=True)
        if self.term.tty:
            key = self.term.ask(f"Press Enter for round {rnd.number + 1} (q quits) ")
            if key is None or key.lower() in ("q", "quit"):
                raise Quit(eof=key is None)

    def record_lines(self, view) -> list[str]:
        players = ", ".join(f"P{p} {n}" for p, n in enumerate(self.names))
        return [f"{self.game.name}, deal #{self.deal}; {players}"] + narrative_lines(
            view, self.events, self.log, 0, self.names, full=True, said=self.chose, hidden=self.hidden
        )

    # -- records -------------------------------------------------------------------------------
    def record_path(self, finished: bool) -> Path | None:
        """Where this deal's record goes: --record (a second deal adds -2, ...); after a
        quit without --record, GAME-deal-N.json in the records folder of the user's data
        folder (``records_dir``); None: not saved."""
        from ..study.records import records_dir

        if not self.recordable:
            return None
        if self.record is None:
            folder = records_dir()
            return None if finished or folder is None else folder / f"{self.game.name}-deal-{self.deal}.json"
        if self.deals_played == 0:
            return self.record
        return self.record.with_name(f"{self.record.stem}-{self.deals_played + 1}{self.record.suffix}")

    def save(self, finished: bool) -> Path | None:
        """Write this deal's record (finished or not); the path written, or None."""
        from ..study.records import write_record

        out = self.record_path(finished)
        if out is None:
            return None
        s = self.state
        if finished:
            scores = s.returns()
            ranks, winners = rank(scores, self.game.scoring_max)
            result = GameResult(self.deal, scores, ranks, winners, s.decisions, s.options_total, s.steps, s)
            rec = self.recorder.finish(result, self.path, self.specs, self.max_steps)
        else:
            rec = self.recorder.finish_unfinished(s, self.path, self.specs, self.max_steps)
        try:
            if self.record is None:
                out.parent.mkdir(parents=True, exist_ok=True)
            elsewhere = write_record(rec, out)
        except OSError as exc:
            self.term.show([f"error: cannot write the game record {out}: {exc.strerror or exc}"])
            return None
        self.saved.append(out)
        self.replay_with = f"{out}" + ("" if elsewhere is None else f" --game-folder {elsewhere}")
        return out

    # -- the end of a deal ---------------------------------------------------------------------
    def game_over(self) -> str:
        """Show every card, the scores and the winners; ask what next: 'a' (the same deal
        again), 'n' (a new deal) or 'q'."""
        s = self.state
        view = s.observation(self.seat)
        lines = [("bold reverse", f" {self.game.name} · deal #{self.deal} · game over ")]
        story = self.narrative(view)[-MAX_NARRATIVE:]
        if story:
            lines += [("bold", "The last moves:")] + story
        self.rounds.feed(self.events)
        last = self.rounds.finish()
        rounds = self.rounds.rounds
        if len(rounds) > 1:
            lines.append(
                ("bold", f"Round {last.number}, the last (decisions {last.first} to {s.decisions}), what it changed:")
            )
            lines += summary_lines(self.game, last, self.names, self.seat)
            lines.append(("bold", "The deal of every round, revealed (at its first decision):"))
            for rnd in rounds:
                lines.append(f"  Round {rnd.number} (decision {rnd.first})")
                lines += [f"    {label:<14}{' '.join(cards)}" for label, cards in rnd.deal.items()]
        elif self.recorder.deal:
            lines.append(("bold", "The deal, revealed (at the first decision):"))
            lines += [f"  {label:<14}{' '.join(cards)}" for label, cards in self.recorder.deal.items()]
        lines.append(("bold", "Every card now, revealed:"))
        lines += reveal_lines(s, self.names)
        me = self.seat
        lines.append(
            ("bold green", "You win!")
            if me in s.winners() and len(s.winners()) == 1
            else ("bold green", "You share the win.")
            if me in s.winners()
            else ("bold", "You did not win.")
        )
        out = self.save(finished=True)
        if out is not None:
            lines.append(f"Game record saved to {out} (recycle replay {self.replay_with})")
        self.term.show(lines, clear=True)
        nxt = self.deal + 1
        while True:
            key = self.term.ask(f"Play again? a = deal #{self.deal} again, n = new deal #{nxt}, q = quit: ")
            if key is None or key.lower() in ("q", "quit"):
                return "q"
            if key.lower() in ("a", "n"):
                return key.lower()
            self.term.show([("yellow", f"{key!r}: type a, n or q")])

    def run(self, deal: int) -> None:
        """Deals until the person quits."""
        while True:
            self.start(deal)
            try:
                self.play_deal()
            except Quit as q:
                out = self.save(finished=False)
                why = "end of input" if q.eof else "you quit"
                where = f"; the game so far is saved to {out} (recycle replay {self.replay_with})" if out else ""
                self.term.show([f"{why} at decision {self.state.decisions} of deal #{self.deal}{where}"])
                return
            choice = self.game_over()
            self.deals_played += 1
            if choice == "q":
                return
            deal = self.deal if choice == "a" else self.deal + 1


def seat_specs(spec: str | None, nplayers: int, seat: int) -> list[str]:
    """One spec per seat: ``human`` at ``seat``, the others from ``spec`` (comma-separated,
    for the other seats in order, the last repeating; ``DEFAULT_OPPONENTS`` if none). A
    list with ``human`` at ``seat`` itself (as ``run --players`` takes it) is read the same."""
    names = [p.strip() for p in (spec or "").split(",") if p.strip()]
    if "human" in names and names.count("human") == 1 and names.index("human") == seat:
        names.pop(seat)
    names = names or [DEFAULT_OPPONENTS]
    if len(names) > max(1, nplayers - 1):
        raise ValueError(f"{len(names)} computer players given for the {nplayers - 1} other seats")
    for name in names:
        if name.partition(":")[0] == "human":
            raise ValueError("the other seats are computer players: one person plays at --seat")
        make_player(name)  # a bad kind or budget is said now
    out, k = [], 0
    for p in range(nplayers):
        if p == seat:
            out.append("human")
        else:
            out.append(names[min(k, len(names) - 1)])
            k += 1
    return out


def attach_people(players: list, specs: list[str], game, seed: int) -> None:
    """Give every ``human`` seat of ``recycle run`` a terminal ``Screen`` to ask the person."""
    term = None
    for p, pl in enumerate(players):
        if isinstance(pl, HumanPlayer) and pl.ui is None:
            term = term or Terminal()
            names = ["you" if q == p else s for q, s in enumerate(specs)]
            pl.ui = Screen(term, game, names, specs, seed)
            pl.ui.human = pl


def register(app: typer.Typer, fail, load) -> None:
    """Add ``recycle play`` to ``app``."""

    @app.command()
    def play(
        game: GameArg,
        seat: Annotated[int, typer.Option("--seat", min=0, help="Your seat (P0 is the first player).")] = 0,
        players: Annotated[
            str | None,
            typer.Option(
                "--players",
                help=f"The computer players of the other seats in order, comma-separated (the last "
                f"repeats): random, greedy, pimc, ismcts, omniscient (cheats), with an optional "
                f"budget. Default {DEFAULT_OPPONENTS}.",
                show_default=False,
            ),
        ] = None,
        deal: Annotated[
            int | None,
            typer.Option(
                "--deal",
                help="The deal number (the seed): the same number deals the same cards. Default: a new random deal.",
                show_default=False,
            ),
        ] = None,
        record: Annotated[
            Path | None,
            typer.Option(
                "--record",
                help="Write each deal's game record (JSON) here; `recycle replay` plays it back. "
                "A record holds the seed and every card: a spoiler by design. "
                "Without it, a game you quit is saved as GAME-deal-N.json in the records folder of "
                "your data folder ($XDG_DATA_HOME/recycle/records, by default "
                "~/.local/share/recycle/records).",
                show_default=False,
            ),
        ] = None,
        max_steps: MaxStepsOpt = DEFAULT_MAX_STEPS,
        max_work: MaxWorkOpt = None,
        num_players: NumPlayersOpt = None,
        engine: Annotated[
            str,
            typer.Option(
                "--engine",
                help="auto (the default: native code when the game builds here, else the reference "
                "interpreter; the first screen says which), native, reference: the same game either way.",
            ),
        ] = "auto",
    ):
        """Play a game yourself against computer players that never peek.

        Keys: a number plays that option, h a hint, u undo, r the game so far, q quit (the
        game is saved). Plain numbered lines when standard input is not a terminal."""
        check_file(record, "game record")
        if record is not None and num_players is not None:
            typer.echo("error: --record replays the game file as it is; it cannot be used with --num-players", err=True)
            raise typer.Exit(2)
        try:
            g = load(game, max_work, num_players)
        except (RecycleError, RecycleBug) as exc:
            fail(exc)
            return
        if seat >= g.nplayers:
            typer.echo(f"error: --seat {seat}: {g.name} has seats 0 to {g.nplayers - 1}", err=True)
            raise typer.Exit(2)
        try:
            specs = seat_specs(players, g.nplayers, seat)
        except ValueError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        number = deal if deal is not None else random.SystemRandom().randrange(1, 100_000)
        try:
            check_engine(engine)
        except ValueError as exc:
            typer.echo(f"error: --engine: {exc}", err=True)
            raise typer.Exit(2) from None
        session = PlaySession(
            Terminal(), g, game, seat, specs, number, record, max_steps, recordable=num_players is None, engine=engine
        )
        if num_players is not None:
            typer.echo(
                f"note: {g.nplayers} players (--num-players): a record replays the game file as it is, "
                "so this game is not recorded",
                err=True,
            )
        from ..native import NativeUnavailable, NativeUnsupported

        try:
            session.run(number)
        except (RecycleError, RecycleBug) as exc:
            fail(exc)
        except (NativeUnsupported, NativeUnavailable) as exc:  # (--engine native only)
            typer.echo(f"error: --engine native: {exc}", err=True)
            raise typer.Exit(1) from None
