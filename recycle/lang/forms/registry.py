"""The registry of RECYCLE's forms: each form is defined once, by the method compiling it.

A form is declared by a decorator on that one method, with the facts other parts of the
interpreter need about it::

    @form("sum", "(sum LOCATION using POINTS)", Kind.INT, pure=True, expensive=True)
    def int_sum(self, x, scope):
        \"\"\"(sum LOCATION using POINTS)

        The total score of the cards under the point map (0 for no cards).\"\"\"

The compiler's entry points (``c_int``, ``c_bool``, ``c_item`` ...) find a form's method by
its kind and head keyword (``Registry.lookup``); heads shared by several kinds (``top``,
``any``, ``all``, ``let`` ...) are registered once per kind. The side tables other modules
use (which heads draw random numbers, which are pure and worth caching, which bind a
variable or loop, which actions put cards into a location, the roles and words other modules
read instead of comparing head keywords) are derived from the records by
``seal``. The compiler's assembly (``flow.py``) calls it at import, once every mixin is
defined; it checks the registry and raises ``FormError`` on any inconsistency. Adding a
form is one decorated method; ``tools/forms_doc.py`` lists the registry as ``docs/forms.md``.
"""

from __future__ import annotations

import inspect
import re
import sys
from dataclasses import dataclass, field
from collections.abc import Callable, Iterable

from ...errors import RecycleBug
from ..nodes.base import Kind, use_registry
from ..nodes.sexpr import LOCATION_KINDS, STORAGE_SORTS, set_known_words


# keywords that head a list which is not a form of its own: the sections of a game, a
# stage's (end ...), the (deck ...) of a create, and the owners and cycle positions of
# (game vloc X), (current player), (next team) ...
STRUCTURAL_HEADS = frozenset({"game", "declare", "setup", "scoring", "end", "deck", "current", "next", "previous"})


class FormError(RecycleBug):
    """The form registry is inconsistent (a bug in recycle's compiler, found at import)."""


@dataclass(frozen=True)
class Form:
    """One RECYCLE form: its syntax, what it produces, and how it is compiled.

    ``head`` is the keyword in head position (None for a structural form, such as the
    conditional ``((CONDITION) ITEM)``, which ``label`` names instead). ``compile`` is the
    method: ``(self, x, scope)`` returning a closure ``f(state, env)`` (card forms also take
    ``optional``), or an ``Item`` for actions and flow.

    Facts: ``draws`` — it draws from the game's random numbers; ``pure`` — its value
    depends only on its operands and the cards and point maps it reads (no storage, turn
    order or card owner, no random numbers), so it may be cached by those cards;
    ``expensive`` — it does enough work over its cards that caching pays; ``binds`` — it
    binds a variable, ``(HEAD X 'VARIABLE BODY)``; ``loops`` — it also runs BODY once per
    element of the collection X (a binder); ``puts`` — item positions of an action whose
    locations receive cards; ``sets`` — the item position of the storage it sets; ``role`` —
    what other modules treat it as (one of ``ROLES``); ``words`` — how ``recycle tree``
    writes it on one line: templates, the first whose fields fit the form's items (see
    ``WORDS_FIELD``; a form without words is written as its s-expression).
    """

    head: str | None
    syntax: str
    kind: str
    compile: Callable = field(repr=False)
    draws: bool = False
    pure: bool = False
    expensive: bool = False
    binds: bool = False
    puts: tuple = ()
    sets: int | None = None
    label: str = ""
    loops: bool = False
    role: str = ""
    words: tuple = ()
    node: type | tuple | None = None
    reads: Callable | None = field(default=None, repr=False)

    @property
    def nodes(self) -> tuple:
        """The node classes this form's method compiles (``node``: one, or a tuple of the
        shapes of one form, such as ``(swap LOCATION LOCATION)`` and ``(swap CARD CARD)``)."""
        return () if self.node is None else self.node if isinstance(self.node, tuple) else (self.node,)

    @property
    def name(self) -> str:
        """The head keyword, or the label of a structural form."""
        return self.head if self.head is not None else self.label

    @property
    def method(self) -> str:
        return self.compile.__name__

    @property
    def meaning(self) -> str:
        """The docstring's first paragraph after the syntax line, on one line."""
        doc = inspect.cleandoc(self.compile.__doc__ or "")
        paragraphs = doc.split("\n\n")
        return " ".join(paragraphs[1].split()) if len(paragraphs) > 1 else ""


