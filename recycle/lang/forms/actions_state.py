"""Compiling RECYCLE's other actions into items: storages and point maps, turn order,
repeats, and creating decks and teams. Actions on cards are in ``actions``.
"""

from __future__ import annotations

from .registry import Kind, form, mention
from .items import MAX_REPEAT, Item, compose, out_of_work, record_move, record_storage
from .shapes import (
    MAX_COLLECTION,
    MAX_INT,
    SMALL,
    Scope,
    charge,
    deck_combinations,
    fail,
    head_of,
    is_atom,
    is_location_form,
    is_storage_form,
    kw,
    rt_error,
)
from ..syntax.reader import COLON, INT, Atom, SList


class StateActions:
    """Storage, turn order, repeat and create in the compiler (a mixin of ``FlowCompiler``)."""

    # -- storage ---------------------------------------------------------------------------
    @form(
        "set",
        "(set STORAGE VALUE) | (set (OWNER points NAME) (AWARD ...))",
        Kind.ACTION,
        sets=1,
        words=("{1:points} := point map ({2:count} awards)", "{1} := {2}"),
    )
    def a_set(self, x: SList, scope: Scope) -> Item:
        """(set STORAGE VALUE) | (set (OWNER points NAME) (AWARD ...))

        Assigns an integer to (OWNER sto NAME), a string to (OWNER str NAME), or a point map
        of awards ((KEY : VALUE) ... POINTS) to (OWNER points NAME)."""
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
        card_table = self.cards
        if constant:
            key = tuple((tuple(c), p) for c, p in compiled)

            def set_points_const(s, e):
                s.points[slot(s, e)] = card_table.point_map(key)

            return Item(x, scope, run=set_points_const, static=True)

        # the map is a function of the computed parts alone (Hearts: the suit led, set each
        # trick); each part is computed once, in the order of the awards. Making a map scores every card
        # for every award: each such set pays that, a unit per two cards and awards, whether
        # or not the map was made before (by this game or an earlier one: the cost is the
        # same on every path and in every process)
        nawards, span = len(compiled), x.span
        computed = []
        for (conds, p), award in zip(compiled, awards_node.items):
            for kv, _award_item in zip(conds, award.items[:-1]):
                for v in kv:
                    if not isinstance(v, (str, int)):
                        computed.append(v)
            if not isinstance(p, (str, int)):
                computed.append(p)

        def build_key(values):
            it = iter(values)

            def val(v):
                return v if isinstance(v, (str, int)) else next(it)

            return tuple((tuple((val(k), val(v)) for k, v in conds), val(p)) for conds, p in compiled)

        def set_points(s, e):
            if len(s.card_loc) * nawards > SMALL:
                charge(s, (len(s.card_loc) * nawards) >> 1, span, "set")
            s.points[slot(s, e)] = card_table.point_map(build_key(tuple([f(s, e) for f in computed])))

        return Item(x, scope, run=set_points, static=True)

    @form("inc", "(inc (OWNER sto NAME) AMOUNT?)", Kind.ACTION, sets=1, words=("{1} += {2}", "{1} += 1"))
    def a_inc(self, x: SList, scope: Scope) -> Item:
        """(inc (OWNER sto NAME) AMOUNT?)

        Adds AMOUNT (1 when omitted) to an integer storage."""
        return self.c_step(x, scope, 1)

    @form("dec", "(dec (OWNER sto NAME) AMOUNT?)", Kind.ACTION, sets=1, words=("{1} -= {2}", "{1} -= 1"))
    def a_dec(self, x: SList, scope: Scope) -> Item:
        """(dec (OWNER sto NAME) AMOUNT?)

        Subtracts AMOUNT (1 when omitted) from an integer storage."""
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
    @form("cycle", "(cycle next|current WHO)", Kind.ACTION, words="{1} player := {2}")
    def a_cycle(self, x: SList, scope: Scope) -> Item:
        """(cycle next|current WHO)

        Queues WHO (current, next, previous or a player) as the next player of the top
        player cycle, or makes WHO current at once."""
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

    @form("turn", "(turn pass)", Kind.ACTION, words="{1=pass}")
    def a_turn(self, x: SList, scope: Scope) -> Item:
        """(turn pass)

        Does nothing: the action of an option that passes (the rest of the turn still
        runs)."""
        if len(x.items) != 2 or not kw(x.items[1], "pass"):
            fail("expected (turn pass)", x, "turn")
        return Item(x, scope, run=lambda s, e: None, static=True)

    @form(
        "repeat",
        "(repeat N ACTION) | (repeat all (move|forget CARD ...))",
        Kind.ACTION,
        role="repeat",
        words="repeat {1}: {2:action}",
    )
    def a_repeat(self, x: SList, scope: Scope) -> Item:
        """(repeat N ACTION) | (repeat all (move|forget CARD ...))

        Runs the action N times (N evaluated once); with all, once per card the source
        location holds when the repeat starts."""
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
    @form(
        "create",
        "(create deck NAME? LOCATION (deck ATTRIBUTE ...)) | (create teams (P, ...) ...)",
        Kind.ACTION,
        puts=(2, 3),
        role="create",
        words=(
            "create {2:atom} {1=deck} of {4:cards} cards ({4:keys}) in {3}",
            "create {1=deck} of {3:cards} cards ({3:keys}) in {2}",
            "create {1=teams} {2* }",
            "create {2} {1=players}",
        ),
    )
    def a_create(self, x: SList, scope: Scope) -> Item:
        """(create deck NAME? LOCATION (deck ATTRIBUTE ...)) | (create teams (P, ...) ...)

        Creates one card per combination of the attribute trees on top of a location, or
        sets the teams to the listed players (numbered from 0, or from 1 when the lists name
        player N, the number of players, and not 0)."""
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
        if not is_location_form(items[0]) or kw(items[0].items[1], "mem"):
            fail("a deck is created in a physical location (OWNER KIND NAME), not a mem location", items[0], "create")
        dst = self.c_loc_index(items[0], scope)
        combos = deck_combinations(items[1])
        if len(combos) > MAX_COLLECTION:
            fail(f"this deck would have {len(combos)} cards (limit {MAX_COLLECTION})", items[1], "deck")
        card_table, infos = self.cards, self.layout.infos
        key = (x.span.line, x.span.column)

        def create(s, e):
            d = dst(s, e)
            ids = card_table.deal(s, key, deck_name, combos, x.span)
            s.locs[d].extend(ids)
            s.card_loc.extend([d] * len(ids))
            if s.events is not None:
                for c in ids:
                    record_move(s, infos, "create", c, None, d)

        return Item(x, scope, run=create, static=True)

    def c_create_teams(self, x: SList, scope: Scope) -> Item:
        teams = []
        n = self.layout.nplayers
        for t in x.items[2:]:
            if not isinstance(t, SList):
                fail("expected a team (P, P, ...)", t, "create")
            members = [i.value for i in t.items if is_atom(i, INT)]
            if not members or any(m > n for m in members):
                fail(f"a team lists player numbers 0..{n - 1} (or 1..{n}, counted from 1)", t, "create")
            teams.append(members)
        # players are numbered from 0 (the classic corpus: (0, 2) (1, 3)) or from 1 (the newer
        # dialect: (1, 3) (2, 4)); lists that name player n and not 0 count from 1, any other
        # from 0 (docs/reference.md, Teams)
        listed = {m for members in teams for m in members}
        if n in listed:
            if 0 in listed:
                t = next(t for t, members in zip(x.items[2:], teams) if n in members)
                fail(
                    f"these teams name both player 0 and player {n}: number the players 0..{n - 1} or 1..{n}, not both",
                    t,
                    "create",
                )
            teams = [[m - 1 for m in members] for members in teams]

        def create_teams(s, e):
            s.team_members = [m[:] for m in teams]
            s.team_of = [None] * n
            for t, members in enumerate(teams):
                for p in members:
                    s.team_of[p] = t
            s.nteams = len(teams)

        return Item(x, scope, run=create_teams, static=True)


mention(__name__, ("move", "forget", "actual"))
