"""A tiny dataset in the shipped layout, and model answers of every kind for it.

Layout (as ``data/``): ``raw_models/<id>.json`` (FrameCalc JSON),
``images/<id>.png`` and ``ground_truth_meta/<id>.json``. Each image is a small
distinct PNG, so the fake server can tell tasks apart by the image's sha256.
On request (``dxf=``) a task also gets ``images/<id>.dxf``, a small ASCII DXF
drawing of its model made with ezdxf (members as lines, hinges as circles, loads
and supports as texts), which DXF requests are told apart by.

Answers are built from the ground truth by edits whose expected verdict is known
from the scoring rules: an equivalent re-encoding (new ids, reversed links,
shifted origin) is perfect; moving a point fails geometry; a roller turned into
a pin fails supports; a removed hinge fails releases; a scaled load fails loads.
"""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from structeval import parse_model
from structeval.model import Model

SECRET_KEY = "sk-test-9f8e7d6c5b4a-DO-NOT-LEAK"

_LINK = {"endA": "rigid", "endB": "rigid"}
_BAR = {"endA": "hinge", "endB": "hinge"}


def _pin(sid: str, at: str, kind: str = "pin", angle: float = 0) -> dict[str, Any]:
    return {"id": sid, "at": {"type": "point", "id": at}, "kind": kind, "angleDeg": angle}


def _force(lid: str, at: str, value: float, angle: float) -> dict[str, Any]:
    return {"id": lid, "kind": "pointLoad", "at": {"type": "point", "id": at}, "value": value,
            "angleDeg": angle, "angleMode": "world", "flip": 1}


def _udl(lid: str, link: str, w: float) -> dict[str, Any]:
    return {"id": lid, "kind": "distributedLoad", "at": {"type": "link", "id": link},
            "wStart": w, "wEnd": w, "fromStart": 0, "fromEnd": 0, "angleDeg": 270,
            "angleMode": "world", "flip": 1}


GT_MODELS: dict[str, dict[str, Any]] = {
    # simply supported beam with an interior joint: 20 kN at B, 10 kN/m on B-C
    "beam_t01": {
        "points": [{"id": "A", "x": 0, "y": 0}, {"id": "B", "x": 2, "y": 0},
                   {"id": "C", "x": 6, "y": 0}],
        "links": [{"id": "L1", "a": "A", "b": "B", **_LINK},
                  {"id": "L2", "a": "B", "b": "C", **_LINK}],
        "supports": [_pin("S1", "A"), _pin("S2", "C", "roller")],
        "loads": [_force("F1", "B", 20, 270), _udl("Q1", "L2", 10)],
    },
    # portal frame, fixed + pin feet, hinge at the top right corner
    "frame_t01": {
        "points": [{"id": "A", "x": 0, "y": 0}, {"id": "B", "x": 0, "y": 4},
                   {"id": "C", "x": 5, "y": 4}, {"id": "D", "x": 5, "y": 0}],
        "links": [{"id": "L1", "a": "A", "b": "B", **_LINK},
                  {"id": "L2", "a": "B", "b": "C", "endA": "rigid", "endB": "hinge"},
                  {"id": "L3", "a": "C", "b": "D", **_LINK}],
        "supports": [_pin("S1", "A", "fixed"), _pin("S2", "D")],
        "loads": [_force("F1", "B", 15, 0), _udl("Q1", "L2", 8)],
    },
    # pin-jointed triangle truss
    "truss_t01": {
        "points": [{"id": "A", "x": 0, "y": 0}, {"id": "B", "x": 4, "y": 0},
                   {"id": "C", "x": 2, "y": 2}],
        "links": [{"id": "L1", "a": "A", "b": "B", **_BAR},
                  {"id": "L2", "a": "A", "b": "C", **_BAR},
                  {"id": "L3", "a": "C", "b": "B", **_BAR}],
        "supports": [_pin("S1", "A"), _pin("S2", "B", "roller")],
        "loads": [_force("F1", "C", 12, 270), _force("F2", "C", 5, 0)],
    },
    # cantilever with a tip force and a tip couple
    "beam_t02": {
        "points": [{"id": "A", "x": 0, "y": 0}, {"id": "B", "x": 3, "y": 0}],
        "links": [{"id": "L1", "a": "A", "b": "B", **_LINK}],
        "supports": [_pin("S1", "A", "fixed")],
        "loads": [_force("F1", "B", 5, 270),
                  {"id": "M1", "kind": "bendingMoment", "at": {"type": "point", "id": "B"},
                   "value": 4, "flip": 1}],
    },
}

