"""Game-structure diagrams (``recycle tree``): a RECYCLE game's flow read from its AST.

``game_tree(source)`` turns the ``(game ...)`` form into a tree of ``TNode``: setup, the
top-level flow, stages (nested, with their end condition), choices with their options,
conditionals, loops and actions, each action as one short line such as
``move top STOCK → top HAND(current)``. ``outline(tree)`` prints it as indented text and
``tree_dot(tree)`` as Graphviz DOT. ``raw_tree(source)`` is the full s-expression tree.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from functools import cache

from ..lang.forms.flow import REGISTRY
from ..lang.forms.registry import WORDS_FIELD, Kind
from ..lang.forms.shapes import STORAGE_SORTS
from ..lang.syntax.reader import INT, SYMBOL, Atom, SList
from ..lang.forms.values import KINDS as LOC_KINDS

INFIX = REGISTRY.operators  # the forms written between their operands: a + b, a == b
# Every other form is written by the facts registered with it (recycle/lang/forms/registry.py): its
# ``words`` (templates, filled here) and its ``role`` (stage, choice, block, loop ...). This
# module compares no form's head keyword: a new form declares its words and role instead.


@dataclass
class TNode:
    """One box of the structure diagram: its kind (stage, choice, action, ...), text, children."""

    kind: str
    text: str
    children: list = field(default_factory=list)
    line: int = 0


def _head(x) -> str | None:
    return x.head if isinstance(x, SList) else None


def _kw(x, *values) -> bool:
    return isinstance(x, Atom) and x.kind == SYMBOL and x.value in values


def _roles(x) -> frozenset:
    """The roles of the forms headed as ``x`` is, of any kind."""
    return REGISTRY.roles.get(_head(x), frozenset())


def _role(x, kind: str) -> str:
    """The role of the form of ``kind`` headed as ``x`` is ("" if none)."""
    f = REGISTRY.lookup(kind, _head(x))
    return f.role if f is not None else ""


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
        return str(x.value) if isinstance(x, Atom) else None
    if read == "points":
        return expr(x) if isinstance(x, SList) and len(x.items) == 3 and _kw(x.items[1], "points") else None
    if read == "count":
        return str(len(x.items) if isinstance(x, SList) else 0)
    if read in ("cards", "keys") and _head(x) == "deck":  # (deck ...) is a part of create, not a form
        return str(deck_size(x)) if read == "cards" else ", ".join(_deck_keys(x))
    return None


def _words(x, templates) -> str | None:
    """``x`` in words, by the first template whose fields fit its items; None if none does."""
    items = x.items
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
            texts = [_field(items, j, how, x.head) for j in (range(i, len(items)) if rep else (i,))]
            if None in texts:
                break
            out.append(sep.join(texts) if rep else texts[0])
        else:
            return "".join(out)
    return None


# -- expressions as short text ---------------------------------------------------------------
def who(x) -> str:
    """An owner, player or team: ``current``, ``next``, ``P2``, ``'P``, ``team of current``."""
    if isinstance(x, Atom):
        return str(x)
    items = x.items
    if len(items) == 2 and _kw(items[1], "player", "team"):
        n = items[0]
        if isinstance(n, Atom) and n.kind == INT:
            return f"{'P' if items[1].value == 'player' else 'T'}{n.value}"
        return str(n) if items[1].value == "player" else f"{n} team"
    return expr(x)


def _place(x) -> str | None:
    """``(OWNER KIND NAME)`` / ``(HOLDER sto NAME)`` as ``NAME`` or ``NAME(owner)`` (``KIND 'V`` for a
    name held by a variable ``'V``); else None."""
    if not (isinstance(x, SList) and len(x.items) == 3 and _kw(x.items[1], *LOC_KINDS, *STORAGE_SORTS)):
        return None
    owner, name = x.items[0], expr(x.items[2])
    if not (isinstance(x.items[2], Atom) and x.items[2].kind == SYMBOL):
        # a place named by a variable or a computed name: ``vloc 'S``, not ``'S`` (the variable's value)
        name = f"{x.items[1].value} {name}"
    if _kw(owner, "game"):
        return name
    return f"{name}({who(owner)})"


