"""The forms picking one card of a place: ``(top LOCATION)``, ``(bottom LOCATION)``, ``(INDEX
LOCATION)``, ``(max|min LOCATION using POINTS)``, and ``(actual CARD)``, the card itself.

Each form is kept whole in this one module, registered together as it is imported
(``flow.py`` imports every ``form_*.py``): its reading of the s-expression (``read_*``: the
shape checks and positioned errors; ``(top X)`` is read here as a card only where the
elaborator decided it stands for one), its meaning in the reference interpreter
(``CardPickForms``), its facts and words (the ``@form`` records) and its native writer
(``write_*``). Their nodes (``Top``, ``Bottom``, ``At``, ``Highest``, ``Lowest``, ``Actual``)
are the node vocabulary of ``lang/nodes/places.py``.
"""

from __future__ import annotations

from collections.abc import Callable

from ..nodes.base import Const, Var, written
from ..nodes.places import Actual, At, Bottom, Highest, Lowest, Top
from ..nodes.sexpr import Scope, fail, kw
from ..syntax.reader import SList
from .registry import Kind, family, form
from .runtime import n_cards, out_of_work, rt_error
from .writers import INT_T, LOC_T, VIEW_T, NativeUnsupported, native

# -- readings ------------------------------------------------------------------------------


def card_place(e, x: SList, scope: Scope):
    """The location or view of ``(top|bottom|INDEX LOCATION)``, read by the elaborator ``e``."""
    if len(x.items) != 2:
        fail("expected (top LOCATION), (bottom LOCATION) or (INDEX LOCATION)", x)
    return e.cards(x.items[1], scope)


def read_top(e, x: SList, scope: Scope) -> Top:
    """The node of ``(top LOCATION)`` read as a card."""
    return Top(card_place(e, x, scope), span=x.span, source=x)


def read_bottom(e, x: SList, scope: Scope) -> Bottom:
    """The node of ``(bottom LOCATION)`` read as a card."""
    return Bottom(card_place(e, x, scope), span=x.span, source=x)


def read_index(e, x: SList, scope: Scope) -> At:
    """The node of ``(INDEX LOCATION)``: INDEX an integer or a variable."""
    where = card_place(e, x, scope)
    return At(e.int_(x.items[0], scope), where, span=x.span, source=x)


def read_extreme(e, x: SList, scope: Scope, cls):
    """The node (``cls``: Highest or Lowest) of ``(max|min LOCATION using POINTS)``."""
    h = cls.HEAD
    if len(x.items) != 4 or not kw(x.items[2], "using"):
        fail(f"expected ({h} LOCATION using POINTS)", x, h)
    return cls(e.cards(x.items[1], scope), e.points(x.items[3], scope), span=x.span, source=x)


def read_max(e, x: SList, scope: Scope) -> Highest:
    """The node of ``(max LOCATION using POINTS)``."""
    return read_extreme(e, x, scope, Highest)


def read_min(e, x: SList, scope: Scope) -> Lowest:
    """The node of ``(min LOCATION using POINTS)``."""
    return read_extreme(e, x, scope, Lowest)


def read_actual(e, x: SList, scope: Scope) -> Actual:
    """The node of ``(actual CARD)``."""
    e.arity(x, 2)
    return Actual(e.card(x.items[1], scope), span=x.span, source=x)


# -- meaning in the reference interpreter --------------------------------------------------


