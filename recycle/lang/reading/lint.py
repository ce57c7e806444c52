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
from ..forms.flow import REGISTRY
from ..forms.shapes import head_of, is_location_form, is_storage_form
from ..forms.registry import Kind
from ..syntax.reader import COMMA, INT, SYMBOL, Atom, SList


def _is(node, kind: str, role: str) -> bool:
    """Is ``node`` a form of ``kind`` registered with ``role`` (forms.ROLES)? The checks read
    the facts of the forms, not their head keywords."""
    f = REGISTRY.lookup(kind, head_of(node))
    return f is not None and f.role == role


@dataclass(frozen=True)
class Warning_:
    span: Span
    message: str

    def __str__(self) -> str:
        return f"{self.span}: warning: {self.message}"


def _loc_key(node: SList):
    kind, name = node.items[1], node.items[2]
    if isinstance(name, Atom) and name.kind == SYMBOL:
        return (kind.value, name.value)
    if _is(name, Kind.STR, "member") and len(name.items) == 3 and isinstance(name.items[1], Atom):
        return (kind.value, f"{name.items[1].value}[]")  # any member of a family: RUN[]
    return None  # computed names are not checked


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


def _walk(node):
    yield node
    if isinstance(node, SList):
        for item in node.items:
            yield from _walk(item)


def lint(game_form: SList) -> list[Warning_]:
    """Warnings for the ``(game ...)`` form."""
    written: set = set()
    read: dict = {}
    sto_set: set = set()
    sto_read: dict = {}
    warnings: list[Warning_] = []
    dynamic_names = False
    puts, sets = REGISTRY.puts, REGISTRY.sets

    for node in _walk(game_form):
        if not isinstance(node, SList):
            continue
        h = head_of(node)
        if is_location_form(node):
            key = _loc_key(node)
            if key is None:
                dynamic_names = True
            elif key not in read:
                read[key] = node.span
        sort = is_storage_form(node)
        if sort in ("sto", "str") and isinstance(node.items[2], Atom) and node.items[2].kind == SYMBOL:
            sto_read.setdefault((sort, node.items[2].value), node.span)
        # the actions whose forms put cards into a location (move, swap, remember, create)
        for i in puts.get(h, ()):
            if i < len(node.items):
                for sub in _walk(node.items[i]):
                    if isinstance(sub, SList) and is_location_form(sub) and _loc_key(sub):
                        written.add(_loc_key(sub))
        # and those that set a storage (set, inc, dec)
        i = sets.get(h)
        if i is not None and i < len(node.items):
            target = node.items[i]
            tsort = is_storage_form(target)
            if tsort in ("sto", "str") and isinstance(target.items[2], Atom):
                sto_set.add((tsort, target.items[2].value))
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
    warnings += _attribute_warnings(game_form)
    warnings += _case_warnings(game_form)
    warnings += _team_warnings(game_form)
    return warnings


def _player_count(game_form: SList) -> int | None:
    """The number of players when ``(create players N)`` says it with a literal or a declared integer."""
    declared = {}
    for node in game_form.items[1:]:
        if (
            head_of(node) == "declare"
            and len(node.items) == 3
            and isinstance(node.items[1], Atom)
            and node.items[1].kind == INT
            and isinstance(node.items[2], Atom)
        ):
            declared[node.items[2].value] = node.items[1].value
        if head_of(node) == "setup" and len(node.items) > 1:
            first = node.items[1]
            if _is(first, Kind.ACTION, "create") and len(first.items) == 3 and isinstance(first.items[2], Atom):
                n = first.items[2]
                return n.value if n.kind == INT else declared.get(n.value)
    return None


def _team_warnings(game_form: SList) -> list[Warning_]:
    """``(create teams ...)`` naming neither player 0 nor player N: the lists are read as
    numbered from 0, and player 0 is on no team; a slip if they were meant from 1."""
    n = _player_count(game_form)
    found = []
    for node in _walk(game_form):
        if (
            not (
                _is(node, Kind.ACTION, "create")
                and len(node.items) > 2
                and isinstance(node.items[1], Atom)
                and node.items[1].value == "teams"
            )
            or n is None
        ):
            continue
        listed = {
            i.value
            for t in node.items[2:]
            if isinstance(t, SList)
            for i in t.items
            if isinstance(i, Atom) and i.kind == INT
        }
        if listed and 0 not in listed and n not in listed:
            found.append(
                Warning_(
                    node.span,
                    f"these teams name neither player 0 nor player {n}: they are read "
                    f"as numbered from 0 (0..{n - 1}), so player 0 is on no team",
                )
            )
    return found


def _attr_values(tree: SList, values: dict) -> None:
    """Collect the values of a deck's attribute tree ``(KEY (V1, V2))`` or
    ``(KEY (V1 SUBTREE...) (V2 SUBTREE...))`` into ``values[KEY]``."""
    items = tree.items
    if len(items) < 2 or not isinstance(items[0], Atom):
        return
    key = values.setdefault(items[0].value, {})  # an ordered set: the values in deck order
    for branch in items[1:]:
        if not isinstance(branch, SList):
            continue
        parts = branch.items
        if parts and all(isinstance(i, Atom) for i in parts):  # a leaf list of names
            key.update((i.value, None) for i in parts if i.kind != COMMA)
        elif parts and isinstance(parts[0], Atom):  # a value with sub-attributes
            key[parts[0].value] = None
            for sub in parts[1:]:
                if isinstance(sub, SList):
                    _attr_values(sub, values)


def _attribute_warnings(game_form: SList) -> list[Warning_]:
    """``(== (cardatt KEY C) V)`` where no card of the game has V as its KEY."""
    values: dict[str, dict] = {}
    for node in _walk(game_form):
        if isinstance(node, SList) and head_of(node) == "deck":
            for tree in node.items[1:]:
                if isinstance(tree, SList):
                    _attr_values(tree, values)
    found = []
    for node in _walk(game_form):
        if not (isinstance(node, SList) and _is(node, Kind.BOOL, "equality") and len(node.items) == 3):
            continue
        for att, other in ((node.items[1], node.items[2]), (node.items[2], node.items[1])):
            if not (
                isinstance(att, SList)
                and _is(att, Kind.STR, "attribute")
                and len(att.items) == 3
                and isinstance(att.items[1], Atom)
                and att.items[1].kind == SYMBOL
            ):
                continue
            key = att.items[1].value
            if key not in values or not isinstance(other, Atom) or other.kind not in (INT, SYMBOL):
                continue
            if str(other.value) not in values[key]:
                known = list(values[key])
                some = ", ".join(known) if len(known) <= 8 else ", ".join(known[:3]) + ", ..., " + known[-1]
                hint = " (card attributes are names, not numbers)" if other.kind == INT else ""
                found.append(
                    Warning_(other.span, f"no card has {key} {other.value}: the values of {key} are {some}{hint}")
                )
    return found


def _case_warnings(game_form: SList) -> list[Warning_]:
    """Location and storage names in lower case where the game's other names are upper case
    (``(game vloc Discard)`` and ``(game vloc DISCARD)`` are two different piles)."""
    names = []
    for node in _walk(game_form):
        if isinstance(node, SList) and (is_location_form(node) or is_storage_form(node)):
            name = node.items[2]
            if isinstance(name, Atom) and name.kind == SYMBOL:
                names.append(name)
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
