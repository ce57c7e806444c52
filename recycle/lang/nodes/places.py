"""The nodes of cards, physical locations and views, and the elaborator's readings every
place form uses (``PlaceReading``, a mixin of ``flow.Elaborator``): where RECYCLE is
type-directed, ``(top X)`` is decided here a card or cards of a place, once, and handed to
the form's own reading, registered with it in its module (``lang/forms/form_card_picks.py``,
``form_views.py``, ``form_filter.py``, ``form_let_place.py``). Each reading mirrors the
compiler's entry point (``lang/forms/expr_cards.py``, ``expr_locs.py``) and raises its
messages."""

from __future__ import annotations

from .sexpr import Scope, fail, head_of, is_atom, is_location_form
from ..syntax.reader import INT, VAR, SList
from .base import Kind, Loc, form_node

Top = form_node("Top", "location", Kind.CARD, "top", "(top LOCATION): the top card.")
Bottom = form_node("Bottom", "location", Kind.CARD, "bottom", "(bottom LOCATION): the bottom card.")
At = form_node("At", "index location", Kind.CARD, None, "(INDEX LOCATION): the card at INDEX.")
Highest = form_node("Highest", "location points", Kind.CARD, "max", "(max LOCATION using POINTS).")
Lowest = form_node("Lowest", "location points", Kind.CARD, "min", "(min LOCATION using POINTS).")
Actual = form_node("Actual", "card", Kind.CARD, "actual", "(actual CARD): the physical card.")

Union = form_node("Union", "parts", Kind.LOC, "union", "(union LOCATION ...): parts a tuple or an Each.")
Intersect = form_node("Intersect", "parts", Kind.LOC, "intersect", "(intersect LOCATION ...).")
Disjunction = form_node("Disjunction", "parts", Kind.LOC, "disjunction", "(disjunction LOCATION ...).")
Sort = form_node("Sort", "location points", Kind.LOC, "sort", "(sort LOCATION using POINTS).")
Filter = form_node("Filter", "collection variable condition", Kind.LOC, "filter", "(filter C 'V CONDITION).")
RunOf = form_node("RunOf", "end n location points", Kind.LOC, "run", "(run top|bottom N LOCATION using POINTS).")
TopN = form_node("TopN", "n location", Kind.LOC, "top", "(top N LOCATION): the N topmost cards.")
BottomN = form_node("BottomN", "n location", Kind.LOC, "bottom", "(bottom N LOCATION): the N bottommost.")
LetPlace = form_node("LetPlace", "value variable body", Kind.LOC, "let", "(let VALUE 'V LOCATION).")


class PlaceReading:
    """Cards, physical locations and views."""

    VIEWS_OF_LOCATIONS = ("union", "intersect", "disjunction", "sort")

    @staticmethod
    def is_location(x) -> bool:
        return is_location_form(x)

    # -- cards -----------------------------------------------------------------------------
    def card(self, x, scope: Scope, optional: bool = False):
        """A card (``optional``: the reference may name no card; the compiler's concern)."""
        if is_atom(x, VAR):
            return self.var(x, scope)
        if not isinstance(x, SList):
            fail(f"expected a card, got {x}", x)
        f = self.by_head(Kind.CARD, x, scope)
        if f is not None:
            return f
        items = x.items
        if items and (is_atom(items[0], INT) or (is_atom(items[0], VAR) and len(items) == 2)):
            return self.read_as("card_index", x, scope)
        fail(f"expected a card, got {self.form_name(x)}", x)

    # -- physical locations ----------------------------------------------------------------
    def loc(self, x, scope: Scope, purpose: str = "a location"):
        """A physical location: a variable or ``(OWNER KIND NAME)``."""
        if is_atom(x, VAR):
            return self.var(x, scope)
        if not is_location_form(x):
            fail(f"expected {purpose} (OWNER KIND NAME), got {self.form_name(x)}", x)
        kind = x.items[1].value
        if head_of(x.items[2]) == "member":
            name = self.read_as("str_member", x.items[2], scope)
        else:
            name = self.name(x.items[2], scope)
        return Loc(self.owner(x.items[0], scope, "a location owner"), kind, name, span=x.span, source=x)

    # -- views: the cards of a place -------------------------------------------------------
    def cards(self, x, scope: Scope):
        """A location or a view: its cards."""
        if is_atom(x, VAR):
            return self.var(x, scope)
        if is_location_form(x):
            return self.loc(x, scope)
        f = self.by_head(Kind.LOC, x, scope)
        if f is not None:
            return f
        items = x.items if isinstance(x, SList) else ()
        if len(items) == 2 and (is_atom(items[0], INT) or is_atom(items[0], VAR)):
            return self.read_as("c_group_pick", x, scope)
        fail(f"expected a location, got {self.form_name(x)}", x)

    def loc_list(self, items, scope, x):
        """The arguments of union, intersect, disjunction and partition: locations, or one
        ``(all COLLECTION 'VARIABLE LOCATION)``."""
        if len(items) == 1 and head_of(items[0]) == "all":
            return self.e_coll_all_locations(items[0], scope)
        if not items:
            fail("expected one or more locations", x)
        return tuple(self.cards(i, scope) for i in items)

    # -- binders ---------------------------------------------------------------------------
    def binder(self, x, scope, body_reader):
        """(any|all|filter COLLECTION 'VARIABLE BODY) → (collection, variable, body)."""
        h = head_of(x)
        if len(x.items) != 4 or not is_atom(x.items[2], VAR):
            fail(f"expected ({h} COLLECTION 'VARIABLE BODY)", x, h)
        coll = self.coll(x.items[1], scope)
        inner = self.bind(scope, x.items[2], h, self.element_hint(x.items[1]), x.span)
        var = inner.lookup(x.items[2].value)
        return coll, var, body_reader(x.items[3], inner)

    def let_value(self, x, scope, body_reader):
        if len(x.items) != 4 or not is_atom(x.items[2], VAR):
            fail("expected (let VALUE 'VARIABLE BODY)", x, "let")
        val = self.value(x.items[1], scope)
        inner = self.bind(scope, x.items[2], "let", self.value_hint(x.items[1], scope), x.span)
        return val, inner.lookup(x.items[2].value), body_reader(x.items[3], inner)
