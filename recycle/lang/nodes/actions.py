"""Reading actions into nodes (``ActionReading``, a mixin of ``flow.Elaborator``): moving,
remembering, forgetting, swapping and shuffling cards, setting storages and point maps, the
turn order, repeats and what the setup creates. Each reading mirrors the compiler's
(``lang/forms/actions.py``, ``actions_state.py``) shape checks and raises its messages."""

from __future__ import annotations

from .sexpr import MAX_COLLECTION, deck_combinations, fail, head_of, is_atom
from .sexpr import is_location_form, is_storage_form, kw, short
from ..syntax.reader import COLON, INT, VAR, Atom, SList
from .base import Kind, Turn, form_node

Place = form_node("Place", "where location", Kind.ACTION, None, "(top|bottom|INDEX LOCATION) as a destination.")
Move = form_node("Move", "card to", Kind.ACTION, "move", "(move CARD (top|bottom|INDEX LOCATION)).")
Remember = form_node("Remember", "card to", Kind.ACTION, "remember", "(remember CARD (top|bottom|INDEX MEM)).")
Forget = form_node("Forget", "card", Kind.ACTION, "forget", "(forget CARD).")
SwapPlaces = form_node("SwapPlaces", "a b", Kind.ACTION, "swap", "(swap LOCATION LOCATION).")
SwapCards = form_node("SwapCards", "a b", Kind.ACTION, "swap", "(swap CARD CARD).")
Shuffle = form_node("Shuffle", "location", Kind.ACTION, "shuffle", "(shuffle LOCATION).")
Faro = form_node("Faro", "a b", Kind.ACTION, "shuffle", "(shuffle faro LOCATION LOCATION).")
Set = form_node("Set", "storage value", Kind.ACTION, "set", "(set STORAGE VALUE).")
Award = form_node("Award", "conditions points", Kind.ACTION, None, "((KEY : VALUE) ... POINTS) of a point map.")
SetPoints = form_node("SetPoints", "storage awards", Kind.ACTION, "set", "(set (OWNER points NAME) (AWARD ...)).")
Inc = form_node("Inc", "storage amount", Kind.ACTION, "inc", "(inc (OWNER sto NAME) AMOUNT?): amount None for 1.")
Dec = form_node("Dec", "storage amount", Kind.ACTION, "dec", "(dec (OWNER sto NAME) AMOUNT?): amount None for 1.")
Cycle = form_node("Cycle", "which who", Kind.ACTION, "cycle", "(cycle next|current WHO).")
Pass = form_node("Pass", "", Kind.ACTION, "turn", "(turn pass).")
Repeat = form_node("Repeat", "times body", Kind.ACTION, "repeat", "(repeat N ACTION).")
RepeatAll = form_node("RepeatAll", "body location", Kind.ACTION, "repeat", "(repeat all (move|forget CARD ...)).")
Deck = form_node(
    "Deck",
    "name location cards lists",
    Kind.ACTION,
    "create",
    "(create deck NAME? LOCATION (deck ...)): its cards, and the number of lists its (deck ...) is written with.",
)
# what the form's words leave out (lang/forms/wording.py): the location a (repeat all ...) empties is
# read from its body, not written, and so is a deck's count of lists; a deck named DEFAULT is a
# deck whose name is not written
RepeatAll.DERIVED = ("location",)
Deck.DERIVED = ("lists",)
Deck.DEFAULTS = {"name": "DEFAULT"}
Teams = form_node("Teams", "teams", Kind.ACTION, "create", "(create teams (P, ...) ...): TeamLists as written.")
TeamList = form_node("TeamList", "members", Kind.ACTION, None, "(P, P, ...): the player numbers of a team, as written.")


