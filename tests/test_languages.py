"""``--lang en|zh``: both languages teach the same rules, and every sentence exists in both.

The words differ (the Chinese is written as a Chinese structural-mechanics text
would say it); what the model must write does not: the same JSON example byte
for byte, the same defaults and numbers, the same kinds and fields. The
diagnosis has one template per sentence and language with the same
placeholders, and the verdict (stage, credit, checks) never depends on the
language. The full ``--lang zh`` run against the scripted server is in
``tests/test_harness_modern.py``.
"""

from __future__ import annotations

import copy
import json
import re

import pytest

from structeval import parse_model
from structeval.harness.answers.extract import extract_json
from structeval.harness.answers.grading import grade_answer
from structeval.harness.common.settings import PROMPT_TYPES
from structeval.harness.inputs import prompt_en, prompt_zh
from structeval.harness.inputs.prompts import (
    LANGUAGES,
    example_json,
    example_model,
    no_json_message,
    repair_text,
    system_prompt,
    task_text,
)
from structeval.phrasebook import say
from structeval.scoring import score
from structeval.scoring.wording import TEMPLATES, placeholders
from tests.fakeserver import fixture as fx

CJK = re.compile(r"[\u4e00-\u9fff]")


def _quoted(text: str) -> list[str]:
    return sorted(re.findall(r'"[^"]*"', text))


