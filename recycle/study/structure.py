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

from ..lang.forms.wording import action_text, expr
from ..lang.nodes import GameNode, elaborate
from ..lang.nodes.actions import Repeat
from ..lang.nodes.base import Everyone
from ..lang.nodes.flow import Choice, Do, Let, Loop, Offer, Stage, When
from ..lang.syntax.outline import written_tree

__all__ = ["TNode", "action_text", "expr", "game_tree", "outline", "raw_tree", "tree_dot"]
# Every form is written by the facts registered with it (recycle/lang/forms/registry.py: its
# ``words``, filled by lang/forms/wording.py); the tree's shape is read from the game's nodes.


@dataclass
class TNode:
    """One box of the structure diagram: its kind (stage, choice, action, ...), text, children."""

    kind: str
    text: str
    children: list = field(default_factory=list)
    line: int = 0


# -- the flow as a tree ----------------------------------------------------------------------
def _line(x) -> int:
    return x.span.line if getattr(x, "span", None) else 0


def _each(collection, variable) -> str:
    """``player 'P`` for the player/team collections, else ``'V in COLLECTION``."""
    if isinstance(collection, Everyone):
        return f"{collection.what} '{variable.name}"
    return f"'{variable.name} in {expr(collection)}"


def _body(x, in_choice: bool) -> list[TNode]:
    """The nodes of a body; a ``do`` here only groups, so its items come up a level."""
    if isinstance(x, Do):
        return [_item(i, in_choice) for i in x.body]
    return [_item(x, in_choice)]


def _all_choose(nodes: list) -> None:
    """The choices among ``nodes`` (a simultaneous stage's items) said to be every player's."""
    for n in nodes:
        if n.kind == "choice":
            n.text = "choice: every player picks one option, unseen by the others; all applied together"
        _all_choose(n.children)


def _item(x, in_choice: bool = False) -> TNode:
    line = _line(x)
    match x:
        case Stage(team=team, end=end, body=body, simultaneous=together):
            kids = [_item(i) for i in body]
            if together:  # (stage player simultaneous (end C) ...): its choices are every player's at once
                _all_choose(kids)
                return TNode("stage", f"stage: every player at once (simultaneous), until {expr(end)}", kids, line)
            who_plays = "team" if team else "player"
            return TNode("stage", f"stage: each {who_plays} in turn, until {expr(end)}", kids, line)
        case Choice(options=options):
            opts = []
            for k, o in enumerate(options, 1):
                kids = _body(o, True)
                if len(kids) == 1 and kids[0].kind == "action":
                    opts.append(TNode("option", f"{k}. {kids[0].text}", [], _line(o)))
                else:
                    opts.append(TNode("option", f"option {k}:", kids, _line(o)))
            return TNode("choice", "choice: the current player picks one option", opts, line)
        case Do(body=body):
            return TNode("do", "do, in order", [_item(i, in_choice) for i in body], line)
        case When(condition=condition, item=item):
            return TNode("if", f"if {expr(condition)}", _body(item, in_choice), line)
        case Loop(collection=coll, variable=var, item=item) | Offer(collection=coll, variable=var, item=item):
            each = _each(coll, var)
            text = f"one option per {each}" if isinstance(x, Offer) and in_choice else f"for each {each}"
            return TNode("loop", text, _body(item, in_choice), line)
        case Let(value=value, variable=var, item=item):
            return TNode("let", f"let '{var.name} = {expr(value)}", _body(item, in_choice), line)
        case Repeat(times=times, body=Loop() | Offer() | Do() as body):
            return TNode("loop", f"repeat {expr(times)} times", _body(body, in_choice), line)
    return TNode("action", action_text(x), [], line)


def game_tree(game) -> TNode:
    """The structure tree of a game: a prepared game (``recycle.load``), its nodes, or a
    parsed file (read into nodes here)."""
    nodes = game if isinstance(game, GameNode) else getattr(game, "nodes", None)
    if nodes is None:
        nodes = elaborate(game)
    source = getattr(game, "source", game)
    name = getattr(source, "filename", "game")
    root = TNode("game", f"game {name.rsplit('/', 1)[-1]}", [], _line(nodes))
    for d in nodes.declares:
        value = d.literal if d.literal is not None else d.value
        root.children.append(TNode("declare", f"declare '{d.name} = {expr(value)}", [], _line(d)))
    # (create players N) is read into the number of players: written as its words say
    create = TNode("action", f"create {expr(nodes.players)} players", [], nodes.players_at.line)
    kids = [create] + [TNode("action", action_text(i), [], _line(i)) for i in nodes.setup]
    root.children.append(TNode("setup", "setup", kids, nodes.setup_at.line))
    root.children.extend(_item(x) for x in nodes.flow)
    best = "max" if nodes.scoring_max else "min"
    root.children.append(TNode("scoring", f"scoring: {best} {expr(nodes.score)} wins", [], nodes.scoring_at.line))
    return root


def raw_tree(source) -> TNode:
    """The full s-expression tree: a node per list (labelled by its head) and per token."""

    def grow(branch) -> TNode:
        kind, text, line, children = branch
        return TNode(kind, text, [grow(c) for c in children], line)

    return grow(written_tree(source.forms[0] if hasattr(source, "forms") else source))


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
