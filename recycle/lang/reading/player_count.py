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
from .deal_limit import refusal
from ..syntax.reader import INT, VAR, Atom, SList, SourceFile, parse_text, position

MAX_PLAYERS = 64


def _head(x) -> str | None:
    return x.head if isinstance(x, SList) else None


def with_player_count(source: SourceFile, n: int) -> SourceFile:
    """``source`` with ``n`` players; a ``RecycleCompileError`` (at the ``create players``
    form) when the game does not let its number of players be set."""
    name = source.filename
    game = source.forms[0] if source.forms else None
    if not 1 <= n <= MAX_PLAYERS:
        raise RecycleCompileError(f"--num-players must be between 1 and {MAX_PLAYERS}, not {n}")
    if _head(game) != "game":
        return source  # the compiler reports what is wrong with it
    items = list(game.items)
    setup_i = next((i for i, x in enumerate(items) if _head(x) == "setup"), None)
    if setup_i is None:
        return source
    setup = items[setup_i]
    create_i = next(
        (
            i
            for i, x in enumerate(setup.items)
            if _head(x) == "create"
            and len(x.items) == 3
            and isinstance(x.items[1], Atom)
            and x.items[1].value == "players"
        ),
        None,
    )
    if create_i is None:
        return source
    create = setup.items[create_i]
    count = create.items[2]
    if any(
        _head(x) == "create" and len(x.items) > 1 and isinstance(x.items[1], Atom) and x.items[1].value == "teams"
        for x in setup.items
    ):
        raise RecycleCompileError(
            f"cannot set the number of players of {name}: its teams are listed in "
            "(create teams ...) for the number it declares",
            create.span,
            source.text,
        )
    if isinstance(count, Atom) and count.kind == INT:
        literal = count
    elif isinstance(count, Atom) and count.kind == VAR:
        decl = next(
            (
                x
                for x in items[:setup_i]
                if _head(x) == "declare"
                and len(x.items) == 3
                and isinstance(x.items[2], Atom)
                and x.items[2].value == count.value
            ),
            None,
        )
        if decl is None or not (isinstance(decl.items[1], Atom) and decl.items[1].kind == INT):
            raise RecycleCompileError(
                f"cannot set the number of players of {name}: '{count.value} is not declared as an integer",
                count.span,
                source.text,
            )
        literal = decl.items[1]
    else:
        raise RecycleCompileError(
            f"cannot set the number of players of {name}: (create players ...) computes it; "
            "write an integer or a declared variable there",
            count.span,
            source.text,
        )
    why = refusal(source, n, MAX_PLAYERS)  # the deal counted before playing: too few cards for n players?
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
