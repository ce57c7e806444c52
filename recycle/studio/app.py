"""The studio's web application (Starlette): the pages, the editor's check, the runs, the
tables, the replays. ``make_app`` builds it; ``recycle.studio.serve`` runs it.

Every request passes ``Guard`` first (``recycle.studio.security``): its token names who
asks — the studio's owner or one seat of one table — and its origin must be the studio's
own. The owner's routes are under ``/api``; a seat's under ``/table/api``. A refused or bad
request gets a 4xx with a message in JSON, never a traceback.
"""

from __future__ import annotations

import asyncio
import json
import os
from importlib.resources import files
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from ..errors import RecycleBug, RecycleError
from .jobs import MAX_GAMES, MAX_SECONDS, Jobs
from .security import MAX_FILE_BYTES, OneTimeCodes, Refused, check_origin, read_text, refuse_path, same
from .study import KINDS as STUDY_KINDS
from .study import PAGE_CSP, page_file, study_options
from .writes import save_game

MAX_BODY = 2_000_000
MAX_TABLES = 16
MAX_FILES = 2000
# the cookie that carries the owner's token once a one-time code was exchanged for it
COOKIE = "recycle_studio"
SIMLINT_SECONDS = 5.0  # the lint backed by simulation: a quick look as the person types
# the page's own files (no library is vendored: the editor and the table are plain JavaScript)
STATIC = {
    "studio.js": "text/javascript",
    "studio.css": "text/css",
    "table.js": "text/javascript",
    "study.js": "text/javascript",
}
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


class Studio:
    """What the app serves: the folder, the owner's token (None: tables only), the runs and
    the tables."""

    def __init__(self, root: Path, token: str | None, loopback_only: bool = True):
        self.root = Path(root).resolve()
        self.token = token
        self.loopback_only = loopback_only
        self.jobs = Jobs()
        self.tables: dict[str, object] = {}
        self.codes = OneTimeCodes()

    def one_time_link(self, token: str, page: str = "/") -> str:
        """A path that opens ``page`` with ``token`` once (``/open?code=...``): what the browser
        the studio starts is given, instead of the token (see ``recycle.studio.security``)."""
        return f"/open?code={self.codes.new((token, page))}"

    def who(self, token: str | None):
        """``"owner"``, ``(table, seat)`` or None for a token that is nobody's."""
        if self.token is not None and same(token, self.token):
            return "owner"
        for t in list(self.tables.values()):
            seat = t.seat_of(token)
            if seat is not None:
                return (t, seat)
        return None

    def add_table(self, table) -> None:
        if len(self.tables) >= MAX_TABLES:
            oldest = next(iter(self.tables))
            del self.tables[oldest]
        self.tables[str(id(table))] = table


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


class Guard:
    """ASGI middleware: the origin, host and token checks, and the security headers."""

    def __init__(self, app, studio: Studio):
        self.app = app
        self.studio = studio

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        request = Request(scope)
        try:
            check_origin(request.headers, self.studio.loopback_only)
            if scope["path"] == "/open":
                return await _secured(self._open(request), send, scope, receive)
            token = request.query_params.get("token") or request.headers.get("x-token") or request.cookies.get(COOKIE)
            if not token:
                raise Refused(401, "this studio needs its token: open the link printed when it started")
            who = self.studio.who(token)
            if who is None:
                raise Refused(403, "this token is not this studio's")
        except Refused as r:
            return await _secured(_error(r.status, r.message), send, scope, receive)
        scope.setdefault("state", {})["who"] = who
        await self.app(scope, receive, lambda m: send(_with_headers(m)))

    def _open(self, request: Request) -> Response:
        """A one-time code exchanged for the owner's token in a cookie, then the studio."""
        got = self.studio.codes.use(request.query_params.get("code"))
        if got is None:
            raise Refused(
                403,
                "this link opens the studio once, within a minute of its start: open the link printed in the terminal",
            )
        token, page = got
        response = Response(status_code=303, headers={"location": page})
        response.set_cookie(COOKIE, token, httponly=True, samesite="strict", path="/")
        return response


