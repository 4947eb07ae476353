"""One catalogue of wordings: the same keys and placeholders in English and Chinese.

A zh task must say what its en twin says, so every wording exists in both languages
with the same placeholders, and the task notes and figure notes come from it.
"""

from __future__ import annotations

import re

import pytest

from structeval.dataset.notes import PERPENDICULAR, TRUSS, task_notes
from structeval.dataset.problem import make_problem
from structeval.model import parse_model
from structeval.note_keys import figure_note_keys, task_note_keys
from structeval.phrasebook import (
    LANGUAGES,
    PHRASES,
    QUESTIONS,
    PhraseError,
    catalogue,
    placeholders,
    say,
    statement_key,
)
from structeval.presentation import FACTORS, Presentation

ZH = Presentation(language="zh")

CJK = re.compile(r"[\u4e00-\u9fff]")

TRUSS_MODEL = parse_model({
    "points": [{"id": "A", "x": 0, "y": 0}, {"id": "B", "x": 4, "y": 0},
               {"id": "C", "x": 2, "y": 2}],
    "links": [{"id": f"L{i}", "a": a, "b": b, "endA": "hinge", "endB": "hinge"}
              for i, (a, b) in enumerate((("A", "B"), ("B", "C"), ("C", "A")))],
    "supports": [{"id": "S1", "at": {"type": "point", "id": "A"}, "kind": "pin"},
                 {"id": "S2", "at": {"type": "point", "id": "B"}, "kind": "roller"}],
    "loads": [{"id": "F", "kind": "pointLoad", "at": {"type": "point", "id": "C"}, "value": 10,
               "angleDeg": 270, "angleMode": "world", "flip": 1}]})
GABLE = parse_model({  # a rigid frame with a distributed load on an inclined member
    "points": [{"id": "A", "x": 0, "y": 0}, {"id": "B", "x": 0, "y": 3},
               {"id": "C", "x": 3, "y": 4.5}],
    "links": [{"id": "L1", "a": "A", "b": "B"}, {"id": "L2", "a": "B", "b": "C"}],
    "supports": [{"id": "S1", "at": {"type": "point", "id": "A"}, "kind": "fixed"}],
    "loads": [{"id": "Q", "kind": "distributedLoad", "at": {"type": "link", "id": "L2"},
               "wStart": 5, "wEnd": 5, "angleDeg": 270, "angleMode": "relative", "flip": 1}]})


def test_both_languages_have_every_key_with_the_same_placeholders() -> None:
    en, zh = catalogue("en"), catalogue("zh")
    assert set(en) == set(zh) == set(PHRASES)
    assert set(LANGUAGES) == set(FACTORS["language"])
    differing = {k: (sorted(placeholders(en[k])), sorted(placeholders(zh[k])))
                 for k in en if placeholders(en[k]) != placeholders(zh[k])}
    assert not differing, differing


def test_chinese_entries_are_chinese_and_english_ones_are_not() -> None:
    """No entry was left untranslated, and none is the other language copied."""
    for key, entry in PHRASES.items():
        assert CJK.search(entry["zh"]), key
        assert not CJK.search(entry["en"]), key
        assert entry["en"] != entry["zh"], key


def test_textbook_wording() -> None:
    """The Chinese says it the way a Chinese textbook does."""
    assert say("figure.bending-stiffness", "zh") == "EI = 常数"
    assert "刚结点" in say("figure.rigid-joints", "zh")
    assert "铰接" in say("note.truss", "zh")
    frame = say(statement_key("frame"), "zh", number=3, figure="3-12", points=15)
    assert frame.startswith("3. 试求图 3-12 所示刚架的支座反力，并作弯矩图。")
    assert say(statement_key("frame"), "en", number=3, figure="3-12", points=15).startswith(
        "Problem 3. For the frame shown in Fig. 3-12, determine the support reactions")
    assert "桁架" in say(statement_key("truss"), "zh", number=1, figure="1", points=1)
    assert statement_key("arch") == "page.statement.structure"
    assert say("figure.dimensions-in", "zh", unit="m") == "尺寸单位：m"


def test_no_second_problem_refers_to_a_figure() -> None:
    for key in QUESTIONS:
        en, zh = (say(key, lang, number=4, points=5) for lang in LANGUAGES)
        assert "Fig" not in en and "图" not in zh.replace("弯矩图", ""), key


def test_say_refuses_what_it_cannot_say() -> None:
    with pytest.raises(PhraseError, match="no wording"):
        say("nothing.here", "en")
    with pytest.raises(PhraseError, match="unknown language"):
        say("page.header", "fr")
    with pytest.raises(PhraseError, match="needs figure"):
        say("page.caption", "zh")


def test_task_notes_in_both_languages_state_the_same_notes() -> None:
    assert task_note_keys(TRUSS_MODEL, "truss") == ["note.truss"]
    assert task_notes(TRUSS_MODEL, "truss") == TRUSS
    assert task_notes(TRUSS_MODEL, "truss", ZH) == say("note.truss", "zh")
    assert task_note_keys(GABLE, "frame") == ["note.perpendicular"]
    assert task_notes(GABLE, "frame") == PERPENDICULAR
    assert CJK.search(task_notes(GABLE, "frame", ZH))
    assert task_notes(GABLE, "beam", ZH) == task_notes(GABLE, "frame", ZH)


def test_figure_notes_follow_the_model() -> None:
    assert figure_note_keys(TRUSS_MODEL) == ["figure.axial-stiffness", "note.truss"]
    assert figure_note_keys(GABLE) == ["figure.bending-stiffness", "figure.rigid-joints",
                                       "note.perpendicular"]
    single = parse_model({"points": [{"id": "A", "x": 0, "y": 0}, {"id": "B", "x": 4, "y": 0}],
                          "links": [{"id": "L1", "a": "A", "b": "B"}], "supports": [],
                          "loads": []})
    assert figure_note_keys(single) == ["figure.bending-stiffness"]


def test_a_zh_problem_stores_zh_notes() -> None:
    zh = make_problem("truss-x", "truss", "test", TRUSS_MODEL, "hand-authored", ("cad", 1),
                      presentation=Presentation(language="zh"))
    en = make_problem("truss-y", "truss", "test", TRUSS_MODEL, "hand-authored", ("cad", 1))
    assert zh.block["notes"] == say("note.truss", "zh")
    assert en.block["notes"] == TRUSS
    assert make_problem("s", "truss", "test", TRUSS_MODEL, "hand-authored", ("sketch", 1),
                        presentation=Presentation(style="sketch")).block["image"]["file"] \
        == "s.jpg"
