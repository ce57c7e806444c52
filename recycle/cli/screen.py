"""The screen of ``recycle play``: where the table is shown and keys are read (``Terminal``),
and the interface a ``HumanPlayer`` decides through (``Screen``: the table as the seat may see
it, the options in words, the keys). ``recycle.cli.play``'s ``PlaySession`` adds the deals,
undo and records (see its docstring for the keys)."""

from __future__ import annotations

import re
import sys

import typer

from ..errors import printable
from ..players.human import adviser
from .printing import terminal_of
from .table import (
    MAX_NARRATIVE,
    display_order,
    options_lines,
    table_lines,
)

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
