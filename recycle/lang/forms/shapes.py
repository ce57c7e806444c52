"""Shared pieces of the compiler: shape tests on forms, errors with positions, scopes,
limits, and small helpers that fuse or describe closures.
"""

from __future__ import annotations

import difflib
import itertools
import re
from collections.abc import Callable

from ...errors import RecycleCompileError, RecycleRuntimeError, Span, StepLimitExceeded
from .registry import Kind, mention, registry
from ..syntax.reader import COMMA, DOTDOT, INT, OP, SYMBOL, Atom, SList
from .values import KINDS, Card, Groups, PLoc, PlayerId, TeamId

MAX_COLLECTION = 200_000
MAX_INT = 2**63 - 1
MAX_TUPLE = 64
# a leaf form (one without a loop of the game inside: sum, partition of a location) reading at
# most SMALL cards is paid for by the form's own unit of work; beyond, each card costs a unit
SMALL = 8  # (written out as 8 in expr_int's sum)
# an action on a location of more than SCAN cards pays for them (measured to cost about what
# a unit of work costs elsewhere): shifting them (an insertion or removal away from the top,
# a C memmove) one unit per 256 (``n >> 8``), searching them for a card one per 16 (``n >> 4``),
# rewriting their places (a whole-location swap) one per 8 (``n >> 3``); a shuffle or faro of
# more than SMALL cards pays one unit per card
SCAN = 128
MAX_NAMES = 5_000  # distinct names of locations (or of storages of one sort) a game may compute

STORAGE_SORTS = {"sto", "str", "points"}


def fail(message: str, node, form: str | None = None):
    """Raise a positioned compile error about ``node``, naming an unknown word in it and the
    nearest known one (every compile error passes here: one place for the suggestion)."""
    raise RecycleCompileError(message + unknown_word_hint(node), getattr(node, "span", None), form=form)


# the keywords the language knows besides those in the forms' syntax: location kinds, storage
# sorts, the parts of a game, (create players N) and (previous player)
_OTHER_WORDS = frozenset({"game", "declare", "setup", "scoring", "players", "previous"}) | frozenset(KINDS)
_WORDS: list = []


def known_words() -> frozenset:
    """Every lowercase keyword of RECYCLE: the registry's heads and the words of its forms'
    syntax, with the location kinds, storage sorts and game parts (computed once)."""
    if not _WORDS:
        reg = registry()
        words = set(reg.all_heads) | _OTHER_WORDS | STORAGE_SORTS
        for f in reg.forms:
            words.update(re.findall(r"\b[a-z][a-z0-9_]*\b", f.syntax))
        _WORDS.append(frozenset(words))
    return _WORDS[0]


def unknown_word_hint(node) -> str:
    """`` ('vlok' is not a word of RECYCLE; did you mean 'vloc'?)`` for the first keyword of
    ``node`` (itself, its items, then theirs) that the language does not know, else ''.
    Keywords are lowercase (a game's own NAMEs are uppercase), so any unknown one is a slip."""
    level = [node]
    for _ in range(3):
        for x in level:
            if isinstance(x, Atom) and x.kind == SYMBOL and x.value.islower() and x.value not in known_words():
                near = difflib.get_close_matches(x.value, sorted(known_words()), n=1, cutoff=0.6)
                return f" ({x.value!r} is not a word of RECYCLE{f'; did you mean {near[0]!r}?' if near else ''})"
        level = [i for x in level if isinstance(x, SList) for i in x.items]
    return ""


def n_cards(n: int) -> str:
    """``1 card``, ``5 cards``."""
    return f"{n} card" if n == 1 else f"{n} cards"


def empty_location(verb: str, label: str, nplayers: int) -> str:
    """The message of taking a card from an empty location, naming the number of players:
    a deal that runs out of cards is most often a game played by more than it was written for."""
    return f"{verb} from the empty location {label} (with {nplayers} player{'s' if nplayers != 1 else ''})"


def rt_error(message: str, span: Span, form: str | None = None):
    """Raise a positioned runtime error (called from closures)."""
    raise RecycleRuntimeError(message, span, form=form)


def out_of_work(s, span, form: str):
    """Stop a game that did more work than its budget allows (``State.max_work``; the
    budget is described in ``items``)."""
    raise StepLimitExceeded(
        f"the game did more than its limit of {s.max_work:,} units of work (loop iterations, "
        f"cards and options handled); raise max_work (--max-work) if it is meant to",
        span,
        form=form,
    )


