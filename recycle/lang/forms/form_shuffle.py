"""The form ``shuffle``: ``(shuffle LOCATION)`` puts a location's cards in a random order,
``(shuffle faro LOCATION LOCATION)`` interleaves the second location's cards with the first's.

The form is kept whole in this one module, registered together as it is imported (``flow.py``
imports every ``form_*.py``): its reading of the s-expression (``read_shuffle``: one node per
shape, ``Shuffle`` or ``Faro`` of ``lang/nodes/actions.py``), its meaning in the reference
interpreter (``ShuffleForms.a_shuffle``: it draws from the game's random numbers), its facts and
words (the ``@form`` record) and its native writers (``write_shuffle``; a faro is not written
natively, and the reference interpreter plays such a game).
"""

from __future__ import annotations

import itertools

from ..nodes.actions import Faro, Shuffle
from ..nodes.sexpr import Scope, fail, is_atom, is_location_form, kw
from ..syntax.reader import VAR, SList
from .effects import record_move, shuffle
from .form_moves import mem_free
from .items import Item
from .registry import Kind, family, form
from .runtime import SMALL, charge, rt_error
from .visibility import MEMORY
from .writers import NativeUnsupported, native


def read_shuffle(e, x: SList, scope: Scope) -> Shuffle | Faro:
    """A physical location, or a faro of two (neither a mem location)."""
    if len(x.items) == 4 and kw(x.items[1], "faro"):
        for n in x.items[2:]:
            if is_location_form(n) and n.items[1].value == "mem":
                fail(
                    "shuffle faro needs physical locations, not a mem location (it holds references, not cards)",
                    n,
                    "shuffle",
                )
        a = e.loc(x.items[2], scope, "a physical location")
        return Faro(a, e.loc(x.items[3], scope, "a physical location"), span=x.span, source=x)
    e.arity(x, 2)
    if not is_location_form(x.items[1]) and not is_atom(x.items[1], VAR):
        fail("shuffle needs a physical location (OWNER KIND NAME)", x.items[1], "shuffle")
    return Shuffle(e.loc(x.items[1], scope), span=x.span, source=x)


@family
class ShuffleForms:
    """``shuffle`` in the reference interpreter (a mixin of ``FlowCompiler``)."""

    @form(
        "shuffle",
        "(shuffle LOCATION) | (shuffle faro LOCATION LOCATION)",
        Kind.ACTION,
        draws=True,
        words="shuffle {1* }",
        node=(Shuffle, Faro),
        reads=read_shuffle,
    )
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


@native(Kind.ACTION, Faro)
def write_faro(w, x: Faro, sc) -> None:
    """A faro shuffle is not written natively: the reference interpreter plays the game."""
    raise NativeUnsupported("a faro shuffle", x)


@native(Kind.ACTION, Shuffle)
def write_shuffle(w, x: Shuffle, sc) -> None:
    """A physical location's cards shuffled with the rollout's keys."""
    mem_free(w, x.location)
    w.comment(x)
    w.line(f"shuffle(locs, lens, ver, ctr, keys, {w.phys(x.location, sc)})")
