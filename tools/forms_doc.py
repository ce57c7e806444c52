#!/usr/bin/env python3
"""Print the reference of every RECYCLE form, from the form registry, as Markdown.

    python tools/forms_doc.py > docs/forms.md

Each form's row comes from the method that compiles it: the syntax of its ``@form``, the
first paragraph of its docstring, and its facts (draws random numbers, pure).
``tests/test_forms.py`` checks that ``docs/forms.md`` is this output.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from recycle.lang.flow import REGISTRY  # noqa: E402


def main() -> int:
    sys.stdout.write(REGISTRY.markdown())
    return 0


if __name__ == "__main__":
    sys.exit(main())
