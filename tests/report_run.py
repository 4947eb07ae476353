"""A scripted run over the shipped tasks, for the report's size test and its benchmark.

Every outcome the report must show occurs in a fixed rotation over the tasks
(by position): exact at once; a load 10 % too large, repaired; a load 10 % too
large, never repaired; no JSON at first, then exact; the last load dropped; and
every 23rd task refused by the service (HTTP 400: unavailable, no retry). The
answers are keyed by the image the harness sends, so the run is the same every
time it is made.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from structeval.model import dumps_model
from tests.fakeserver.server import Answer, Call, Fail, FakeOpenAI, Reply

ROOT = Path(__file__).resolve().parents[1]
UNAVAILABLE_EVERY = 23


def _scaled_first_load(model: dict[str, Any], factor: float) -> dict[str, Any]:
    out = copy.deepcopy(model)
    for load in out["loads"]:
        keys = [k for k in ("value", "wStart", "wEnd") if k in load]
        if keys:
            for key in keys:
                load[key] = float(load[key]) * factor
            break
    return out


def _without_last_load(model: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(model)
    out["loads"] = out["loads"][:-1]
    return out


def _tag(model: dict[str, Any]) -> str:
    return f"<json>{json.dumps(model)}</json>"


def scripted_answers(tasks: list[Any]) -> dict[str, tuple[Reply, Reply]]:
    """image sha256 → (first reply, repair reply), in the rotation of the module docstring."""
    out: dict[str, tuple[Reply, Reply]] = {}
    for k, task in enumerate(tasks):
        exact = json.loads(dumps_model(task.model))
        off = _tag(_scaled_first_load(exact, 1.1))
        kind = k % 5
        first: Reply
        repair: Reply
        if k % UNAVAILABLE_EVERY == UNAVAILABLE_EVERY - 1:
            first = repair = Fail(400, "scripted refusal")
        elif kind == 0:
            first = repair = Answer(_tag(exact))
        elif kind == 1:
            first, repair = Answer(off), Answer(_tag(exact))
        elif kind == 2:
            first = repair = Answer(off)
        elif kind == 3:
            first, repair = Answer("I cannot read the drawing."), Answer(_tag(exact))
        else:
            first = repair = Answer(_tag(_without_last_load(exact)))
        sha = hashlib.sha256(Path(task.image_path).read_bytes()).hexdigest()
        out[sha] = (first, repair)
    return out


def make_scripted_run(out: Path, data_dir: Path, tasks: list[Any], model: str = "scripted-vlm",
                      extra: tuple[str, ...] = ()) -> None:
    """Run ``run_eval.py`` over ``tasks`` (in ``data_dir``) against the scripted server."""
    answers = scripted_answers(tasks)

    def reply(call: Call) -> Reply:
        first, repair = answers[call.image_sha or ""]
        return first if call.attempt == 1 else repair

    with FakeOpenAI(reply) as server:
        command = [sys.executable, str(ROOT / "run_eval.py"), "--model", model,
                   "--api-base", server.base_url, "--data-dir", str(data_dir),
                   "--output", str(out), "--max-retries", "1", "--concurrency", "8",
                   "--no-cache", "--split", ",".join(sorted({t.split for t in tasks})), *extra]
        command += ["--limit", str(len(tasks)), "--limit-order", "id"]  # these, if a subset
        env = {**os.environ, "OPENAI_API_KEY": "sk-rpt-7Qx2Lm9Vz4Kt",
               "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
        done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=ROOT)
    if done.returncode not in (0, 3):  # 3: some tasks unavailable, as scripted
        raise RuntimeError(f"run_eval.py failed ({done.returncode}): {done.stderr[-2000:]}")
