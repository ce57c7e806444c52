"""docs/tutorial.md cannot drift from the code: its game files are written out and its
commands run, and what it shows must be what ``recycle`` prints.

The tutorial's conventions, read here:

* ``<!-- file: NAME -->`` before an ``rcy`` block: the block is the whole file NAME;
  ``<!-- file: NAME = SOURCE with "A" replaced by "B" -->``: NAME is SOURCE with one text
  replaced (the block shows the changed line, which must be in NAME);
* ``<!-- excerpt: PATH -->`` before an ``rcy`` block: the block is a part of PATH (a game of
  ``games/`` or a file written above), spaces at the ends of lines aside;
* a ``console`` block: ``$ recycle ...`` lines are commands, run from a folder that holds the
  written files and ``games/``; the lines after a command are its output, in order, where a
  line ``...`` stands for any lines and ``...`` inside a line for any text.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from recycle.cli.main import app

ROOT = Path(__file__).resolve().parents[2]
TUTORIAL = (ROOT / "docs" / "tutorial.md").read_text()
BLOCK = re.compile(r"(?:<!-- (?P<marker>[^\n]*?) -->\n)?```(?P<lang>\w+)\n(?P<body>.*?)```", re.S)
runner = CliRunner()


def blocks():
    return [(m.group("marker"), m.group("lang"), m.group("body")) for m in BLOCK.finditer(TUTORIAL)]


def written_files() -> dict[str, str]:
    """The files the tutorial writes, by name, in order."""
    files: dict[str, str] = {}
    for marker, _lang, body in blocks():
        if not marker or not marker.startswith("file: "):
            continue
        spec = marker[len("file: ") :]
        derived = re.fullmatch(r'(\S+) = (\S+) with "(.*)" replaced by "(.*)"', spec)
        if derived:
            name, source, old, new = derived.groups()
            text = (ROOT / source).read_text()
            assert text.count(old) == 1, f"{source} should hold {old!r} once"
            files[name] = text.replace(old, new)
            assert body.strip() in files[name], f"the block shown for {name} is not in it"
        else:
            files[spec] = body
    return files


def normalized(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.splitlines())


def commands():
    """(command line, expected output lines) of every console block."""
    out = []
    for _marker, lang, body in blocks():
        if lang != "console":
            continue
        current = None
        for line in body.splitlines():
            if line.startswith("$ "):
                current = (line[2:], [])
                out.append(current)
            else:
                assert current is not None, f"console output before any command: {line!r}"
                current[1].append(line)
    return out


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("tutorial")
    (d / "games").symlink_to(ROOT / "games")
    for name, text in written_files().items():
        (d / name).write_text(text)
    return d


def matches(shown: list[str], actual: list[str]) -> str | None:
    """None when the shown lines are the actual ones (with ``...`` gaps), else why not."""
    i = 0
    gap = False
    for line in shown:
        if line.strip() == "...":
            gap = True
            continue
        pattern = re.compile(".*".join(re.escape(part) for part in line.rstrip().split("...")))
        while i < len(actual) and not pattern.fullmatch(actual[i].rstrip()):
            if not gap:
                return f"expected {line!r}, got {actual[i]!r}"
            i += 1
        if i == len(actual):
            return f"{line!r} is not in the output"
        i += 1
        gap = False
    if i < len(actual) and not gap:
        return f"more output than shown: {actual[i]!r}"
    return None


def test_the_tutorial_has_what_the_issue_asks_for():
    cmds = " ".join(c for c, _ in commands())
    for word in ("check", "run", "--reveal", "simulate", "graph", "--max-steps"):
        assert word in cmds
    files = written_files()
    assert {"war-first.rcy", "war-second.rcy", "eights-slip.rcy"} <= set(files)
    for game in ("games/war.rcy", "games/crazy-eights.rcy", "games/oh-hell.rcy"):
        assert game in cmds
    assert (ROOT / "docs" / "img" / "war-flow.png").exists()


def test_excerpts_are_parts_of_their_files():
    files = written_files()
    for marker, _lang, body in blocks():
        if marker and marker.startswith("excerpt: "):
            path = marker[len("excerpt: ") :]
            text = files[path] if path in files else (ROOT / path).read_text()
            assert normalized(body).strip("\n") in normalized(text), f"excerpt of {path} differs:\n{body}"


@pytest.mark.parametrize("command, shown", commands(), ids=[c for c, _ in commands()])
def test_command_prints_what_the_tutorial_shows(command, shown, folder, monkeypatch):
    args = shlex.split(command)
    assert args[0] == "recycle"
    monkeypatch.chdir(folder)
    r = runner.invoke(app, args[1:])
    assert "Traceback" not in r.output
    actual = r.output.splitlines()
    # a command that fails prints its transcript on stdout and the error after it (stderr)
    if r.exit_code == 1 and hasattr(r, "stderr") and r.stderr:
        actual = r.stdout.splitlines() + r.stderr.splitlines()
    problem = matches(shown, actual)
    assert problem is None, f"{command}: {problem}\n--- actual output:\n" + "\n".join(actual)
    for arg in args:
        if arg.endswith(".png"):
            assert (folder / arg).stat().st_size > 1000
