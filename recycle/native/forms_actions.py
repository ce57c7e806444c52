"""Native writers of the actions: moves, swaps, shuffles, storages, repeats and the turn order.

Each does what the action's closure in recycle/lang/forms/actions.py or actions_state.py does to the
cards, storages and cycles; where the closure raises a rule error, the native action sets
``ctr[STATUS]`` and the game returns (the Python engine then plays the rollout for the
message).
"""

from __future__ import annotations

from ..lang.forms.registry import Kind
from ..lang.forms.shapes import head_of, is_atom, is_storage_form, kw
from ..lang.syntax.reader import COLON, INT, VAR, Atom, SList
from .registry import native
from .writer import LOC_T, VIEW_T, NativeUnsupported


def destination(w, x, sc) -> tuple[str, str]:
    """(location code, position code) of ``(top|bottom|INDEX LOCATION)``: -1 top, 0 bottom."""
    if not isinstance(x, SList) or len(x.items) != 2:
        raise NativeUnsupported("a destination of an unexpected shape", x)
    where, loc = x.items
    t, code = w.loc(loc, sc)
    if t != LOC_T:
        raise NativeUnsupported("a move into a view", x)
    if kw(where, "top"):
        return code, "-1"
    if kw(where, "bottom"):
        return code, "0"
    raise NativeUnsupported("a move to an index", x)


def mem_free(w, node) -> None:
    if isinstance(node, SList) and len(node.items) == 3 and kw(node.items[1], "mem"):
        raise NativeUnsupported("a mem location", node)


@native(Kind.ACTION, "move")
def move(w, x, sc) -> None:
    if len(x.items) != 3:
        raise NativeUnsupported("a move of an unexpected shape", x)
    src, dst = x.items[1], x.items[2]
    for n in (src, dst):
        if isinstance(n, SList) and len(n.items) == 2:
            mem_free(w, n.items[1])
    w.comment(x)
    d, pos = destination(w, dst, sc)
    if isinstance(src, SList) and len(src.items) == 2 and kw(src.items[0], "top") and pos == "-1":
        t, s = w.loc(src.items[1], sc)
        if t == LOC_T:
            w.line(f"move_top(locs, lens, ver, card_loc, ctr, {s}, {d})")
            w.line("ctr[WORK] += 1")
            w.check()
            return
    if (
        isinstance(src, SList)
        and len(src.items) == 2
        and kw(src.items[0], "top", "bottom")
        and is_atom(src.items[1], VAR)
        and w.loc(src.items[1], sc)[0] == VIEW_T
    ):
        # picked out of a view: the view drops the card too
        top = kw(src.items[0], "top")
        view, c = w.fresh("view"), w.fresh("card")
        w.line(f"{view} = {w.loc(src.items[1], sc)[1]}")
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
    if not (isinstance(x, SList) and len(x.items) == 3 and kw(x.items[1], "mem")):
        raise NativeUnsupported(f"({form} ...) of a location not named as a mem location", x)
    t, code = w.loc(x, sc)
    if t != LOC_T:
        raise NativeUnsupported(f"({form} ...) of a view", x)
    return code


@native(Kind.ACTION, "remember")
def remember(w, x, sc) -> None:
    """(remember CARD (top|bottom MEMLOCATION)): a reference put, the card staying where it is."""
    dst = x.items[2] if len(x.items) == 3 else None
    if not (isinstance(dst, SList) and len(dst.items) == 2 and kw(dst.items[0], "top", "bottom")):
        raise NativeUnsupported("(remember ...) at an index", x)
    w.comment(x)
    d = mem_location(w, dst.items[1], sc, "remember")
    c = w.card(x.items[1], sc)
    w.line(f"put_reference(locs, lens, ver, ctr, {c}, {d}, {'-1' if kw(dst.items[0], 'top') else '0'})")
    w.line("ctr[WORK] += 1")
    w.check()


@native(Kind.ACTION, "forget")
def forget(w, x, sc) -> None:
    """(forget (top|bottom MEMLOCATION)): the entry dropped (the card stays where it is)."""
    node = x.items[1] if len(x.items) == 2 else None
    if head_of(node) == "actual" and len(node.items) == 2:
        node = node.items[1]
    if not (isinstance(node, SList) and len(node.items) == 2 and kw(node.items[0], "top", "bottom")):
        raise NativeUnsupported("(forget ...) at an index", x)
    w.comment(x)
    loc = mem_location(w, node.items[1], sc, "forget")
    w.line(f"drop_entry(locs, lens, ver, ctr, {loc}, {'True' if kw(node.items[0], 'top') else 'False'})")
    w.line("ctr[WORK] += 1")
    w.check()


