"""The prompts teach FrameCalc JSON as FORMAT.md defines it, with a correct worked example.

(That no prompt carries ground-truth values is checked end to end on the
requests the fake server receives, in test_harness_run.py.)
"""

from __future__ import annotations

import re

import pytest

from structeval import parse_model, solve
from structeval.harness.answers.extract import extract_json
from structeval.harness.common.settings import PROMPT_TYPES
from structeval.harness.inputs.prompts import example_model, repair_text, system_prompt, task_text
from structeval.model import DEFAULT_A, DEFAULT_E, DEFAULT_IZ

REQUIRED_TERMS = [
    # members and releases
    '"points"', '"links"', '"supports"', '"loads"', '"endA"', '"endB"', '"rigid"', '"hinge"',
    "every member has \"endA\": \"hinge\" and \"endB\": \"hinge\"",
    # supports and what their angle means
    '"pin"', '"roller"', '"fixed"', '"slider"', "angleDeg", "0 for a roller on horizontal ground",
    "90 for a roller against a vertical wall", "90 for a slider that slides horizontally",
    # loads and sign conventions
    "pointLoad", "distributedLoad", "bendingMoment", '"angleMode"', '"world"', '"relative"',
    '"flip"', '"refEnd"', '"offsetMode"', '"offset"', '"offsetPercent"', '"wStart"', '"wEnd"',
    '"fromStart"', '"fromEnd"', "270 = down", "counter-clockwise", "clockwise",
    # units
    "kN", "kN/m", "kN·m",
    # how to answer
    "<json></json>",
]


@pytest.mark.parametrize("prompt_type", PROMPT_TYPES)
def test_every_prompt_teaches_the_schema(prompt_type):
    text = system_prompt(prompt_type)
    missing = [term for term in REQUIRED_TERMS if term not in text]
    assert not missing, missing


@pytest.mark.parametrize("prompt_type", PROMPT_TYPES)
def test_default_section_values_are_the_parsers(prompt_type):
    text = system_prompt(prompt_type)
    numbers = {float(x.rstrip(".")) for x in re.findall(r"(?:E|A|Iz) = ([0-9.e+-]+)", text)}
    assert {DEFAULT_E, DEFAULT_A, DEFAULT_IZ} <= numbers


def test_prompt_types_differ_only_in_how_to_answer():
    texts = {t: system_prompt(t) for t in PROMPT_TYPES}
    heads = {t: text.split("## Your answer")[0] for t, text in texts.items()}
    assert len(set(heads.values())) == 1
    assert len(set(texts.values())) == len(PROMPT_TYPES)
    assert "step by step" in texts["reasoning"]
    assert "nothing else" in texts["strict"]


def test_unknown_prompt_type_is_refused():
    with pytest.raises(ValueError, match="standard"):
        system_prompt("creative")


@pytest.mark.parametrize("prompt_type", PROMPT_TYPES)
def test_the_example_in_the_prompt_is_the_valid_stable_model(prompt_type):
    example_part = system_prompt(prompt_type).split("## Example")[1].split("## Your answer")[0]
    found = extract_json(example_part)
    assert found.method == "json_tag" and not found.repaired
    assert found.document == example_model()
    solution = solve(parse_model(found.document))  # raises if invalid or a mechanism
    # The drawing in words: 4 kN/m over 3 m and 10 kN, both downward -> 22 kN held upward.
    vertical = sum(r["value"] for r in solution["reactions"]
                   if r["type"] in ("uy", "normal"))
    assert vertical == pytest.approx(22.0)
    # Statics of the words: about hinge B, R_C·3 = 10·2 + 6 (clockwise couple) -> 26/3 kN;
    # the wall then carries 12 kN·1.5 m + (10 - 26/3) kN·3 m = 22 kN·m counter-clockwise.
    by = {(r["atId"], r["type"]): r["value"] for r in solution["reactions"]}
    assert by[("S2", "normal")] == pytest.approx(26 / 3)
    assert by[("S1", "rz")] == pytest.approx(22.0)
    assert by[("S1", "ux")] == pytest.approx(0.0, abs=1e-9)


def test_the_worked_example_follows_the_hinge_convention():
    """The example's words draw a circle centred on B (a hinge of the whole joint), so every
    link end at B is "hinge", as the convention in the schema says (a released end of one
    member would be drawn as a circle on that member, beside B)."""
    model = parse_model(example_model())
    at_b = [(lk.hinge_a if lk.a == "B" else lk.hinge_b) for lk in model.links
            if "B" in (lk.a, lk.b)]
    assert len(at_b) == 2 and all(at_b)
    example = system_prompt("standard").split("## Example")[1].split("<json>")[0]
    assert "hinge circle centred on B" in example


def test_notes_are_appended_to_the_task_text():
    assert task_text("Pin-jointed truss.").endswith("Notes for this drawing: Pin-jointed truss.")
    assert "Notes" not in task_text("") and "Notes" not in task_text(None)


def test_repair_text_names_the_stage_and_keeps_the_diagnosis():
    text = repair_text("supports", "your support S2 at point C restrains differently")
    assert "supports do not match" in text
    assert "your support S2 at point C restrains differently" in text
    assert "<json></json>" in text
    assert "no FrameCalc JSON" in repair_text("no_json", "")


def test_the_worked_example_is_no_shipped_task():
    """The example is the one structure every prompt shows: it must not be the answer to any
    task of the shipped dataset (checked by the scorer, so renamed or re-encoded copies count)."""
    from structeval.dataset import DatasetError, load_tasks
    from structeval.scoring import score

    try:
        tasks = load_tasks()
    except DatasetError as exc:
        pytest.skip(f"shipped data/ does not load here: {str(exc)[:200]}")
    if not tasks:
        pytest.skip("no shipped tasks")
    example = parse_model(example_model())
    equal = [t.id for t in tasks if score(t.model, example).ratio >= 1.0]
    assert not equal


def test_a_sheet_statement_is_shown_with_the_drawing_in_each_language():
    """A drawing sheet shows several frames: the task text says which one to model, and
    that the sheet holds every value needed (plan, load table, notes)."""
    statement = "Model the frame on grid line 3 under load case 1."
    text = task_text("", "en", statement=statement)
    assert statement in text and "load table" in text and "plan" in text
    zh = task_text("", "zh", statement="按荷载工况 1 建立 3 轴框架的计算模型。")
    assert "按荷载工况 1 建立 3 轴框架的计算模型。" in zh and "荷载表" in zh
    assert "grid line" not in task_text("") and "load table" not in task_text("")


def test_the_conversation_of_a_sheet_task_carries_its_statement(tmp_path):
    from structeval.dataset import load_tasks
    from structeval.harness.common.settings import GradingSettings
    from structeval.harness.inputs.task_input import prepare_input
    from structeval.harness.run.repair_loop import conversation
    from tests.sheet_fixtures import SHEET_ID, make_sheet_folder

    root = make_sheet_folder(tmp_path / "data", plain=False).root
    task = next(t for t in load_tasks(root) if t.id == SHEET_ID)
    for lang, words in (("en", "Model the frame on grid line 3 under load case 1."),
                        ("zh", "按荷载工况 1 建立 3 轴框架的计算模型。")):
        grading = GradingSettings(model="m", lang=lang)
        messages = conversation("system", task, prepare_input(task, "image"), grading)
        first = messages[1]["content"][0]["text"]
        assert words in first
