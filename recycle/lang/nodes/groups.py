"""Reading group lists and collections into nodes (``GroupReading``, a mixin of
``flow.Elaborator``): partition, tuples, subsets, runs, one group of a list, ranges, the other
players, lists of locations, and anything any/all/filter/size range over. Each reading mirrors
the compiler's (``lang/forms/expr_groups.py``) and raises its messages."""

from __future__ import annotations

from .sexpr import Scope, fail, head_of, is_atom, is_location_form, kw
from ..syntax.reader import DOTDOT, VAR, Atom, SList
from .base import Everyone, Kind, form_node

Pick = form_node("Pick", "index groups", Kind.LOC, None, "(INDEX GROUPS): index top, bottom or an integer.")
Partition = form_node("Partition", "key parts", Kind.GROUPS, "partition", "(partition KEY LOCATION ...).")
Tuples = form_node("Tuples", "n location points", Kind.GROUPS, "tuples", "(tuples N LOCATION using POINTS).")
Subsets = form_node("Subsets", "location", Kind.GROUPS, "subsets", "(subsets LOCATION).")
Runs = form_node("Runs", "largest n location points", Kind.GROUPS, "runs", "(runs largest|all N L using P).")
LetGroups = form_node("LetGroups", "value variable body", Kind.GROUPS, "let", "(let VALUE 'V GROUPS).")
Range = form_node("Range", "low high", Kind.COLL, "range", "(range A..B): the integers A to B.")
Others = form_node("Others", "what", Kind.COLL, "other", "(other player|team): all but the current one.")
Each = form_node("Each", "collection variable location", Kind.COLL, "all", "(all C 'V LOCATION): locations.")
LetColl = form_node("LetColl", "value variable body", Kind.COLL, "let", "(let VALUE 'V COLLECTION).")
Members = form_node("Members", "team", Kind.COLL, None, "A team's players, as a collection.")


class GroupReading:
    """Group lists and collections."""

    def is_groups_form(self, x) -> bool:
        return head_of(x) in self.forms.only[Kind.GROUPS]

    def e_c_group_pick(self, x, scope):
        groups = self.groups(x.items[1], scope)
        first = x.items[0]
        index = first.value if kw(first, "top", "bottom") else self.int_(first, scope)
        return Pick(index, groups, span=x.span, source=x)

    def groups(self, x, scope: Scope):
        if is_atom(x, VAR):
            return self.var(x, scope)
        f = self.by_head(Kind.GROUPS, x, scope)
        if f is not None:
            return f
        if head_of(x) == "filter":
            return self.cards(x, scope)
        fail(f"expected a list of groups, got {self.form_name(x)}", x)

    def e_groups_partition(self, x, scope):
        items = x.items
        if len(items) < 3:
            fail("expected (partition KEY LOCATION...)", x, "partition")
        key = self.name(items[1], scope)
        return Partition(key, self.loc_list(items[2:], scope, x), span=x.span, source=x)

    def e_groups_tuples(self, x, scope):
        items = x.items
        if len(items) != 5 or not kw(items[3], "using"):
            fail("expected (tuples N LOCATION using POINTS)", x, "tuples")
        n = self.int_(items[1], scope)
        return Tuples(n, self.cards(items[2], scope), self.points(items[4], scope), span=x.span, source=x)

    def e_groups_subsets(self, x, scope):
        self.arity(x, 2)
        return Subsets(self.cards(x.items[1], scope), span=x.span, source=x)

    def e_groups_runs(self, x, scope):
        items = x.items
        if len(items) != 6 or not kw(items[1], "largest", "all") or not kw(items[4], "using"):
            fail("expected (runs largest|all N LOCATION using POINTS)", x, "runs")
        n = self.int_(items[2], scope)
        cards = self.cards(items[3], scope)
        return Runs(items[1].value == "largest", n, cards, self.points(items[5], scope), span=x.span, source=x)

    def e_groups_let(self, x, scope):
        return LetGroups(*self.let_value(x, scope, self.groups), span=x.span, source=x)

    # -- collections -----------------------------------------------------------------------
    def coll(self, x, scope: Scope):
        if isinstance(x, Atom):
            if kw(x, "player", "team"):
                return Everyone(x.value, span=x.span, source=x)
            if x.kind == VAR:
                return self.var(x, scope)
            fail(f"expected a collection, got {x}", x)
        if is_location_form(x):
            return self.cards(x, scope)
        if self.is_groups_form(x):
            return self.groups(x, scope)
        f = self.by_head(Kind.COLL, x, scope)
        if f is not None:
            return f
        return self.coll_shape(x, scope)

    def coll_shape(self, x: SList, scope: Scope):
        items = x.items
        if (len(items) == 2 and kw(items[1], "team")) or head_of(x) in self.forms.only[Kind.TEAM]:
            return Members(self.team(x, scope), span=x.span, source=x)
        names = self.names(x)
        if names is not None:
            return names
        return self.cards(x, scope)

    def e_coll_range(self, x, scope):
        items = x.items
        if len(items) != 4 or not is_atom(items[2], DOTDOT):
            fail("expected (range A..B)", x, "range")
        return Range(self.int_(items[1], scope), self.int_(items[3], scope), span=x.span, source=x)

    def e_coll_other(self, x, scope):
        items = x.items
        if len(items) != 2 or not kw(items[1], "player", "team"):
            fail("expected (other player) or (other team)", x, "other")
        return Others(items[1].value, span=x.span, source=x)

    def e_coll_all(self, x, scope):
        if len(x.items) == 4 and head_of(x.items[3]) not in self.forms.only[Kind.BOOL]:
            return self.e_coll_all_locations(x, scope)
        return self.coll_shape(x, scope)

    def e_coll_all_locations(self, x, scope):
        return Each(*self.binder(x, scope, self.cards), span=x.span, source=x)

    def e_coll_let(self, x, scope):
        return LetColl(*self.let_value(x, scope, self.coll), span=x.span, source=x)
