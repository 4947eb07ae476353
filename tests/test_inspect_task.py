"""The inspect_ai task against the scripted local server, side by side with run_eval.py.

Both runs get the same scripted answers (keyed by image and attempt), so every
per-task figure (credit, stage, pass@1, attempts) must be equal, and the requests
the server saw must be the same conversations: same system prompt, task text,
image, previous answer and repair feedback.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

inspect_ai = pytest.importorskip("inspect_ai", reason="inspect-ai is not installed "
                                                      "(pip install 'structeval[inspect]')")

from click.testing import CliRunner  # noqa: E402

from structeval.harness.command.cli import main as run_eval_main  # noqa: E402
from tests.fakeserver import fixture as fx  # noqa: E402
from tests.fakeserver.server import Answer, FakeOpenAI, Script  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> tuple[Path, dict[str, fx.FixtureTask]]:
    root = tmp_path_factory.mktemp("inspect") / "data"
    return root, {t.id: t for t in fx.build_dataset(root)}


def script(tasks: dict[str, fx.FixtureTask]) -> Script:
    """Repairs that succeed, repairs that climb stage by stage, one answer right at once,
    and a task that stays wrong (the default reply: a moved point, geometry)."""
    sha = {k: fx.image_sha(t) for k, t in tasks.items()}
    return (Script(Answer(fx.tagged(fx.moved_point("beam_t02", "B", 1.0))))
            .on(sha["beam_t01"], 1, Answer(fx.tagged(fx.support_kind("beam_t01", "S2", "pin"))))
            .on(sha["beam_t01"], 2, Answer(fx.fenced(fx.equivalent("beam_t01"))))
            .on(sha["frame_t01"], 1, Answer(fx.NO_JSON))
            .on(sha["frame_t01"], 2, Answer(fx.tagged(fx.released("frame_t01", "L2", "endB",
                                                                   "rigid"))))
            .on(sha["frame_t01"], 3, Answer(fx.tagged(fx.scaled_load("frame_t01", "Q1", 1.5))))
            .on(sha["truss_t01"], 1, Answer(fx.boxed(fx.GT_MODELS["truss_t01"]))))


def conversations(server: FakeOpenAI) -> dict[tuple[str, int], list[dict]]:
    """What the model was sent, per (image, attempt), in a provider-neutral form."""
    out = {}
    for call in server.calls:
        messages = []
        for m in call.body["messages"]:
            content = m["content"]
            if isinstance(content, list):
                content = [{"text": p["text"]} if p["type"] == "text"
                           else {"image": p["image_url"]["url"]} for p in content]
            messages.append({"role": m["role"], "content": content})
        out[(call.image_sha, call.attempt)] = messages
    return out


@pytest.fixture(scope="module")
def both_runs(data, tmp_path_factory):
    root, tasks = data
    work = tmp_path_factory.mktemp("runs")
    with FakeOpenAI(script(tasks)) as server:
        result = CliRunner().invoke(run_eval_main, [
            "--model", "fake-vlm", "--api-base", server.base_url, "--api-key", fx.SECRET_KEY,
            "--data-dir", str(root), "--output", str(work / "run_eval"), "--max-retries", "2",
            "--concurrency", "2"])
        assert result.exit_code == 0, result.output
        run_eval_calls = conversations(server)
    results = json.loads((work / "run_eval" / "results.json").read_text())

    from structeval.inspect_task import structeval

    mp = pytest.MonkeyPatch()
    mp.setenv("FAKE_API_KEY", fx.SECRET_KEY)
    try:
        with FakeOpenAI(script(tasks)) as server:
            logs = inspect_ai.eval(structeval(data_dir=str(root), max_retries=2),
                                   model="openai-api/fake/fake-vlm",
                                   model_base_url=server.base_url,
                                   log_dir=str(work / "inspect-logs"), display="none")
            inspect_calls = conversations(server)
    finally:
        mp.undo()
    return results, logs[0], run_eval_calls, inspect_calls, work


def test_inspect_credit_equals_run_eval_per_task(both_runs):
    results, log, _, _, _ = both_runs
    assert log.status == "success", log.error
    theirs = {t["id"]: t for t in results["tasks"]}
    ours = {s.id: next(iter(s.scores.values())) for s in log.samples}
    assert sorted(ours) == sorted(theirs) == ["beam_t01", "beam_t02", "frame_t01", "truss_t01"]
    for task_id, row in theirs.items():
        score = ours[task_id]
        assert score.value == row["ratio"], task_id
        assert score.metadata["stage"] == row["stage"], task_id
        assert score.metadata["first_attempt_ratio"] == row["first_attempt_ratio"], task_id
        assert score.metadata["first_attempt_stage"] == row["first_attempt_stage"], task_id
        assert score.metadata["attempts"] == row["attempts"], task_id
    # the script's figures, derived by hand: credits 1, 0, 0.75, 1 after repair
    assert {k: s.value for k, s in ours.items()} == {"beam_t01": 1.0, "beam_t02": 0.0,
                                                     "frame_t01": 0.75, "truss_t01": 1.0}
    assert ours["frame_t01"].metadata["stages"] == ["no_json", "releases", "loads"]


def test_inspect_metrics_equal_run_eval_summary(both_runs):
    results, log, _, _, _ = both_runs
    metrics = {k: v.value for k, v in log.results.scores[0].metrics.items()}
    summary = results["summary"]
    # weighted: (1·1 + 0·2 + 0.75·3 + 1·2) / 8; pass@1: (0.25·1 + 0 + 0 + 1·2) / 8
    assert metrics["weighted_accuracy"] == pytest.approx(0.65625, abs=1e-12)
    assert metrics["pass_at_1"] == pytest.approx(0.28125, abs=1e-12)
    assert metrics["weighted_accuracy"] * 100 == pytest.approx(summary["weighted_accuracy"])
    assert metrics["pass_at_1"] * 100 == pytest.approx(summary["pass_at_1_weighted_accuracy"])
    # beams: (1·1 + 0·2) / 3; difficulty 2 holds beam_t02 (0) and truss_t01 (1)
    assert metrics["category=beam"] == pytest.approx(1 / 3)
    assert metrics["category=frame"] == pytest.approx(0.75)
    assert metrics["difficulty=2"] == pytest.approx(0.5)
    assert metrics["pass@1 category=beam"] == pytest.approx(0.25 / 3)
    assert metrics["pass@1 difficulty=3"] == 0.0


def test_inspect_sends_the_same_conversations_as_run_eval(both_runs, data):
    _, _, run_eval_calls, inspect_calls, _ = both_runs
    _, tasks = data
    assert set(inspect_calls) == set(run_eval_calls)
    assert len(run_eval_calls) == 9  # 2 + 3 + 3 + 1 attempts
    for key, messages in run_eval_calls.items():
        assert inspect_calls[key] == messages, key
    # a repair carries only the last failed exchange: system, question, answer, feedback
    repair = inspect_calls[(fx.image_sha(tasks["frame_t01"]), 3)]
    assert [m["role"] for m in repair] == ["system", "user", "assistant", "user"]
    assert repair[2]["content"] == fx.tagged(fx.released("frame_t01", "L2", "endB", "rigid"))
    assert "hinges" in repair[3]["content"]


def test_samples_carry_the_task_metadata(both_runs):
    _, log, _, _, _ = both_runs
    sample = next(s for s in log.samples if s.id == "truss_t01")
    assert sample.metadata["category"] == "truss"
    assert sample.metadata["difficulty"] == 2
    assert sample.metadata["split"] == "test"
    assert sample.metadata["language"] == "en" and sample.metadata["style"] == "cad"


def test_logs_hold_no_key(both_runs):
    work = both_runs[4]
    written = b"".join(p.read_bytes() for p in (work / "inspect-logs").rglob("*") if p.is_file())
    assert written, "inspect wrote no log into the given folder"
    assert fx.SECRET_KEY.encode() not in written


@pytest.mark.parametrize("args, message", [
    ({"lang": "fr"}, "lang must be one of en"),
    ({"prompt_type": "chatty"}, "prompt_type must be one of"),
    ({"max_retries": -1}, "max_retries must be an integer"),
    ({"difficulty": "7"}, "difficulty must be integers 1-5"),
    ({"presentation": "colour=red"}, "presentation:"),
    ({"category": "bridge"}, "no task matches"),
])
def test_bad_task_parameters_are_refused_clearly(data, args, message):
    from structeval.inspect_task import TaskParameterError, structeval

    root, _ = data
    with pytest.raises(TaskParameterError, match=message):
        structeval(data_dir=str(root), **args)


def test_task_parameters_select_like_the_cli(data):
    from structeval.inspect_task import structeval

    root, _ = data
    chosen = structeval(data_dir=str(root), category="beam,frame", difficulty=[1, 3])
    assert [s.id for s in chosen.dataset] == ["beam_t01", "frame_t01"]
    from structeval.harness.inputs.tasks import select_tasks

    cli = select_tasks(root, split=None, categories=(), difficulties=(), id_filter=None,
                       limit=1)  # --limit: a stratified sample (not simply the first id)
    assert [s.id for s in structeval(data_dir=str(root), limit=1).dataset] == [cli[0].id]
    assert [s.id for s in structeval(data_dir=str(root), filter="truss").dataset] == [
        "truss_t01"]


def test_chinese_prompts_feedback_and_credit_equal_run_eval(data, tmp_path):
    """-T lang=zh: the same Chinese conversations as ``run_eval.py --lang zh`` (system
    prompt, task text, repair feedback), and the same credit per task."""
    from structeval.harness.inputs.prompts import system_prompt
    from structeval.inspect_task import structeval

    root, tasks = data
    with FakeOpenAI(script(tasks)) as server:
        result = CliRunner().invoke(run_eval_main, [
            "--model", "fake-vlm", "--api-base", server.base_url, "--api-key", fx.SECRET_KEY,
            "--data-dir", str(root), "--output", str(tmp_path / "run_eval"),
            "--max-retries", "2", "--lang", "zh"])
        assert result.exit_code == 0, result.output
        run_eval_calls = conversations(server)
    mp = pytest.MonkeyPatch()
    mp.setenv("FAKE_API_KEY", fx.SECRET_KEY)
    try:
        with FakeOpenAI(script(tasks)) as server:
            logs = inspect_ai.eval(structeval(data_dir=str(root), max_retries=2, lang="zh"),
                                   model="openai-api/fake/fake-vlm",
                                   model_base_url=server.base_url,
                                   log_dir=str(tmp_path / "logs"), display="none")
            inspect_calls = conversations(server)
    finally:
        mp.undo()
    assert inspect_calls == run_eval_calls
    zh_prompt = system_prompt("standard", "zh")
    assert zh_prompt != system_prompt("standard", "en")
    assert all(conv[0]["content"] == zh_prompt for conv in inspect_calls.values())
    repairs = [conv[-1]["content"] for (_, attempt), conv in inspect_calls.items()
               if attempt > 1]
    assert repairs and all(any("\u4e00" <= ch <= "\u9fff" for ch in text) for text in repairs)
    rows = {r["id"]: r for r in json.loads(
        (tmp_path / "run_eval" / "results.json").read_text())["tasks"]}
    for sample in logs[0].samples:
        assert sample.scores["staged_credit"].value == rows[sample.id]["ratio"], sample.id


def test_inspect_metrics_group_by_every_presentation_factor(both_runs):
    """Grouped metrics per factor value, as results.json's by_factor groups tasks (here
    every task shares each factor's value, so each group is the whole run)."""
    from structeval.presentation import FACTORS

    _, log, _, _, _ = both_runs
    metrics = {k: v.value for k, v in log.results.scores[0].metrics.items()}
    factors = log.samples[0].metadata
    for factor in FACTORS:
        key = f"{factor}={factors[factor]}"
        assert metrics[key] == pytest.approx(metrics["weighted_accuracy"]), key
        assert metrics[f"pass@1 {key}"] == pytest.approx(metrics["pass_at_1"]), key