# the roles a form may declare (``role=``), read by the structure tree (recycle/study/structure.py),
# `recycle check` (lint.py) and the work budget (costs.py) instead of the form's head keyword
ROLES = {
    "stage": "a stage: players take turns until its end condition (a box of the tree)",
    "choice": "a choice: the current player picks one of its options",
    "block": "a block: its items in order (in a body, it only groups them)",
    "loop": "a loop running its item once per element of a collection",
    "offer": "a loop which, in a choice, offers one option per element",
    "binding": "binds a variable to a value for its item",
    "repeat": "repeats its action N times (a loop of the tree when that action is a block or loop)",
    "create": "creates the deck, the players or the teams (setup)",
    "junction": "joins conditions (and, or): bracketed in other words, unless the same junction",
    "quantifier": "a condition or collection over a collection: its words run to the end of the line, "
    "so they are bracketed in other words",
    "players": "a collection of players or teams: at most one element per player",
    "equality": "compares two values for (in)equality",
    "attribute": "an attribute of a card",
    "member": "the name of a member of a family of locations, (member NAME INDEX)",
}
# a field of a ``words`` template: {N} item N in words; {N~} bracketed as the template's
# words need; {N:T} item N read by T (each: items N and N+1 as "player 'P" or "'V in COLL";
# action; atom; points; count; cards; keys: see structure.py); {N=KEYWORD} item N is that
# keyword; {N*SEP} / {N+SEP} items N... (none or more / one or more) joined by SEP
WORDS_FIELD = re.compile(r"\{(\d+)(~|:[a-z]+|=[a-z]+)?(?:([*+])([^{}]*))?\}")
TRANSFORMS = ("each", "action", "atom", "points", "count", "cards", "keys")

_FORMS: list[Form] = []
_BY_KEY: dict[tuple[str, str], Form] = {}
_MENTIONS: list[tuple[str, frozenset]] = []
_SEALED: list = []  # [Registry] once sealed
_FAMILIES: list[type] = []


def family(cls: type) -> type:
    """Class decorator: ``cls`` holds forms' compile methods, a mixin of the compiler
    (``flow.py``'s ``FlowCompiler`` takes every family, in the order they were declared)."""
    if cls not in _FAMILIES:
        _FAMILIES.append(cls)
    return cls


def families() -> tuple:
    """Every family of forms declared so far (``family``)."""
    return tuple(_FAMILIES)


def form(
    head: str | None,
    syntax: str,
    kind: str,
    *,
    draws: bool = False,
    pure: bool = False,
    expensive: bool = False,
    binds: bool = False,
    puts: tuple = (),
    sets: int | None = None,
    label: str = "",
    loops: bool = False,
    role: str = "",
    words: str | tuple = (),
    node: type | tuple | None = None,
    reads: Callable | None = None,
) -> Callable:
    """Decorator registering the method that compiles a form (see the module docstring).

    A form kept whole in one module (``form_indexed.py``) also names its node class (``node``:
    the compiler's entry points hand that class's nodes to this method; a tuple of classes
    for a form read into one node per shape, as ``swap``) and its reading
    (``reads(elaborator, x, scope)``: the s-expression ``x`` turned into that node, with its
    positioned errors), which the elaborator finds here."""

    def register(fn: Callable) -> Callable:
        if hasattr(fn, "__form__"):
            raise FormError(f"{fn.__qualname__} is registered twice (one decorated method per form)")
        if kind not in Kind.ALL:
            raise FormError(f"{fn.__qualname__}: unknown kind {kind!r} (one of {', '.join(Kind.ALL)})")
        f = Form(
            head,
            syntax,
            kind,
            fn,
            draws,
            pure,
            expensive,
            binds,
            tuple(puts),
            sets,
            label,
            loops,
            role,
            (words,) if isinstance(words, str) else tuple(words),
            node,
            reads,
        )
        if head is not None:
            key = (kind, head)
            if key in _BY_KEY:
                raise FormError(
                    f"the {kind} form ({head} ...) is registered twice: by "
                    f"{_BY_KEY[key].compile.__qualname__} and {fn.__qualname__}"
                )
            _BY_KEY[key] = f
        _FORMS.append(f)
        fn.__form__ = f
        if node is not None:
            fn.reads_node = True  # handed its node by the entry points (``reads.py``)
        return fn

    return register


