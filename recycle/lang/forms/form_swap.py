"""The form ``swap``: ``(swap LOCATION LOCATION)`` exchanges the contents of two physical
locations, ``(swap CARD CARD)`` the places of two cards.

The form is kept whole in this one module, registered together as it is imported (``flow.py``
imports every ``form_*.py``): its reading of the s-expression (``read_swap``: one node per
shape, ``SwapPlaces`` or ``SwapCards`` of ``lang/nodes/actions.py``), its meaning in the
reference interpreter (``SwapForms.a_swap``), its facts and words (the ``@form`` record) and
its native writer (``write_swap``). A card picked out of a mem location is checked as a move
checks it (``form_moves.py``).
"""

from __future__ import annotations

from ..nodes.actions import SwapCards, SwapPlaces
from ..nodes.places import Actual
from ..nodes.sexpr import Scope, fail, is_location_form
from ..syntax.reader import SList
from .effects import record_move
from .form_moves import mem_check, mem_free
from .items import Item
from .registry import Kind, family, form
from .runtime import SCAN, charge, rt_error
from .values import Card, PLoc
from .visibility import MEMORY
from .writers import NativeUnsupported, native


def read_swap(e, x: SList, scope: Scope) -> SwapPlaces | SwapCards:
    """Two locations (one written out as ``(OWNER KIND NAME)``), or two cards."""
    e.arity(x, 3)
    a, b = x.items[1], x.items[2]
    if is_location_form(a) or is_location_form(b):
        la, lb = e.loc(a, scope, "a location to swap"), e.loc(b, scope, "a location to swap")
        for n in (a, b):
            if is_location_form(n) and n.items[1].value == "mem":
                fail("cannot swap a mem location (it holds references, not cards)", n, "swap")
        return SwapPlaces(la, lb, span=x.span, source=x)
    pair = SwapCards(e.value(a, scope), e.value(b, scope), span=x.span, source=x)
    for n in (a, b):
        mem_check(e, n, "swap")
    return pair


@family
class SwapForms:
    """``swap`` in the reference interpreter (a mixin of ``FlowCompiler``)."""

    @form(
        "swap",
        "(swap LOCATION LOCATION) | (swap CARD CARD)",
        Kind.ACTION,
        puts=(1, 2),
        words="swap {1} ↔ {2}",
        node=(SwapPlaces, SwapCards),
        reads=read_swap,
    )
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


@native(Kind.ACTION, SwapPlaces, SwapCards)
def write_swap(w, x: SwapPlaces | SwapCards, sc) -> None:
    """Two physical locations' contents, or two cards' places, exchanged."""
    w.comment(x)
    for n in (x.a, x.b):
        mem_free(w, n)
    ta, tb = w.value(x.a, sc), w.value(x.b, sc)
    if ta[0] == "loc" and tb[0] == "loc":
        w.line(f"swap_locs(locs, lens, ver, card_loc, {ta[1]}, {tb[1]})")
    elif ta[0] == "card" and tb[0] == "card":
        w.line(f"swap_cards(locs, lens, ver, card_loc, ctr, {ta[1]}, {tb[1]})")
        w.check()
    else:
        raise NativeUnsupported("a swap of a location with a card", x)
    w.line("ctr[WORK] += 1")
