"""Untrusted records and game files (issue 25, items 7 and 8).

A record names its game only inside its own folder (or ``replay --game-folder DIR``), and
the file's hash is compared before the file is parsed: a record cannot make ``replay`` read,
parse or quote another file. Text from a record or a game file reaches the terminal with its
control characters escaped, whichever command printed it.
"""

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from typer.testing import CliRunner

from recycle.cli import app

from ..conftest import GAMES, ROOT

runner = CliRunner()
SCHWIMMEN = GAMES / "schwimmen.rcy"
SECRET = "SECRET-LINE-4711 of a file that is not a game ("
# every byte that could drive a terminal, and the characters that reorder or split lines
HOSTILE = (
    "\x1b]0;pwned\x07\x1b]8;;http://evil.example/\x1b\\link\x1b]8;;\x1b\\\x1b]52;c;cm0gLXJmIH4=\x07"
    "\x1b[2J\x1b[31m\x9b1m\r\x08\x7f\u202eexe.rcy\u2028\u2029\ud800"
)
FORBIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def cli(*args, cwd=None, stdin=None):
    """``recycle ARGS`` in a process of its own: its real output streams, as a terminal gets them."""
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    r = subprocess.run(
        [sys.executable, "-m", "recycle", *map(str, args)],
        capture_output=True,
        cwd=cwd or ROOT,
        env=env,
        input=stdin,
        timeout=300,
    )
    return r.returncode, r.stdout.decode("utf-8", "surrogateescape"), r.stderr.decode("utf-8", "surrogateescape")


def clean(text: str) -> bool:
    """No control character, bidi override or line separator, and valid UTF-8 (no escaped byte)."""
    return not FORBIDDEN.search(text) and not any(0xDC80 <= ord(c) <= 0xDCFF for c in text)


def record_beside_its_game(folder, seed=5):
    """A genuine record in ``folder``, with a copy of its game beside it."""
    shutil.copy(SCHWIMMEN, folder / "schwimmen.rcy")
    out = folder / "game.json"
    r = runner.invoke(app, ["run", str(folder / "schwimmen.rcy"), "--seed", str(seed), "--record", str(out)])
    assert r.exit_code == 0, r.output
    rec = json.loads(out.read_text())
    assert rec["game"] == "schwimmen.rcy"
    return out, rec


# -- item 7: a record opens only a file in its folder ----------------------------------------


def outside_file(tmp_path):
    """A file outside the record's folder that must never be read: a broken game with a secret line."""
    secret = tmp_path / "outside" / "secret.rcy"
    secret.parent.mkdir()
    secret.write_text(f"(game\n{SECRET}\n", encoding="utf-8")
    return secret


@pytest.mark.parametrize(
    "how", ["/etc/passwd", "../../etc/passwd", "absolute-secret", "dotdot-secret", "symlink", "symlinked-folder"]
)
def test_a_record_cannot_name_a_file_outside_its_folder(tmp_path, how):
    folder = tmp_path / "records"
    folder.mkdir()
    out, rec = record_beside_its_game(folder)
    secret = outside_file(tmp_path)
    name = {
        "/etc/passwd": "/etc/passwd",
        "../../etc/passwd": "../../etc/passwd",
        "absolute-secret": str(secret),
        "dotdot-secret": "../outside/secret.rcy",
        "symlink": "link.rcy",
        "symlinked-folder": "sub/secret.rcy",
    }[how]
    if how == "symlink":
        (folder / "link.rcy").symlink_to(secret)
    if how == "symlinked-folder":
        (folder / "sub").symlink_to(secret.parent, target_is_directory=True)
    rec["game"] = name
    out.write_text(json.dumps(rec))
    for extra in ([], ["--text"], ["--force"]):
        code, stdout, stderr = cli("replay", out, *extra)
        assert code == 1, (stdout, stderr)
        assert 'the record\'s "game" field names' in stderr and repr(name) in stderr and "refused" in stderr
        assert "Traceback" not in stderr
        assert SECRET not in stdout + stderr and "root:" not in stdout + stderr


def test_the_hash_is_compared_before_the_game_is_parsed(tmp_path):
    out, rec = record_beside_its_game(tmp_path)
    (tmp_path / "broken.rcy").write_text(f"(game\n{SECRET}\n", encoding="utf-8")
    rec["game"] = "broken.rcy"
    out.write_text(json.dumps(rec))
    code, stdout, stderr = cli("replay", out)
    assert code == 1
    assert "the game file is not the one recorded (its SHA-256 differs)" in stderr
    assert "syntax error" not in stderr and SECRET not in stdout + stderr
    # --force does parse it (the person asked for it), and says what is wrong with it
    code, _, stderr = cli("replay", out, "--force")
    assert code == 1 and "syntax error" in stderr


