"""The forms naming what a card or a player belongs to or carries: ``(owner CARD)``, the
player holding the card; ``(team PLAYER)``, the player's team; ``(cardatt KEY CARD)``, the
card's value for an attribute.

Each form is kept whole in this one module, registered together as it is imported
(``flow.py`` imports every ``form_*.py``): its reading of the s-expression (``read_*``), its
meaning in the reference interpreter (``AttributeForms``), its facts and words (the ``@form``
records) and its native writer (``write_*``). Their nodes (``Owner``, ``TeamOf``,
``CardAtt``) are the node vocabulary of ``lang/nodes/scalars.py``.
"""

from __future__ import annotations

from collections.abc import Callable

from ..nodes.base import Var, Word
from ..nodes.scalars import CardAtt, Owner, TeamOf
from ..nodes.sexpr import Scope
from ..syntax.reader import SList
from .registry import Kind, family, form
from .runtime import rt_error, tag
from .writers import NativeUnsupported, native

# -- readings ------------------------------------------------------------------------------


def read_owner(e, x: SList, scope: Scope) -> Owner:
    """The node of ``(owner CARD)``, read by the elaborator ``e``."""
    e.arity(x, 2)
    return Owner(e.card(x.items[1], scope, optional=True), span=x.span, source=x)


def read_team_of(e, x: SList, scope: Scope) -> TeamOf:
    """The node of ``(team PLAYER)``."""
    e.arity(x, 2)
    return TeamOf(e.player(x.items[1], scope), span=x.span, source=x)


def read_cardatt(e, x: SList, scope: Scope) -> CardAtt:
    """The node of ``(cardatt KEY CARD)``: KEY a name written out or computed."""
    e.arity(x, 3)
    key = e.name(x.items[1], scope)
    return CardAtt(key, e.card(x.items[2], scope, optional=True), span=x.span, source=x)


# -- meaning in the reference interpreter --------------------------------------------------


@family
class AttributeForms:
    """A card's owner and attributes, a player's team, in the reference interpreter (a mixin
    of ``FlowCompiler``)."""

    @form("owner", "(owner CARD)", Kind.PLAYER, words="owner of {1}", node=Owner, reads=read_owner)
    def player_owner(self, x: Owner, scope: Scope) -> Callable:
        """(owner CARD)

        The player owning the location the card is in (an error when the game owns it)."""
        card = self.c_card(x.card, scope)
        span = x.span
        layout = self.layout
        players = self.players

        def owner(s, e):
            info = layout.info(s.card_loc[card(s, e)])
            if info.owner_kind == "player":
                return players[info.owner]
            rt_error(f"the card is in {info.label}, which no player owns", span, "owner")

        return owner

    @form("team", "(team PLAYER)", Kind.TEAM, words="team of {1}", node=TeamOf, reads=read_team_of)
    def team_of(self, x: TeamOf, scope: Scope) -> Callable:
        """(team PLAYER)

        The team the player is on (an error for a player on no team)."""
        p = self.c_player(x.player, scope)
        span = x.span
        teams = self.teams

        def team_of(s, e):
            t = s.team_of[p(s, e)]
            if t is None:
                rt_error("that player is on no team", span, "team")
            return teams[t]

        return team_of

    @form(
        "cardatt",
        "(cardatt KEY CARD)",
        Kind.STR,
        pure=True,
        role="attribute",
        words="{1} of {2}",
        node=CardAtt,
        reads=read_cardatt,
    )
    def str_cardatt(self, x: CardAtt, scope: Scope) -> Callable:
        """(cardatt KEY CARD)

        The card's value for the attribute KEY: the empty string when the card lacks KEY or
        the reference names no card."""
        key = self.storage_name(x.key, scope)
        card = self.c_card(x.card, scope, optional=True)
        card_table = self.cards
        if isinstance(key, str):
            col = card_table.column(key)
            if (
                getattr(card, "var_slot", None) is not None
                and isinstance(x.card, Var)
                and scope.hint(x.card.name) == "card"
            ):
                # the attribute of a card bound by any/all/filter over a location: never empty
                vs = card.var_slot
                return tag(lambda s, e: col[e[vs]], attr_of_var=(col, vs))
            return lambda s, e: "" if (c := card(s, e)) is None else col[c]
        key_fn = key
        attrs = card_table.attrs  # a computed key is looked up card by card: no column per key
        return lambda s, e: "" if (c := card(s, e)) is None else attrs[c].get(key_fn(s, e), "")


# -- native writers ------------------------------------------------------------------------


@native(Kind.PLAYER, Owner)
def write_owner(w, x, sc) -> str:
    """The player owning the card's location (a rule broken when the game owns it)."""
    return f"owner_of(ctr, LOC_PLAYER, card_loc, {w.card(x.card, sc)})"


@native(Kind.TEAM, TeamOf)
def write_team_of(w, x, sc) -> str:
    """The player's team (a rule broken for a player on no team)."""
    return f"team_of_player(ctr, team_of, {w.player(x.player, sc)})"


@native(Kind.STR, CardAtt)
def write_cardatt(w, x, sc) -> str:
    """The card's value in the column of KEY (0, the empty string, for no card)."""
    if not isinstance(x.key, Word):
        raise NativeUnsupported("(cardatt ...) with a computed key", x)
    col = w.column(x.key.value)
    c = w.card(x.card, sc, True)
    if c.isidentifier():
        return f"({col}[{c}] if {c} >= 0 else 0)"
    return f"attr_of({col}, {c})"