def _both(root: Path, tmp_path: Path, cli_args: list[str], task_args: dict):
    """run_eval.py and the inspect task on one script (every answer wrong, no repair):
    what each sent, per (input, attempt), and the raw request bodies."""
    from structeval.inspect_task import structeval

    script = Script(Answer(fx.NO_JSON))
    with FakeOpenAI(script) as server:
        result = CliRunner().invoke(run_eval_main, [
            "--model", "fake-vlm", "--api-base", server.base_url, "--api-key", fx.SECRET_KEY,
            "--data-dir", str(root), "--output", str(tmp_path / "run_eval"),
            "--max-retries", "0", *cli_args])
        assert result.exit_code == 0, result.output
        cli_calls, cli_bodies = conversations(server), [c.body for c in server.calls]
    mp = pytest.MonkeyPatch()
    mp.setenv("FAKE_API_KEY", fx.SECRET_KEY)
    try:
        with FakeOpenAI(script) as server:
            inspect_ai.eval(structeval(data_dir=str(root), max_retries=0, **task_args),
                            model="openai-api/fake/fake-vlm", model_base_url=server.base_url,
                            log_dir=str(tmp_path / "logs"), display="none")
            inspect_calls, inspect_bodies = conversations(server), [c.body for c in server.calls]
    finally:
        mp.undo()
    return cli_calls, inspect_calls, cli_bodies, inspect_bodies