def test_a_game_outside_the_folder_is_named_by_its_file_name_and_found_with_game_folder(tmp_path):
    out = tmp_path / "game.json"
    r = runner.invoke(app, ["run", str(SCHWIMMEN), "--seed", "3", "--record", str(out)])
    assert r.exit_code == 0, r.output
    assert f"--game-folder {GAMES}" in r.stderr  # run says how to replay it
    assert json.loads(out.read_text())["game"] == "schwimmen.rcy"
    r = runner.invoke(app, ["replay", str(out)])
    assert r.exit_code == 1 and "is not there" in r.stderr and "--game-folder" in r.stderr
    r = runner.invoke(app, ["replay", str(out), "--game-folder", str(GAMES)])
    assert r.exit_code == 0, r.output
    assert "replay identical to the record: deal #3" in r.stderr
    r = runner.invoke(app, ["replay", str(out), "--game-folder", str(tmp_path / "missing")])
    assert r.exit_code == 2 and "--game-folder" in r.stderr


def test_a_game_below_the_records_folder_is_stored_relative_and_replays(tmp_path, monkeypatch):
    (tmp_path / "games").mkdir()
    shutil.copy(SCHWIMMEN, tmp_path / "games" / "schwimmen.rcy")
    monkeypatch.chdir(tmp_path)
    r = runner.invoke(app, ["run", "games/schwimmen.rcy", "--seed", "2", "--record", "r.json"])
    assert r.exit_code == 0 and "note:" not in r.stderr
    assert json.loads((tmp_path / "r.json").read_text())["game"] == "games/schwimmen.rcy"
    assert runner.invoke(app, ["replay", "r.json"]).exit_code == 0


# -- item 8: nothing from a record or a game file drives the terminal ------------------------


def tamper(rec: dict, field: str) -> dict:
    """``rec`` with HOSTILE text in the string field ``field`` (every string of it)."""
    rec = json.loads(json.dumps(rec))
    if field == "deal":
        rec["deal"] = {k + HOSTILE: [c + HOSTILE for c in v] for k, v in rec["deal"].items()}
    elif field in ("description", "revealed"):
        for d in rec["decisions"]:
            d[field] = HOSTILE + d[field]
    elif field == "players":
        rec["players"] = ["random" + HOSTILE] + rec["players"][1:]
    else:
        rec[field] = rec[field] + HOSTILE
    return rec


@pytest.mark.parametrize("field", ["game_name", "recycle", "deal", "description", "revealed", "players", "game"])
def test_a_tampered_records_strings_reach_the_terminal_escaped(tmp_path, field):
    out, rec = record_beside_its_game(tmp_path)
    out.write_text(json.dumps(tamper(rec, field)))  # \ud800 written as JSON writes it, read back as itself
    for extra in (["--text", "--reveal"], ["--text"], [], ["--reveal"]):
        code, stdout, stderr = cli("replay", out, *extra)
        assert code in (0, 1), (field, extra, stderr)
        assert "Traceback" not in stderr
        assert clean(stdout) and clean(stderr), (field, extra, stdout[-500:], stderr[-500:])
    # the record plays back (the game goes as recorded), its text shown escaped
    if field in ("game_name", "recycle"):
        assert cli("replay", out)[0] == 0
    if field in ("game_name", "description"):
        code, stdout, stderr = cli("replay", out, "--text")
        assert code == (0 if field == "game_name" else 1)  # a changed description: the replay differs
        # --text says the decisions in the game's words: a description shows only where it differs
        shown = stdout if field == "game_name" else stderr
        assert "\\u001b]0;pwned\\u0007" in shown and "\\u202eexe.rcy\\u2028\\u2029\\ud800" in shown


