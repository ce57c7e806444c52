"""Compiling RECYCLE's card-valued forms into closures ``f(state, env)``: players and
teams, cards, locations and views, group lists, and collections.
"""

from __future__ import annotations

import itertools
from typing import Callable

from .syntax import COMMA, DOTDOT, INT, SYMBOL, VAR, Atom, SList
from .values import Card, Groups, PLoc, PlayerId, TeamId
from .shapes import (MAX_COLLECTION, MAX_TUPLE, GROUP_HEADS, BOOL_HEADS, fail, rt_error, is_atom, kw, head_of, is_location_form, describe_value, Scope, find_runs, tag, value_hint)


class CardForms:
    """Card half of the expression compiler (a mixin of ``FlowCompiler``)."""

    # -- players and teams -----------------------------------------------------------------
    def c_player(self, x, scope: Scope) -> Callable:
        players = self.players
        n = self.layout.nplayers
        if isinstance(x, Atom) and x.kind == VAR:
            f = self.c_var(x, scope)
            span, name = x.span, x.value

            def var_player(s, e):
                v = f(s, e)
                if isinstance(v, PlayerId):
                    return v
                rt_error(f"'{name} holds {describe_value(v)}, not a player", span)
            return var_player
        if isinstance(x, SList) and len(x.items) == 2 and kw(x.items[1], "player"):
            which = x.items[0]
            if kw(which, "current"):
                return lambda s, e: players[s.pstack[-1][0]]

            if kw(which, "next"):
                def next_player(s, e):
                    top = s.pstack[-1]
                    q = top[1]
                    return players[q] if q is not None else players[(top[0] + 1) % n]
                return next_player
            if kw(which, "previous"):
                return lambda s, e: players[(s.pstack[-1][0] - 1) % n]
            i = self.c_int(which, scope)
            span = x.span

            def nth_player(s, e):
                k = i(s, e)
                if 0 <= k < n:
                    return players[k]
                rt_error(f"there is no player {k} (players are 0..{n - 1})", span)
            return nth_player
        if head_of(x) == "owner":
            self.arity(x, 2)
            card = self.c_card(x.items[1], scope)
            span = x.span
            layout = self.layout

            def owner(s, e):
                info = layout.info(s.card_loc[card(s, e)])
                if info.owner_kind == "player":
                    return players[info.owner]
                rt_error(f"the card is in {info.label}, which no player owns", span, "owner")
            return owner
        fail(f"expected a player, got {self.form_name(x)}", x)

    def c_team(self, x, scope: Scope) -> Callable:
        teams = self.teams
        if isinstance(x, Atom) and x.kind == VAR:
            f = self.c_var(x, scope)
            span, name = x.span, x.value

            def var_team(s, e):
                v = f(s, e)
                if isinstance(v, TeamId):
                    return v
                rt_error(f"'{name} holds {describe_value(v)}, not a team", span)
            return var_team
        if isinstance(x, SList) and len(x.items) == 2 and kw(x.items[1], "team"):
            which = x.items[0]
            if kw(which, "current"):
                return lambda s, e: teams[s.tstack[-1][0]]
            if kw(which, "next"):
                def next_team(s, e):
                    top = s.tstack[-1]
                    return teams[top[1]] if top[1] is not None else teams[(top[0] + 1) % s.nteams]
                return next_team
            if kw(which, "previous"):
                return lambda s, e: teams[(s.tstack[-1][0] - 1) % s.nteams]
            i = self.c_int(which, scope)
            span = x.span

            def nth_team(s, e):
                k = i(s, e)
                if 0 <= k < s.nteams:
                    return teams[k]
                rt_error(f"there is no team {k}", span)
            return nth_team
        if head_of(x) == "team":
            self.arity(x, 2)
            p = self.c_player(x.items[1], scope)
            span = x.span

            def team_of(s, e):
                t = s.team_of[p(s, e)]
                if t is None:
                    rt_error("that player is on no team", span, "team")
                return teams[t]
            return team_of
        fail(f"expected a team, got {self.form_name(x)}", x)

    # -- cards -----------------------------------------------------------------------------
    def c_card(self, x, scope: Scope, optional: bool = False) -> Callable:
        """A card expression → closure giving a Card (or None when ``optional`` and empty)."""
        if isinstance(x, Atom) and x.kind == VAR:
            f = self.c_var(x, scope)
            span, name = x.span, x.value
            if scope.hint(name) == "card":
                return f

            def var_card(s, e):
                v = f(s, e)
                if isinstance(v, Card) or (optional and v is None):
                    return v
                rt_error(f"'{name} holds {describe_value(v)}, not a card", span)
            return var_card
        h = head_of(x)
        if not isinstance(x, SList):
            fail(f"expected a card, got {x}", x)
        items = x.items
        span = x.span
        if h in ("top", "bottom") or (items and is_atom(items[0], INT)) or (
                items and is_atom(items[0], VAR) and len(items) == 2):
            if len(items) != 2:
                fail("expected (top LOCATION), (bottom LOCATION) or (INDEX LOCATION)", x)
            cards = self.c_cards(items[1], scope, first_group=True)
            where = f"({items[0]} ...)"
            if h == "top":
                def top(s, e):
                    lst = cards(s, e)
                    if lst:
                        return lst[-1]
                    if optional:
                        return None
                    rt_error("(top ...) of an empty location", span, "top")
                return top
            if h == "bottom":
                def bottom(s, e):
                    lst = cards(s, e)
                    if lst:
                        return lst[0]
                    if optional:
                        return None
                    rt_error("(bottom ...) of an empty location", span, "bottom")
                return bottom
            idx = self.c_int(items[0], scope)

            def nth(s, e):
                lst = cards(s, e)
                i = idx(s, e)
                if 0 <= i < len(lst):
                    return lst[i]
                if optional:
                    return None
                rt_error(f"index {i} out of range for a location of {len(lst)} cards", span, where)
            return nth
        if h in ("max", "min"):
            if len(items) != 4 or not kw(items[2], "using"):
                fail(f"expected ({h} LOCATION using POINTS)", x, h)
            cards = self.c_cards(items[1], scope)
            pts = self.c_points(items[3], scope)
            pick_max = h == "max"

            def extreme(s, e):
                lst = cards(s, e)
                if not lst:
                    if optional:
                        return None
                    rt_error(f"({h} ...) of an empty location", span, h)
                sc = pts(s, e).table
                best = max(sc[c] for c in lst) if pick_max else min(sc[c] for c in lst)
                tied = [c for c in lst if sc[c] == best]
                return tied[0] if len(tied) == 1 else tied[s.rng.randrange(len(tied))]
            return extreme
        if h == "actual":
            self.arity(x, 2)
            return self.c_card(items[1], scope, optional)
        fail(f"expected a card, got {self.form_name(x)}", x)

    # -- locations -------------------------------------------------------------------------
    def static_loc_index(self, x: SList, scope: Scope):
        """The constant index of ``(game KIND NAME)`` with a literal name, else None."""
        if is_location_form(x) and kw(x.items[0], "game"):
            name = self.storage_name(x.items[2], scope)
            if isinstance(name, str):
                return self.layout.loc_block(x.items[1].value, name)
        return None

    def c_loc_index(self, x, scope: Scope, purpose: str = "a location") -> Callable:
        """A physical location expression → closure giving its index in ``state.locs``."""
        if isinstance(x, Atom) and x.kind == VAR:
            f = self.c_var(x, scope)
            span, name = x.span, x.value

            def var_loc(s, e):
                v = f(s, e)
                if isinstance(v, PLoc):
                    return v.idx
                rt_error(f"'{name} holds {describe_value(v)}, not {purpose}", span)
            return var_loc
        if not is_location_form(x):
            fail(f"expected {purpose} (OWNER KIND NAME), got {self.form_name(x)}", x)
        kind = x.items[1].value
        name = self.storage_name(x.items[2], scope)
        layout = self.layout
        if isinstance(name, str):
            base = layout.loc_block(kind, name)
            o = x.items[0]
            if kw(o, "game"):
                return lambda s, e: base
            if isinstance(o, SList) and len(o.items) == 2 and kw(o.items[0], "current") and kw(o.items[1], "player"):
                b1 = base + 1
                return tag(lambda s, e: b1 + s.pstack[-1][0], loc_current=b1)
            owner = self.c_owner(o, scope, "a location owner")
            return lambda s, e: base + owner(s, e)
        owner = self.c_owner(x.items[0], scope, "a location owner")
        name_fn = name

        bases: dict = {}
        width = layout.width

        def dyn_loc(s, e):
            nm = name_fn(s, e)
            b = bases.get(nm)
            if b is None:
                b = bases[nm] = layout.loc_block(kind, nm)
            if b + width > len(s.locs):
                s.grow_locs()
            return b + owner(s, e)
        return dyn_loc

    def c_locval(self, x, scope: Scope) -> Callable:
        """A location as a value: PLoc for a physical location, a list for a view."""
        if is_location_form(x):
            idx = self.c_loc_index(x, scope)
            return lambda s, e: PLoc(idx(s, e))
        return self.c_cards(x, scope)

    def c_cards(self, x, scope: Scope, first_group: bool = False) -> Callable:
        """A location or view → closure giving its cards (bottom first).

        For a physical location the live list is returned: callers that move cards while
        iterating must copy it. With ``first_group``, a variable holding a list of groups
        stands for its first group (``(top 'PAIRS)`` as a card: the top card of the first
        pair, our reading of a form the reference rejects; docs/language.md).
        """
        if isinstance(x, Atom) and x.kind == VAR:
            f = self.c_var(x, scope)
            span, name = x.span, x.value

            hint = scope.hint(name)
            if hint == "cards":
                return tag(f, var_slot=scope.lookup(name))
            if hint == "loc":
                slot = scope.lookup(name)
                return lambda s, e: s.locs[e[slot].idx]

            def var_cards(s, e):
                v = f(s, e)
                if isinstance(v, PLoc):
                    return s.locs[v.idx]
                if isinstance(v, list) and not isinstance(v, Groups):
                    return v
                if first_group and isinstance(v, Groups):
                    return v[0] if v else []
                rt_error(f"'{name} holds {describe_value(v)}, not a location", span)
            return var_cards
        if is_location_form(x):
            const = self.static_loc_index(x, scope)
            if const is not None:
                return tag(lambda s, e: s.locs[const], loc_const=const)
            o, name = x.items[0], x.items[2]
            if is_atom(o, VAR) and scope.hint(o.value) == "player" and is_atom(name, SYMBOL):
                b1 = self.layout.loc_block(x.items[1].value, name.value) + 1
                slot = scope.lookup(o.value)
                return tag(lambda s, e: s.locs[b1 + e[slot]], loc_player_var=(b1, slot))
            if isinstance(o, SList) and len(o.items) == 2 and kw(o.items[0], "current") and kw(o.items[1], "player") \
                    and is_atom(name, SYMBOL):
                b1 = self.layout.loc_block(x.items[1].value, name.value) + 1
                return tag(lambda s, e: s.locs[b1 + s.pstack[-1][0]], loc_current=b1)
            idx = self.c_loc_index(x, scope)
            return lambda s, e: s.locs[idx(s, e)]
        h = head_of(x)
        items = x.items if isinstance(x, SList) else ()
        span = getattr(x, "span", None)
        if h in ("union", "intersect", "disjunction"):
            parts = self.c_loc_list(items[1:], scope, x)
            if h == "union":
                def union(s, e):
                    out = []
                    for p in parts(s, e):
                        out.extend(p)
                    return out
                return union
            if h == "intersect":
                def intersect(s, e):
                    lists = parts(s, e)
                    if not lists:
                        return []
                    rest = [set(l) for l in lists[1:]]
                    return [c for c in lists[0] if all(c in r for r in rest)]
                return intersect

            def disjunction(s, e):
                count: dict = {}
                order = []
                for l in parts(s, e):
                    for c in l:
                        if c not in count:
                            order.append(c)
                        count[c] = count.get(c, 0) + 1
                return [c for c in order if count[c] == 1]
            return disjunction
        if h == "sort":
            if len(items) != 4 or not kw(items[2], "using"):
                fail("expected (sort LOCATION using POINTS)", x, "sort")
            cards = self.c_cards(items[1], scope)
            pts = self.c_points(items[3], scope)

            def sort(s, e):
                sc = pts(s, e).table
                return sorted(cards(s, e), key=sc.__getitem__)
            return sort
        if h == "filter":
            coll, slot, cond = self.c_binder(x, scope, self.c_bool)

            def filter_(s, e):
                out = []
                for v in coll(s, e):
                    e[slot] = v
                    if cond(s, e):
                        out.append(v)
                return out
            return filter_
        if h == "run":
            if len(items) != 6 or not kw(items[1], "top", "bottom") or not kw(items[4], "using"):
                fail("expected (run top|bottom N LOCATION using POINTS)", x, "run")
            from_top = items[1].value == "top"
            nmin = self.c_int(items[2], scope)
            cards = self.c_cards(items[3], scope)
            pts = self.c_points(items[5], scope)

            def run_(s, e):
                lst = cards(s, e)
                sc = pts(s, e).table
                best: list = []
                for k in range(max(nmin(s, e), 1), len(lst) + 1):
                    chunk = lst[-k:] if from_top else lst[:k]
                    vals = sorted(chunk, key=sc.__getitem__)
                    if all(sc[vals[i + 1]] - sc[vals[i]] == 1 for i in range(len(vals) - 1)):
                        best = vals
                return best
            return run_
        if h in ("top", "bottom") or (items and is_atom(items[0], INT)) or (items and is_atom(items[0], VAR)):
            if len(items) == 2:
                return self.c_group_pick(x, scope)
            if len(items) == 3 and h in ("top", "bottom"):
                nf = self.c_int(items[1], scope)
                cards = self.c_cards(items[2], scope)
                top = h == "top"

                def first_n(s, e):
                    lst = cards(s, e)
                    k = nf(s, e)
                    if k < 0 or k > len(lst):
                        rt_error(f"({h} {k} ...) of a location of {len(lst)} cards", span, h)
                    if k == 0:
                        return []
                    return lst[-k:][::-1] if top else lst[:k]
                return first_n
        if h == "let":
            return self.c_let_value(x, scope, self.c_cards)
        fail(f"expected a location, got {self.form_name(x)}", x)

    def c_let_value(self, x, scope, body_compiler):
        if len(x.items) != 4 or not is_atom(x.items[2], VAR):
            fail("expected (let VALUE 'VARIABLE BODY)", x, "let")
        val = self.c_value(x.items[1], scope)
        slot = self.new_slot()
        body = body_compiler(x.items[3], scope.bind(x.items[2].value, slot, value_hint(x.items[1], scope)))

        def let_(s, e):
            e[slot] = val(s, e)
            return body(s, e)
        return let_

    def c_loc_list(self, items, scope, x) -> Callable:
        """Arguments of union/intersect/disjunction/partition: locations or (all C 'V LOC)."""
        if len(items) == 1 and head_of(items[0]) == "all":
            coll, slot, inner = self.c_binder(items[0], scope, self.c_cards)

            def each(s, e):
                out = []
                for v in coll(s, e):
                    e[slot] = v
                    out.append(inner(s, e))
                return out
            return each
        if not items:
            fail("expected one or more locations", x)
        parts = [self.c_cards(i, scope) for i in items]
        return lambda s, e: [p(s, e) for p in parts]

    # -- groups ----------------------------------------------------------------------------
    def is_groups_form(self, x) -> bool:
        return head_of(x) in GROUP_HEADS

    def c_group_pick(self, x: SList, scope: Scope) -> Callable:
        """(top G), (bottom G), (i G): one group of a group list (top = first)."""
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
            rt_error(f"no group {'at ' + str(i) if h not in ('top', 'bottom') else h} in a list of {len(g)} groups",
                     span, h or str(items[0]))
        return pick

    def c_groups(self, x, scope: Scope) -> Callable:
        if isinstance(x, Atom) and x.kind == VAR:
            f = self.c_var(x, scope)
            span, name = x.span, x.value

            def var_groups(s, e):
                v = f(s, e)
                if isinstance(v, list):
                    return v
                rt_error(f"'{name} holds {describe_value(v)}, not a list of groups", span)
            return var_groups
        h = head_of(x)
        items = x.items if isinstance(x, SList) else ()
        span = getattr(x, "span", None)
        if h == "partition":
            if len(items) < 3:
                fail("expected (partition KEY LOCATION...)", x, h)
            key = self.storage_name(items[1], scope)
            game = self.game
            if len(items) == 3 and head_of(items[2]) != "all":
                cards = self.c_cards(items[2], scope)
                if isinstance(key, str):
                    col = game.attr_column(key)

                    def partition1(s, e):
                        groups: dict = {}
                        for c in cards(s, e):
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

            def partition(s, e):
                col = game.attr_column(key_fn(s, e))
                groups: dict = {}
                for lst in parts(s, e):
                    for c in lst:
                        groups.setdefault(col[c], []).append(c)
                return Groups(groups.values())
            return partition
        if h == "tuples":
            if len(items) != 5 or not kw(items[3], "using"):
                fail("expected (tuples N LOCATION using POINTS)", x, h)
            nf = self.c_int(items[1], scope)
            cards = self.c_cards(items[2], scope)
            pts = self.c_points(items[4], scope)

            def tuples(s, e):
                k = nf(s, e)
                if not 1 <= k <= MAX_TUPLE:
                    rt_error(f"(tuples {k} ...): the size of a tuple must be 1..{MAX_TUPLE}", span, h)
                sc = pts(s, e).table
                by_score: dict = {}
                for c in cards(s, e):
                    by_score.setdefault(sc[c], []).append(c)
                out = Groups()
                for score in sorted(by_score):
                    for combo in itertools.combinations(by_score[score], k):
                        out.append(list(combo))
                        if len(out) > MAX_COLLECTION:
                            rt_error("tuples would make too many groups", span, h)
                return out
            return tuples
        if h == "subsets":
            self.arity(x, 2)
            cards = self.c_cards(items[1], scope)

            def subsets(s, e):
                lst = cards(s, e)
                if len(lst) > 16:
                    rt_error(f"subsets of {len(lst)} cards would make {2 ** len(lst)} groups (limit 2^16)", span, h)
                out = Groups()
                for r in range(len(lst) + 1):
                    out.extend(list(c) for c in itertools.combinations(lst, r))
                return out
            return subsets
        if h == "runs":
            if len(items) != 6 or not kw(items[1], "largest", "all") or not kw(items[4], "using"):
                fail("expected (runs largest|all N LOCATION using POINTS)", x, h)
            largest = items[1].value == "largest"
            nf = self.c_int(items[2], scope)
            cards = self.c_cards(items[3], scope)
            pts = self.c_points(items[5], scope)

            def runs(s, e):
                return Groups(find_runs(cards(s, e), pts(s, e).table, nf(s, e), largest, span))
            return runs
        if h == "filter":
            return self.c_cards(x, scope)
        if h == "let":
            return self.c_let_value(x, scope, self.c_groups)
        fail(f"expected a list of groups, got {self.form_name(x)}", x)

    # -- collections (anything any/all/filter/size can range over) -------------------------
    def c_coll(self, x, scope: Scope) -> Callable:
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
        items = x.items
        h = head_of(x)
        if is_location_form(x):
            return self.c_cards(x, scope)
        if h in GROUP_HEADS:
            return self.c_groups(x, scope)
        if h == "range":
            if len(items) != 4 or not is_atom(items[2], DOTDOT):
                fail("expected (range A..B)", x, h)
            lo, hi = self.c_int(items[1], scope), self.c_int(items[3], scope)
            span = x.span

            def range_(s, e):
                a, b = lo(s, e), hi(s, e)
                if b - a > MAX_COLLECTION:
                    rt_error(f"(range {a}..{b}) is too long", span, "range")
                return range(a, b + 1)
            return range_
        if h == "other":
            if len(items) != 2 or not kw(items[1], "player", "team"):
                fail("expected (other player) or (other team)", x, h)
            if items[1].value == "player":
                return lambda s, e: [p for p in players if p != s.pstack[-1][0]]
            return lambda s, e: [t for t in teams[: s.nteams] if t != s.tstack[-1][0]]
        if h == "all" and len(items) == 4 and not (head_of(items[3]) in BOOL_HEADS):
            return self.c_loc_list([x], scope, x)
        if h == "let":
            return self.c_let_value(x, scope, self.c_coll)
        if len(items) == 2 and kw(items[1], "team") or h == "team":
            t = self.c_team(x, scope)
            return lambda s, e: [players[p] for p in s.team_members[t(s, e)]]
        if items and all(isinstance(i, Atom) and (i.is_name or i.kind == COMMA) for i in items):
            names = [i.value for i in items if i.kind == SYMBOL]
            return lambda s, e: names
        return self.c_cards(x, scope)

    # -- helpers ---------------------------------------------------------------------------
    def arity(self, x: SList, n: int) -> None:
        if len(x.items) != n:
            h = head_of(x) or "form"
            fail(f"({h} ...) takes {n - 1} argument{'s' if n != 2 else ''}, got {len(x.items) - 1}", x, h)

    @staticmethod
    def form_name(x) -> str:
        if isinstance(x, Atom):
            return f"'{x}'" if x.kind != VAR else str(x)
        h = head_of(x)
        if h:
            return f"({h} ...)"
        return "()" if not x.items else "a form " + str(x)[:40]