@native(Kind.ACTION, "swap")
def swap(w, x, sc) -> None:
    if len(x.items) != 3:
        raise NativeUnsupported("a swap of an unexpected shape", x)
    a, b = x.items[1], x.items[2]
    w.comment(x)
    for n in (a, b):
        mem_free(w, n)
    ta, tb = w.value(a, sc), w.value(b, sc)
    if ta[0] == "loc" and tb[0] == "loc":
        w.line(f"swap_locs(locs, lens, ver, card_loc, {ta[1]}, {tb[1]})")
    elif ta[0] == "card" and tb[0] == "card":
        w.line(f"swap_cards(locs, lens, ver, card_loc, ctr, {ta[1]}, {tb[1]})")
        w.check()
    else:
        raise NativeUnsupported("a swap of a location with a card", x)
    w.line("ctr[WORK] += 1")


@native(Kind.ACTION, "shuffle")
def shuffle(w, x, sc) -> None:
    if len(x.items) != 2:
        raise NativeUnsupported("a faro shuffle", x)
    mem_free(w, x.items[1])
    w.comment(x)
    w.line(f"shuffle(locs, lens, ver, ctr, keys, {w.phys(x.items[1], sc)})")


def owner_offset(w, owner, sc) -> str:
    """The owner's place in a block of locations or storages (recycle/lang/forms/layout.py): 0 the
    game, 1 + p player p, 1 + NPLAYERS + t team t."""
    if kw(owner, "game"):
        return "0"
    if isinstance(owner, Atom) and owner.kind == "var":
        v = sc.lookup(owner.value)
        if getattr(v, "type", None) == "team":
            return f"1 + NPLAYERS + {v.name}"
        return f"1 + {w.player(owner, sc)}"
    if isinstance(owner, SList) and (
        head_of(owner) == "team" or (len(owner.items) == 2 and kw(owner.items[1], "team"))
    ):
        return f"1 + NPLAYERS + {w.team(owner, sc)}"
    return f"1 + {w.player(owner, sc)}"


def storage_slot(w, x, sc) -> tuple[str, str]:
    """(sort, slot code) of ``(OWNER sto|str|points NAME)``."""
    sort = is_storage_form(x)
    owner, name = x.items[0], x.items[2]
    base = w.named_base(sort, name, sc)
    offset = owner_offset(w, owner, sc)
    return sort, base if offset == "0" else f"{base} + {offset}"


@native(Kind.ACTION, "set")
def set_storage(w, x, sc) -> None:
    if len(x.items) != 3 or not is_storage_form(x.items[1]):
        raise NativeUnsupported("a set of an unexpected shape", x)
    sort, slot = storage_slot(w, x.items[1], sc)
    w.comment(x)
    if sort == "sto":
        w.line(f"ints[{slot}] = {w.int_(x.items[2], sc)}")
    elif sort == "str":
        w.line(f"strs[{slot}] = {w.str_(x.items[2], sc)}")
    else:
        set_points(w, x, sc, slot)


def award_value(w, node, sc) -> tuple[bool, object]:
    """(constant?, the name's text or code) of a key or value of an award."""
    if isinstance(node, Atom) and node.kind in ("symbol", INT):
        return True, str(node.value)
    if isinstance(node, Atom) and node.kind == "var":
        v = sc.lookup(node.value)
        if v is not None and not hasattr(v, "type") and isinstance(v.value, str):
            return True, v.value
    if isinstance(node, SList):
        return False, w.str_(node, sc)  # a computed value: (game str LEAD), (cardatt SUIT (top ...))
    raise NativeUnsupported("an award of this shape", node)


def set_points(w, x, sc, slot: str) -> None:
    awards = x.items[2]
    if not isinstance(awards, SList) or not awards.items:
        raise NativeUnsupported("a point map of an unexpected shape", x)
    parsed, constant = [], True
    for award in awards.items:
        if not isinstance(award, SList) or len(award.items) < 2:
            raise NativeUnsupported("an award of an unexpected shape", award)
        conds = []
        for c in award.items[:-1]:
            if not isinstance(c, SList) or len(c.items) != 3 or not is_atom(c.items[1], COLON):
                raise NativeUnsupported("an award condition of an unexpected shape", c)
            kc, key = award_value(w, c.items[0], sc)
            vc, val = award_value(w, c.items[2], sc)
            if not kc:
                raise NativeUnsupported("an award with a computed key", c)
            constant &= vc
            conds.append((key, vc, val))
        pts = award.items[-1]
        if isinstance(pts, Atom) and pts.kind == INT:
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
    # a map with computed parts (Hearts: the suit led): every card scored again
    vals = []
    for conds, p in parsed:
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
        w.line("t = 0")
        for row, p in vals:
            with w.block(f"if {' and '.join(row) or 'True'}:"):
                w.line(f"t += {p}")
        w.line(f"pts[{map_row}, c] = t")
    w.line("ver[POINTS_EPOCH] += 1")
    w.line("ctr[WORK] += NCARDS")


