"""recycle: an interpreter for RECYCLE, the card-game description language of CardStock.

    >>> import recycle
    >>> g = recycle.load("games/hearts.rcy")
    >>> s = g.new_state(seed=7)              # dealt, waiting at the first decision
    >>> s.apply(s.legal_options()[0])        # step it from outside, OpenSpiel-style
    >>> print(recycle.simulate(g, 1000, seed=1))

The package is layered in the direction data flows: ``lang`` (grammar, syntax, the
compiler of every form) → ``engine`` (compiled games, states, observations, the runner)
→ ``players`` → ``study`` (statistics, analysis, graphs, records) → ``cli``.
"""

from .engine.game import GameResult, PreparedGame
from .engine.game import load as _load
from .engine.game import loads as _loads
from .engine.options import Option
from .engine.public import PlayerView, PublicOption
from .engine.runner import RandomPlayer, play_out, privileged
from .engine.state import State
from .engine.view import Observation
from .errors import (
    RecycleBug,
    RecycleCompileError,
    RecycleError,
    RecycleRuntimeError,
    RecycleSyntaxError,
    Span,
    StepLimitExceeded,
)
from .players import Player, ScriptedPlayer, make_player, make_players
from .version import __version__
from .engine import game as _game


def _start_play(*args):
    """``PreparedGame.play(engine=...)``'s hook (``engine.game.NATIVE_START``): the native
    layer, above the engine's, decides which engine plays (recycle/native/choose.py)."""
    from .native.choose import start_play

    return start_play(*args)


_game.NATIVE_START = _start_play


def load(path, fast: bool = True, max_work: int | None = None, engine: str | None = None) -> PreparedGame:
    """Parse and compile a .rcy file (``recycle.engine.game.load``: ``engine`` "reference", the
    default: the reference interpreter). ``engine="native"``: the game is stepped by the reference
    interpreter and its random rollouts are made machine code now (docs/native.md), so that
    ``simulate`` plays them natively for any number of games; ``NativeUnsupported`` names the
    form the native writer does not write, ``NativeUnavailable`` says what is missing (NumPy, a C compiler)."""
    if engine != "native":
        return _load(path, fast=fast, max_work=max_work, engine=engine)
    return _natively(_load(path, max_work=max_work))


def loads(
    text: str, filename: str = "<string>", fast: bool = True, max_work: int | None = None, engine: str | None = None
) -> PreparedGame:
    """Parse and compile RECYCLE text (``fast``, ``max_work`` and ``engine`` as in ``load``)."""
    if engine != "native":
        return _loads(text, filename, fast=fast, max_work=max_work, engine=engine)
    return _natively(_loads(text, filename, max_work=max_work))


def _natively(game: PreparedGame) -> PreparedGame:
    from .native import native_game

    native_game(game).warm()  # compiled, or loaded from the cache
    return game


def simulate(
    game,
    n: int = 1000,
    seed: int = 0,
    players=None,
    max_steps: int = 100_000,
    progress=None,
    workers: int = 1,
    engine: str = "auto",
    threads: int | None = 1,
):
    """Play ``n`` games (random players by default) and return ``SimulationStats``
    (``.to_dict()`` for JSON); the figures are the same for any number of ``workers`` or
    ``threads`` (None: the cores here) and either ``engine`` ("auto": random players' games in native machine code
    where it can play them, else the reference interpreter, docs/native.md; "native"; "reference")."""
    from .study.stats import simulate as run

    return run(game, n, seed, players, max_steps, progress, workers=workers, engine=engine, threads=threads)


def flow_graph(game, rollouts: int = 1, seed: int = 0, per_player: bool = False):
    """The card-movement / information-flow graph of ``game`` (a ``networkx.MultiDiGraph``)."""
    from .study.graphs import flow_graph as build

    return build(game, rollouts=rollouts, seed=seed, per_player=per_player)


__all__ = [
    "load",
    "loads",
    "simulate",
    "flow_graph",
    "play_out",
    "PreparedGame",
    "GameResult",
    "State",
    "Option",
    "Observation",
    "PlayerView",
    "PublicOption",
    "privileged",
    "Player",
    "RandomPlayer",
    "ScriptedPlayer",
    "make_player",
    "make_players",
    "RecycleError",
    "RecycleSyntaxError",
    "RecycleCompileError",
    "RecycleRuntimeError",
    "RecycleBug",
    "StepLimitExceeded",
    "Span",
    "__version__",
]
