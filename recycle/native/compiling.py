"""Numba's compile of a generated module, without the work it does again for every function.

A native module is one entry (``games``) calling some thirty generated functions. Numba
compiles each function as a library of its own and, to call another one, links that library's
code in and optimises and generates machine code for all of it again. A module's first compile
made every callee's code over as many times as it had callers above it: Coup4 spent 11 of its
31 s optimising and generating code no one ran (docs/performance.md, "Compile time").

Three changes, installed once per process by ``install()`` before a module is compiled:

* **Machine code only for the entry.** A generated function other than the entry is called
  only from native code (``no_cpython_wrapper``), so its library needs no code of its own: it
  links in its callees and is kept as LLVM IR, which its callers link in. The entry's library
  then optimises the whole module once and generates it once. (The entry's own compile is
  Numba's, unchanged; its cache entry holds all of the module's machine code, so a second run
  loads it alone.)
* **One optimisation of the entry.** Numba optimises a library twice, a cheap pipeline first
  so that reference counts meet in one function for its pruning; generated code and the
  runtime count no references (``_nrt=False``), so the entry gets the full pipeline alone
  (installed with the first change, under its name).
* **Typing an operator once per argument types.** Numba types ``ctr[SP] += 1`` by trying
  every template of ``getitem``, ``setitem`` and ``+``, and each try builds and compares the
  compile's flags (dicts of thirty options): that was 3 of Coup4's 18 s. For the builtin
  operators on integers, booleans, arrays and tuples of integers, whose typing depends only on
  the argument types, the first answer is kept.

They reach into Numba's internals (``CPUContext.get_executable``, ``CPUCodeLibrary``,
``Function.get_call_type``), so they are installed only for the Numba versions they were
measured with (``TESTED``) and only when the attributes they use are there; elsewhere Numba
compiles as it always did, only slower. ``RECYCLE_NUMBA_AS_IS=1`` leaves Numba as it is, to
measure the difference (``tools/native_compile.py``). The differential tests (tests/engine/
test_native.py, tests/players/test_native_search.py) run with them installed.
"""

from __future__ import annotations

import operator
import os
import threading

MODULE_PREFIX = "recycle_native_g"  # every generated module's name starts so (engine.load_module)
ENTRY = "games"  # the one function of a module called from Python (writer.py, ROLLOUTS)
TESTED = ((0, 68), (0, 68))  # the Numba versions (major, minor) these changes were measured with, inclusive

_installed: list[str] = []  # the changes installed in this process, by name
_lock = threading.Lock()


def installed() -> tuple[str, ...]:
    """The changes ``install()`` made in this process (empty before it or where it declined)."""
    return tuple(_installed)


def install() -> tuple[str, ...]:
    """Install the compile's changes (once per process); returns their names, empty when
    this Numba is not one they were measured with or ``RECYCLE_NUMBA_AS_IS`` is set."""
    with _lock:
        if _installed or os.environ.get("RECYCLE_NUMBA_AS_IS"):
            return tuple(_installed)
        import numba

        try:
            major, minor = (int(x) for x in numba.__version__.split(".")[:2])
        except ValueError:
            return ()
        if not TESTED[0] <= (major, minor) <= TESTED[1]:
            return ()
        if _machine_code_for_the_entry_only():
            _installed.append("entry-only machine code")
        if _operator_types_kept():
            _installed.append("operator types kept")
        return tuple(_installed)


def _generated(fndesc) -> bool:
    return fndesc.modname.startswith(MODULE_PREFIX)


def _machine_code_for_the_entry_only() -> bool:
    try:
        from numba import _dynfunc
        from numba.core import codegen, cpu
        from numba.core.environment import lookup_environment
    except ImportError:
        return False
    library_class = codegen.CPUCodeLibrary
    if not all(
        hasattr(library_class, name) for name in ("_get_module_for_linking", "finalize", "_optimize_final_module")
    ):
        return False
    original = cpu.CPUContext.get_executable

    def link_only(library) -> None:
        """What ``finalize`` does but the optimisation and machine code: the callees linked in,
        the library closed (its callers link in its IR)."""
        seen = set()
        for callee in library._linking_libraries:
            if callee not in seen:
                seen.add(callee)
                library._reload_init.update(callee._reload_init)
                library._final_module.link_in(callee._get_module_for_linking(), preserve=True)
        library._final_module.verify()
        library._finalized = True

    def get_executable(self, library, fndesc, env):
        if not _generated(fndesc) or (fndesc.qualname != ENTRY and library._finalized):
            return original(self, library, fndesc, env)
        if fndesc.qualname != ENTRY:
            link_only(library)
            # no address: the function has no Python wrapper (INTERNAL in writer.py), and Numba
            # asks for one only to make the dispatcher's (never called) entry
            name = fndesc.qualname.split(".")[-1]
            return _dynfunc.make_function(fndesc.lookup_module(), name, f"native {name}", 0, env, (library,))
        library._recycle_entry = True  # optimised by the full pipeline alone (optimise_final_module)
        made = original(self, library, fndesc, env)
        # the linked functions' environments live in the entry's machine code alone: set them as
        # Numba does when it loads a cached function
        own = self.get_env_name(fndesc)
        engine = library.codegen._engine
        for gv in library._final_module.global_variables:
            if gv.name.startswith("_ZN08NumbaEnv") and gv.name != own:
                linked_env = lookup_environment(gv.name)
                if linked_env is not None and engine.get_global_value_address(gv.name):
                    library.codegen.set_env(gv.name, linked_env)
        return made

    original_optimise = library_class._optimize_final_module

    def optimise_final_module(self) -> None:
        if not getattr(self, "_recycle_entry", False):
            return original_optimise(self)
        passes, timings = self._codegen._module_pass_manager()
        passes.run(self._final_module, timings)

    cpu.CPUContext.get_executable = get_executable
    library_class._optimize_final_module = optimise_final_module
    return True


_OPERATORS = frozenset(
    {
        operator.getitem,
        operator.setitem,
        operator.add,
        operator.sub,
        operator.mul,
        operator.floordiv,
        operator.mod,
        operator.neg,
        operator.not_,
        operator.and_,
        operator.or_,
        operator.iadd,
        operator.isub,
        operator.imul,
        operator.eq,
        operator.ne,
        operator.lt,
        operator.le,
        operator.gt,
        operator.ge,
        bool,
        min,
        max,
    }
)


def _operator_types_kept() -> bool:
    try:
        from numba.core import types
        from numba.core.target_extension import get_local_target
        from numba.core.types import functions
    except ImportError:
        return False
    function_class = functions.Function
    if not hasattr(function_class, "get_call_type"):
        return False
    original = function_class.get_call_type
    simple = (types.Array, types.Integer, types.IntegerLiteral, types.Boolean, types.BooleanLiteral)
    known: dict = {}

    def plain(t) -> bool:
        if isinstance(t, types.UniTuple):
            return all(plain(x) for x in t.types)
        return isinstance(t, simple)

    def get_call_type(self, context, args, kws):
        if kws or getattr(self, "typing_key", None) not in _OPERATORS or not all(plain(a) for a in args):
            return original(self, context, args, kws)
        # Function types are interned: ``self`` is the object whose _impl_keys lowering reads
        key = (self, tuple(args), get_local_target(context), context)
        sig = known.get(key)
        if sig is not None and sig.args in getattr(self, "_impl_keys", ()):
            return sig
        sig = original(self, context, args, kws)
        if sig is not None:
            known[key] = sig
        return sig

    function_class.get_call_type = get_call_type
    return True
