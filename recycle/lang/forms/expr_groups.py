"""Compiling RECYCLE's group lists (partition, tuples, subsets, runs) and collections
(anything any/all/filter/size can range over) into closures ``f(state, env)``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

from .registry import Kind, form, mention
from .items import out_of_work
from .shapes import (
    MAX_COLLECTION,
    MAX_TUPLE,
    SMALL,
    Scope,
    describe_value,
    fail,
    find_runs,
    head_of,
    is_atom,
    is_location_form,
    kw,
    literal_names,
    rt_error,
)
from ..syntax.reader import DOTDOT, VAR, Atom, SList
from .values import Groups, PLoc, TeamId


class GroupForms:
    """Group lists and collections in the compiler (a mixin of ``FlowCompiler``)."""

    # -- groups ----------------------------------------------------------------------------
    def is_groups_form(self, x) -> bool:
        """Does ``x`` always give a list of groups (partition, tuples, subsets, runs)?"""
        return head_of(x) in self.forms.only[Kind.GROUPS]

    @form(None, "(INDEX GROUPS)", Kind.LOC, pure=True, label="group")
    def c_group_pick(self, x: SList, scope: Scope) -> Callable:
        """(INDEX GROUPS)

        The group at the 0-based INDEX of a group list; (top GROUPS) is its first group and
        (bottom GROUPS) its last (the opposite ends from a location's)."""
        items = x.items
        groups = self.c_groups(items[1], scope)
        h = head_of(x)
        span = x.span
        if h == "top":
            pos = lambda s, e: 0  # noqa: E731
        elif h == "bottom":
            pos = lambda s, e: -1  # noqa: E731
        else:
            pos = self.c_int(items[0], scope)

        def pick(s, e):
            g = groups(s, e)
            i = pos(s, e)
            if -len(g) <= i < len(g) and g:
                return g[i]
            rt_error(
                f"no group {'at ' + str(i) if h not in ('top', 'bottom') else h} in a list of {len(g)} groups",
                span,
                h or str(items[0]),
            )

        return pick

    def c_groups(self, x, scope: Scope) -> Callable:
        """A list of groups: a variable or a group-list form."""
        if isinstance(x, Atom) and x.kind == VAR:
            f = self.c_var(x, scope)
            span, name = x.span, x.value

            def var_groups(s, e):
                v = f(s, e)
                if isinstance(v, list):
                    return v
                rt_error(f"'{name} holds {describe_value(v)}, not a list of groups", span)

            return var_groups
        f = self.by_head(Kind.GROUPS, x, scope)
        if f is not None:
            return f
        if head_of(x) == "filter":  # a filter over a group list: the groups for which it holds
            return self.c_cards(x, scope)
        fail(f"expected a list of groups, got {self.form_name(x)}", x)

    @form(
        "partition",
        "(partition KEY LOCATION ...) | (partition KEY (all COLLECTION 'VARIABLE LOCATION))",
        Kind.GROUPS,
        pure=True,
        expensive=True,
        words="partition by {1} of {2+, }",
    )
    def groups_partition(self, x: SList, scope: Scope) -> Callable:
        """(partition KEY LOCATION ...) | (partition KEY (all COLLECTION 'VARIABLE LOCATION))

        The cards split into groups of equal KEY value, in order of first appearance (cards
        lacking KEY form the empty-string group)."""
        items = x.items
        if len(items) < 3:
            fail("expected (partition KEY LOCATION...)", x, "partition")
        key = self.storage_name(items[1], scope)
        card_table = self.cards
        span = x.span
        if len(items) == 3 and head_of(items[2]) != "all":
            cards = self.c_cards(items[2], scope)
            if isinstance(key, str):
                col = card_table.column(key)

                def partition1(s, e):
                    groups: dict = {}
                    lst = cards(s, e)
                    if len(lst) > SMALL:  # a partition is a leaf: a hand is paid for by the form
                        s.work -= len(lst)
                        if s.work < 0:
                            out_of_work(s, span, "partition")
                    for c in lst:
                        k = col[c]
                        g = groups.get(k)
                        if g is None:
                            groups[k] = [c]
                        else:
                            g.append(c)
                    return Groups(groups.values())

                return partition1
        parts = self.c_loc_list(items[2:], scope, x)
        key_fn = (lambda s, e: key) if isinstance(key, str) else key

        attrs = card_table.attrs
        const_key = isinstance(key, str)

        def partition(s, e):
            k = key_fn(s, e)
            groups: dict = {}
            lists = parts(s, e)
            total = sum(map(len, lists))
            if total > MAX_COLLECTION:
                rt_error(f"(partition ...) of {total} cards (limit {MAX_COLLECTION})", span, "partition")
            s.work -= total + len(lists)
            if s.work < 0:
                out_of_work(s, span, "partition")
            if const_key:
                col = card_table.column(k)
                for lst in lists:
                    for c in lst:
                        groups.setdefault(col[c], []).append(c)
            else:  # a computed key is looked up card by card: no column per key
                for lst in lists:
                    for c in lst:
                        groups.setdefault(attrs[c].get(k, ""), []).append(c)
            return Groups(groups.values())

        return partition

    @form("tuples", "(tuples N LOCATION using POINTS)", Kind.GROUPS, pure=True, expensive=True)
    def groups_tuples(self, x: SList, scope: Scope) -> Callable:
        """(tuples N LOCATION using POINTS)

        Every N-card combination of cards sharing one score: scores ascending, combinations
        in the location's order."""
        items = x.items
        span = x.span
        if len(items) != 5 or not kw(items[3], "using"):
            fail("expected (tuples N LOCATION using POINTS)", x, "tuples")
        nf = self.c_int(items[1], scope)
        cards = self.c_cards(items[2], scope)
        pts = self.c_points(items[4], scope)

        def tuples(s, e):
            k = nf(s, e)
            if not 1 <= k <= MAX_TUPLE:
                rt_error(f"(tuples {k} ...): the size of a tuple must be 1..{MAX_TUPLE}", span, "tuples")
            sc = pts(s, e).table
            by_score: dict = {}
            lst = cards(s, e)
            s.work -= len(lst)
            if s.work < 0:
                out_of_work(s, span, "tuples")
            for c in lst:
                by_score.setdefault(sc[c], []).append(c)
            groups = sum(math.comb(len(g), k) for g in by_score.values())
            if groups > MAX_COLLECTION:
                rt_error("tuples would make too many groups", span, "tuples")
            s.work -= groups * k
            if s.work < 0:
                out_of_work(s, span, "tuples")
            out = Groups()
            for score in sorted(by_score):
                for combo in itertools.combinations(by_score[score], k):
                    out.append(list(combo))
                    if len(out) > MAX_COLLECTION:
                        rt_error("tuples would make too many groups", span, "tuples")
            return out

        return tuples

    @form("subsets", "(subsets LOCATION)", Kind.GROUPS, pure=True, expensive=True, words="subsets {1}")
    def groups_subsets(self, x: SList, scope: Scope) -> Callable:
        """(subsets LOCATION)

        All 2^n subsets of the location's cards, the empty one included (at most 16 cards)."""
        self.arity(x, 2)
        cards = self.c_cards(x.items[1], scope)
        span = x.span

        def subsets(s, e):
            lst = cards(s, e)
            if len(lst) > 16:
                rt_error(f"subsets of {len(lst)} cards would make {2 ** len(lst)} groups (limit 2^16)", span, "subsets")
            s.work -= (len(lst) + 2) << max(0, len(lst) - 1)  # 2^n groups of n/2 cards on average
            if s.work < 0:
                out_of_work(s, span, "subsets")
            out = Groups()
            for r in range(len(lst) + 1):
                out.extend(list(c) for c in itertools.combinations(lst, r))
            return out

        return subsets

    @form("runs", "(runs largest|all N LOCATION using POINTS)", Kind.GROUPS, pure=True, expensive=True)
    def groups_runs(self, x: SList, scope: Scope) -> Callable:
        """(runs largest|all N LOCATION using POINTS)

        The runs of at least N cards whose scores rise by exactly 1 (every maximal run, or
        every run), one per choice among cards of equal score."""
        items = x.items
        span = x.span
        if len(items) != 6 or not kw(items[1], "largest", "all") or not kw(items[4], "using"):
            fail("expected (runs largest|all N LOCATION using POINTS)", x, "runs")
        largest = items[1].value == "largest"
        nf = self.c_int(items[2], scope)
        cards = self.c_cards(items[3], scope)
        pts = self.c_points(items[5], scope)

        def runs(s, e):
            return Groups(find_runs(s, cards(s, e), pts(s, e).table, nf(s, e), largest, span))

        return runs

    @form("let", "(let VALUE 'VARIABLE GROUPS)", Kind.GROUPS, pure=True, binds=True)
    def groups_let(self, x: SList, scope: Scope) -> Callable:
        """(let VALUE 'VARIABLE GROUPS)

        The group list, computed with VALUE (evaluated once) bound to 'VARIABLE."""
        return self.c_let_value(x, scope, self.c_groups)

    # -- collections (anything any/all/filter/size can range over) -------------------------
    def c_coll(self, x, scope: Scope) -> Callable:
        """A collection: player, team, a variable, a location or view, a group list, a team's
        members, a list of names, or a collection form."""
        players = self.players
        teams = self.teams
        if isinstance(x, Atom):
            if kw(x, "player"):
                return lambda s, e: players
            if kw(x, "team"):
                return lambda s, e: teams[: s.nteams]
            if x.kind == VAR:
                f = self.c_var(x, scope)
                span, name = x.span, x.value

                def var_coll(s, e):
                    v = f(s, e)
                    if isinstance(v, PLoc):
                        return s.locs[v.idx]
                    if isinstance(v, (list, range)):
                        return v
                    if isinstance(v, TeamId):
                        return [players[p] for p in s.team_members[v]]
                    rt_error(f"'{name} holds {describe_value(v)}, not a collection", span)

                return var_coll
            fail(f"expected a collection, got {x}", x)
        if is_location_form(x):
            return self.c_cards(x, scope)
        if self.is_groups_form(x):
            return self.c_groups(x, scope)
        f = self.by_head(Kind.COLL, x, scope)
        if f is not None:
            return f
        return self.c_coll_shape(x, scope)

    def c_coll_shape(self, x: SList, scope: Scope) -> Callable:
        """The collections known by their shape: a team's members, a list of names; else the
        cards of a location or view."""
        items = x.items
        if (len(items) == 2 and kw(items[1], "team")) or head_of(x) in self.forms.only[Kind.TEAM]:
            t = self.c_team(x, scope)
            players = self.players
            return lambda s, e: [players[p] for p in s.team_members[t(s, e)]]
        names = literal_names(x)
        if names is not None:
            return lambda s, e: names
        return self.c_cards(x, scope)

    @form("range", "(range A..B)", Kind.COLL, pure=True, words="{1}..{3}")
    def coll_range(self, x: SList, scope: Scope) -> Callable:
        """(range A..B)

        The integers A, A+1, ..., B (empty when B < A)."""
        items = x.items
        if len(items) != 4 or not is_atom(items[2], DOTDOT):
            fail("expected (range A..B)", x, "range")
        lo, hi = self.c_int(items[1], scope), self.c_int(items[3], scope)
        span = x.span

        def range_(s, e):
            a, b = lo(s, e), hi(s, e)
            if b - a > MAX_COLLECTION:
                rt_error(f"(range {a}..{b}) is too long", span, "range")
            return range(a, b + 1)

        return range_

    @form("other", "(other player) | (other team)", Kind.COLL, role="players", words="other {1}s")
    def coll_other(self, x: SList, scope: Scope) -> Callable:
        """(other player) | (other team)

        Every player (team) except the current one, by index."""
        items = x.items
        if len(items) != 2 or not kw(items[1], "player", "team"):
            fail("expected (other player) or (other team)", x, "other")
        players, teams = self.players, self.teams
        if items[1].value == "player":
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
    )
    def coll_all(self, x: SList, scope: Scope) -> Callable:
        """(all COLLECTION 'VARIABLE LOCATION)

        A list of locations, one per element bound to 'VARIABLE (the argument of union,
        intersect, disjunction and partition)."""
        if len(x.items) == 4 and head_of(x.items[3]) not in self.forms.only[Kind.BOOL]:
            return self.c_loc_list([x], scope, x)
        return self.c_coll_shape(x, scope)

    @form("let", "(let VALUE 'VARIABLE COLLECTION)", Kind.COLL, pure=True, binds=True)
    def coll_let(self, x: SList, scope: Scope) -> Callable:
        """(let VALUE 'VARIABLE COLLECTION)

        The collection, computed with VALUE (evaluated once) bound to 'VARIABLE."""
        return self.c_let_value(x, scope, self.c_coll)


mention(__name__, ("top", "bottom", "filter", "all"))
