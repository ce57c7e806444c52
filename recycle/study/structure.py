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

from ..lang.flow import REGISTRY
from ..lang.shapes import STORAGE_SORTS
from ..lang.syntax import INT, SYMBOL, Atom, SList
from ..lang.values import KINDS as LOC_KINDS

INFIX = REGISTRY.operators  # the forms written between their operands: a + b, a == b
# the forms this module puts in words of its own (checked against the form registry)
REGISTRY.require(__name__, (
    "and", "or", "not", "any", "all", "filter", "top", "bottom", "size", "actual", "subsets", "sum", "max", "min",
    "sort", "score", "cardatt", "partition", "union", "intersect", "disjunction", "range", "other", "team", "owner",
    "move", "swap", "remember", "forget", "shuffle", "set", "inc", "dec", "cycle", "turn", "create", "repeat",
    "stage", "choice", "do", "let"))


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
    if _head(x) == "team" and len(items) == 2:
        return f"team of {who(items[1])}"
    if _head(x) == "owner" and len(items) == 2:
        return f"owner of {expr(items[1])}"
    return expr(x)


def _place(x) -> str | None:
    """``(OWNER KIND NAME)`` / ``(HOLDER sto NAME)`` as ``NAME`` or ``NAME(owner)``; else None."""
    if not (isinstance(x, SList) and len(x.items) == 3 and _kw(x.items[1], *LOC_KINDS, *STORAGE_SORTS)):
        return None
    owner, name = x.items[0], expr(x.items[2])
    if _kw(owner, "game"):
        return name
    return f"{name}({who(owner)})"


def _paren(x, outer: str = "") -> str:
    """``x`` as text, in parentheses where a reader could otherwise group it wrongly."""
    text = expr(x)
    h = _head(x)
    if h in ("and", "or") and h != outer:
        return f"({text})"
    if h in INFIX and outer in INFIX:
        return f"({text})"
    if h in ("any", "all") and outer:
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
    if len(items) == 2 and _kw(items[1], "player", "team") or h in ("team", "owner"):
        return who(x)
    if h in INFIX and len(args) == 2:
        return f"{_paren(args[0], h)} {h} {_paren(args[1], h)}"
    if h in ("and", "or"):
        return f" {h} ".join(_paren(a, h) for a in args)
    if h == "not" and len(args) == 1:
        return f"not {_paren(args[0], 'not')}"
    if h in ("any", "all") and len(args) == 3:
        return f"{h} {_each(args[0], args[1])}: {expr(args[2])}"
    if h == "filter" and len(args) == 3:
        # always bracketed: "where ..." would otherwise swallow what follows it
        return f"({expr(args[0])} where {expr(args[1])}: {expr(args[2])})"
    if h in ("top", "bottom") and len(args) == 1:
        return f"{h} {expr(args[0])}"
    if h in ("top", "bottom") and len(args) == 2:
        return f"{h} {expr(args[0])} of {expr(args[1])}"
    if isinstance(items[0], Atom) and items[0].kind == INT and len(args) == 1:
        return f"card {items[0].value} of {expr(args[0])}"
    if h in ("size", "actual", "subsets") and len(args) == 1:
        return f"{h} {expr(args[0])}"
    if h in ("sum", "max", "min", "sort", "score") and len(args) == 3 and _kw(args[1], "using"):
        return f"{h} {expr(args[0])} using {expr(args[2])}"
    if h == "cardatt" and len(args) == 2:
        return f"{expr(args[0])} of {expr(args[1])}"
    if h == "partition" and len(args) >= 2:
        return f"partition by {expr(args[0])} of {', '.join(expr(a) for a in args[1:])}"
    if h in ("union", "intersect", "disjunction"):
        return f"{h}({', '.join(expr(a) for a in args)})"
    if h == "range" and len(args) == 3:
        return f"{expr(args[0])}..{expr(args[2])}"
    if h == "other" and len(args) == 1:
        return f"other {expr(args[0])}s"
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
    h, args = _head(x), x.items[1:] if isinstance(x, SList) else ()
    if h == "move" and len(args) == 2:
        return f"move {expr(args[0])} → {expr(args[1])}"
    if h == "swap" and len(args) == 2:
        return f"swap {expr(args[0])} ↔ {expr(args[1])}"
    if h == "remember" and len(args) == 2:
        return f"remember {expr(args[0])} in {expr(args[1])}"
    if h == "forget" and len(args) == 1:
        return f"forget {expr(args[0])}"
    if h == "shuffle":
        return "shuffle " + " ".join(expr(a) for a in args)
    if h == "set" and len(args) == 2:
        if isinstance(args[0], SList) and len(args[0].items) == 3 and _kw(args[0].items[1], "points"):
            n = len(args[1].items) if isinstance(args[1], SList) else 0
            return f"{expr(args[0])} := point map ({n} awards)"
        return f"{expr(args[0])} := {expr(args[1])}"
    if h in ("inc", "dec") and args:
        amount = expr(args[1]) if len(args) > 1 else "1"
        return f"{expr(args[0])} {'+' if h == 'inc' else '-'}= {amount}"
    if h == "cycle" and len(args) == 2:
        return f"{expr(args[0])} player := {who(args[1])}"
    if h == "turn":
        return "pass"
    if h == "create" and args and _kw(args[0], "deck"):
        rest = list(args[1:])
        name = f" {rest.pop(0).value}" if rest and isinstance(rest[0], Atom) else ""
        if len(rest) == 2 and _head(rest[1]) == "deck":
            keys = ", ".join(_deck_keys(rest[1]))
            return f"create{name} deck of {deck_size(rest[1])} cards ({keys}) in {expr(rest[0])}"
    if h == "create" and args and _kw(args[0], "teams"):
        return "create teams " + " ".join(expr(a) for a in args[1:])
    if h == "create" and len(args) == 2 and _kw(args[0], "players"):
        return f"create {expr(args[1])} players"
    if h == "repeat" and len(args) == 2:
        return f"repeat {expr(args[0])}: {action_text(args[1])}"
    return expr(x)


