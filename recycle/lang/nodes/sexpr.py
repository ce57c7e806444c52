"""The shapes of the reader's s-expressions, as the elaborator tests them: keywords, atoms,
``(OWNER KIND NAME)`` locations and ``(HOLDER sort NAME)`` storages, literal lists of names and
ranges, a deck's attribute trees, the compile-time scope, and positioned compile errors that
name an unknown word of RECYCLE. These are the elaborator's tools (the one reader of ``SList``
besides the syntax room); ``lang/forms/shapes.py`` re-exports them for the modules that still
read forms themselves (issue 41)."""

from __future__ import annotations

import difflib
import itertools
from collections.abc import Callable

from ...errors import RecycleCompileError, RecycleCompileErrors
from ..syntax.reader import DOTDOT, INT, OP, SYMBOL, Atom, SList

MAX_COLLECTION = 200_000
MAX_ERRORS = 20  # the compile errors of one file reported together, at most
MAX_DECK_CELLS = 4_000_000  # attribute values written while expanding one deck's trees
STORAGE_SORTS = {"sto", "str", "points"}
LOCATION_KINDS = ("vloc", "iloc", "hloc", "oloc", "mem")

# every lowercase keyword of RECYCLE, for the hint of ``fail``: given by the form registry once
# it is sealed (``lang/forms/shapes.py`` registers ``known_words``), so that this room needs
# nothing of the rooms after it
_KNOWN_WORDS: list[Callable[[], frozenset]] = []


def set_known_words(words: Callable[[], frozenset]) -> None:
    """Register the function giving every keyword of RECYCLE (for ``unknown_word_hint``)."""
    _KNOWN_WORDS[:] = [words]


def fail(message: str, node, form: str | None = None):
    """Raise a positioned compile error about ``node``, naming an unknown word in it and the
    nearest known one (every compile error passes here: one place for the suggestion)."""
    raise RecycleCompileError(message + unknown_word_hint(node), getattr(node, "span", None), form=form)


def unknown_word_hint(node) -> str:
    """`` ('vlok' is not a word of RECYCLE; did you mean 'vloc'?)`` for the first keyword of
    ``node`` (itself, its items, then theirs) that the language does not know, else ''.
    Keywords are lowercase (a game's own NAMEs are uppercase), so any unknown one is a slip."""
    if not _KNOWN_WORDS:
        return ""
    known = _KNOWN_WORDS[0]()
    level = [node]
    for _ in range(3):
        for x in level:
            if isinstance(x, Atom) and x.kind == SYMBOL and x.value.islower() and x.value not in known:
                near = difflib.get_close_matches(x.value, sorted(known), n=1, cutoff=0.6)
                return f" ({x.value!r} is not a word of RECYCLE{f'; did you mean {near[0]!r}?' if near else ''})"
        level = [i for x in level if isinstance(x, SList) for i in x.items]
    return ""


def short(node, width: int = 60) -> str:
    """A form as written, cut to ``width`` characters (for messages)."""
    text = str(node)
    return text if len(text) <= width else text[: width - 3] + "..."


def is_atom(x, kind=None, value=None) -> bool:
    if not isinstance(x, Atom):
        return False
    return (kind is None or x.kind == kind) and (value is None or x.value == value)


def kw(x, *values) -> bool:
    """True if ``x`` is the keyword atom with one of ``values``."""
    return isinstance(x, Atom) and x.kind == SYMBOL and x.value in values


def head_of(x) -> str | None:
    if isinstance(x, SList) and x.items and isinstance(x.items[0], Atom) and x.items[0].kind in (SYMBOL, OP):
        return x.items[0].value
    return None


def is_storage_form(x) -> str | None:
    """``(HOLDER sto|str|points NAME)`` → the sort, else None."""
    if isinstance(x, SList) and len(x.items) == 3 and kw(x.items[1], *STORAGE_SORTS):
        return x.items[1].value
    return None


def is_location_form(x) -> bool:
    """``(OWNER KIND NAME)``."""
    return isinstance(x, SList) and len(x.items) == 3 and kw(x.items[1], *LOCATION_KINDS)


def literal_names(x) -> list[str] | None:
    """The names of a literal list of names ``(FIRST, SECOND, THIRD)``, else None."""
    if (
        isinstance(x, SList)
        and x.items
        and all(isinstance(i, Atom) and (i.is_name or i.kind == "comma") for i in x.items)
    ):
        return [i.value for i in x.items if i.kind == SYMBOL]
    return None


def element_hint(coll, only: dict) -> str | None:
    """What the elements of a collection form are, when its syntax tells (``only``: the
    registry's heads of one kind only): players; cards of a location, or of a view (a location
    form) whose first argument is a location; groups; integers."""
    h = head_of(coll)
    if kw(coll, "player") or (h == "other" and len(coll.items) == 2 and kw(coll.items[1], "player")):
        return "player"
    if is_location_form(coll) or (h in only["location"] and len(coll.items) > 1 and is_location_form(coll.items[1])):
        return "card"
    if h in only["groups"]:
        return "cards"
    if h == "range":
        return "int"
    return None


def value_hint(x, only: dict) -> str | None:
    """What a let-bound value is, when its syntax tells."""
    h = head_of(x)
    if is_atom(x, INT) or is_storage_form(x) == "sto" or h in only["integer"]:
        return "int"
    if is_location_form(x):
        return "loc"
    if h in only["groups"]:
        return "groups"
    if h in only["location"] or h == "range":
        return "list"
    return None


