"""Hostile requests to the studio's endpoints (``tools/fuzz.py --studio-requests``).

A served folder is laid with traps beside two games: a link to a secret file outside
(``link-out.rcy``), a ``records`` folder that is a link outside (a table's record would
land there), a game file that is a link to a text file inside (``notes.rcy`` to
``notes.txt``: the ``.rcy``-only save rule), a named pipe, a sub-folder that is a link. Then
``n`` requests drawn from ``seed`` go to the studio (Starlette's TestClient, no socket):
every owner endpoint — files, save, check, runs (the Study view's page, ladder and balance
too) and their cancel, a page's files, tree, tables, replays, words, static files — with hostile paths (``..``, absolute, drives, backslashes, NUL, links,
names a shell would run, over-long, not UTF-8), bodies (not JSON, not an object, deep,
huge, of the wrong types, out of range) and query strings.

A request fails the run if its answer is a 5xx, or a 4xx/2xx whose body is not JSON (the
page and the static files aside); after all of them (runs cancelled, tables given time to
end) the run fails if any file outside the served folder was made, changed or removed, if
the in-folder file behind a link changed, or if a file the studio made inside has a name
outside the safe alphabet (``recycle/studio/writes.py``). Returns 0 when nothing failed.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "fuzz-token-0123456789abcdef0123"
SAFE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*\Z")

PATHS = [
    "war.rcy",
    "crazy-eights.rcy",
    "sub/in.rcy",
    "new.rcy",
    "sub/new.rcy",
    "notes.rcy",
    "link-out.rcy",
    "pipe.rcy",
    "alias/new.rcy",
    "records/x.json",
    "../secret.rcy",
    "sub/../../secret.rcy",
    "/etc/passwd",
    "..\\secret.rcy",
    "C:\\x.rcy",
    "\\\\server\\share\\x.rcy",
    "x\x00.rcy",
    "",
    ".",
    "..",
    "sub",
    "sub/",
    "w$(touch PWNED).rcy",
    "a b.rcy",
    "-rf.rcy",
    ".hidden.rcy",
    "x;ls.rcy",
    "`id`.rcy",
    "é.rcy",
    "x" * 300 + ".rcy",
    "y" * 2000,
    "%2e%2e/secret.rcy",
    "notes.txt",
    "war.json",
    "records/war-deal-1.json",
    "sub//in.rcy",
    "./war.rcy",
    "war.rcy/",
    "\udcff.rcy",
    "<img src=x>.rcy",
    "link-dir/secret.rcy",
]
KINDS = ["simulate", "analyze", "graph", "simlint", "page", "ladder", "balance", "rm -rf", "", None, 7]
# the Study view's options (recycle/studio/study.py): specs as `recycle balance` takes them, and worse
VARY = [None, ["NUMP=2..3"], ["NUMP=0..9999"], "NUMP=2..3", [7], ["GOAL=1..2"], ["PENALTY.EIGHT=-5..5:0"],
        ["x" * 300], ["\x1b[2J=1..2"], ["NUMP=2..3"] * 20]  # fmt: skip
TARGET = [None, ["ties=0"], ["first_player=2"], ["ladder=ordered"], "ties=0", [None], ["decisions=.."], ["x=1"]]
PAGE_NAMES = ["index.html", "branching.png", "../war.rcy", "%2e%2e", "page.json", "x.py", "a" * 300]
PLAYERS = [
    None,
    "random",
    "greedy",
    "ismcts:100000",
    "pimc:5",
    "human",
    "nobody:3",
    "random," * 60,
    "",
    3,
    "ismcts:-1",
    "ismcts:1e9",
]
TABLE_PLAYERS = [None, "human,random", "human", "random,random", "human,nobody", "human," * 20, "", 5]
NUMBERS = [None, 0, 1, 5, -1, 2**63, 2**64, 10**100, 1.5, "7", True, [], {}]


def _tree(folder: Path) -> dict:
    """Every file and link under ``folder`` (not following links): its kind and content hash."""
    out = {}
    for dirpath, dirs, names in os.walk(folder):
        for n in dirs + names:
            p = Path(dirpath) / n
            rel = p.relative_to(folder).as_posix()
            if p.is_symlink():
                out[rel] = ("link", os.readlink(p))
            elif p.is_file():
                out[rel] = ("file", hashlib.sha256(p.read_bytes()).hexdigest())
            elif p.is_dir():
                out[rel] = ("dir", None)
            else:
                out[rel] = ("other", None)
    return out


def lay_traps(base: Path) -> tuple[Path, Path]:
    """The served folder and the secret one beside it (see the module docstring)."""
    served, outside = base / "served", base / "outside"
    served.mkdir()
    outside.mkdir()
    (outside / "secret.rcy").write_text("TOP-SECRET")
    (outside / "recs").mkdir()
    for name in ("war.rcy", "crazy-eights.rcy"):
        shutil.copy(ROOT / "games" / name, served / name)
    (served / "sub").mkdir()
    shutil.copy(ROOT / "games" / "war.rcy", served / "sub" / "in.rcy")
    (served / "notes.txt").write_text("my notes")
    (served / "notes.rcy").symlink_to(served / "notes.txt")
    (served / "link-out.rcy").symlink_to(outside / "secret.rcy")
    (served / "link-dir").symlink_to(outside)
    (served / "alias").symlink_to(served / "sub")
    (served / "sub" / "records").symlink_to(outside / "recs")
    (served / "records").symlink_to(outside / "recs")
    os.mkfifo(served / "pipe.rcy")
    return served, outside


def _body(rng: random.Random) -> object:
    """A hostile JSON body (or None: raw bytes are sent instead)."""
    r = rng.random()
    if r < 0.05:
        return [1, 2]
    if r < 0.08:
        return "text"
    if r < 0.1:
        return {"path": {"a": [1] * 3}, "text": ["x"]}
    body = {}
    if rng.random() < 0.9:
        body["path"] = rng.choice(PATHS)
    if rng.random() < 0.5:
        body["text"] = rng.choice(
            [None, "(game", "", (ROOT / "games" / "war.rcy").read_text(), "\x00" * 10, "(" * 5000, "x" * 1_100_000, 5]
        )
    return body


def _get(client, where: str, params: dict, headers: dict):
    """A GET with ``params`` quoted by hand (a lone surrogate becomes its byte, ``%FF``)."""
    from urllib.parse import quote

    query = "&".join(f"{k}={quote(str(v), safe='', errors='surrogateescape')}" for k, v in params.items())
    return client.get(f"{where}?{query}", headers=headers)


def _send(client, method: str, where: str, body, headers: dict):
    """``body`` as JSON with every non-ASCII character escaped (a lone surrogate, too)."""
    return client.request(
        method, where, content=json.dumps(body).encode("ascii"), headers={**headers, "Content-Type": "application/json"}
    )


def request(client, rng: random.Random, jobs: list) -> tuple[str, object]:
    """One hostile request; its description and its answer."""
    owner = {"X-Token": TOKEN}
    k = rng.randrange(12)
    if k == 0:
        path = rng.choice(PATHS)
        return f"GET /api/file {path!r}", _get(client, "/api/file", {"path": path}, owner)
    if k == 1:
        body = _body(rng)
        return f"PUT /api/file {str(body)[:120]}", _send(client, "PUT", "/api/file", body, owner)
    if k == 2:
        raw = rng.choice([b"{not json", b"\xff\xfe", b"[" * 100_000, b"1e999999", b"", b'{"path": "war.rcy"'])
        where = rng.choice(["/api/check", "/api/run", "/api/tree", "/api/table"])
        return f"POST {where} raw {raw[:20]!r}", client.post(
            where, headers={**owner, "Content-Type": "application/json"}, content=raw
        )
    if k == 3:
        body = _body(rng)
        return f"POST /api/check {str(body)[:120]}", _send(client, "POST", "/api/check", body, owner)
    if k in (4, 5):
        body = _body(rng) if rng.random() < 0.3 else {"path": rng.choice(["war.rcy", "crazy-eights.rcy"])}
        if isinstance(body, dict):
            for field, choices in (
                ("kind", KINDS),
                ("n", NUMBERS),
                ("seed", NUMBERS),
                ("players", PLAYERS),
                ("seconds", NUMBERS),
                ("per_player", [True, False, "yes", None]),
                ("vary", VARY),
                ("target", TARGET),
                ("doublings", NUMBERS),
                ("iterations", NUMBERS),
                ("final_games", NUMBERS),
            ):
                if rng.random() < 0.6:
                    body[field] = rng.choice(choices)
        r = _send(client, "POST", "/api/run", body, owner)
        if r.status_code == 200:
            jobs.append(r.json()["job"])
        return f"POST /api/run {str(body)[:160]}", r
    if k == 6:
        jid = rng.choice(jobs + ["999", "../1", "%00", "x" * 500]) if jobs else "1"
        if rng.random() < 0.25:  # a Study page's file: refused unless a page run is done
            name = rng.choice(PAGE_NAMES)
            return f"GET page {jid!r} {name!r}", client.get(f"/api/jobs/{jid}/page/{name}", headers=owner)
        if rng.random() < 0.5:
            return f"POST cancel {jid!r}", client.post(f"/api/jobs/{jid}/cancel", headers=owner)
        return f"GET job {jid!r}", client.get(f"/api/jobs/{jid}", headers=owner)
    if k == 7:
        body = _body(rng)
        return f"POST /api/tree {str(body)[:120]}", _send(client, "POST", "/api/tree", body, owner)
    if k == 8:
        body = {"path": rng.choice(["war.rcy", "sub/in.rcy"] + PATHS), "players": rng.choice(TABLE_PLAYERS)}
        if rng.random() < 0.7:
            body["deal"] = rng.choice(NUMBERS)
        return f"POST /api/table {str(body)[:160]}", _send(client, "POST", "/api/table", body, owner)
    if k == 9:
        params = {
            "path": rng.choice(PATHS + ["records/war-deal-1.json"]),
            "step": rng.choice(["0", "5", "-3", "x", "9" * 40]),
            "seat": rng.choice(["all", "0", "9", "-1", "x"]),
        }
        return f"GET /api/replay {params}", _get(client, "/api/replay", params, owner)
    if k == 10:
        name = rng.choice(["studio.js", "studio.css", "table.js", "../app.py", "index.html", "%2e%2e"])
        return f"GET /static/{name}", client.get(f"/static/{name}", headers=owner)
    where = rng.choice(["/api/files", "/api/words", "/api/nothing"])
    return f"GET {where}", client.get(where, headers=owner)


def run(n: int, seed: int = 0, out=None, verbose: bool = False) -> int:
    """``n`` hostile requests (see the module docstring); the exit status."""
    from starlette.testclient import TestClient

    from recycle.studio import make_app

    rng = random.Random(seed)
    failures: list[str] = []
    statuses: dict = {}
    with tempfile.TemporaryDirectory(prefix="fuzz-studio-") as tmp:
        served, outside = lay_traps(Path(tmp))
        before_out, before_in = _tree(outside), _tree(served)
        app = make_app(served, TOKEN)
        jobs: list = []
        with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as client:
            for i in range(n):
                what, r = request(client, rng, jobs)
                statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
                if r.status_code >= 500:
                    failures.append(f"#{i} {what}: {r.status_code} {r.text[:200]}")
                elif not what.startswith("GET /static/") and not (what.startswith("GET page") and r.status_code == 200):
                    try:
                        json.loads(r.text)
                    except ValueError:
                        failures.append(f"#{i} {what}: {r.status_code}, not JSON: {r.text[:100]!r}")
                if verbose:
                    print(f"#{i} {r.status_code} {what}", file=sys.stderr)
            for jid in jobs:  # a run that ended in a bug (not a refusal, a cancel or a time limit)
                d = client.get(f"/api/jobs/{jid}", headers={"X-Token": TOKEN}).json()
                if str(d.get("error")).startswith("internal error"):
                    failures.append(f"run {jid} ({d['kind']}): {d['error']}")
            app.studio.jobs.cancel_all()
            time.sleep(1.0)  # the tables' computer seats end their deals (records written or refused)
        after_out, after_in = _tree(outside), _tree(served)
        if after_out != before_out:
            changed = sorted(set(after_out.items()) ^ set(before_out.items()))
            failures.append(f"files outside the served folder changed: {changed[:10]}")
        if after_in.get("notes.txt") != before_in["notes.txt"]:
            failures.append("notes.txt (behind the link notes.rcy) changed")
        for rel in sorted(set(after_in) - set(before_in)):
            if not all(SAFE.match(part) for part in rel.split("/")) or rel.endswith(".tmp"):
                failures.append(f"the studio made a file with an unsafe name: {rel!r}")
        for rel, (kind, _) in before_in.items():
            if after_in.get(rel, (None,))[0] != kind:
                failures.append(f"{rel} changed kind ({kind} -> {after_in.get(rel, (None,))[0]})")
    print(f"{n} studio requests (seed {seed}): " + ", ".join(f"{k}: {v}" for k, v in sorted(statuses.items())))
    for f in failures[:50]:
        print("  FAIL " + f)
    if out is not None and failures:
        Path(out).mkdir(parents=True, exist_ok=True)
        (Path(out) / "studio-requests.txt").write_text("\n".join(failures) + "\n", encoding="utf-8")
    print(f"{len(failures)} failure(s)" if failures else "no failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(run(int(sys.argv[1]) if len(sys.argv) > 1 else 300, int(sys.argv[2]) if len(sys.argv) > 2 else 0))
