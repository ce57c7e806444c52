"""The comparisons ``< > <= >=`` (of two integers) and ``== !=`` (of two values of one kind).

Each form is kept whole here, registered together as this module is imported (``flow.py``
imports every ``form_*.py``): its node (``lang/nodes/numbers.py``), its reading of the
s-expression (``read_order``, ``read_equal``: the shape checks and positioned errors, and
whether a card is compared), its meaning in the reference interpreter (``ComparisonForms``),
its facts (the ``@form`` record) and its native writer (``write_order``, ``write_equal``).
"""

from __future__ import annotations

from collections.abc import Callable

from ..nodes.base import Everyone, Num, Word
from ..nodes.numbers import AtLeast, AtMost, Equal, Greater, Less, NotEqual
from ..nodes.places import Actual, At, Bottom, Highest, Lowest, Top
from ..nodes.sexpr import Scope, fail, head_of, is_atom, kw
from ..syntax.reader import INT, SList
from .registry import Kind, family, form
from .writers import LOC_T, VIEW_T, NativeUnsupported, native

CARD_REFS = (Top, Bottom, At, Highest, Lowest, Actual)  # the nodes naming a card of a place (or none)


# -- readings ----------------------------------------------------------------------------------


def read_order(cls: type) -> Callable:
    """The reading of ``(< A B)`` (``>``, ``<=``, ``>=``): two integers."""
    h = cls.HEAD

    def read(e, x: SList, scope: Scope):
        if len(x.items) != 3:
            fail(f"({h} A B) compares two integers", x, h)
        return cls(e.int_(x.items[1], scope), e.int_(x.items[2], scope), span=x.span, source=x)

    return read


def names_a_card(e, x) -> bool:
    """Is the s-expression ``x`` a reference to a card (a card form, or ``(top L)``, ``(bottom
    L)``, ``(N L)`` of a place), by the elaborator ``e``'s registry?"""
    if not isinstance(x, SList) or not x.items:
        return False
    h = head_of(x)
    if h in e.forms.only[Kind.CARD]:
        return True
    if (h in ("top", "bottom") or is_atom(x.items[0], INT)) and len(x.items) == 2:
        return not kw(x.items[1], "player", "team") and not e.is_groups_form(x.items[1])
    return False


def read_equal(cls: type) -> Callable:
    """The reading of ``(== A B)`` or ``(!= A B)``: two cards when either names one (``cards``
    True), else two values of any one kind."""
    h = cls.HEAD

    def read(e, x: SList, scope: Scope):
        if len(x.items) != 3:
            fail(f"({h} A B) compares two values", x, h)
        a, b = x.items[1:]
        if names_a_card(e, a) or names_a_card(e, b):
            cards = [e.card(i, scope, optional=names_a_card(e, i)) for i in (a, b)]
            return cls(cards[0], cards[1], True, span=x.span, source=x)
        return cls(e.value(a, scope), e.value(b, scope), False, span=x.span, source=x)

    return read


# -- meanings in the reference interpreter -----------------------------------------------------


