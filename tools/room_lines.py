"""Lines of ``recycle/`` per room at a git revision, for issue 41's "lines before and after, per
room" (read from git, so any two revisions compare without a checkout). Run from the
repository's root:

    python tools/room_lines.py                 # the working tree's HEAD
    python tools/room_lines.py 370ac15^ HEAD   # two revisions side by side
"""

from __future__ import annotations

import subprocess
import sys

ROOMS = (
    "lang/syntax",
    "lang/nodes",
    "lang/forms",
    "lang/python",
    "lang/reading",
    "engine",
    "native",
    "players",
    "study",
    "env",
    "cli",
    "studio",
)


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


def room_lines(rev: str) -> dict[str, int]:
    """{room: lines of its Python files} at ``rev``, with ``other`` and ``total``."""
    counts = dict.fromkeys((*ROOMS, "other"), 0)
    for path in _git("ls-tree", "-r", "--name-only", rev, "recycle").split():
        if not path.endswith(".py"):
            continue
        lines = _git("show", f"{rev}:{path}").count("\n")
        inside = path.removeprefix("recycle/")
        room = next((r for r in ROOMS if inside.startswith(r + "/")), "other")
        counts[room] += lines
    counts["total"] = sum(counts.values())
    return counts


def main(revs: list[str]) -> None:
    """Print a table of lines per room, a column per revision."""
    revs = revs or ["HEAD"]
    columns = [room_lines(r) for r in revs]
    print(f"{'room':<14}" + "".join(f"{r:>12}" for r in revs))
    for room in columns[0]:
        print(f"{room:<14}" + "".join(f"{c[room]:>12}" for c in columns))


if __name__ == "__main__":
    main(sys.argv[1:])
