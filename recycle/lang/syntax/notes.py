"""Structured comments: a game's own words for its options and storages.

A comment that starts with ``;@`` (``reader.NOTE_PREFIX``) is a *note*. Being a comment, it
changes nothing in the rules, and CardStock and older readers ignore it. Four notes exist:

* ``;@ name: WORDS`` names an option of a choice: the one whose form ends on the note's line,
  before the note (``(inc (game sto PASS)) ;@ name: pass``), else the next one that starts
  after the note (the note on the line or lines just before the option). Its chooser is told
  WORDS instead of the words derived from what the option does; an option that binds a card
  (one inside an ``(any ...)``) is told ``WORDS: the cards`` (``swap: 9♠ for 10♣``). WORDS may
  instead name the values the option binds: ``;@ name: bid {B}`` for ``(any (range 0..5) 'B
  ...)`` is told ``bid 3`` (a card is named only where the chooser sees it).
* ``;@ hide: NAME ...`` hides storages (every owner's) from the play screen's table and its
  account of the game: bookkeeping a player has no use for (``SEATS``, ``BEST``).
* ``;@ label: NAME "words" [VALUE="words" ...]`` shows a storage as words (``"passes in a
  row"``), and optionally some of its values as words (``3="to the right"``).
* ``;@ summary: WORDS`` says what the game is, for its page (``recycle page``); several such
  lines make one text, in their order. It is shown as text, never as markup.

A note that is not one of these, or is malformed, is a warning with its position
(``recycle check``), never an error: the game plays the same with or without its notes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from types import MappingProxyType

from ...errors import Span, printable
from .reader import SYMBOL, VAR, Atom, SList, SourceFile

_KIND = re.compile(r"\s*([A-Za-z]+)\s*:(.*)$", re.S)
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*$")
_LABEL = re.compile(r'\s*([A-Za-z][A-Za-z0-9_]*)\s+"([^"]+)"(.*)$', re.S)
_VALUE = re.compile(r'\s*(-?[0-9]+|[A-Za-z][A-Za-z0-9_]*)="([^"]*)"')
MAX_WORDS = 80  # characters of a name or label: they are shown on one line with the rest


@dataclass(frozen=True)
class NoteWarning:
    """A structured comment that is not understood, with its position."""

    span: Span
    message: str

    def __str__(self) -> str:
        return f"{self.span}: warning: {self.message}"


@dataclass(frozen=True)
class GameWords:
    """What a game's notes say, as plain frozen data (a player may read it: it is the
    rules' text). ``names``: option form ``(line, column)`` -> ``(end, words, binds)``;
    ``hidden``: storage names; ``labels``: storage name -> words; ``values``: storage name
    -> {value as text: words}."""

    names: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    hidden: frozenset = frozenset()
    labels: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    values: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    summary: str = ""  # the ``;@ summary:`` lines, joined

    def option_name(self, span) -> tuple | None:
        """``(words, binds)`` of the named option whose form holds ``span`` (the innermost
        one), or None."""
        if not self.names:
            return None
        at, best = (span.line, span.column), None
        end = (span.end_line, span.end_column)
        for start, (stop, words, binds) in self.names.items():
            if start <= at and end <= stop and (best is None or start > best[0]):
                best = (start, words, binds)
        return None if best is None else best[1:]

    def slot(self, slot: str) -> str | None:
        """A storage label (``SEAT(P1)``: its name, then the owner) in the game's words
        (``P1's seat`` where SEAT is labelled "seat"); None for a hidden storage."""
        name, paren, owner = slot.partition("(")
        if name in self.hidden:
            return None
        label = self.labels.get(name)
        if label is None:
            return slot
        return f"{owner[:-1]}'s {label}" if paren and owner.endswith(")") else label

    def value(self, slot: str, v) -> str:
        """A storage's value in the game's words (``3`` -> ``to the right``), else as it is."""
        words = self.values.get(slot.partition("(")[0])
        return str(v) if words is None else words.get(str(v), str(v))


NO_WORDS = GameWords()


def _walk(node):
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, SList):
            stack.extend(reversed(n.items))


def _options(game_form) -> list:
    """The option forms of every choice: the items of ``(choice (ITEM ...))``, in text order."""
    out: list = []
    for n in _walk(game_form):
        if isinstance(n, SList) and n.head == "choice" and len(n.items) > 1 and isinstance(n.items[1], SList):
            out.extend(i for i in n.items[1].items if isinstance(i, SList))
    return sorted(out, key=lambda f: (f.span.line, f.span.column))


def _storages(game_form) -> set:
    """The names of the storages the game uses (``(OWNER sto NAME)``, ``(OWNER str NAME)``)."""
    out = set()
    for n in _walk(game_form):
        if (
            isinstance(n, SList)
            and len(n.items) == 3
            and isinstance(n.items[1], Atom)
            and n.items[1].kind == SYMBOL
            and n.items[1].value in ("sto", "str")
            and isinstance(n.items[2], Atom)
            and n.items[2].kind == SYMBOL
        ):
            out.add(n.items[2].value)
    return out