def test_modality_dxf_sends_what_run_eval_sends(tmp_path):
    root = tmp_path / "data"
    fx.build_dataset(root, dxf=["beam_t01", "truss_t01"])
    cli, ours, _, bodies = _both(root, tmp_path, ["--modality", "dxf"], {"modality": "dxf"})
    assert ours == cli
    assert len(ours) == 2  # the tasks without a DXF file are skipped, as by the CLI
    assert all(not any(p.get("type") == "image_url" for m in b["messages"]
                       if isinstance(m["content"], list) for p in m["content"])
               for b in bodies)


def test_image_options_send_what_run_eval_sends(data, tmp_path):
    root, _ = data
    cli, ours, cli_bodies, bodies = _both(
        root, tmp_path, ["--max-image-side", "64", "--image-detail", "high"],
        {"max_image_side": 64, "image_detail": "high"})
    assert ours == cli  # the same downscaled images, byte for byte
    details = {p["image_url"].get("detail") for b in bodies + cli_bodies for m in b["messages"]
               if isinstance(m["content"], list) for p in m["content"]
               if p["type"] == "image_url"}
    assert details == {"high"}


def test_image_mode_tiles_sends_what_run_eval_sends(data, tmp_path):
    root, _ = data
    cli, ours, _, bodies = _both(root, tmp_path, ["--image-mode", "tiles"],
                                 {"image_mode": "tiles"})
    assert ours == cli  # the same overview, tile labels and tiles
    first = bodies[0]["messages"][1]["content"]
    assert [p["type"] for p in first] == ["text", "text", "image_url", "text", "image_url"]
    assert "Tile 1 of 1: x 0-64, y 0-48" in first[3]["text"]


