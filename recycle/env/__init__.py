"""RECYCLE games as learning environments: PettingZoo (AEC) and OpenSpiel (pyspiel).

    from recycle.env import pettingzoo_env, openspiel_game
    env = pettingzoo_env("games/schwimmen.rcy", seed=1)     # a pettingzoo AECEnv
    game = openspiel_game("games/hearts.rcy")                # a pyspiel game

``spec.py`` fixes a game's action space and observation vector (``EnvSpec``; ``recycle env
describe GAME`` prints it), ``petting.py`` and ``spiel.py`` are the two adapters. PettingZoo,
Gymnasium and OpenSpiel are optional (``pip install -e '.[rl]'``) and imported only when
an adapter is made; see docs/env.md.
"""

from __future__ import annotations


def pettingzoo_env(path, seed: int | None = None, **kwargs):
    """A PettingZoo AEC environment of a game file (see ``recycle.env.petting``)."""
    from .petting import pettingzoo_env as make

    return make(path, seed, **kwargs)


def openspiel_game(path, **kwargs):
    """An OpenSpiel (pyspiel) game of a game file (see ``recycle.env.spiel``)."""
    from .spiel import openspiel_game as make

    return make(path, **kwargs)


def env_spec(path, **kwargs):
    """The action space and observation layout of a game file (an ``EnvSpec``)."""
    from .spec import spec_for

    return spec_for(path, **kwargs)


__all__ = ["pettingzoo_env", "openspiel_game", "env_spec"]