PLACE = re.compile(r"\{([A-Z][A-Z0-9_]*)\}")


def _bound(form) -> set:
    """The variables the ``(any C 'V ...)`` forms inside ``form`` bind (an option per value)."""
    return {
        n.items[2].value
        for n in _walk(form)
        if isinstance(n, SList)
        and n.head == "any"
        and len(n.items) > 2
        and isinstance(n.items[2], Atom)
        and n.items[2].kind == VAR
    }


_LEAD = re.compile(r"[\s(]*(choice[\s(]*)?$")


def _named_option(options: list, span: Span, lines: list):
    """The option a ``name:`` note at ``span`` names (see the module docstring), or None:
    the last option form ending on its line before it, else the next one when only comments,
    blank lines and the opening of its choice stand between."""
    same = [f for f in options if f.span.end_line == span.line and f.span.end_column <= span.column]
    if same:
        return same[-1]
    after = [f for f in options if f.span.line > span.line]
    if not after:
        return None
    f = after[0]
    between = lines[span.line : f.span.line - 1]
    if any(ln.strip() and not ln.lstrip().startswith(";") for ln in between):
        return None
    if f.span.line - 1 >= len(lines) or not _LEAD.match(lines[f.span.line - 1][: f.span.column - 1]):
        return None
    return f


def _shown(text: str, limit: int = MAX_WORDS + 30) -> str:
    """A note as a warning quotes it: whole (its quoted words with their closing quote) up to
    ``limit`` characters, longer ones cut with '…' so the cut is seen."""
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def read_notes(source: SourceFile) -> tuple[GameWords, list]:
    """The ``GameWords`` of ``source``'s notes, and a ``NoteWarning`` for each note not
    understood (the notes that are understood still count)."""
    if not source.notes or not source.forms:
        return NO_WORDS, []
    game = source.forms[0]
    options = _options(game)
    lines = source.text.splitlines()
    storages = _storages(game)
    names: dict = {}
    hidden: set = set()
    labels: dict = {}
    values: dict = {}
    summary: list = []
    warns: list = []

    def warn(span, quoted: str, why: str):
        # the file's text is untrusted: escaped before it is ever printed
        warns.append(NoteWarning(span, printable(f"structured comment ';@ {quoted}' {why}")))

    for span, text in source.notes:
        m = _KIND.match(text)
        kind = m.group(1).lower() if m else ""
        body = m.group(2).strip() if m else ""
        shown = _shown(text)
        if kind == "name":
            if not body or len(body) > MAX_WORDS:
                warn(span, shown, f"ignored: a name is 1 to {MAX_WORDS} characters of words")
                continue
            form = _named_option(options, span, lines)
            if form is None:
                warn(
                    span,
                    shown,
                    "ignored: no option of a choice follows it (on the next line) or ends before it on its line",
                )
                continue
            key = (form.span.line, form.span.column)
            if key in names:
                warn(span, shown, f"ignored: the option at {key[0]}:{key[1]} is named already")
                continue
            bound = _bound(form)
            unbound = [v for v in PLACE.findall(body) if v not in bound]
            if unbound:
                warn(span, shown, f"ignored: {{{unbound[0]}}} is no variable the option binds with (any ...)")
                continue
            names[key] = ((form.span.end_line, form.span.end_column), body, bool(bound))
        elif kind == "hide":
            words = body.split()
            if not words:
                warn(span, shown, "ignored: hide names the storages to hide (;@ hide: SEATS BEST)")
            for w in words:
                if not _NAME.match(w) or w not in storages:
                    warn(span, f"hide: {w[:30]}", f"ignored: the game has no storage {w[:30]}")
                else:
                    hidden.add(w)
        elif kind == "label":
            lm = _LABEL.match(body)
            if not lm or len(lm.group(2)) > MAX_WORDS:
                warn(span, shown, 'ignored: expected ;@ label: NAME "words" [VALUE="words" ...]')
                continue
            name, words, rest = lm.groups()
            if name not in storages:
                warn(span, shown, f"ignored: the game has no storage {name}")
                continue
            labels[name] = words
            pairs = {}
            while rest.strip():
                vm = _VALUE.match(rest)
                if not vm:
                    warn(
                        span,
                        f"label: {name} ...",
                        f'value words ignored from {rest.strip()[:20]!r}: expected VALUE="words"',
                    )
                    break
                pairs[vm.group(1)] = vm.group(2)
                rest = rest[vm.end() :]
            if pairs:
                values[name] = MappingProxyType(pairs)
        elif kind == "summary":
            if body:
                summary.append(body)
        else:
            warn(span, shown, "not understood: expected ;@ name:, ;@ hide:, ;@ label: or ;@ summary:")
    return GameWords(
        MappingProxyType(names),
        frozenset(hidden),
        MappingProxyType(labels),
        MappingProxyType(values),
        " ".join(summary),
    ), warns
