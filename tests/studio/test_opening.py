"""The browser the studio starts is given no token (issue 39.6): a command line is readable
by every local user (``ps``), so the studio opens a one-time code that it exchanges, once,
for the token in an ``HttpOnly``, ``SameSite=Strict`` cookie."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
httpx = pytest.importorskip("httpx")

from .helpers import game_folder  # noqa: E402


def _studio_opened(monkeypatch, tmp_path, args) -> tuple[str, str, list]:
    """Run ``recycle studio ARGS`` in this process with a display; the browser is a fake that
    records the address it is given, tries it twice and stops the studio. (the printed
    output, the address opened, the answers to the two tries)"""
    import webbrowser

    from typer.testing import CliRunner

    from recycle.cli.main import app

    opened, answers = [], []

    def fake_open(url, *a, **k):
        opened.append(url)
        with httpx.Client(timeout=30) as c:
            first = c.get(url, follow_redirects=False)
            answers.append(first)
            if first.status_code == 303:
                page = httpx.get(str(first.url.join(first.headers["location"])), cookies=first.cookies, timeout=30)
                answers.append(page)
            answers.append(c.get(url, follow_redirects=False))  # the same code again
        raise KeyboardInterrupt  # as Ctrl+C: the studio stops

    monkeypatch.setattr(webbrowser, "open", fake_open)
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(app, ["studio", *args, "--port", "0"])
    assert r.exit_code == 0, r.output
    assert len(opened) == 1, r.output
    return r.output, opened[0], answers


def test_the_browser_started_is_given_a_one_time_code_not_the_token(monkeypatch, tmp_path):
    folder = game_folder(tmp_path)
    out, opened, answers = _studio_opened(monkeypatch, tmp_path, [str(folder)])
    token = re.search(r"\?token=([\w-]+)", out).group(1)
    assert token not in opened
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/open\?code=[\w-]{32}", opened)
    first, page, again = answers
    assert first.status_code == 303 and first.headers["location"] == "/"
    cookie = first.headers["set-cookie"]
    assert "httponly" in cookie.lower() and "samesite=strict" in cookie.lower()
    assert page.status_code == 200 and "studio.js" in page.text and token not in page.text
    assert again.status_code == 403  # a code opens the studio once


def test_a_table_opens_its_first_seat_by_a_one_time_code(monkeypatch, tmp_path):
    folder = game_folder(tmp_path)
    out, opened, answers = _studio_opened(
        monkeypatch, tmp_path, ["--table", str(folder / "crazy-eights.rcy"), "--seats", "human,human,random"]
    )
    seat_tokens = re.findall(r"/table\?token=([\w-]+)", out)
    assert len(seat_tokens) == 2 and not any(t in opened for t in seat_tokens)
    first, page, again = answers
    assert first.status_code == 303 and first.headers["location"] == "/table"
    assert page.status_code == 200 and "table.js" in page.text
    assert again.status_code == 403
