"""The forms that move a card or a reference to one: ``move``, ``remember`` and ``forget``.

A card lies in one physical location; a ``mem`` location holds references to cards that lie
elsewhere (``remember`` puts one, ``forget`` drops one, and ``(actual CARD)`` takes the
remembered card itself from where it lies). Each form is kept whole in this one module,
registered together as it is imported (``flow.py`` imports every ``form_*.py``): its reading
of the s-expression (``read_*``, with the shape checks and positioned errors; its node class is
in ``lang/nodes/actions.py``, the vocabulary every reader imports), its meaning in the
reference interpreter (``MoveForms``), its facts and words (the ``@form`` record) and its
native writer (``write_*``: where the closure raises a rule error, the native action sets
``ctr[STATUS]`` and the game returns, and the reference interpreter plays the rollout for the
message). The helpers of a card's source and a mem location are shared with ``swap``,
``shuffle`` and ``repeat`` (``form_swap.py``, ``form_shuffle.py``, ``form_repeat.py``).
"""

from __future__ import annotations

from ...errors import RecycleError
from ..nodes.actions import Forget, Move, Place, Remember
from ..nodes.base import Const, Loc, Var, written
from ..nodes.places import Actual, At, Bottom, Top
from ..nodes.sexpr import Scope, fail, head_of, is_atom, is_location_form, kw, short
from ..syntax.reader import INT, VAR, SList
from .effects import place as place_card, record_move
from .items import Item
from .registry import Kind, family, form
from .runtime import SCAN, charge, empty_location, n_cards, rt_error
from .values import PLoc
from .visibility import MEMORY
from .writers import LOC_T, VIEW_T, NativeUnsupported, native

# -- readings (the elaborator ``e`` turns each s-expression into its node) ---------------------


def place(e, x, scope):
    """The position of a destination ``(top|bottom|INDEX LOCATION)``: top, bottom or an integer."""
    where = x.items[0]
    if kw(where, "top", "bottom"):
        return where.value
    return e.int_(where, scope)


def read_move(e, x, scope):
    """``(move CARD (top|bottom|INDEX LOCATION))``: a card (out of a mem location only with
    ``actual``) into a physical, non-mem location."""
    e.arity(x, 3)
    to = x.items[2]
    if not isinstance(to, SList) or len(to.items) != 2:
        fail(
            f"expected a destination (top LOCATION), (bottom LOCATION) or (INDEX LOCATION), got {e.form_name(to)}",
            to,
        )
    loc = to.items[1]
    if not (is_location_form(loc) or is_atom(loc, VAR)):
        fail(f"cards can only be moved into a physical location (OWNER KIND NAME), not {e.form_name(loc)}", loc)
    if is_location_form(loc) and loc.items[1].value == "mem":
        fail("cards cannot be moved into a mem location (use remember)", loc)
    dest = Place(place(e, to, scope), e.loc(loc, scope, "a location to move into"), span=to.span, source=to)
    return Move(move_source(e, x.items[1], scope), dest, span=x.span, source=x)


def move_source(e, x, scope):
    """The card a move takes: a card, or (actual CARD)."""
    mem_check(e, x, "move")
    if head_of(x) == "actual":
        e.arity(x, 2)
    return e.card(x, scope, optional=True)


def mem_check(e, x, verb: str) -> None:
    """A card picked out of a mem location written out needs (actual CARD)."""
    loc = location_picked(e, x)
    if is_location_form(loc) and loc.items[1].value == "mem" and head_of(x) != "actual":
        fail(
            f"({verb} ...) cannot take a card out of the mem location {short(loc)}: a mem location "
            f"holds references; use (actual CARD) to {verb} the remembered card from where it lies",
            x,
            verb,
        )