def _with_headers(message):
    if message["type"] == "http.response.start":
        headers = list(message.get("headers", []))
        # a response with a policy of its own keeps it (a game's page: recycle/studio/study.py)
        if not any(k.lower() == b"content-security-policy" for k, _ in headers):
            headers.append((b"content-security-policy", CSP.encode()))
        headers += [
            (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"no-referrer"),
            (b"x-frame-options", b"DENY"),
            (b"cache-control", b"no-store"),
        ]
        message = {**message, "headers": headers}
    return message


async def _secured(response, send, scope, receive):
    await response(scope, receive, lambda m: send(_with_headers(m)))


async def _body(request: Request) -> bytes:
    """The request's body, counted as it arrives: refused (413) as soon as it passes
    ``MAX_BODY``, whatever its Content-Length says (a chunked body has none)."""
    too_large = Refused(413, f"the request is larger than {MAX_BODY} bytes")
    try:
        if int(request.headers.get("content-length") or 0) > MAX_BODY:
            raise too_large
    except ValueError:
        raise Refused(400, "the request's Content-Length is not a number") from None
    parts, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise too_large
        parts.append(chunk)
    return b"".join(parts)


async def _json(request: Request) -> dict:
    raw = await _body(request)
    try:
        data = json.loads(raw or b"{}")
    except (ValueError, RecursionError):
        raise Refused(400, "the request's body is not JSON") from None
    if not isinstance(data, dict):
        raise Refused(400, "the request's body must be a JSON object")
    return data


def _field(data: dict, name: str, kind, default=None, low=None, high=None):
    v = data.get(name)
    if v is None:  # null is "not given"
        v = default
    if v is None:
        return None
    if kind is int and (isinstance(v, bool) or not isinstance(v, int)):
        raise Refused(400, f"{name} must be an integer")
    if kind is str and not isinstance(v, str):
        raise Refused(400, f"{name} must be a string")
    if kind is bool and not isinstance(v, bool):
        raise Refused(400, f"{name} must be true or false")
    if low is not None and v < low:
        raise Refused(400, f"{name} must be at least {low}")
    if high is not None and v > high:
        raise Refused(400, f"{name} is at most {high} here")
    return v


def _owner(request: Request) -> Studio:
    if request.scope["state"]["who"] != "owner":
        raise Refused(403, "a seat's link opens its table only")
    return request.app.state.studio


def _seat(request: Request):
    who = request.scope["state"]["who"]
    if who == "owner":
        raise Refused(403, "the studio's token is not a seat: open a seat's link")
    return who


def _page(name: str, token: str) -> Response:
    text = files("recycle.studio").joinpath("static", name).read_text(encoding="utf-8")
    # the token is URL-safe base64 (letters, digits, - and _): nothing to escape in HTML
    return Response(text.replace("{{token}}", token), media_type="text/html; charset=utf-8")


async def index(request: Request):
    _owner(request)
    # opened with the cookie: the page's requests carry it, the page holds no token
    return _page("index.html", request.query_params.get("token") or request.headers.get("x-token") or "")


async def static(request: Request):
    name = request.path_params["name"]
    if name not in STATIC:
        raise Refused(404, "no such file")
    data = files("recycle.studio").joinpath("static", name).read_bytes()
    return Response(data, media_type=STATIC[name])


def _listing(root: Path) -> list[str]:
    out = []
    for folder, dirs, names in os.walk(root):  # links to folders are not followed
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in ("__pycache__", "node_modules"))
        for n in sorted(names):
            if n.endswith((".rcy", ".json")) and not n.startswith("."):
                p = Path(folder) / n
                if p.is_symlink() and root not in p.resolve().parents:
                    continue
                out.append(p.relative_to(root).as_posix())
                if len(out) >= MAX_FILES:
                    return out
    return out