def _paren(x, outer: str = "") -> str:
    """``x`` as text, in parentheses where a reader could otherwise group it wrongly."""
    text = expr(x)
    h, roles = _head(x), _roles(x)
    if "junction" in roles and h != outer:
        return f"({text})"
    if h in INFIX and outer in INFIX:
        return f"({text})"
    if "quantifier" in roles and outer:
        return f"({text})"  # "any X 'V: body" runs to the end of the line
    return text


def expr(x) -> str:
    """A RECYCLE expression (location, card, integer, boolean, collection) as short text."""
    if isinstance(x, Atom):
        return str(x)
    items = x.items
    if not items:
        return "()"
    place = _place(x)
    if place is not None:
        return place
    h = _head(x)
    args = items[1:]
    if len(items) == 2 and _kw(items[1], "player", "team"):
        return who(x)
    if h in INFIX and len(args) == 2:
        return f"{_paren(args[0], h)} {h} {_paren(args[1], h)}"
    text = _words(x, REGISTRY.words.get(h, ()))
    if text is not None:
        return text
    if isinstance(items[0], Atom) and items[0].kind == INT and len(args) == 1:
        return f"card {items[0].value} of {expr(args[0])}"
    if all(isinstance(i, Atom) for i in items) and any(i.kind == "comma" for i in items):
        return "(" + " ".join(str(i) for i in items).replace(" ,", ",") + ")"
    return "(" + " ".join(expr(i) for i in items) + ")"


def _each(coll, var) -> str:
    """``player 'P`` for the player/team collections, else ``'V in COLLECTION``."""
    if _kw(coll, "player", "team"):
        return f"{coll.value} {expr(var)}"
    return f"{expr(var)} in {expr(coll)}"


def deck_size(deck) -> int:
    """How many cards a ``(deck ATTR...)`` form makes (the product of its attribute counts)."""

    def attr(a) -> int:
        if not isinstance(a, SList) or len(a.items) < 2:
            return 1
        rest = a.items[1:]
        if len(rest) == 1 and isinstance(rest[0], SList) and all(isinstance(i, Atom) for i in rest[0].items):
            return sum(1 for i in rest[0].items if i.kind == SYMBOL)  # leaf: (NAME (V1, V2, ...))
        total = 0
        for value in rest:  # (NAME (V1 sub...) (V2 sub...))
            n = 1
            for sub in value.items[1:] if isinstance(value, SList) else ():
                n *= attr(sub)
            total += n
        return total

    n = 1
    for a in deck.items[1:]:
        n *= attr(a)
    return n


def _deck_keys(deck) -> list[str]:
    keys: list[str] = []

    def walk(a):
        if isinstance(a, SList) and a.items and isinstance(a.items[0], Atom):
            if a.items[0].value not in keys:
                keys.append(a.items[0].value)
            for value in a.items[1:]:
                if isinstance(value, SList):
                    for sub in value.items[1:]:
                        walk(sub)

    for a in deck.items[1:]:
        walk(a)
    return keys


def action_text(x) -> str:
    """One action as a line: ``move top STOCK → top HAND('P)``, ``PASS := 0``, ``pass``."""
    f = REGISTRY.lookup(Kind.ACTION, _head(x))
    text = _words(x, f.words) if f is not None else None
    return text if text is not None else expr(x)


# -- the flow as a tree ----------------------------------------------------------------------
def _line(x) -> int:
    return x.span.line if hasattr(x, "span") and x.span else 0


def _is_conditional(x) -> bool:
    return isinstance(x, SList) and len(x.items) == 2 and isinstance(x.items[0], SList)


def _body(x, in_choice: bool) -> list[TNode]:
    """The nodes of a body; a ``do`` here only groups, so its items come up a level."""
    if _role(x, Kind.FLOW) == "block" and len(x.items) == 2 and isinstance(x.items[1], SList):
        return [_item(i, in_choice) for i in x.items[1].items]
    return [_item(x, in_choice)]


SIMULTANEOUS = "simultaneous"  # the keyword of a simultaneous stage (not a form: no head)


