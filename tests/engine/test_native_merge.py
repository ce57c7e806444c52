"""Generated functions that are the same but for their locals are written once
(recycle/native/merge.py): fewer functions to translate and build. A game whose functions were
merged is played as Python plays it in test_native.py (SHAPES)."""

from __future__ import annotations

from recycle.native.merge import merge_alike

FILTER_A = '''def filter_3(locs, lens, v_P_1):
    """(filter ...) at line 9"""
    # line 9: (move ...)
    total_4 = lens[LOC_HAND + 1 + v_P_1]
    return total_4'''
FILTER_B = (
    FILTER_A.replace("filter_3", "filter_7")
    .replace("v_P_1", "v_P_5")
    .replace("total_4", "total_8")
    .replace("line 9", "line 21")
)
FILTER_C = FILTER_A.replace("filter_3", "filter_9").replace("LOC_HAND", "LOC_PILE")
CALLER = '''def play(locs, lens):
    """The game."""
    n_2 = filter_3(locs, lens, 0) + filter_7(locs, lens, 1) + filter_9(locs, lens, 0)
    return n_2'''
FRESH = {"filter_3", "v_P_1", "total_4", "filter_7", "v_P_5", "total_8", "filter_9", "n_2"}


def test_a_function_the_same_but_for_its_locals_and_lines_is_written_once():
    sources, merged = merge_alike([FILTER_A, FILTER_B, FILTER_C, CALLER], FRESH)
    assert merged == {"filter_7": "filter_3"}
    assert [s.split("def ")[1].split("(")[0] for s in sources] == ["filter_3", "filter_9", "play"]
    # its callers call the one kept
    assert "filter_3(locs, lens, 0) + filter_3(locs, lens, 1) + filter_9(locs, lens, 0)" in sources[-1]


def test_names_the_writer_did_not_make_are_never_renamed():
    """A global (LOC_PILE against LOC_HAND) or a parameter of the state keeps two functions
    apart even where their shapes match: only the writer's fresh names are renamed."""
    assert merge_alike([FILTER_A, FILTER_C], FRESH)[1] == {}
    assert merge_alike([FILTER_A, FILTER_B], FRESH - {"v_P_5"})[1] == {}


def test_callers_of_functions_merged_are_compared_through_them():
    """Two callers alike but for which of two merged functions they call are merged too."""
    caller_a = CALLER.replace("def play", "def count_11").replace(" + filter_9(locs, lens, 0)", "")
    caller_b = (
        caller_a.replace("count_11", "count_12")
        .replace("filter_3", "filter_7")
        .replace("filter_7(locs, lens, 1)", "filter_3(locs, lens, 1)")
    )
    _, merged = merge_alike([FILTER_A, FILTER_B, caller_a, caller_b], FRESH | {"count_11", "count_12"})
    assert merged == {"filter_7": "filter_3", "count_12": "count_11"}