class Scope:
    """Compile-time variable scope: names to what binds them (an env slot, a binding), or to
    folded constants."""

    def __init__(self, parent: Scope | None = None, bindings: dict | None = None, hints: dict | None = None):
        self.parent = parent
        self.bindings = bindings or {}
        self.hints = hints or {}

    def hint(self, name: str) -> str | None:
        """What a variable is known to hold ("player", "card") when the binder tells."""
        s = self
        while s is not None:
            if name in s.bindings:
                return s.hints.get(name)
            s = s.parent
        return None

    def lookup(self, name: str):
        s = self
        while s is not None:
            if name in s.bindings:
                return s.bindings[name]
            s = s.parent
        return None

    def bind(self, name: str, what, hint: str | None = None) -> Scope:
        return Scope(self, {name: what}, {name: hint} if hint else None)

    def names(self) -> dict:
        out = {}
        chain = []
        s = self
        while s is not None:
            chain.append(s)
            s = s.parent
        for s in reversed(chain):
            out.update(s.bindings)
        return out


class Const:
    """A declared constant's folded value."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def deck_combinations(deck: SList) -> list[dict]:
    """The cards of a ``(deck ATTR ...)`` form: one attribute dict per card, in creation order.

    The card limit (``MAX_COLLECTION``) is checked at every level of the expansion, and the
    attribute values written in all are bounded too, so that a small but deeply nested tree
    fails at once instead of filling the memory."""
    trees = deck.items[1:]
    if not trees:
        fail("a deck needs at least one attribute", deck, "deck")
    budget = [MAX_DECK_CELLS]
    per_tree = [expand_attr(t, deck, budget) for t in trees]
    return _product(per_tree, deck, budget)


def _product(parts: list, deck, budget: list, base: dict | None = None) -> list[dict]:
    """Every combination of one dict from each of ``parts``, merged (onto ``base``)."""
    total = 1
    for p in parts:
        total *= len(p)
    if total > MAX_COLLECTION:
        fail(f"this deck has more than {MAX_COLLECTION} cards ({total})", deck, "deck")
    out = []
    for combo in itertools.product(*parts):
        card: dict = dict(base) if base else {}
        for part in combo:
            card.update(part)
        budget[0] -= len(card)
        if budget[0] < 0:
            fail(
                f"this deck's attribute trees are too large to expand (more than {MAX_DECK_CELLS} values)", deck, "deck"
            )
        out.append(card)
    return out


def expand_attr(tree, deck=None, budget: list | None = None) -> list[dict]:
    if budget is None:
        budget = [MAX_DECK_CELLS]
    if deck is None:
        deck = tree
    if (
        not isinstance(tree, SList)
        or len(tree.items) < 2
        or not (isinstance(tree.items[0], Atom) and tree.items[0].kind == SYMBOL)
    ):
        fail("expected an attribute (KEY (VALUE, VALUE ...)) or (KEY (VALUE ATTRIBUTE ...) ...)", tree, "deck")
    key = tree.items[0].value
    out: list[dict] = []
    for branch in tree.items[1:]:
        if not isinstance(branch, SList) or not branch.items:
            fail(f"expected values for {key}", branch, "deck")
        if all(isinstance(i, Atom) for i in branch.items):
            for i in branch.items:
                if i.kind == SYMBOL or i.kind == INT:
                    out.append({key: str(i.value)})
                elif i.kind != "comma":
                    fail(f"unexpected {i} in the values of {key}", i, "deck")
            budget[0] -= len(branch.items)
        else:
            value = branch.items[0]
            if not isinstance(value, Atom) or value.kind not in (SYMBOL, INT):
                fail(f"expected a value of {key}", value, "deck")
            subs = [expand_attr(t, deck, budget) for t in branch.items[1:]]
            out.extend(_product(subs, deck, budget, {key: str(value.value)}))
        if len(out) > MAX_COLLECTION:
            fail(f"this deck has more than {MAX_COLLECTION} cards", deck, "deck")
        if budget[0] < 0:
            fail(
                f"this deck's attribute trees are too large to expand (more than {MAX_DECK_CELLS} values)", deck, "deck"
            )
    return out


class KeptErrors:
    """The compile errors of a file found so far (``errors``), kept so that its independent
    errors are reported together (``recycle check``): the elaborator's and the compiler's."""

    errors: list
    max_errors = MAX_ERRORS

    def keep_error(self, exc: RecycleCompileError) -> None:
        """Keep a compile error; at ``max_errors`` the search ends."""
        self.errors.append(exc)
        if len(self.errors) >= self.max_errors:
            raise RecycleCompileErrors(self.errors, more=True)

    def raise_errors(self) -> None:
        """Raise the errors kept so far: the one error itself, or all of them together."""
        if len(self.errors) == 1:
            raise self.errors[0]
        if self.errors:
            raise RecycleCompileErrors(self.errors)


def literal_range(x) -> tuple[int, int] | None:
    """(A, B) of ``(range A..B)`` with integer ends written out, else None."""
    if (
        head_of(x) == "range"
        and len(x.items) == 4
        and is_atom(x.items[1], INT)
        and is_atom(x.items[2], DOTDOT)
        and is_atom(x.items[3], INT)
    ):
        return x.items[1].value, x.items[3].value
    return None


def declared_forms(source) -> dict:
    """The value form of each of a game source's ``(declare VALUE 'NAME)``, by NAME."""
    game = source.forms[0] if source is not None and source.forms else None
    if head_of(game) != "game":
        return {}
    return {
        d.items[2].value: d.items[1]
        for d in game.items[1:]
        if head_of(d) == "declare" and len(d.items) == 3 and is_atom(d.items[2], "var")
    }
