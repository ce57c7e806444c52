"""The collection forms: ``(range A..B)``, ``(other player|team)``, ``(all COLLECTION 'V
LOCATION)`` (a list of locations) and ``(let VALUE 'V COLLECTION)``: what ``any``, ``all``,
``filter`` and ``size`` range over besides players, teams, locations, group lists and names.

Each form is kept whole in this one module, registered together as it is imported (``flow.py``
imports every ``form_*.py``): its reading of the s-expression (``read_*``; its node class is in
``lang/nodes/groups.py``), its meaning in the reference interpreter (``CollectionForms``) and
its facts and words (the ``@form`` record). The native engine loops over a range or the other
players where it loops over any collection (``recycle/native/loops.py``, ``collection``):
none has a writer of its own. Reading any collection (``c_coll``) is ``expr_groups.py``'s.
"""

from __future__ import annotations

from collections.abc import Callable

from ..nodes.groups import Each, LetColl, Others, Range
from ..nodes.sexpr import MAX_COLLECTION, Scope, fail, head_of, is_atom, kw
from ..syntax.reader import DOTDOT, SList
from .registry import Kind, family, form
from .runtime import rt_error

# -- readings (the elaborator ``e`` turns each s-expression into its node) ---------------------


def read_range(e, x: SList, scope: Scope) -> Range:
    """``(range A..B)``: two integers."""
    items = x.items
    if len(items) != 4 or not is_atom(items[2], DOTDOT):
        fail("expected (range A..B)", x, "range")
    return Range(e.int_(items[1], scope), e.int_(items[3], scope), span=x.span, source=x)


def read_other(e, x: SList, scope: Scope) -> Others:
    """``(other player|team)``."""
    items = x.items
    if len(items) != 2 or not kw(items[1], "player", "team"):
        fail("expected (other player) or (other team)", x, "other")
    return Others(items[1].value, span=x.span, source=x)


def read_all(e, x: SList, scope: Scope):
    """``(all COLLECTION 'V LOCATION)`` as a list of locations; an ``all`` whose body is a
    condition is read as a collection of another shape (a team, names, cards)."""
    if len(x.items) == 4 and head_of(x.items[3]) not in e.forms.only[Kind.BOOL]:
        return e.e_coll_all_locations(x, scope)
    return e.coll_shape(x, scope)


def read_let_coll(e, x: SList, scope: Scope) -> LetColl:
    """``(let VALUE 'VARIABLE COLLECTION)``."""
    return LetColl(*e.let_value(x, scope, e.coll), span=x.span, source=x)


# -- meanings in the reference interpreter ---------------------------------------------------


@family
class CollectionForms:
    """Ranges, the other players, lists of locations and let in the reference interpreter (a
    mixin of ``FlowCompiler``)."""

    @form("range", "(range A..B)", Kind.COLL, pure=True, words="{1}..{3}", node=Range, reads=read_range)
    def coll_range(self, x: Range, scope: Scope) -> Callable:
        """(range A..B)

        The integers A, A+1, ..., B (empty when B < A)."""
        lo, hi = self.c_int(x.low, scope), self.c_int(x.high, scope)
        span = x.span

        def range_(s, e):
            a, b = lo(s, e), hi(s, e)
            if b - a > MAX_COLLECTION:
                rt_error(f"(range {a}..{b}) is too long", span, "range")
            return range(a, b + 1)

        return range_

    @form(
        "other",
        "(other player) | (other team)",
        Kind.COLL,
        role="players",
        words="other {1}s",
        node=Others,
        reads=read_other,
    )
    def coll_other(self, x: Others, scope: Scope) -> Callable:
        """(other player) | (other team)

        Every player (team) except the current one, by index."""
        players, teams = self.players, self.teams
        if x.what == "player":
            return lambda s, e: [p for p in players if p != s.pstack[-1][0]]
        return lambda s, e: [t for t in teams[: s.nteams] if t != s.tstack[-1][0]]

    @form(
        "all",
        "(all COLLECTION 'VARIABLE LOCATION)",
        Kind.COLL,
        pure=True,
        expensive=True,
        binds=True,
        loops=True,
        role="quantifier",
        words="all {1:each}: {3}",
        node=Each,
        reads=read_all,
    )
    def coll_all(self, x: Each, scope: Scope) -> Callable:
        """(all COLLECTION 'VARIABLE LOCATION)

        A list of locations, one per element bound to 'VARIABLE (the argument of union,
        intersect, disjunction and partition)."""
        return self.c_loc_list(x, scope)

    @form(
        "let",
        "(let VALUE 'VARIABLE COLLECTION)",
        Kind.COLL,
        pure=True,
        binds=True,
        node=LetColl,
        reads=read_let_coll,
    )
    def coll_let(self, x: LetColl, scope: Scope) -> Callable:
        """(let VALUE 'VARIABLE COLLECTION)

        The collection, computed with VALUE (evaluated once) bound to 'VARIABLE."""
        return self.c_let_value(x, scope, self.c_coll)
