"""Caching pure conditions by the cards they read.

Many end conditions ask the same question again and again about hands that have not
changed (Schwimmen's "does any player hold 31?" is asked before every turn for every
player). A condition or integer whose value depends only on the cards of a few
locations (plus point maps, card attributes and constants) is a function of those
card lists, so its value can be cached under the key ``(cards of L1, ..., point maps)``.

``analyse`` decides, from the syntax alone and conservatively, whether a form is such a
function, and names the locations and point maps it reads. Anything that reads other
state (storages, turn order, card owners) or draws random numbers is not cached.
"""

from __future__ import annotations

from .registry import mention, registry
from .shapes import head_of, is_location_form, is_storage_form, kw
from ..syntax.reader import SYMBOL, VAR, Atom, SList

# The heads that bind a variable, that are safe (pure), and that are worth caching
# (expensive: caching only pays when the form does real work over its cards) are facts of
# each form, in the form registry (``registry().binders``, ``.safe``, ``.expensive``).
MAX_LOCATIONS = 3


def _nodes(x):
    yield x
    if isinstance(x, SList):
        for i in x.items:
            yield from _nodes(i)
CACHE_LIMIT = 200_000
KEY_CARDS = 128  # the most cards of one location a cache key is made of (see cached)


class _Impure(Exception):
    pass


def analyse(x, outer_is_const) -> tuple[list, list] | None:
    """(location forms, point-map forms) that ``x`` reads, or None when it is not cacheable.

    ``outer_is_const(name)`` tells whether a variable bound outside ``x`` is a constant.
    """
    found = reads(x, outer_is_const)
    if found is None:
        return None
    locs, pts = found
    if not any(isinstance(n, SList) and head_of(n) in registry().expensive for n in _nodes(x)):
        return None
    if not locs or len(locs) > MAX_LOCATIONS:
        return None
    return locs, pts


def constant(x, outer_is_const) -> bool:
    """Is ``x`` a function of constants alone (no location, point map, storage, turn or draw)?"""
    return reads(x, outer_is_const) == ([], [])


def reads(x, outer_is_const) -> tuple[list, list] | None:
    """(location forms, point-map forms) that ``x`` reads, or None when it reads anything else
    (storages, the turn order, card owners, variables that are not constants) or draws."""
    locs: dict[str, SList] = {}
    pts: dict[str, SList] = {}
    forms = registry()
    binders, safe = forms.binders, forms.safe

    def address_ok(node, bound) -> None:
        # inside a location or storage address, outer variables and the current player are fine
        # (the key is built from the address's evaluation), variables bound within x are not
        if isinstance(node, Atom):
            if node.kind == VAR and node.value in bound:
                raise _Impure
            return
        for i in node.items:
            address_ok(i, bound)

    def walk(node, bound: frozenset) -> None:
        if isinstance(node, Atom):
            if node.kind == VAR and node.value not in bound and not outer_is_const(node.value):
                raise _Impure
            if kw(node, "team"):
                raise _Impure
            return
        if is_location_form(node):
            address_ok(node.items[0], bound)
            address_ok(node.items[2], bound)
            locs[str(node)] = node
            return
        sort = is_storage_form(node)
        if sort == "points":
            address_ok(node, bound)
            pts[str(node)] = node
            return
        if sort is not None:
            raise _Impure
        h = head_of(node)
        items = node.items
        if h in binders and len(items) == 4 and isinstance(items[2], Atom) and items[2].kind == VAR:
            walk(items[1], bound)
            walk(items[3], bound | {items[2].value})
            return
        if h is None:
            # a name list (A, B) or an index form (0 LOC)
            for i in items:
                walk(i, bound)
            return
        if h not in safe and not h.isupper():
            raise _Impure
        if len(items) == 2 and kw(items[1], "player", "team"):
            raise _Impure  # (current player) etc. outside an address
        for i in items[1:]:
            walk(i, bound)

    try:
        walk(x, frozenset())
    except _Impure:
        return None
    return list(locs.values()), list(pts.values())


