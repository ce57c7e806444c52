"""What one request or one seat can cost the studio (issue 39.9, 39.10)."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("starlette")

from recycle.studio import make_app
from recycle.studio.app import MAX_BODY

from .helpers import TOKEN, game_folder

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

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 8765),
        "headers": [
            (b"host", b"127.0.0.1:8765"),
            (b"x-token", TOKEN.encode()),
            (b"transfer-encoding", b"chunked"),
            (b"content-type", b"application/json"),
        ],
    }
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


def _table_at_seat_zeros_turn(monkeypatch):
    """A table of Crazy Eights, one person and two random players, at the person's turn,
    whose hints block until ``release`` is set; (table, entered, release, running)."""
    import threading
    import time

    from recycle import load
    from recycle.studio import table as table_module

    entered, release = threading.Semaphore(0), threading.Event()
    running = []

    def slow_hint(view, options, spec, seed, stop=None):
        running.append(1)
        entered.release()
        release.wait(10)
        running.pop()
        from recycle.players.human import Hint

        return Hint("test", 0, [None] * len(options))

    monkeypatch.setattr(table_module, "hint", slow_hint)
    from .helpers import ROOT

    game = load(ROOT / "games" / "crazy-eights.rcy")
    table = table_module.Table(game, ROOT / "games" / "crazy-eights.rcy", ["human", "random", "random"], 3)
    for _ in range(1000):
        if table.state.current_player() == 0 and not table._busy():
            break
        time.sleep(0.01)
    return table, entered, release, running


def test_one_hint_at_a_time_per_seat(monkeypatch):
    """12 hints at once from one seat took every worker thread (another seat's view: 15 s
    instead of 0.01 s). A hint request now only queues the hint and returns at once; a
    second one from the seat while the first waits or runs is refused with 429."""
    from recycle.studio.security import Refused

    table, entered, release, running = _table_at_seat_zeros_turn(monkeypatch)
    import threading

    answers = []

    def ask():
        try:
            table.hint(0, None)
            answers.append("queued")
        except Refused as r:
            answers.append(r.status)

    try:
        first = threading.Thread(target=ask, daemon=True)
        first.start()
        assert entered.acquire(timeout=30)  # the first hint is being worked out
        first.join(30)
        assert answers == ["queued"]  # its request did not wait for it
        assert table.seat_view(0)["hint_pending"] is True
        for _ in range(11):
            ask()
        assert answers == ["queued"] + [429] * 11
        assert len(running) == 1
    finally:
        release.set()
    assert entered.acquire(timeout=0) is False  # no second search ran


def test_hints_of_all_seats_are_worked_out_one_at_a_time_in_order():
    """The studio's hint queue: one job at a time, in the order asked, one per seat."""
    import threading

    from recycle.studio.hints import HintQueue
    from recycle.studio.security import Refused

    q = HintQueue(limit=3)
    gate, order, done = threading.Event(), [], threading.Semaphore(0)

    def job(name):
        def run():
            gate.wait(10)
            order.append(name)
            done.release()

        return run

    for seat in ("a", "b", "c"):
        q.ask(seat, job(seat))
    with pytest.raises(Refused) as again:
        q.ask("a", job("a2"))
    assert again.value.status == 429
    with pytest.raises(Refused) as full:
        q.ask("d", job("d"))
    assert full.value.status == 429 and "too many" in full.value.message
    gate.set()
    for _ in range(3):
        assert done.acquire(timeout=10)
    assert order == ["a", "b", "c"]
