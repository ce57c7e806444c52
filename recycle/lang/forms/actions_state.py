"""Compiling RECYCLE's other actions into items: storages and point maps, turn order,
repeats, and creating decks and teams. Actions on cards are in ``actions``.
"""

from __future__ import annotations

from .registry import Kind, form, mention
from .effects import record_move, record_storage
from .items import MAX_REPEAT, Item, compose
from .runtime import out_of_work
from .runtime import MAX_INT, SMALL, charge, rt_error
from ..nodes.sexpr import Scope, fail
from .reads import reads_node
from ..nodes.actions import Cycle, Deck, Dec, Inc, Pass, Repeat, RepeatAll, Set, SetPoints, Teams
from ..nodes.base import Turn


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
    @reads_node
    def a_set(self, x: Set | SetPoints, scope: Scope) -> Item:
        """(set STORAGE VALUE) | (set (OWNER points NAME) (AWARD ...))

        Assigns an integer to (OWNER sto NAME), a string to (OWNER str NAME), or a point map
        of awards ((KEY : VALUE) ... POINTS) to (OWNER points NAME)."""
        sort = x.storage.sort
        const, slot = self.c_storage_slot(sort, x.storage, scope)
        layout = self.layout
        if isinstance(x, SetPoints):
            return self.c_set_points(x, scope, slot)
        val = self.c_int(x.value, scope) if sort == "sto" else self.c_str(x.value, scope)
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

    def c_set_points(self, x: SetPoints, scope: Scope, slot) -> Item:
        compiled = []
        constant = True
        for award in x.awards:
            conds = []
            for key, value in award.conditions:
                k = self.storage_name(key, scope)
                v = self.storage_name(value, scope)
                constant &= isinstance(k, str) and isinstance(v, str)
                conds.append((k, v))
            pts_val = self.const_value(award.points, scope)
            if pts_val is None:
                constant = False
                pts_val = self.c_int(award.points, scope)
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
        for conds, p in compiled:
            for kv in conds:
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
    @reads_node
    def a_inc(self, x: Inc, scope: Scope) -> Item:
        """(inc (OWNER sto NAME) AMOUNT?)

        Adds AMOUNT (1 when omitted) to an integer storage."""
        return self.c_step(x, scope, 1)

    @form("dec", "(dec (OWNER sto NAME) AMOUNT?)", Kind.ACTION, sets=1, words=("{1} -= {2}", "{1} -= 1"))
    @reads_node
    def a_dec(self, x: Dec, scope: Scope) -> Item:
        """(dec (OWNER sto NAME) AMOUNT?)

        Subtracts AMOUNT (1 when omitted) from an integer storage."""
        return self.c_step(x, scope, -1)

    def c_step(self, x: Inc | Dec, scope: Scope, sign: int) -> Item:
        const, slot = self.c_storage_slot("sto", x.storage, scope)
        layout = self.layout
        amount = self.c_int(x.amount, scope) if x.amount is not None else (lambda s, e: 1)
        span, form = x.span, x.HEAD
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
    @reads_node
    def a_cycle(self, x: Cycle, scope: Scope) -> Item:
        """(cycle next|current WHO)

        Queues WHO (current, next, previous or a player) as the next player of the top
        player cycle, or makes WHO current at once."""
        target = x.who.position if isinstance(x.who, Turn) else None
        n = self.layout.nplayers
        if target == "current":
            who = lambda s, e: s.pstack[-1][0]  # noqa: E731
        elif target == "next":

            def who(s, e):
                top = s.pstack[-1]
                return top[1] if top[1] is not None else (top[0] + 1) % n
        elif target == "previous":
            who = lambda s, e: (s.pstack[-1][0] - 1) % n  # noqa: E731
        else:
            who = self.c_player(x.who, scope)
        if x.which == "next":

            def cycle_next(s, e):
                s.pstack[-1][1] = int(who(s, e))

            return Item(x, scope, run=cycle_next, static=True)

        def cycle_current(s, e):
            p = int(who(s, e))
            top = s.pstack[-1]
            top[0], top[1] = p, None

        return Item(x, scope, run=cycle_current, static=True)

    @form("turn", "(turn pass)", Kind.ACTION, words="{1=pass}")
    @reads_node
    def a_turn(self, x: Pass, scope: Scope) -> Item:
        """(turn pass)

        Does nothing: the action of an option that passes (the rest of the turn still
        runs)."""
        return Item(x, scope, run=lambda s, e: None, static=True)

    @form(
        "repeat",
        "(repeat N ACTION) | (repeat all (move|forget CARD ...))",
        Kind.ACTION,
        role="repeat",
        words="repeat {1}: {2:action}",
    )
    @reads_node
    def a_repeat(self, x: Repeat | RepeatAll, scope: Scope) -> Item:
        """(repeat N ACTION) | (repeat all (move|forget CARD ...))

        Runs the action N times (N evaluated once); with all, once per card the source
        location holds when the repeat starts."""
        span = x.span
        if isinstance(x, RepeatAll):
            body = self.c_item(x.body, scope)
            count = self.c_size(x.location, scope)
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
        times = self.c_int(x.times, scope)
        const = self.const_value(x.times, scope)
        body = self.c_item(x.body, scope, allow_choice=False)
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
    @reads_node
    def a_create(self, x: Deck | Teams, scope: Scope) -> Item:
        """(create deck NAME? LOCATION (deck ATTRIBUTE ...)) | (create teams (P, ...) ...)

        Creates one card per combination of the attribute trees on top of a location, or
        sets the teams to the listed players (numbered from 0, or from 1 when the lists name
        player N, the number of players, and not 0)."""
        if isinstance(x, Deck):
            return self.c_create_deck(x, scope)
        return self.c_create_teams(x, scope)

    def c_create_deck(self, x: Deck, scope: Scope) -> Item:
        deck_name = x.name
        dst = self.c_loc_index(x.location, scope)
        combos = [dict(card) for card in x.cards]
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

    def c_create_teams(self, x: Teams, scope: Scope) -> Item:
        teams = []
        n = self.layout.nplayers
        for t in x.teams:
            members = list(t.members)
            if not members or any(m > n for m in members):
                fail(f"a team lists player numbers 0..{n - 1} (or 1..{n}, counted from 1)", t, "create")
            teams.append(members)
        # players are numbered from 0 (the classic corpus: (0, 2) (1, 3)) or from 1 (the newer
        # dialect: (1, 3) (2, 4)); lists that name player n and not 0 count from 1, any other
        # from 0 (docs/reference.md, Teams)
        listed = {m for members in teams for m in members}
        if n in listed:
            if 0 in listed:
                t = next(t for t, members in zip(x.teams, teams) if n in members)
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