def order_free(x) -> bool:
    """Does ``x`` (a form ``analyse`` accepted) read its locations only as sets of cards?

    Conservatively, from the syntax: a location (or a group of a partition of one) may be
    read by ``size``, ``sum``, as the collection of a boolean ``any``/``all``, or as
    ``(partition KEY LOCATION)`` in such a collection; and ``(cardatt KEY (top G))`` is
    allowed for a group G of a partition by that KEY (all its cards share the attribute).
    Any other use (``top``, an index, ``union``, a bare location ...) may see the order.
    Such a form's value is the same for every order of the cards, so its cache key can
    sort them: a hand is then one key however it is arranged.
    """
    return _free(x, {})


def _set_read(node, groups: dict) -> bool:
    """A location, or a variable bound to a partition group."""
    return is_location_form(node) or (isinstance(node, Atom) and node.kind == VAR and node.value in groups)


def _symbol(x) -> str | None:
    return x.value if isinstance(x, Atom) and x.kind == SYMBOL else None


def _free(node, groups: dict) -> bool:
    if isinstance(node, Atom):
        return not (node.kind == VAR and node.value in groups)
    if is_location_form(node):
        return False
    if is_storage_form(node):
        return True
    reading = _SET_READINGS.get(head_of(node))
    if reading is not None and reading(node.items, groups):
        return True
    return all(_free(i, groups) for i in node.items)


# the forms that read a location (or a partition's group) as a set of cards, by head: each
# says whether its use here is such a reading (then the form is order-free)
_SET_READINGS: dict = {}


def _reads_a_set(*heads: str):
    def add(fn):
        for h in heads:
            _SET_READINGS[h] = fn
        return fn
    return add


@_reads_a_set("size")
def _size_of_set(items, groups) -> bool:
    return len(items) == 2 and _set_read(items[1], groups)


@_reads_a_set("sum")
def _sum_of_set(items, groups) -> bool:
    return len(items) == 4 and _set_read(items[1], groups) and _free(items[3], groups)


@_reads_a_set("cardatt")
def _attribute_of_a_group(items, groups) -> bool:
    # (cardatt KEY (top G)) of a group G of a partition by KEY: every card of G has it
    if len(items) != 3 or not (isinstance(items[2], SList) and len(items[2].items) == 2 and kw(items[2].items[0], "top")):
        return False
    g, key = items[2].items[1], _symbol(items[1])
    return key is not None and isinstance(g, Atom) and g.kind == VAR and groups.get(g.value) == key


@_reads_a_set("any", "all")
def _quantifier_over_set(items, groups) -> bool:
    if len(items) != 4 or not (isinstance(items[2], Atom) and items[2].kind == VAR):
        return False
    coll, var, body = items[1], items[2].value, items[3]
    inner = {k: v for k, v in groups.items() if k != var}
    if _set_read(coll, groups):
        return _free(body, inner)
    if isinstance(coll, SList) and len(coll.items) == 3 and kw(coll.items[0], "partition") \
            and is_location_form(coll.items[2]) and _symbol(coll.items[1]) is not None:
        return _free(body, {**inner, var: _symbol(coll.items[1])})
    return False


mention(__name__, ("size", "sum", "cardatt", "top", "any", "all", "partition"))


