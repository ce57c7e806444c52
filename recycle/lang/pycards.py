"""Writing card-level expressions of a game as Python source (for ``pygen``, via ``pyexpr``).

Views of several locations (``union``), sums of point maps, the highest or lowest card by a
point map, a card's owner, a cycle's next player and ``repeat all`` moves are written as
small generated functions (or statements) instead of calls of the compiler's closures.

Each keeps the closure's meaning exactly: the same work charged at the same moment, the same
random draws, the same errors. Where a rare case (an empty location, a map whose sums may pass
64 bits, a view over the collection limit, recorded events) would need the closure's
message or bookkeeping, the written function gives the state back as it found it (nothing has
changed but the work budget, which it restores) and calls the closure, which then does and
says exactly what the closures do. tests/test_differential.py holds every game to that.
"""

from __future__ import annotations

from contextlib import contextmanager

from .purity import KEY_CARDS, analyse
from .shapes import MAX_COLLECTION, SMALL, Const, head_of, is_atom, is_location_form, is_storage_form, kw
from .syntax import VAR, SList


def short(node, width: int = 70) -> str:
    """A form on one line, cut to ``width``, as a comment may hold it."""
    text = "".join(ch if ch.isprintable() else "?" for ch in " ".join(str(node).split()))
    return text if len(text) <= width else text[:width - 3] + "..."


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
            self.helper_functions.append(make(name))
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
        h = head_of(node)
        if h == "union":
            return self.write_union(node, scope)
        if h == "filter":
            return self.write_filter(node, scope)
        return None

    def union_parts(self, node, scope) -> list[str] | None:
        """The location indices (sources) a union reads, in order, or None."""
        items = node.items[1:]
        if len(items) == 1 and head_of(items[0]) == "all":
            inner = items[0]
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
        was worked out for, else the compiler's cached closure (which pays for what it
        reads). Only answers that took no work are kept, as the cache keeps them
        (purity.cached)."""
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
        if idx is None or not idx.isdigit() or pslot is None or (pts and not pslot.isdigit()):
            return None
        closure = self.k(self.bool_closure(node, scope))
        slots = [(scope.lookup(name), p) for name, p in self.literal.items()]
        bind = [(slot, p) for slot, p in slots if isinstance(slot, int)]
        players = self.k(self.comp.players, "PLAYERS")
        # one tuple (cards, map, answer), replaced whole: a game shared by threads reads a
        # consistent one
        memo = self.k([(None, None, None)], "MEMO")
        last = self.fresh("m")
        pm = f"s.points[{pslot}]" if pts else "None"

        def make(name):
            return ([f"def {name}(s, e):", f"    # line {node.span.line}: {short(node)}"]
                    + [f"    e[{slot}] = {players}[{p}]" for slot, p in bind]
                    + ["    w = s.work", f"    v = {closure}(s, e)", f"    cards = s.locs[{idx}]",
                       f"    if w == s.work and len(cards) <= {KEY_CARDS}:",
                       f"        {memo}[0] = (cards[:], {pm}, v)", "    return v"])
        call = self.helper(node, scope, "memo", make, tuple(sorted(self.literal.items())))
        return f"({last}[2] if ({last} := {memo}[0])[0] == s.locs[{idx}] and {last}[1] is {pm} else {call})"

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
    def write_extreme(self, node, scope) -> str | None:
        """``(max|min COLLECTION using POINTS)`` in a context needing a card
        (expr_cards.card_extreme: charged for its cards, ties drawn from the game's generator)."""
        parts = self.using_points(node, scope)
        if parts is None:
            return None
        src, pslot = parts
        h = head_of(node)
        closure = self.k(self.comp.c_card(node, scope))
        span = self.k(node.span, "SPAN")

        def make(name):
            return [f"def {name}(s, e):", f"    # line {node.span.line}: {short(node)}", "    w = s.work",
                    f"    lst = {src}", "    if not lst:", "        s.work = w", f"        return {closure}(s, e)",
                    "    s.work -= len(lst)", "    if s.work < 0:", f"        out_of_work(s, {span}, {h!r})",
                    f"    sc = s.points[{pslot}].table", f"    best = {h}([sc[c] for c in lst])",
                    "    tied = [c for c in lst if sc[c] == best]",
                    "    return tied[0] if len(tied) == 1 else tied[s.rng.randrange(len(tied))]"]
        return self.helper(node, scope, h, make)

    def write_card(self, node, scope) -> str | None:
        """A card expression written out (a max or min by a point map), or None."""
        if head_of(node) in ("max", "min"):
            return self.write_extreme(node, scope)
        return None

    def write_player(self, node, scope) -> str | None:
        """A player expression as its index: ``(current player)``, ``(next player)`` or
        ``(owner CARD)`` of a written-out card; else None."""
        if isinstance(node, SList) and len(node.items) == 2 and kw(node.items[1], "player"):
            if kw(node.items[0], "current"):
                return "s.pstack[-1][0]"
            if kw(node.items[0], "next"):
                return self.next_player()
            return None
        if head_of(node) == "owner" and len(node.items) == 2:
            card = self.write_card(node.items[1], scope)
            if card is None:
                return None
            layout = self.k(self.comp.layout, "LAYOUT")
            span = self.k(node.span, "SPAN")

            def make(name):
                return [f"def {name}(s, e):", f"    # line {node.span.line}: {short(node)}",
                        f"    info = {layout}.info(s.card_loc[{card}])", "    if info.owner_kind == 'player':",
                        "        return info.owner",
                        f"    rt_error(f'the card is in {{info.label}}, which no player owns', {span}, 'owner')"]
            return self.helper(node, scope, "owner", make)
        return None

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
        if not self.comp.fast or head_of(x.items[2]) != "move" or self.comp.weight(x.items[2]) > SMALL:
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
