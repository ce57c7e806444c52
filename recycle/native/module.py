"""A game's native module: its flow and scoring written by ``Writer`` with every form's native
writer registered (``forms_flow``, ``forms_actions``, ``forms_exprs``)."""

from __future__ import annotations

from ..lang.forms.shapes import head_of
from ..lang.syntax.reader import SList
from . import forms_actions, forms_blocks, forms_exprs, forms_flow, forms_options  # noqa: F401 - they register the writers
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


def write(game, search: bool = False) -> str:
    """The native module's source for a prepared game, or NativeUnsupported; ``search``: a
    search module (its choices key their options, its entry runs look-ahead searches)."""
    reg.seal()
    items, scoring = flow_items(game)
    w = Writer(game, items, scoring, search)
    w.items = [forms_options.unroll_alls_of_names(x, w.consts) for x in items]
    src = w.write_module()
    if len(src) > MAX_SOURCE:
        raise NativeUnsupported(f"a native module of {len(src):,} characters (at most {MAX_SOURCE:,})")
    return src


