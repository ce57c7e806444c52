"""Native writers of the actions: moves, swaps, shuffles, storages, repeats and the turn order.

Each does what the action's closure in recycle/lang/forms/actions.py or actions_state.py does to the
cards, storages and cycles; where the closure raises a rule error, the native action sets
``ctr[STATUS]`` and the game returns (the Python engine then plays the rollout for the
message).
"""

from __future__ import annotations

from ..lang.nodes import actions as a
from ..lang.nodes.base import Const, GameOwner, Kind, Loc, Num, Nth, Turn, Var, Word
from ..lang.nodes.places import Actual, At, Bottom, Highest, Lowest, RunOf, Top, TopN
from ..lang.nodes.numbers import ScoreMax, ScoreMin
from ..lang.nodes.scalars import Owner, TeamOf
from .purity import walk
from .registry import native
from .writer import LOC_T, VIEW_T, NativeUnsupported

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
    return isinstance(node, Loc) and node.kind == "mem"


def mem_free(w, node) -> None:
    if is_mem(node):
        raise NativeUnsupported("a mem location", node)


def picked_from(card):
    """The location a card is picked from by place (top, bottom or an index), else None."""
    return card.location if isinstance(card, (Top, Bottom, At)) else None


@native(Kind.ACTION, a.Move)
def move(w, x, sc) -> None:
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


@native(Kind.ACTION, a.Remember)
def remember(w, x, sc) -> None:
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


@native(Kind.ACTION, a.Forget)
def forget(w, x, sc) -> None:
    """(forget (top|bottom MEMLOCATION)): the entry dropped (the card stays where it is)."""
    node = end_picked(x.card)
    if node is None:
        raise NativeUnsupported("(forget ...) at an index", x)
    w.comment(x)
    loc = mem_location(w, node.location, sc, "forget")
    w.line(f"drop_entry(locs, lens, ver, ctr, {loc}, {'True' if isinstance(node, Top) else 'False'})")
    w.line("ctr[WORK] += 1")
    w.check()


@native(Kind.ACTION, a.SwapPlaces, a.SwapCards)
def swap(w, x, sc) -> None:
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


@native(Kind.ACTION, a.Faro)
def faro(w, x, sc) -> None:
    raise NativeUnsupported("a faro shuffle", x)


@native(Kind.ACTION, a.Shuffle)
def shuffle(w, x, sc) -> None:
    mem_free(w, x.location)
    w.comment(x)
    w.line(f"shuffle(locs, lens, ver, ctr, keys, {w.phys(x.location, sc)})")


def owner_offset(w, owner, sc) -> str:
    """The owner's place in a block of locations or storages (recycle/lang/forms/layout.py): 0 the
    game, 1 + p player p, 1 + NPLAYERS + t team t."""
    if isinstance(owner, GameOwner):
        return "0"
    if isinstance(owner, (Var, Const)):
        v = sc.lookup(owner.name)
        if getattr(v, "type", None) == "team":
            return f"1 + NPLAYERS + {v.name}"
        return f"1 + {w.player(owner, sc)}"
    if isinstance(owner, TeamOf) or (isinstance(owner, (Turn, Nth)) and owner.what == "team"):
        return f"1 + NPLAYERS + {w.team(owner, sc)}"
    return f"1 + {w.player(owner, sc)}"


def storage_slot(w, x, sc) -> tuple[str, str]:
    """(sort, slot code) of ``(OWNER sto|str|points NAME)``."""
    base = w.named_base(x.sort, x.name, sc)
    offset = owner_offset(w, x.holder, sc)
    return x.sort, base if offset == "0" else f"{base} + {offset}"


@native(Kind.ACTION, a.Set, a.SetPoints)
def set_storage(w, x, sc) -> None:
    sort, slot = storage_slot(w, x.storage, sc)
    w.comment(x)
    if sort == "sto":
        w.line(f"ints[{slot}] = {w.int_(x.value, sc)}")
    elif sort == "str":
        w.line(f"strs[{slot}] = {w.str_(x.value, sc)}")
    else:
        set_points(w, x, sc, slot)


def award_value(w, node, sc) -> tuple[bool, object]:
    """(constant?, the name's text or code) of a key or value of an award."""
    if isinstance(node, (Word, Num)):
        return True, str(node.value)
    if isinstance(node, (Var, Const)):
        v = sc.lookup(node.name)
        if v is not None and not hasattr(v, "type") and isinstance(v.value, str):
            return True, v.value
        raise NativeUnsupported("an award of this shape", node)
    return False, w.str_(node, sc)  # a computed value: (game str LEAD), (cardatt SUIT (top ...))