def _numbers(text: str) -> list[str]:
    return sorted(re.findall(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e[+-]?\d+)?(?![\w])", text))


def _identifiers(text: str) -> set[str]:
    """camelCase names the model must write (pointLoad, angleDeg, refEnd, ...)."""
    return set(re.findall(r"\b[a-z]+[A-Z][A-Za-z]*\b", text))


def test_languages_are_en_and_zh():
    assert LANGUAGES == ("en", "zh")


def test_every_scorer_template_exists_in_every_language_with_the_same_placeholders():
    assert TEMPLATES
    for key, by_lang in TEMPLATES.items():
        assert set(by_lang) == set(LANGUAGES), key
        assert placeholders(by_lang["en"]) == placeholders(by_lang["zh"]), key
        words = re.sub(r"\{\w+\}", "", by_lang["en"])
        if re.search(r"[A-Za-z]{3}", words):  # a sentence, not just punctuation around slots
            assert CJK.search(by_lang["zh"]), f"{key} is not written in Chinese"


def test_every_harness_sentence_exists_in_every_language_with_the_same_placeholders():
    assert set(prompt_en.FEEDBACK) == set(prompt_zh.FEEDBACK)
    for key, text in prompt_en.FEEDBACK.items():
        assert placeholders(text) == placeholders(prompt_zh.FEEDBACK[key]), key
        assert CJK.search(prompt_zh.FEEDBACK[key]), key
    assert set(prompt_en.ANSWER) == set(prompt_zh.ANSWER) == set(PROMPT_TYPES)
    assert placeholders(prompt_en.EXAMPLE) == placeholders(prompt_zh.EXAMPLE) == {"json"}


@pytest.mark.parametrize("prompt_type", PROMPT_TYPES)
def test_both_languages_show_the_same_json_example_byte_for_byte(prompt_type):
    examples = []
    for lang in LANGUAGES:
        text = system_prompt(prompt_type, lang)
        block = re.search(r"<json>\n(.*?)\n</json>", text, re.S)
        assert block, lang
        examples.append(block.group(1))
        found = extract_json(f"<json>{block.group(1)}</json>")
        assert found.document == example_model() and not found.repaired
    assert examples[0] == examples[1] == example_json()


def test_both_languages_teach_the_same_rules():
    """Same field names and values in quotes, same numbers (defaults, angles, the example's
    dimensions), same camelCase names, section by section."""
    for name in ("SCHEMA", "EXAMPLE"):
        en, zh = getattr(prompt_en, name), getattr(prompt_zh, name)
        assert _quoted(en) == _quoted(zh), name
        assert _numbers(en) == _numbers(zh), name
        assert _identifiers(en) == _identifiers(zh), name
    for prompt_type in PROMPT_TYPES:
        en, zh = prompt_en.ANSWER[prompt_type], prompt_zh.ANSWER[prompt_type]
        assert (_quoted(en), _numbers(en)) == (_quoted(zh), _numbers(zh)), prompt_type
        assert ("<json></json>" in en) and ("<json></json>" in zh)
    kinds = {'"pin"', '"roller"', '"fixed"', '"slider"', '"pointLoad"', '"rigid"', '"hinge"'}
    assert kinds <= set(_quoted(prompt_zh.SCHEMA + prompt_zh.EXAMPLE)) | {'"pointLoad"'}
    for word in ("pointLoad", "distributedLoad", "bendingMoment", "angleDeg", "refEnd",
                 "offsetMode", "offsetPercent", "wStart", "fromEnd"):
        assert word in prompt_zh.SCHEMA, word


def test_the_chinese_prompt_speaks_structural_engineering():
    text = system_prompt("standard", "zh")
    for term in ("支座", "铰", "固定端", "链杆", "可动铰支座", "固定铰支座", "定向支座",
                 "均布荷载", "集中力", "力偶", "弯矩", "支座反力", "杆件", "结点"):
        assert term in text, term
    assert not re.search(r"\bYou\b|\bthe\b", text)  # no English sentences left


#: the convention sentences' key words, so that an emptied or reworded phrase fails too
HINGE_CONVENTION = {
    "en": {"convention.hinge-joint": ("centred on a joint", 'set "hinge" on every link end'),
           "convention.hinge-end": ("on one member", "its own diameter",
                                    "only that member's end", 'other link ends there "rigid"')},
    "zh": {"convention.hinge-joint": ("以结点为圆心", "每个杆端都设为 \"hinge\""),
           "convention.hinge-end": ("某一根杆件上", "自身直径", "只有该杆",
                                    "否则仍为 \"rigid\"")},
}
#: the two-row convention's key words (a long beam drawn in two rows, render.compose.rows)
TWO_ROWS = {"en": ("two rows", "one beam", "break mark", "same letter", "lower row"),
            "zh": ("分两行", "同一根梁", "折断线", "字母相同", "下一行")}


@pytest.mark.parametrize("prompt_type", PROMPT_TYPES)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_system_prompt_states_the_two_row_convention(lang, prompt_type):
    """Once, in the schema's units-and-axes paragraph, in both languages."""
    text = system_prompt(prompt_type, lang)
    sentence = say("convention.two-rows", lang)
    assert text.count(sentence) == 1
    assert text.index(sentence) < text.index("### points")
    for word in TWO_ROWS[lang]:
        assert word in sentence, word


#: the sentence that let a reader release every end at a member-end circle (a mechanism)
OLD_HINGE_RULE = {"en": "releasing every end at that point is also correct",
                  "zh": "把该点所有杆端都设为铰接也是正确的"}


@pytest.mark.parametrize("prompt_type", PROMPT_TYPES)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_system_prompt_states_one_hinge_convention(lang, prompt_type):
    """A circle centred on a joint releases every end there; a circle on one member, clear
    of the joint, releases that member's end only. Both sentences come from the phrasebook,
    once each, in the schema's links section; the old "every end is also correct" is gone."""
    text = system_prompt(prompt_type, lang)
    links = text.split("### links")[1].split("### supports")[0]
    for key, words in HINGE_CONVENTION[lang].items():
        sentence = say(key, lang)
        assert all(w in sentence for w in words), (key, sentence)
        assert text.count(sentence) == 1 and sentence in links, key
    assert OLD_HINGE_RULE[lang] not in text
    assert "also correct" not in text and "也是正确的" not in text


def test_defaults_are_the_same_numbers_in_both_languages():
    for lang in LANGUAGES:
        text = system_prompt("standard", lang)
        found = {x.rstrip(".") for x in re.findall(r"(?:E|A|Iz) = ([0-9.e+-]+)", text)}
        assert found == {"80918000", "0.007853981633974483", "4.908738521234054e-06"}, lang


def test_task_text_and_repair_feedback_in_chinese():
    text = task_text("桁架各杆均为铰接。", "zh")
    assert text.startswith("把这幅图中的结构写成 FrameCalc JSON。")
    assert text.endswith("本图说明：桁架各杆均为铰接。")
    assert "DXF" in task_text("", "zh", "dxf") and "DXF" in task_text("", "en", "dxf")
    assert "DXF" not in task_text("", "zh")
    repair = repair_text("supports", "支座阶段未通过：……", "zh")
    assert repair.startswith("你上一次的回答还不正确：几何正确，但支座与图不符。")
    assert "支座阶段未通过" in repair and "<json></json>" in repair
    assert "推理块" in no_json_message("think_only", "zh")
    with pytest.raises(ValueError, match="zh"):
        system_prompt("standard", "fr")


FAULTS = {  # (task, fault) → the stage the scorer must find
    ("beam_t01", "moved"): "geometry",
    ("beam_t01", "support"): "supports",
    ("frame_t01", "hinge"): "releases",
    ("frame_t01", "load"): "loads",
    ("truss_t01", "perfect"): "perfect",
    ("beam_t02", "invalid"): "invalid",
}


def _fault(task_id: str, kind: str) -> dict:
    return {"moved": lambda: fx.moved_point(task_id, "C", 1),
            "support": lambda: fx.support_kind(task_id, "S2", "pin"),
            "hinge": lambda: fx.released(task_id, "L2", "endB", "rigid"),
            "load": lambda: fx.scaled_load(task_id, "Q1", 1.5),
            "perfect": lambda: fx.equivalent(task_id),
            "invalid": lambda: fx.invalid(task_id)}[kind]()


@pytest.mark.parametrize("case", list(FAULTS), ids=lambda c: "-".join(c))
def test_the_verdict_does_not_depend_on_the_language(case):
    task_id, kind = case
    gt = parse_model(fx.GT_MODELS[task_id])
    candidate = copy.deepcopy(_fault(task_id, kind))
    en, zh = score(gt, candidate, lang="en"), score(gt, candidate, lang="zh")
    assert en.stage == zh.stage == FAULTS[case]
    assert (en.ratio, en.checks) == (zh.ratio, zh.checks)
    assert CJK.search(zh.message) and not CJK.search(en.message)
    # the candidate's own ids appear in both (e.g. S2, L2), no ground-truth values
    for ident in re.findall(r"\b[SL]\d\b", en.message):
        assert ident in zh.message


def test_no_json_feedback_follows_the_language():
    gt = parse_model(fx.GT_MODELS["beam_t01"])
    en = grade_answer(gt, "<think><json>{\"points\": []}</json>", tolerance=0.02)
    zh = grade_answer(gt, "<think><json>{\"points\": []}</json>", tolerance=0.02, lang="zh")
    assert en.grade.stage == zh.grade.stage == "no_json"
    assert en.extraction.reason == "think_only"
    assert en.grade.message.startswith("JSON only inside <think>")
    assert zh.grade.message.startswith("JSON 只出现在 <think> 推理块内")


def test_the_score_command_speaks_both_languages(tmp_path):
    from click.testing import CliRunner

    from structeval.cli import main

    gt, cand = tmp_path / "gt.json", tmp_path / "cand.json"
    gt.write_text(json.dumps(fx.GT_MODELS["beam_t01"]))
    cand.write_text(json.dumps(fx.support_kind("beam_t01", "S2", "pin")))
    out = {lang: json.loads(CliRunner().invoke(main, ["score", str(gt), str(cand), "--lang",
                                                      lang]).output) for lang in LANGUAGES}
    assert out["en"]["stage"] == out["zh"]["stage"] == "supports"
    assert out["zh"]["message"].startswith("支座阶段未通过：你设在结点 C 的支座 S2")
    assert out["en"]["checks"] == out["zh"]["checks"]
