"""Serialized OpenSpiel states of RECYCLE games: ``state.serialize()`` and
``game.deserialize_state(text)``, pickle, and OpenSpiel's own ``serialize_game_and_state``.

``state.serialize()`` is plain text of three lines::

    recycle-openspiel-state 1
    game 3f9a...            (32 hex digits: the game's text, file name, work budget and env options)
    actions 17,201,4,96,0,2 (every action since the initial state: the deal bytes, then decisions)

``game.deserialize_state(text)`` reads only that: text from anywhere is checked (this format,
this game, a length no state of the game can exceed, each action legal where it is applied)
and replayed, and anything else is a ``ValueError`` that says what is wrong.

OpenSpiel's C++ side (``pyspiel.serialize_game_and_state``, ``random_sim_test(serialize=True)``,
``pickle`` of a state) saves a Python game's state as a pickle of its attributes, and loads it by
unpickling: the core of a state pickles as its game's record and the text above, replayed
when loaded (recycle/engine/serial.py says why replay). Unpickling runs code chosen by the
pickle's author, so those are for trusted data only (docs/security.md).
"""

from __future__ import annotations

import re

from ..engine.serial import game_digest, game_record, prepared_game, text_digest
from ..errors import RecycleError
from .spec import ActionSpaceExceeded

HEADER = "recycle-openspiel-state 1"
# ASCII digits only (``\d`` would take any script's digits, which ``int`` reads too), and no
# leading zero: one state has one text
_NUMBER = r"(?:0|[1-9][0-9]{0,8})"
_NUMBERS = re.compile(f"{_NUMBER}(?:,{_NUMBER})*")
_HEX = re.compile(r"[0-9a-f]{32}")

_SPECS: dict = {}


def _options_digest(game, reward: str, max_actions, max_steps: int) -> str:
    return text_digest(f"{game_digest(game)}\n{reward}\n{max_actions}\n{max_steps}")[:32]


def spec_digest(spec) -> str:
    """The digest a serialized state names its game by: the game and the spec's options."""
    given = spec.num_actions if spec.action_source == "given" else None
    return _options_digest(spec.game, spec.reward, given, spec.max_steps)


def remember_spec(spec) -> None:
    """Keep ``spec`` (a registered OpenSpiel game's) for the states loaded in this process."""
    _SPECS.setdefault(spec_digest(spec), spec)


def spec_record(spec) -> tuple:
    """What ``known_spec`` needs to find or make ``spec`` again (its game's record and options)."""
    given = spec.num_actions if spec.action_source == "given" else None
    return (game_record(spec.game), given, spec.reward, spec.max_steps)


def known_spec(record: tuple):
    """The spec of a ``spec_record``, and the game: (game, the spec this process registered
    for it, or None when it has none yet)."""
    game_rec, max_actions, reward, max_steps = record
    game = prepared_game(*game_rec)
    return game, _SPECS.get(_options_digest(game, reward, max_actions, max_steps))


def state_text(core) -> str:
    """The plain text of a state's core (see the module docstring)."""
    if core.resampled:
        raise ValueError(
            "a state dealt again by resample_from_infostate cannot be serialized: its actions do not lead to it"
        )
    actions = core.actions()
    listed = f" {','.join(map(str, actions))}" if actions else ""
    return f"{HEADER}\ngame {spec_digest(core.spec)}\nactions{listed}"


def max_text_length(spec, deal_bytes: int, outcomes: int) -> int:
    """The longest text a state of ``spec``'s game can serialize to (``deal_bytes`` chance
    nodes of ``outcomes`` outcomes, then its decisions)."""
    digits = len(str(max(spec.num_actions, outcomes)))
    return len(HEADER) + 60 + (deal_bytes + spec.max_steps) * (digits + 1)


def parse_state_text(spec, text, limit: int, digest: str | None = None) -> list[int]:
    """The actions of a serialized state of ``spec``'s game, a text of at most ``limit``
    characters (``max_text_length``); ValueError for any other text. ``digest``: the game's
    (``spec_digest`` by default; a chance-driven game has its own, ``rules.rules_digest``)."""
    if not isinstance(text, str):
        raise ValueError(f"a serialized RECYCLE state is a string, not {type(text).__name__}")
    if len(text) > limit:
        raise ValueError(
            f"a serialized state of {len(text)} characters: no state of {spec.game.name} is longer than {limit}"
        )
    lines = text.split("\n")
    if len(lines) != 3 or lines[0] != HEADER:
        raise ValueError(
            f"not a serialized RECYCLE state: expected 3 lines, {HEADER!r}, 'game DIGEST' and 'actions A,B,...'"
        )
    game, actions = lines[1], lines[2]
    if not game.startswith("game ") or not _HEX.fullmatch(game[5:]):
        raise ValueError("line 2 of a serialized RECYCLE state must be 'game' and 32 hex digits")
    mine = digest or spec_digest(spec)
    if game[5:] != mine:
        raise ValueError(
            f"the state was serialized for another game (digest {game[5:]}), not "
            f"{spec.game.name} with these options (digest {mine})"
        )
    if actions == "actions":
        return []
    if not actions.startswith("actions ") or not _NUMBERS.fullmatch(actions[8:]):
        raise ValueError("line 3 of a serialized RECYCLE state must be 'actions' and numbers separated by commas")
    return [int(a) for a in actions[8:].split(",")]


def check_action(core, action: int, k: int, outcomes: int) -> None:
    """ValueError unless ``action`` is legal in ``core`` (the ``k``-th action, from 1; a deal
    byte has ``outcomes`` values)."""
    if core.s is None:
        if action >= outcomes:
            raise ValueError(f"action {k} is deal byte {action}: a byte is 0 to {outcomes - 1}")
        return
    if core.truncated or core.s.is_terminal():
        raise ValueError(f"action {k}: the game is already over")
    n = core.spec.check(core.s)
    if action >= n:
        raise ValueError(f"action {k} is option {action} of a decision with {n} options")


def replay(apply, core, actions: list[int], outcomes: int) -> None:
    """Check each action in ``core`` (``check_action``) and play it with ``apply``; a rule of
    the game broken on the way is a ValueError too."""
    for k, a in enumerate(actions, 1):
        check_action(core, a, k, outcomes)
        try:
            apply(a)
        except (RecycleError, ActionSpaceExceeded) as exc:
            raise ValueError(f"action {k} cannot be replayed: {exc}") from None
