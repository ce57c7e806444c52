"""Compiling RECYCLE's actions into items: moving cards, swaps, memory, shuffles,
storage, turn order, repeats, and creating decks and teams.
"""

from __future__ import annotations

import itertools

from .shapes import (MAX_COLLECTION, MAX_INT, Scope, fail, head_of, is_atom, is_location_form, is_storage_form, kw,
                     rt_error)
from .syntax import COLON, INT, VAR, Atom, SList
from .values import MEMORY, Card, PLoc
from .shapes import deck_combinations
from .items import (MAX_REPEAT, out_of_work, Item, compose, shuffle, place, bulk_repeat, record_move, record_storage)


class ActionForms:
    """The actions of the compiler (a mixin of ``FlowCompiler``)."""

    # -- card movement ---------------------------------------------------------------------
    def c_dest(self, x, scope: Scope):
        """(top|bottom|i LOCATION) as a destination → (index closure, position closure or str)."""
        if not isinstance(x, SList) or len(x.items) != 2:
            fail(f"expected a destination (top LOCATION), (bottom LOCATION) or (INDEX LOCATION), "
                 f"got {self.form_name(x)}", x)
        where, loc = x.items
        if not (is_location_form(loc) or is_atom(loc, VAR)):
            fail(f"cards can only be moved into a physical location (OWNER KIND NAME), not {self.form_name(loc)}",
                 loc)
        if is_location_form(loc) and loc.items[1].value == "mem":
            fail("cards cannot be moved into a mem location (use remember)", loc)
        idx = self.c_loc_index(loc, scope, "a location to move into")
        if kw(where, "top"):
            return idx, "top"
        if kw(where, "bottom"):
            return idx, "bottom"
        return idx, self.c_int(where, scope)

    def c_source(self, x, scope: Scope):
        """A card to take → closure returning (card, list it was picked from or None)."""
        if isinstance(x, SList) and len(x.items) == 2 and (kw(x.items[0], "top", "bottom") or is_atom(x.items[0], INT)
                                                          or is_atom(x.items[0], VAR)) \
                and not kw(x.items[1], "player", "team") and not self.is_groups_form(x.items[1]):
            where, loc = x.items
            cards = self.c_cards(loc, scope, first_group=True)
            span = x.span
            label = f"({where} ...)"
            if kw(where, "top"):
                def src(s, e):
                    lst = cards(s, e)
                    if not lst:
                        rt_error("move from an empty location", span, "top")
                    return lst[-1], lst
            elif kw(where, "bottom"):
                def src(s, e):
                    lst = cards(s, e)
                    if not lst:
                        rt_error("move from an empty location", span, "bottom")
                    return lst[0], lst
            else:
                ifn = self.c_int(where, scope)

                def src(s, e):
                    lst = cards(s, e)
                    i = ifn(s, e)
                    if not 0 <= i < len(lst):
                        rt_error(f"index {i} out of range for a location of {len(lst)} cards", span, label)
                    return lst[i], lst
            return src
        if head_of(x) == "actual":
            self.arity(x, 2)
            return self.c_source(x.items[1], scope)
        card = self.c_card(x, scope, optional=True)
        span = getattr(x, "span", None)

        def src_card(s, e):
            c = card(s, e)
            if c is None:
                rt_error("the card reference names no card", span)
            return c, None
        return src_card

    def a_move(self, x: SList, scope: Scope) -> Item:
        self.arity(x, 3)
        layout = self.layout
        dst, pos = self.c_dest(x.items[2], scope)
        src_node = x.items[1]
        span = x.span
        # Fast path: (move (top (OWNER KIND NAME)) (top (OWNER KIND NAME))), the deal.
        if self.fast and isinstance(src_node, SList) and len(src_node.items) == 2 and kw(src_node.items[0], "top") \
                and is_location_form(src_node.items[1]) and pos == "top":
            sidx = self.c_loc_index(src_node.items[1], scope)
            infos = layout.infos
            const_src = self.static_loc_index(src_node.items[1], scope)
            const_dst = self.static_loc_index(x.items[2].items[1], scope)
            if const_src is not None:
                # the deal: from a fixed pile to the top of another
                def move_top_from_pile(s, e):
                    lst = s.locs[const_src]
                    if not lst:
                        rt_error(f"move from the empty location {infos[const_src].label}", span, "move")
                    c = lst.pop()
                    d = const_dst if const_dst is not None else dst(s, e)
                    s.locs[d].append(c)
                    s.card_loc[c] = d
                    if s.events is not None:
                        record_move(s, "move", c, const_src, d)
                item = Item(x, scope, run=move_top_from_pile, static=True)
                if self.stable_location(x.items[2].items[1], scope):
                    item.bulk = (sidx, dst)
                return item
            cur, const_dst = getattr(sidx, "loc_current", None), self.static_loc_index(x.items[2].items[1], scope)
            if cur is not None and const_dst is not None:
                # e.g. discarding the current player's hand onto a fixed pile
                def move_top_of_current(s, e):
                    i = cur + s.pstack[-1][0]
                    lst = s.locs[i]
                    if not lst:
                        rt_error(f"move from the empty location {infos[i].label}", span, "move")
                    c = lst.pop()
                    s.locs[const_dst].append(c)
                    s.card_loc[c] = const_dst
                    if s.events is not None:
                        record_move(s, "move", c, i, const_dst)
                item = Item(x, scope, run=move_top_of_current, static=True)
                item.bulk = (sidx, dst)
                return item

            def move_top(s, e):
                i = sidx(s, e)
                lst = s.locs[i]
                if not lst:
                    rt_error(f"move from the empty location {infos[i].label}", span, "move")
                c = lst.pop()
                d = dst(s, e)
                s.locs[d].append(c)
                s.card_loc[c] = d
                if s.events is not None:
                    record_move(s, "move", c, i, d)
            item = Item(x, scope, run=move_top, static=True)
            if self.stable_location(src_node.items[1], scope) and self.stable_location(x.items[2].items[1], scope):
                item.bulk = (sidx, dst)
            return item
        src = self.c_source(src_node, scope)
        infos = layout.infos

        def move(s, e):
            c, picked_from = src(s, e)
            i = s.card_loc[c]
            phys = s.locs[i]
            phys.remove(c)
            if picked_from is not None and picked_from is not phys and c in picked_from:
                if infos[i].visibility != MEMORY:
                    picked_from.remove(c)
            d = dst(s, e)
            place(s, d, c, pos, e, span)
            if s.events is not None:
                record_move(s, "move", c, i, d)
        return Item(x, scope, run=move, static=True)

    def stable_location(self, x, scope: Scope) -> bool:
        """Is ``x`` a physical location whose address no card movement can change?

        Its name is literal and its owner is the game, the current player or a variable."""
        if not is_location_form(x) or x.items[1].value == "mem":
            return False
        if not isinstance(self.storage_name(x.items[2], scope), str):
            return False
        o = x.items[0]
        return kw(o, "game") or is_atom(o, VAR) or (
            isinstance(o, SList) and len(o.items) == 2 and kw(o.items[0], "current") and kw(o.items[1], "player"))

    def a_swap(self, x: SList, scope: Scope) -> Item:
        self.arity(x, 3)
        a, b = x.items[1], x.items[2]
        span = x.span
        infos = self.layout.infos

        def locish(n):
            return is_location_form(n)

        if locish(a) or locish(b):
            ia = self.c_loc_index(a, scope, "a location to swap")
            ib = self.c_loc_index(b, scope, "a location to swap")

            def swap_locs(s, e):
                i, j = ia(s, e), ib(s, e)
                if infos[i].visibility == MEMORY or infos[j].visibility == MEMORY:
                    rt_error("cannot swap a mem location", span, "swap")
                locs = s.locs
                li, lj = locs[i], locs[j]
                locs[i], locs[j] = lj, li
                cl = s.card_loc
                for c in lj:
                    cl[c] = i
                for c in li:
                    cl[c] = j
                if s.events is not None:
                    for c in li:
                        record_move(s, "swap", c, i, j)
                    for c in lj:
                        record_move(s, "swap", c, j, i)
            return Item(x, scope, run=swap_locs, static=True)
        ca = self.c_value(a, scope)
        cb = self.c_value(b, scope)

        def swap(s, e):
            va, vb = ca(s, e), cb(s, e)
            if isinstance(va, PLoc) and isinstance(vb, PLoc):
                i, j = va.idx, vb.idx
                li, lj = s.locs[i], s.locs[j]
                s.locs[i], s.locs[j] = lj, li
                for c in lj:
                    s.card_loc[c] = i
                for c in li:
                    s.card_loc[c] = j
                if s.events is not None:
                    for c in li:
                        record_move(s, "swap", c, i, j)
                    for c in lj:
                        record_move(s, "swap", c, j, i)
                return
            if not isinstance(va, Card) or not isinstance(vb, Card):
                rt_error("swap needs two cards or two locations", span, "swap")
            i, j = s.card_loc[va], s.card_loc[vb]
            li, lj = s.locs[i], s.locs[j]
            pa, pb = li.index(va), lj.index(vb)
            li[pa] = vb
            lj[pb] = va
            s.card_loc[va], s.card_loc[vb] = j, i
            if s.events is not None:
                record_move(s, "swap", va, i, j)
                record_move(s, "swap", vb, j, i)
        return Item(x, scope, run=swap, static=True)

    def a_remember(self, x: SList, scope: Scope) -> Item:
        self.arity(x, 3)
        card = self.c_card(x.items[1], scope)
        if not isinstance(x.items[2], SList) or len(x.items[2].items) != 2:
            fail("expected (remember CARD (top|bottom|INDEX MEMLOCATION))", x.items[2], "remember")
        dst, pos = self.c_mem_dest(x.items[2], scope)
        span = x.span
        infos = self.layout.infos

        def remember(s, e):
            c = card(s, e)
            d = dst(s, e)
            if infos[d].visibility != MEMORY:
                rt_error(f"remember into {infos[d].label}, which is not a mem location", span, "remember")
            place(s, d, c, pos, e, span, memory=True)
            if s.events is not None:
                record_move(s, "remember", c, s.card_loc[c], d)
        return Item(x, scope, run=remember, static=True)

    def c_mem_dest(self, x: SList, scope: Scope):
        where, loc = x.items
        idx = self.c_loc_index(loc, scope)
        if kw(where, "top"):
            return idx, "top"
        if kw(where, "bottom"):
            return idx, "bottom"
        return idx, self.c_int(where, scope)

    def a_forget(self, x: SList, scope: Scope) -> Item:
        self.arity(x, 2)
        src = self.c_source(x.items[1], scope)
        span = x.span
        infos = self.layout.infos

        def forget(s, e):
            c, lst = src(s, e)
            if lst is None:
                rt_error("forget needs a card of a mem location, e.g. (top (game mem SEEN))", span, "forget")
            for i in range(len(s.locs)):
                if s.locs[i] is lst:
                    if infos[i].visibility != MEMORY:
                        rt_error(f"forget from {infos[i].label}, which is not a mem location", span, "forget")
                    lst.remove(c)
                    if s.events is not None:
                        record_move(s, "forget", c, i, None)
                    return
            rt_error("forget needs a card of a mem location", span, "forget")
        return Item(x, scope, run=forget, static=True)

    def a_shuffle(self, x: SList, scope: Scope) -> Item:
        if len(x.items) == 4 and kw(x.items[1], "faro"):
            ia, ib = self.c_loc_index(x.items[2], scope), self.c_loc_index(x.items[3], scope)

            def faro(s, e):
                i, j = ia(s, e), ib(s, e)
                a, b = s.locs[i], s.locs[j]
                merged = [c for pair in itertools.zip_longest(a, b) for c in pair if c is not None]
                for c in b:
                    s.card_loc[c] = i
                    if s.events is not None:
                        record_move(s, "move", c, j, i)
                s.locs[i] = merged
                s.locs[j] = []
            return Item(x, scope, run=faro, static=True)
        self.arity(x, 2)
        if not is_location_form(x.items[1]) and not is_atom(x.items[1], VAR):
            fail("shuffle needs a physical location (OWNER KIND NAME)", x.items[1], "shuffle")
        idx = self.c_loc_index(x.items[1], scope)
        return Item(x, scope, run=lambda s, e: shuffle(s.locs[idx(s, e)], s.rng.random), static=True)

    # -- storage ---------------------------------------------------------------------------
    def a_set(self, x: SList, scope: Scope) -> Item:
        self.arity(x, 3)
        target = x.items[1]
        sort = is_storage_form(target)
        if sort is None:
            fail(f"set needs a storage (OWNER sto|str|points NAME), got {self.form_name(target)}", target, "set")
        const, slot = self.c_storage_slot(sort, target, scope)
        layout = self.layout
        if sort == "points":
            return self.c_set_points(x, scope, slot)
        val = self.c_int(x.items[2], scope) if sort == "sto" else self.c_str(x.items[2], scope)
        attr = "ints" if sort == "sto" else "strs"
        if const is not None and sort == "sto":
            def set_const(s, e):
                v = val(s, e)
                s.ints[const] = v
                if s.events is not None:
                    record_storage(s, layout.slot_label("sto", const), v)
            return Item(x, scope, run=set_const, static=True)

        def set_(s, e):
            v = val(s, e)
            k = slot(s, e)
            getattr(s, attr)[k] = v
            if s.events is not None:
                record_storage(s, layout.slot_label(sort, k), v)
        return Item(x, scope, run=set_, static=True)

    def c_set_points(self, x: SList, scope: Scope, slot) -> Item:
        awards_node = x.items[2]
        if not isinstance(awards_node, SList) or not awards_node.items:
            fail("expected a list of awards (((KEY : VALUE) ... POINTS) ...)", awards_node, "set")
        compiled = []
        constant = True
        for award in awards_node.items:
            if not isinstance(award, SList) or len(award.items) < 2:
                fail("expected an award ((KEY : VALUE) ... POINTS)", award, "set")
            conds = []
            for c in award.items[:-1]:
                if not isinstance(c, SList) or len(c.items) != 3 or not is_atom(c.items[1], COLON):
                    fail("expected a condition (KEY : VALUE)", c, "set")
                k = self.storage_name(c.items[0], scope)
                v = self.storage_name(c.items[2], scope)
                constant &= isinstance(k, str) and isinstance(v, str)
                conds.append((k, v))
            pts_val = self.const_value(award.items[-1], scope)
            if pts_val is None:
                constant = False
                pts_val = self.c_int(award.items[-1], scope)
            compiled.append((conds, pts_val))
        game = self.game
        if constant:
            key = tuple((tuple(c), p) for c, p in compiled)

            def set_points_const(s, e):
                s.points[slot(s, e)] = game.point_map(key)
            return Item(x, scope, run=set_points_const, static=True)

        # the map is a function of the computed parts alone (Hearts: the suit led, set each
        # trick), so it is found by their values without building the whole key again; each
        # part is computed once, in the order of the awards
        computed = []
        for conds, p in compiled:
            for kv in conds:
                computed.extend(v for v in kv if not isinstance(v, (str, int)))
            if not isinstance(p, (str, int)):
                computed.append(p)
        by_values: dict = {}

        def build_key(values):
            it = iter(values)

            def val(v):
                return v if isinstance(v, (str, int)) else next(it)
            return tuple((tuple((val(k), val(v)) for k, v in conds), val(p)) for conds, p in compiled)

        if not self.fast:
            def set_points_plain(s, e):
                s.points[slot(s, e)] = game.point_map(build_key(tuple([f(s, e) for f in computed])))
            return Item(x, scope, run=set_points_plain, static=True)

        def set_points(s, e):
            values = tuple([f(s, e) for f in computed])
            pm = by_values.get(values)
            if pm is None:
                pm = game.point_map(build_key(values))
                if len(by_values) >= 10_000:
                    by_values.clear()
                by_values[values] = pm
            s.points[slot(s, e)] = pm
        return Item(x, scope, run=set_points, static=True)

    def a_inc(self, x: SList, scope: Scope) -> Item:
        return self.c_step(x, scope, 1)

    def a_dec(self, x: SList, scope: Scope) -> Item:
        return self.c_step(x, scope, -1)

    def c_step(self, x: SList, scope: Scope, sign: int) -> Item:
        if len(x.items) not in (2, 3) or is_storage_form(x.items[1]) != "sto":
            fail(f"expected ({x.items[0]} (OWNER sto NAME) AMOUNT?)", x, str(x.items[0]))
        const, slot = self.c_storage_slot("sto", x.items[1], scope)
        layout = self.layout
        amount = self.c_int(x.items[2], scope) if len(x.items) == 3 else (lambda s, e: 1)
        span, form = x.span, str(x.items[0])
        if const is not None:
            def step_const(s, e):
                v = s.ints[const] + sign * amount(s, e)
                if not -MAX_INT <= v <= MAX_INT:
                    rt_error("integer overflow (beyond 64 bits)", span, form)
                s.ints[const] = v
                if s.events is not None:
                    record_storage(s, layout.slot_label("sto", const), v)
            return Item(x, scope, run=step_const, static=True)

        def step(s, e):
            k = slot(s, e)
            v = s.ints[k] + sign * amount(s, e)
            if not -MAX_INT <= v <= MAX_INT:
                rt_error("integer overflow (beyond 64 bits)", span, form)
            s.ints[k] = v
            if s.events is not None:
                record_storage(s, layout.slot_label("sto", k), v)
        return Item(x, scope, run=step, static=True)

    # -- turn order ------------------------------------------------------------------------
    def a_cycle(self, x: SList, scope: Scope) -> Item:
        self.arity(x, 3)
        which, target = x.items[1], x.items[2]
        if not kw(which, "next", "current"):
            fail("expected (cycle next|current WHO)", x, "cycle")
        n = self.layout.nplayers
        if kw(target, "current"):
            who = lambda s, e: s.pstack[-1][0]  # noqa: E731
        elif kw(target, "next"):
            def who(s, e):
                top = s.pstack[-1]
                return top[1] if top[1] is not None else (top[0] + 1) % n
        elif kw(target, "previous"):
            who = lambda s, e: (s.pstack[-1][0] - 1) % n  # noqa: E731
        else:
            who = self.c_player(target, scope)
        if which.value == "next":
            def cycle_next(s, e):
                s.pstack[-1][1] = int(who(s, e))
            return Item(x, scope, run=cycle_next, static=True)

        def cycle_current(s, e):
            p = int(who(s, e))
            top = s.pstack[-1]
            top[0], top[1] = p, None
        return Item(x, scope, run=cycle_current, static=True)

    def a_turn(self, x: SList, scope: Scope) -> Item:
        if len(x.items) != 2 or not kw(x.items[1], "pass"):
            fail("expected (turn pass)", x, "turn")
        return Item(x, scope, run=lambda s, e: None, static=True)

    def a_repeat(self, x: SList, scope: Scope) -> Item:
        self.arity(x, 3)
        span = x.span
        if kw(x.items[1], "all"):
            body_node = x.items[2]
            h = head_of(body_node)
            if h not in ("move", "forget"):
                fail("(repeat all ...) repeats a move or a forget", body_node, "repeat")
            body = self.c_item(body_node, scope)
            src_node = body_node.items[1]
            if isinstance(src_node, SList) and len(src_node.items) == 2 and head_of(src_node) == "actual":
                src_node = src_node.items[1]
            if not isinstance(src_node, SList) or len(src_node.items) != 2:
                fail("(repeat all (move (top|bottom LOCATION) ...)) needs a location to empty", src_node, "repeat")
            count = self.c_size(src_node.items[1], scope)
            brun = body.run

            def run_all(s, e):
                k = count(s, e)
                s.work -= k
                if s.work < 0:
                    out_of_work(s, span, "repeat")
                for _ in range(k):
                    brun(s, e)
            if body.bulk is not None and self.fast:
                run_all = bulk_repeat(count, body, span)

            def expand_all(s, e):
                k = count(s, e)
                return [[(body, e)] * k] if k else []
            return Item(x, scope, run=run_all, expand=expand_all)
        times = self.c_int(x.items[1], scope)
        const = self.const_value(x.items[1], scope)
        body = self.c_item(x.items[2], scope, allow_choice=False)
        brun = body.run

        def run(s, e):
            k = times(s, e)
            if k > MAX_REPEAT:
                rt_error(f"repeat {k} times is more than the limit of {MAX_REPEAT}", span, "repeat")
            if k > 0:
                s.work -= k
                if s.work < 0:
                    out_of_work(s, span, "repeat")
            for _ in range(k):
                brun(s, e)
        if body.bulk is not None and self.fast:
            run = bulk_repeat(times, body, span)
        if const is not None and const >= 1 and body.static:
            return Item(x, scope, run=run, static=True)

        def expand(s, e):
            k = times(s, e)
            if k > MAX_REPEAT:
                rt_error(f"repeat {k} times is more than the limit of {MAX_REPEAT}", span, "repeat")
            if k > 0:
                s.work -= k
                if s.work < 0:
                    out_of_work(s, span, "repeat")
            return compose(s, [(body, e)] * k) if k > 0 else []
        return Item(x, scope, run=run, expand=expand)

    # -- creation --------------------------------------------------------------------------
    def a_create(self, x: SList, scope: Scope) -> Item:
        if len(x.items) >= 2 and kw(x.items[1], "deck"):
            return self.c_create_deck(x, scope)
        if len(x.items) >= 3 and kw(x.items[1], "teams"):
            return self.c_create_teams(x, scope)
        fail("expected (create deck ...) or (create teams ...) here", x, "create")

    def c_create_deck(self, x: SList, scope: Scope) -> Item:
        items = x.items[2:]
        deck_name = "DEFAULT"
        if items and isinstance(items[0], Atom) and items[0].is_name:
            deck_name = items[0].value
            items = items[1:]
        if len(items) != 2 or head_of(items[1]) != "deck":
            fail("expected (create deck NAME? LOCATION (deck ATTRIBUTE ...))", x, "create")
        if not is_location_form(items[0]):
            fail("a deck is created in a physical location (OWNER KIND NAME)", items[0], "create")
        dst = self.c_loc_index(items[0], scope)
        combos = deck_combinations(items[1])
        if len(combos) > MAX_COLLECTION:
            fail(f"this deck would have {len(combos)} cards (limit {MAX_COLLECTION})", items[1], "deck")
        game = self.game
        key = (x.span.line, x.span.column)

        def create(s, e):
            d = dst(s, e)
            ids = game.deal_cards(s, key, deck_name, combos, x.span)
            s.locs[d].extend(ids)
            s.card_loc.extend([d] * len(ids))
            if s.events is not None:
                for c in ids:
                    record_move(s, "create", c, None, d)
        return Item(x, scope, run=create, static=True)

    def c_create_teams(self, x: SList, scope: Scope) -> Item:
        teams = []
        n = self.layout.nplayers
        for t in x.items[2:]:
            if not isinstance(t, SList):
                fail("expected a team (P, P, ...)", t, "create")
            members = [i.value for i in t.items if is_atom(i, INT)]
            if not members or any(m >= n for m in members):
                fail(f"a team lists player numbers 0..{n - 1}", t, "create")
            teams.append(members)

        def create_teams(s, e):
            s.team_members = [m[:] for m in teams]
            s.team_of = [None] * n
            for t, members in enumerate(teams):
                for p in members:
                    s.team_of[p] = t
            s.nteams = len(teams)
        return Item(x, scope, run=create_teams, static=True)
