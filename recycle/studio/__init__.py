"""The studio: a local web page that does a game designer's whole loop (edit with
positioned errors, lint backed by simulation, simulate/analyze with the plots and the
graph, play and replay), and a table in the browser for people and computer players.

    from recycle.studio import make_app, Server
    server = Server(make_app(Path("games"), token="..."), port=0).start()   # a thread
    server.url, server.stop()

It runs on the Python API (``recycle.load``, states, players, ``simulate``); the server is
Starlette on uvicorn (``pip install recycle[studio]``). See docs/studio.md.
"""

from __future__ import annotations

import threading
import time

from .app import make_app
from .security import new_token

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765


class Server:
    """``app`` served by uvicorn on ``host``:``port`` (port 0: a free one), in this thread
    (``run``) or in a thread of its own (``start``/``stop``)."""

    def __init__(self, app, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT):
        import uvicorn

        self.app = app
        self.host = host
        config = uvicorn.Config(
            app,
            host=host,
            port=port,
            log_level="warning",
            access_log=False,
            lifespan="off",
            timeout_graceful_shutdown=1,
        )
        self.server = uvicorn.Server(config)
        self.thread = None

    @property
    def port(self) -> int:
        """The port it listens on (once started)."""
        return self.server.servers[0].sockets[0].getsockname()[1]

    @property
    def address(self) -> str:
        """The address it is bound to (once started)."""
        return self.server.servers[0].sockets[0].getsockname()[0]

    def url(self, path: str = "/") -> str:
        host = self.host if self.host not in ("0.0.0.0", "::") else "127.0.0.1"
        return f"http://{host}:{self.port}{path}"

    def start(self, wait: float = 20.0) -> Server:
        self.thread = threading.Thread(target=self.server.run, name="studio-server", daemon=True)
        self.thread.start()
        end = time.monotonic() + wait
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > end:
                raise RuntimeError(f"the studio could not start on {self.host}")
            time.sleep(0.02)
        return self

    def run(self) -> None:
        self.server.run()

    def stop(self) -> None:
        self.server.should_exit = True
        self.app.studio.jobs.cancel_all()
        if self.thread is not None:
            self.thread.join(10)


__all__ = ["make_app", "Server", "new_token", "DEFAULT_HOST", "DEFAULT_PORT"]