def location_picked(e, x):
    """The LOCATION of a card picked by place, ``(top|bottom|INDEX LOCATION)``, else None."""
    if (
        isinstance(x, SList)
        and len(x.items) == 2
        and (kw(x.items[0], "top", "bottom") or is_atom(x.items[0], INT) or is_atom(x.items[0], VAR))
        and not kw(x.items[1], "player", "team")
        and not e.is_groups_form(x.items[1])
    ):
        return x.items[1]
    return None


def read_remember(e, x, scope):
    """``(remember CARD (top|bottom|INDEX MEMLOCATION))``: a card, and a place of a mem location."""
    e.arity(x, 3)
    card = e.card(x.items[1], scope)
    to = x.items[2]
    if not isinstance(to, SList) or len(to.items) != 2:
        fail("expected (remember CARD (top|bottom|INDEX MEMLOCATION))", to, "remember")
    loc = to.items[1]
    if is_location_form(loc) and loc.items[1].value != "mem":
        fail(f"remember into {short(loc)}, which is not a mem location", loc, "remember")
    dest = e.loc(loc, scope)
    return Remember(card, Place(place(e, to, scope), dest, span=to.span, source=to), span=x.span, source=x)


def read_forget(e, x, scope):
    """``(forget CARD)``: a card picked by place out of a mem location."""
    e.arity(x, 2)
    node = x.items[1]
    if head_of(node) == "actual":
        e.arity(node, 2)
        node = node.items[1]
    loc = location_picked(e, node)
    if loc is None or not (is_location_form(loc) or is_atom(loc, VAR)):
        fail("forget needs a card of a mem location, e.g. (top (game mem SEEN))", node, "forget")
    if is_location_form(loc) and loc.items[1].value != "mem":
        fail(f"forget from {short(loc)}, which is not a mem location", loc, "forget")
    return Forget(e.card(x.items[1], scope, optional=True), span=x.span, source=x)


# -- meanings in the reference interpreter ---------------------------------------------------


@family
class MoveForms:
    """Moving, remembering and forgetting cards in the reference interpreter (a mixin of
    ``FlowCompiler``)."""

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

    @form(
        "move",
        "(move CARD (top|bottom|INDEX LOCATION))",
        Kind.ACTION,
        puts=(2,),
        words="move {1} → {2}",
        node=Move,
        reads=read_move,
    )
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
                place_card(s, d, c, pos, e, span)
            except RecycleError:
                # a stopped game keeps every card in its place (transcripts show that state)
                phys.insert(j, c)
                if picked_from is not None and picked_from is not phys:
                    picked_from.insert(k, c)
                raise
            if s.events is not None:
                record_move(s, infos, "move", c, i, d)

        return Item(x, scope, run=move, static=True)

    @form(
        "remember",
        "(remember CARD (top|bottom|INDEX MEMLOCATION))",
        Kind.ACTION,
        puts=(2,),
        words="remember {1} in {2}",
        node=Remember,
        reads=read_remember,
    )
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
            place_card(s, d, c, pos, e, span, memory=True)
            if s.events is not None:
                record_move(s, infos, "remember", c, s.card_loc[c], d)

        return Item(x, scope, run=remember, static=True)

    def c_mem_dest(self, x: Place, scope: Scope):
        idx = self.c_loc_index(x.location, scope)
        if x.where in ("top", "bottom"):
            return idx, x.where
        return idx, self.c_int(x.where, scope)

    @form("forget", "(forget CARD)", Kind.ACTION, words="forget {1}", node=Forget, reads=read_forget)
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


# -- native writers -----------------------------------------------------------------------

ENDS = (Top, Bottom)  # a card picked by its end: (top LOCATION), (bottom LOCATION)


def destination(w, x, sc) -> tuple[str, str]:
    """(location code, position code) of ``(top|bottom|INDEX LOCATION)``: -1 top, 0 bottom."""
    t, code = w.loc(x.location, sc)
    if t != LOC_T:
        raise NativeUnsupported("a move into a view", x)
    if x.where == "top":
        return code, "-1"
    if x.where == "bottom":
        return code, "0"
    raise NativeUnsupported("a move to an index", x)


