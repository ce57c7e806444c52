"""Reading the whole game into nodes (``elaborate``: a game's s-expression to a ``GameNode``):
the flow's nodes (blocks, conditionals, loops, let, choices, stages), the items and the game's
sections.

``Elaborator`` gathers every family's reading (``scalars``, ``numbers``, ``places``,
``groups``, ``actions``); a form's reading is its method ``e_<method>``, or, for a form kept
whole in a ``lang/forms/form_*.py`` module (the flow's forms: ``form_blocks``, ``form_loops``,
``form_choice``, ``form_stage``), the reading it registered with it (``form(reads=)``), found
through the form registry by the name of the method that compiles it (``read_as``;
``test_nodes.py`` checks every form has one). Like the compiler, an action or block with an
error is kept (``errors``) and stands as a ``Broken`` node while the rest is read, so that a
file's independent errors are reported together; the messages are the compiler's
(``lang/forms/flow.py``, ``engine/game.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...errors import RecycleCompileError, RecycleCompileErrors, Span
from .sexpr import MAX_ERRORS, Const as Folded, Scope, fail, head_of, is_atom, is_location_form
from .sexpr import KeptErrors, element_hint, is_storage_form, kw, literal_names, value_hint
from ..syntax.reader import INT, SYMBOL, VAR, Atom, SList, SourceFile
from .base import Broken, Kind, Node, Num, Word, form_node, sealed_registry
from .groups import GroupReading
from .numbers import NumberReading
from .places import PlaceReading
from .scalars import ScalarReading

When = form_node("When", "condition item", Kind.FLOW, None, "((CONDITION) ITEM): the item when it holds.")
Do = form_node("Do", "body", Kind.FLOW, "do", "(do (ITEM ...)): the items in order.", written="bare")
Offer = form_node("Offer", "collection variable item", Kind.FLOW, "any", "(any C 'V ITEM): an option each.")
Loop = form_node("Loop", "collection variable item", Kind.FLOW, "all", "(all C 'V ITEM): the item for each.")
Let = form_node("Let", "value variable item", Kind.FLOW, "let", "(let VALUE 'V ITEM).")
Choice = form_node(
    "Choice", "options", Kind.FLOW, "choice", "(choice (ITEM ...)): the player picks one.", written="bare"
)
Stage = form_node(
    "Stage",
    "team end body simultaneous",
    Kind.FLOW,
    "stage",
    "(stage player|team (end C) ITEM ...) or (stage player simultaneous (end C) ITEM ...).",
)


@dataclass(frozen=True, slots=True)
class Declare(Node):
    """``(declare VALUE 'NAME)``: ``value`` is folded (a ``Const``) when written out, and
    ``literal`` is then that value as written (a ``Num``, ``Word`` or ``Names``, with its
    span: the place a variant of the game rewrites); None for a computed value."""

    name: str
    value: Node
    literal: Node | None = field(default=None, kw_only=True, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class GameNode(Node):
    """A whole game read once: its declarations, the number of players (a node: a number or
    a declared constant), the rest of the setup, the flow, and the scoring. ``players_at``,
    ``setup_at`` and ``scoring_at`` are where ``(create players N)``, ``(setup ...)`` and
    ``(scoring ...)`` are written."""

    declares: tuple
    players: Node
    setup: tuple
    flow: tuple
    scoring_max: bool
    score: Node
    players_at: Span | None = field(default=None, kw_only=True, compare=False, repr=False)
    setup_at: Span | None = field(default=None, kw_only=True, compare=False, repr=False)
    scoring_at: Span | None = field(default=None, kw_only=True, compare=False, repr=False)


class Elaborator(ScalarReading, NumberReading, PlaceReading, GroupReading, KeptErrors):
    """Reads a game's forms into nodes (see the module docstring)."""

    def __init__(self, forms=None):
        self.forms = forms if forms is not None else sealed_registry()
        self.option_depth = 0
        self.errors: list = []
        self.max_errors = MAX_ERRORS

    # -- items -----------------------------------------------------------------------------
    def item(self, x, scope: Scope, allow_choice: bool = True):
        """An action, block, conditional, stage or choice; an error in it is kept."""
        try:
            return self.item_of(x, scope, allow_choice)
        except RecycleCompileErrors:
            raise
        except RecycleCompileError as exc:
            self.keep_error(exc)
            return Broken(exc, span=getattr(x, "span", None), source=x)

    def element_hint(self, coll) -> str | None:
        return element_hint(coll, self.forms.only)

    def value_hint(self, x, scope) -> str | None:
        return value_hint(x, self.forms.only)

    def item_of(self, x, scope, allow_choice):
        if not isinstance(x, SList) or not x.items:
            fail(f"expected an action, got {self.form_name(x) if isinstance(x, SList) else x}", x)
        first = x.items[0]
        if (
            isinstance(first, SList)
            and len(x.items) == 2
            and not is_location_form(first)
            and not is_storage_form(first)
        ):
            return self.read_as("c_conditional", x, scope)
        h = head_of(x)
        f = self.forms.lookup(Kind.ACTION, h) or self.forms.lookup(Kind.FLOW, h)
        if f is None:
            fail(f"expected an action or block, got {self.form_name(x)}", x)
        if h in ("choice", "stage") and (not allow_choice or self.option_depth):
            where = "inside the options of a choice" if self.option_depth else "here"
            fail(f"a ({h} ...) cannot stand {where} (only in a stage, at the top level or in a let)", x, h)
        return self.read_as(f.method, x, scope)

    # -- the game --------------------------------------------------------------------------
    def read_game(self, game) -> GameNode:
        """The whole game (``PreparedGame._compile``'s reading of its sections)."""
        if not isinstance(game, SList) or head_of(game) != "game":
            fail("a RECYCLE file holds one (game ...) form", game)
        items = list(game.items[1:])
        declares = []
        while items and head_of(items[0]) == "declare":
            d = items.pop(0)
            if len(d.items) != 3 or not is_atom(d.items[2], VAR):
                fail("expected (declare VALUE 'VARIABLE)", d, "declare")
            declares.append(d)
        if not items or head_of(items[0]) != "setup":
            fail("expected (setup ...) after the declarations", items[0] if items else game, "game")
        setup = items.pop(0)
        if not items or head_of(items[-1]) != "scoring":
            fail("the game must end with (scoring max|min EXPRESSION)", items[-1] if items else game, "game")
        scoring = items.pop()
        if not items:
            fail("the game needs at least one stage, choice or block after setup", game, "game")
        consts = {}
        for d in declares:
            value, name = d.items[1], d.items[2].value
            if isinstance(value, Atom) and value.kind == INT:
                consts[name] = Folded(value.value)
            elif isinstance(value, Atom) and value.kind == SYMBOL and not value.value.islower():
                consts[name] = Folded(value.value)
            elif literal_names(value) is not None:
                consts[name] = Folded(literal_names(value))
        scope = Scope(None, dict(consts))
        players = self.player_count(setup, scope)
        read = []
        for d in declares:
            name = d.items[2].value
            if name in consts:
                literal = self.literal(d.items[1])
                read.append(Declare(name, self.var(d.items[2], scope), literal=literal, span=d.span, source=d))
                continue
            try:
                read.append(Declare(name, self.value(d.items[1], scope), span=d.span, source=d))
            except RecycleCompileErrors:
                raise
            except RecycleCompileError as exc:
                self.keep_error(exc)
            scope = self.bind(scope, d.items[2], "declare", None, d.span)
        setup_items = tuple(self.item(i, scope, allow_choice=False) for i in setup.items[2:])
        for node in setup.items[2:]:
            if head_of(node) not in ("create", "repeat"):
                try:
                    fail("setup may only create teams and decks", node, "setup")
                except RecycleCompileError as exc:
                    self.keep_error(exc)
        flow = tuple(self.item(i, scope) for i in items)
        score = None
        try:
            if len(scoring.items) != 3 or not kw(scoring.items[1], "max", "min"):
                fail("expected (scoring max|min EXPRESSION)", scoring, "scoring")
            score = self.int_(scoring.items[2], scope)
        except RecycleCompileErrors:
            raise
        except RecycleCompileError as exc:
            self.keep_error(exc)
        self.raise_errors()
        is_max = scoring.items[1].value == "max"
        return GameNode(
            tuple(read),
            players,
            setup_items,
            flow,
            is_max,
            score,
            players_at=setup.items[1].span,
            setup_at=setup.span,
            scoring_at=scoring.span,
            span=game.span,
            source=game,
        )

    def literal(self, x):
        """A declared constant's value as written: a number, a NAME or a list of NAMEs."""
        if isinstance(x, Atom) and x.kind == INT:
            return Num(x.value, span=x.span, source=x)
        if isinstance(x, Atom) and x.kind == SYMBOL:
            return Word(x.value, span=x.span, source=x)
        return self.names(x)

    def player_count(self, setup: SList, scope: Scope):
        """The N of the setup's first form, ``(create players N)``: a number or a constant."""
        first = setup.items[1] if len(setup.items) > 1 else None
        if not (
            isinstance(first, SList)
            and len(first.items) == 3
            and kw(first.items[0], "create")
            and kw(first.items[1], "players")
        ):
            fail("setup must start with (create players N)", first or setup, "setup")
        return self.int_(first.items[2], scope)


def elaborate(source, forms=None) -> GameNode:
    """A game read once: ``source`` is a parsed file (``SourceFile``) or its ``(game ...)``
    form. Raises the compiler's positioned errors (all of a file's independent ones together,
    as ``RecycleCompileErrors``)."""
    game = source.forms[0] if isinstance(source, SourceFile) else source
    reader = Elaborator(forms)
    try:
        try:
            return reader.read_game(game)
        except (RecycleCompileError, RecycleCompileErrors):
            raise
        except Exception:
            # a reading that tripped over what an error it kept left (an item standing for
            # nothing): the file is wrong, and the errors kept say where (as the compiler does)
            if reader.errors:
                reader.raise_errors()
            raise
    except (RecycleCompileError, RecycleCompileErrors) as exc:
        if isinstance(source, SourceFile):
            exc.source = source.text
        raise
