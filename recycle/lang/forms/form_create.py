"""The form ``create``: ``(create deck NAME? LOCATION (deck ATTRIBUTE ...))`` makes one card per
combination of the attribute trees, ``(create teams (P, ...) ...)`` sets the teams.

The form is kept whole in this one module, registered together as it is imported (``flow.py``
imports every ``form_*.py``): its reading of the s-expression (``read_create``: one node per
shape, ``Deck`` or ``Teams`` of ``lang/nodes/actions.py``), its meaning in the reference
interpreter (``CreateForms.a_create``) and its facts and words (the ``@form`` record). The
native engine writes no setup: the reference interpreter deals, and a native rollout starts
from the state it dealt.
"""

from __future__ import annotations

from ..nodes.actions import Deck, TeamList, Teams
from ..nodes.sexpr import MAX_COLLECTION, Scope, deck_combinations, fail, head_of, is_atom, is_location_form, kw
from ..syntax.reader import INT, Atom, SList
from .effects import record_move
from .items import Item
from .registry import Kind, family, form


def read_create(e, x: SList, scope: Scope) -> Deck | Teams:
    """A deck (its cards worked out here, at most MAX_COLLECTION), or the teams as written."""
    if len(x.items) >= 2 and kw(x.items[1], "deck"):
        return read_deck(e, x, scope)
    if len(x.items) >= 3 and kw(x.items[1], "teams"):
        teams = []
        for t in x.items[2:]:
            if not isinstance(t, SList):
                fail("expected a team (P, P, ...)", t, "create")
            members = tuple(i.value for i in t.items if is_atom(i, INT))
            teams.append(TeamList(members, span=t.span, source=t))
        return Teams(tuple(teams), span=x.span, source=x)
    fail("expected (create deck ...) or (create teams ...) here", x, "create")


def read_deck(e, x: SList, scope: Scope) -> Deck:
    """``(create deck NAME? LOCATION (deck ATTRIBUTE ...))``: a physical location, and the
    deck's cards worked out now."""
    items = x.items[2:]
    name = "DEFAULT"
    if items and isinstance(items[0], Atom) and items[0].is_name:
        name = items[0].value
        items = items[1:]
    if len(items) != 2 or head_of(items[1]) != "deck":
        fail("expected (create deck NAME? LOCATION (deck ATTRIBUTE ...))", x, "create")
    if not is_location_form(items[0]) or kw(items[0].items[1], "mem"):
        fail("a deck is created in a physical location (OWNER KIND NAME), not a mem location", items[0], "create")
    where = e.loc(items[0], scope)
    combos = deck_combinations(items[1])
    if len(combos) > MAX_COLLECTION:
        fail(f"this deck would have {len(combos)} cards (limit {MAX_COLLECTION})", items[1], "deck")
    cards = tuple(tuple(c.items()) for c in combos)
    return Deck(name, where, cards, _lists(items[1]), span=x.span, source=x)


def _lists(x) -> int:
    """The number of parenthesised lists written in ``x`` (what a deck's attribute tree costs
    from the work budget: lang/forms/costs.py)."""
    return 1 + sum(_lists(i) for i in x.items if isinstance(i, SList)) if isinstance(x, SList) else 0


@family
class CreateForms:
    """``create`` in the reference interpreter (a mixin of ``FlowCompiler``)."""

    @form(
        "create",
        "(create deck NAME? LOCATION (deck ATTRIBUTE ...)) | (create teams (P, ...) ...)",
        Kind.ACTION,
        puts=(2, 3),
        role="create",
        words=(
            "create {2:atom} {1=deck} of {4:cards} cards ({4:keys}) in {3}",
            "create {1=deck} of {3:cards} cards ({3:keys}) in {2}",
            "create {1=teams} {2* }",
            "create {2} {1=players}",
        ),
        node=(Deck, Teams),
        reads=read_create,
    )
    def a_create(self, x: Deck | Teams, scope: Scope) -> Item:
        """(create deck NAME? LOCATION (deck ATTRIBUTE ...)) | (create teams (P, ...) ...)

        Creates one card per combination of the attribute trees on top of a location, or
        sets the teams to the listed players (numbered from 0, or from 1 when the lists name
        player N, the number of players, and not 0)."""
        if isinstance(x, Deck):
            return self.c_create_deck(x, scope)
        return self.c_create_teams(x, scope)

    def c_create_deck(self, x: Deck, scope: Scope) -> Item:
        deck_name = x.name
        dst = self.c_loc_index(x.location, scope)
        combos = [dict(card) for card in x.cards]
        card_table, infos = self.cards, self.layout.infos
        key = (x.span.line, x.span.column)

        def create(s, e):
            d = dst(s, e)
            ids = card_table.deal(s, key, deck_name, combos, x.span)
            s.locs[d].extend(ids)
            s.card_loc.extend([d] * len(ids))
            if s.events is not None:
                for c in ids:
                    record_move(s, infos, "create", c, None, d)

        return Item(x, scope, run=create, static=True)

    def c_create_teams(self, x: Teams, scope: Scope) -> Item:
        teams = []
        n = self.layout.nplayers
        for t in x.teams:
            members = list(t.members)
            if not members or any(m > n for m in members):
                fail(f"a team lists player numbers 0..{n - 1} (or 1..{n}, counted from 1)", t, "create")
            teams.append(members)
        # players are numbered from 0 (the classic corpus: (0, 2) (1, 3)) or from 1 (the newer
        # dialect: (1, 3) (2, 4)); lists that name player n and not 0 count from 1, any other
        # from 0 (docs/reference.md, Teams)
        listed = {m for members in teams for m in members}
        if n in listed:
            if 0 in listed:
                t = next(t for t, members in zip(x.teams, teams) if n in members)
                fail(
                    f"these teams name both player 0 and player {n}: number the players 0..{n - 1} or 1..{n}, not both",
                    t,
                    "create",
                )
            teams = [[m - 1 for m in members] for members in teams]

        def create_teams(s, e):
            s.team_members = [m[:] for m in teams]
            s.team_of = [None] * n
            for t, members in enumerate(teams):
                for p in members:
                    s.team_of[p] = t
            s.nteams = len(teams)

        return Item(x, scope, run=create_teams, static=True)