async def list_files(request: Request):
    studio = _owner(request)
    return JSONResponse({"root": studio.root.name, "files": await asyncio.to_thread(_listing, studio.root)})


async def file_get(request: Request):
    studio = _owner(request)
    path = request.query_params.get("path", "")
    return JSONResponse({"path": path, "text": read_text(studio.root, path)})


async def file_put(request: Request):
    studio = _owner(request)
    data = await _json(request)
    path, text = _field(data, "path", str, ""), _field(data, "text", str)
    if text is None:  # a save names its text: an empty file is "text": ""
        raise Refused(400, "text must be a string")
    save_game(studio.root, path, text, MAX_FILE_BYTES)  # through no link (writes.py)
    return JSONResponse({"saved": path})


def _game_text(studio: Studio, data: dict) -> tuple[str, str]:
    path = _field(data, "path", str, "") or "untitled.rcy"
    text = _field(data, "text", str)
    if text is None:
        text = read_text(studio.root, path)
    else:  # the text is given: the path is only its name, in messages, but a name of a file still
        refuse_path(path)
    return path, text


async def check(request: Request):
    from .runs import check_text

    studio = _owner(request)
    path, text = _game_text(studio, await _json(request))
    game, messages = await asyncio.to_thread(check_text, text, path)
    return JSONResponse(
        {
            "ok": game is not None,
            "messages": messages,
            "name": game.name if game else None,
            "players": game.nplayers if game else None,
        }
    )


def _load_for_run(text: str, path: str):
    from .runs import check_text

    game, messages = check_text(text, path)
    if game is None:
        raise Refused(422, "the game does not check: " + messages[0]["message"])
    return game


async def run(request: Request):
    studio = _owner(request)
    data = await _json(request)
    kind = _field(data, "kind", str, "simulate")
    if kind not in MAX_GAMES:
        raise Refused(400, f"kind must be one of {', '.join(MAX_GAMES)}")
    n = _field(data, "n", int, 500 if kind != "graph" else 20, 1, MAX_GAMES[kind])
    seed = _field(data, "seed", int, 0, 0, 2**63)
    players = _field(data, "players", str, None)
    if players is not None and len(players) > 200:
        raise Refused(400, "players is too long")
    timeout = float(_field(data, "seconds", int, int(MAX_SECONDS), 1, int(MAX_SECONDS)))
    per_player = _field(data, "per_player", bool, False)
    path, text = _game_text(studio, data)
    game = await asyncio.to_thread(_load_for_run, text, path)
    options = None
    if kind in STUDY_KINDS:  # a page, a ladder, a balance: their own options (recycle/studio/study.py)
        options = await asyncio.to_thread(study_options, kind, data, game)
        players = None
    if players:
        from ..players import make_players

        if "human" in players:
            raise Refused(400, "players: a run has computer players only; play a game yourself in Play")
        try:
            make_players(players, game.nplayers)
        except ValueError as exc:
            raise Refused(400, f"players: {exc}") from None
    # the run itself is played in a process of its own, killed on Cancel or at its time limit
    # (recycle/studio/jobs.py, worker.py): the game is sent as text and checked there again
    request = {
        "path": path,
        "text": text,
        "seed": seed,
        "players": players,
        "per_player": per_player,
        "seconds": min(timeout, SIMLINT_SECONDS) if kind == "simlint" else timeout,
        "options": options,
    }
    try:
        job = studio.jobs.start(kind, n, request)
    except ValueError as exc:
        raise Refused(429, str(exc)) from None
    return JSONResponse({"job": job.id})


async def words(request: Request):
    from .runs import editor_words

    _owner(request)
    return JSONResponse(editor_words())


async def job_get(request: Request):
    studio = _owner(request)
    job = studio.jobs.get(request.path_params["jid"])
    if job is None:
        raise Refused(404, "no such run")
    return JSONResponse(job.to_dict())


