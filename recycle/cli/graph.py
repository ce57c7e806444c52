"""The ``graph`` and ``tree`` commands (registered into ``recycle.cli`` by ``register``).

recycle graph GAME --seed 3 -o flow.svg            one rollout's information-flow graph
recycle graph GAME --rollouts 500 --seed 1 -o f.png mean over 500 rollouts
recycle graph GAME --json flow.json                 node-link JSON (networkx)
recycle tree GAME [-o structure.svg] [--raw]        the game's structure from its AST
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ..errors import RecycleBug, RecycleError
from .options import GameArg, NumPlayersOpt, MaxStepsOpt, MaxWorkOpt, SeedOpt, TimeoutOpt
from .outputs import check_file, write_file

OutOpt = Annotated[
    Path | None,
    typer.Option(
        "--output",
        "-o",
        help="Output file: .gv/.dot (DOT text), .svg/.png/.pdf (needs Graphviz's dot).",
        show_default=False,
    ),
]


def _write(source: str, out: Path, what: str) -> None:
    """Write DOT by suffix; bad suffix → exit 2, dot failure → exit 1, missing dot → one hint line."""
    from ..study.graphs import write_dot

    try:
        note = write_dot(source, out)
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    except (RuntimeError, OSError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    typer.echo(note if note else f"wrote {out} ({what})")


def _check_suffix(out: Path | None) -> None:
    """Reject an unknown output suffix before any work is done."""
    from ..study.graphs import DOT_SUFFIXES, RENDER_FORMATS

    if out is not None and out.suffix.lower() not in (*DOT_SUFFIXES, *RENDER_FORMATS):
        typer.echo(f"error: cannot write {out.name}: use a .gv, .dot, .svg, .png or .pdf file name", err=True)
        raise typer.Exit(2)


def register(app: typer.Typer, fail, load) -> None:
    """Add the ``graph`` and ``tree`` commands to the ``recycle`` app."""

    @app.command()
    def graph(
        game: GameArg,
        seed: SeedOpt = 0,
        rollouts: Annotated[
            int,
            typer.Option("--rollouts", "-n", min=1, help="Random rollouts to aggregate; edges show the mean per game."),
        ] = 1,
        per_player: Annotated[
            bool, typer.Option("--per-player", help="One node per player's location instead of one 'each player' node.")
        ] = False,
        output: OutOpt = None,
        json_out: Annotated[
            Path | None,
            typer.Option(
                "--json", help="Also write the graph as networkx node-link JSON ('-' for stdout).", show_default=False
            ),
        ] = None,
        max_steps: MaxStepsOpt = 100_000,
        legend: Annotated[bool, typer.Option(help="Draw the legend.")] = True,
        timeout: TimeoutOpt = None,
        max_work: MaxWorkOpt = None,
        num_players: NumPlayersOpt = None,
    ):
        """Draw where cards go and who learns what: the card-movement / information-flow graph.

        Without -o or --json the DOT text is printed.
        """
        from ..study.graphs import flow_graph, to_dot, to_json

        _check_suffix(output)
        check_file(output, "graph")
        check_file(json_out, "JSON file")
        try:
            g = load(game, max_work, num_players)
            G = flow_graph(
                g,
                rollouts=rollouts,
                seed=seed,
                per_player=per_player,
                max_steps=max_steps,
                timeout=timeout,
                interruptible=True,
            )
        except (RecycleError, RecycleBug) as exc:
            fail(exc)
            return
        if G.graph["interrupted"]:
            typer.echo(f"interrupted after {G.graph['played']:,} of {rollouts:,} rollouts", err=True)
        elif G.graph["played"] < rollouts:
            typer.echo(f"stopped by the time limit after {G.graph['played']} of {rollouts} rollouts", err=True)
        if G.graph["skipped"]:
            typer.echo(
                f"warning: {G.graph['skipped']} of {rollouts} rollouts hit the step limit "
                f"({max_steps} steps) and are left out",
                err=True,
            )
        if json_out is not None:
            text = json.dumps(to_json(G), indent=1, ensure_ascii=False)
            if str(json_out) == "-":
                typer.echo(text)
            else:
                write_file(json_out, text + "\n")
                typer.echo(f"wrote {json_out} ({len(G)} locations, {G.number_of_edges()} edges)")
        if output is not None:
            _write(to_dot(G, legend=legend), output, f"{len(G)} locations, {G.number_of_edges()} edges")
        elif json_out is None:
            typer.echo(to_dot(G, legend=legend), nl=False)
        if G.graph["interrupted"]:
            raise typer.Exit(130)

    @app.command()
    def tree(
        game: GameArg,
        output: OutOpt = None,
        raw: Annotated[
            bool,
            typer.Option("--raw", help="The full parse tree (every list and token) instead of the game's structure."),
        ] = False,
    ):
        """Draw the game's structure: setup, stages (nested), choices with their options, actions.

        Without -o the structure is printed as an indented outline.
        """
        from ..study.structure import game_tree, outline, raw_tree, tree_dot

        _check_suffix(output)
        check_file(output, "tree")
        try:
            g = load(game)
        except (RecycleError, RecycleBug) as exc:
            fail(exc)
            return
        t = raw_tree(g.source) if raw else game_tree(g.source)
        if output is None:
            for line in outline(t):
                typer.echo(line)
            return
        title = f"{g.name}: {'parse tree' if raw else 'structure'}"
        _write(tree_dot(t, title), output, "parse tree" if raw else "structure")
