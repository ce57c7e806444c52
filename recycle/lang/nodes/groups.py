"""The nodes of group lists and collections, and their shared readings (``GroupReading``, a
mixin of ``flow.Elaborator``): a group list, anything any/all/filter/size range over, and a
list of locations, as the readings of many forms read them. Each form's own reading is kept
with its meaning in its module (``lang/forms/form_group_lists.py``, ``form_collections.py``)."""

from __future__ import annotations

from .sexpr import Scope, fail, head_of, is_atom, is_location_form, kw
from ..syntax.reader import VAR, Atom, SList
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

    def groups(self, x, scope: Scope):
        if is_atom(x, VAR):
            return self.var(x, scope)
        f = self.by_head(Kind.GROUPS, x, scope)
        if f is not None:
            return f
        if head_of(x) == "filter":
            return self.cards(x, scope)
        fail(f"expected a list of groups, got {self.form_name(x)}", x)

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

    def e_coll_all_locations(self, x, scope):
        """``(all COLLECTION 'VARIABLE LOCATION)`` as a list of locations (``Each``)."""
        return Each(*self.binder(x, scope, self.cards), span=x.span, source=x)