CATEGORY = {"beam_t01": "beam", "frame_t01": "frame", "truss_t01": "truss", "beam_t02": "beam"}
DIFFICULTY = {"beam_t01": 1, "frame_t01": 3, "truss_t01": 2, "beam_t02": 2}
NOTES = {"beam_t01": "", "frame_t01": "All members have the same EI.",
         "truss_t01": "Pin-jointed truss: every member is hinged at both ends.", "beam_t02": ""}
_COLOURS = {"beam_t01": (200, 30, 30), "frame_t01": (30, 160, 30), "truss_t01": (30, 30, 200),
            "beam_t02": (160, 160, 30)}


@dataclass(frozen=True)
class FixtureTask:
    """Same attributes as structeval.dataset.Task, for tests that bypass the loader."""

    id: str
    category: str
    difficulty: int
    split: str
    image_path: Path
    model: Model
    meta: dict[str, Any]
    notes: str
    dxf_path: Path | None = None


def _png(path: Path, task_id: str, base: str) -> None:
    image = Image.new("RGB", (64, 48), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle((4, 20, 60, 26), fill=_COLOURS[base])
    draw.text((4, 4), task_id[-8:], fill=(0, 0, 0))
    image.save(path, format="PNG", optimize=False)


def write_dxf(path: Path, model: dict[str, Any], label: str) -> None:
    """A small ASCII DXF drawing of a FrameCalc model (R2010, made with ezdxf)."""
    import ezdxf

    doc = ezdxf.new("R2010")
    space = doc.modelspace()
    points = {p["id"]: (float(p["x"]), float(p["y"])) for p in model["points"]}
    for link in model["links"]:
        space.add_line(points[link["a"]], points[link["b"]], dxfattribs={"layer": "MEMBERS"})
        for end, at in (("endA", link["a"]), ("endB", link["b"])):
            if link.get(end) == "hinge":
                space.add_circle(points[at], 0.08, dxfattribs={"layer": "HINGES"})
    for support in model["supports"]:
        x, y = points[support["at"]["id"]]
        space.add_text(support["kind"], dxfattribs={"layer": "SUPPORTS", "height": 0.2,
                                                     "insert": (x, y - 0.4)})
    for load in model["loads"]:
        value = load.get("value", load.get("wStart"))
        space.add_text(f"{load['kind']} {value}", dxfattribs={"layer": "LOADS", "height": 0.2,
                                                              "insert": (0, -1)})
    space.add_text(label, dxfattribs={"layer": "TITLE", "height": 0.3, "insert": (0, -2)})
    doc.saveas(path)


def dxf_sha(task: FixtureTask) -> str:
    """How the fake server names a DXF request: sha256 of the DXF text (UTF-8)."""
    assert task.dxf_path is not None
    return hashlib.sha256(Path(task.dxf_path).read_text(encoding="utf-8").encode()).hexdigest()


def build_dataset(root: Path, ids: list[str] | None = None, *,
                  copies: int = 1, dxf: list[str] | None = None) -> list[FixtureTask]:
    """Write the fixture under ``root`` (the layout of data/: raw models with their
    ``problem`` block, images, and metas made by the dataset's own ground-truth writer,
    as ``tools/generate_gt.py`` does) and return its tasks.

    ``copies`` > 1 writes each model that many times under ids ``<id>_c<k>``, each with
    its own image (for load tests that need many distinct tasks). ``dxf`` lists the
    fixture models whose tasks also get a DXF drawing.
    """
    from structeval.dataset.ground_truth import generate

    for sub in ("raw_models", "images", "ground_truth_meta"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    tasks = []
    for base in ids or list(GT_MODELS):
        for k in range(copies):
            task_id = base if copies == 1 else f"{base}_c{k:03d}"
            block = {"id": task_id, "category": CATEGORY[base], "difficulty": DIFFICULTY[base],
                     "split": "test", "notes": NOTES[base],
                     "image": {"file": f"{task_id}.png", "style": "cad", "seed": 0},
                     "provenance": "hand-authored"}
            dxf_path = None
            if dxf and base in dxf:
                block["dxf"] = {"file": f"{task_id}.dxf"}
                dxf_path = root / "images" / f"{task_id}.dxf"
                write_dxf(dxf_path, GT_MODELS[base], task_id)
            raw = json.dumps({"problem": block, **GT_MODELS[base]}, indent=2) + "\n"
            (root / "raw_models" / f"{task_id}.json").write_text(raw, encoding="utf-8")
            image_path = root / "images" / f"{task_id}.png"
            _png(image_path, task_id, base)
            tasks.append(FixtureTask(task_id, CATEGORY[base], DIFFICULTY[base], "test",
                                     image_path, parse_model(GT_MODELS[base]), block,
                                     NOTES[base], dxf_path))
    report = generate(root)
    assert not report["errors"], report["errors"]
    return tasks


def base_id(task: FixtureTask) -> str:
    """The fixture model a (possibly copied) task was made from."""
    return task.id.split("_c")[0]


def image_sha(task: FixtureTask) -> str:
    return hashlib.sha256(Path(task.image_path).read_bytes()).hexdigest()


# ---------------------------------------------------------------- answer variants


def equivalent(task_id: str) -> dict[str, Any]:
    """Same structure written differently: new ids, reversed links, shifted origin."""
    gt = GT_MODELS[task_id]
    rename = {p["id"]: f"N{i + 10}" for i, p in enumerate(gt["points"])}
    links = {lk["id"]: f"M{i + 1}" for i, lk in enumerate(gt["links"])}
    out: dict[str, Any] = {"points": [{"id": rename[p["id"]], "x": p["x"] + 10, "y": p["y"] - 3}
                                      for p in reversed(gt["points"])], "links": [],
                           "supports": [], "loads": []}
    for lk in gt["links"]:
        out["links"].append({"id": links[lk["id"]], "a": rename[lk["b"]], "b": rename[lk["a"]],
                             "endA": lk["endB"], "endB": lk["endA"]})
    for s in gt["supports"]:
        out["supports"].append({**s, "id": "R" + s["id"],
                                "at": {"type": "point", "id": rename[s["at"]["id"]]}})
    for ld in gt["loads"]:
        new = copy.deepcopy(ld)
        new["id"] = "X" + ld["id"]
        table = rename if ld["at"]["type"] == "point" else links
        new["at"] = {"type": ld["at"]["type"], "id": table[ld["at"]["id"]]}
        out["loads"].append(new)
    return out


def moved_point(task_id: str, point: str, dx: float) -> dict[str, Any]:
    out = copy.deepcopy(GT_MODELS[task_id])
    for p in out["points"]:
        if p["id"] == point:
            p["x"] += dx
    return out


def support_kind(task_id: str, support: str, kind: str) -> dict[str, Any]:
    out = copy.deepcopy(GT_MODELS[task_id])
    for s in out["supports"]:
        if s["id"] == support:
            s["kind"] = kind
    return out


def released(task_id: str, link: str, end: str, value: str) -> dict[str, Any]:
    out = copy.deepcopy(GT_MODELS[task_id])
    for lk in out["links"]:
        if lk["id"] == link:
            lk[end] = value
    return out


def scaled_load(task_id: str, load: str, factor: float) -> dict[str, Any]:
    out = copy.deepcopy(GT_MODELS[task_id])
    for ld in out["loads"]:
        if ld["id"] == load:
            for key in ("value", "wStart", "wEnd"):
                if key in ld:
                    ld[key] *= factor
    return out


def invalid(task_id: str) -> dict[str, Any]:
    out = copy.deepcopy(GT_MODELS[task_id])
    out["links"][0]["b"] = "NOWHERE"
    return out


def tagged(model: dict[str, Any], chatter: str = "Here is the structure.") -> str:
    return f"{chatter}\n<json>\n{json.dumps(model, indent=1)}\n</json>\n"


def fenced(model: dict[str, Any]) -> str:
    return f"Sure! The model is:\n```json\n{json.dumps(model, indent=2)}\n```\nHope it helps."


def boxed(model: dict[str, Any]) -> str:
    return f"<|begin_of_box|>{json.dumps(model)}<|end_of_box|>"


def broken_json(model: dict[str, Any]) -> str:
    """Trailing commas and a missing final brace: needs json_repair."""
    text = json.dumps(model, indent=1)
    return "<json>" + text.replace("\n ]", ",\n ]")[:-1] + "</json>"


def with_drafts(final: dict[str, Any], draft: dict[str, Any]) -> str:
    """A reasoning model: a wrong draft inside <think>, the final answer in bare JSON."""
    return (f"<think>First guess: {json.dumps(draft)} hmm, the roller is elsewhere.</think>\n"
            f"Final answer: {json.dumps(final)}")


NO_JSON = "I am sorry, but I cannot make out the structure in this image."