async def job_cancel(request: Request):
    studio = _owner(request)
    job = studio.jobs.get(request.path_params["jid"])
    if job is None:
        raise Refused(404, "no such run")
    job.cancelled.set()
    return JSONResponse({"cancelled": job.id})


async def job_events(request: Request):
    studio = _owner(request)
    job = studio.jobs.get(request.path_params["jid"])
    if job is None:
        raise Refused(404, "no such run")

    async def stream():
        last = None
        while True:
            d = job.to_dict()
            now = (d["done"], d["status"])
            if now != last:
                last = now
                if d["status"] == "running":
                    d["result"] = None
                yield f"data: {json.dumps(d)}\n\n"
            if d["status"] != "running" or await request.is_disconnected():
                return
            await asyncio.sleep(0.2)

    return StreamingResponse(stream(), media_type="text/event-stream")


async def page_get(request: Request):
    """A file of a page built by a Study run, with the page's own policy (no script at all).
    Opened with ``?token=``, the answer also sets the studio's cookie, so that the page's own
    links (its figures, its numbers) are served too."""
    studio = _owner(request)
    data, media = page_file(studio.jobs.get(request.path_params["jid"]), request.path_params["name"])
    response = Response(data, media_type=media, headers={"content-security-policy": PAGE_CSP})
    token = request.query_params.get("token")
    if token:
        response.set_cookie(COOKIE, token, httponly=True, samesite="strict", path="/")
    return response


async def tree(request: Request):
    from .runs import structure

    studio = _owner(request)
    path, text = _game_text(studio, await _json(request))
    game = await asyncio.to_thread(_load_for_run, text, path)
    return JSONResponse(await asyncio.to_thread(structure, game))


async def table_new(request: Request):
    from ..engine.game import load
    from .security import inside
    from .table import Table

    studio = _owner(request)
    data = await _json(request)
    path = _field(data, "path", str, "")
    full = inside(studio.root, path)
    try:
        game = await asyncio.to_thread(load, full)
    except (RecycleError, RecycleBug) as exc:
        raise Refused(
            422, f"the game does not check: {exc.message if isinstance(exc, RecycleError) else exc}"
        ) from None
    specs = parse_seats(_field(data, "players", str, "") or "human,random", game.nplayers)
    # no deal given: a secret one (a deal number is the seed; see recycle.studio.table)
    deal = _field(data, "deal", int, None, 0, 2**63)
    # (dealt off the event loop: the game's native module may be built for it, a fraction of a second)
    table = await asyncio.to_thread(Table, game, full, specs, deal, records=full.parent / "records")
    studio.add_table(table)
    links = {str(p): f"/table?token={t}" for p, t in table.tokens.items()}
    with table.cond:
        engine = table.played_by().line()
    return JSONResponse({"links": links, "specs": specs, "deal": deal, "engine": engine})


def parse_seats(text: str, nplayers: int) -> list[str]:
    """One player spec per seat from ``human,random,ismcts:300`` (the last one repeats)."""
    from ..players import make_player

    names = [s.strip() for s in text.split(",") if s.strip()] or ["human"]
    if len(names) > nplayers:
        raise Refused(400, f"{len(names)} players given for a game of {nplayers}")
    specs = [names[min(p, len(names) - 1)] for p in range(nplayers)]
    for s in specs:
        if s != "human":
            try:
                make_player(s)
            except ValueError as exc:
                raise Refused(400, f"players: {exc}") from None
    if "human" not in specs:
        raise Refused(400, "a table needs at least one human seat")
    return specs


async def replay_get(request: Request):
    from .replay import replay_view

    studio = _owner(request)
    q = request.query_params
    try:
        step = int(q.get("step", "0"))
        seat = None if q.get("seat", "all") == "all" else int(q.get("seat"))
    except ValueError:
        raise Refused(400, "step and seat must be integers (seat may be 'all')") from None
    try:
        view = await asyncio.to_thread(replay_view, studio.root, q.get("path", ""), step, seat)
    except (RecycleError, RecycleBug) as exc:
        raise Refused(422, f"the record's game does not load: {exc}") from None
    return JSONResponse(view)


