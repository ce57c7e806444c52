"""What other rooms still import from here, where it used to live (issue 41 broke this module
up): the s-expression's shape tests and scopes are the elaborator's (``lang/nodes/sexpr.py``),
the runtime errors, limits and work budget the closures' (``runtime.py``), the language's
keywords the registry's (``registry.known_words``), a group list's runs ``expr_groups``'.
Nothing is defined here; new code imports from those modules.
"""

from __future__ import annotations

from ..nodes.sexpr import (  # noqa: F401 - re-exported for native/, engine/, study/, lang/reading (issue 41)
    MAX_COLLECTION,
    STORAGE_SORTS,
    Const,
    Scope,
    declared_forms,
    deck_combinations,
    fail,
    head_of,
    is_atom,
    is_location_form,
    is_storage_form,
    kw,
    literal_names,
    literal_range,
)
from .registry import known_words  # noqa: F401 - likewise (studio/runs.py)
