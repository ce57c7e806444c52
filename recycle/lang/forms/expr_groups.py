"""Reading any collection in the compiler: what ``any``, ``all``, ``filter`` and ``size``
range over (players, teams, a variable, a location or view, a group list, a team's members, a
list of names, or a collection form), into closures ``f(state, env)``. The forms themselves are
kept whole in their modules (``form_collections.py``, ``form_group_lists.py``, ``form_indexed.py``).
"""

from __future__ import annotations

from collections.abc import Callable

from ..nodes.base import Const, Everyone, FormNode, Loc, Names, Var
from ..nodes.groups import Members
from ..nodes.sexpr import Scope, fail
from .runtime import describe_value, rt_error
from .values import PLoc, TeamId


class Collections:
    """Collections in the compiler (a mixin of ``FlowCompiler``), read by many forms."""

    def c_coll(self, x, scope: Scope) -> Callable:
        """A collection: player, team, a variable, a location or view, a group list, a team's
        members, a list of names, or a collection form."""
        players = self.players
        teams = self.teams
        match x:
            case Everyone(what="player"):
                return lambda s, e: players
            case Everyone(what="team"):
                return lambda s, e: teams[: s.nteams]
            case Var() | Const():
                f = self.c_var(x, scope)
                span, name = x.span, x.name

                def var_coll(s, e):
                    v = f(s, e)
                    if isinstance(v, PLoc):
                        return s.locs[v.idx]
                    if isinstance(v, (list, range)):
                        return v
                    if isinstance(v, TeamId):
                        return [players[p] for p in s.team_members[v]]
                    rt_error(f"'{name} holds {describe_value(v)}, not a collection", span)

                return var_coll
            case Loc():
                return self.c_cards(x, scope)
            case Names():
                names = list(x.values)
                return lambda s, e: names
            case FormNode():
                return self.form_of(x, scope)
        fail(f"expected a collection, got {self.form_name(x)}", x)

    def c_members(self, x: Members, scope: Scope) -> Callable:
        """A team as a collection: its players."""
        t = self.c_team(x.team, scope)
        players = self.players
        return lambda s, e: [players[p] for p in s.team_members[t(s, e)]]