@family
class ComparisonForms:
    """The comparisons of the compiler (a mixin of ``FlowCompiler``)."""

    def c_order(self, x, scope: Scope) -> Callable:
        """(< > <= >= A B) on two integers."""
        h = x.HEAD
        a, b = self.c_int(x.a, scope), self.c_int(x.b, scope)
        return {
            "<": lambda s, e: a(s, e) < b(s, e),
            ">": lambda s, e: a(s, e) > b(s, e),
            "<=": lambda s, e: a(s, e) <= b(s, e),
            ">=": lambda s, e: a(s, e) >= b(s, e),
        }[h]

    @form("<", "(< A B)", Kind.BOOL, pure=True, node=Less, reads=read_order(Less))
    def bool_lt(self, x: Less, scope: Scope) -> Callable:
        """(< A B)

        True when the integer A is less than B."""
        return self.c_order(x, scope)

    @form(">", "(> A B)", Kind.BOOL, pure=True, node=Greater, reads=read_order(Greater))
    def bool_gt(self, x: Greater, scope: Scope) -> Callable:
        """(> A B)

        True when the integer A is greater than B."""
        return self.c_order(x, scope)

    @form("<=", "(<= A B)", Kind.BOOL, pure=True, node=AtMost, reads=read_order(AtMost))
    def bool_le(self, x: AtMost, scope: Scope) -> Callable:
        """(<= A B)

        True when the integer A is at most B."""
        return self.c_order(x, scope)

    @form(">=", "(>= A B)", Kind.BOOL, pure=True, node=AtLeast, reads=read_order(AtLeast))
    def bool_ge(self, x: AtLeast, scope: Scope) -> Callable:
        """(>= A B)

        True when the integer A is at least B."""
        return self.c_order(x, scope)

    def c_equal(self, x, scope: Scope) -> Callable:
        """(== != A B) on two values of any one kind (a constant B worked out once)."""
        if x.cards:
            return self.c_card_equal(x, scope)
        a, b = self.c_value(x.a, scope), self.c_value(x.b, scope)
        cb = self.const_value(x.b, scope)
        if cb is None and isinstance(x.b, Word):
            cb = x.b.value
        elif cb is None and isinstance(x.b, Everyone):
            cb = x.b.what
        if isinstance(x, Equal):
            if cb is not None:
                return lambda s, e: a(s, e) == cb
            return lambda s, e: a(s, e) == b(s, e)
        if cb is not None:
            return lambda s, e: a(s, e) != cb
        return lambda s, e: a(s, e) != b(s, e)

    @staticmethod
    def is_card_ref(x) -> bool:
        """Is ``x`` a form that names a card of a location (top, bottom, index, max, min,
        actual), one that may name no card? (An index of a place is one when written out.)"""
        return isinstance(x, CARD_REFS) and (not isinstance(x, At) or isinstance(x.index, Num))

    def c_card_equal(self, x, scope: Scope) -> Callable:
        """(== != A B) with a card reference: the same physical card. A reference that names
        no card (the top of an empty location) equals no card: ``==`` is false and ``!=``
        true, even when both name none (RECYCLE.md 9.2)."""
        a, b = (
            self.c_card(i, scope, optional=True) if self.is_card_ref(i) else self.c_card(i, scope) for i in (x.a, x.b)
        )
        if isinstance(x, Equal):

            def card_eq(s, e):
                c = a(s, e)
                return c is not None and c == b(s, e)

            return card_eq

        def card_ne(s, e):
            c = a(s, e)
            if c is None:
                return True
            d = b(s, e)
            return d is None or c != d

        return card_ne

    @form("==", "(== A B)", Kind.BOOL, pure=True, role="equality", node=Equal, reads=read_equal(Equal))
    def bool_eq(self, x: Equal, scope: Scope) -> Callable:
        """(== A B)

        True when A and B are the same integer, string, card (the same physical card),
        player or team."""
        return self.c_equal(x, scope)

    @form("!=", "(!= A B)", Kind.BOOL, pure=True, role="equality", node=NotEqual, reads=read_equal(NotEqual))
    def bool_ne(self, x: NotEqual, scope: Scope) -> Callable:
        """(!= A B)

        True when A and B differ (integers, strings, cards, players or teams)."""
        return self.c_equal(x, scope)


# -- native writers ----------------------------------------------------------------------------

ORDERS = {Less: "<", AtMost: "<=", Greater: ">", AtLeast: ">="}


@native(Kind.BOOL, *ORDERS)
def write_order(w, x, sc) -> str:
    """The native comparison of two integers."""
    return f"({w.int_(x.a, sc)} {ORDERS[type(x)]} {w.int_(x.b, sc)})"


@native(Kind.BOOL, Equal, NotEqual)
def write_equal(w, x, sc) -> str:
    """The native comparison of two values of one kind (numbers there: a card, player, team or
    interned string); locations, views, group lists and conditions are not compared."""
    (ta, a), (tb, b) = w.value(x.a, sc), w.value(x.b, sc)
    if ta != tb:
        raise NativeUnsupported(f"a {ta} compared with a {tb}", x)
    if ta in (LOC_T, VIEW_T, "groups", "bool"):
        raise NativeUnsupported(f"{ta}s compared", x)
    return f"({a} {'==' if isinstance(x, Equal) else '!='} {b})"
