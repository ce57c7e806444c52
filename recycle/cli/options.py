"""Options shared by the commands: each means the same, with the same limits, everywhere."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

MAX_WORKERS = 64

GameArg = Annotated[Path, typer.Argument(help="A RECYCLE game file (.rcy).", show_default=False)]
SeedOpt = Annotated[
    int,
    typer.Option(
        "--seed", "-s", help="Random seed: the deal number (games after the first derive their deal numbers from it)."
    ),
]
MaxStepsOpt = Annotated[int, typer.Option("--max-steps", min=1, help="Stop a game after this many steps.")]
PlayersOpt = Annotated[
    str | None,
    typer.Option(
        "--players",
        help="Players per seat, comma-separated (the last one repeats): random, greedy, pimc, "
        "ismcts, omniscient (cheats), human, with an optional budget, e.g. ismcts:200,random "
        "(ISMCTS in seat 0, random in the others); `recycle players` lists them.",
    ),
]
WorkersOpt = Annotated[
    int,
    typer.Option(
        "--workers", "-w", min=1, max=MAX_WORKERS, help="Worker processes (results do not depend on their number)."
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]
ProgressOpt = Annotated[bool, typer.Option(help="Show a progress bar (on a terminal).")]
TimeoutOpt = Annotated[
    float | None,
    typer.Option(
        "--timeout",
        min=0,
        help="Stop after this many seconds with the results so far: no new game is started "
        "(run: the game stops at its next decision).",
        show_default=False,
    ),
]
MaxWorkOpt = Annotated[
    int | None,
    typer.Option(
        "--max-work",
        min=1,
        help="The work budget of each game: stop a game after this many units of work (loop "
        "turns, cards and options handled; default 10,000,000).",
        show_default=False,
    ),
]
NumPlayersOpt = Annotated[
    int | None,
    typer.Option(
        "--num-players",
        "-p",
        min=1,
        help="Play with this many players instead of the game's own number (where the "
        "game declares it as an integer or a declared variable).",
        show_default=False,
    ),
]