def set_points(w, x, sc, slot: str) -> None:
    parsed, constant = [], True
    for award in x.awards:
        conds = []
        for k_node, v_node in award.conditions:
            kc, key = award_value(w, k_node, sc)
            vc, val = award_value(w, v_node, sc)
            if not kc:
                raise NativeUnsupported("an award with a computed key", award)
            constant &= vc
            conds.append((key, vc, val))
        pts = award.points
        if isinstance(pts, Num):
            points = int(pts.value)
        else:
            points = w.int_(pts, sc)
            constant = False
        parsed.append((conds, points))
    if constant:
        key = tuple((tuple((k, v) for k, _, v in conds), p) for conds, p in parsed)
        name = w.tables.get(key)
        if name is None:
            name = w.tables[key] = f"POINTS_{len(w.tables) + 1}"
        w.line(f"set_row(pts, {slot}, {name})")
        w.line("ver[POINTS_EPOCH] += 1")
        w.line("ctr[WORK] += 1")
        return
    # a map with computed parts (Hearts: the suit led): every card scored again, its awards of
    # constant keys, values and points added up once, when the game is written (a table), and
    # only the others tested card by card (Hearts' trick: 1 test a card, not 14)
    fixed = [isinstance(p, int) and all(c for _, c, _ in conds) for conds, p in parsed]
    base = None
    if any(fixed):
        key = tuple((tuple((k, v) for k, _, v in conds), p) for (conds, p), f in zip(parsed, fixed) if f)
        base = w.tables.get(key)
        if base is None:
            base = w.tables[key] = f"POINTS_{len(w.tables) + 1}"
    vals = []
    for (conds, p), f in zip(parsed, fixed):
        if f:
            continue
        row = []
        for k, const, v in conds:
            col = w.column(k)
            if const:
                row.append(f"{col}[c] == {w.intern(v)}")
            else:
                var = w.fresh("part")
                w.line(f"{var} = {v}")
                row.append(f"{col}[c] == {var}")
        if not isinstance(p, int):
            var = w.fresh("points")
            w.line(f"{var} = {p}")
            p = var
        vals.append((row, p))
    map_row = w.fresh("row")
    w.line(f"{map_row} = {slot}")
    with w.block("for c in range(NCARDS):"):
        w.line(f"t = {base}[c]" if base is not None else "t = 0")
        for row, p in vals:
            with w.block(f"if {' and '.join(row) or 'True'}:"):
                w.line(f"t += {p}")
        w.line(f"pts[{map_row}, c] = t")
    w.line("ver[POINTS_EPOCH] += 1")
    w.line("ctr[WORK] += NCARDS")


@native(Kind.ACTION, a.Inc, a.Dec)
def inc_dec(w, x, sc) -> None:
    _, slot = storage_slot(w, x.storage, sc)
    amount = w.int_(x.amount, sc) if x.amount is not None else "1"
    w.comment(x)
    w.line(f"ints[{slot}] {'+' if isinstance(x, a.Inc) else '-'}= {amount}")


@native(Kind.ACTION, a.Pass)
def turn_pass(w, x, sc) -> None:
    w.line("pass  # (turn pass)")


@native(Kind.ACTION, a.Cycle)
def cycle(w, x, sc) -> None:
    who = w.player(x.who, sc)
    w.comment(x)
    if x.which == "next":
        w.line(f"pst[ctr[PSP], 1] = {who}")
    else:
        w.line(f"pst[ctr[PSP], 0] = {who}")
        w.line("pst[ctr[PSP], 1] = -1")
    w.check()


@native(Kind.ACTION, a.RepeatAll)
def repeat_all(w, x, sc) -> None:
    body = x.body
    w.comment(x)
    if isinstance(body, a.Forget):
        # as many entries dropped as the mem location holds (actions_state.py, run_all)
        src = end_picked(body.card)
        if src is None:
            raise NativeUnsupported("(repeat all (forget ...)) at an index", x)
        repeated(w, body, sc, f"lens[{mem_location(w, src.location, sc, 'forget')}]")
        return
    if not isinstance(body, a.Move):
        raise NativeUnsupported("(repeat all ...) of something other than a move", x)
    src = body.card
    if not isinstance(src, ENDS):
        raise NativeUnsupported("(repeat all (move ...)) from a place other than a top or bottom", x)
    from_bottom = isinstance(src, Bottom)
    mem_free(w, src.location)
    if isinstance(src.location, (Var, Const)) and w.loc(src.location, sc)[0] == VIEW_T:
        # out of a view: as many moves as it holds cards, each dropping its card (move)
        view = w.fresh("view")
        w.line(f"{view} = {w.loc(src.location, sc)[1]}")
        repeated(w, body, sc, f"scratch[{view}]")
        return
    s = w.phys(src.location, sc)
    dst = body.to
    if dst.where == "top":
        mem_free(w, dst.location)
        t, d = w.loc(dst.location, sc)
        if t == LOC_T and stable(dst.location):
            w.line(f"ctr[WORK] += lens[{s}]")
            w.line(f"{'move_all_from_bottom' if from_bottom else 'move_all'}(locs, lens, ver, card_loc, ctr, {s}, {d})")
            w.check()
            return
    repeated(w, body, sc, f"lens[{s}]")


@native(Kind.ACTION, a.Repeat)
def repeat(w, x, sc) -> None:
    w.comment(x)
    times = w.fresh("times")
    w.line(f"{times} = {w.int_(x.times, sc)}")
    with w.block(f"if {times} > MAX_REPEAT:"):
        w.line("ctr[STATUS] = RULE")
        w.line("return")
    w.line(f"ctr[WORK] += max({times}, 0)")
    with w.block(f"for _ in range({times}):"):
        w.item(x.body, sc)


def repeated(w, body, sc, count: str) -> None:
    """``body`` as many times as ``count`` says when the repeat starts (a repeat all: the size
    of what it empties), each paid for."""
    times = w.fresh("times")
    w.line(f"{times} = {count}")
    w.line(f"ctr[WORK] += {times}")
    with w.block(f"for _ in range({times}):"):
        w.item(body, sc)


MOVING = (Owner, Highest, Lowest, ScoreMax, ScoreMin, Top, TopN, RunOf)  # forms whose answer moves with the cards


def stable(loc) -> bool:
    """Does the location's address stay the same while cards move (no owner of a card, no card
    picked by its place or points)?"""
    return not any(isinstance(n, MOVING) for n in walk(loc))
