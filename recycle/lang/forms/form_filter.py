"""The form ``(filter COLLECTION 'VARIABLE CONDITION)``: the elements of a collection for
which a condition holds, in order (a view of a location's cards, or a list of players, teams,
names, integers or groups).

The form is kept whole in this one module, registered together as it is imported
(``flow.py`` imports every ``form_*.py``): its reading of the s-expression (``read_filter``:
the binder's shape, its variable bound for the condition), its meaning in the reference
interpreter (``FilterForms.loc_filter``), its facts and words (the ``@form`` record) and its
native writer (``write_filter``: of cards, of locations, of players or teams, of a range of
integers; a filter of groups is left to the reference interpreter). Its node (``Filter``) is
of the node vocabulary of ``lang/nodes/places.py``.
"""

from __future__ import annotations

from collections.abc import Callable

from ..nodes.base import Everyone
from ..nodes.groups import Range
from ..nodes.places import Filter
from ..nodes.sexpr import MAX_COLLECTION, Scope
from ..syntax.reader import SList
from .registry import Kind, family, form
from .runtime import SMALL, out_of_work
from .writers import (
    CARD_T,
    INT_T,
    LOC_T,
    LOCS_T,
    NUMBERS_T,
    PLAYER_T,
    PLAYERS_T,
    TEAM_T,
    TEAMS_T,
    VIEW_T,
    NativeUnsupported,
    native,
)


def read_filter(e, x: SList, scope: Scope) -> Filter:
    """The node of ``(filter COLLECTION 'VARIABLE CONDITION)``, read by the elaborator ``e``."""
    return Filter(*e.binder(x, scope, e.bool_), span=x.span, source=x)


@family
class FilterForms:
    """``(filter ...)`` in the reference interpreter (a mixin of ``FlowCompiler``)."""

    @form(
        "filter",
        "(filter COLLECTION 'VARIABLE CONDITION)",
        Kind.LOC,
        pure=True,
        expensive=True,
        binds=True,
        loops=True,
        words="({1} where {2}: {3})",
        node=Filter,
        reads=read_filter,
    )
    def loc_filter(self, x: Filter, scope: Scope) -> Callable:
        """(filter COLLECTION 'VARIABLE CONDITION)

        The elements of the collection, in order, for which the condition holds with the
        element bound to 'VARIABLE: a view of a location's cards, or a list of players,
        teams, names, integers or (over a group list) groups."""
        coll, slot, cond = self.c_binder(x, scope, self.c_bool)
        w = 0 if self.players_loop(x) else self.weight(x.condition)  # (players: paid around it)
        span = x.span

        small = SMALL if self.loop_free(x.condition) else -1  # (a few turns of a body without loops: free)

        def filter_(s, e):
            c = coll(s, e)
            if len(c) > small:
                s.work -= len(c) * w
                if s.work < 0:
                    out_of_work(s, span, "filter")
            out = []
            for v in c:
                e[slot] = v
                if cond(s, e):
                    out.append(v)
            return out

        return filter_


# -- native writers ------------------------------------------------------------------------


@native(Kind.LOC, Filter)
def write_filter(w, x, sc) -> tuple[str, str]:
    """A function of its own: the elements for which the condition holds, as a view."""
    name = x.variable.name
    coll = x.collection
    if isinstance(coll, Everyone):
        return filter_players(w, x, sc, name, coll.what)
    if isinstance(coll, Range):
        return filter_range(w, x, sc, name, coll)
    if w.is_groups_form(coll) or w.groups_of(coll, sc) is not None:
        raise NativeUnsupported("a filter of groups", x)
    params = sc.params()
    with w.function(
        "filter", params, f"(filter ...) at line {x.span.line}: the cards for which it holds", keeps_scratch=True
    ):
        t, code = w.loc(coll, sc)
        # a view of cards, or of locations (indexed: form_indexed.py), whose elements it binds
        element, result = (LOC_T, LOCS_T) if t == LOCS_T else (CARD_T, VIEW_T)
        if t in (PLAYERS_T, TEAMS_T, NUMBERS_T):
            raise NativeUnsupported(f"{t} where cards are needed", coll)
        # a location is read in place (a condition moves no card): no snapshot to copy first
        w.line(f"source = {code}")
        w.line(f"n = {'lens[source]' if t == LOC_T else 'scratch[source]'}")
        w.line("out = alloc(scratch, ctr, n)")
        with w.block("if out == 0:"):
            w.line("return out")
        w.line("m = 0")
        var = w.local(name)
        with w.block("for k in range(n):"):
            w.line(f"{var} = {'locs[source, k]' if t == LOC_T else 'scratch[source + 1 + k]'}")
            with w.block(f"if {w.bool_(x.condition, sc.bind(name, var, element))}:"):
                w.line(f"scratch[out + 1 + m] = {var}")
                w.line("m += 1")
        w.line("scratch[out] = m")
        w.line("return out")
    return result, w.fns[-1].call(*params)


def filter_players(w, x, sc, name: str, which: str) -> tuple[str, str]:
    """(filter player|team 'P CONDITION): the players (teams) for which it holds, in order: a
    view of their numbers."""
    n_ = "NPLAYERS" if which == "player" else "ctr[NTEAMS]"
    return filter_numbers(
        w,
        x,
        sc,
        name,
        f"(filter {which} ...)",
        [f"low, high = 0, {n_} - 1"],
        PLAYER_T if which == "player" else TEAM_T,
        PLAYERS_T if which == "player" else TEAMS_T,
    )


def filter_range(w, x, sc, name: str, coll) -> tuple[str, str]:
    """(filter (range A..B) 'N CONDITION): the integers A to B for which it holds, in order: a
    view of numbers. A range longer than Python's bound is its error, and numbers beyond 32
    bits do not fit the stack: both stop the rollout, which Python then plays."""
    return filter_numbers(
        w,
        x,
        sc,
        name,
        "(filter (range ...) ...)",
        [
            f"low = {w.int_(coll.low, sc)}",
            f"high = {w.int_(coll.high, sc)}",
            f"if high - low > {MAX_COLLECTION}: ctr[STATUS] = RULE; return 0",
            "if low < -2147483648 or high > 2147483647: ctr[STATUS] = CAPACITY; return 0",
        ],
        INT_T,
        NUMBERS_T,
    )


def filter_numbers(w, x, sc, name: str, what: str, bounds: list, element: str, result: str) -> tuple[str, str]:
    """The numbers ``low`` to ``high`` (set by the lines ``bounds``) for which the filter's
    condition holds, in order: a view of numbers of type ``result``."""
    params = sc.params()
    with w.function("filter", params, f"{what} at line {x.span.line}", keeps_scratch=True):
        for line in bounds:
            w.line(line)
        w.line("out = alloc(scratch, ctr, max(0, high - low + 1))")
        with w.block("if out == 0:"):
            w.line("return out")
        w.line("m = 0")
        var = w.local(name)
        with w.block(f"for {var} in range(low, high + 1):"):
            with w.block(f"if {w.bool_(x.condition, sc.bind(name, var, element))}:"):
                w.line(f"scratch[out + 1 + m] = {var}")
                w.line("m += 1")
        w.line("scratch[out] = m")
        w.line("return out")
    return result, w.fns[-1].call(*params)
