"""``recycle solve GAME``: CFR+ on a small game's whole tree (registered into ``recycle.cli``).

recycle solve GAME [--reward score] [--iterations N] [--seconds S] [--max-nodes N] [--json]
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

from ..errors import RecycleBug, RecycleError
from .options import GameArg, JsonOpt


def register(app: typer.Typer, fail, load) -> None:
    """Add the ``solve`` command to the ``recycle`` app."""

    @app.command()
    def solve(
        game: GameArg,
        reward: Annotated[str, typer.Option(help="win (1 per winner, 0 otherwise) or score.")] = "win",
        iterations: Annotated[int, typer.Option(min=1, help="CFR+ iterations.")] = 1000,
        seconds: Annotated[
            float | None, typer.Option(min=0.001, help="Stop walking or iterating after this long.", show_default=False)
        ] = None,
        max_nodes: Annotated[int, typer.Option(min=1, help="Refuse a game estimated larger (histories).")] = 2_000_000,
        json_out: JsonOpt = False,
    ):
        """Solve a two-player GAME exactly: walk its tree (chance as the rules draw it) and run
        CFR+; print the value of each seat, the exploitability of the average policy, the
        number of information states and the strategy in the game's words (docs/solve.md)."""
        from ..env.spec import REWARDS

        if reward not in REWARDS:
            typer.echo(f"error: --reward must be one of {', '.join(REWARDS)}", err=True)
            raise typer.Exit(2)
        try:
            from ..env.solve import TooLarge, solve as run_solve
        except ImportError as exc:
            typer.echo(f"error: recycle solve needs OpenSpiel (pip install -e '.[rl]'): {exc}", err=True)
            raise typer.Exit(1) from None
        prepared = load(game)
        try:
            result = run_solve(prepared, reward=reward, iterations=iterations, seconds=seconds, max_nodes=max_nodes)
        except (RecycleError, RecycleBug) as exc:
            fail(exc)
        except (TooLarge, TimeoutError, ValueError) as exc:
            typer.echo(f"error: {game}: {exc}", err=True)
            raise typer.Exit(1) from None
        typer.echo(json.dumps(result.to_dict(), indent=2) if json_out else result.text())
