"""Writing card-level expressions of a game as Python source (for ``pygen``, via ``pyexpr``).

Views of several locations (``union``), sums of point maps, the highest or lowest card by a
point map, a card's owner, a cycle's next player and ``repeat all`` moves are written as
small generated functions (or statements) instead of calls of the compiler's closures.

Each keeps the closure's meaning exactly: the same work charged at the same moment, the same
random draws, the same errors. Where a rare case (an empty location, a map whose sums may pass
64 bits, a view over the collection limit, recorded events) would need the closure's
message or bookkeeping, the written function gives the state back as it found it (nothing has
changed but the work budget, which it restores) and calls the closure, which then does and
says exactly what the closures do. tests/engine/test_differential.py holds every game to that.
"""

from __future__ import annotations

from contextlib import contextmanager

from ..forms.purity import KEY_CARDS, analyse
from .pytext import embed, short
from ..forms.shapes import MAX_COLLECTION, SCAN, SMALL, Const, head_of, is_atom, is_location_form, is_storage_form, kw
from ..syntax.reader import VAR, SList
from ..forms.registry import Kind, registry
from ..forms.writers import Writers
from ..forms.values import Card

# the compiled engine's writers, by form (this module's and pyexpr's register theirs)
COMPILED = Writers("compiled")


MISSING = object()  # not in a cache



def players_loop(node) -> bool:
    """Whether ``node`` is ``(any|all player 'P X)`` (a quantifier of the registry over the
    players), which ``write_bool`` writes out per player."""
    return isinstance(node, SList) and len(node.items) == 4 and kw(node.items[1], "player") \
        and is_atom(node.items[2], VAR) and "quantifier" in registry().roles.get(head_of(node), ())

