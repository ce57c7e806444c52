#!/usr/bin/env python3
"""Print the reference of every RECYCLE form, from the form registry, as Markdown.

    python tools/forms_doc.py > docs/forms.md      # the table of every form
    python tools/forms_doc.py --reference          # refresh the form tables of docs/reference.md

Each form's row comes from the method that compiles it: the syntax of its ``@form``, the
first paragraph of its docstring, and its facts (draws random numbers, pure).
``tests/lang/test_form_registry.py`` checks that ``docs/forms.md`` is this output.

``docs/reference.md`` is written by hand except for its form tables: each sits between a line
``<!-- forms: KIND ... -->`` and a line ``<!-- end forms -->`` and lists the registry's forms of
those kinds (``Kind`` in ``recycle/lang/forms/registry.py``). ``--reference`` rewrites those tables in
place; ``tests/docs/test_docs.py`` checks that they are current and that every form is there.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from recycle.lang.forms.flow import REGISTRY  # noqa: E402
from recycle.lang.forms.registry import Kind  # noqa: E402

REFERENCE = ROOT / "docs" / "reference.md"
BLOCK = re.compile(r"(<!-- forms: ([a-z ]+) -->\n)(.*?)(<!-- end forms -->)", re.S)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def kind_table(kinds: list[str]) -> str:
    """The Markdown table of the registry's forms of ``kinds``: syntax, meaning, draws."""
    unknown = sorted(set(kinds) - set(Kind.ALL))
    if unknown:
        raise ValueError(f"unknown kind(s) in docs/reference.md: {', '.join(unknown)}")
    order = {k: i for i, k in enumerate(Kind.ALL)}
    chosen = sorted((f for f in REGISTRY.forms if f.kind in kinds), key=lambda f: (order[f.kind], f.name, f.syntax))
    lines = ["| Syntax | Meaning |", "|---|---|"]
    for f in chosen:
        syntax = "<br>".join(f"`{_cell(a)}`" for a in f.syntax.split(" | "))
        note = " *Draws random numbers.*" if f.draws else ""
        lines.append(f"| {syntax} | {_cell(f.meaning)}{note} |")
    return "\n".join(lines) + "\n"


def fill_reference(text: str) -> str:
    """``text`` (docs/reference.md) with every form table rewritten from the registry."""
    return BLOCK.sub(lambda m: m.group(1) + "\n" + kind_table(m.group(2).split()) + "\n" + m.group(4), text)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--reference"]:
        REFERENCE.write_text(fill_reference(REFERENCE.read_text()))
        return 0
    if argv:
        sys.stderr.write(__doc__)
        return 2
    sys.stdout.write(REGISTRY.markdown())
    return 0


if __name__ == "__main__":
    sys.exit(main())
