"""A game's native module: its flow and scoring written by ``Writer`` from the game's nodes
(``recycle/lang/nodes``: the game read once by the elaborator) with every form's native writer
registered (``forms_exprs`` ..., and each form module of ``lang/forms``), after the
(all NAMES 'X ITEM) of options are written out name by name (``unroll_alls_of_names``)."""

from __future__ import annotations

from dataclasses import fields, replace

from ..errors import RecycleError
from ..lang.nodes import elaborate
from ..lang.nodes.base import Const as ConstNode, Names, Node, Var, Word
from ..lang.nodes.flow import Choice, Do, Loop
from . import forms_blocks, forms_exprs, forms_options  # noqa: F401 - they register the writers
from .forms_options import is_static
from . import registry as reg
from .purity import binder_parts, walk
from .registry import NativeUnsupported
from .writer import MAX_SOURCE, Writer, is_constant

MAX_UNROLLED = 16  # names an (all ...) of options is written out for


def unroll_alls_of_names(
    node, consts: dict, in_choice: bool = False, named: dict | None = None, renamed: dict | None = None
):
    """``node`` with every (all NAMES 'X ITEM) of a choice whose ITEM offers options written
    as the block (do (ITEM ...)) of ITEM for each name in turn, 'X replaced by the name (a
    block ITEM's own items spliced in). The Python engine composes the items' options alike,
    one name after another (recycle/lang/forms/form_loops.py, c_each), and a block's options are written
    natively (forms_blocks.py). NAMES is a literal list of names or a declared one; at most
    MAX_UNROLLED of them. ``named``: filled with id(part) -> ('X, name) for each part written
    (Python's option keys hold the name 'X is bound to: forms_options.key_step); ``renamed``:
    id(node) -> (('X, name), ...) for each node written with a name for a variable (its comment)."""
    if not isinstance(node, Node):
        return node
    inside = in_choice or isinstance(node, Choice)
    node = _mapped(node, lambda child: unroll_alls_of_names(child, consts, inside, named, renamed))
    if inside and isinstance(node, Loop) and not is_static(node.item):
        names = None
        if isinstance(node.collection, Names):
            names = list(node.collection.values)
        held = consts.get(node.collection.name) if isinstance(node.collection, (Var, ConstNode)) else None
        if (
            names is None
            and is_constant(held)
            and isinstance(held.value, list)
            and all(isinstance(v, str) for v in held.value)
        ):
            names = held.value
        var = node.variable.name
        if names and len(names) <= MAX_UNROLLED and not _rebinds(node.item, var):
            body = node.item
            # a block's items join the block (compose runs a block's items in turn alike)
            inner = list(body.body) if isinstance(body, Do) else [body]
            parts = tuple((name, _named(p, node.variable, name, renamed)) for name in names for p in inner)
            if named is not None:
                named.update((id(part), (var, name)) for name, part in parts)
            return Do(tuple(part for _, part in parts), span=node.span)
    return node


def _mapped(node, f):
    """``node`` with ``f`` applied to each node directly inside it (itself when none changes)."""
    changes = {}
    for fld in fields(node):
        if fld.name in ("span", "source"):
            continue
        value = getattr(node, fld.name)
        new = _map_value(value, f)
        if new is not value:
            changes[fld.name] = new
    return replace(node, **changes) if changes else node


def _map_value(value, f):
    if isinstance(value, Node):
        return f(value)
    if isinstance(value, tuple):
        new = tuple(_map_value(v, f) for v in value)
        return value if all(a is b for a, b in zip(new, value)) else new
    return value


def _rebinds(node, var: str) -> bool:
    return any((parts := binder_parts(n)) is not None and parts[1] == var for n in walk(node))


def _named(node, binding, name: str, renamed: dict | None = None):
    """``node`` with the variable of ``binding`` replaced by the NAME ``name``."""
    if isinstance(node, Var) and node.binding == binding:
        return Word(name, span=node.span)
    new = _mapped(node, lambda child: _named(child, binding, name, renamed))
    if new is not node and renamed is not None:
        renamed[id(new)] = renamed.get(id(node), ()) + ((binding.name, name),)
    return new


def write(game, search: bool = False) -> str:
    """The native module's source for a prepared game, or NativeUnsupported; ``search``: a
    search module (its choices key their options, its entry runs look-ahead searches)."""
    reg.seal()
    try:
        # the prepared game's own reading (engine/game.py); elaborated here for a game made otherwise
        gnode = getattr(game, "nodes", None) or elaborate(game.source)
    except RecycleError as exc:  # (a game the compiler took: the elaborator should too)
        raise NativeUnsupported(f"a game the elaborator refuses ({exc})") from exc
    w = Writer(game, gnode, search)
    w.items = [unroll_alls_of_names(x, w.consts, named=w.named_parts, renamed=w.renamed) for x in w.items]
    src = w.write_module()
    if len(src) > MAX_SOURCE:
        raise NativeUnsupported(f"a native module of {len(src):,} characters (at most {MAX_SOURCE:,})")
    return src
