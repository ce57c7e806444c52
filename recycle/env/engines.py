"""Which engine steps an environment's states: native code when the game builds, else the
reference interpreter (the same deals, options, observations and returns either way).

``env_state`` deals a game for an environment (recycle/env/spiel.py, petting.py): an
``OutsideState`` (recycle/native/outside.py) with ``engine="auto"`` when native code steps the
game here, the reference ``State`` otherwise or with ``engine="reference"``; ``"native"`` raises
why it cannot. The choice is recycle/native/choose.py's (``start_state``), not this module's.
The OpenSpiel core logs each decision and the events of its state in one list (``decide``,
``log_of``, ``tracked_copy``): a native state logs them when its reference twin
plays them, which ``synced`` brings about before the list is read.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine.knowledge import KnowledgeSink
from ..native.outside import OutsideState
from ..native.choose import ENGINES, check_engine, native_here, start_state

__all__ = ["ENGINES", "check_engine", "decide", "env_state", "is_native", "reference_of", "synced", "table_state"]


def env_state(game, seed: int, max_steps: int, engine: str = "auto", record=None, track: bool = False):
    """The game dealt with ``seed`` and run to its first decision, stepped from outside:
    natively (``OutsideState``) or by the reference interpreter, as recycle/native/choose.py
    decides (see the module's docstring). ``record``: a list receiving the events and, before
    each decision's, an ``("d", player, option)`` entry (``decide``); ``track``: what each
    player observed."""
    return start_state(game, seed, max_steps, engine, record, track, record is not None)


def table_state(
    game, seed: int, max_steps: int, engine: str = "auto", record=None, track: bool = False, search: bool = False
):
    """The game dealt with ``seed`` for a table where people play (``recycle play``, the
    studio's table): as ``env_state``, but ``record`` receives the events only, as the reference
    ``game.new_state``'s does. A native state's twin logs them: ``synced`` before reading it
    (the options, asked at every decision, bring it up to date). ``search``: a seat or the hints
    search (ISMCTS): stepped by the game's search module, from whose blocks each search runs
    whole in machine code (recycle/native/blind_search.py)."""
    return start_state(game, seed, max_steps, engine, record, track, False, search=search)


def is_native(s) -> bool:
    """Is ``s`` a state native code steps (an ``OutsideState``, in any engine by now)?"""
    return type(s) is OutsideState


@dataclass(frozen=True)
class PlayedBy:
    """Which engine steps a table's state (``played_by``): ``engine`` "native" or "reference",
    and ``why`` the reference interpreter plays (None when native code does, or when it was asked for)."""

    engine: str
    why: str | None = None

    def line(self) -> str:
        """``played by: native code``, or ``played by: the reference interpreter (why)``: what
        `recycle play` and the studio's table say."""
        if self.engine == "native":
            return "played by: native code"
        return "played by: the reference interpreter" + (f" ({self.why})" if self.why else "")


def played_by(s, asked: str = "auto") -> PlayedBy:
    """Who steps the state ``s`` dealt by ``table_state`` with the engine ``asked``, and why the
    reference interpreter does when ``auto`` was asked (the game does not build here, or native
    code handed the game over: a rule broken, a limit, for the exact outcome)."""
    if is_native(s):
        if s.engine == "native":
            return PlayedBy("native")
        return PlayedBy("reference", "native code handed this deal over, for the exact outcome")
    if asked == "reference":
        return PlayedBy("reference", "asked for")
    if not native_here():
        from ..native import _why_unavailable

        return PlayedBy("reference", _why_unavailable())
    from ..native import why_not_native

    return PlayedBy("reference", why_not_native(s.game))


def decide(s, log: list, action: int) -> None:
    """Apply ``action`` to ``s``, its decision logged in ``log`` before its events (a native
    state logs it itself, when its twin plays it)."""
    if type(s) is not OutsideState:
        log.append(("d", s.current_player(), action))
    s.apply(action)


def synced(s) -> None:
    """Bring a native state's twin (and so its log of events) up to date."""
    if is_native(s):
        s.twin()


def reference_of(s):
    """The reference State at ``s``'s decision: ``s`` itself, or a native state's twin (what
    ``Observation.sample_world`` needs)."""
    return s.twin() if is_native(s) else s


def tracked_copy(s, log, knowledge=None):
    """A copy of ``s`` that goes on tracking what each player observes and logging events
    (and decisions, for a native state) into ``log``."""
    if is_native(s):
        return s.clone(track=True, record=log)
    t = s.clone()
    if s.knowledge is not None:
        t.knowledge = knowledge if knowledge is not None else [dict(k) for k in s.knowledge]
        t.events = KnowledgeSink(t, log)
    return t
