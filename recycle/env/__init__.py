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


class MissingExtra(ImportError):
    """An adapter's library is not installed: says which extra installs it."""


def _adapter(module: str, what: str):
    import importlib

    try:
        return importlib.import_module(f".{module}", __name__)
    except ModuleNotFoundError as exc:
        raise MissingExtra(
            f"{what} needs {exc.name!r}, which is not installed: pip install -e '.[rl]' (or bash setup.sh)"
        ) from exc


def pettingzoo_env(path, seed: int | None = None, **kwargs):
    """A PettingZoo AEC environment of a game file (see ``recycle.env.petting``)."""
    return _adapter("petting", "the PettingZoo environment").pettingzoo_env(path, seed, **kwargs)


def openspiel_game(path, **kwargs):
    """An OpenSpiel (pyspiel) game of a game file (see ``recycle.env.spiel``)."""
    return _adapter("spiel", "the OpenSpiel game").openspiel_game(path, **kwargs)


def env_spec(path, **kwargs):
    """The action space and observation layout of a game file (an ``EnvSpec``)."""
    from .spec import spec_for

    return spec_for(path, **kwargs)


__all__ = ["pettingzoo_env", "openspiel_game", "env_spec", "MissingExtra"]
