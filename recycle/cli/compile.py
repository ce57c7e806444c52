"""``recycle compile``: the C (or the typed Python it is translated from) the native engine
plays a game by."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import RecycleError
from .options import GameArg
from .outputs import check_file, write_file


def register(app: typer.Typer, fail, load) -> None:
    """Add the ``compile`` command to the ``recycle`` app."""

    @app.command("compile")
    def compile_(
        game: GameArg,
        output: Annotated[
            Path | None,
            typer.Option(
                "--output",
                "-o",
                help="Write the generated C here ('-' or none: standard output); a FILE.py gets the typed Python module it is translated from.",
                show_default=False,
            ),
        ] = None,
        native: Annotated[
            bool, typer.Option("--native", help="The native module (the default, kept so older commands still run).")
        ] = True,
    ):
        """Write the C the native engine plays a game's random rollouts by, and print the
        command that builds it by hand (FILE.py: the typed Python module it is translated from).

        The C is readable: locations and storages are named, and each step is commented with
        the .rcy form and line it plays (recycle/native/writer.py, recycle/native/c/). The reference interpreter writes no source: it plays the
        game's forms as closures (recycle/lang/forms). ``--native`` is what it does anyway."""
        check_file(output, "generated module")
        try:
            g = load(game)
        except RecycleError as exc:
            fail(exc)
        from ..native import NativeUnsupported, native_source

        try:
            text = native_source(g)
        except NativeUnsupported as exc:
            where = exc.where()
            typer.echo(
                f"{game}: the native engine does not write {exc.what}"
                + (f" ({where})" if where else "")
                + "; the reference interpreter plays it",
                err=True,
            )
            raise typer.Exit(1) from None
        python = output is not None and output.suffix == ".py"
        if not python:
            from ..native.c.cmodule import module_c

            text = module_c(text, g.name)
        if output is None or str(output) == "-":
            typer.echo(text, nl=False)
        else:
            write_file(output, text)
            typer.echo(f"wrote {output}: {text.count(chr(10))} lines (recycle/native/writer.py)", err=True)
            if not python:
                from ..native.c.build import hand_command

                typer.echo(f"build it with: {hand_command(output)}", err=True)
