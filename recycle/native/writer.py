"""The native writer: a RECYCLE game as the source of a native module (one per game).

The writer walks the game's nodes (``recycle/lang/nodes``: each form read once by the elaborator)
and asks the native registry (``recycle/native/registry.py``) for the writer of each node's
class; a form with no
native writer stops the writing with ``NativeUnsupported`` naming it, and the game is played
by the Python engine. The module it writes (``NativeModule.source``) is plain typed Python in
the subset recycle/native/c/translate.py turns into C: the game's flow as one function ``play(S)`` over the arrays of
``recycle/native/runtime.py``, random players choosing inline, and a small function per
choice (counting its options, running the chosen one) and per expression that needs a loop
(a filter, a union, an ``any`` over a collection). Locations and storages are named
(``HAND + 1 + p``, ``ints[PASS]``), never bare slot numbers.

Outside text never reaches the source except through ``repr()``: names of locations,
storages and attributes become identifiers only after ``ident()`` keeps letters, digits and
underscores, and a comment quotes a form only through ``pytext.embed``.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from dataclasses import dataclass

# the value types of native expressions (the language's table: a form's writer returns them)
from ..lang.forms.writers import (  # noqa: F401 - the native engine's modules import them from here
    BOOL_T,
    CARD_T,
    GROUPS_T,
    INT_T,
    LOC_T,
    LOCS_T,
    NUMBERS_T,
    PLAYER_T,
    PLAYERS_T,
    STR_T,
    TEAM_T,
    TEAMS_T,
    VIEW_T,
)
from ..lang.nodes.base import Const as ConstNode, GameOwner, Kind, Nth, Turn, Var as VarNode, Word, written
from ..lang.nodes.flow import Choice
from ..lang.nodes.scalars import Member, TeamOf
from ..lang.python.pytext import embed
from . import registry as reg
from .purity import constant
from .registry import NativeUnsupported
from .writer_actions import ActionsWriterTools
from .writer_numbers import NumbersWriterTools
from .writer_flow import FlowWriterTools
from .writer_module import ident, module_text

STATE_NAMES = (
    "locs",
    "lens",
    "card_loc",
    "ints",
    "strs",
    "pts",
    "pst",
    "tst",
    "ctr",
    "keys",
    "team_of",
    "scratch",
    "ver",
    "memo",
    "dry",
    "resume",
    "tree",
    "treef",
)
CURRENT = "pst[ctr[PSP], 0]"
CHOOSE = "k = choose(ctr, keys, resume, n)"  # a choice's pick (forms_options.py), numbered by Writer.line
CURRENT_TEAM = "tst[ctr[TSP], 0]"
MAX_SOURCE = 400_000  # characters: a game beyond is played by the Python engine


def declared_constants(game, declares, consts: dict) -> dict:
    """The declared variables the game works out when it starts from constants alone (say
    ``(declare (// 36 'NUMP) 'HANDSIZE)``): the same integer or string in every game, so
    native code takes them as constants, with the value the Python engine computes.
    ``declares``: the game's ``Declare`` nodes, in order."""
    out: dict = {}
    names = game.scope.names()
    env = None
    for d in declares:
        name = d.name
        slot = names.get(name)
        if name in consts or type(slot) is not int:
            continue
        known = {**consts, **out}
        if not constant(d.value, lambda n: n in known):  # noqa: B023 - called here, in this iteration
            continue  # it reads the state (or draws): not a constant
        if env is None:
            env = game.state_after_setup().env
        value = env[slot]
        if type(value) in (int, str):
            out[name] = Constant(value)
    return out


@dataclass(frozen=True)
class Constant:
    """A declared constant of the game in native code: its value (an int, a NAME or a list of
    NAMEs), written into the code where it is read."""

    value: object


def is_constant(v) -> bool:
    """Is an entry of a native scope (``NScope.lookup``) a constant, not a local nor unbound?"""
    return v is not None and not hasattr(v, "type")


@dataclass
class Var:
    """A RECYCLE variable in native code: its local name and value type."""

    name: str
    type: str


class NScope:
    """RECYCLE variables → native locals (and the game's declared constants)."""

    def __init__(self, consts: dict, bound: tuple = ()):
        self.consts = consts
        self.bound = bound  # ((rcy name, Var), ...) innermost last

    def lookup(self, name: str):
        for n, v in reversed(self.bound):
            if n == name:
                return v
        return self.consts.get(name)

    def bind(self, name: str, local: str, typ: str) -> NScope:
        return NScope(self.consts, self.bound + ((name, Var(local, typ)),))

    def params(self) -> list[str]:
        """The locals in scope, outermost first, each once (the parameters of a lifted function)."""
        seen, out = set(), []
        for _, v in self.bound:
            if v.name not in seen:
                seen.add(v.name)
                out.append(v.name)
        return out


class Fn:
    """One generated function: its lines, indented."""

    def __init__(self, name: str, params: list[str], doc: str, keeps_scratch: bool = False, inline: bool = True):
        self.name, self.params, self.doc = name, params, doc
        # inlined into its callers (by LLVM: INLINE): calls cost nothing
        self.inline = inline and name != "play"
        # a function returning a view on the scratch stack leaves it for its caller to free
        self.keeps_scratch = keeps_scratch
        self.lines: list[str] = []
        self.depth = 1

    def line(self, text: str) -> None:
        self.lines.append("    " * self.depth + text)

    @property
    def state_used(self) -> list[str]:
        """The state's arrays this function uses: its first parameters (passing only these,
        each by name, keeps the C small)."""
        body = "\n".join(self.lines)
        used = [name for name in STATE_NAMES if re.search(rf"\b{name}\b", body)]
        if "scratch" in used and "ctr" not in used:
            used = [n for n in STATE_NAMES if n in used or n == "ctr"]
        return used

    def call(self, *args: str) -> str:
        """The code calling this function with the state's arrays it uses and ``args``."""
        return f"{self.name}({', '.join(self.state_used + list(args))})"

    def source(self) -> str:
        lines = self.lines
        if not self.keeps_scratch and any("scratch" in ln for ln in lines) and self.name != "play":
            # what this function put on the scratch stack is freed when it returns
            freed = ["    mark = ctr[SP]"]
            for ln in lines:
                if ln.strip().startswith("return"):
                    freed.append(ln[: len(ln) - len(ln.lstrip())] + "ctr[SP] = mark")
                freed.append(ln)
            if not lines[-1].startswith("    return"):
                freed.append("    ctr[SP] = mark")
            lines = freed
        params = self.state_used
        if any("ctr[SP]" in ln for ln in lines) and "ctr" not in params:
            params = [n for n in STATE_NAMES if n in params or n == "ctr"]
        head = [
            f"def {self.name}({', '.join(params + self.params)}):",
            f'    """{embed(self.doc, "text")}"""',
        ]
        return "\n".join(head + (lines or ["    pass"]))


class Writer(ActionsWriterTools, NumbersWriterTools, FlowWriterTools):
    """Writes one game's native module; ``write()`` returns its source."""

    def __init__(self, game, gnode, search: bool = False):
        self.game = game
        # a search module: each choice also keys its options, and the entry runs whole
        # look-ahead searches (runtime_search.py); made only for the players that search
        self.search = search
        # parts an (all NAMES 'X ...) of options was written out into: id -> ('X, name), and a stack
        self.named_parts: dict = {}
        # nodes written with a name for a variable of such an (all ...): id -> (('X, name), ...)
        self.renamed: dict = {}
        self.naming: list = []
        self.layout = game.layout
        self.nplayers = game.nplayers
        # the game read once (a GameNode): its flow's items and scoring expression are written
        self.gnode = gnode
        self.items, self.score = list(gnode.flow), gnode.score
        self.declared = {d.name: d.value for d in gnode.declares}  # each declared variable's value
        self.strings: dict[str, int] = {"": 0}
        # every choice's (line, column) by its number (choose_line), and the choices being written
        self.choice_sites: list[tuple[int, int]] = []
        self._choosing: list = []
        self.score_now = None  # the Fn working out the scoring at a traced game's stops
        self.columns: dict[str, str] = {}  # attribute key -> the name of its column
        self.tables: dict[tuple, str] = {}  # constant point map awards -> the name of its table
        self.fns: list[Fn] = []
        self.fn: Fn | None = None
        self.counter = 0
        self.fresh_names: set[str] = set()  # every name fresh() made: locals and functions
        self.memo_sites = 0
        self.memo_keys: dict = {}  # a remembered condition's form -> its site (shared when alike)
        self.name_lists: dict[tuple, str] = {}
        self.name_domain: dict[str, tuple] = {}  # a local holding a name: every name it can hold
        self.named_blocks: dict[tuple, str] = {}  # (kind or sort, names) -> its table of bases
        self.simultaneous = 0  # > 0 while a simultaneous stage's items are written (lang/forms/form_simultaneous.py)
        self.member_blocks: dict[tuple, str] = {}  # (kind, family, A, B) -> its table of bases
        self.uses_teams = False
        # the next level of the dry-run areas (dry[level]) free for a block's options to keep
        # the state in, and the most levels used (DRY_LEVELS)
        self._dry_level = 0
        self.dry_levels = 1
        # the game's declared constants (its scope holds them folded; a variable is a slot number)
        consts = {name: Constant(c.value) for name, c in game.scope.names().items() if hasattr(c, "value")}
        consts.update(declared_constants(game, gnode.declares, consts))
        self.consts = consts

    @property
    def dry_level(self) -> int:
        return self._dry_level

    @dry_level.setter
    def dry_level(self, level: int) -> None:
        self._dry_level = level
        self.dry_levels = max(self.dry_levels, level + 1)

    # -- names -----------------------------------------------------------------------------
    def fresh(self, stem: str) -> str:
        self.counter += 1
        name = f"{stem}_{self.counter}"
        self.fresh_names.add(name)
        return name

    def local(self, rcy_name: str) -> str:
        """A fresh local for the RECYCLE variable ``'rcy_name`` (``v_NAME_7``)."""
        return self.fresh("v_" + "".join(ch for ch in rcy_name if ch.isalnum())[:12])

    def intern(self, text: str) -> int:
        """The id of a string (its place in the game's string table; "" is 0)."""
        text = str(text)
        k = self.strings.get(text)
        if k is None:
            k = self.strings[text] = len(self.strings)
        return k

    def column(self, key: str) -> str:
        """The name of the global array of every card's value for attribute ``key``."""
        name = self.columns.get(key)
        if name is None:
            name = f"ATTR_{ident(key)}"
            while name in self.columns.values():
                name += "_"
            self.columns[key] = name
            for v in self.game.card_table.column(key):
                self.intern(v)
        return name

    def name_list(self, names: list) -> str:
        """The module constant holding a declared list of names as string ids."""
        key = tuple(names)
        got = self.name_lists.get(key)
        if got is None:
            got = self.name_lists[key] = f"NAMES_{len(self.name_lists) + 1}"
            for v in names:
                self.intern(v)
        return got

    def loc_base(self, kind: str, name: str) -> str:
        self.layout.loc_block(kind, name)
        return f"LOC_{ident(kind)}_{ident(name)}"

    def decision_counted(self) -> None:
        """The statements of a decision among ``n`` options, as the reference interpreter counts
        one: none is a broken rule; then a step (the step limit checked), a decision, its options
        and their work (a choice's writer, and each player's in a simultaneous stage)."""
        with self.block("if n == 0:"):
            self.line("ctr[STATUS] = RULE  # a choice with no legal option")
            self.line("return")
        self.line("ctr[STEPS] += 1")
        with self.block("if ctr[STEPS] > ctr[MAX_STEPS]:"):
            self.line("ctr[STATUS] = STEP_LIMIT")
            self.line("return")
        self.line("ctr[DECISIONS] += 1")
        self.line("ctr[OPTIONS] += n")
        self.line("ctr[WORK] += n")

    @property
    def compiled_blocks(self):
        """The (kind, name) of every block of locations the game's compile registered, in the
        order numbered alike in every process (``named_base``)."""
        return self.game.compiled_blocks

    def owner_offset(self, owner, sc) -> str:
        """The code of OWNER's place in a block of locations or storages (recycle/lang/forms/layout.py): 0
        the game, 1 + p player p, 1 + NPLAYERS + t team t."""
        if isinstance(owner, GameOwner):
            return "0"
        if isinstance(owner, (VarNode, ConstNode)):
            v = sc.lookup(owner.name)
            if getattr(v, "type", None) == "team":
                return f"1 + NPLAYERS + {v.name}"
            return f"1 + {self.player(owner, sc)}"
        if isinstance(owner, TeamOf) or (isinstance(owner, (Turn, Nth)) and owner.what == "team"):
            return f"1 + NPLAYERS + {self.team(owner, sc)}"
        return f"1 + {self.player(owner, sc)}"

    def named_base(self, kind: str, name, sc) -> str:
        """The first index of the block of locations (``kind`` iloc, vloc ...) or of storages
        (``kind`` sto, str, points) named NAME: a constant for a literal NAME, a read of a table
        by name for a variable holding one of a literal or declared list of names (whose blocks
        the game's compile registered in the list's order: FlowCompiler.known_names), or of a
        table of a family's members for ``(member FAMILY INDEX)`` (those the compile registered:
        PreparedGame.compiled_blocks)."""
        storage = kind in ("sto", "str", "points")
        if isinstance(name, Word):
            return self.storage_base(kind, name.value) if storage else self.loc_base(kind, name.value)
        if isinstance(name, (VarNode, ConstNode)):
            v = sc.lookup(name.name)
            if isinstance(getattr(v, "value", None), str):
                return self.storage_base(kind, v.value) if storage else self.loc_base(kind, v.value)
            names = self.name_domain.get(getattr(v, "name", None))
            known = self.layout.storage_names(kind) if storage else {n for k, n in self.layout.loc_base if k == kind}
            if names and all(n in known for n in names):
                table = self.named_blocks.get((kind, names))
                if table is None:
                    table = self.named_blocks[(kind, names)] = (
                        f"{'STORAGES' if storage else 'LOCS'}_NAMED_{len(self.named_blocks) + 1}"
                    )
                return f"{table}[{v.name}]"
        if not storage and isinstance(name, Member):
            # (OWNER KIND FAMILY INDEX): the form's native code is its module's; imported here,
            # once the compiler is assembled, so that flow.py imports the form modules in order
            from ..lang.forms.form_member import member_block

            code = member_block(self, kind, name, sc)
            if code is not None:
                return code
        raise NativeUnsupported(f"a {'storage' if storage else 'location'} with a computed name", name)

    def storage_base(self, sort: str, name: str) -> str:
        self.layout.storage_block(sort, name)
        return f"{sort.upper()}_{ident(name)}"

    # -- emitting --------------------------------------------------------------------------
    def line(self, text: str) -> None:
        if text == CHOOSE and self._choosing:
            if self.score_now is not None:  # a traced game's scores at this stop (score_now)
                self.fn.line("if ctr[STEPPING] > 1:")
                self.fn.line("    " + self.score_now.call())
            text = self.choose_line(self._choosing[-1])
        self.fn.line(text)

    def choose_line(self, span) -> str:
        """A choice's pick, numbered: a game stepped from outside says which choice waits
        (CHOICE_SITES[number - 1] is its form's line and column; recycle/native/outside.py)."""
        self.choice_sites.append((span.line, span.column))
        return f"k = choose_at(ctr, keys, resume, n, {len(self.choice_sites)})"

    @contextmanager
    def block(self, header: str):
        self.line(header)
        self.fn.depth += 1
        try:
            yield
        finally:
            self.fn.depth -= 1

    @contextmanager
    def function(self, stem: str, params: list[str], doc: str, keeps_scratch: bool = False, inline: bool = True):
        """Write a new function (a lifted expression, a choice's parts); yields its name."""
        fn = Fn(stem if stem in ("play", "score_all") else self.fresh(stem), list(params), doc, keeps_scratch, inline)
        outer = self.fn
        self.fn = fn
        try:
            yield fn.name
        finally:
            self.fn = outer
            self.fns.append(fn)

    def check(self) -> None:
        """Return from the game when the last statement broke a rule."""
        self.line("if ctr[STATUS]:")
        self.line("    return")

    def comment(self, node) -> None:
        span = getattr(node, "span", None)
        text = " ".join(written(node).split())
        for var, name in self.renamed.get(id(node), ()):  # (written out for a name: shown with it)
            text = re.sub(rf"'{re.escape(var)}\b", name, text)
        if len(text) > 70:
            text = text[:67] + "..."
        line = f"line {span.line}: " if span is not None and getattr(span, "line", None) else ""
        self.line(f"# {line}{embed(text, 'text')}")

    # -- dispatch (every form through the registry) ----------------------------------------
    def item(self, x, sc: NScope) -> None:
        """Statements for an action, block, conditional, loop, choice or stage."""
        self.write(Kind.FLOW, x, sc)

    def write(self, kind: str, x, sc: NScope, *args):
        w = reg.writer_for(kind, x)
        if w is None:
            raise NativeUnsupported(f"{reg.form_label(x)} as {kind}", x)
        if not isinstance(x, Choice) or getattr(x, "span", None) is None:
            return w(self, x, sc, *args)
        self._choosing.append(x.span)
        try:
            return w(self, x, sc, *args)
        finally:
            self._choosing.pop()

    def int_(self, x, sc) -> str:
        return self.write(Kind.INT, x, sc)

    def bool_(self, x, sc) -> str:
        return self.write(Kind.BOOL, x, sc)

    def str_(self, x, sc) -> str:
        return self.write(Kind.STR, x, sc)

    def card(self, x, sc, optional: bool = False) -> str:
        return self.write(Kind.CARD, x, sc, optional)

    def player(self, x, sc) -> str:
        return self.write(Kind.PLAYER, x, sc)

    def team(self, x, sc) -> str:
        return self.write(Kind.TEAM, x, sc)

    def loc(self, x, sc) -> tuple[str, str]:
        """(LOC_T, index expression) for a physical location, (VIEW_T, view) for a view
        (an int into the scratch stack: recycle/native/runtime.py, SCRATCH)."""
        return self.write(Kind.LOC, x, sc)

    def cards(self, x, sc) -> str:
        """A view of a location's or view's cards (a location's: a snapshot on the scratch stack)."""
        t, code = self.loc(x, sc)
        if t in (PLAYERS_T, TEAMS_T, NUMBERS_T, LOCS_T):
            raise NativeUnsupported(f"{t} where cards are needed", x)
        return f"cards_of(locs, lens, scratch, ctr, {code})" if t == LOC_T else code

    def phys(self, x, sc) -> str:
        t, code = self.loc(x, sc)
        if t != LOC_T:
            raise NativeUnsupported("a view where a physical location is needed", x)
        return code

    def groups(self, x, sc) -> str:
        return self.write(Kind.GROUPS, x, sc)

    def value(self, x, sc) -> tuple[str, str]:
        """(type, code) of a value whose type the form tells (for ==, !=)."""
        return reg.typed_value(self, x, sc)

    # -- the module ------------------------------------------------------------------------
    def write_module(self) -> str:
        sc = NScope(self.consts)
        with self.function("score_all", [], "Every player's final score (the game's scoring), into ctr's tail."):
            with self.block("for p in range(NPLAYERS):"):
                self.line("ctr[PSP] += 1")
                self.line("pst[ctr[PSP], 0] = p")
                self.line("pst[ctr[PSP], 1] = -1")
                self.line(f"scores_out = {self.int_(self.score, sc)}")
                self.line("ctr[PSP] -= 1")
                self.line("ctr[NCOUNTERS_FIXED + p] = scores_out")
        score_fn = self.fns[-1]
        self.write_score_now(score_fn)
        with self.function("play", [], "The game from its first action to its end, random players choosing."):
            for node in self.items:
                self.item(node, sc)
            # the budget is checked at every turn; a game of no turns (a loop in its flow
            # alone) is checked here, before it is scored: handed back for the exact message
            with self.block("if ctr[WORK] > ctr[MAX_WORK]:"):
                self.line("ctr[STATUS] = WORK_LIMIT")
                self.line("return")
            self.line(score_fn.call())
        self.play_call = self.fns[-1].call()
        return self.assemble()

    def write_score_now(self, score_fn) -> None:
        """``score_now``: at a stop of a traced game (ctr[STEPPING] 2: recycle/study/trace_native.py)
        every player's scoring now, in the counters' last NPLAYERS + 1 slots (1 then the scores;
        2: a rule broken, the reference's "cannot be evaluated yet"; 3: native code cannot say),
        the state left as it was: status, steps, work, chance draws, stacks."""
        with self.function("score_now", [], "The scoring at a traced game's stop.", inline=False):
            self.line("at = ctr.shape[0] - NPLAYERS - 1")
            for name in ("STATUS", "STEPS", "WORK", "CHANCE_N", "SP", "PSP"):
                self.line(f"was_{name.lower()} = ctr[{name}]")
            # (a rule the options' count broke stops the game after the pick: kept, not wiped)
            self.line("ctr[STATUS] = 0")
            self.line(score_fn.call())
            with self.block("if ctr[STATUS] == 0:"):
                self.line("ctr[at] = 1")
                with self.block("for p in range(NPLAYERS):"):
                    self.line("ctr[at + 1 + p] = ctr[NCOUNTERS_FIXED + p]")
            with self.block("else:"):
                self.line("ctr[at] = 2 if ctr[STATUS] == RULE else 3")
            for name in ("STATUS", "STEPS", "WORK", "CHANCE_N", "SP", "PSP"):
                self.line(f"ctr[{name}] = was_{name.lower()}")
        self.score_now = self.fns[-1]

    def assemble(self) -> str:
        """The module's text: its constants, the game's functions, its entry (writer_module.py)."""
        return module_text(self)


__all__ = ["Writer", "NativeUnsupported", "NScope", "ident"]
