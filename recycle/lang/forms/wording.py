"""A form in words, by the templates its registration gives (``words``, ``role``: registry.py):
``expr`` writes an expression node as short text (``top STOCK``, ``SCORE('P) > 'GOAL``),
``action_text`` an action node as one line (``move top STOCK → top HAND('P)``). The structure
tree (study/structure.py) and other diagrams read a game's nodes and write each form with these.

A template's ``{i}`` addresses the form's i-th item as written; a form node holds its operands
in the order of its syntax, so the items are laid out again from the node and the syntax its
form registers (``(max LOCATION using POINTS)``: the node's ``location``, the keyword
``using``, its ``points``). No form's head keyword is compared here: a new form declares its
words and role instead.
"""

from __future__ import annotations

import re
from dataclasses import fields
from functools import cache

from ..nodes.base import (
    Binding,
    Const,
    Everyone,
    FormNode,
    GameOwner,
    Loc,
    Names,
    Nth,
    Num,
    Storage,
    Turn,
    Var,
    Word,
    written,
)
from .registry import WORDS_FIELD, Kind, registry


class Keyword(str):
    """A keyword (or a NAME kept as a string) standing as one item of a form."""


class Items(tuple):
    """A list written as one item of a form: ``(AWARD ...)``, a deck's ``(deck ...)``."""


def _head(x) -> str | None:
    return x.HEAD if isinstance(x, FormNode) else None


def _kw(x, *values) -> bool:
    return isinstance(x, Keyword) and x in values


def _roles(x) -> frozenset:
    """The roles of the forms headed as ``x`` is, of any kind."""
    return registry().roles.get(_head(x), frozenset())


# -- a form node's items, laid out again by its form's syntax ----------------------------------
_TOKEN = re.compile(r"\([^()]*(?:\([^()]*\)[^()]*)*\)|[^\s()]+")


@cache
def _alternatives(syntax: str) -> tuple:
    """The written shapes of a form's syntax: per alternative, the tokens after its head, a
    range ``A..B`` as three (``A``, ``..``, ``B``)."""
    out = []
    for alt in syntax.split(" | "):
        tokens = []
        for tok in _TOKEN.findall(alt.strip()[1:-1])[1:]:
            if ".." in tok and tok != "..." and not tok.startswith("("):
                low, high = tok.split("..")
                tokens += [low, "..", high]
            else:
                tokens.append(tok)
        out.append(tuple(tokens))
    return tuple(out)


def _literal(tok: str) -> bool:
    return tok == ".." or (tok.isalpha() and tok.islower())


def _operands(node) -> tuple[list, dict]:
    """The node's operands in the order of its syntax (the fields it derives from the others
    left out; a default value as not written), and its yes-or-no facts by name (``largest``:
    written as the keyword of that name or the other of ``largest|all``)."""
    derived = getattr(node, "DERIVED", ())
    defaults = getattr(node, "DEFAULTS", {})
    ops, flags = [], {}
    for f in fields(node):
        if not f.compare or f.name in derived:
            continue
        v = getattr(node, f.name)
        if isinstance(v, bool):
            flags[f.name] = v
        else:
            ops.append(None if f.name in defaults and v == defaults[f.name] else v)
    return ops, flags


def _repeats(tokens: tuple, j: int) -> bool:
    """Whether the token at ``j`` starts a repetition: ``X ...``, ``A B C ...``."""
    rest = tokens[j:]
    if "..." not in rest:
        return False
    run = rest[: rest.index("...")]
    return len(run) == 1 or not any(t.startswith("(") or _literal(t) for t in run)


def _group(tok: str, v):
    """The value ``v`` standing for a parenthesised token: ``(end CONDITION)`` is a list of the
    keyword and ``v``; a group of several operands (``(OWNER points NAME)``) is ``v`` itself."""
    inner = tuple(_TOKEN.findall(tok[1:-1]))
    if "..." in inner or sum(not _literal(t) for t in inner) != 1:
        return v
    laid = _lay_out(inner, [v], {})
    return Items(laid) if laid is not None else v


def _lay_out(tokens: tuple, ops: list, flags: dict) -> list | None:
    """The items after the head as ``tokens`` lay ``ops`` and ``flags`` out, or None when
    they do not fit."""
    items, k, j, used = [], 0, 0, set()
    while j < len(tokens):
        tok = tokens[j]
        j += 1
        if tok == "...":
            continue
        if _literal(tok):
            if tok in flags:  # (stage player simultaneous ...): written when the fact holds
                if not flags[tok]:
                    return None
                used.add(tok)
            elif k < len(ops) and isinstance(ops[k], str) and ops[k] == tok:
                k += 1  # a keyword the node keeps as a fact: (other player)
            items.append(Keyword(tok))
            continue
        choices = tok.split("|") if not tok.startswith("(") else []
        named = [c for c in choices if c in flags]
        if len(choices) == 2 and named:  # largest|all, player|team: by the fact of that name
            used.add(named[0])
            items.append(Keyword(named[0] if flags[named[0]] else next(c for c in choices if c != named[0])))
            continue
        v = ops[k] if k < len(ops) else None
        k += 1
        if v is None:
            if not tok.endswith("?"):
                return None
            continue
        if isinstance(v, tuple):
            if _repeats(tokens, j - 1):
                items.extend(v)  # CONDITION CONDITION ...: the operands one by one
                j = tokens.index("...", j - 1) + 1
            elif tok.startswith("(") and "..." in tok:
                items.append(Items(v))  # (AWARD ...): one list
            else:
                return None
            continue
        if tok.startswith("("):
            v = _group(tok, v)
        items.append(Keyword(v) if isinstance(v, str) else v)
    if any(v is not None for v in ops[k:]):
        return None
    return items


