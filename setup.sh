#!/usr/bin/env bash
# Set up recycle in ./.venv (Python 3.11+), install Graphviz where we can, and run
# the main job: one game of Schwimmen. Safe to run again.
#
#   bash setup.sh               everything
#   bash setup.sh --link-only   only step 3: put the `recycle` command on the PATH
#
# Step 3 links the command into RECYCLE_LINK_DIR if set, else /usr/local/bin for root and
# ~/.local/bin for anyone else. A link there that belongs to another checkout is left alone
# (with a message naming it) unless RECYCLE_LINK=replace; one whose checkout is gone is
# replaced, saying so; a file that is not a link is never touched.
set -euo pipefail
cd "$(dirname "$0")"

say() { echo "setup: $*"; }

# 3. put the `recycle` command on the PATH (a link to .venv/bin/recycle), so that it can be
#    typed without activating the environment
link_command() {
  local ours="$PWD/.venv/bin/recycle" link_dir link current
  if [ -n "${RECYCLE_LINK_DIR:-}" ]; then link_dir=$RECYCLE_LINK_DIR
  elif [ "$(id -u)" -eq 0 ] && [ -w /usr/local/bin ]; then link_dir=/usr/local/bin
  else link_dir="$HOME/.local/bin"
  fi
  mkdir -p "$link_dir" 2>/dev/null || { echo "setup: cannot make $link_dir; use $ours" >&2; return 0; }
  link="$link_dir/recycle"
  if [ -L "$link" ]; then
    current=$(readlink "$link")
    if [ "$current" = "$ours" ]; then
      say "$link already links to this checkout's recycle"
    elif [ ! -e "$link" ]; then
      ln -sfn "$ours" "$link"
      say "replaced $link: it linked to $current, which no longer exists; it now links to $ours"
    elif [ "${RECYCLE_LINK:-}" = replace ]; then
      ln -sfn "$ours" "$link"
      say "replaced $link: it linked to $current (another checkout); it now links to $ours"
    else
      echo "setup: $link belongs to another checkout (it links to $current) and is left as it is;" >&2
      echo "setup: here use $ours, or run RECYCLE_LINK=replace bash setup.sh --link-only to make it this one's" >&2
      return 0
    fi
  elif [ -e "$link" ]; then
    echo "setup: $link exists and is not a link (not ours): left as it is; use $ours" >&2
    return 0
  else
    ln -s "$ours" "$link"
    say "linked the recycle command into $link_dir"
  fi
  case ":$PATH:" in
    *":$link_dir:"*) ;;
    *) echo "setup: add $link_dir to your PATH to type 'recycle' (or run . .venv/bin/activate)" >&2 ;;
  esac
}

if [ "${1:-}" = "--link-only" ]; then
  link_command
  exit 0
fi

PY=${PYTHON:-python3}
SUDO=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo -n"; fi
can_apt() { command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" -eq 0 ] || [ -n "$SUDO" ]; }; }
apt_updated=0
apt_install() {
  if [ $apt_updated -eq 0 ]; then $SUDO apt-get update -qq >/dev/null || true; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}

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
# the native extra (NumPy) holds the native engine's state; its machine code is built from C by tcc and gcc (step 2b)
if ! .venv/bin/python -m pip install -q -e '.[test,rl,studio,campaign,native]'; then
  echo "setup: could not install the rl extra (pettingzoo, open_spiel); its tests will be skipped" >&2
  .venv/bin/python -m pip install -q -e '.[test,studio,campaign,native]'
fi

# 2b. C compilers for the native engine: tcc builds a game in milliseconds, gcc -O2 in the
# background (code about three times faster); without either the reference interpreter plays
if ! command -v tcc >/dev/null 2>&1 || ! command -v gcc >/dev/null 2>&1; then
  if can_apt; then
    say "installing tcc and gcc (the native engine builds games with them)"
    apt_install tcc gcc || echo "setup: could not install tcc/gcc; the reference interpreter plays every game" >&2
  fi
fi
# Python's headers: the OpenSpiel game's hot calls are a small C extension built with them
# (recycle/env/native_rules_step.c); without them those calls are Python's, a few times slower
if ! .venv/bin/python -c 'import os, sysconfig, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))'; then
  if can_apt; then
    pyver=$(.venv/bin/python -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
    say "installing Python's headers (python${pyver}-dev: the OpenSpiel stepping's C extension)"
    apt_install "python${pyver}-dev" || apt_install python3-dev || echo "setup: could not install Python's headers; the OpenSpiel stepping stays in Python" >&2
  fi
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

# 3. the command on the PATH (link_command, above)
link_command

# 4. the main job
echo "== recycle run games/schwimmen.rcy --seed 7 =="
.venv/bin/recycle run games/schwimmen.rcy --seed 7

# 5. what to type next
cmd=.venv/bin/recycle
# `recycle` on the PATH only if it is this checkout's (another checkout's may be found first)
if [ "$(readlink -f "$(command -v recycle 2>/dev/null || true)" 2>/dev/null)" = "$(readlink -f .venv/bin/recycle)" ]; then
  cmd=recycle
fi
echo
echo "setup: done. Next: '$cmd --help', '$cmd play games/crazy-eights.rcy' to play a game yourself,"
echo "       or read docs/tutorial.md to write your own game."
