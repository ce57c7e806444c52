"""The largest game files allowed, in the shapes that cost the most to check.

``recycle check`` of any file of at most ``reader.MAX_SOURCE_BYTES`` must finish in about two
seconds and well under 500 MB (issue 25). What costs most per byte is many small forms: a
choice of thousands of options, thousands of choices in a row (each resumes the rest of its
turn), thousands of stages, thousands of actions, and a condition of thousands of terms.
``largest_files`` writes each of these up to the size limit; tests/limits/test_largest_files.py checks
them in a process of their own (memory), and ``python tools/bench.py limits`` times them.
"""

from __future__ import annotations

from ..lang.syntax.reader import MAX_SOURCE_BYTES

HEAD = """(game
 (setup (create players 2)
  (create deck (game iloc STOCK) (deck (RANK (A, B, C)) (SUIT (X, Y)))))
 (stage player (end (== (size (game iloc STOCK)) 0))
"""
TAIL = """ )
 (scoring max 0))
"""
MOVE = "(move (top (game iloc STOCK)) (top ((current player) iloc HAND)))"
# name: (what opens the repeated part, the part repeated, what closes it)
SHAPES = {
    "one choice of many options": ("  (choice (\n", f"   {MOVE}\n", "  ))\n"),
    "many choices in a row": ("", f"  (choice ({MOVE}))\n", ""),
    "many stages": ("", f"  (stage player (end (== (size (game iloc STOCK)) 0)) (choice ({MOVE})))\n", ""),
    "many actions": ("  (do (\n", "   (shuffle (game iloc STOCK))\n", "  ))\n"),
    "a condition of many terms": (
        "  (do (((or",
        " (== (size (game iloc STOCK)) 1)",
        ") (shuffle (game iloc STOCK)))))\n",
    ),
}


def largest_files(limit: int = MAX_SOURCE_BYTES) -> dict[str, str]:
    """Each shape of ``SHAPES`` as a valid game of at most ``limit`` bytes (within one part of it)."""
    files = {}
    for name, (opening, part, closing) in SHAPES.items():
        fixed = len(HEAD) + len(opening) + len(closing) + len(TAIL)
        files[name] = HEAD + opening + part * ((limit - fixed) // len(part)) + closing + TAIL
    return files


__all__ = ["largest_files", "SHAPES"]
