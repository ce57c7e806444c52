"""The ``env`` commands (registered into ``recycle.cli`` by ``register``).

recycle env describe GAME [--json]     the game as a learning environment: actions, observation layout
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

from ..errors import RecycleBug, RecycleError
from .options import GameArg, JsonOpt


def register(app: typer.Typer, fail, load) -> None:
    """Add the ``env`` command group to the ``recycle`` app."""
    env_app = typer.Typer(
        no_args_is_help=True,
        rich_markup_mode=None,
        help="A game as a learning environment (PettingZoo, OpenSpiel): see docs/env.md.",
    )
    app.add_typer(env_app, name="env")

    @env_app.command()
    def describe(
        game: GameArg,
        json_out: JsonOpt = False,
        max_actions: Annotated[
            int | None,
            typer.Option(
                "--max-actions",
                min=1,
                help="The action space, instead of the one found by sampling.",
                show_default=False,
            ),
        ] = None,
        reward: Annotated[str, typer.Option(help="win (1 per winner, 0 otherwise) or score.")] = "win",
    ):
        """Print the action space, the observation vector's layout and the rewards of GAME.

        The layout is the one recycle.env.pettingzoo_env and openspiel_game use; it is found
        from the game's locations and up to 64 random games (the same every time).
        """
        from ..env.spec import REWARDS, EnvSpec

        if reward not in REWARDS:
            typer.echo(f"error: --reward must be one of {', '.join(REWARDS)}", err=True)
            raise typer.Exit(2)
        try:
            spec = EnvSpec(load(game), max_actions=max_actions, reward=reward)
        except (RecycleError, RecycleBug) as exc:
            fail(exc)
        typer.echo(json.dumps(spec.to_dict(), indent=2) if json_out else spec.describe())
