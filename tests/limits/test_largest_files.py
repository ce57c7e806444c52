"""The largest game files allowed, in their costliest shapes, check in bounded memory.

``recycle check`` of each shape of ``recycle/study/largest.py`` at the size limit runs in a
process of its own (as a user runs it), must succeed, and stay under 500 MB (issue 25: every
file of at most the size limit checks in under 2 s and 500 MB; the time is measured by
``python tools/bench.py limits``, not here). One byte more is refused before it is read.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys

import pytest

from recycle.lang.syntax.reader import MAX_SOURCE_BYTES
from recycle.study.largest import SHAPES, largest_files
from ..helpers import PEAK_MB

MEMORY_MB = 500


@pytest.mark.parametrize("shape", list(SHAPES))
def test_the_largest_file_of_each_costly_shape_checks_in_bounded_memory(shape, tmp_path):
    text = largest_files()[shape]
    assert MAX_SOURCE_BYTES - 200 < len(text.encode()) <= MAX_SOURCE_BYTES
    path = tmp_path / "largest.rcy"
    path.write_text(text)

    def limit():  # the same bound as a ceiling: past it the check fails with MemoryError
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    cmd = [
        sys.executable,
        "-c",
        "import resource, runpy, sys; sys.argv = ['recycle', 'check', sys.argv[1]];"
        "code = 0\ntry: runpy.run_module('recycle', run_name='__main__')\nexcept SystemExit as e: code = e.code or 0\n"
        f"print('peak', {PEAK_MB}, file=sys.stderr); sys.exit(code)",
        str(path),
    ]
    r = subprocess.run(
        cmd, capture_output=True, text=True, preexec_fn=limit, timeout=300, env=dict(os.environ, RECYCLE_NO_CACHE="1")
    )
    assert r.returncode == 0, r.stderr[-500:]
    assert ": ok — 2 players" in r.stdout
    peak = int(r.stderr.rsplit("peak", 1)[1].split()[0])
    assert peak < MEMORY_MB, f"{shape}: {peak} MB"


def test_one_byte_more_is_refused_before_it_is_read(tmp_path):
    text = largest_files(MAX_SOURCE_BYTES + 1)["many actions"]
    text += " " * (MAX_SOURCE_BYTES + 1 - len(text))
    path = tmp_path / "too-large.rcy"
    path.write_text(text)
    r = subprocess.run(
        [sys.executable, "-m", "recycle", "check", str(path)], capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 1 and f"more than the limit of {MAX_SOURCE_BYTES:,}" in r.stderr
    assert "Traceback" not in r.stderr
