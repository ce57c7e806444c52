"""``recycle studio``: the local web studio, or a table in the browser.

    recycle studio                       serves ./ on http://127.0.0.1:8765/?token=...
    recycle studio games/ --port 9000
    recycle studio --table games/hearts.rcy --host 0.0.0.0 --seats human,human,ismcts:300

The server itself is ``recycle.studio`` (see docs/studio.md); this is its command line.
"""

from __future__ import annotations

import os
import socket
import sys
import webbrowser
from pathlib import Path
from typing import Annotated

import typer

from ..errors import RecycleBug, RecycleError, printable

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def _lan_address() -> str:
    """This machine's address on its network, for the links of a table on 0.0.0.0 (no
    packet is sent: connecting a UDP socket only picks the route)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))
            return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"


def register(app: typer.Typer, fail, load) -> None:
    """Add ``recycle studio`` to ``app``."""

    @app.command()
    def studio(
        folder: Annotated[
            Path, typer.Argument(help="The folder to serve (its games and records).", show_default=False)
        ] = Path("."),
        port: Annotated[int, typer.Option("--port", min=0, max=65535, help="The port (0: a free one).")] = 8765,
        host: Annotated[
            str,
            typer.Option(
                "--host",
                help="The address to listen on; 127.0.0.1 (this machine "
                "only) unless you mean to share a table on your network.",
            ),
        ] = "127.0.0.1",
        table: Annotated[
            Path | None,
            typer.Option(
                "--table", help="Serve only a table of this game: one secret link per human seat.", show_default=False
            ),
        ] = None,
        seats: Annotated[
            str,
            typer.Option(
                "--seats", help="With --table: one player per seat, human or a computer kind (the last repeats)."
            ),
        ] = "human,ismcts:30",
        deal: Annotated[
            int | None,
            typer.Option(
                "--deal",
                min=0,
                help="With --table: the deal number (the seed: whoever knows it knows every "
                "card). Default: a secret deal no seat is told.",
                show_default=False,
            ),
        ] = None,
        open_browser: Annotated[bool, typer.Option("--open/--no-open", help="Open the browser.")] = True,
    ):
        """A local web studio: edit a game with its errors at their lines, lint it by simulation,
        simulate and analyze it with plots and graphs, play and replay it in the browser.

        Every request needs the token printed at start; files are read and saved only inside
        FOLDER. With --table, a table of one game for people and computer players."""
        try:
            from ..studio import Server, make_app, new_token
            from ..studio.app import parse_seats
            from ..studio.security import Refused
            from ..studio.table import Table
        except ImportError as exc:
            typer.echo(
                f"error: the studio needs its extra: pip install 'recycle[studio]' ({exc.name} is missing)", err=True
            )
            raise typer.Exit(1) from None
        root = folder if table is None else Path(".")
        if not root.is_dir():
            typer.echo(f"error: {printable(str(folder))} is not a folder", err=True)
            raise typer.Exit(2)
        loopback = host in LOOPBACK
        tables = []
        token = None
        if table is None:
            token = new_token()
        else:
            try:
                g = load(table)
            except (RecycleError, RecycleBug) as exc:
                fail(exc)
                return
            try:
                specs = parse_seats(seats, g.nplayers)
            except Refused as r:
                typer.echo(f"error: --seats: {r.message}", err=True)
                raise typer.Exit(2) from None
            # no --deal: a secret deal, told to no one (a deal number is the seed)
            tables.append(Table(g, table, specs, deal, records=table.parent / "records"))
        app_ = make_app(root, token, loopback_only=loopback, tables=tables)
        try:
            server = Server(app_, host, port).start()
        except (RuntimeError, OSError, SystemExit) as exc:
            typer.echo(f"error: cannot listen on {printable(host)}:{port} (is the port in use?): {exc}", err=True)
            raise typer.Exit(1) from None
        shown = host if loopback else _lan_address() if host in ("0.0.0.0", "::") else host
        base = f"http://{shown}:{server.port}"
        if table is None:
            url = f"{base}/?token={token}"
            typer.echo(f"recycle studio: serving {printable(str(root.resolve()))} on {url}")
            if not loopback:
                typer.echo(
                    "warning: the studio listens beyond this machine: whoever has the link can edit the folder's games",
                    err=True,
                )
        else:
            t = tables[0]
            dealt = "a secret deal" if deal is None else f"deal #{deal} (whoever knows the number knows every card)"
            with t.cond:
                engine = t.played_by().line()
            typer.echo(
                f"recycle studio: a table of {printable(g.name)}, {dealt}, "
                f"seats {', '.join(t.specs)} ({printable(engine)}); one secret link per person:"
            )
            for p, tok in t.tokens.items():
                typer.echo(f"  P{p}: {base}/table?token={tok}")
            url = f"{base}/table?token={next(iter(t.tokens.values()))}"
        typer.echo("Press Ctrl+C to stop.")
        # a browser only where one can show a page: without a display Python's webbrowser
        # would start a text browser in this terminal
        graphical = (
            sys.platform in ("darwin", "win32") or os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
        )
        try:
            if open_browser and loopback and graphical:
                # not the token: the browser's command line is readable by every local user;
                # a code that opens the page once and is exchanged for a cookie
                opens = "/" if table is None else "/table"
                try:
                    webbrowser.open(base + app_.studio.one_time_link(url.split("token=", 1)[1], opens))
                except Exception:  # noqa: BLE001 - no browser here: the link is printed
                    pass
            while server.thread.is_alive():
                server.thread.join(0.5)
        except KeyboardInterrupt:
            typer.echo("stopping the studio")
        finally:
            server.stop()