def cached(compute, loc_fns: list, pts_fns: list, sort_cards: bool = False):
    """Wrap ``compute(s, e)`` in a cache keyed by the cards of the locations it reads.

    ``sort_cards``: the value does not depend on the order of those cards (``order_free``),
    so the key holds them sorted.

    The work budget is charged alike with and without the cache: a value whose computation
    took work is kept apart (``dear``) with that work, and a hit charges it again (when the
    budget left cannot pay, the value is computed, so that the work runs out at the same
    form as without the cache); a value that took none is a plain entry, found as fast as
    ever.

    A key is as long as the locations it is made of, and making it is not charged to the
    budget: a location of more than ``KEY_CARDS`` cards is not looked up but computed, so that
    a cached condition never costs more than the condition itself (a condition on a 40,000-card
    stock inside a 200,000-turn loop took 10^10 steps the budget never saw)."""
    cache: dict = {}
    dear: dict = {}  # key -> (value, work it took)
    missing = object()
    get = cache.get

    def miss(s, e, key):
        """Not a cost-free entry: a dear one (charged again), or computed now."""
        if dear:
            entry = dear.get(key)
            if entry is not None:
                v, cost = entry
                if s.work < cost:
                    return compute(s, e)
                s.work -= cost
                return v
        w = s.work
        v = compute(s, e)
        if w == s.work:
            if len(cache) >= CACHE_LIMIT:
                cache.clear()
            cache[key] = v
        else:
            if len(dear) >= CACHE_LIMIT:
                dear.clear()
            dear[key] = (v, w - s.work)
        return v

    hand = (lambda cards: tuple(sorted(cards))) if sort_cards else tuple

    def keyed(fn):
        # generated code may look a value up itself (pycards.CardWriter.cached_lookup): for one
        # location the key is its cards (sorted when ``sort_cards``), paired with the point
        # map's object when there is one; only values that took no work are in ``cache``
        fn.cache, fn.sorted_key, fn.key_points = cache, sort_cards, bool(pts_fns)
        return fn

    if len(loc_fns) == 1 and len(pts_fns) <= 1:
        (loc,) = loc_fns
        pvar = getattr(loc, "loc_player_var", None)
        cur = getattr(loc, "loc_current", None)
        pslot = getattr(pts_fns[0], "points_slot", None) if pts_fns else None
        if pts_fns and pslot is None:
            pts = pts_fns[0]

            def cached_pts(s, e):
                cards = loc(s, e)
                if len(cards) > KEY_CARDS:
                    return compute(s, e)
                key = (hand(cards), pts(s, e))
                v = get(key, missing)
                return miss(s, e, key) if v is missing else v
            return keyed(cached_pts)
        # the hottest shapes, written out: a player's location, with or without a point map
        if pvar is not None and pslot is not None:
            b1, slot = pvar
            # "does any player hold ...?" asks about every hand while only one has changed:
            # each location's last question is remembered, and a list comparison is cheaper
            # than building and hashing the key (only for values that took no work)
            last: dict = {}
            last_get = last.get

            def cached_player_loc_points(s, e):
                i = b1 + e[slot]
                cards = s.locs[i]
                if len(cards) > KEY_CARDS:
                    return compute(s, e)
                pts = s.points[pslot]
                m = last_get(i)
                if m is not None and m[1] is pts and m[0] == cards:
                    return m[2]
                key = (tuple(sorted(cards)) if sort_cards else tuple(cards), pts)
                v = get(key, missing)
                if v is missing:
                    w = s.work
                    v = miss(s, e, key)
                    if w != s.work:  # a dear value: charged again at every hit
                        return v
                last[i] = (cards[:], pts, v)
                return v
            return keyed(cached_player_loc_points)
        if cur is not None and pslot is None and not pts_fns:
            def cached_current_loc(s, e):
                cards = s.locs[cur + s.pstack[-1][0]]
                if len(cards) > KEY_CARDS:
                    return compute(s, e)
                key = tuple(sorted(cards)) if sort_cards else tuple(cards)
                v = get(key, missing)
                return miss(s, e, key) if v is missing else v
            return keyed(cached_current_loc)
        if pslot is not None:
            def cached_loc_points(s, e):
                cards = loc(s, e)
                if len(cards) > KEY_CARDS:
                    return compute(s, e)
                key = (hand(cards), s.points[pslot])
                v = get(key, missing)
                return miss(s, e, key) if v is missing else v
            return keyed(cached_loc_points)

        def cached_loc(s, e):
            cards = loc(s, e)
            if len(cards) > KEY_CARDS:
                return compute(s, e)
            key = hand(cards)
            v = get(key, missing)
            return miss(s, e, key) if v is missing else v
        return keyed(cached_loc)

    def cached_n(s, e):
        hands = [f(s, e) for f in loc_fns]
        if any(len(cards) > KEY_CARDS for cards in hands):
            return compute(s, e)
        key = tuple([hand(cards) for cards in hands] + [f(s, e) for f in pts_fns])
        v = get(key, missing)
        return miss(s, e, key) if v is missing else v
    return cached_n
