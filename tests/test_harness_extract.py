"""Finding the FrameCalc JSON in free-form answers (structeval.harness.answers.extract)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from structeval.harness.answers.extract import extract_json

MODEL = {"points": [{"id": "A", "x": 0, "y": 0}, {"id": "B", "x": 4, "y": 0}],
         "links": [{"id": "L1", "a": "A", "b": "B"}], "supports": [], "loads": []}
OTHER = {"points": [{"id": "Z", "x": 9, "y": 9}], "links": [], "supports": [], "loads": []}


def test_json_tags_win_over_everything_else():
    text = (f"Draft in a fence:\n```json\n{json.dumps(OTHER)}\n```\n"
            f"<json>{json.dumps(MODEL)}</json> and a stray {{\"x\": 1}}")
    got = extract_json(text)
    assert got.document == MODEL and got.method == "json_tag" and not got.repaired


def test_last_tagged_block_is_the_answer():
    text = f"<json>{json.dumps(OTHER)}</json> wait, corrected: <json>{json.dumps(MODEL)}</json>"
    assert extract_json(text).document == MODEL


M, OTH = json.dumps(MODEL), json.dumps(OTHER)


@pytest.mark.parametrize("text,method", [
    (f"<json>\n```json\n{json.dumps(MODEL, indent=2)}\n```\n</json>", "json_tag"),  # unwrapped
    (f"ok <json>{M}", "json_tag"),  # unclosed tag at the end: read to the end
    (f"<|begin_of_box|>{M}<|end_of_box|>", "box"),
    (f"```\n{OTH}\n```\nBetter:\n```JSON\n{M}\n```", "fence"),  # the last fenced block
    (f"The model is {M} as requested.", "braces"),  # outermost braces as the last resort
])
def test_each_wrapping_is_found(text, method):
    got = extract_json(text)
    assert got.document == MODEL and got.method == method and not got.repaired


def test_reasoning_blocks_are_skipped():
    text = f"<think>maybe <json>{json.dumps(OTHER)}</json></think>\nFinal: {json.dumps(MODEL)}"
    assert extract_json(text).document == MODEL


def test_a_lone_closing_think_tag_ends_the_preamble():
    text = f"reasoning {json.dumps(OTHER)} ...</think>\n<json>{json.dumps(MODEL)}</json>"
    assert extract_json(text).document == MODEL


@pytest.mark.parametrize("text", [
    f"<think>{M}</think>",  # closed
    f"<think>{M}</think>\nI hope this helps.",  # closed, prose after it
    f"<think>let me write <json>{M}</json>",  # unclosed: the block runs to the end
    f"Here goes. <THINK>{M}",  # unclosed, tag in capitals
    f"draft {M} ...</think> and that is all.",  # a preamble closed by a lone </think>
])
def test_json_only_inside_think_is_not_an_answer(text):
    """Issue 11: what a reasoning model thinks is not its answer; the trace says why."""
    got = extract_json(text)
    assert got.document is None and got.method is None
    assert got.reason == "think_only"
    assert got.problem.startswith("JSON only inside <think>")
    assert got.to_json()["problem"] == got.problem


def test_json_after_an_unclosed_think_block_is_not_found_but_before_it_is():
    assert extract_json(f"<json>{M}</json> <think>now {OTH}").document == MODEL


def test_no_json_reasons_are_distinguished():
    assert extract_json("").reason == "empty"
    assert extract_json("I cannot see it").reason == "none"
    assert extract_json("<json>[1]</json>").reason == "not_object"
    assert extract_json(f"<json>{M}</json>").reason is None


def test_trailing_commas_and_missing_brace_are_repaired_and_flagged():
    broken = json.dumps(MODEL).replace("]", ",]")[:-1]
    got = extract_json(f"<json>{broken}</json>")
    assert got.document == MODEL and got.repaired


def test_single_quotes_and_comments_are_repaired():
    text = "<json>{'points': [{'id': 'A', 'x': 0, 'y': 0}], // the joints\n 'links': []}</json>"
    got = extract_json(text)
    assert got.repaired and got.document == {"points": [{"id": "A", "x": 0, "y": 0}],
                                             "links": []}


def test_no_json_is_explained():
    for text in ("", "   ", "I cannot see the picture.", None):
        got = extract_json(text)
        assert got.document is None and got.method is None and got.problem


def test_json_that_is_not_an_object_is_explained_differently():
    got = extract_json("<json>[1, 2, 3]</json>")
    assert got.document is None and "not an object" in got.problem


def test_deeply_nested_input_does_not_raise():
    got = extract_json("<json>" + "[" * 100000 + "</json>")
    assert got.document is None


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list('{}[]<>"\':,json/|_`\n abc123.-')), max_size=300))
def test_arbitrary_text_never_raises(text):
    got = extract_json(text)
    assert got.document is None or isinstance(got.document, dict)