def mention(where: str, heads: Iterable[str]) -> None:
    """Declare the heads a module names in its own rules; ``seal`` checks each has a form."""
    heads = frozenset(heads)
    _MENTIONS.append((where, heads))
    if _SEALED:
        _check_mentions(_SEALED[0])


@dataclass(frozen=True)
class Registry:
    """Every form, and the tables derived from them."""

    forms: tuple
    by_key: dict = field(repr=False)
    heads: dict = field(repr=False)  # kind -> heads of its forms
    only: dict = field(repr=False)  # kind -> heads registered for that kind and no other
    drawing: frozenset = frozenset()  # heads of forms that draw random numbers
    safe: frozenset = frozenset()  # heads whose expression forms are all pure
    expensive: frozenset = frozenset()  # heads of expression forms worth caching
    binders: frozenset = frozenset()  # heads of forms binding a variable
    operators: frozenset = frozenset()  # heads written as operators (+, ==, ...)
    puts: dict = field(default_factory=dict, repr=False)  # action head -> item positions receiving cards
    sets: dict = field(default_factory=dict, repr=False)  # action head -> item position of the storage set
    loops: frozenset = frozenset()  # heads of forms running a body per element of a collection
    roles: dict = field(default_factory=dict, repr=False)  # head -> the roles of its forms (any kind)
    words: dict = field(default_factory=dict, repr=False)  # head -> the words of its expression forms
    readings: dict = field(default_factory=dict, repr=False)  # compile method -> reading (``form(reads=)``)
    node_methods: dict = field(default_factory=dict, repr=False)  # node class -> compile method (``form(node=)``)

    def lookup(self, kind: str, head: str | None) -> Form | None:
        """The form of ``kind`` headed by ``head``, or None."""
        return self.by_key.get((kind, head))

    @property
    def all_heads(self) -> frozenset:
        return frozenset(h for hs in self.heads.values() for h in hs)

    def require(self, where: str, heads: Iterable[str]) -> None:
        """Raise FormError unless every one of ``heads`` is a registered form."""
        missing = sorted(set(heads) - self.all_heads)
        if missing:
            raise FormError(f"{where} names head(s) with no registered form: {', '.join(missing)}")

    def markdown(self) -> str:
        """The reference of every form as a Markdown table (``docs/forms.md``)."""

        def cell(text: str) -> str:
            return text.replace("|", "\\|")

        order = {k: i for i, k in enumerate(Kind.ALL)}
        lines = [
            "# RECYCLE forms",
            "",
            "Generated from the form registry (`recycle/lang/forms/registry.py`) by `python tools/forms_doc.py > "
            "docs/forms.md`; do not edit by hand. Each form is defined once, by the method that compiles it "
            "(the last column); docs/reference.md describes the language in full.",
            "",
            "*Draws*: the form uses the game's random numbers. *Pure*: its value depends only on its operands "
            "and the cards and point maps it reads, so a condition built of pure forms may be cached by those "
            "cards. A form without a head keyword (a conditional, an index) is read by its shape. Variables, "
            "literals, `(OWNER KIND NAME)` locations, `(HOLDER sto|str|points NAME)` storages and "
            "`(current|next|previous|N player|team)` are not listed.",
            "",
            "| Kind | Syntax | Meaning | Draws | Pure | Method |",
            "|---|---|---|---|---|---|",
        ]
        for f in sorted(self.forms, key=lambda f: (order[f.kind], f.name, f.syntax)):
            syntax = " or ".join(f"`{cell(a)}`" for a in f.syntax.split(" | "))
            lines.append(
                f"| {f.kind} | {syntax} | {cell(f.meaning)} | {'yes' if f.draws else ''} | "
                f"{'yes' if f.pure else ''} | `{f.method}` |"
            )
        return "\n".join(lines) + "\n"