def is_mem(node) -> bool:
    """Is ``node`` a mem location written out as ``(OWNER mem NAME)``?"""
    return isinstance(node, Loc) and node.kind == "mem"


def mem_free(w, node) -> None:
    """A mem location written out where a physical one is needed is not written natively."""
    if is_mem(node):
        raise NativeUnsupported("a mem location", node)


def picked_from(card):
    """The location a card is picked from by place (top, bottom or an index), else None."""
    return card.location if isinstance(card, (Top, Bottom, At)) else None


@native(Kind.ACTION, Move)
def write_move(w, x: Move, sc) -> None:
    """A card moved: the top of a location onto the top of another at once, or a card picked
    out of a view dropped from it too; a move to an index is not written."""
    src, dst = x.card, x.to
    mem_free(w, picked_from(src))
    mem_free(w, dst.location)
    w.comment(x)
    d, pos = destination(w, dst, sc)
    if isinstance(src, Top) and pos == "-1":
        t, s = w.loc(src.location, sc)
        if t == LOC_T:
            w.line(f"move_top(locs, lens, ver, card_loc, ctr, {s}, {d})")
            w.line("ctr[WORK] += 1")
            w.check()
            return
    if isinstance(src, ENDS) and isinstance(src.location, (Var, Const)) and w.loc(src.location, sc)[0] == VIEW_T:
        # picked out of a view: the view drops the card too
        top = isinstance(src, Top)
        view, c = w.fresh("view"), w.fresh("card")
        w.line(f"{view} = {w.loc(src.location, sc)[1]}")
        w.line(f"{c} = view_{'top' if top else 'bottom'}(ctr, scratch, {view})")
        w.check()
        w.line(f"drop_picked(scratch, {view}, {top})")
    else:
        c = w.card(src, sc)
    w.line(f"move_card(locs, lens, ver, card_loc, ctr, {c}, {d}, {pos})")
    w.line("ctr[WORK] += 1")
    w.check()


def mem_location(w, x, sc, form: str) -> str:
    """The code of ``(OWNER mem NAME)`` (a mem location named in the text: Python checks a
    computed one when it runs)."""
    if not is_mem(x):
        raise NativeUnsupported(f"({form} ...) of a location not named as a mem location", x)
    t, code = w.loc(x, sc)
    if t != LOC_T:
        raise NativeUnsupported(f"({form} ...) of a view", x)
    return code


@native(Kind.ACTION, Remember)
def write_remember(w, x: Remember, sc) -> None:
    """(remember CARD (top|bottom MEMLOCATION)): a reference put, the card staying where it is."""
    if x.to.where not in ("top", "bottom"):
        raise NativeUnsupported("(remember ...) at an index", x)
    w.comment(x)
    d = mem_location(w, x.to.location, sc, "remember")
    c = w.card(x.card, sc)
    w.line(f"put_reference(locs, lens, ver, ctr, {c}, {d}, {'-1' if x.to.where == 'top' else '0'})")
    w.line("ctr[WORK] += 1")
    w.check()


def end_picked(card):
    """The (top|bottom LOCATION) a forget names, through (actual ...); else None."""
    if isinstance(card, Actual):
        card = card.card
    return card if isinstance(card, ENDS) else None


@native(Kind.ACTION, Forget)
def write_forget(w, x: Forget, sc) -> None:
    """(forget (top|bottom MEMLOCATION)): the entry dropped (the card stays where it is)."""
    node = end_picked(x.card)
    if node is None:
        raise NativeUnsupported("(forget ...) at an index", x)
    w.comment(x)
    loc = mem_location(w, node.location, sc, "forget")
    w.line(f"drop_entry(locs, lens, ver, ctr, {loc}, {'True' if isinstance(node, Top) else 'False'})")
    w.line("ctr[WORK] += 1")
    w.check()
