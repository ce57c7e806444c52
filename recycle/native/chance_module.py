"""A game's native *chance module*: its native module with chance as the rules draw it
(recycle/native/runtime_chance.py), for the OpenSpiel game's default chance
(recycle/env/native_rules.py).

``chance_source`` writes it from the game's native module: its shuffles draw nothing, its moves
off the top of a location draw the undrawn cards they move, its ties of ``max``/``min`` are
chance nodes. It is written only for a game where that gives exactly the reference's chance
nodes (recycle/env/chance.py); ``NativeUnsupported`` says why not for any other:

* every shuffled location is named in the text (no computed name, no family member), and no
  player may see it (the reference draws a seen location's whole order at its shuffle);
* a shuffled location is only shuffled, moved onto, counted (``size``) and moved from by its
  top onto the top of a location (one card, or ``repeat``/``repeat all``): no rule reads its
  cards, so the order of its undrawn cards never matters (the reference checks a step that
  might read it by playing the step again in another order: here nothing can);
* no other draw is left in the module (a ``random``, a draw in a search).
"""

from __future__ import annotations

import re

from ..lang.nodes import actions as a
from ..lang.nodes.base import GameOwner, Loc, Word
from ..lang.nodes.numbers import Size
from ..lang.nodes.places import Top
from .purity import children
from .registry import NativeUnsupported
from .runtime_chance import PICK_LOG

_CALLS = (
    (re.compile(r"\bshuffle\(locs, lens, ver, ctr, keys, "), "chance_shuffle(locs, lens, ver, ctr, CHANCE_AT, "),
    (
        re.compile(r"\bmove_top\(locs, lens, ver, card_loc, ctr, "),
        "chance_move_top(locs, lens, ver, card_loc, ctr, CHANCE_AT, ",
    ),
    (
        re.compile(r"\bmove_all\(locs, lens, ver, card_loc, ctr, "),
        "chance_move_all(locs, lens, ver, card_loc, ctr, CHANCE_AT, ",
    ),
    (re.compile(r"\bbest_card\(ctr, keys, "), "chance_best_card(ctr, CHANCE_AT, CHANCE_PICKS, "),
)
_DRY = re.compile(r"^( *)(dry_state\(.*, dry\[[^]]*\], (True|False)\))$", re.M)
_DRAWS = re.compile(r"\b(draw|pick|shuffle)\(ctr, keys, 0\b|\bdraw\(")
COUNTERS = 4  # the chance state's counters before the marks (runtime_chance.py)


def chance_source(game, source: str) -> str:
    """The chance module's source from the game's native module ``source`` (see the module's
    docstring), or NativeUnsupported."""
    check_chance_game(game)
    out = source
    for pattern, repl in _CALLS:
        out = pattern.sub(repl, out)
    # a dry run of a listing moves without drawing (runtime_chance.chance_dry)
    out = _DRY.sub(
        lambda m: f"{m.group(1)}chance_dry(ctr, CHANCE_AT, {'-1' if m.group(3) == 'True' else '1'})\n{m.group(0)}", out
    )
    body = out.split("\n# locations:", 1)[-1]
    if _DRAWS.search(body):
        raise NativeUnsupported("a draw other than a shuffle or a tie, with chance as the rules draw it")
    from .runtime import NCOUNTERS

    at = NCOUNTERS + game.nplayers
    head = (
        "from recycle.native.runtime_chance import *  # noqa: F401,F403 - chance as the rules draw it\n"
        f"CHANCE_AT = {at}  # the chance state in the counters' tail (runtime_chance.py)\n"
        f"CHANCE_PICKS = {at + COUNTERS + 2 * len(game.card_attrs)}  # the draws remembered (chance_pick)\n"
    )
    marker = "\nNPLAYERS = "
    if marker not in out:
        raise NativeUnsupported("a native module without its constants")
    return out.replace(marker, "\n" + head + marker[1:], 1)


def check_chance_game(game) -> None:
    """NativeUnsupported unless the chance module gives the reference's chance nodes exactly."""
    from ..lang.nodes import elaborate

    root = getattr(game, "nodes", None) or elaborate(game.source)
    shuffled = set()
    for node in _walk(root):
        if isinstance(node, a.Faro):
            raise NativeUnsupported("a faro shuffle")
        if isinstance(node, a.Shuffle):
            loc = node.location
            if not isinstance(loc, Loc) or not isinstance(loc.name, Word):
                raise NativeUnsupported("a shuffle of a location not named in the text", node)
            shuffled.add(_key(loc))
    if not shuffled:
        return
    team_of = game.state_after_setup().team_of
    from ..lang.forms.visibility import may_see

    for info in game.layout.infos:
        if ((info.owner_kind == "game"), info.kind, info.name) in shuffled and any(
            may_see(info, p, team_of) for p in range(game.nplayers)
        ):
            raise NativeUnsupported(f"a shuffle of {info.label}, which a player may see")
    _guard(root, shuffled, False)


def _walk(node):
    yield node
    for c in children(node):
        yield from _walk(c)


def _guard(node, shuffled: set, allowed: bool) -> None:
    """Decline any use of a shuffled location but the allowed ones (the module's docstring)."""
    if isinstance(node, Loc):
        if not isinstance(node.name, Word):
            raise NativeUnsupported("a location named by a computed name or a family, with a shuffle", node)
        if _key(node) in shuffled and not allowed:
            raise NativeUnsupported(f"a rule reading the shuffled location {node.name.value}", node)
        _guard(node.owner, shuffled, False)
        return
    ok: set = set()
    if isinstance(node, a.Shuffle):
        ok = {id(node.location)}
    elif isinstance(node, a.Move):
        card, to = node.card, node.to
        if isinstance(card, Top) and isinstance(card.location, Loc):
            if _named(card.location, shuffled) and getattr(to, "where", None) != "top":
                raise NativeUnsupported("a card moved from a shuffled location other than onto a top", node)
            ok.add(id(card))
        ok.add(id(getattr(to, "location", None)))
    elif isinstance(node, Top) and allowed:
        ok = {id(node.location)}
    elif isinstance(node, a.Place):
        ok = {id(node.location)}
    elif isinstance(node, Size):
        ok = {id(node.collection)}
    elif isinstance(node, a.Deck):  # (its new cards are not undrawn: no shuffle made them)
        ok = {id(node.location)}
    elif isinstance(node, a.RepeatAll):
        ok = {id(node.location)}
    for c in children(node):
        _guard(c, shuffled, id(c) in ok)


def _named(loc, shuffled: set) -> bool:
    return isinstance(loc.name, Word) and _key(loc) in shuffled


def _key(loc) -> tuple:
    """A location named in the text: (the game's?, its kind, its name)."""
    return isinstance(loc.owner, GameOwner), loc.kind, loc.name.value


def chance_native_game(game):
    """The game's chance module (a ``NativeGame`` made once per prepared game), or raises
    NativeUnsupported / NativeUnavailable."""
    got = getattr(game, "_native_chance", None)
    if got is not None:
        if isinstance(got, Exception):
            raise got
        return got
    from . import NativeUnavailable, available, native_source
    from .engine import NativeGame

    if not available():
        raise NativeUnavailable("the native engine is not available here")
    try:
        ng = NativeGame(game, chance_source(game, native_source(game)))
    except NativeUnsupported as exc:
        game._native_chance = exc
        raise
    # (new_arrays: the counters' tail holds the chance state)
    ng.NCOUNTERS += COUNTERS + 2 * ng.ncards + 2 * PICK_LOG
    game._native_chance = ng
    return ng
