"""The words of the diagnosis, in every language the benchmark speaks (en, zh).

The scorer decides *what* is wrong and *where* from physics; how that is said
is a separate concern, kept here so that the logic in :mod:`.diagnose` and
:mod:`.locate` stays language-neutral. They build :class:`Phrase` objects (a
template key and its parameters — ids from the candidate's own model, counts,
nested phrases) and :func:`render` turns a phrase into text in one language.

Every template exists in every language with the same placeholders (the tests
check it), so a phrase can always be rendered. The Chinese texts are written
the way a Chinese structural-mechanics text says it (结点, 杆件, 支座, 铰,
荷载, 几何可变体系), not translated word by word; JSON field names and values
(``endA``, ``angleDeg``, ``"hinge"``) stay as they are, since they are what the
model has to write.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..phrasebook import LANGUAGES, placeholders

DEFAULT_LANGUAGE = "en"


@dataclass(frozen=True)
class Phrase:
    """A sentence to be said: a template key and its parameters (str, int or Phrase)."""

    key: str
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Listed:
    """Items said one after the other with a separator of the language (see :func:`join`)."""

    items: tuple[Any, ...]
    separator: str = "list"


def phrase(key: str, **params: Any) -> Phrase:
    if key not in TEMPLATES:
        raise KeyError(f"no template {key!r}")
    return Phrase(key, params)


def check_language(lang: str) -> str:
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; one of {', '.join(LANGUAGES)}")
    return lang


def render(item: Phrase | Listed | str | int | float, lang: str = DEFAULT_LANGUAGE) -> str:
    """The text of a phrase (parameters rendered first); plain values as they are."""
    if isinstance(item, Listed):
        return join(item.items, lang, item.separator)
    if not isinstance(item, Phrase):
        return str(item)
    params = {name: render(value, lang) for name, value in item.params.items()}
    return TEMPLATES[item.key][check_language(lang)].format(**params)


def join(items: Iterable[Any], lang: str, separator: str = "list") -> str:
    """Items rendered and joined with the language's separator (``list``: "a, b" / "a、b";
    ``notes``: "a; b" / "a；b"; ``and``: "a and b" / "a以及b")."""
    return TEMPLATES[f"sep.{separator}"][check_language(lang)].join(render(i, lang)
                                                                      for i in items)


TEMPLATES: dict[str, dict[str, str]] = {
    # separators (no placeholders)
    "sep.list": {"en": ", ", "zh": "、"},
    "sep.notes": {"en": "; ", "zh": "；"},
    "sep.and": {"en": " and ", "zh": "以及"},
    # places, in the candidate's own names
    "place.point": {"en": "your point {point}", "zh": "你的结点 {point}"},
    "place.near": {"en": "a place near your point {point} where your model has no point",
                   "zh": "你的结点 {point} 附近一处（你的模型在该处没有设点）"},
    "place.links": {"en": "your links {ids}", "zh": "你的杆件 {ids}"},
    "place.supports": {"en": "your supports {ids}", "zh": "你的支座 {ids}"},
    "place.structure": {"en": "the structure", "zh": "整个结构"},
    # geometry
    "geometry.missing_member": {
        "en": "the drawing has a member between {a} and {b} that your model does not cover "
              "with links",
        "zh": "图中{a}与{b}之间有一根杆件，你的模型没有用杆件（links）把它连起来"},
    "geometry.extra_link": {
        "en": "your link {link} ({a}–{b}) is not a member of the drawing",
        "zh": "你的杆件 {link}（{a}–{b}）在图中并不存在"},
    # supports
    "supports.missing": {
        "en": "the drawing has a support at {place} that your model lacks",
        "zh": "图中在{place}处有一个支座，你的模型缺少它"},
    "supports.differs": {
        "en": "your support {support} at point {point} restrains differently from the "
              "drawing: check its kind and angleDeg",
        "zh": "你设在结点 {point} 的支座 {support} 的约束与图不符：请检查它的类型（kind）和 "
              "angleDeg"},
    "supports.extra": {
        "en": "your support {support} at point {point} is not in the drawing",
        "zh": "你设在结点 {point} 的支座 {support} 在图中并不存在"},
    # releases
    "releases.joint": {
        "en": "the joint at {place} connects its members differently from the drawing: check "
              "the endA/endB hinges there",
        "zh": "{place}处结点与杆件的连接方式与图不符：请检查该处杆端的 endA/endB 铰接设置"},
    # loads
    "loads.at_point": {
        "en": "the loads at {place} do not match the drawing (check value, direction and sign)",
        "zh": "{place}处的荷载与图不符（请检查大小、方向和正负号）"},
    "loads.on_member": {
        "en": "the loads on the member between {a} and {b} do not match the drawing (check "
              "value, direction, position and extent)",
        "zh": "{a}与{b}之间杆件上的荷载与图不符（请检查大小、方向、作用位置和分布范围）"},
    "loads.off_structure": {
        "en": "some of your loads act where the drawing has no member",
        "zh": "你有荷载作用在图中没有杆件的位置"},
    # mechanisms found at a stage
    "mechanism.geometry": {"en": "parts of your structure are not connected to the rest",
                           "zh": "你的结构有一部分与其余部分没有连接"},
    "mechanism.supports": {"en": "with your supports the structure is a mechanism",
                           "zh": "按你的支座布置，结构是几何可变体系（机构）"},
    "mechanism.releases": {"en": "with your hinges the structure is a mechanism",
                           "zh": "按你的铰布置，结构是几何可变体系（机构）"},
    "mechanism.loads": {"en": "your loads cannot be carried",
                        "zh": "你的荷载无法由结构承受"},
    "mechanism.detail": {"en": "{what} ({detail})", "zh": "{what}（{detail}）"},
    # a stage failed but no single place could be named
    "fallback.geometry": {"en": "member lengths, angles or connections",
                          "zh": "杆件的长度、角度或连接"},
    "fallback.supports": {"en": "support kinds or angles", "zh": "支座的类型或角度"},
    "fallback.releases": {"en": "hinges (endA/endB)", "zh": "铰（endA/endB）"},
    "fallback.loads": {"en": "load values, directions or positions",
                       "zh": "荷载的大小、方向或位置"},
    "fallback.note": {"en": "the {what} differ from the drawing; the effect shows at {place}",
                      "zh": "{what}与图不符；其影响体现在{place}"},
    # stage labels and whole messages
    "stage.geometry": {"en": "Geometry", "zh": "几何"},
    "stage.supports": {"en": "Supports", "zh": "支座"},
    "stage.releases": {"en": "Hinges (releases)", "zh": "铰（杆端释放）"},
    "stage.loads": {"en": "Loads", "zh": "荷载"},
    "stage.invalid": {"en": "Invalid model", "zh": "无效模型"},
    "stage.perfect": {"en": "Correct", "zh": "正确"},
    "message.failed": {"en": "{label} stage failed: {notes}.",
                       "zh": "{label}阶段未通过：{notes}。"},
    "message.more": {"en": "and {count} more", "zh": "另有 {count} 处"},
    "message.perfect": {"en": "Correct: reactions and bending moments match the drawing.",
                        "zh": "正确：支座反力和弯矩均与图一致。"},
    "message.invalid": {"en": "Your JSON is not a valid FrameCalc model: {issues}",
                        "zh": "你的 JSON 不是有效的 FrameCalc 模型：{issues}"},
    # a drawing sheet: the answer models another frame of the sheet (.frames); {member}
    # is what the sheet's task models there (member.frame: a building's frame, or
    # member.girder: a bridge's girder)
    "frame.wrong": {"en": "Wrong {member}: this is the {member} on {frame}; the task asks "
                          "for the {member} on {target}.",
                    "zh": "{member}选错了：这是{frame}上的{member}；题目要求的是{target}上的"
                          "{member}。"},
    "frame.structure": {"en": "Wrong {member}: your structure is the {member} on {frame} "
                              "(though its {what} differ); the task asks for the {member} on "
                              "{target}.",
                        "zh": "{member}选错了：你的结构是{frame}上的{member}（但{what}与它也不"
                              "符）；题目要求的是{target}上的{member}。"},
    "member.frame": {"en": "frame", "zh": "框架"},
    "member.girder": {"en": "girder", "zh": "主梁"},
}


__all__ = ["DEFAULT_LANGUAGE", "LANGUAGES", "TEMPLATES", "Listed", "Phrase", "check_language",
           "join", "phrase", "placeholders", "render"]