@pytest.mark.slow  # (5-6 s: the fast suite must stay under 5 minutes on 2 cores)
def test_game_file_names_and_quoted_lines_are_escaped(tmp_path):
    evil = tmp_path / "evil\x1b]0;pwned\x07\u202e.rcy"
    shutil.copy(GAMES / "schwimmen-lives.rcy", evil)
    for args in (["run", evil, "--seed", "1"], ["check", evil], ["simulate", evil, "-n", "2"]):
        code, stdout, stderr = cli(*args)
        assert code == 0, stderr
        assert clean(stdout) and clean(stderr), (args, stdout[:300], stderr[:300])
        assert "evil\\u001b]0;pwned\\u0007\\u202e" in stdout + stderr
    # JSON: the escapes are JSON's own, so the output is still JSON, and means the same name
    code, stdout, stderr = cli("run", evil, "--seed", "1", "--json")
    assert code == 0 and clean(stdout) and json.loads(stdout)["game"] == evil.stem
    # (a game quit is saved in the current folder: the test's own)
    code, stdout, stderr = cli("play", evil, "--deal", "1", "--players", "random", stdin=b"q\n", cwd=tmp_path)
    assert code == 0, stderr
    assert "evil\\u001b]0;pwned\\u0007\\u202e · deal #1" in stdout
    assert clean(stdout) and clean(stderr)
    # a comment may hold anything: a syntax error quotes its line escaped, the caret under the place
    broken = tmp_path / "broken.rcy"
    broken.write_text("(game ; \x1b]0;pwned\x07 \x1b[2J\n (setup % \x1b]52;c;eA==\x07\n", encoding="utf-8")
    code, stdout, stderr = cli("check", broken)
    assert code == 1 and clean(stdout) and clean(stderr)
    assert "\\u001b]0;pwned\\u0007 \\u001b[2J" in stderr  # the (game line: the form never closed
    code, _, stderr = cli("run", broken)
    assert code == 1 and clean(stderr)


def test_printable_keeps_text_and_escapes_what_drives_a_terminal():
    from recycle.errors import printable

    assert printable("A♠ 10♥ Schwimmen é ü 👍🏽 👨‍👩‍👧") == "A♠ 10♥ Schwimmen é ü 👍🏽 👨‍👩‍👧"
    assert printable("a\x1b]0;t\x07b") == "a\\u001b]0;t\\u0007b"
    assert (
        printable("\x9b\x7f\u202e\u2066\u2028\u2029\ud800\r")
        == "\\u009b\\u007f\\u202e\\u2066\\u2028\\u2029\\ud800\\u000d"
    )
    assert printable("a\nb\tc", keep="\n\t") == "a\nb\tc" and printable("a\nb") == "a\\u000ab"


def test_the_screen_of_play_on_a_terminal_escapes_the_games_name(tmp_path):
    import pexpect

    evil = tmp_path / "evil\x1b]0;pwned\x07.rcy"
    shutil.copy(GAMES / "schwimmen-lives.rcy", evil)
    env = {**os.environ, "TERM": "xterm-256color", "LANG": "C.UTF-8", "PYTHONIOENCODING": "utf-8"}
    child = pexpect.spawn(
        sys.executable,
        ["-m", "recycle", "play", str(evil), "--deal", "1", "--players", "random"],
        env=env,
        encoding="utf-8",
        dimensions=(70, 160),
        timeout=120,
        cwd=tmp_path,
    )
    child.expect(r"Your choice \(1-\d+, h, u, r, q\): ")
    screen = child.before
    child.sendline("q")
    child.expect(pexpect.EOF)
    assert "\x1b[" in screen  # rich still draws in colour: its own sequences are not escaped
    assert "evil\\u001b]0;pwned\\u0007 · deal #1" in screen
    assert "\x1b]" not in screen + child.before and "\x07" not in screen + child.before


@pytest.mark.skipif(os.name == "nt", reason="a backslash separates parts of a path on Windows")
@pytest.mark.slow  # (5-7 s: the fast suite stays under 5 minutes on 2 cores)
def test_a_game_whose_name_holds_a_backslash_replays_from_its_record(tmp_path):
    """A backslash is a character of a file name here, not a way up and out: the record of a
    game named ``a\\b.rcy`` (inside the record's folder) replays (found by tools/fuzz.py
    --kind names: the reader took it for a separator, then for an absolute path)."""
    for name in ("a\\b.rcy", "\\lead.rcy", "..\\..\\up.rcy", "C:drive.rcy"):
        shutil.copy(SCHWIMMEN, tmp_path / name)
        code, out, err = cli("run", name, "--seed", "3", "--record", "rec.json", cwd=tmp_path)
        assert code == 0, err
        assert json.loads((tmp_path / "rec.json").read_text())["game"] == name
        code, out, err = cli("replay", "rec.json", cwd=tmp_path)
        assert code == 0 and "replay identical" in err, (name, out, err)
