"""``recycle compile``: the Python source the compiled engine plays a game by."""

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
    def compile_(game: GameArg,
                 output: Annotated[Path | None, typer.Option(
                     "--output", "-o", help="Write the generated module here ('-' or none: standard output).",
                     show_default=False)] = None,
                 native: Annotated[bool, typer.Option(
                     "--native", help="Write the Numba module the native engine plays random rollouts by.")] = False):
        """Write the Python source a game is played by (the compiled engine, the default).

        The module is readable: each block is commented with the line of the .rcy form it
        plays; forms it calls instead of writing out are the compiled closures K0, K1, ...
        (recycle/lang/python/pygen.py), so the module runs inside recycle, not on its own."""
        check_file(output, "generated module")
        try:
            g = load(game)
        except RecycleError as exc:
            fail(exc)
        if native:
            from ..native import NativeUnsupported, native_source

            try:
                text = native_source(g)
            except NativeUnsupported as exc:
                where = exc.where()
                typer.echo(f"{game}: the native engine does not write {exc.what}" + (f" ({where})" if where else ""),
                           err=True)
                raise typer.Exit(1) from None
            if output is None or str(output) == "-":
                typer.echo(text, nl=False)
            else:
                write_file(output, text)
                typer.echo(f"wrote {output}: {text.count(chr(10))} lines (recycle/native/writer.py)", err=True)
            return
        if g.generated is None:
            typer.echo(f"{game}: not compiled to Python; {' '.join(g.warnings) or 'it plays by the closures'}",
                       err=True)
            raise typer.Exit(1)
        if output is None or str(output) == "-":
            typer.echo(g.generated, nl=False)
        else:
            write_file(output, g.generated)
            lines = g.generated.count("\n")
            cached = ", its bytecode read from the cache" if g.bytecode_from_cache else ""
            typer.echo(f"wrote {output}: {lines} lines, {len(g.consts_of_generated)} compiled forms called "
                       f"(generated in {g.generation_seconds * 1000:.0f} ms{cached})", err=True)
