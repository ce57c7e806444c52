"""recycle: an interpreter for RECYCLE, the card-game description language of CardStock.

    >>> import recycle
    >>> g = recycle.load("games/schwimmen.rcy")
    >>> print(g.simulate(1000, seed=1))
"""

from .errors import (RecycleCompileError, RecycleError, RecycleRuntimeError, RecycleSyntaxError, Span,
                     StepLimitExceeded)
from .game import GameResult, PreparedGame, load, loads
from .players import Player, RandomPlayer, ScriptedPlayer

__version__ = "0.1.0"

__all__ = ["load", "loads", "PreparedGame", "GameResult", "Player", "RandomPlayer", "ScriptedPlayer",
           "RecycleError", "RecycleSyntaxError", "RecycleCompileError", "RecycleRuntimeError",
           "StepLimitExceeded", "Span"]
