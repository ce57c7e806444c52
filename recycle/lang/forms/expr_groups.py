"""Compiling RECYCLE's group lists (partition, tuples, subsets, runs) and collections
(anything any/all/filter/size can range over) into closures ``f(state, env)``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

from .reads import reads_node
from ..nodes.base import Const, Everyone, FormNode, Loc, Names, Unread, Var, written
from ..nodes.groups import Each, LetColl, LetGroups, Members, Others, Partition, Pick, Range, Runs, Subsets, Tuples
from .registry import Kind, form
from .runtime import out_of_work
from .runtime import MAX_TUPLE, SMALL, describe_value, rt_error
from ..nodes.sexpr import MAX_COLLECTION, Scope, fail
from .values import Groups, PLoc, TeamId


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


class GroupForms:
    """Group lists and collections in the compiler (a mixin of ``FlowCompiler``)."""

    # -- groups ----------------------------------------------------------------------------
    @form(None, "(INDEX GROUPS)", Kind.LOC, pure=True, label="group")
    @reads_node
    def c_group_pick(self, x: Pick, scope: Scope) -> Callable:
        """(INDEX GROUPS)

        The group at the 0-based INDEX of a group list; (top GROUPS) is its first group and
        (bottom GROUPS) its last (the opposite ends from a location's)."""
        groups = self.c_groups(x.groups, scope)
        end = x.index if isinstance(x.index, str) else None  # top or bottom
        span = x.span
        if end == "top":
            pos = lambda s, e: 0  # noqa: E731
        elif end == "bottom":
            pos = lambda s, e: -1  # noqa: E731
        else:
            pos = self.c_int(x.index, scope)

        def pick(s, e):
            g = groups(s, e)
            i = pos(s, e)
            if -len(g) <= i < len(g) and g:
                return g[i]
            rt_error(
                f"no group {'at ' + str(i) if end is None else end} in a list of {len(g)} groups",
                span,
                end or written(x.index),
            )

        return pick

    def c_groups(self, x, scope: Scope) -> Callable:
        """A list of groups: a variable, a group-list form, or a filter of one."""
        if isinstance(x, (Var, Const)):
            f = self.c_var(x, scope)
            span, name = x.span, x.name

            def var_groups(s, e):
                v = f(s, e)
                if isinstance(v, list):
                    return v
                rt_error(f"'{name} holds {describe_value(v)}, not a list of groups", span)

            return var_groups
        if isinstance(x, (FormNode, Unread)):  # (a filter over a group list: the groups for which it holds)
            return self.form_of(x, scope)
        fail(f"expected a list of groups, got {self.form_name(x)}", x)

    @form(
        "partition",
        "(partition KEY LOCATION ...) | (partition KEY (all COLLECTION 'VARIABLE LOCATION))",
        Kind.GROUPS,
        pure=True,
        expensive=True,
        words="partition by {1} of {2+, }",
    )
    @reads_node
    def groups_partition(self, x: Partition, scope: Scope) -> Callable:
        """(partition KEY LOCATION ...) | (partition KEY (all COLLECTION 'VARIABLE LOCATION))

        The cards split into groups of equal KEY value, in order of first appearance (cards
        lacking KEY form the empty-string group)."""
        key = self.storage_name(x.key, scope)
        card_table = self.cards
        span = x.span
        if not isinstance(x.parts, Each) and len(x.parts) == 1:
            cards = self.c_cards(x.parts[0], scope)
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
        parts = self.c_loc_list(x.parts, scope)
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
    @reads_node
    def groups_tuples(self, x: Tuples, scope: Scope) -> Callable:
        """(tuples N LOCATION using POINTS)

        Every N-card combination of cards sharing one score: scores ascending, combinations
        in the location's order."""
        span = x.span
        nf = self.c_int(x.n, scope)
        cards = self.c_cards(x.location, scope)
        pts = self.c_points(x.points, scope)

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
    @reads_node
    def groups_subsets(self, x: Subsets, scope: Scope) -> Callable:
        """(subsets LOCATION)

        All 2^n subsets of the location's cards, the empty one included (at most 16 cards)."""
        cards = self.c_cards(x.location, scope)
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
    @reads_node
    def groups_runs(self, x: Runs, scope: Scope) -> Callable:
        """(runs largest|all N LOCATION using POINTS)

        The runs of at least N cards whose scores rise by exactly 1 (every maximal run, or
        every run), one per choice among cards of equal score."""
        span = x.span
        largest = x.largest
        nf = self.c_int(x.n, scope)
        cards = self.c_cards(x.location, scope)
        pts = self.c_points(x.points, scope)

        def runs(s, e):
            return Groups(find_runs(s, cards(s, e), pts(s, e).table, nf(s, e), largest, span))

        return runs

    @form("let", "(let VALUE 'VARIABLE GROUPS)", Kind.GROUPS, pure=True, binds=True)
    @reads_node
    def groups_let(self, x: LetGroups, scope: Scope) -> Callable:
        """(let VALUE 'VARIABLE GROUPS)

        The group list, computed with VALUE (evaluated once) bound to 'VARIABLE."""
        return self.c_let_value(x, scope, self.c_groups)

    # -- collections (anything any/all/filter/size can range over) -------------------------
    def c_coll(self, x, scope: Scope) -> Callable:
        """A collection: player, team, a variable, a location or view, a group list, a team's
        members, a list of names, or a collection form."""
        players = self.players
        teams = self.teams
        match x:
            case Everyone(what="player"):
                return lambda s, e: players
            case Everyone(what="team"):
                return lambda s, e: teams[: s.nteams]
            case Var() | Const():
                f = self.c_var(x, scope)
                span, name = x.span, x.name

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
            case Loc():
                return self.c_cards(x, scope)
            case Names():
                names = list(x.values)
                return lambda s, e: names
            case FormNode() | Unread():
                return self.form_of(x, scope)
        fail(f"expected a collection, got {self.form_name(x)}", x)

    def c_members(self, x: Members, scope: Scope) -> Callable:
        """A team as a collection: its players."""
        t = self.c_team(x.team, scope)
        players = self.players
        return lambda s, e: [players[p] for p in s.team_members[t(s, e)]]

    @form("range", "(range A..B)", Kind.COLL, pure=True, words="{1}..{3}")
    @reads_node
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

    @form("other", "(other player) | (other team)", Kind.COLL, role="players", words="other {1}s")
    @reads_node
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
    )
    @reads_node
    def coll_all(self, x: Each, scope: Scope) -> Callable:
        """(all COLLECTION 'VARIABLE LOCATION)

        A list of locations, one per element bound to 'VARIABLE (the argument of union,
        intersect, disjunction and partition)."""
        return self.c_loc_list(x, scope)

    @form("let", "(let VALUE 'VARIABLE COLLECTION)", Kind.COLL, pure=True, binds=True)
    @reads_node
    def coll_let(self, x: LetColl, scope: Scope) -> Callable:
        """(let VALUE 'VARIABLE COLLECTION)

        The collection, computed with VALUE (evaluated once) bound to 'VARIABLE."""
        return self.c_let_value(x, scope, self.c_coll)
