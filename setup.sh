#!/usr/bin/env bash
# Set up recycle in ./.venv (Python 3.11+), install Graphviz where we can, and run
# the main job: one game of Schwimmen. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")"

PY=${PYTHON:-python3}
SUDO=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo -n"; fi
can_apt() { command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" -eq 0 ] || [ -n "$SUDO" ]; }; }
apt_updated=0
apt_install() {
  if [ $apt_updated -eq 0 ]; then $SUDO apt-get update -qq >/dev/null || true; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}

say() { echo "setup: $*"; }

# 1. a virtual environment (Debian ships venv separately)
if [ ! -x .venv/bin/python ]; then
  say "creating the virtual environment .venv ($($PY --version 2>&1))"
  if ! $PY -m venv .venv 2>/dev/null; then
    rm -rf .venv
    if can_apt; then
      pyver=$($PY -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
      apt_install "python${pyver}-venv" || apt_install python3-venv
      $PY -m venv .venv
    else
      echo "setup: cannot create a virtual environment; install python3-venv and run again" >&2
      exit 1
    fi
  fi
fi
say "installing recycle and its dependencies into .venv (a minute or two the first time)"
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
# the rl extra (PettingZoo, OpenSpiel) runs the learning-environment tests; recycle works without it;
# the studio extra (Starlette, uvicorn; httpx and Playwright for its tests) serves `recycle studio`;
# the campaign extra (DuckDB, Dask distributed) runs `recycle campaign` and `recycle report`;
# the native extra (Numba, with its own LLVM: no C compiler needed) compiles games to machine code
if ! .venv/bin/python -m pip install -q -e '.[test,rl,studio,campaign,native]'; then
  echo "setup: could not install the rl extra (pettingzoo, open_spiel); its tests will be skipped" >&2
  .venv/bin/python -m pip install -q -e '.[test,studio,campaign,native]'
fi

# 2. Graphviz's dot renders the diagrams; without it recycle still writes DOT source
if ! command -v dot >/dev/null 2>&1; then
  if can_apt; then
    say "installing Graphviz (for the diagrams)"
    apt_install graphviz || echo "setup: could not install graphviz; diagrams will be written as .gv source" >&2
  else
    echo "setup: Graphviz 'dot' not found (apt-get install graphviz); diagrams will be written as .gv source" >&2
  fi
fi

# 2a. Mono runs CardStock's own engine (../shared/cardstock, tools/conformance.py --cardstock and
#     its tests); recycle itself does not need it
if ! command -v mono >/dev/null 2>&1; then
  if can_apt; then
    say "installing Mono (to compare with CardStock's own engine)"
    apt_install mono-runtime || echo "setup: could not install mono-runtime; the CardStock comparison will be skipped" >&2
  else
    echo "setup: Mono not found (apt-get install mono-runtime); the CardStock comparison will be skipped" >&2
  fi
fi

# 2b. Chromium runs the studio's browser tests (Playwright drives the system's browser; its own
#     download is not needed); recycle studio itself works with any browser
if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
  if can_apt; then
    say "installing Chromium (for the studio's browser tests)"
    apt_install chromium || echo "setup: could not install chromium; the studio's browser tests will fail" >&2
  else
    echo "setup: Chromium not found (apt-get install chromium); the studio's browser tests need it" >&2
  fi
fi

# 3. put the `recycle` command on the PATH (a link to .venv/bin/recycle), so that it can be
#    typed without activating the environment; an existing command that is not a link is kept
link_dir=""
if [ -w /usr/local/bin ]; then link_dir=/usr/local/bin; else link_dir="$HOME/.local/bin"; mkdir -p "$link_dir"; fi
if [ ! -e "$link_dir/recycle" ] || [ -L "$link_dir/recycle" ]; then
  say "linking the recycle command into $link_dir"
  ln -sfn "$PWD/.venv/bin/recycle" "$link_dir/recycle"
  case ":$PATH:" in
    *":$link_dir:"*) ;;
    *) echo "setup: add $link_dir to your PATH to type 'recycle' (or run . .venv/bin/activate)" >&2 ;;
  esac
else
  echo "setup: $link_dir/recycle exists and is not ours; use .venv/bin/recycle" >&2
fi

# 4. the main job
echo "== recycle run games/schwimmen.rcy --seed 7 =="
.venv/bin/recycle run games/schwimmen.rcy --seed 7

# 5. what to type next
cmd=recycle
command -v recycle >/dev/null 2>&1 || cmd=.venv/bin/recycle
echo
echo "setup: done. Next: '$cmd --help', '$cmd play games/crazy-eights.rcy' to play a game yourself,"
echo "       or read docs/tutorial.md to write your own game."
