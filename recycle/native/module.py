"""A game's native module: its flow and scoring written by ``Writer`` with every form's native
writer registered (``forms_flow``, ``forms_actions``, ``forms_exprs``), after the (all NAMES ...)
of options are written out name by name (``unroll_alls_of_names``)."""

from __future__ import annotations

from ..lang.forms.shapes import Const, head_of, is_atom, literal_names
from ..lang.syntax.reader import SYMBOL, VAR, Atom, SList
from . import forms_actions, forms_blocks, forms_exprs, forms_flow, forms_indexed, forms_options  # noqa: F401 - they register the writers
from .forms_options import do_parts, is_static
from . import registry as reg
from .registry import NativeUnsupported
from .writer import MAX_SOURCE, Writer


def flow_items(game) -> tuple[list, SList]:
    """The game's flow (the forms between setup and scoring) and its scoring form."""
    top = game.source.forms[0]
    items = list(top.items[1:])
    while items and head_of(items[0]) == "declare":
        items.pop(0)
    items.pop(0)  # setup
    scoring = items.pop()
    return items, scoring


BINDERS = ("any", "all", "filter", "let")
MAX_UNROLLED = 16  # names an (all ...) of options is written out for


def unroll_alls_of_names(node, consts: dict, in_choice: bool = False, named: dict | None = None):
    """``node`` with every (all NAMES 'X ITEM) of a choice whose ITEM offers options written
    as the block (do (ITEM ...)) of ITEM for each name in turn, 'X replaced by the name (a
    block ITEM's own items spliced in). The Python engine composes the items' options alike,
    one name after another (recycle/lang/forms/flow.py, c_each), and a block's options are written
    natively (forms_blocks.py). NAMES is a literal list of names or a declared one; at most
    MAX_UNROLLED of them. ``named``: filled with id(part) -> ('X, name) for each part written
    (Python's option keys hold the name 'X is bound to: forms_options.key_step)."""
    if not isinstance(node, SList):
        return node
    h = head_of(node)
    inside = in_choice or h == "choice"
    items = tuple(unroll_alls_of_names(i, consts, inside, named) for i in node.items)
    if inside and h == "all" and len(items) == 4 and is_atom(items[2], VAR) and not is_static(items[3]):
        names = literal_names(items[1])
        held = consts.get(items[1].value) if is_atom(items[1], VAR) else None
        if (
            names is None
            and isinstance(held, Const)
            and isinstance(held.value, list)
            and all(isinstance(v, str) for v in held.value)
        ):
            names = held.value
        var = items[2].value
        if names and len(names) <= MAX_UNROLLED and not _rebinds(items[3], var):
            body = items[3]
            # a block's items join the block (compose runs a block's items in turn alike)
            inner = (
                do_parts(body)
                if head_of(body) == "do" and len(body.items) == 2 and isinstance(body.items[1], SList)
                else [body]
            )
            parts = tuple((name, _named(p, var, name)) for name in names for p in inner)
            if named is not None:
                named.update((id(part), (var, name)) for name, part in parts)
            parts = tuple(part for _, part in parts)
            return SList((Atom(SYMBOL, "do", items[0].span), SList(parts, node.span)), node.span)
    return SList(items, node.span)


def _rebinds(node, var: str) -> bool:
    if not isinstance(node, SList):
        return False
    if head_of(node) in BINDERS and len(node.items) == 4 and is_atom(node.items[2], VAR, var):
        return True
    return any(_rebinds(i, var) for i in node.items)


def _named(node, var: str, name: str):
    """``node`` with the variable ``var`` replaced by the NAME ``name``."""
    if is_atom(node, VAR, var):
        return Atom(SYMBOL, name, node.span)
    if isinstance(node, SList):
        return SList(tuple(_named(i, var, name) for i in node.items), node.span)
    return node


def write(game, search: bool = False) -> str:
    """The native module's source for a prepared game, or NativeUnsupported; ``search``: a
    search module (its choices key their options, its entry runs look-ahead searches)."""
    reg.seal()
    items, scoring = flow_items(game)
    w = Writer(game, items, scoring, search)
    w.items = [unroll_alls_of_names(x, w.consts, named=w.named_parts) for x in items]
    src = w.write_module()
    if len(src) > MAX_SOURCE:
        raise NativeUnsupported(f"a native module of {len(src):,} characters (at most {MAX_SOURCE:,})")
    return src