class CardWriter:
    """The card-level part of ``pyexpr.ExprWriter`` (a mixin: it uses its ``k``,
    ``loc_index``, ``storage_index``, ``write_bool`` and helper functions)."""

    @contextmanager
    def as_literal(self, name: str, player: int):
        """Within the block, the variable ``name`` is written out as the player index ``player``."""
        saved = self.literal.get(name)
        self.literal[name] = player
        try:
            yield
        finally:
            if saved is None:
                self.literal.pop(name, None)
            else:
                self.literal[name] = saved

    def landed(self, moved: str, dst: str) -> list[str]:
        """Statements putting the list ``moved`` (already in order) on top of location ``dst``."""
        c, i = self.fresh("c"), self.fresh("i")
        return [f"s.locs[{dst}].extend({moved})", f"{c} = s.card_loc", f"for {i} in {moved}:", f"    {c}[{i}] = {dst}"]

    def helper(self, node, scope, stem: str, make, extra=()) -> str:
        """The call of a generated function for ``node`` (written once by ``make(name)``,
        which returns its lines; ``extra``: what else tells two of them apart)."""
        key = (stem, id(node), id(scope), extra)
        name = self._helper_names.get(key)
        if name is None:
            name = self._helper_names[key] = f"{stem}_{len(self._helper_names)}"
            lines = make(name)
            self.chars_elsewhere += sum(map(len, lines))  # the module's size is bounded (pygen.MAX_CHARS)
            self.helper_functions.append(lines)
        return f"{name}(s, e)"

    # -- collections of cards ------------------------------------------------------------
    def write_coll(self, node, scope) -> str | None:
        """A list of cards written out (never to be changed by its user): a physical
        location, a union of such locations, or a filter of one of those; else None."""
        if self.local or self.literal:
            return None
        if is_location_form(node):
            if node.items[1].value == "mem":
                return None
            idx = self.loc_index(node, scope)
            return None if idx is None else f"s.locs[{idx}]"
        write = COMPILED.get(Kind.LOC, head_of(node))
        return write(self, node, scope) if write is not None else None

    def union_parts(self, node, scope) -> list[str] | None:
        """The location indices (sources) a union reads, in order, or None."""
        items = node.items[1:]
        if len(items) == 1 and isinstance(items[0], SList) and items[0].items and _loop(items[0]):
            inner = items[0]  # (all player 'P LOCATION): each player's location
            if len(inner.items) != 4 or not kw(inner.items[1], "player") or not is_atom(inner.items[2], VAR):
                return None
            name = inner.items[2].value
            loc = inner.items[3]
            if not is_location_form(loc) or loc.items[1].value == "mem":
                return None
            parts = []
            for p in range(self.comp.layout.nplayers):
                with self.as_literal(name, p):
                    parts.append(self.loc_index(loc, scope))
        else:
            if not items or any(not is_location_form(i) or i.items[1].value == "mem" for i in items):
                return None
            parts = [self.loc_index(i, scope) for i in items]
        return None if any(p is None for p in parts) else parts

    def write_union(self, node, scope) -> str | None:
        """``(union ...)`` of physical locations (expr_locs.loc_union: charged for its cards
        and parts; over the collection limit, the closure says so)."""
        parts = self.union_parts(node, scope)
        if parts is None:
            return None
        closure = self.k(self.comp.c_cards(node, scope))
        span = self.k(node.span, "SPAN")

        def make(name):
            names = [f"_a{i}" for i in range(len(parts))]
            lines = [f"def {name}(s, e):", f"    # line {node.span.line}: {short(node)}", "    locs = s.locs"]
            lines += [f"    {n} = locs[{p}]" for n, p in zip(names, parts)]
            lines += [f"    total = {' + '.join(f'len({n})' for n in names)}",
                      f"    if total > {MAX_COLLECTION}:", f"        return {closure}(s, e)",
                      f"    s.work -= total + {len(parts)}", "    if s.work < 0:",
                      f"        out_of_work(s, {span}, 'union')", f"    return {' + '.join(names)}"]
            return lines
        return self.helper(node, scope, "union", make)

    # -- conditions on one location --------------------------------------------------------
    def write_memo(self, node, scope) -> str | None:
        """A pure condition (purity.analyse) on the cards of one location of fixed index and
        at most one point map, asked again while they are unchanged (a stage's end asking
        about every hand at every turn): the last answer, kept beside the cards and map it
        was worked out for, else the answer in the cached closure's table, else the closure
        (which pays for what it reads). Only answers that took no work are kept, as the cache
        keeps them (purity.cached). On a location whose index is worked out as it runs (the
        current player's hand) only the table is looked up (``cached_lookup``)."""
        if not self.comp.fast or self.local:
            return None
        found = analyse(node, lambda name: isinstance(scope.lookup(name), Const))
        if found is None or len(found[0]) != 1 or len(found[1]) > 1:
            return None
        (loc,), pts = found
        if loc.items[1].value == "mem":
            return None
        idx = self.loc_index(loc, scope)
        pslot = self.storage_index(pts[0], scope, "points") if pts else "None"
        if idx is None or pslot is None or (pts and not pslot.isdigit()):
            return None
        if not idx.isdigit():  # a location that moves with the current player: its cache only
            return self.cached_lookup(node, scope, idx, pslot if pts else None)
        # the same question asked in two places (a stage's end and the stage around it) shares
        # one memory: it means the same wherever its variables mean the same
        share = (str(node), idx, pslot, self.meanings(node, scope))
        known = self._shared_memos.get(share)
        if known is not None:
            return known
        fn = self.bool_closure(node, scope)
        closure = self.k(fn)
        slots = [(scope.lookup(name), p) for name, p in self.literal.items()]
        bind = [(slot, p) for slot, p in slots if isinstance(slot, int)]
        players = self.k(self.comp.players, "PLAYERS")
        # one tuple (cards, map, answer), replaced whole: a game shared by threads reads a
        # consistent one
        memo = self.k([(None, None, None)], "MEMO")
        last = self.fresh("m")
        pm = f"s.points[{pslot}]" if pts else "None"

        # an answer not remembered here may be in the closure's cache, by the key it files it under
        found_key = self.cache_key(fn, "cards", pslot if pts else None)
        lookup = [] if found_key is None else [
            f"    cards = s.locs[{idx}]", f"    if len(cards) <= {KEY_CARDS}:",
            f"        v = {self.k(fn.cache, 'CACHE')}.get({found_key}, {self.k(MISSING, 'MISSING')})",
            f"        if v is not {self.k(MISSING, 'MISSING')}:", f"            {memo}[0] = (cards[:], {pm}, v)",
            "            return v"]

        def make(name):
            return ([f"def {name}(s, e):", f"    # line {node.span.line}: {short(node)}"] + lookup
                    + [f"    e[{slot}] = {players}[{p}]" for slot, p in bind]
                    + ["    w = s.work", f"    v = {closure}(s, e)", f"    cards = s.locs[{idx}]",
                       f"    if w == s.work and len(cards) <= {KEY_CARDS}:",
                       f"        {memo}[0] = (cards[:], {pm}, v)", "    return v"])
        call = self.helper(node, scope, "memo", make, tuple(sorted(self.literal.items())))
        text = f"({last}[2] if ({last} := {memo}[0])[0] == s.locs[{idx}] and {last}[1] is {pm} else {call})"
        self._shared_memos[share] = text
        return text

    def cache_key(self, fn, cards: str, pslot: str | None) -> str | None:
        """Source of the key under which the cached closure ``fn`` (purity.cached, one
        location) files the value for the list ``cards``, or None when ``fn`` has no such cache."""
        if getattr(fn, "cache", None) is None or fn.key_points != (pslot is not None):
            return None
        hand = f"tuple(sorted({cards}))" if fn.sorted_key else f"tuple({cards})"
        return f"({hand}, s.points[{pslot}])" if pslot is not None else hand

    def cached_lookup(self, node, scope, idx: str, pslot: str | None) -> str | None:
        """A pure condition on one location whose index is worked out as it runs: its value
        looked up in the closure's cache inline, else the closure (which computes, pays and
        files it)."""
        if self.literal:
            return None
        fn = self.bool_closure(node, scope)
        cards, v = self.fresh("c"), self.fresh("v")
        key = self.cache_key(fn, cards, pslot)
        if key is None:
            return None
        missing = self.k(MISSING, "MISSING")
        return (f"({v} if len({cards} := s.locs[{idx}]) <= {KEY_CARDS} and ({v} := {self.k(fn.cache, 'CACHE')}"
                f".get({key}, {missing})) is not {missing} else {self.k(fn)}(s, e))")

    def meanings(self, node, scope) -> tuple:
        """What each variable of ``node`` stands for here: a player written out, a constant's
        value, or nothing (bound within ``node``)."""
        names: set = set()

        def walk(x):
            if isinstance(x, SList):
                for i in x.items:
                    walk(i)
            elif x.kind == VAR:
                names.add(x.value)
        walk(node)
        out = []
        for name in sorted(names):
            if name in self.literal:
                out.append((name, "player", self.literal[name]))
            else:
                c = scope.lookup(name)
                out.append((name, "const", c.value) if isinstance(c, Const) else (name, "bound", None))
        return tuple(out)

    # -- integers ------------------------------------------------------------------------
    def using_points(self, node, scope) -> tuple[str, str] | None:
        """(collection source, point-map slot source) of ``(FORM COLLECTION using (OWNER
        points NAME))`` when both are written out, else None."""
        items = node.items
        if len(items) != 4 or not kw(items[2], "using") or is_storage_form(items[3]) != "points" \
                or self.local or self.literal:
            return None
        pslot = self.storage_index(items[3], scope, "points")
        src = self.write_coll(items[1], scope)
        return None if pslot is None or src is None else (src, pslot)

    def write_sum(self, node, scope) -> str | None:
        """``(sum COLLECTION using POINTS)`` over a written-out collection and a point map
        of literal name (expr_int.int_sum's general case)."""
        parts = self.using_points(node, scope)
        if parts is None:
            return None
        src, pslot = parts
        closure = self.k(self.comp.c_int(node, scope))
        span = self.k(node.span, "SPAN")

        def make(name):
            return [f"def {name}(s, e):", f"    # line {node.span.line}: {short(node)}",
                    f"    pm = s.points[{pslot}]", "    if pm.wide:", f"        return {closure}(s, e)",
                    "    table = pm.table", f"    lst = {src}", f"    if len(lst) > {SMALL}:",
                    "        s.work -= len(lst)", "        if s.work < 0:", f"            out_of_work(s, {span}, 'sum')",
                    "    total = 0", "    for c in lst:", "        total += table[c]", "    return total"]
        return self.helper(node, scope, "sum", make)

    # -- cards and players ---------------------------------------------------------------
    def write_extreme(self, node, scope, better: str) -> str | None:
        """``(max|min COLLECTION using POINTS)`` in a context needing a card
        (expr_cards.card_extreme: charged for its cards, ties drawn from the game's generator);
        ``better``: ``>`` for max, ``<`` for min."""
        parts = self.using_points(node, scope)
        if parts is None:
            return None
        src, pslot = parts
        h = node.items[0].value  # the form's name, for a message
        closure = self.k(self.comp.c_card(node, scope))
        span = self.k(node.span, "SPAN")

        def make(name):
            return [f"def {name}(s, e):", f"    # line {node.span.line}: {short(node)}", "    w = s.work",
                    f"    lst = {src}", "    if not lst:", "        s.work = w", f"        return {closure}(s, e)",
                    "    s.work -= len(lst)", "    if s.work < 0:", f"        out_of_work(s, {span}, {embed(h)})",
                    f"    sc = s.points[{pslot}].table",
                    # one pass finds the best score and how many cards share it
                    "    pick = lst[0]", "    best = sc[pick]", "    n = 0", "    for c in lst:", "        v = sc[c]",
                    f"        if v {better} best:", "            best, pick, n = v, c, 1",
                    "        elif v == best:", "            n += 1", "    if n == 1:", "        return pick",
                    "    tied = [c for c in lst if sc[c] == best]", "    return tied[int(s.rng.random() * len(tied))]"]
        return self.helper(node, scope, h, make)

    def write_card(self, node, scope) -> str | None:
        """A card expression written out (a max or min by a point map), or None."""
        write = COMPILED.get(Kind.CARD, head_of(node))
        return write(self, node, scope) if write is not None else None

    def write_player(self, node, scope) -> str | None:
        """A player expression as its index: ``(current player)``, ``(next player)`` or
        ``(owner CARD)`` of a written-out card; else None."""
        if isinstance(node, SList) and len(node.items) == 2 and kw(node.items[1], "player"):
            if kw(node.items[0], "current"):
                return "s.pstack[-1][0]"
            if kw(node.items[0], "next"):
                return self.next_player()
            return None
        write = COMPILED.get(Kind.PLAYER, head_of(node))
        return write(self, node, scope) if write is not None else None

    def write_owner(self, node, scope) -> str | None:
        """``(owner CARD)`` of a card written out: the player owning the location it is in."""
        if len(node.items) != 2:
            return None
        card = self.write_card(node.items[1], scope)
        if card is None:
            return None
        layout = self.k(self.comp.layout, "LAYOUT")
        span = self.k(node.span, "SPAN")
        width, n = self.comp.layout.width, self.comp.layout.nplayers

        def make(name):
            # each location name has a block of 1 + 2n places: the game's, the players', the teams'
            return [f"def {name}(s, e):", f"    # line {node.span.line}: {short(node)}",
                    f"    loc = s.card_loc[{card}]", f"    o = loc % {width}", f"    if 0 < o <= {n}:",
                    "        return o - 1", f"    info = {layout}.info(loc)",
                    f"    rt_error(f'the card is in {{info.label}}, which no player owns', {span}, 'owner')"]
        return self.helper(node, scope, "owner", make)

    def next_player(self) -> str:
        """The index of ``(next player)``: the cycle's queued player, else the one after the current."""
        n = self.comp.layout.nplayers
        return f"(s.pstack[-1][1] if s.pstack[-1][1] is not None else (s.pstack[-1][0] + 1) % {n})"

    # -- actions -------------------------------------------------------------------------
    def cycle_action(self, x, scope) -> list[str] | None:
        """``(cycle next|current WHO)`` with WHO written out (actions_state.a_cycle)."""
        if len(x.items) != 3 or not kw(x.items[1], "next", "current") or kw(x.items[2], "current", "next", "previous"):
            return None
        who = self.write_player(x.items[2], scope)
        if who is None:
            return None
        if x.items[1].value == "next":
            return [f"s.pstack[-1][1] = {who}"]
        p = self.fresh("p")
        return [f"{p} = {who}", f"s.pstack[-1][0], s.pstack[-1][1] = {p}, None"]

    def repeat_all_moves(self, x, scope, closure: str) -> list[str] | None:
        """``(repeat all (move (top A) (top B)))``: A's cards onto B at once, top first
        (items.bulk_repeat); recorded events, A being B or a budget too small for the moves
        take the closure's way, one move at a time."""
        if not self.comp.fast or not kw(x.items[2].items[0] if isinstance(x.items[2], SList) and x.items[2].items
                                        else None, "move") or self.comp.weight(x.items[2]) > SMALL:
            return None
        move = self.top_move(x.items[2], scope)
        if move is None:
            return None
        src, dst = move
        lst, d, k, moved = (self.fresh(n) for n in ("l", "d", "k", "moved"))
        return ([f"{lst} = s.locs[{src}]", f"{d} = {dst}", f"{k} = len({lst})",
                 f"if s.events is not None or {lst} is s.locs[{d}] or s.work < {k} or {k} > {MAX_COLLECTION}:",
                 f"    {closure}(s, e)", f"elif {k}:", f"    s.work -= {k}", f"    {moved} = {lst}[::-1]",
                 f"    {lst}.clear()"] + ["    " + ln for ln in self.landed(moved, d)])

    def swap_action(self, x, scope, closure: str) -> list[str] | None:
        """``(swap A B)`` of two physical locations written out, or of two variables known to
        hold cards (actions.a_swap); recorded events, a long location (charged for its
        cards) or a value that is not a card take the closure's way."""
        if len(x.items) != 3:
            return None
        a, b = x.items[1], x.items[2]
        if is_location_form(a) and is_location_form(b):
            if "mem" in (a.items[1].value, b.items[1].value):
                return None
            ia, ib = self.loc_index(a, scope), self.loc_index(b, scope)
            if ia is None or ib is None:
                return None
            i, j, li, lj, c, cl = (self.fresh(n) for n in ("i", "j", "li", "lj", "c", "cl"))
            return [f"{i} = {ia}", f"{j} = {ib}", f"{li} = s.locs[{i}]", f"{lj} = s.locs[{j}]",
                    f"if s.events is not None or len({li}) + len({lj}) > {SCAN}:", f"    {closure}(s, e)",
                    "else:", f"    s.locs[{i}], s.locs[{j}] = {lj}, {li}", f"    {cl} = s.card_loc",
                    f"    for {c} in {lj}:", f"        {cl}[{c}] = {i}",
                    f"    for {c} in {li}:", f"        {cl}[{c}] = {j}"]
        slots = []
        for v in (a, b):
            if not is_atom(v, VAR) or scope.hint(v.value) != "card" or not isinstance(scope.lookup(v.value), int):
                return None
            slots.append(scope.lookup(v.value))
        card = self.k(Card, "Card")
        va, vb, i, j, li, lj, pa = (self.fresh(n) for n in ("va", "vb", "i", "j", "li", "lj", "pa"))
        return [f"{va} = e[{slots[0]}]", f"{vb} = e[{slots[1]}]",
                f"if s.events is not None or {va}.__class__ is not {card} or {vb}.__class__ is not {card}:",
                f"    {closure}(s, e)", "else:",
                f"    {i} = s.card_loc[{va}]", f"    {j} = s.card_loc[{vb}]",
                f"    {li} = s.locs[{i}]", f"    {lj} = s.locs[{j}]",
                f"    if len({li}) + len({lj}) > {SCAN}:", f"        {closure}(s, e)", "    else:",
                # both places found before either changes (the two cards may share a location)
                f"        {pa} = {li}.index({va})", f"        {lj}[{lj}.index({vb})] = {va}", f"        {li}[{pa}] = {vb}",
                f"        s.card_loc[{va}], s.card_loc[{vb}] = {j}, {i}"]

    def set_points_action(self, x, scope, run, closure: str) -> list[str] | None:
        """``(set (OWNER points NAME) AWARDS)`` with computed parts (actions_state.c_set_points'
        ``set_points``): the map found by the parts' values, written out; a map not made yet
        takes the closure's way."""
        by_values = getattr(run, "by_values", None)
        slot = self.storage_index(x.items[1], scope, "points")
        if by_values is None or slot is None or self.local or self.literal:
            return None
        parts = [self.write_str(part, scope) if kind == "str" else self.write_int(part, scope)
                 for part, kind in run.parts]
        if not parts or None in parts:
            return None
        table = self.k(by_values, "MAPS")
        nawards = len(x.items[2].items)
        span = self.k(x.span, "SPAN")
        w, n, pm = self.fresh("w"), self.fresh("n"), self.fresh("pm")
        return [f"{w} = s.work", f"{n} = len(s.card_loc) * {nawards}", f"if {n} > {SMALL}:",
                f"    s.work -= {n} >> 1", "    if s.work < 0:", f"        out_of_work(s, {span}, 'set')",
                f"{pm} = {table}.get(({', '.join(parts)},))", f"if {pm} is None:", f"    s.work = {w}",
                f"    {closure}(s, e)", "else:", f"    s.points[{slot}] = {pm}"]


def _loop(node) -> bool:
    """Is ``node`` headed by a loop of the flow (``all``: registry role "loop")?"""
    form = registry().lookup(Kind.FLOW, head_of(node))
    return form is not None and form.role == "loop"


# -- the writers, by form (recycle/lang/forms/writers.py; ``cw`` is the CardWriter) --------

@COMPILED.register(Kind.LOC, "union")
def _union(cw, node, scope):
    return cw.write_union(node, scope)


@COMPILED.register(Kind.LOC, "filter")
def _filter(cw, node, scope):
    return cw.write_filter(node, scope)


@COMPILED.register(Kind.CARD, "max")
def _max(cw, node, scope):
    return cw.write_extreme(node, scope, ">")


@COMPILED.register(Kind.CARD, "min")
def _min(cw, node, scope):
    return cw.write_extreme(node, scope, "<")


@COMPILED.register(Kind.PLAYER, "owner")
def _owner(cw, node, scope):
    return cw.write_owner(node, scope)

