"""Shared pieces of the compiler: shape tests on forms, errors with positions, scopes,
limits, and small helpers that fuse or describe closures.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable

from ...errors import RecycleRuntimeError, Span, StepLimitExceeded
from ..nodes import sexpr
from ..nodes.sexpr import (  # noqa: F401 - the s-expression's shapes, re-exported for the modules reading forms
    MAX_COLLECTION,
    MAX_DECK_CELLS,
    STORAGE_SORTS,
    Const,
    Scope,
    deck_combinations,
    expand_attr,
    fail,
    head_of,
    is_atom,
    is_location_form,
    is_storage_form,
    kw,
    literal_names,
    unknown_word_hint,
)
from .registry import mention, registry
from ..syntax.reader import DOTDOT, INT
from .values import KINDS, Card, Groups, PLoc, PlayerId, TeamId

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


sexpr.set_known_words(known_words)


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
    """What the elements of a collection form are, when its syntax tells (``nodes.sexpr``)."""
    return sexpr.element_hint(coll, registry().only)


def value_hint(x, scope=None) -> str | None:
    """What a let-bound value is, when its syntax tells (``nodes.sexpr``)."""
    return sexpr.value_hint(x, registry().only)


mention(__name__, ("other", "range"))
