"""Compiling RECYCLE's players, teams and cards into closures ``f(state, env)``."""

from __future__ import annotations

from collections.abc import Callable

from .reads import reads_node
from ..nodes.base import Const, FormNode, Loc, Nth, Num, Turn, Unread, Var, written
from ..nodes.places import Actual, At, Bottom, Highest, Lowest, Top
from ..nodes.scalars import Owner, TeamOf
from .registry import Kind, form
from .runtime import out_of_work
from .runtime import describe_value, n_cards, rt_error
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
        if isinstance(x, (FormNode, Unread)):
            return self.form_of(x, scope)
        fail(f"expected a player, got {self.form_name(x)}", x)

    @form("owner", "(owner CARD)", Kind.PLAYER, words="owner of {1}")
    @reads_node
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
        if isinstance(x, (FormNode, Unread)):
            return self.form_of(x, scope)
        fail(f"expected a team, got {self.form_name(x)}", x)

    @form("team", "(team PLAYER)", Kind.TEAM, words="team of {1}")
    @reads_node
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
        if isinstance(x, (FormNode, Unread)):
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

    def card_location(self, x, scope: Scope) -> Callable:
        """The cards of ``(WHERE LOCATION)``; a variable holding a group list stands for its
        first group."""
        return self.c_cards(x.location, scope, first_group=True)

    @form("top", "(top LOCATION)", Kind.CARD, pure=True, words="top {1}")
    @reads_node
    def card_top(self, x: Top, scope: Scope, optional: bool = False) -> Callable:
        """(top LOCATION)

        The top card of a location (its last element); an error when it is empty."""
        cards = self.card_location(x, scope)
        span = x.span
        why = self.no_card(x, scope)

        def top(s, e):
            lst = cards(s, e)
            if lst:
                return lst[-1]
            if optional:
                return None
            rt_error(why(s, e), span, "top")

        return top

    @form("bottom", "(bottom LOCATION)", Kind.CARD, pure=True, words="bottom {1}")
    @reads_node
    def card_bottom(self, x: Bottom, scope: Scope, optional: bool = False) -> Callable:
        """(bottom LOCATION)

        The bottom card of a location (its first element); an error when it is empty."""
        cards = self.card_location(x, scope)
        span = x.span
        why = self.no_card(x, scope)

        def bottom(s, e):
            lst = cards(s, e)
            if lst:
                return lst[0]
            if optional:
                return None
            rt_error(why(s, e), span, "bottom")

        return bottom

    @form(None, "(INDEX LOCATION)", Kind.CARD, pure=True, label="index")
    @reads_node
    def card_index(self, x: At, scope: Scope, optional: bool = False) -> Callable:
        """(INDEX LOCATION)

        The card at the 0-based INDEX of a location, counted from the bottom (an integer or
        a variable); an error when there is no such card."""
        cards = self.card_location(x, scope)
        span = x.span
        where = f"({written(x.index)} ...)"
        idx = self.c_int(x.index, scope)

        def nth(s, e):
            lst = cards(s, e)
            i = idx(s, e)
            if 0 <= i < len(lst):
                return lst[i]
            if optional:
                return None
            rt_error(f"index {i} out of range for a location of {n_cards(len(lst))}", span, where)

        return nth

    def card_extreme(self, x, scope: Scope, optional: bool, pick_max: bool) -> Callable:
        """(max|min LOCATION using POINTS): ties are broken with the game's random numbers."""
        h = x.HEAD
        cards = self.c_cards(x.location, scope)
        pts = self.c_points(x.points, scope)
        span = x.span
        why = self.no_card(x, scope)

        def extreme(s, e):
            lst = cards(s, e)
            if not lst:
                if optional:
                    return None
                rt_error(why(s, e), span, h)
            s.work -= len(lst)
            if s.work < 0:
                out_of_work(s, span, h)
            sc = pts(s, e).table
            best = max(sc[c] for c in lst) if pick_max else min(sc[c] for c in lst)
            tied = [c for c in lst if sc[c] == best]
            return tied[0] if len(tied) == 1 else tied[int(s.rng.random() * len(tied))]

        return extreme

    @form("max", "(max LOCATION using POINTS)", Kind.CARD, draws=True, words="max {1} {2=using} {3}")
    @reads_node
    def card_max(self, x: Highest, scope: Scope, optional: bool = False) -> Callable:
        """(max LOCATION using POINTS)

        The card of the location with the highest score, ties broken uniformly at random; an
        error when the location is empty."""
        return self.card_extreme(x, scope, optional, True)

    @form("min", "(min LOCATION using POINTS)", Kind.CARD, draws=True, words="min {1} {2=using} {3}")
    @reads_node
    def card_min(self, x: Lowest, scope: Scope, optional: bool = False) -> Callable:
        """(min LOCATION using POINTS)

        The card of the location with the lowest score, ties broken uniformly at random; an
        error when the location is empty."""
        return self.card_extreme(x, scope, optional, False)

    @form("actual", "(actual CARD)", Kind.CARD, pure=True, words="actual {1}")
    @reads_node
    def card_actual(self, x: Actual, scope: Scope, optional: bool = False) -> Callable:
        """(actual CARD)

        The same card, marked as the physical card (a move out of a view or mem location
        moves it from where it really is)."""
        return self.c_card(x.card, scope, optional)
