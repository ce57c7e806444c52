"""The file-name fuzzer (``recycle/study/namefuzz.py``, ``tools/fuzz.py --kind names``): its
checks pass on hostile names and catch a name that changes the game or leaves a file."""

import pytest

from recycle.study import namefuzz

from ..helpers import fuzz_tool

NAMES = [
    b'k""";open("pwned","w");""".rcy',
    b"bad\xffname.rcy",
    b"a\\b.rcy",
    b"\x1b]0;title\x07.rcy",
    b"line\nbreak\r.rcy",
    "\u2028\u202e".encode() + b".rcy",
    b"--help",
    b"x" * 300,
    b"nul\0.rcy",
]


@pytest.mark.parametrize("name", NAMES, ids=repr)
def test_a_hostile_name_passes_every_check(name):
    on_disk = b"/" not in name and b"\0" not in name and len(name) <= 255
    assert namefuzz.exercise_name(name) == ("ok" if on_disk else "ok (memory only)")


def test_the_checks_catch_a_file_left_behind(monkeypatch):
    real = namefuzz._check_message

    def leaves_a_file(name, load_it):
        open("pwned", "w").close()
        real(name, load_it)

    monkeypatch.setattr(namefuzz, "_check_message", leaves_a_file)
    with pytest.raises(namefuzz.NameFailure, match=r"files left behind.*pwned"):
        namefuzz.exercise_name(b"plain.rcy")


def test_the_fuzz_tool_runs_names(tmp_path, capsys):
    fuzz = fuzz_tool()
    assert (
        fuzz.main(
            [
                "--kind",
                "names",
                "-n",
                "4",
                "--seed",
                "2",
                "--workers",
                "1",
                "--timeout",
                "120",
                "--time-bound",
                "60",
                "--out",
                str(tmp_path / "out"),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "4 names inputs" in out and "no failures" in out
