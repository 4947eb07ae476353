"""A scripted run over structures shown in several presentations (for the factor tests).

Four fixture structures (``tests/fakeserver/fixture.py``) are written as eleven
tasks, each with its own small PNG (the fake server tells tasks apart by the
image's sha256) and a ``problem.presentation`` block, then answered by the real
harness against the local scripted server with ``--max-retries 1``:

=============  =====  ===============================  ================  ==============
task           diff.  presentation                     pass@1            after repair
=============  =====  ===============================  ================  ==============
B-en           1      full · en · cad                  perfect  1        perfect  1
B-zh           1      full · zh · cad                  supports 0.25     perfect  1
B-sk           1      full · zh · sketch               geometry 0        perfect  1
F-en           3      full · en · cad                  loads    0.75     perfect  1
F-zh           3      full · zh · cad                  releases 0.5      loads    0.75
F-sk           3      full · zh · sketch               releases 0.5      releases 0.5
F-ex           3      exam · en · cad                  supports 0.25     loads    0.75
T-en           2      full · en · cad                  loads    0.75     perfect  1
T-zh           2      full · zh · cad                  loads    0.75     perfect  1
C-en           2      full · en · cad                  perfect  1        perfect  1
C-zh           2      full · zh · cad                  unavailable (HTTP 503)
=============  =====  ===============================  ================  ==============

B = beam_t01, F = frame_t01, T = truss_t01, C = beam_t02 (the cantilever). The
tests derive every expected figure from this table by hand.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw

from structeval.dataset import load_tasks
from structeval.dataset.ground_truth import generate
from structeval.harness import GradingSettings, RetryPolicy, Session
from structeval.harness.common.settings import TransportSettings
from tests.fakeserver import fixture as fx
from tests.fakeserver.server import Answer, Fail, FakeOpenAI, Reply, Script

STRUCTURES = {"B": "beam_t01", "F": "frame_t01", "T": "truss_t01", "C": "beam_t02"}
EN = {"dimensioning": "full", "language": "en", "style": "cad"}
ZH = {**EN, "language": "zh"}
SKETCH = {**ZH, "style": "sketch"}
EXAM = {**EN, "dimensioning": "exam"}
#: task id → (structure letter, presentation)
TASKS: dict[str, tuple[str, dict[str, str]]] = {
    "B-en": ("B", EN), "B-zh": ("B", ZH), "B-sk": ("B", SKETCH),
    "F-en": ("F", EN), "F-zh": ("F", ZH), "F-sk": ("F", SKETCH), "F-ex": ("F", EXAM),
    "T-en": ("T", EN), "T-zh": ("T", ZH),
    "C-en": ("C", EN), "C-zh": ("C", ZH),
}


def _answers() -> dict[str, tuple[Reply, ...]]:
    """Task → the replies to attempt 1 and (when it was not perfect) attempt 2."""
    def tag(model: dict) -> Answer:
        return Answer(fx.tagged(model))

    perfect = {s: tag(fx.equivalent(m)) for s, m in STRUCTURES.items()}
    return {
        "B-en": (perfect["B"],),
        "B-zh": (tag(fx.support_kind("beam_t01", "S2", "pin")), perfect["B"]),
        "B-sk": (tag(fx.moved_point("beam_t01", "C", 1)), perfect["B"]),
        "F-en": (tag(fx.scaled_load("frame_t01", "Q1", 1.5)), perfect["F"]),
        "F-zh": (tag(fx.released("frame_t01", "L2", "endB", "rigid")),
                 tag(fx.scaled_load("frame_t01", "Q1", 1.5))),
        "F-sk": (tag(fx.released("frame_t01", "L2", "endB", "rigid")),
                 Answer(fx.fenced(fx.released("frame_t01", "L2", "endB", "rigid")))),
        "F-ex": (tag(fx.support_kind("frame_t01", "S2", "roller")),
                 tag(fx.scaled_load("frame_t01", "Q1", 1.5))),
        "T-en": (tag(fx.scaled_load("truss_t01", "F1", 2)), perfect["T"]),
        "T-zh": (tag(fx.scaled_load("truss_t01", "F1", 2)), perfect["T"]),
        "C-en": (perfect["C"],),
        "C-zh": (Fail(503),),
    }


def _png(path: Path, task_id: str) -> None:
    image = Image.new("RGB", (96, 48), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle((4, 26, 92, 32), fill=(40, 40, 40))
    draw.text((4, 4), task_id, fill=(0, 0, 0))
    image.save(path, format="PNG", optimize=False)


def build_data(root: Path) -> list:
    """Write the eleven tasks in the layout of data/ and return them as the loader reads them."""
    for sub in ("raw_models", "images"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    for task_id, (letter, shown) in TASKS.items():
        base = STRUCTURES[letter]
        block = {"id": task_id, "category": fx.CATEGORY[base],
                 "difficulty": fx.DIFFICULTY[base], "split": "test", "notes": fx.NOTES[base],
                 "image": {"file": f"{task_id}.png", "style": shown["style"], "seed": 0},
                 "provenance": "hand-authored", "structure": base, "presentation": shown}
        (root / "raw_models" / f"{task_id}.json").write_text(
            json.dumps({"problem": block, **fx.GT_MODELS[base]}, indent=2) + "\n",
            encoding="utf-8")
        _png(root / "images" / f"{task_id}.png", task_id)
    report = generate(root)
    assert not report["errors"], report["errors"]
    return load_tasks(root)


@dataclass(frozen=True)
class FactorRun:
    run: Path  # the run directory
    data: Path  # the data folder it was made on
    results: dict  # results.json


def script_for(tasks: list) -> Script:
    """The fake server's plan: each task's replies, keyed by its image."""
    script = Script()
    for task in tasks:
        sha = fx.image_sha(task)
        for attempt, reply in enumerate(_answers()[task.id], start=1):
            script.on(sha, attempt, reply)
    return script


def make_factor_run(tmp: Path, *, model: str = "fake-vlm") -> FactorRun:
    data = tmp / "data"
    tasks = build_data(data)
    out = tmp / "run"
    with FakeOpenAI(script_for(tasks)) as server:
        Session(out, grading=GradingSettings(model=model, max_retries=1),
                transport_settings=TransportSettings(api_base=server.base_url, timeout=5.0,
                                                     concurrency=2),
                policy=RetryPolicy(tries=2, base_delay=0.001, max_delay=0.002),
                api_key=fx.SECRET_KEY, resume=False, data_dir=data).run(
                    tasks, progress=False, echo=lambda _t: None)
    return FactorRun(out, data, json.loads((out / "results.json").read_text("utf-8")))