class ActionReading:
    """Actions."""

    def place(self, x, scope):
        """The position of a destination ``(top|bottom|INDEX LOCATION)``: top, bottom or an integer."""
        where = x.items[0]
        if kw(where, "top", "bottom"):
            return where.value
        return self.int_(where, scope)

    def e_a_move(self, x, scope):
        self.arity(x, 3)
        to = x.items[2]
        if not isinstance(to, SList) or len(to.items) != 2:
            fail(
                f"expected a destination (top LOCATION), (bottom LOCATION) or (INDEX LOCATION), "
                f"got {self.form_name(to)}",
                to,
            )
        loc = to.items[1]
        if not (is_location_form(loc) or is_atom(loc, VAR)):
            fail(f"cards can only be moved into a physical location (OWNER KIND NAME), not {self.form_name(loc)}", loc)
        if is_location_form(loc) and loc.items[1].value == "mem":
            fail("cards cannot be moved into a mem location (use remember)", loc)
        dest = Place(self.place(to, scope), self.loc(loc, scope, "a location to move into"), span=to.span, source=to)
        return Move(self.source(x.items[1], scope), dest, span=x.span, source=x)

    def source(self, x, scope):
        """The card a move takes: a card, or (actual CARD)."""
        self.mem_check(x, "move")
        if head_of(x) == "actual":
            self.arity(x, 2)
        return self.card(x, scope, optional=True)

    def mem_check(self, x, verb: str) -> None:
        """A card picked out of a mem location written out needs (actual CARD)."""
        loc = self.picked_location(x)
        if is_location_form(loc) and loc.items[1].value == "mem" and head_of(x) != "actual":
            fail(
                f"({verb} ...) cannot take a card out of the mem location {short(loc)}: a mem location "
                f"holds references; use (actual CARD) to {verb} the remembered card from where it lies",
                x,
                verb,
            )

    def picked_location(self, x):
        """The LOCATION of a card picked by place, ``(top|bottom|INDEX LOCATION)``, else None."""
        if (
            isinstance(x, SList)
            and len(x.items) == 2
            and (kw(x.items[0], "top", "bottom") or is_atom(x.items[0], INT) or is_atom(x.items[0], VAR))
            and not kw(x.items[1], "player", "team")
            and not self.is_groups_form(x.items[1])
        ):
            return x.items[1]
        return None

    def e_a_remember(self, x, scope):
        self.arity(x, 3)
        card = self.card(x.items[1], scope)
        to = x.items[2]
        if not isinstance(to, SList) or len(to.items) != 2:
            fail("expected (remember CARD (top|bottom|INDEX MEMLOCATION))", to, "remember")
        loc = to.items[1]
        if is_location_form(loc) and loc.items[1].value != "mem":
            fail(f"remember into {short(loc)}, which is not a mem location", loc, "remember")
        dest = self.loc(loc, scope)
        return Remember(card, Place(self.place(to, scope), dest, span=to.span, source=to), span=x.span, source=x)

    def e_a_forget(self, x, scope):
        self.arity(x, 2)
        node = x.items[1]
        if head_of(node) == "actual":
            self.arity(node, 2)
            node = node.items[1]
        loc = self.picked_location(node)
        if loc is None or not (is_location_form(loc) or is_atom(loc, VAR)):
            fail("forget needs a card of a mem location, e.g. (top (game mem SEEN))", node, "forget")
        if is_location_form(loc) and loc.items[1].value != "mem":
            fail(f"forget from {short(loc)}, which is not a mem location", loc, "forget")
        return Forget(self.card(x.items[1], scope, optional=True), span=x.span, source=x)

    def e_a_swap(self, x, scope):
        self.arity(x, 3)
        a, b = x.items[1], x.items[2]
        if is_location_form(a) or is_location_form(b):
            la, lb = self.loc(a, scope, "a location to swap"), self.loc(b, scope, "a location to swap")
            for n in (a, b):
                if is_location_form(n) and n.items[1].value == "mem":
                    fail("cannot swap a mem location (it holds references, not cards)", n, "swap")
            return SwapPlaces(la, lb, span=x.span, source=x)
        pair = SwapCards(self.value(a, scope), self.value(b, scope), span=x.span, source=x)
        for n in (a, b):
            self.mem_check(n, "swap")
        return pair

    def e_a_shuffle(self, x, scope):
        if len(x.items) == 4 and kw(x.items[1], "faro"):
            for n in x.items[2:]:
                if is_location_form(n) and n.items[1].value == "mem":
                    fail(
                        "shuffle faro needs physical locations, not a mem location (it holds references, not cards)",
                        n,
                        "shuffle",
                    )
            a = self.loc(x.items[2], scope, "a physical location")
            return Faro(a, self.loc(x.items[3], scope, "a physical location"), span=x.span, source=x)
        self.arity(x, 2)
        if not is_location_form(x.items[1]) and not is_atom(x.items[1], VAR):
            fail("shuffle needs a physical location (OWNER KIND NAME)", x.items[1], "shuffle")
        return Shuffle(self.loc(x.items[1], scope), span=x.span, source=x)

    # -- storages --------------------------------------------------------------------------
    def e_a_set(self, x, scope):
        self.arity(x, 3)
        target = x.items[1]
        sort = is_storage_form(target)
        if sort is None:
            fail(f"set needs a storage (OWNER sto|str|points NAME), got {self.form_name(target)}", target, "set")
        storage = self.storage(sort, target, scope)
        if sort == "points":
            return SetPoints(storage, self.awards(x.items[2], scope), span=x.span, source=x)
        value = self.int_(x.items[2], scope) if sort == "sto" else self.str_(x.items[2], scope)
        return Set(storage, value, span=x.span, source=x)

    def awards(self, awards, scope):
        if not isinstance(awards, SList) or not awards.items:
            fail("expected a list of awards (((KEY : VALUE) ... POINTS) ...)", awards, "set")
        out = []
        for award in awards.items:
            if not isinstance(award, SList) or len(award.items) < 2:
                fail("expected an award ((KEY : VALUE) ... POINTS)", award, "set")
            conds = []
            for c in award.items[:-1]:
                if not isinstance(c, SList) or len(c.items) != 3 or not is_atom(c.items[1], COLON):
                    fail("expected a condition (KEY : VALUE)", c, "set")
                conds.append((self.name(c.items[0], scope), self.name(c.items[2], scope)))
            out.append(Award(tuple(conds), self.int_(award.items[-1], scope), span=award.span, source=award))
        return tuple(out)

    def step(self, x, scope, cls):
        if len(x.items) not in (2, 3) or is_storage_form(x.items[1]) != "sto":
            fail(f"expected ({x.items[0]} (OWNER sto NAME) AMOUNT?)", x, str(x.items[0]))
        storage = self.storage("sto", x.items[1], scope)
        amount = self.int_(x.items[2], scope) if len(x.items) == 3 else None
        return cls(storage, amount, span=x.span, source=x)

    def e_a_inc(self, x, scope):
        return self.step(x, scope, Inc)

    def e_a_dec(self, x, scope):
        return self.step(x, scope, Dec)

    # -- turn order ------------------------------------------------------------------------
    def e_a_cycle(self, x, scope):
        self.arity(x, 3)
        which, target = x.items[1], x.items[2]
        if not kw(which, "next", "current"):
            fail("expected (cycle next|current WHO)", x, "cycle")
        if kw(target, "current", "next", "previous"):
            who = Turn(target.value, "player", bare=True, span=target.span, source=target)
        else:
            who = self.player(target, scope)
        return Cycle(which.value, who, span=x.span, source=x)

    def e_a_turn(self, x, scope):
        if len(x.items) != 2 or not kw(x.items[1], "pass"):
            fail("expected (turn pass)", x, "turn")
        return Pass(span=x.span, source=x)

    def e_a_repeat(self, x, scope):
        self.arity(x, 3)
        if kw(x.items[1], "all"):
            body_node = x.items[2]
            if head_of(body_node) not in ("move", "forget"):
                fail("(repeat all ...) repeats a move or a forget", body_node, "repeat")
            body = self.item(body_node, scope)
            src = body_node.items[1]
            if isinstance(src, SList) and len(src.items) == 2 and head_of(src) == "actual":
                src = src.items[1]
            if not isinstance(src, SList) or len(src.items) != 2:
                fail("(repeat all (move (top|bottom LOCATION) ...)) needs a location to empty", src, "repeat")
            return RepeatAll(body, self.cards(src.items[1], scope), span=x.span, source=x)
        times = self.int_(x.items[1], scope)
        return Repeat(times, self.item(x.items[2], scope, allow_choice=False), span=x.span, source=x)

    # -- setup -----------------------------------------------------------------------------
    def e_a_create(self, x, scope):
        if len(x.items) >= 2 and kw(x.items[1], "deck"):
            return self.deck(x, scope)
        if len(x.items) >= 3 and kw(x.items[1], "teams"):
            teams = []
            for t in x.items[2:]:
                if not isinstance(t, SList):
                    fail("expected a team (P, P, ...)", t, "create")
                members = tuple(i.value for i in t.items if is_atom(i, INT))
                teams.append(TeamList(members, span=t.span, source=t))
            return Teams(tuple(teams), span=x.span, source=x)
        fail("expected (create deck ...) or (create teams ...) here", x, "create")

    def deck(self, x, scope):
        items = x.items[2:]
        name = "DEFAULT"
        if items and isinstance(items[0], Atom) and items[0].is_name:
            name = items[0].value
            items = items[1:]
        if len(items) != 2 or head_of(items[1]) != "deck":
            fail("expected (create deck NAME? LOCATION (deck ATTRIBUTE ...))", x, "create")
        if not is_location_form(items[0]) or kw(items[0].items[1], "mem"):
            fail("a deck is created in a physical location (OWNER KIND NAME), not a mem location", items[0], "create")
        where = self.loc(items[0], scope)
        combos = deck_combinations(items[1])
        if len(combos) > MAX_COLLECTION:
            fail(f"this deck would have {len(combos)} cards (limit {MAX_COLLECTION})", items[1], "deck")
        cards = tuple(tuple(c.items()) for c in combos)
        return Deck(name, where, cards, _lists(items[1]), span=x.span, source=x)


def _lists(x) -> int:
    """The number of parenthesised lists written in ``x`` (what a deck's attribute tree costs
    from the work budget: lang/forms/costs.py)."""
    return 1 + sum(_lists(i) for i in x.items if isinstance(i, SList)) if isinstance(x, SList) else 0