@pytest.mark.parametrize("args, message", [
    ({"modality": "pdf"}, "modality must be one of image, dxf"),
    ({"image_mode": "mosaic"}, "image_mode must be one of fit, tiles"),
    ({"image_mode": "tiles", "modality": "dxf"}, "only with modality=image"),
    ({"image_detail": "max"}, "image_detail must be one of low, high, auto"),
    ({"max_image_side": 3}, "max_image_side must be an integer of at least 16"),
    ({"modality": "dxf"}, "has a DXF file"),
])
def test_bad_image_parameters_are_refused_clearly(data, args, message):
    from structeval.inspect_task import TaskParameterError, structeval

    root, _ = data
    with pytest.raises(TaskParameterError, match=message):
        structeval(data_dir=str(root), **args)


def test_inspect_prints_a_bad_parameter_as_one_sentence(data):
    """`inspect eval … -T split=nosuch`: inspect's command line prints the sentence, no
    traceback, and exits non-zero."""
    import subprocess
    import sys

    root, _ = data
    proc = subprocess.run([sys.executable, "-m", "inspect_ai", "eval",
                           "src/structeval/inspect_task.py", "-T", "split=nosuch", "-T",
                           f"data_dir={root}", "--model", "mockllm/model", "--log-dir",
                           str(root.parent / "logs")], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "Traceback" not in output
    assert "nosuch" in output or "no task matches" in output


# ---------------------------------------------------------------- image_mode=zoom


def _zoom_outputs(*steps):
    """mockllm outputs: a dict is a zoom call with those arguments, a string an answer
    (usage given, so mockllm counts no tokens itself)."""
    from inspect_ai.model import ModelOutput, ModelUsage

    outputs = [ModelOutput.for_tool_call("mockllm/model", "zoom", step)
               if isinstance(step, dict) else ModelOutput.from_content("mockllm/model", step)
               for step in steps]
    for output in outputs:
        output.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
    return outputs


def _zoom_eval(root, tmp_path, steps, **params):
    from inspect_ai.model import get_model

    from structeval.inspect_task import structeval

    model = get_model("mockllm/model", custom_outputs=_zoom_outputs(*steps))
    log = inspect_ai.eval(structeval(data_dir=str(root), filter="beam_t02", max_retries=0,
                                     image_mode="zoom", **params),
                          model=model, log_dir=str(tmp_path / "logs"), display="none")[0]
    assert log.status == "success", log.error
    from inspect_ai.log import resolve_sample_attachments

    return resolve_sample_attachments(log.samples[0])


def test_image_mode_zoom_offers_an_inspect_tool_that_returns_the_crop(data, tmp_path):
    from inspect_ai.model import ChatMessageTool, ContentImage

    root, tasks = data
    answer = fx.tagged(fx.GT_MODELS["beam_t02"])
    sample = _zoom_eval(root, tmp_path, [{"x": 0, "y": 0, "width": 30, "height": 20},
                                         {"x": -10, "y": 40, "width": 30, "height": 20},
                                         answer])
    assert sample.scores["staged_credit"].value == 1.0
    tools = [m for m in sample.messages if isinstance(m, ChatMessageTool)]
    assert len(tools) == 2
    assert "cropped x 0-30, y 0-20 (30 x 20 full-size pixels)" in tools[0].text
    assert "clamped" in tools[1].text and "cropped x 0-20, y 40-48" in tools[1].text
    crops = [c for c in tools[0].content if isinstance(c, ContentImage)]
    from structeval.harness.inputs.zoom import zoom_sheet

    expected = zoom_sheet(tasks["beam_t02"].image_path).answer(
        "zoom", '{"x": 0, "y": 0, "width": 30, "height": 20}', 1)
    assert [c.image for c in crops] == [expected.image.data_url]  # run_eval's crop
    first = sample.messages[1].content
    assert "call the zoom function" in first[1].text


def test_image_mode_zoom_in_inspect_stops_after_the_limit(data, tmp_path):
    from inspect_ai.model import ChatMessageTool

    root, _ = data
    box = {"x": 0, "y": 0, "width": 8, "height": 8}
    sample = _zoom_eval(root, tmp_path, [box, box, box, box], max_zooms=1)
    tools = [m.text for m in sample.messages if isinstance(m, ChatMessageTool)]
    assert len(tools) == 2 and "limit of 1 per answer is reached" in tools[1]
    assert sample.scores["staged_credit"].value == 0.0  # no answer after the limit


@pytest.mark.parametrize("args, message", [
    ({"image_mode": "zoom", "max_zooms": 0}, "max_zooms must be an integer 1-64"),
    ({"image_mode": "tiles", "max_zooms": 3}, "goes with image_mode=zoom"),
])
def test_bad_zoom_parameters_are_refused_clearly(data, args, message):
    from structeval.inspect_task import TaskParameterError, structeval

    root, _ = data
    with pytest.raises(TaskParameterError, match=message):
        structeval(data_dir=str(root), **args)
