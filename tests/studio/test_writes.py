"""Every write of the studio (a saved game, a table's record) goes through one function that
follows no link, refuses what is not a regular file and writes only names of a safe
alphabet (recycle/studio/writes.py). Each test here failed before that function existed."""

from __future__ import annotations

import os
import re
import time

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
from starlette.testclient import TestClient

from recycle.studio import make_app
from recycle.studio.security import Refused
from recycle.studio.writes import safe_name, write_file

from .helpers import TOKEN, game_folder

OWNER = {"X-Token": TOKEN}


@pytest.fixture
def studio(tmp_path):
    folder = game_folder(tmp_path)
    app = make_app(folder, TOKEN)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        yield folder, client, app.studio


def _finished_table(client, studio, path: str, deal: int):
    """Deal ``path`` at a table of one person and one random player and play it out by the
    person's first option each time; the table, its game over."""
    r = client.post("/api/table", headers=OWNER, json={"path": path, "players": "human,random", "deal": deal})
    assert r.status_code == 200, r.text
    token = r.json()["links"]["0"].split("token=")[1]
    table = list(studio.tables.values())[-1]
    for _ in range(10_000):
        view = table.seat_view(0)
        if view["over"] or table.error:
            return table
        if view["to_move"] == 0 and not view["thinking"]:
            client.post("/table/api/act", headers={"X-Token": token}, json={"option": 0})
        else:
            time.sleep(0.01)
    raise AssertionError("the table's game did not end")


def test_a_record_is_never_written_through_a_link_out_of_the_folder(studio, tmp_path):
    folder, client, st = studio
    outside = tmp_path / "outside"
    outside.mkdir()
    (folder / "records").symlink_to(outside)
    table = _finished_table(client, st, "war.rcy", 5)
    assert list(outside.iterdir()) == []  # before: outside/war-deal-5.json
    assert table.saved is None and "link" in table.error
    assert "link" in table.seat_view(0)["error"]


def test_a_record_never_overwrites_a_file_a_link_names(studio, tmp_path, monkeypatch):
    folder, client, st = studio
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (folder / "records").mkdir()
    # a record's name has a random part; fixed here, as if a link had been planted at it
    monkeypatch.setattr("recycle.studio.writes.secrets.token_hex", lambda n=None: "0" * 12)
    (folder / "records" / "war-table-000000000000.json").symlink_to(victim)
    table = _finished_table(client, st, "war.rcy", 6)
    assert victim.read_text() == "precious"  # before: the record, written over it
    assert (folder / "records" / "war-table-000000000000.json").is_symlink()
    assert table.saved is None and "is a link" in table.error


def test_a_record_of_a_game_with_a_shell_name_has_a_safe_name(studio, tmp_path):
    folder, client, st = studio
    (folder / "w$(touch X).rcy").write_text((folder / "war.rcy").read_text())
    table = _finished_table(client, st, "w$(touch X).rcy", 7)
    assert re.fullmatch(r"records/w__touch_X_-table-[0-9a-f]{12}\.json", table.saved or ""), table.error
    assert [p.name for p in (folder / "records").iterdir()] == [table.saved.split("/")[1]]
    assert ((folder / table.saved).stat().st_mode & 0o777) == 0o600  # the record holds the seed
    # and it replays: the record names its game by its real file name
    r = client.get("/api/replay", params={"path": table.saved, "step": 1}, headers=OWNER)
    assert r.status_code == 200 and r.json()["deal"] == 7


def test_save_refuses_an_in_folder_link_to_another_kind_of_file(studio):
    folder, client, _ = studio
    (folder / "notes.txt").write_text("my notes")
    (folder / "notes.rcy").symlink_to(folder / "notes.txt")
    r = client.put("/api/file", headers=OWNER, json={"path": "notes.rcy", "text": "(game)"})
    assert r.status_code == 403 and "link" in r.json()["error"]
    assert (folder / "notes.txt").read_text() == "my notes"  # before: "(game)"
    # a folder that is a link, even one inside, is not written through either
    (folder / "sub").mkdir()
    (folder / "alias").symlink_to(folder / "sub")
    r = client.put("/api/file", headers=OWNER, json={"path": "alias/new.rcy", "text": "(game)"})
    assert r.status_code == 403 and not (folder / "sub" / "new.rcy").exists()
    # the link is still readable where it stays inside (reads follow such links)
    assert client.get("/api/file", params={"path": "notes.rcy"}, headers=OWNER).json()["text"] == "my notes"


def test_save_refuses_a_name_outside_the_safe_alphabet(studio):
    folder, client, _ = studio
    for name in ("w$(touch X).rcy", "a b.rcy", "-rf.rcy", ".hidden.rcy", "x;ls.rcy", "sub\\x.rcy", "é.rcy"):
        r = client.put("/api/file", headers=OWNER, json={"path": name, "text": "(game)"})
        assert r.status_code == 400 and r.json()["error"], name
        assert not (folder / name).exists(), name
    r = client.put("/api/file", headers=OWNER, json={"path": "my-game_2.rcy", "text": "(game)"})
    assert r.status_code == 200 and (folder / "my-game_2.rcy").read_text() == "(game)"
    assert not [p for p in folder.iterdir() if p.name.endswith(".tmp")]  # no temporary file left


def test_write_file_refuses_what_is_not_a_regular_file(tmp_path):
    os.mkfifo(tmp_path / "pipe.rcy")
    (tmp_path / "dir.rcy").mkdir()
    for name in ("pipe.rcy", "dir.rcy"):
        with pytest.raises(Refused) as got:
            write_file(tmp_path, name, b"x")
        assert got.value.status == 400 and "not a regular file" in got.value.message
    assert write_file(tmp_path, "new.rcy", b"x").read_bytes() == b"x"
    os.chmod(tmp_path / "new.rcy", 0o600)
    assert write_file(tmp_path, "new.rcy", b"yz").read_bytes() == b"yz"  # replaced whole,
    assert (tmp_path / "new.rcy").stat().st_mode & 0o777 == 0o600  # its permissions kept
    assert safe_name("w$(touch X)") == "w__touch_X_" and safe_name("-x") == "_-x" and safe_name("") == "_"
