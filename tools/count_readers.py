"""Count how much of recycle reads the raw language (issue 41): the modules that import or name
``SList`` and the comparisons of form head strings outside the form registry.

A head-string comparison is a comparison (``==``, ``!=``, ``in``, ``not in``) of a form's head
or an atom's value (``head_of(x)``, ``x.head``, ``x.items[0].value``, a name ``h``/``head``)
against a string literal (or a tuple/set/list of them) that is a form's head or a structural
keyword, or a call of ``kw(...)``/``is_atom(...)`` naming one. (Comparisons of the same strings
in other roles, such as an event's action "move" or an owner kind "team", are not counted.) Run from the repository's root:

    python tools/count_readers.py            # the totals
    python tools/count_readers.py --detail   # per module
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import recycle.lang.forms.flow  # noqa: E402,F401 - assembles and seals the registry
from recycle.lang.forms.registry import STRUCTURAL_HEADS, registry  # noqa: E402

HEADS = frozenset(registry().all_heads) | STRUCTURAL_HEADS
# the modules allowed to read the raw forms and compare heads: the syntax room, the elaborator
# (recycle/lang/nodes, issue 41), the readings of the forms kept whole in their own modules
# (recycle/lang/forms/form_*.py: each form's reading is part of the elaborator) and the registry
EXEMPT = ("recycle/lang/syntax/", "recycle/lang/nodes/", "recycle/lang/forms/form_")
EXEMPT_HEADS = ("recycle/lang/forms/registry.py", *EXEMPT)


def _strings(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.Set, ast.List)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def _reads_a_head(node: ast.AST) -> bool:
    """Is ``node`` a form's head or an atom's value: head_of(x), x.head, x.value, x.items[i], h?"""
    if isinstance(node, ast.Call):
        return getattr(node.func, "id", getattr(node.func, "attr", "")) == "head_of"
    if isinstance(node, ast.Attribute):
        return node.attr in ("head", "value") or _reads_a_head(node.value)
    if isinstance(node, ast.Subscript):
        return isinstance(node.value, ast.Attribute) and node.value.attr == "items"
    return isinstance(node, ast.Name) and node.id in ("h", "head", "hd")


def head_comparisons(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, head) of each comparison of a form's head string in ``tree``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            parts = (node.left, *node.comparators)
            if any(_reads_a_head(p) for p in parts):
                for part in parts:
                    found.extend((node.lineno, s) for s in _strings(part) if s in HEADS)
        elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in (
            "kw",
            "is_atom",
        ):
            for arg in node.args[1:]:
                found.extend((node.lineno, s) for s in _strings(arg) if s in HEADS)
    return found


def count(root: Path = ROOT) -> dict:
    """{'slist': [modules], 'heads': {module: [(line, head)]}} over recycle/, outside the
    syntax room and the elaborator (and the registry, for heads)."""
    slist, heads = [], {}
    for path in sorted((root / "recycle").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        text = path.read_text()
        if "SList" in text and not rel.startswith(EXEMPT):
            slist.append(rel)
        if not rel.startswith(EXEMPT_HEADS):
            hits = head_comparisons(ast.parse(text))
            if hits:
                heads[rel] = hits
    return {"slist": slist, "heads": heads}


def main(argv: list[str]) -> None:
    c = count()
    total = sum(len(v) for v in c["heads"].values())
    print(
        f"modules naming SList outside the syntax room and the elaborator (forms' readings included): {len(c['slist'])}"
    )
    print(f"head-string comparisons outside the registry: {total} in {len(c['heads'])} modules")
    if "--detail" in argv:
        for m in c["slist"]:
            print(f"  SList  {m}")
        for m, hits in c["heads"].items():
            print(f"  heads  {m}: {len(hits)} ({', '.join(sorted({h for _, h in hits}))})")


if __name__ == "__main__":
    main(sys.argv[1:])
