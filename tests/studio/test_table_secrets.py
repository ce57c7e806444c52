"""The shared table keeps the seed from every seat (issue 39.1).

A deal number is the seed of the game's generator: a seat that is told it, or can search
it, knows every hidden card. So a table deals from a 128-bit secret drawn from ``secrets``,
and nothing seat 0 receives (views, the event stream, the answers to its actions and hints,
errors, the end screen) holds the seed or the generator's key made from it."""

from __future__ import annotations

import json
import os
import secrets
import time

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
httpx = pytest.importorskip("httpx")

from recycle.errors import RecycleBug  # noqa: E402
from recycle.streams import fold  # noqa: E402

from .helpers import TOKEN  # noqa: E402

OWNER = {"X-Token": TOKEN}


@pytest.fixture
def drawn(monkeypatch):
    """Every ``secrets.randbits(k)`` call: (k, the value drawn)."""
    calls = []
    real = secrets.randbits

    def spy(k):
        v = real(k)
        calls.append((k, v))
        return v

    monkeypatch.setattr(secrets, "randbits", spy)
    return calls


def _play_to_the_end(c, tokens) -> list[str]:
    """Play a two-person table to its end (the last option each time); every text sent to
    seat 0 (views, hint and action answers), in order."""
    sent = []
    hinted = False
    for _ in range(3000):
        r = c.get("/table/api/view", headers={"X-Token": tokens[0]})
        sent.append(r.text)
        v = r.json()
        if v["over"]:
            return sent
        if v["thinking"] or v["to_move"] not in tokens or v.get("hint_pending"):
            time.sleep(0.02)
            continue
        seat = v["to_move"]
        if seat == 0 and not hinted:
            r = c.post("/table/api/hint", headers={"X-Token": tokens[0]}, json={"seat": 0})
            sent.append(r.text)
            hinted = True
            continue
        n = len(c.get("/table/api/view", headers={"X-Token": tokens[seat]}).json()["options"])
        if n == 0:
            time.sleep(0.02)
            continue
        r = c.post("/table/api/act", headers={"X-Token": tokens[seat]}, json={"seat": seat, "option": n - 1})
        if seat == 0:
            sent.append(r.text)
    raise AssertionError("the game did not end")


def _spellings(seed: int) -> list[str]:
    key = fold(seed)
    return [str(seed), hex(seed)[2:], str(key), hex(key)[2:]]


def test_table_deals_from_a_128_bit_secret_that_seat_zero_never_receives(served, drawn):
    folder, _, c, studio = served
    r = c.post("/api/table", headers=OWNER, json={"path": "crazy-eights.rcy", "players": "human,human,random"})
    assert r.status_code == 200, r.text
    tokens = {int(p): link.split("token=")[1] for p, link in r.json()["links"].items()}
    table = next(iter(studio.tables.values()))
    # the deal is a secret of 128 bits from the secrets module, not a number from a small range
    assert (128, table.deal) in drawn
    sent = _play_to_the_end(c, tokens)
    assert len(sent) >= 3  # views, the hint's answer, an action's answer
    for text in sent:
        for spelled in _spellings(table.deal):
            assert spelled not in text, (spelled, text[:300])
        assert '"deal":' not in text.replace(" ", "")  # no field names the deal at all
    # the end screen names neither the seed nor a record file made of it; the record is the owner's
    end = c.get("/table/api/view", headers={"X-Token": tokens[0]}).json()
    assert end["over"] and end["deal_at_table"] == 1
    record = folder / end["result"]["record"]
    assert str(table.deal) not in record.name
    assert json.loads(record.read_text())["seed"] == table.deal  # the record holds it, for the owner
    if os.name == "posix":
        assert record.stat().st_mode & 0o077 == 0
    # a new deal is a fresh secret, not the old number plus one
    seed = table.deal
    r = c.post("/table/api/again", headers={"X-Token": tokens[0]}, json={"seat": 0, "next": True})
    assert r.status_code == 200, r.text
    assert table.deal != seed and (128, table.deal) in drawn
    assert r.json()["deal_at_table"] == 2


def test_table_hint_seed_is_not_made_from_the_deal(served, drawn, monkeypatch):
    """A hint's own generator is seeded from a fresh secret (the old one was deal * 1000003
    + decision: its answer was a function of the seed)."""
    from recycle.studio import table as table_module

    seeds = []
    real = table_module.hint

    def spy(view, options, spec, seed, stop=None):
        seeds.append(seed)
        return real(view, options, spec, seed=seed, stop=stop)

    monkeypatch.setattr(table_module, "hint", spy)
    _, _, c, studio = served
    r = c.post("/api/table", headers=OWNER, json={"path": "crazy-eights.rcy", "players": "human,random"})
    tokens = {int(p): link.split("token=")[1] for p, link in r.json()["links"].items()}
    table = next(iter(studio.tables.values()))
    for _ in range(500):
        v = c.get("/table/api/view", headers={"X-Token": tokens[0]}).json()
        if v["options"] or v["over"]:
            break
        time.sleep(0.02)
    if not v["options"]:
        pytest.skip("crazy eights gave seat 0 no decision with a choice")
    c.post("/table/api/hint", headers={"X-Token": tokens[0]}, json={"seat": 0})
    for _ in range(1500):
        if seeds:
            break
        time.sleep(0.02)
    assert seeds and (64, seeds[0]) in drawn
    assert seeds[0] != table.deal * 1_000_003 + table.state.decisions


def test_a_seat_is_told_an_internal_error_without_the_seed():
    from recycle.studio.table import seat_error

    bug = RecycleBug("KeyError: 3", "games/hearts.rcy, seed 84021, decision 12, step 40")
    told = seat_error(bug)
    assert "84021" not in told and "KeyError: 3" in told