def items_of(node) -> list | None:
    """``node``'s form as the items it is written with: its head, then its operands and
    keywords (None when it is no registered form, or its operands fit none of its shapes)."""
    head = _head(node)
    f = registry().lookup(node.KIND, head) if head is not None else None
    if f is None:
        return None
    ops, flags = _operands(node)
    shapes = _alternatives(f.syntax)
    # a fact written as a keyword in some shape (simultaneous) is written when it holds
    said = {t for tokens in shapes for t in tokens if t in flags}
    for tokens in shapes:
        items = _lay_out(tokens, ops, flags)
        if items is not None and not any(flags[n] and n not in tokens for n in said):
            if getattr(node, "bare", False):  # (do (ITEM)): the list of one without its parentheses
                items = [i[0] if isinstance(i, Items) and len(i) == 1 else i for i in items]
            return [Keyword(head), *items]
    return None


# -- a form's words: its templates filled with its items ---------------------------------------
@cache
def _template(template: str) -> tuple:
    """``(parts, size, star)``: the literal texts and fields of a template, the number of items
    its fixed fields need, and the item its ``*``/``+`` field starts at and needs (or None)."""
    parts, at, size, star = [], 0, 1, None
    for m in WORDS_FIELD.finditer(template):
        i, how, rep, sep = int(m.group(1)), m.group(2) or "", m.group(3), m.group(4)
        parts += [template[at : m.start()], (i, how, rep, sep)]
        at = m.end()
        if rep:
            star = (i, i + (rep == "+"))
        else:
            size = max(size, i + (2 if how == ":each" else 1))
    parts.append(template[at:])
    return tuple(parts), size, star


def _field(items, i: int, how: str, outer: str | None) -> str | None:
    """Item ``i`` read as a field says, or None when the item does not fit it."""
    x = items[i]
    if not how:
        return expr(x)
    if how == "~":
        return _paren(x, outer or "")
    if how.startswith("="):
        return how[1:] if _kw(x, how[1:]) else None
    read = how[1:]
    if read == "each":
        return _each(x, items[i + 1])
    if read == "action":
        return action_text(x)
    if read == "atom":
        return _leaf(x)
    if read == "points":
        return expr(x) if isinstance(x, Storage) and x.sort == "points" else None
    if read == "count":
        return str(len(x)) if isinstance(x, Items) else None
    if read in ("cards", "keys") and isinstance(x, Items):  # a deck's cards, as (key, value) pairs
        return str(len(x)) if read == "cards" else ", ".join(dict.fromkeys(k for card in x for k, _ in card))
    return None


def _words(items: list, templates) -> str | None:
    """A form's ``items`` in words, by the first template whose fields fit them; None if none does."""
    for template in templates:
        parts, size, star = _template(template)
        if len(items) < size or (star is None and len(items) != size) or (star and len(items) < star[1]):
            continue
        out = []
        for part in parts:
            if isinstance(part, str):
                out.append(part)
                continue
            i, how, rep, sep = part
            texts = [_field(items, j, how, items[0]) for j in (range(i, len(items)) if rep else (i,))]
            if None in texts:
                break
            out.append(sep.join(texts) if rep else texts[0])
        else:
            return "".join(out)
    return None


# -- expressions as short text ---------------------------------------------------------------
def _leaf(x) -> str | None:
    """A word, number, variable or keyword as written; None for a form."""
    match x:
        case Keyword():
            return str(x)
        case Word(value=value):
            return value
        case Num(value=value):
            return str(value)
        case Var(name=name) | Const(name=name) | Binding(name=name):
            return f"'{name}"
        case GameOwner():
            return "game"
        case Everyone(what=what):
            return what
    return None


def _as_written(x) -> str:
    """A leaf, a place or a turn position in s-expression notation (``(game sto ASKED)``): how a
    player numbered by a computed index is named."""
    match x:
        case Loc(owner=owner, kind=sort, name=name) | Storage(holder=owner, sort=sort, name=name):
            return f"({_as_written(owner)} {sort} {_as_written(name)})"
        case Turn(position=position, what=what):
            return f"({position} {what})"
    leaf = _leaf(x)
    return leaf if leaf is not None else written(x)