def registry() -> Registry:
    """The sealed registry (the compiler is assembled: ``recycle.lang.forms.flow`` is imported)."""
    if not _SEALED:
        raise FormError(
            "the form registry is used before the compiler was assembled (import recycle.lang.forms.flow first)"
        )
    return _SEALED[0]


def _derive(forms: tuple) -> Registry:
    heads: dict = {k: frozenset(f.head for f in forms if f.kind == k and f.head is not None) for k in Kind.ALL}
    kinds_of: dict = {}
    for f in forms:
        if f.head is not None:
            kinds_of.setdefault(f.head, set()).add(f.kind)
    only = {k: frozenset(h for h in heads[k] if kinds_of[h] == {k}) for k in Kind.ALL}
    expr = [f for f in forms if f.kind in Kind.EXPRESSIONS and f.head is not None]
    expr_heads = {f.head for f in expr}
    return Registry(
        forms=forms,
        by_key=dict(_BY_KEY),
        heads=heads,
        only=only,
        drawing=frozenset(f.head for f in forms if f.draws and f.head is not None),
        safe=frozenset(h for h in expr_heads if all(f.pure for f in expr if f.head == h)),
        expensive=frozenset(f.head for f in expr if f.expensive),
        binders=frozenset(f.head for f in forms if f.binds and f.head is not None),
        operators=frozenset(f.head for f in forms if f.head is not None and not f.head[0].isalpha()),
        puts={f.head: f.puts for f in forms if f.puts},
        sets={f.head: f.sets for f in forms if f.sets is not None},
        loops=frozenset(f.head for f in forms if f.loops and f.head is not None),
        roles={h: frozenset(f.role for f in forms if f.head == h and f.role) for h in kinds_of},
        words={h: tuple(dict.fromkeys(w for f in expr if f.head == h for w in f.words)) for h in expr_heads},
        readings={f.method: f.reads for f in forms if f.reads is not None},
        node_methods={n: f.method for f in forms for n in f.nodes},
    )


def _check_doc(f: Form) -> None:
    where = f"{f.compile.__qualname__} ({f.kind} form {f.name})"
    alternatives = f.syntax.split(" | ")
    if f.head is not None and not all(a.startswith(f"({f.head} ") or a == f"({f.head})" for a in alternatives):
        raise FormError(f"{where}: its syntax {f.syntax!r} does not start with ({f.head} ...)")
    if f.head is None and not f.label:
        raise FormError(f"{where}: a structural form (no head keyword) needs a label")
    if sys.flags.optimize >= 2:  # python -OO strips docstrings
        return
    doc = inspect.cleandoc(f.compile.__doc__ or "")
    if doc.split("\n", 1)[0].strip() != f.syntax:
        raise FormError(
            f"{where}: its docstring must start with its syntax {f.syntax!r}, not {doc.split(chr(10), 1)[0]!r}"
        )
    if not f.meaning:
        raise FormError(f"{where}: its docstring needs a sentence of meaning after the syntax line")


def _check_facts(f: Form) -> None:
    where = f"{f.compile.__qualname__} ({f.kind} form {f.name})"
    if f.draws and f.pure:
        raise FormError(f"{where}: a form that draws random numbers is not pure")
    if (f.puts or f.sets is not None) and f.kind != Kind.ACTION:
        raise FormError(f"{where}: puts/sets are facts of actions")
    if f.loops and not f.binds:
        raise FormError(f"{where}: a form that loops binds its variable (binds=True)")
    for node in f.nodes:
        if (getattr(node, "KIND", None), getattr(node, "HEAD", None)) != (f.kind, f.head):
            raise FormError(f"{where}: its node class {node.__name__} stands for another form")
    if f.role and f.role not in ROLES:
        raise FormError(f"{where}: unknown role {f.role!r} (one of {', '.join(ROLES)})")
    for template in f.words:
        for text in re.split(r"\{[^{}]*\}", template):
            if "{" in text or "}" in text:
                raise FormError(f"{where}: unbalanced braces in its words {template!r}")
        for m in re.finditer(r"\{[^{}]*\}", template):
            field_ = WORDS_FIELD.fullmatch(m.group())
            transform = field_.group(2) or "" if field_ else ""
            if field_ is None or (transform.startswith(":") and transform[1:] not in TRANSFORMS):
                raise FormError(
                    f"{where}: the field {m.group()} of its words {template!r} is not one of "
                    "{N}, {N~}, {N:T}, {N=KEYWORD}, {N*SEP}, {N+SEP} (T one of "
                    f"{', '.join(TRANSFORMS)})"
                )