def charge(s, k: int, span, form: str) -> None:
    """Take ``k`` units from the state's work budget, stopping the game when it runs out."""
    s.work -= k
    if s.work < 0:
        out_of_work(s, span, form)


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
    return isinstance(x, SList) and len(x.items) == 3 and kw(x.items[1], *KINDS)


def literal_names(x) -> list[str] | None:
    """The names of a literal list of names ``(FIRST, SECOND, THIRD)``, else None."""
    if (
        isinstance(x, SList)
        and x.items
        and all(isinstance(i, Atom) and (i.is_name or i.kind == COMMA) for i in x.items)
    ):
        return [i.value for i in x.items if i.kind == SYMBOL]
    return None


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


def describe_value(v) -> str:
    if isinstance(v, PLoc):
        return f"location #{v.idx}"
    if isinstance(v, Groups):
        return "a list of groups"
    if isinstance(v, Card):
        return "a card"
    if isinstance(v, PlayerId):
        return "a player"
    if isinstance(v, TeamId):
        return "a team"
    if isinstance(v, bool):
        return "a condition's value"
    if isinstance(v, int):
        return f"the integer {v}"
    if isinstance(v, str):
        return f"the string {v!r}"
    if isinstance(v, list):
        return "a collection"
    if isinstance(v, range):
        return "a range of integers"
    if v is None:
        return "no value"
    return type(v).__name__


def c_div(a: int, b: int) -> int:
    """Integer division truncating toward zero (C# semantics)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


class Scope:
    """Compile-time variable scope: names to env slots, or to folded constants."""

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


def find_runs(s, cards, scores, nmin: int, largest: bool, span) -> list:
    """Runs of scores increasing by exactly 1 (RECYCLE.md 5.3), one per choice of tied cards
    (each card of each run costs one unit of the state's work budget)."""
    s.work -= len(cards)
    if s.work < 0:
        out_of_work(s, span, "runs")
    by_score: dict = {}
    for c in cards:
        by_score.setdefault(scores[c], []).append(c)
    values = sorted(by_score)
    out: list = []
    i = 0
    nmin = max(nmin, 1)
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1] == values[j] + 1:
            j += 1
        block = values[i : j + 1]
        if largest:
            spans = [(0, len(block))] if len(block) >= nmin else []
        else:
            spans = [(a, a + k) for k in range(nmin, len(block) + 1) for a in range(len(block) - k + 1)]
        for a, b in spans:
            for combo in itertools.product(*(by_score[v] for v in block[a:b])):
                out.append(list(combo))
                if len(out) > MAX_COLLECTION:
                    rt_error("runs would make too many groups", span, "runs")
                s.work -= b - a
                if s.work < 0:
                    out_of_work(s, span, "runs")
        i = j + 1
    return out


def tag(f: Callable, **facts) -> Callable:
    """Attach facts about a closure's shape (e.g. ``sto_slot``) so callers can fuse it."""
    f.__dict__.update(facts)
    return f


def element_hint(coll) -> str | None:
    """What the elements of a collection form are, when its syntax tells: players; cards of
    a location, or of a view (a location form) whose first argument is a location; groups;
    integers."""
    h = head_of(coll)
    only = registry().only
    if kw(coll, "player") or (h == "other" and len(coll.items) == 2 and kw(coll.items[1], "player")):
        return "player"
    if is_location_form(coll) or (h in only[Kind.LOC] and len(coll.items) > 1 and is_location_form(coll.items[1])):
        return "card"
    if h in only[Kind.GROUPS]:
        return "cards"
    if h == "range":
        return "int"
    return None


def value_hint(x, scope) -> str | None:
    """What a let-bound value is, when its syntax tells."""
    h = head_of(x)
    only = registry().only
    if is_atom(x, INT) or is_storage_form(x) == "sto" or h in only[Kind.INT]:
        return "int"
    if is_location_form(x):
        return "loc"
    if h in only[Kind.GROUPS]:
        return "groups"
    if h in only[Kind.LOC] or h == "range":
        return "list"
    return None


MAX_DECK_CELLS = 4_000_000  # attribute values written while expanding one deck's trees


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


mention(__name__, ("other", "range"))
