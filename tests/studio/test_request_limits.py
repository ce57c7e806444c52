"""What one request or one seat can cost the studio (issue 39.9, 39.10)."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("starlette")

from recycle.studio import make_app  # noqa: E402
from recycle.studio.app import MAX_BODY  # noqa: E402

from .helpers import TOKEN, game_folder  # noqa: E402

CHUNK = 64 * 1024


def _post_chunked(app, path: str, chunks: int) -> tuple[int, int]:
    """POST ``chunks`` chunks of 64 KiB with no Content-Length (as a chunked body arrives);
    (the status answered, how many chunks the app took)."""
    pulled = 0
    sent = []

    async def receive():
        nonlocal pulled
        if pulled >= chunks:
            return {"type": "http.request", "body": b"", "more_body": False}
        pulled += 1
        return {"type": "http.request", "body": b" " * CHUNK, "more_body": True}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
             "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
             "root_path": "", "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 8765),
             "headers": [(b"host", b"127.0.0.1:8765"), (b"x-token", TOKEN.encode()),
                         (b"transfer-encoding", b"chunked"), (b"content-type", b"application/json")]}
    asyncio.run(app(scope, receive, send))
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    return status, pulled


def test_a_chunked_body_is_cut_off_at_the_limit(tmp_path):
    """300 MB sent chunked on one link was read whole (65 -> 681 MB) before the 2 MB check:
    now the bytes are counted as they arrive and the request is refused at the limit."""
    app = make_app(game_folder(tmp_path), TOKEN)
    total = 10 * MAX_BODY // CHUNK  # 20 MB offered
    status, pulled = _post_chunked(app, "/api/check", total)
    assert status == 413
    assert pulled <= MAX_BODY // CHUNK + 1 < total  # read up to the limit, and no further