# -- a seat's routes ------------------------------------------------------------------------
async def table_page(request: Request):
    _seat(request)
    return _page("table.html", request.query_params.get("token") or "")


async def table_view(request: Request):
    table, seat = _seat(request)
    return JSONResponse(await asyncio.to_thread(table.seat_view, seat))


async def table_events(request: Request):
    table, seat = _seat(request)

    async def stream():
        last = None
        idle = 0
        while True:
            if table.version != last:
                last = table.version
                view = await asyncio.to_thread(table.seat_view, seat)
                yield f"data: {json.dumps(view)}\n\n"
                idle = 0
            elif idle > 75:  # a comment now and then keeps the connection open
                yield ": waiting\n\n"
                idle = 0
            if await request.is_disconnected():
                return
            idle += 1
            await asyncio.sleep(0.2)

    return StreamingResponse(stream(), media_type="text/event-stream")


async def table_action(request: Request):
    table, seat = _seat(request)
    data = await _json(request)
    what = request.path_params["what"]
    claimed = _field(data, "seat", int, None)
    if what == "act":
        await asyncio.to_thread(table.act, seat, claimed, data.get("option"), _field(data, "decision", int, None))
    elif what == "undo":
        await asyncio.to_thread(table.undo, seat, claimed)
    elif what == "hint":
        await asyncio.to_thread(table.hint, seat, claimed)
    elif what == "again":
        await asyncio.to_thread(table.again, seat, claimed, bool(data.get("next")))
    else:
        raise Refused(404, "no such action")
    return JSONResponse(await asyncio.to_thread(table.seat_view, seat))


async def _http(request, exc: HTTPException):
    # a path no route serves, a method a route does not take: in JSON, as every other answer
    return _error(exc.status_code, "no such page" if exc.status_code == 404 else str(exc.detail))


async def _refused(request, exc: Refused):
    return _error(exc.status, exc.message)


async def _bad(request, exc: Exception):
    import traceback

    traceback.print_exception(exc)
    return _error(500, f"internal error: {exc.__class__.__name__} (the studio's log has the details)")


def make_app(root: Path, token: str | None, loopback_only: bool = True, tables=()) -> Guard:
    """The studio's ASGI application serving ``root`` to holders of ``token`` (None: only
    the ``tables`` given, each seat by its own link)."""
    studio = Studio(root, token, loopback_only)
    for t in tables:
        studio.add_table(t)
    routes = [
        Route("/static/{name}", static),
        Route("/table", table_page),
        Route("/table/api/view", table_view),
        Route("/table/api/events", table_events),
        Route("/table/api/{what}", table_action, methods=["POST"]),
    ]
    if token is not None:
        routes += [
            Route("/", index),
            Route("/api/files", list_files),
            Route("/api/file", file_get),
            Route("/api/file", file_put, methods=["PUT"]),
            Route("/api/check", check, methods=["POST"]),
            Route("/api/run", run, methods=["POST"]),
            Route("/api/jobs/{jid}", job_get),
            Route("/api/jobs/{jid}/events", job_events),
            Route("/api/jobs/{jid}/cancel", job_cancel, methods=["POST"]),
            Route("/api/jobs/{jid}/page/{name}", page_get),
            Route("/api/tree", tree, methods=["POST"]),
            Route("/api/table", table_new, methods=["POST"]),
            Route("/api/replay", replay_get),
            Route("/api/words", words),
        ]
    app = Starlette(routes=routes, exception_handlers={Refused: _refused, HTTPException: _http, Exception: _bad})
    app.state.studio = studio
    guard = Guard(app, studio)
    guard.studio = studio
    return guard