def _all_choose(nodes: list) -> None:
    """The choices among ``nodes`` (a simultaneous stage's items) said to be every player's."""
    for n in nodes:
        if n.kind == "choice":
            n.text = "choice: every player picks one option, unseen by the others; all applied together"
        _all_choose(n.children)


def _item(x, in_choice: bool = False) -> TNode:
    role, line = _role(x, Kind.FLOW), _line(x)
    if role == "stage" and len(x.items) >= 4:
        # (stage player simultaneous (end C) ...): its choices are every player's at once
        together = isinstance(x.items[2], Atom) and x.items[2].value == SIMULTANEOUS and len(x.items) >= 5
        rest = x.items[3:] if together else x.items[2:]
        end = rest[0]
        cond = expr(end.items[1]) if isinstance(end, SList) and len(end.items) == 2 else expr(end)
        who_plays = expr(x.items[1])
        kids = [_item(i) for i in rest[1:]]
        if together:
            _all_choose(kids)
            return TNode("stage", f"stage: every player at once (simultaneous), until {cond}", kids, line)
        return TNode("stage", f"stage: each {who_plays} in turn, until {cond}", kids, line)
    if role == "choice" and len(x.items) == 2 and isinstance(x.items[1], SList):
        opts = []
        for k, o in enumerate(x.items[1].items, 1):
            kids = _body(o, True)
            if len(kids) == 1 and kids[0].kind == "action":
                opts.append(TNode("option", f"{k}. {kids[0].text}", [], _line(o)))
            else:
                opts.append(TNode("option", f"option {k}:", kids, _line(o)))
        return TNode("choice", "choice: the current player picks one option", opts, line)
    if role == "block" and len(x.items) == 2 and isinstance(x.items[1], SList):
        return TNode("do", "do, in order", [_item(i, in_choice) for i in x.items[1].items], line)
    if _is_conditional(x):
        return TNode("if", f"if {expr(x.items[0])}", _body(x.items[1], in_choice), line)
    if role in ("loop", "offer") and len(x.items) == 4:
        each = _each(x.items[1], x.items[2])
        text = f"one option per {each}" if role == "offer" and in_choice else f"for each {each}"
        return TNode("loop", text, _body(x.items[3], in_choice), line)
    if role == "binding" and len(x.items) == 4:
        return TNode("let", f"let {expr(x.items[2])} = {expr(x.items[1])}", _body(x.items[3], in_choice), line)
    if (
        _role(x, Kind.ACTION) == "repeat"
        and len(x.items) == 3
        and _role(x.items[2], Kind.FLOW) in ("loop", "offer", "block")
    ):
        return TNode("loop", f"repeat {expr(x.items[1])} times", _body(x.items[2], in_choice), line)
    return TNode("action", action_text(x), [], line)


def game_tree(source) -> TNode:
    """The structure tree of a parsed game (``SourceFile`` or its ``(game ...)`` form)."""
    form = source.forms[0] if hasattr(source, "forms") else source
    name = getattr(source, "filename", "game")
    root = TNode("game", f"game {name.rsplit('/', 1)[-1]}", [], _line(form))
    for x in form.items[1:]:
        h = _head(x)
        if h == "declare" and len(x.items) == 3:
            root.children.append(TNode("declare", f"declare {expr(x.items[2])} = {expr(x.items[1])}", [], _line(x)))
        elif h == "setup":
            kids = [TNode("action", action_text(i), [], _line(i)) for i in x.items[1:]]
            root.children.append(TNode("setup", "setup", kids, _line(x)))
        elif h == "scoring" and len(x.items) == 3:
            root.children.append(TNode("scoring", f"scoring: {expr(x.items[1])} {expr(x.items[2])} wins", [], _line(x)))
        else:
            root.children.append(_item(x))
    return root


def raw_tree(source) -> TNode:
    """The full s-expression tree: a node per list (labelled by its head) and per token."""

    def walk(x) -> TNode:
        if isinstance(x, Atom):
            return TNode("atom", str(x), [], _line(x))
        head = x.head
        return TNode("list", f"({head} …)" if head else "( … )", [walk(i) for i in x.items], _line(x))

    return walk(source.forms[0] if hasattr(source, "forms") else source)


