"""Compiling RECYCLE's actions on cards into items: moving cards, swaps, memory and
shuffles. Storage, turn order, repeats and creation are in ``actions_state``.
"""

from __future__ import annotations

import itertools

from ...errors import RecycleError
from .registry import Kind, form
from .effects import place, record_move, shuffle
from .items import Item
from .runtime import SCAN, SMALL, charge, empty_location, n_cards, rt_error
from ..nodes.sexpr import Scope
from .values import Card, PLoc
from .visibility import MEMORY
from ..nodes.actions import Faro, Forget, Move, Place, Remember, Shuffle, SwapCards, SwapPlaces
from ..nodes.base import Const, Loc, Var, written
from ..nodes.places import Actual, At, Bottom, Top
from .reads import reads_node


class CardActions:
    """The actions on cards of the compiler (a mixin of ``FlowCompiler``)."""

    # -- card movement ---------------------------------------------------------------------
    def c_dest(self, x: Place, scope: Scope):
        """(top|bottom|i LOCATION) as a destination → (index closure, position closure or str)."""
        loc = x.location
        idx = self.c_loc_index(loc, scope, "a location to move into")
        if isinstance(loc, (Var, Const)):
            # a variable may hold a mem location: checked as the move runs
            var_idx, infos, span, name = idx, self.layout.infos, loc.span, loc.name

            def idx(s, e):
                d = var_idx(s, e)
                if infos[d].visibility == MEMORY:
                    rt_error(
                        f"cards cannot be moved into a mem location ({infos[d].label}, held by '{name}; use remember)",
                        span,
                        "move",
                    )
                return d

        if x.where in ("top", "bottom"):
            return idx, x.where
        return idx, self.c_int(x.where, scope)

    @staticmethod
    def picked_location(x):
        """The LOCATION of a card picked by place, ``(top|bottom|INDEX LOCATION)``, else None."""
        return x.location if isinstance(x, (Top, Bottom, At)) else None

    def mem_pick(self, x, scope: Scope, actual: bool, form: str):
        """Is the card ``x`` picked by place out of a ``mem`` location?

        A ``mem`` location holds references, not cards: RECYCLE.md 7 makes taking a card out
        of one without ``(actual ...)`` an error (CardStock refuses it too; the elaborator
        refuses a mem location written out), and with ``actual`` the remembered card is taken
        from where it physically lies, the reference staying in memory (docs/language.md).
        Returns "mem" for a literal ``(OWNER mem NAME)`` (only ever reached with ``actual``),
        a closure ``f(s, e) -> bool`` when the location is a variable that may hold a mem
        location (checked as the action runs: an error without ``actual``), or None: a
        physical location or a view."""
        loc = self.picked_location(x)
        if loc is None:
            return None
        if isinstance(loc, Loc):
            return "mem" if loc.is_mem else None
        if not isinstance(loc, (Var, Const)) or scope.hint(loc.name) in ("cards", "card", "player"):
            return None
        var = self.c_var(loc, scope)
        infos = self.layout.infos
        span, name = x.span, loc.name

        def from_mem(s, e):
            v = var(s, e)
            if isinstance(v, PLoc) and infos[v.idx].visibility == MEMORY:
                if not actual:
                    rt_error(
                        f"({form} ...) cannot take a card out of the mem location {infos[v.idx].label} held by "
                        f"'{name}: a mem location holds references; use (actual CARD) to {form} the remembered "
                        f"card from where it lies",
                        span,
                        form,
                    )
                return True
            return False

        return from_mem

    def c_source(self, x, scope: Scope, actual: bool = False, form: str = "move"):
        """A card to take → closure returning (card, list it was picked from or None, its
        index there).

        The list is None when the card is named directly (a card variable, max, min) or
        picked out of a mem location with ``actual``: the card then leaves its physical
        location only. Otherwise it is the physical location itself or a view, from which
        the mover also drops the picked entry."""
        loc = self.picked_location(x)
        if loc is not None:
            mem = self.mem_pick(x, scope, actual, form)
            cards = self.c_cards(loc, scope, first_group=True)
            span = x.span
            empty = self.empty_source(loc, scope)
            if isinstance(x, Top):

                def pick(s, e):
                    lst = cards(s, e)
                    if not lst:
                        empty(s, e, span, "top")
                    k = len(lst) - 1
                    return lst[k], lst, k
            elif isinstance(x, Bottom):

                def pick(s, e):
                    lst = cards(s, e)
                    if not lst:
                        empty(s, e, span, "bottom")
                    return lst[0], lst, 0
            else:
                ifn = self.c_int(x.index, scope)
                label = f"({written(x.index)} ...)"

                def pick(s, e):
                    lst = cards(s, e)
                    i = ifn(s, e)
                    if not 0 <= i < len(lst):
                        rt_error(f"index {i} out of range for a location of {n_cards(len(lst))}", span, label)
                    return lst[i], lst, i

            if mem == "mem":

                def pick_remembered(s, e):
                    c, _, k = pick(s, e)
                    return c, None, k

                return pick_remembered
            if mem is not None:

                def pick_maybe_remembered(s, e):
                    remembered = mem(s, e)
                    c, lst, k = pick(s, e)
                    return (c, None, k) if remembered else (c, lst, k)

                return pick_maybe_remembered
            return pick
        if isinstance(x, Actual):
            return self.c_source(x.card, scope, True, form)
        card = self.c_card(x, scope, optional=True)
        span = getattr(x, "span", None)

        def src_card(s, e):
            c = card(s, e)
            if c is None:
                rt_error("the card reference names no card", span)
            return c, None, -1

        return src_card

    def empty_source(self, loc, scope: Scope):
        """The error of a move from an empty location, naming it when it is a physical one
        (the same message and position on the fast and the plain path)."""
        if isinstance(loc, Loc):
            idx = self.c_loc_index(loc, scope)
            infos, nplayers = self.layout.infos, self.layout.nplayers

            def empty(s, e, span, form):
                rt_error(empty_location("move", infos[idx(s, e)].label, nplayers), span, form)

            return empty

        def empty_view(s, e, span, form):
            rt_error("move from an empty location", span, form)

        return empty_view

    @form("move", "(move CARD (top|bottom|INDEX LOCATION))", Kind.ACTION, puts=(2,), words="move {1} → {2}")
    @reads_node
    def a_move(self, x: Move, scope: Scope) -> Item:
        """(move CARD (top|bottom|INDEX LOCATION))

        Takes the card out of its physical location and puts it at the top, the bottom or
        the index of a physical, non-mem location; moving from an empty location is an
        error, and so is taking a card out of a mem location without (actual CARD)."""
        layout = self.layout
        dst, pos = self.c_dest(x.to, scope)
        span = x.span
        src = self.c_source(x.card, scope)
        infos = layout.infos

        def move(s, e):
            c, picked_from, k = src(s, e)
            i = s.card_loc[c]
            phys = s.locs[i]
            # named directly, remembered (the mem entry stays), or picked out of a view: the
            # card is found in its physical location, and the view drops the entry picked
            j = k if picked_from is phys else phys.index(c)
            if len(phys) > SCAN and (picked_from is not phys or j < len(phys) - SCAN):
                # searched for, or the cards above it shift
                charge(s, len(phys) >> (8 if picked_from is phys else 4), span, "move")
            if picked_from is not phys and picked_from is not None:
                del picked_from[k]
            del phys[j]
            try:
                d = dst(s, e)
                place(s, d, c, pos, e, span)
            except RecycleError:
                # a stopped game keeps every card in its place (transcripts show that state)
                phys.insert(j, c)
                if picked_from is not None and picked_from is not phys:
                    picked_from.insert(k, c)
                raise
            if s.events is not None:
                record_move(s, infos, "move", c, i, d)

        return Item(x, scope, run=move, static=True)

    @form("swap", "(swap LOCATION LOCATION) | (swap CARD CARD)", Kind.ACTION, puts=(1, 2), words="swap {1} ↔ {2}")
    @reads_node
    def a_swap(self, x: SwapPlaces | SwapCards, scope: Scope) -> Item:
        """(swap LOCATION LOCATION) | (swap CARD CARD)

        Exchanges the contents of two physical locations, or the places of two cards."""
        a, b = x.a, x.b
        span = x.span
        infos = self.layout.infos
        if isinstance(x, SwapPlaces):
            ia = self.c_loc_index(a, scope, "a location to swap")
            ib = self.c_loc_index(b, scope, "a location to swap")

            def swap_locs(s, e):
                i, j = ia(s, e), ib(s, e)
                if infos[i].visibility == MEMORY or infos[j].visibility == MEMORY:
                    rt_error("cannot swap a mem location (it holds references, not cards)", span, "swap")
                locs = s.locs
                li, lj = locs[i], locs[j]
                if len(li) + len(lj) > SCAN:
                    charge(s, (len(li) + len(lj)) >> 3, span, "swap")
                locs[i], locs[j] = lj, li
                cl = s.card_loc
                for c in lj:
                    cl[c] = i
                for c in li:
                    cl[c] = j
                if s.events is not None:
                    for c in li:
                        record_move(s, infos, "swap", c, i, j, whole=True)
                    for c in lj:
                        record_move(s, infos, "swap", c, j, i, whole=True)

            return Item(x, scope, run=swap_locs, static=True)
        ca = self.c_value(a, scope)
        cb = self.c_value(b, scope)
        # a card picked out of a mem location is a reference: without (actual ...) that is
        # an error, as for move (a literal mem location fails here, a variable when it runs)
        mems = [
            m
            for m in (
                self.mem_pick(a, scope, isinstance(a, Actual), "swap"),
                self.mem_pick(b, scope, isinstance(b, Actual), "swap"),
            )
            if callable(m)
        ]
        if mems:
            ca0, cb0 = ca, cb

            def ca(s, e):
                for m in mems:
                    m(s, e)
                return ca0(s, e)

            cb = cb0

        def swap(s, e):
            va, vb = ca(s, e), cb(s, e)
            if isinstance(va, PLoc) and isinstance(vb, PLoc):
                i, j = va.idx, vb.idx
                if infos[i].visibility == MEMORY or infos[j].visibility == MEMORY:
                    rt_error("cannot swap a mem location (it holds references, not cards)", span, "swap")
                li, lj = s.locs[i], s.locs[j]
                if len(li) + len(lj) > SCAN:
                    charge(s, (len(li) + len(lj)) >> 3, span, "swap")
                s.locs[i], s.locs[j] = lj, li
                for c in lj:
                    s.card_loc[c] = i
                for c in li:
                    s.card_loc[c] = j
                if s.events is not None:
                    for c in li:
                        record_move(s, infos, "swap", c, i, j, whole=True)
                    for c in lj:
                        record_move(s, infos, "swap", c, j, i, whole=True)
                return
            if not isinstance(va, Card) or not isinstance(vb, Card):
                rt_error("swap needs two cards or two locations", span, "swap")
            i, j = s.card_loc[va], s.card_loc[vb]
            li, lj = s.locs[i], s.locs[j]
            if len(li) + len(lj) > SCAN:
                charge(s, (len(li) + len(lj)) >> 4, span, "swap")  # each card is searched for
            pa, pb = li.index(va), lj.index(vb)
            li[pa] = vb
            lj[pb] = va
            s.card_loc[va], s.card_loc[vb] = j, i
            if s.events is not None:
                record_move(s, infos, "swap", va, i, j)
                record_move(s, infos, "swap", vb, j, i)

        return Item(x, scope, run=swap, static=True)

    @form(
        "remember",
        "(remember CARD (top|bottom|INDEX MEMLOCATION))",
        Kind.ACTION,
        puts=(2,),
        words="remember {1} in {2}",
    )
    @reads_node
    def a_remember(self, x: Remember, scope: Scope) -> Item:
        """(remember CARD (top|bottom|INDEX MEMLOCATION))

        Adds a reference to the card at a place of a mem location; the card stays where it
        is."""
        card = self.c_card(x.card, scope)
        dst, pos = self.c_mem_dest(x.to, scope)
        span = x.span
        infos = self.layout.infos

        def remember(s, e):
            c = card(s, e)
            d = dst(s, e)
            if infos[d].visibility != MEMORY:
                rt_error(f"remember into {infos[d].label}, which is not a mem location", span, "remember")
            place(s, d, c, pos, e, span, memory=True)
            if s.events is not None:
                record_move(s, infos, "remember", c, s.card_loc[c], d)

        return Item(x, scope, run=remember, static=True)

    def c_mem_dest(self, x: Place, scope: Scope):
        idx = self.c_loc_index(x.location, scope)
        if x.where in ("top", "bottom"):
            return idx, x.where
        return idx, self.c_int(x.where, scope)

    @form("forget", "(forget CARD)", Kind.ACTION, words="forget {1}")
    @reads_node
    def a_forget(self, x: Forget, scope: Scope) -> Item:
        """(forget CARD)

        Drops the entry picked out of a mem location, e.g. (forget (top (game mem SEEN)));
        the card itself stays where it is."""
        card = x.card.card if isinstance(x.card, Actual) else x.card  # (a card of a mem location)
        idx = self.c_loc_index(card.location, scope, "a mem location")
        ifn = self.c_int(card.index, scope) if isinstance(card, At) else None
        top = isinstance(card, Top)
        span = x.span
        infos = self.layout.infos

        def forget(s, e):
            i = idx(s, e)
            if infos[i].visibility != MEMORY:
                rt_error(f"forget from {infos[i].label}, which is not a mem location", span, "forget")
            lst = s.locs[i]
            if ifn is not None:
                k = ifn(s, e)
                if not 0 <= k < len(lst):
                    rt_error(f"index {k} out of range for a location of {n_cards(len(lst))}", span, "forget")
            elif not lst:
                rt_error(empty_location("forget", infos[i].label, self.layout.nplayers), span, "forget")
            else:
                k = len(lst) - 1 if top else 0
            if len(lst) - k > SCAN:
                charge(s, len(lst) >> 8, span, "forget")  # the entries above it shift
            c = lst.pop(k)
            if s.events is not None:
                record_move(s, infos, "forget", c, i, None)

        return Item(x, scope, run=forget, static=True)

    @form(
        "shuffle",
        "(shuffle LOCATION) | (shuffle faro LOCATION LOCATION)",
        Kind.ACTION,
        draws=True,
        words="shuffle {1* }",
    )
    @reads_node
    def a_shuffle(self, x: Shuffle | Faro, scope: Scope) -> Item:
        """(shuffle LOCATION) | (shuffle faro LOCATION LOCATION)

        Puts a location's cards in a uniformly random order; a faro interleaves the second
        location's cards with the first's and leaves the second empty (two different
        physical locations)."""
        if isinstance(x, Faro):
            ia = self.c_loc_index(x.a, scope, "a physical location")
            ib = self.c_loc_index(x.b, scope, "a physical location")
            infos = self.layout.infos
            span = x.span

            def faro(s, e):
                i, j = ia(s, e), ib(s, e)
                if infos[i].visibility == MEMORY or infos[j].visibility == MEMORY:
                    rt_error(
                        f"shuffle faro needs physical locations, not the mem location "
                        f"{infos[i if infos[i].visibility == MEMORY else j].label}",
                        span,
                        "shuffle",
                    )
                if i == j:
                    rt_error(
                        f"shuffle faro interleaves two different locations, not {infos[i].label} with itself",
                        span,
                        "shuffle",
                    )
                a, b = s.locs[i], s.locs[j]
                if len(a) + len(b) > SMALL:
                    charge(s, len(a) + len(b), span, "shuffle")
                moved = b[:]
                # in place: variables and suspended loops may hold these lists
                a[:] = [c for pair in itertools.zip_longest(a, moved) for c in pair if c is not None]
                b.clear()
                card_loc = s.card_loc
                for c in moved:
                    card_loc[c] = i
                if s.events is not None:
                    for c in moved:
                        record_move(s, infos, "move", c, j, i)

            return Item(x, scope, run=faro, static=True)
        idx = self.c_loc_index(x.location, scope)
        span = x.span

        def shuffle_loc(s, e):
            lst = s.locs[idx(s, e)]
            if len(lst) > SMALL:
                charge(s, len(lst), span, "shuffle")
            shuffle(lst, s.rng.random)

        return Item(x, scope, run=shuffle_loc, static=True)