# -- the flow as a tree ----------------------------------------------------------------------
def _line(x) -> int:
    return x.span.line if hasattr(x, "span") and x.span else 0


def _is_conditional(x) -> bool:
    return isinstance(x, SList) and len(x.items) == 2 and isinstance(x.items[0], SList)


def _body(x, in_choice: bool) -> list[TNode]:
    """The nodes of a body; a ``do`` here only groups, so its items come up a level."""
    if _head(x) == "do" and len(x.items) == 2 and isinstance(x.items[1], SList):
        return [_item(i, in_choice) for i in x.items[1].items]
    return [_item(x, in_choice)]


def _item(x, in_choice: bool = False) -> TNode:
    h, line = _head(x), _line(x)
    if h == "stage" and len(x.items) >= 4:
        end = x.items[2]
        cond = expr(end.items[1]) if isinstance(end, SList) and len(end.items) == 2 else expr(end)
        who_plays = expr(x.items[1])
        kids = [_item(i) for i in x.items[3:]]
        return TNode("stage", f"stage: each {who_plays} in turn, until {cond}", kids, line)
    if h == "choice" and len(x.items) == 2 and isinstance(x.items[1], SList):
        opts = []
        for k, o in enumerate(x.items[1].items, 1):
            kids = _body(o, True)
            if len(kids) == 1 and kids[0].kind == "action":
                opts.append(TNode("option", f"{k}. {kids[0].text}", [], _line(o)))
            else:
                opts.append(TNode("option", f"option {k}:", kids, _line(o)))
        return TNode("choice", "choice: the current player picks one option", opts, line)
    if h == "do" and len(x.items) == 2 and isinstance(x.items[1], SList):
        return TNode("do", "do, in order", [_item(i, in_choice) for i in x.items[1].items], line)
    if _is_conditional(x):
        return TNode("if", f"if {expr(x.items[0])}", _body(x.items[1], in_choice), line)
    if h in ("any", "all") and len(x.items) == 4:
        each = _each(x.items[1], x.items[2])
        text = f"one option per {each}" if h == "any" and in_choice else f"for each {each}"
        return TNode("loop", text, _body(x.items[3], in_choice), line)
    if h == "let" and len(x.items) == 4:
        return TNode("let", f"let {expr(x.items[2])} = {expr(x.items[1])}", _body(x.items[3], in_choice), line)
    if h == "repeat" and len(x.items) == 3 and _head(x.items[2]) in ("any", "all", "do"):
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
            root.children.append(TNode("scoring", f"scoring: {expr(x.items[1])} {expr(x.items[2])} wins",
                                       [], _line(x)))
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
    "game": ("box", "#bdbdbd"), "declare": ("note", "#f0f0f0"), "setup": ("box", "#f0f0f0"),
    "scoring": ("box", "#f0f0f0"), "stage": ("box", "#c6dbef"), "choice": ("hexagon", "#fdd0a2"),
    "option": ("box", "#fff5eb"), "do": ("box", "#f7f7f7"), "if": ("box", "#ffffcc"),
    "loop": ("box", "#dadaeb"), "let": ("box", "#dadaeb"), "action": ("box", "white"),
    "list": ("box", "#f0f0f0"), "atom": ("plaintext", "white"),
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

    d = graphviz.Digraph("structure", graph_attr={"rankdir": "LR", "ordering": "out", "fontname": "Helvetica",
                                                   "label": title, "labelloc": "t", "nodesep": "0.12",
                                                   "ranksep": "0.3", "size": SCREEN},
                         node_attr={"fontname": "Helvetica", "fontsize": "11", "style": "rounded,filled",
                                    "shape": "box", "margin": "0.08,0.04"},
                         edge_attr={"arrowsize": "0.6", "color": "gray40"})
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
            c.attr(label="legend", labeljust="l", fontname="Helvetica", fontsize="11", style="rounded",
                   color="gray60")
            for kind, words in LEGEND:
                c.node(f"legend_{kind}", _wrap(words), fontsize="10", **_look(kind))
    return d.source