# -- output ----------------------------------------------------------------------------------
def outline(tree: TNode) -> list[str]:
    """The tree as indented text lines (box-drawing branches)."""
    lines = [tree.text]

    def walk(node: TNode, prefix: str) -> None:
        for i, child in enumerate(node.children):
            last = i == len(node.children) - 1
            lines.append(f"{prefix}{'└─ ' if last else '├─ '}{child.text}")
            walk(child, prefix + ("   " if last else "│  "))

    walk(tree, "")
    return lines


# node look per kind: (shape, fill colour)
_LOOK = {
    "game": ("box", "#bdbdbd"),
    "declare": ("note", "#f0f0f0"),
    "setup": ("box", "#f0f0f0"),
    "scoring": ("box", "#f0f0f0"),
    "stage": ("box", "#c6dbef"),
    "choice": ("hexagon", "#fdd0a2"),
    "option": ("box", "#fff5eb"),
    "do": ("box", "#f7f7f7"),
    "if": ("box", "#ffffcc"),
    "loop": ("box", "#dadaeb"),
    "let": ("box", "#dadaeb"),
    "action": ("box", "white"),
    "list": ("box", "#f0f0f0"),
    "atom": ("plaintext", "white"),
}


# the legend of the diagram: (kind, words), one box per kind in that kind's look
LEGEND = (
    ("stage", "stage: players take turns until its end condition"),
    ("choice", "choice: the current player picks one option"),
    ("option", "an option of a choice"),
    ("if", "if: done only when the condition holds"),
    ("loop", "loop: for each, repeat, let"),
    ("do", "do: its actions in order"),
    ("action", "action: moves cards, sets values"),
    ("setup", "setup and scoring"),
    ("declare", "declaration"),
)
WRAP = 24  # characters per line in a box: long conditions wrap instead of widening the diagram
SCREEN = "19,10.5"  # inches: a larger diagram is scaled down to fit a 1920 × 1080 screen (96 dpi)


def _wrap(text: str, width: int = WRAP) -> str:
    # "\l" left-justifies each line in Graphviz; long conditions wrap instead of widening the tree
    lines = textwrap.wrap(text, width, break_long_words=False, subsequent_indent="  ") or [""]
    return "\\l".join(lines) + "\\l"


def _look(kind: str) -> dict:
    shape, fill = _LOOK.get(kind, ("box", "white"))
    style = "filled" if shape in ("hexagon", "note") else "rounded,filled"
    return {"shape": shape, "fillcolor": fill, "style": "" if kind == "atom" else style}


def tree_dot(tree: TNode, title: str = "", legend: bool = True) -> str:
    """The tree as Graphviz DOT: left to right, children top to bottom in their order.

    Boxes wrap their text at ``WRAP`` characters so that a deep game (Schwimmen: seven levels)
    stays about as wide as a screen, and a diagram larger than ``SCREEN`` is scaled down to it
    (the .svg and .pdf scale freely anyway). ``legend`` adds a framed legend (one box per kind, in its
    shape and colour) in the first column, beside the root.
    """
    import graphviz

    d = graphviz.Digraph(
        "structure",
        graph_attr={
            "rankdir": "LR",
            "ordering": "out",
            "fontname": "Helvetica",
            "label": title,
            "labelloc": "t",
            "nodesep": "0.12",
            "ranksep": "0.3",
            "size": SCREEN,
        },
        node_attr={
            "fontname": "Helvetica",
            "fontsize": "11",
            "style": "rounded,filled",
            "shape": "box",
            "margin": "0.08,0.04",
        },
        edge_attr={"arrowsize": "0.6", "color": "gray40"},
    )
    counter = [0]

    def walk(node: TNode) -> str:
        nid = f"n{counter[0]}"
        counter[0] += 1
        d.node(nid, _wrap(node.text), **_look(node.kind))
        for child in node.children:
            d.edge(nid, walk(child))
        return nid

    walk(tree)
    if legend and tree.kind != "list":
        with d.subgraph(name="cluster_legend") as c:
            c.attr(label="legend", labeljust="l", fontname="Helvetica", fontsize="11", style="rounded", color="gray60")
            for kind, words in LEGEND:
                c.node(f"legend_{kind}", _wrap(words), fontsize="10", **_look(kind))
    return d.source
