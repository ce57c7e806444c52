"""The studio served on loopback for a test: ``(folder, server, client, studio)``, stopped after."""

from __future__ import annotations

import pytest


@pytest.fixture
def served(tmp_path):
    httpx = pytest.importorskip("httpx")
    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    from recycle.studio import Server, make_app

    from .helpers import TOKEN, game_folder

    folder = game_folder(tmp_path)
    app = make_app(folder, TOKEN)
    server = Server(app, port=0).start()
    client = httpx.Client(base_url=server.url(), timeout=60)
    yield folder, server, client, app.studio
    client.close()
    server.stop()
