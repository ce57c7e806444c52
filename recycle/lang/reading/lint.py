"""Static checks for ``recycle check``: likely mistakes that still compile.

Each finding is a warning with a position: a location that is used but never receives
cards (often a misspelt name), a storage that is read but never set, a card attribute
compared with a value that no card of the game has (``(== (cardatt RANK 'C) 8)`` where the
ranks are names), and a location or storage name in lower case where the others are upper
case.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import Span
from ..nodes.actions import Deck, Dec, Inc, Move, Remember, Set, SwapCards, SwapPlaces, Teams
from ..nodes.base import Const, Loc, Num, Storage, Word
from ..nodes.flow import GameNode
from ..nodes.numbers import Equal, NotEqual
from ..nodes.scalars import CardAtt, Member
from ..nodes.walk import walk


@dataclass(frozen=True)
class Warning_:
    span: Span
    message: str

    def __str__(self) -> str:
        return f"{self.span}: warning: {self.message}"


def location_key(node: Loc):
    """(KIND, NAME) of a location whose name is written out, (KIND, "NAME[]") for any member of
    a family, None for a computed name (not checked)."""
    match node.name:
        case Word(value=name):
            return (node.kind, name)
        case Member(family=family):
            return (node.kind, f"{family}[]")  # any member of a family: RUN[]
    return None


def _family(key) -> tuple | None:
    """(KIND, "NAME[]") for a member ``NAME[3]`` of a family of locations, else None."""
    kind, name = key
    at = name.find("[")
    return (kind, name[:at] + "[]") if at > 0 and not name.endswith("[]") else None


def _receives(key, written: set) -> bool:
    """Whether cards are put into the location ``key``: itself, or, for a family's member
    or the family as a whole, the family through a computed member or any of its members."""
    if key in written:
        return True
    family = _family(key)
    if family is not None:
        return family in written
    if key[1].endswith("[]"):
        return any(_family(w) == key for w in written)
    return False


def _at(node) -> tuple:
    return (node.span.line, node.span.column)


def in_text_order(game: GameNode) -> list:
    """Every node of the game once per place it is written, in the order of the text (a form
    read twice by the elaborator, as ``(repeat all ...)``'s source, counts once)."""
    seen: dict = {}
    for node in walk(game):
        if node.span is not None:
            seen.setdefault((_at(node), (node.span.end_line, node.span.end_column), type(node)), node)
    return [seen[k] for k in sorted(seen, key=lambda k: (k[0], (-k[1][0], -k[1][1])))]


def _receivers(node) -> tuple:
    """The operands of an action that put cards into the locations they hold."""
    match node:
        case Move(to=to) | Remember(to=to):
            return (to,)
        case SwapPlaces(a=a, b=b) | SwapCards(a=a, b=b):
            return (a, b)
        case Deck(location=where):
            return (where,)
    return ()


def lint(game: GameNode) -> list[Warning_]:
    """Warnings for a game read into nodes (``recycle.lang.nodes.elaborate``)."""
    written: set = set()
    read: dict = {}
    sto_set: set = set()
    sto_read: dict = {}
    warnings: list[Warning_] = []
    dynamic_names = False
    nodes = in_text_order(game)
    for node in nodes:
        match node:
            case Loc():
                key = location_key(node)
                if key is None:
                    dynamic_names = True
                else:
                    read.setdefault(key, node.span)
            case Storage(sort="sto" | "str", name=Word(value=name)):
                sto_read.setdefault((node.sort, name), node.span)
            case Set(storage=Storage(sort="sto" | "str") as target) | Inc(storage=target) | Dec(storage=target):
                if isinstance(target.name, Word):
                    sto_set.add((target.sort, target.name.value))
                elif hasattr(target.name, "name"):  # a variable's name, as written
                    sto_set.add((target.sort, target.name.name))
        for part in _receivers(node):
            written.update(k for sub in walk(part) if isinstance(sub, Loc) and (k := location_key(sub)))
    if not dynamic_names:
        for key, span in sorted(read.items(), key=lambda kv: (kv[1].line, kv[1].column)):
            if not _receives(key, written):
                what = f"the family {key[1][:-2]}" if key[1].endswith("[]") else key[1]
                warnings.append(
                    Warning_(
                        span,
                        f"{key[0]} {what} never receives cards (no move, swap or deck "
                        "puts cards there): a misspelt name?",
                    )
                )
    for (sort, name), span in sorted(sto_read.items(), key=lambda kv: (kv[1].line, kv[1].column)):
        if (sort, name) not in sto_set:
            default = "0" if sort == "sto" else "the empty string"
            warnings.append(Warning_(span, f"{sort} {name} is read but never set (always {default})"))
    warnings += _attribute_warnings(nodes)
    warnings += _case_warnings(nodes)
    warnings += _team_warnings(game, nodes)
    return warnings


def _player_count(game: GameNode) -> int | None:
    """The number of players when ``(create players N)`` says it with a literal or a declared integer."""
    match game.players:
        case Num(value=n) | Const(value=int() as n):
            return n
    return None


def _team_warnings(game: GameNode, nodes: list) -> list[Warning_]:
    """``(create teams ...)`` naming neither player 0 nor player N: the lists are read as
    numbered from 0, and player 0 is on no team; a slip if they were meant from 1."""
    n = _player_count(game)
    found = []
    for node in nodes:
        if not isinstance(node, Teams) or n is None:
            continue
        listed = {i for t in node.teams for i in t.members}
        if listed and 0 not in listed and n not in listed:
            found.append(
                Warning_(
                    node.span,
                    f"these teams name neither player 0 nor player {n}: they are read "
                    f"as numbered from 0 (0..{n - 1}), so player 0 is on no team",
                )
            )
    return found


def _attribute_warnings(nodes: list) -> list[Warning_]:
    """``(== (cardatt KEY C) V)`` where no card of the game has V as its KEY."""
    values: dict[str, dict] = {}  # an ordered set per key: the values in deck order
    for node in nodes:
        if isinstance(node, Deck):
            for card in node.cards:
                for key, value in card:
                    values.setdefault(key, {})[value] = None
    found = []
    for node in nodes:
        if not isinstance(node, (Equal, NotEqual)):
            continue
        for att, other in ((node.a, node.b), (node.b, node.a)):
            if not (isinstance(att, CardAtt) and isinstance(att.key, Word)):
                continue
            key = att.key.value
            if key not in values or not isinstance(other, (Num, Word)):
                continue
            # a number is never an attribute's value (attributes are names, even "2")
            if isinstance(other, Num) or other.value not in values[key]:
                known = list(values[key])
                some = ", ".join(known) if len(known) <= 8 else ", ".join(known[:3]) + ", ..., " + known[-1]
                hint = " (card attributes are names, not numbers)" if isinstance(other, Num) else ""
                found.append(
                    Warning_(other.span, f"no card has {key} {other.value}: the values of {key} are {some}{hint}")
                )
    return found


def _case_warnings(nodes: list) -> list[Warning_]:
    """Location and storage names in lower case where the game's other names are upper case
    (``(game vloc Discard)`` and ``(game vloc DISCARD)`` are two different piles)."""
    names = [n.name for n in nodes if isinstance(n, (Loc, Storage)) and isinstance(n.name, Word)]
    lower = [a for a in names if a.value != a.value.upper()]
    if not lower or len(lower) * 2 >= len(names):
        return []
    upper = {a.value for a in names if a.value == a.value.upper()}
    found, seen = [], set()
    for a in lower:
        if a.value in seen:
            continue
        seen.add(a.value)
        also = f"; {a.value.upper()} is another name" if a.value.upper() in upper else ""
        found.append(
            Warning_(
                a.span,
                f"the name {a.value} is not in upper case like the game's other names (names are case-sensitive{also})",
            )
        )
    return found
