"""Every word a task shows, in each language it can be shown in (en, zh).

A task's language factor (:mod:`structeval.presentation`) changes the words on
its drawing and in its notes, never what they say: a zh task and an en task of
one structure carry the same information, so a score difference between them
measures reading the language and nothing else. Keeping all wordings in one
catalogue, each key with an English and a Chinese entry with the same
placeholders (the tests check it), is what makes that hold.

The Chinese entries are written the way a Chinese structural-mechanics textbook
or exam paper puts it (铰结点, 刚结点, 支座反力, 弯矩图, 桁架, 刚架, "图示",
"EI = 常数"), not translated word for word. Numbers and SI unit symbols are the
same in both languages (10 kN, 5 kN/m, 20 kN·m, 2 m: a Chinese text typesets them
like this too, after GB 3101, with a space between number and unit), so value
texts are language-neutral and only the words change.

This module sits below the dataset (task notes), the renderer (figure notes,
the exam page) and the prompt (the hinge convention the drawings follow, which
:mod:`structeval.harness.inputs.prompt_en` and ``prompt_zh`` state); it knows nothing
about any of them.
"""

from __future__ import annotations

import string
from collections.abc import Mapping

LANGUAGES = ("en", "zh")


class PhraseError(KeyError):
    """A wording was asked for with an unknown key, language or placeholder."""


#: key → language → template (``str.format`` placeholders, the same in every language)
PHRASES: dict[str, dict[str, str]] = {
    # -- task notes (the prompt states them; the figure repeats them as notes) ----------
    "note.truss": {
        "en": "All members of this truss are pin-jointed (hinged at both ends).",
        "zh": "本桁架各杆两端均为铰接。",
    },
    "note.perpendicular": {
        "en": "Distributed loads on inclined members act perpendicular to the member, "
              "per metre of member length.",
        "zh": "斜杆上的分布荷载垂直于杆轴作用，其集度按单位杆长计。",
    },
    "note.millimetres": {
        "en": "Dimensions on the drawing are in mm; write the answer in m and kN.",
        "zh": "图中尺寸单位为 mm；答案中长度以 m、力以 kN 计。",
    },
    "note.parametric": {
        "en": "The legend on the drawing defines the symbols of the lengths and loads; write "
              "every value in the answer as a number in m and kN.",
        "zh": "图中图例给出了各长度和荷载符号的数值；答案中的每个值都写成以 m、kN 计的数。",
    },
    # -- figure notes: the short block a textbook prints under a figure --------------
    "figure.bending-stiffness": {"en": "EI = constant", "zh": "EI = 常数"},
    "figure.axial-stiffness": {"en": "EA = constant", "zh": "EA = 常数"},
    "figure.millimetres": {"en": "Dimensions in mm", "zh": "尺寸单位：mm"},
    "figure.rigid-joints": {
        "en": "Joints are rigid unless drawn with a hinge circle.",
        "zh": "除画有小圆圈的铰结点外，其余结点均为刚结点。",
    },
    # -- the hinge convention the drawings follow, stated in the prompt -----------------
    # (the renderer draws exactly these two cases: render.symbols.members.draw_hinges)
    "convention.hinge-joint": {
        "en": 'A hinge circle centred on a joint, with every member stopping at its rim, is '
              'a hinge of the whole joint: set "hinge" on every link end that meets at that '
              'point.',
        "zh": '圆圈以结点为圆心、各杆件都止于圆周时，表示整个结点为铰结点：把交于该点的每个杆端都'
              '设为 "hinge"。',
    },
    "convention.hinge-end": {
        "en": 'A small circle on one member, clear of the joint by at least its own '
              'diameter, releases only that member\'s end at that joint: set "hinge" on that '
              'link end (at the joint, not at the circle) and keep the other link ends there '
              '"rigid" unless they carry a circle of their own.',
        "zh": '小圆圈画在某一根杆件上、与结点的距离不小于其自身直径时，表示只有该杆在这一结点处的'
              '杆端为铰接：把该杆端设为 "hinge"（设在结点处，而不是圆圈处），交于该结点的其他杆端'
              '除非自身也画有小圆圈，否则仍为 "rigid"。',
    },
    # -- a long beam drawn in two rows (render.compose.rows), stated in the prompt -------
    "convention.two-rows": {
        "en": "A long beam may be drawn in two rows: it is one beam, and the lower row "
              "continues it to the right from the joint drawn with a break mark and the same "
              "letter at the end of the upper row and at the start of the lower row.",
        "zh": "较长的梁可能分两行绘制：它仍是同一根梁，下一行从上一行末端的结点起向右接续；该结点在"
              "上一行末端和下一行始端都画有折断线、字母相同，是同一个点。",
    },
    # -- the exam page around a figure -------------------------------------------------
    "page.header": {"en": "Structural Mechanics: Final Examination",
                    "zh": "《结构力学》期末考试试卷"},
    "page.term": {"en": "Academic year {year}-{next}, second semester",
                  "zh": "{year}—{next} 学年第二学期"},
    "page.fields": {"en": "Name ______________    Student No. ______________    "
                          "Class __________",
                    "zh": "姓名 ______________    学号 ______________    班级 __________"},
    "page.section": {"en": "Part III. Analysis problems", "zh": "三、计算题"},
    "page.statement.beam": {
        "en": "Problem {number}. For the beam shown in Fig. {figure}, determine the support "
              "reactions and draw the bending-moment diagram. ({points} points)",
        "zh": "{number}. 试求图 {figure} 所示梁的支座反力，并作弯矩图。（{points} 分）",
    },
    "page.statement.frame": {
        "en": "Problem {number}. For the frame shown in Fig. {figure}, determine the support "
              "reactions and draw the bending-moment diagram. ({points} points)",
        "zh": "{number}. 试求图 {figure} 所示刚架的支座反力，并作弯矩图。（{points} 分）",
    },
    "page.statement.truss": {
        "en": "Problem {number}. For the truss shown in Fig. {figure}, determine the support "
              "reactions and the axial force in every member. ({points} points)",
        "zh": "{number}. 试求图 {figure} 所示桁架的支座反力及各杆轴力。（{points} 分）",
    },
    "page.statement.structure": {
        "en": "Problem {number}. For the structure shown in Fig. {figure}, determine the "
              "support reactions and draw the bending-moment diagram. ({points} points)",
        "zh": "{number}. 试求图 {figure} 所示结构的支座反力，并作弯矩图。（{points} 分）",
    },
    "page.caption": {"en": "Fig. {figure}", "zh": "图 {figure}"},
    "page.question.stability": {
        "en": "Problem {number}. State the rules by which a plane system of members is "
              "geometrically stable without redundant restraints. ({points} points)",
        "zh": "{number}. 简述平面杆件体系几何不变且无多余约束的组成规则。（{points} 分）",
    },
    "page.question.hinge": {
        "en": "Problem {number}. Explain why the bending moment at a hinge is zero, and "
              "what this means for the shape of a bending-moment diagram. ({points} points)",
        "zh": "{number}. 说明铰结点处弯矩为零的原因，以及它对弯矩图形状的影响。"
              "（{points} 分）",
    },
    "page.question.indeterminacy": {
        "en": "Problem {number}. What is the degree of static indeterminacy of a structure, "
              "and how is it found? ({points} points)",
        "zh": "{number}. 什么是结构的超静定次数？如何确定？（{points} 分）",
    },
    "page.question.virtual-work": {
        "en": "Problem {number}. State the principle of virtual work for a system of rigid "
              "bodies and give one use of it. ({points} points)",
        "zh": "{number}. 简述刚体体系的虚功原理，并举一例说明其应用。（{points} 分）",
    },
    "page.number": {"en": "Page {page} of {pages}", "zh": "第 {page} 页  共 {pages} 页"},
    # -- words other presentations put on a drawing (units note, parametric legend) --
    "figure.dimensions-in": {"en": "Dimensions in {unit}", "zh": "尺寸单位：{unit}"},
}

