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
import re
import sys
from pathlib import Path
from typing import Annotated

import typer

from ..engine.game import DEFAULT_MAX_STEPS, GameResult, players_stream, rank
from ..engine.runner import play_out, replay_choices
from ..env.engines import check_engine, played_by, reference_of, synced, table_state
from ..errors import RecycleBug, RecycleError, printable
from ..players import make_player
from ..players.human import HumanPlayer, adviser
from .options import GameArg, MaxStepsOpt, MaxWorkOpt, NumPlayersOpt
from .outputs import check_file
from .printing import terminal_of
from .rounds import RoundWatch, summary_lines
from .table import (
    MAX_NARRATIVE,
    display_order,
    narrative_lines,
    options_lines,
    received_lines,
    reveal_lines,
    said_words,
    table_lines,
)

DEFAULT_OPPONENTS = "ismcts:30"  # quick enough to wait for, and not a pushover
KEYS = "h hint · u undo · r record · q quit"
RED = re.compile(r"\S+[♥♦]")


class Quit(Exception):
    """The person quit (``q``), or the input ended (``eof``)."""

    def __init__(self, eof: bool = False):
        super().__init__("end of input" if eof else "quit")
        self.eof = eof


class Undo(Exception):
    """The person asked to take back their last decision."""


class Terminal:
    """Where the screen goes and keys come from: a rich console redrawn each turn on a
    terminal, plain lines (nothing cleared, no colour) when standard input is not one.

    Every line shown is made ``printable`` here: rich writes its colours and redraws to the
    stream under the CLI's printable one (``recycle.cli.printing``), so the text it shows
    (the game's name, a player's spec) must be escaped before it gets there."""

    def __init__(self, stdin=None, stdout=None, tty: bool | None = None):
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        if tty is None:
            tty = _isatty(self.stdin) and _isatty(self.stdout)
        self.tty = tty
        self.console = None
        if tty:
            from rich.console import Console

            self.console = Console(file=terminal_of(self.stdout), highlight=False, soft_wrap=True)

    def show(self, lines: list, clear: bool = False) -> None:
        """Print ``lines`` (str, or ``(style, str)``); ``clear`` starts a new screen (terminal)."""
        if self.console is None:
            for line in lines:
                print(printable(line[1] if isinstance(line, tuple) else line), file=self.stdout)
            self.stdout.flush()
            return
        from rich.text import Text

        if clear:
            self.console.clear()
        for line in lines:
            style, text = line if isinstance(line, tuple) else ("", line)
            t = Text(printable(text), style=style)
            t.highlight_regex(RED, "red")
            self.console.print(t)

    def ask(self, prompt: str) -> str | None:
        """One line typed by the person, stripped; None at the end of input."""
        prompt = printable(prompt)
        if self.console is not None:
            self.console.print(prompt, end="", style="bold", markup=False)
        else:
            print(prompt, end="", file=self.stdout, flush=True)
        try:
            line = self.stdin.readline()
        except (OSError, ValueError):
            return None
        if not line:
            if self.console is None:
                print(file=self.stdout)
            return None
        if self.console is None:  # not echoed: the key goes into the transcript
            print(printable(line.strip()), file=self.stdout)
        return line.strip()


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class Screen:
    """The interface of a ``HumanPlayer``: the table, the options, the keys (see the
    module docstring). Without a play session behind it (``recycle run --players human``)
    there is no undo and no account of the others' moves."""

    def __init__(self, term: Terminal, game, names: list[str], specs: list[str], deal: int):
        self.term = term
        self.game = game
        self.names = names
        self.specs = specs
        self.deal = deal
        self.message = ""
        self.hinted = None  # (decision, Hint, who gave it) of the decision waiting
        self.human = None  # the HumanPlayer asking this screen (it gives the hints)
        self.order: list[int] = []  # the options of the decision waiting, in the order shown
        self.chose: dict[int, str] = {}  # decision -> the words of the option the person chose

    # -- overridden by a play session -----------------------------------------------------
    def decision(self, view) -> int:
        return view.decisions_so_far

    def narrative(self, view) -> list[str]:
        return []

    def received(self, view) -> list[str]:
        return []

    def undo(self) -> None:
        self.message = "undo is only in `recycle play`"

    def record_lines(self, view) -> list[str]:
        return ["no record is kept here: `recycle play` keeps one"]

    def stop(self, eof: bool) -> None:
        """The person quit or the input ended: here the game stops, unsaved."""
        self.term.show([f"{'end of input' if eof else 'you quit'}: the game is stopped"])
        raise typer.Exit(1)

    # -- the loop of one decision ------------------------------------------------------------
    def choose(self, view, options) -> int:
        n = len(options)
        # shown in the order of the cards on the table (cards passed from a sorted hand, in
        # the hand's order); the number typed is the place shown, the index returned the option's
        self.order = display_order(view, options)
        while True:
            self.draw(view, options)
            key = self.term.ask(f"Your choice (1-{n}, h, u, r, q): ")
            if key is None:
                self.stop(eof=True)
            k = key.lower()
            if k.isdigit() and 1 <= int(k) <= n:
                self.message = ""
                self.hinted = None
                chosen = self.order[int(k) - 1]
                self.chose[self.decision(view)] = options[chosen].describe()
                return chosen
            if k.isdigit():
                self.message = f"there is no option {k}: choose 1 to {n}"
            elif k in ("h", "hint"):
                self.ask_hint(view, options)
            elif k in ("u", "undo"):
                self.undo()
            elif k in ("r", "record"):
                self.term.show([("bold", "The game so far, as you saw it:")] + self.record_lines(view))
                if self.term.tty and self.term.ask("Press Enter to go back to the table ") is None:
                    self.stop(eof=True)
            elif k in ("q", "quit"):
                self.stop(eof=False)
            else:
                shown = key if len(key) <= 20 else key[:20] + "..."
                self.message = f"{shown!r} is not a key here: type the number of an option (1 to {n}), or {KEYS}"

    def adviser(self, me: int) -> tuple[str, str]:
        """``(spec, who)``: who is asked for hints (``recycle.players.human.adviser``)."""
        return adviser(self.specs, me)

    def ask_hint(self, view, options) -> None:
        spec, who = self.adviser(view.player)
        self.term.show([("dim", f"asking {who} for a hint ...")])
        if self.human is None:
            self.message = "no hints here"
            return
        got = self.human.hint(spec, seed=self.deal * 1_000_003 + self.decision(view))
        self.hinted = (self.decision(view), got, who)
        place = self.order.index(got.choice) + 1 if got.choice in self.order else got.choice + 1
        self.message = got.advice(who, place, options[got.choice].describe())

    def draw(self, view, options) -> None:
        me = view.player
        lines = [
            ("bold reverse", f" {self.game.name} · deal #{self.deal} · decision {self.decision(view)} · you are P{me} ")
        ]
        lines += table_lines(view, self.names, self.deal)
        lines += [("bold cyan", line) for line in self.received(view)]
        story = self.narrative(view)
        if story:
            lines.append(("bold", "Since your last turn:"))
            if len(story) > MAX_NARRATIVE:
                lines.append(f"  ({len(story) - MAX_NARRATIVE + 1} earlier lines: r shows them)")
                story = story[-(MAX_NARRATIVE - 1) :]
            lines += story
        lines.append(("bold", f"Your turn, P{me}. Your options:"))
        figures = best = None
        order = self.order if len(self.order) == len(options) else list(range(len(options)))
        if self.hinted is not None and self.hinted[0] == self.decision(view):
            got = self.hinted[1]
            figures = [got.figure(k) if k < len(got.chances) else None for k in order]
            best = order.index(got.choice) if got.choice in order else None
            # a figure with its range (about 95%) and its tries: a bare 0% read as a certainty
            lines.append(
                ("dim", f"  (estimated chance of winning, its likely range and its tries, from {self.hinted[2]})")
            )
        for line in options_lines([options[k] for k in order], figures, best):
            lines.append(("cyan", line) if "<- hint" in line else line)
        lines.append(("dim", f"Keys: a number plays that option · {KEYS}"))
        if self.message:
            lines.append(("yellow", self.message))
        self.term.show(lines, clear=True)


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
        return table_state(self.game, self.deal, self.max_steps, self.engine, record=self.events, track=True)

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