def who(x) -> str:
    """An owner, player or team: ``current``, ``next``, ``P2``, ``'P``, ``team of current``."""
    match x:
        case Turn(position=position, what=what):
            return position if what == "player" else f"{position} team"
        case Nth(index=Num(value=n), what=what):
            return f"{'P' if what == 'player' else 'T'}{n}"
        case Nth(index=index, what=what):
            return _as_written(index) if what == "player" else f"{_as_written(index)} team"
    leaf = _leaf(x)
    return leaf if leaf is not None else expr(x)


def _place(x) -> str | None:
    """A location or storage as ``NAME`` or ``NAME(owner)`` (``KIND 'V`` for a name held by a
    variable ``'V``); else None."""
    match x:
        case Loc(owner=owner, kind=sort, name=name) | Storage(holder=owner, sort=sort, name=name):
            # a place named by a variable or a computed name: ``vloc 'S``, not ``'S`` (the variable's value)
            text = name.value if isinstance(name, Word) else f"{sort} {expr(name)}"
            return text if isinstance(owner, GameOwner) else f"{text}({who(owner)})"
    return None


def _paren(x, outer: str = "") -> str:
    """``x`` as text, in parentheses where a reader could otherwise group it wrongly."""
    text = expr(x)
    h, roles = _head(x), _roles(x)
    if "junction" in roles and h != outer:
        return f"({text})"
    infix = registry().operators  # the forms written between their operands: a + b, a == b
    if h in infix and outer in infix:
        return f"({text})"
    if "quantifier" in roles and outer:
        return f"({text})"  # "any X 'V: body" runs to the end of the line
    return text


def _at(index, x) -> str:
    """``(top|bottom|INDEX X)``: ``top X``, ``card 2 of X`` or ``('I X)``."""
    if isinstance(index, str):
        return f"{index} {expr(x)}"
    if isinstance(index, Num):
        return f"card {index.value} of {expr(x)}"
    return f"({expr(index)} {expr(x)})"


def expr(x) -> str:
    """A RECYCLE expression node (location, card, integer, boolean, collection) as short text."""
    leaf = _leaf(x)
    if leaf is not None:
        return leaf
    place = _place(x)
    if place is not None:
        return place
    if isinstance(x, Turn | Nth):
        return who(x)
    if isinstance(x, Items):
        return "(" + " ".join(expr(i) for i in x) + ")"
    if isinstance(x, Names):
        return "(" + ", ".join(x.values) + ")"
    if not isinstance(x, FormNode):
        return written(x)
    if x.HEAD is None:
        return _headless(x)
    items = items_of(x)
    if items is None:
        return written(x)
    args = items[1:]
    if len(items) == 2 and _kw(items[1], "player", "team"):
        return items[0] if items[1] == "player" else f"{items[0]} team"
    if x.HEAD in registry().operators and len(args) == 2:  # a + b, a == b
        return f"{_paren(args[0], x.HEAD)} {x.HEAD} {_paren(args[1], x.HEAD)}"
    text = _words(items, registry().words.get(x.HEAD, ()))  # the words of the expressions headed so
    if text is not None:
        return text
    return "(" + " ".join(expr(i) for i in items) + ")"


def _headless(x) -> str:
    """The forms written without a head keyword: a place to put a card, a card or a group by
    its position, a team's players, a team as created, a point map's award."""
    names = [f.name for f in fields(x) if f.compare]
    values = [getattr(x, n) for n in names]
    if names == ["members"]:  # a team as created: (0, 2)
        return "(" + ", ".join(str(m) for m in values[0]) + ")"
    if len(values) == 1:  # a team's players: the team
        return expr(values[0])
    if names == ["conditions", "points"]:  # an award: ((KEY : VALUE) ... POINTS)
        conds = " ".join(f"({' : '.join(expr(v) for v in c)})" for c in values[0])
        return f"({conds} {expr(values[1])})"
    if len(values) == 2 and not isinstance(values[0], tuple):  # (top|bottom|INDEX X)
        return _at(values[0], values[1])
    return "(" + " ".join(expr(v) for v in values) + ")"


def _each(coll, var) -> str:
    """``player 'P`` for the player/team collections, else ``'V in COLLECTION``."""
    if isinstance(coll, Everyone):
        return f"{coll.what} {expr(var)}"
    return f"{expr(var)} in {expr(coll)}"


def action_text(x) -> str:
    """One action node as a line: ``move top STOCK → top HAND('P)``, ``PASS := 0``, ``pass``."""
    if isinstance(x, FormNode) and x.KIND == Kind.ACTION and x.HEAD is not None:
        items = items_of(x)
        text = _words(items, registry().lookup(Kind.ACTION, x.HEAD).words) if items is not None else None
        if text is not None:
            return text
    return expr(x)