#: the second problems an exam page can carry (none refers to a figure)
QUESTIONS = ("page.question.stability", "page.question.hinge", "page.question.indeterminacy",
             "page.question.virtual-work")


def check_language(lang: str) -> str:
    if lang not in LANGUAGES:
        raise PhraseError(f"unknown language {lang!r}; choose one of {', '.join(LANGUAGES)}")
    return lang


def placeholders(template: str) -> frozenset[str]:
    """The names a template fills in."""
    return frozenset(name for _, name, _, _ in string.Formatter().parse(template) if name)


def say(key: str, lang: str = "en", **params: object) -> str:
    """The wording of ``key`` in ``lang`` with its placeholders filled in."""
    check_language(lang)
    entry = PHRASES.get(key)
    if entry is None:
        raise PhraseError(f"no wording {key!r}")
    template = entry[lang]
    missing = placeholders(template) - set(params)
    if missing:
        raise PhraseError(f"wording {key!r} needs {', '.join(sorted(missing))}")
    return template.format_map(dict(params))


def statement_key(category: str | None) -> str:
    """The exam statement for a category (the generic "structure" when unknown)."""
    key = f"page.statement.{category}"
    return key if key in PHRASES else "page.statement.structure"


def catalogue(lang: str) -> Mapping[str, str]:
    """Every template of one language (for tests: keys and placeholders must agree)."""
    check_language(lang)
    return {key: entry[lang] for key, entry in PHRASES.items()}
