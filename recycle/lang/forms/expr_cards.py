"""The compiler's entry points for players, teams and cards, closures ``f(state, env)``: a
player, a team, a card, and the message for a card reference naming no card. The forms are
each kept whole in a module of their own: a card picked from a place
(``form_card_picks.py``), a card's owner, a player's team and a card's attribute
(``form_attributes.py``)."""

from __future__ import annotations

from collections.abc import Callable

from ..nodes.base import Const, FormNode, Loc, Nth, Num, Turn, Var, written
from ..nodes.places import At, Bottom, Highest, Lowest, Top
from .runtime import describe_value, rt_error
from ..nodes.sexpr import Scope, fail
from .values import Card, PlayerId, TeamId


class CardForms:
    """Players, teams and cards in the compiler (a mixin of ``FlowCompiler``)."""

    # -- players and teams -----------------------------------------------------------------
    def c_player(self, x, scope: Scope) -> Callable:
        """A player: a variable, ``(current|next|previous|N player)`` or a player form."""
        players = self.players
        n = self.layout.nplayers
        if isinstance(x, (Var, Const)):
            f = self.c_var(x, scope)
            span, name = x.span, x.name

            def var_player(s, e):
                v = f(s, e)
                if isinstance(v, PlayerId):
                    return v
                rt_error(f"'{name} holds {describe_value(v)}, not a player", span)

            return var_player
        if isinstance(x, Turn) and x.what == "player":
            if x.position == "current":
                return lambda s, e: players[s.pstack[-1][0]]

            if x.position == "next":

                def next_player(s, e):
                    top = s.pstack[-1]
                    q = top[1]
                    return players[q] if q is not None else players[(top[0] + 1) % n]

                return next_player
            return lambda s, e: players[(s.pstack[-1][0] - 1) % n]
        if isinstance(x, Nth) and x.what == "player":
            i = self.c_int(x.index, scope)
            span = x.span

            def nth_player(s, e):
                k = i(s, e)
                if 0 <= k < n:
                    return players[k]
                rt_error(f"there is no player {k} (players are 0..{n - 1})", span)

            return nth_player
        if isinstance(x, FormNode):
            return self.form_of(x, scope)
        fail(f"expected a player, got {self.form_name(x)}", x)

    def c_team(self, x, scope: Scope) -> Callable:
        """A team: a variable, ``(current|next|previous|N team)`` or a team form."""
        teams = self.teams
        if isinstance(x, (Var, Const)):
            f = self.c_var(x, scope)
            span, name = x.span, x.name

            def var_team(s, e):
                v = f(s, e)
                if isinstance(v, TeamId):
                    return v
                rt_error(f"'{name} holds {describe_value(v)}, not a team", span)

            return var_team
        if isinstance(x, Turn) and x.what == "team":
            if x.position == "current":
                return lambda s, e: teams[s.tstack[-1][0]]
            if x.position == "next":

                def next_team(s, e):
                    top = s.tstack[-1]
                    return teams[top[1]] if top[1] is not None else teams[(top[0] + 1) % s.nteams]

                return next_team
            return lambda s, e: teams[(s.tstack[-1][0] - 1) % s.nteams]
        if isinstance(x, Nth) and x.what == "team":
            i = self.c_int(x.index, scope)
            span = x.span

            def nth_team(s, e):
                k = i(s, e)
                if 0 <= k < s.nteams:
                    return teams[k]
                rt_error(f"there is no team {k}", span)

            return nth_team
        if isinstance(x, FormNode):
            return self.form_of(x, scope)
        fail(f"expected a team, got {self.form_name(x)}", x)

    # -- cards -----------------------------------------------------------------------------
    def c_card(self, x, scope: Scope, optional: bool = False) -> Callable:
        """A card expression → closure giving a Card (or None when ``optional`` and empty)."""
        if isinstance(x, (Var, Const)):
            f = self.c_var(x, scope)
            span, name = x.span, x.name
            if scope.hint(name) == "card":
                return f

            def var_card(s, e):
                v = f(s, e)
                if isinstance(v, Card) or (optional and v is None):
                    return v
                rt_error(f"'{name} holds {describe_value(v)}, not a card", span)

            return var_card
        if isinstance(x, FormNode):
            return self.form_of(x, scope, optional)
        fail(f"expected a card, got {self.form_name(x)}", x)

    def no_card(self, x, scope: Scope) -> Callable:
        """``f(s, e)``: the message for a card reference that names no card here, naming the
        location that was empty as it is now, e.g. ``(top (P0 vloc PLAY)) names no card:
        (P0 vloc PLAY) is empty here``."""
        loc = x.location if isinstance(x, (Top, Bottom, At, Highest, Lowest)) else None
        if not isinstance(loc, Loc) or (isinstance(x, At) and not isinstance(x.index, Num)):
            return lambda s, e: f"{written(x)} names no card here (its location is empty)"
        idx = self.c_loc_index(loc, scope)
        infos = self.layout.infos
        head = written(x.index) if isinstance(x, At) else x.HEAD
        rest = "using " + written(x.points) if isinstance(x, (Highest, Lowest)) else ""

        def message(s, e):
            info = infos[idx(s, e)]
            owner = "game" if info.owner_kind == "game" else info.owner_label
            where = f"({owner} {info.kind} {info.name})"
            ref = f"({head} {where}{' ' + rest if rest else ''})"
            return f"{ref} names no card: {where} is empty here"

        return message