@native(Kind.ACTION, "inc", "dec")
def inc_dec(w, x, sc) -> None:
    if len(x.items) not in (2, 3) or is_storage_form(x.items[1]) != "sto":
        raise NativeUnsupported(f"({head_of(x)} ...) of an unexpected shape", x)
    _, slot = storage_slot(w, x.items[1], sc)
    amount = w.int_(x.items[2], sc) if len(x.items) == 3 else "1"
    w.comment(x)
    w.line(f"ints[{slot}] {'+' if head_of(x) == 'inc' else '-'}= {amount}")


@native(Kind.ACTION, "turn")
def turn_pass(w, x, sc) -> None:
    w.line("pass  # (turn pass)")


@native(Kind.ACTION, "cycle")
def cycle(w, x, sc) -> None:
    if len(x.items) != 3 or not kw(x.items[1], "next", "current"):
        raise NativeUnsupported("a cycle of an unexpected shape", x)
    target = x.items[2]
    if kw(target, "current"):
        who = "pst[ctr[PSP], 0]"
    elif kw(target, "next"):
        who = "(pst[ctr[PSP], 1] if pst[ctr[PSP], 1] >= 0 else (pst[ctr[PSP], 0] + 1) % NPLAYERS)"
    elif kw(target, "previous"):
        who = "((pst[ctr[PSP], 0] - 1) % NPLAYERS)"
    else:
        who = w.player(target, sc)
    w.comment(x)
    if x.items[1].value == "next":
        w.line(f"pst[ctr[PSP], 1] = {who}")
    else:
        w.line(f"pst[ctr[PSP], 0] = {who}")
        w.line("pst[ctr[PSP], 1] = -1")
    w.check()


@native(Kind.ACTION, "repeat")
def repeat(w, x, sc) -> None:
    if len(x.items) != 3:
        raise NativeUnsupported("a repeat of an unexpected shape", x)
    body = x.items[2]
    w.comment(x)
    if kw(x.items[1], "all"):
        if head_of(body) == "forget" and len(body.items) == 2:
            # as many entries dropped as the mem location holds (actions_state.py, run_all)
            src = body.items[1]
            if head_of(src) == "actual" and len(src.items) == 2:
                src = src.items[1]
            if not (isinstance(src, SList) and len(src.items) == 2 and kw(src.items[0], "top", "bottom")):
                raise NativeUnsupported("(repeat all (forget ...)) at an index", x)
            repeated(w, body, sc, f"lens[{mem_location(w, src.items[1], sc, 'forget')}]")
            return
        if head_of(body) != "move" or len(body.items) != 3:
            raise NativeUnsupported("(repeat all ...) of something other than a move", x)
        src = body.items[1]
        if not (isinstance(src, SList) and len(src.items) == 2 and kw(src.items[0], "top", "bottom")):
            raise NativeUnsupported("(repeat all (move ...)) from a place other than a top or bottom", x)
        from_bottom = kw(src.items[0], "bottom")
        mem_free(w, src.items[1])
        if is_atom(src.items[1], VAR) and w.loc(src.items[1], sc)[0] == VIEW_T:
            # out of a view: as many moves as it holds cards, each dropping its card (move)
            view = w.fresh("view")
            w.line(f"{view} = {w.loc(src.items[1], sc)[1]}")
            repeated(w, body, sc, f"scratch[{view}]")
            return
        s = w.phys(src.items[1], sc)
        dst = body.items[2]
        if isinstance(dst, SList) and len(dst.items) == 2 and kw(dst.items[0], "top"):
            mem_free(w, dst.items[1])
            t, d = w.loc(dst.items[1], sc)
            if t == LOC_T and stable(dst.items[1]):
                w.line(f"ctr[WORK] += lens[{s}]")
                w.line(
                    f"{'move_all_from_bottom' if from_bottom else 'move_all'}(locs, lens, ver, card_loc, ctr, {s}, {d})"
                )
                w.check()
                return
        repeated(w, body, sc, f"lens[{s}]")
        return
    times = w.fresh("times")
    w.line(f"{times} = {w.int_(x.items[1], sc)}")
    with w.block(f"if {times} > MAX_REPEAT:"):
        w.line("ctr[STATUS] = RULE")
        w.line("return")
    w.line(f"ctr[WORK] += max({times}, 0)")
    with w.block(f"for _ in range({times}):"):
        w.item(body, sc)


def repeated(w, body, sc, count: str) -> None:
    """``body`` as many times as ``count`` says when the repeat starts (a repeat all: the size
    of what it empties), each paid for."""
    times = w.fresh("times")
    w.line(f"{times} = {count}")
    w.line(f"ctr[WORK] += {times}")
    with w.block(f"for _ in range({times}):"):
        w.item(body, sc)


def stable(loc) -> bool:
    """Does the location's address stay the same while cards move (no owner of a card)?"""
    text = str(loc)
    return "owner" not in text and "max" not in text and "min" not in text and "top" not in text
