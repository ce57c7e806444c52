"""``--num-players N``: the same game for another number of players.

A game says how many play in ``(create players X)``. When X is an integer, or a variable
of a ``(declare INTEGER 'X)`` (so the rules that read 'X follow), the game's text is
rewritten with N in that place and read again (worker processes, which compile the text,
then play the same game); any other game says why it cannot be changed (a computed count,
teams listed for the original number). A count the game's deal cannot serve, where that can
be worked out from the text (``deal_limit``: 13 cards to each of 9 players from a pack of 52),
is refused with the counts it supports.
"""

from __future__ import annotations

from ...errors import RecycleCompileError
from ..nodes.actions import Teams
from ..nodes.base import Const, Num, Var
from ..syntax.reader import parse_text, position
from .deal_limit import refusal
from .elaborated import game_nodes

MAX_PLAYERS = 64


def with_player_count(source, n: int):
    """``source`` (a parsed file) with ``n`` players; a ``RecycleCompileError`` (at the
    ``create players`` form) when the game does not let its number of players be set."""
    name = source.filename
    if not 1 <= n <= MAX_PLAYERS:
        raise RecycleCompileError(f"--num-players must be between 1 and {MAX_PLAYERS}, not {n}")
    game = game_nodes(source)
    if game is None:
        return source  # the compiler reports what is wrong with it
    if any(isinstance(x, Teams) for x in game.setup):
        raise RecycleCompileError(
            f"cannot set the number of players of {name}: its teams are listed in "
            "(create teams ...) for the number it declares",
            game.players_at,
            source.text,
        )
    count = game.players
    match count:
        case Num():
            literal = count
        case Const(name=var, value=int()):
            literal = next(d.literal for d in reversed(game.declares) if d.name == var and d.literal is not None)
        case Const(name=var) | Var(name=var):
            raise RecycleCompileError(
                f"cannot set the number of players of {name}: '{var} is not declared as an integer",
                count.span,
                source.text,
            )
        case _:
            raise RecycleCompileError(
                f"cannot set the number of players of {name}: (create players ...) computes it; "
                "write an integer or a declared variable there",
                count.span,
                source.text,
            )
    why = refusal(game, n, MAX_PLAYERS, name)  # the deal counted before playing: too few cards for n players?
    if why:
        raise RecycleCompileError(why)
    text = source.text
    start = _offset(text, literal.span.line, literal.span.column)
    end = start + (literal.span.end_column - literal.span.column)
    return parse_text(text[:start] + str(n) + text[end:], name)


def _offset(text: str, line: int, column: int) -> int:
    """The offset in ``text`` of a 1-based (line, column), line breaks as the reader counts them."""
    lo, hi = 0, len(text)
    while lo < hi:  # the first offset at (line, column) or beyond
        mid = (lo + hi) // 2
        if position(text, mid) < (line, column):
            lo = mid + 1
        else:
            hi = mid
    return lo