@family
class CardPickForms:
    """A card picked from a place, in the reference interpreter (a mixin of ``FlowCompiler``)."""

    def card_location(self, x, scope: Scope) -> Callable:
        """The cards of ``(WHERE LOCATION)``; a variable holding a group list stands for its
        first group."""
        return self.c_cards(x.location, scope, first_group=True)

    @form("top", "(top LOCATION)", Kind.CARD, pure=True, words="top {1}", node=Top, reads=read_top)
    def card_top(self, x: Top, scope: Scope, optional: bool = False) -> Callable:
        """(top LOCATION)

        The top card of a location (its last element); an error when it is empty."""
        cards = self.card_location(x, scope)
        span = x.span
        why = self.no_card(x, scope)

        def top(s, e):
            lst = cards(s, e)
            if lst:
                return lst[-1]
            if optional:
                return None
            rt_error(why(s, e), span, "top")

        return top

    @form("bottom", "(bottom LOCATION)", Kind.CARD, pure=True, words="bottom {1}", node=Bottom, reads=read_bottom)
    def card_bottom(self, x: Bottom, scope: Scope, optional: bool = False) -> Callable:
        """(bottom LOCATION)

        The bottom card of a location (its first element); an error when it is empty."""
        cards = self.card_location(x, scope)
        span = x.span
        why = self.no_card(x, scope)

        def bottom(s, e):
            lst = cards(s, e)
            if lst:
                return lst[0]
            if optional:
                return None
            rt_error(why(s, e), span, "bottom")

        return bottom

    @form(None, "(INDEX LOCATION)", Kind.CARD, pure=True, label="index", node=At, reads=read_index)
    def card_index(self, x: At, scope: Scope, optional: bool = False) -> Callable:
        """(INDEX LOCATION)

        The card at the 0-based INDEX of a location, counted from the bottom (an integer or
        a variable); an error when there is no such card."""
        cards = self.card_location(x, scope)
        span = x.span
        where = f"({written(x.index)} ...)"
        idx = self.c_int(x.index, scope)

        def nth(s, e):
            lst = cards(s, e)
            i = idx(s, e)
            if 0 <= i < len(lst):
                return lst[i]
            if optional:
                return None
            rt_error(f"index {i} out of range for a location of {n_cards(len(lst))}", span, where)

        return nth

    def card_extreme(self, x, scope: Scope, optional: bool, pick_max: bool) -> Callable:
        """(max|min LOCATION using POINTS): ties are broken with the game's random numbers."""
        h = x.HEAD
        cards = self.c_cards(x.location, scope)
        pts = self.c_points(x.points, scope)
        span = x.span
        why = self.no_card(x, scope)

        def extreme(s, e):
            lst = cards(s, e)
            if not lst:
                if optional:
                    return None
                rt_error(why(s, e), span, h)
            s.work -= len(lst)
            if s.work < 0:
                out_of_work(s, span, h)
            sc = pts(s, e).table
            best = max(sc[c] for c in lst) if pick_max else min(sc[c] for c in lst)
            tied = [c for c in lst if sc[c] == best]
            return tied[0] if len(tied) == 1 else tied[int(s.rng.random() * len(tied))]

        return extreme

    @form(
        "max",
        "(max LOCATION using POINTS)",
        Kind.CARD,
        draws=True,
        words="max {1} {2=using} {3}",
        node=Highest,
        reads=read_max,
    )
    def card_max(self, x: Highest, scope: Scope, optional: bool = False) -> Callable:
        """(max LOCATION using POINTS)

        The card of the location with the highest score, ties broken uniformly at random; an
        error when the location is empty."""
        return self.card_extreme(x, scope, optional, True)

    @form(
        "min",
        "(min LOCATION using POINTS)",
        Kind.CARD,
        draws=True,
        words="min {1} {2=using} {3}",
        node=Lowest,
        reads=read_min,
    )
    def card_min(self, x: Lowest, scope: Scope, optional: bool = False) -> Callable:
        """(min LOCATION using POINTS)

        The card of the location with the lowest score, ties broken uniformly at random; an
        error when the location is empty."""
        return self.card_extreme(x, scope, optional, False)

    @form("actual", "(actual CARD)", Kind.CARD, pure=True, words="actual {1}", node=Actual, reads=read_actual)
    def card_actual(self, x: Actual, scope: Scope, optional: bool = False) -> Callable:
        """(actual CARD)

        The same card, marked as the physical card (a move out of a view or mem location
        moves it from where it really is)."""
        return self.c_card(x.card, scope, optional)


# -- native writers ------------------------------------------------------------------------


@native(Kind.CARD, Top, Bottom)
def write_end(w, x, sc, optional=False) -> str:
    """The top (bottom) card of a location or view; a variable holding a group list stands
    for its first group, as in the reference interpreter."""
    h = "top" if isinstance(x, Top) else "bottom"
    held = w.groups_of(x.location, sc)
    if held is not None:
        t, code = VIEW_T, f"group_at(scratch, ctr, {held}, 0)"
    else:
        t, code = w.loc(x.location, sc)
    if t == LOC_T:
        fn = f"{h}_card" if not optional else f"{h}_or_none"
        return f"{fn}(locs, lens, ctr, {code})"
    fn = f"view_{h}" if not optional else f"view_{h}_or_none"
    return f"{fn}(ctr, scratch, {code})"


@native(Kind.CARD, Highest, Lowest)
def write_best(w, x, sc, optional=False) -> str:
    """The card of highest (lowest) score, ties drawn as the reference draws them."""
    cards = w.cards(x.location, sc)
    return f"best_card(ctr, keys, scratch, {cards}, {w.points_table(x.points, sc)}, {isinstance(x, Highest)})"


@native(Kind.CARD, Actual)
def write_actual(w, x, sc, optional=False) -> str:
    """The card itself (a move reads where it really is)."""
    return w.card(x.card, sc, optional)


@native(Kind.CARD, At)
def write_index(w, x, sc, optional=False) -> str:
    """The card at INDEX of a location or view, counted from the bottom."""
    if isinstance(x.index, (Var, Const)):
        v = sc.lookup(x.index.name)
        if v is None or getattr(v, "type", None) != INT_T:
            raise NativeUnsupported("an index that is not an integer", x)
        i = v.name
    else:
        i = w.int_(x.index, sc)
    return f"card_at(ctr, scratch, {w.cards(x.location, sc)}, {i}, {optional})"