def _check_families(compiler: type) -> None:
    """Every family is a mixin of ``compiler`` and none of its names is hidden by another
    mixin's (where one would silently stand for the other)."""
    for cls in _FAMILIES:
        if cls not in compiler.__mro__:
            raise FormError(f"the family {cls.__name__} is not a mixin of {compiler.__name__}")
        for name, value in vars(cls).items():
            if not name.startswith("__") and inspect.getattr_static(compiler, name) is not value:
                raise FormError(f"{cls.__name__}.{name} is hidden by another mixin's {name}")


def _check_mentions(reg: Registry) -> None:
    for where, heads in _MENTIONS:
        reg.require(where, heads)


def seal(compiler: type) -> Registry:
    """Check the registry against the assembled ``compiler`` class and derive its tables.

    Raises FormError unless: every decorated method is reachable on ``compiler`` under its
    own name (not shadowed by another mixin's method) and registered once; no (kind, head)
    is registered twice; every form's docstring starts with its syntax and a meaning; a
    form that draws is not pure; ``puts``/``sets`` are facts of actions only; a form that
    loops binds; roles are of ``ROLES`` and words are well-formed templates; and every
    head a module mentions, or a derived table holds, has a form.
    """
    forms = tuple(_FORMS)
    seen: dict = {}
    for f in forms:
        if id(f.compile) in seen:
            raise FormError(f"{f.compile.__qualname__} is registered twice")
        seen[id(f.compile)] = f
        if getattr(compiler, f.method, None) is not f.compile:
            raise FormError(
                f"{f.compile.__qualname__} (the {f.kind} form {f.name}) is not the method "
                f"{compiler.__name__}.{f.method}: shadowed by another mixin, or not a mixin of it"
            )
        _check_doc(f)
        _check_facts(f)
    for klass in compiler.__mro__:
        for name, fn in vars(klass).items():
            registered = getattr(fn, "__form__", None)
            if registered is not None and seen.get(id(fn)) is not registered:
                raise FormError(f"{klass.__name__}.{name} is decorated but not registered")
    _check_families(compiler)
    keys = [(f.kind, f.head) for f in forms if f.head is not None]
    if len(keys) != len(set(keys)):
        raise FormError("a (kind, head) is registered twice")
    reg = _derive(forms)
    derived = (
        reg.drawing | reg.safe | reg.expensive | reg.binders | reg.operators | reg.loops | set(reg.puts) | set(reg.sets)
    )
    reg.require("the derived tables", derived)
    _check_mentions(reg)
    _SEALED[:] = [reg]
    use_registry(reg)
    return reg


# the keywords the language knows besides those in the forms' syntax: location kinds, storage
# sorts, the parts of a game, (create players N) and (previous player)
_OTHER_WORDS = frozenset({"game", "declare", "setup", "scoring", "players", "previous"}) | frozenset(LOCATION_KINDS)
_WORDS: list = []


def known_words() -> frozenset:
    """Every lowercase keyword of RECYCLE: the registry's heads and the words of its forms'
    syntax, with the location kinds, storage sorts and game parts (computed once)."""
    if not _WORDS:
        reg = registry()
        words = set(reg.all_heads) | _OTHER_WORDS | STORAGE_SORTS
        for f in reg.forms:
            words.update(re.findall(r"\b[a-z][a-z0-9_]*\b", f.syntax))
        _WORDS.append(frozenset(words))
    return _WORDS[0]


set_known_words(known_words)  # (the elaborator's messages name the nearest known word)
