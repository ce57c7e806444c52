"""setup.sh's step 3, linking the `recycle` command (issue 40.10): it took over a machine-wide
command that another checkout had linked, silently. Run with ``--link-only`` against a
temporary folder (RECYCLE_LINK_DIR), from a copy of the script in a pretend checkout."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


@pytest.fixture
def checkout(tmp_path):
    """A pretend checkout: setup.sh and a .venv/bin/recycle; and an empty bin folder."""
    script = (ROOT / "setup.sh").read_text()
    assert "--link-only" in script  # (else running it would set up a whole environment)
    here = tmp_path / "checkout"
    (here / ".venv" / "bin").mkdir(parents=True)
    (here / "setup.sh").write_text(script)
    command = here / ".venv" / "bin" / "recycle"
    command.write_text("#!/bin/sh\n")
    command.chmod(0o755)
    return here, tmp_path / "bin"


def link(here: Path, bin_dir: Path, **env) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k != "RECYCLE_LINK"}
    full.update(RECYCLE_LINK_DIR=str(bin_dir), PATH=f"{bin_dir}:{os.environ.get('PATH', '')}", **env)
    return subprocess.run(
        ["bash", str(here / "setup.sh"), "--link-only"], capture_output=True, text=True, env=full, timeout=60
    )


def test_a_new_link_points_at_this_checkout_and_a_second_run_keeps_it(checkout):
    here, bin_dir = checkout
    r = link(here, bin_dir)
    assert r.returncode == 0, r.stderr
    assert os.readlink(bin_dir / "recycle") == str(here / ".venv" / "bin" / "recycle")
    assert f"linked the recycle command into {bin_dir}" in r.stdout
    again = link(here, bin_dir)
    assert again.returncode == 0 and "already links to this checkout's recycle" in again.stdout


def test_a_link_to_another_checkout_is_not_replaced_silently(checkout, tmp_path):
    here, bin_dir = checkout
    other = tmp_path / "other" / ".venv" / "bin" / "recycle"
    other.parent.mkdir(parents=True)
    other.write_text("#!/bin/sh\n")
    bin_dir.mkdir()
    (bin_dir / "recycle").symlink_to(other)
    r = link(here, bin_dir)
    assert r.returncode == 0
    assert os.readlink(bin_dir / "recycle") == str(other)  # left as it is
    assert f"{bin_dir}/recycle belongs to another checkout (it links to {other}) and is left as it is" in r.stderr
    assert f"here use {here}/.venv/bin/recycle" in r.stderr
    forced = link(here, bin_dir, RECYCLE_LINK="replace")
    assert forced.returncode == 0
    assert os.readlink(bin_dir / "recycle") == str(here / ".venv" / "bin" / "recycle")
    assert f"replaced {bin_dir}/recycle: it linked to {other} (another checkout)" in forced.stdout


def test_a_link_whose_checkout_is_gone_is_replaced_saying_so(checkout, tmp_path):
    here, bin_dir = checkout
    bin_dir.mkdir()
    gone = tmp_path / "gone" / ".venv" / "bin" / "recycle"
    (bin_dir / "recycle").symlink_to(gone)
    r = link(here, bin_dir)
    assert r.returncode == 0
    assert os.readlink(bin_dir / "recycle") == str(here / ".venv" / "bin" / "recycle")
    assert f"it linked to {gone}, which no longer exists" in r.stdout


def test_a_command_that_is_not_a_link_is_never_touched(checkout):
    here, bin_dir = checkout
    bin_dir.mkdir()
    (bin_dir / "recycle").write_text("someone else's\n")
    r = link(here, bin_dir, RECYCLE_LINK="replace")
    assert r.returncode == 0 and (bin_dir / "recycle").read_text() == "someone else's\n"
    assert "exists and is not a link (not ours): left as it is" in r.stderr


def test_a_user_who_is_not_root_gets_the_link_in_their_own_bin(checkout, tmp_path):
    here, _ = checkout
    fake = tmp_path / "fakebin"
    fake.mkdir()
    (fake / "id").write_text("#!/bin/sh\necho 1000\n")  # `id -u` of a user who is not root
    (fake / "id").chmod(0o755)
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("RECYCLE_LINK", "RECYCLE_LINK_DIR")}
    env.update(HOME=str(home), PATH=f"{fake}:{os.environ.get('PATH', '')}")
    r = subprocess.run(
        ["bash", str(here / "setup.sh"), "--link-only"], capture_output=True, text=True, env=env, timeout=60
    )
    assert r.returncode == 0, r.stderr
    assert os.readlink(home / ".local" / "bin" / "recycle") == str(here / ".venv" / "bin" / "recycle")
    assert f"add {home}/.local/bin to your PATH" in r.stderr
