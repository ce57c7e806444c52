"""The C extension holding a natively stepped OpenSpiel state's hot calls
(``native_rules_step.c``, beside this file): built once per Python, source and compiler into
the native cache (recycle/native/cache.py, as a game's library), loaded from there.

Why C: a random OpenSpiel episode makes five calls an action into the state, and written in
Python they cost more than the native step they wrap (docs/env.md, "Speed"). The extension
answers them from the game library's arrays, calling its step through a function pointer.

``load()`` gives the module, or None where it cannot be had: no C compiler
(``RECYCLE_NATIVE_CC=none`` included), no ``Python.h`` (Debian's ``python3-dev``, which
setup.sh installs), a build that failed, or ``RECYCLE_SPIEL_C=0``. The Python methods of
recycle/env/native_rules.py then play, natively still, a few times slower per call.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import sys
import sysconfig
from importlib import resources

MODULE = "native_rules_step"  # (its PyInit_ function's name)
FLAGS = ["-O2", "-shared", "-fPIC", "-w", "-fno-strict-aliasing"]

_loaded: list = []  # [module or None], once a process


def load():
    """The extension module (built or taken from the cache), or None (the module's docstring)."""
    if not _loaded:
        _loaded.append(_load())
    return _loaded[0]


def _load():
    if os.environ.get("RECYCLE_SPIEL_C", "1").strip() in ("0", "no", "off"):
        return None
    include = sysconfig.get_paths().get("include") or ""
    if not os.path.exists(os.path.join(include, "Python.h")):
        return None
    from ..native.c import build

    fast, best = build.compilers()
    chosen = best or fast  # (gcc where there is one: this file is built once, not per game)
    if chosen is None:
        return None
    command = chosen[1]
    source = resources.files(__package__).joinpath(MODULE + ".c").read_text(encoding="ascii")
    key = hashlib.sha256(
        "\0".join(
            [source, sys.version, sysconfig.get_config_var("EXT_SUFFIX") or "", include, build.version(command)]
        ).encode()
    ).hexdigest()
    data = build.cached(key, "spiel-c")
    if data is None:
        try:
            data = build.compile_c(source, [command[0], *FLAGS, f"-I{include}"])
        except build.BuildFailed:
            return None
        build.keep(key, "spiel-c", data)
    return _module_from(data)


def _module_from(data: bytes):
    """The extension module in ``data``, loaded from a memory file (as the games' libraries:
    no file another user could swap is ever loaded)."""
    if not hasattr(os, "memfd_create"):
        return None
    fd = os.memfd_create("recycle-spiel", getattr(os, "MFD_CLOEXEC", 0))
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    path = f"/proc/self/fd/{fd}"  # (stays open while the process lives: the loader knows it by its path)
    loader = importlib.machinery.ExtensionFileLoader(MODULE, path)
    spec = importlib.util.spec_from_file_location(MODULE, path, loader=loader)
    try:
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
    except ImportError:
        os.close(fd)
        return None
    return module
