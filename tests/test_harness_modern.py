"""Issue 11 against the scripted server: reasoning models, parameter negotiation, cut-off and
empty answers, <think>, provenance, cost, --dry-run, --lang zh, --modality dxf, image control.

The server validates parameters the way OpenAI does (``OpenAIRules``): reasoning model
names refuse any temperature but 1 and ``max_tokens``, other models refuse
``reasoning_effort``. Every expected number is derived by hand from the script.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
from pathlib import Path

import pytest
from PIL import Image

from structeval.harness import GradingSettings, RetryPolicy, RunDirError, Session
from structeval.harness.common.settings import TransportSettings
from structeval.harness.common.trace import read_trace
from structeval.harness.run.cost import Prices
from structeval.harness.run.provenance import WASM
from tests.fakeserver import fixture as fx
from tests.fakeserver.process import common, run_eval
from tests.fakeserver.server import Answer, FakeOpenAI, OpenAIRules, Script

IDS = ("beam_t01", "frame_t01", "truss_t01", "beam_t02")
PERFECT = {i: fx.tagged(fx.GT_MODELS[i]) for i in IDS}


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> tuple[Path, dict[str, fx.FixtureTask]]:
    root = tmp_path_factory.mktemp("modern") / "data"
    tasks = {t.id: t for t in fx.build_dataset(root, dxf=["beam_t01", "frame_t01"])}
    return root, tasks


def ordered(tasks):
    return [tasks[i] for i in IDS]


def perfect_script(tasks, **answer) -> Script:
    script = Script()
    for task_id in IDS:
        script.on(fx.image_sha(tasks[task_id]), 1, Answer(PERFECT[task_id], **answer))
    return script


def session(out: Path, server, *, model="fake-vlm", concurrency=4, max_retries=1, resume=False,
            grading=None, **extra) -> Session:
    grading = grading or GradingSettings(model=model, max_retries=max_retries)
    return Session(out, grading=grading,
                   transport_settings=TransportSettings(api_base=server.base_url, timeout=10,
                                                        concurrency=concurrency),
                   policy=RetryPolicy(tries=3, base_delay=0.001, max_delay=0.002),
                   api_key=fx.SECRET_KEY, resume=resume, **extra)


def attempts(out: Path, task_id: str | None = None) -> list[dict]:
    records, _ = read_trace(out / "trace.jsonl")
    return [r for r in records if r["type"] == "attempt"
            and (task_id is None or r["task_id"] == task_id)]


# ------------------------------------------------------------------ reasoning models


def test_a_reasoning_model_is_scored_without_a_single_400(data, tmp_path):
    _, tasks = data
    rules = OpenAIRules(perfect_script(tasks))
    with FakeOpenAI(rules) as server:
        outcome = session(tmp_path / "r", server, model="openai/GPT-5-mini").run(
            ordered(tasks), progress=False, echo=lambda _: None)
        bodies = [c.body for c in server.calls]
    assert [r.status for r in outcome.results] == ["scored"] * 4
    assert outcome.summary["pass_at_1_weighted_accuracy"] == 100.0
    assert dict(rules.refused) == {}  # known by name: nothing refused, nothing retried
    assert len(bodies) == 4
    assert all("temperature" not in b and "max_tokens" not in b for b in bodies)
    assert all(b["max_completion_tokens"] == 8192 for b in bodies)
    negotiated = json.loads((tmp_path / "r" / "run.json").read_text())["negotiated"]
    assert negotiated["temperature"].startswith("omitted (openai/GPT-5-mini is a reasoning model")
    assert negotiated["max_tokens"].startswith("sent as max_completion_tokens")
    grading = json.loads((tmp_path / "r" / "run.json").read_text())["grading"]
    assert grading["temperature"] == 0.0  # the user's setting is kept; the omission is apart
    sent = attempts(tmp_path / "r")[0]["request"]["sent"]
    assert sent == {"max_completion_tokens": 8192}


def test_an_unknown_model_refusing_temperature_is_adapted_once_for_all_tasks(data, tmp_path):
    """A model name we do not know (a local reasoning model) behind rules that refuse
    temperature and max_tokens: the first request pays both 400s, once each, although four
    tasks start at once; every task is scored and run.json says what was done."""
    _, tasks = data
    rules = OpenAIRules(perfect_script(tasks), reasoning=True)
    with FakeOpenAI(rules) as server:
        # the others wait for the first request however slow this machine is today
        outcome = session(tmp_path / "u", server, model="local-thinker", concurrency=4,
                          probe_grace=60.0).run(ordered(tasks), progress=False,
                                                echo=lambda _: None)
        requests = len(server.calls)
    assert [r.status for r in outcome.results] == ["scored"] * 4
    assert dict(rules.refused) == {"temperature": 1, "max_tokens": 1}
    assert requests == 4 + 2
    manifest = json.loads((tmp_path / "u" / "run.json").read_text())
    assert set(manifest["negotiated"]) == {"temperature", "max_tokens"}
    assert "HTTP 400" in manifest["negotiated"]["temperature"]
    assert [a["action"] for a in manifest["negotiation"]] == ["omit", "switch"]
    first = [a for a in attempts(tmp_path / "u") if a["response"]["incidents"]]
    assert len(first) == 1
    assert [i["kind"] for i in first[0]["response"]["incidents"]] == ["adapted", "adapted"]


def test_resume_starts_from_the_stored_adaptations(data, tmp_path):
    _, tasks = data
    rules = OpenAIRules(perfect_script(tasks), reasoning=True)
    with FakeOpenAI(rules) as server:
        session(tmp_path / "s", server, model="local-thinker").run(
            [tasks["beam_t01"]], progress=False, echo=lambda _: None)
        session(tmp_path / "s", server, model="local-thinker", resume=True).run(
            [tasks["beam_t01"], tasks["truss_t01"]], progress=False, echo=lambda _: None)
    assert dict(rules.refused) == {"temperature": 1, "max_tokens": 1}  # not paid again


def test_reasoning_effort_and_extra_body_reach_every_request(data, tmp_path):
    _, tasks = data
    extra = {"chat_template_kwargs": {"enable_thinking": True}, "top_k": 20}
    grading = GradingSettings(model="o3-mini", max_retries=1, reasoning_effort="high",
                              extra_body=extra)
    with FakeOpenAI(OpenAIRules(perfect_script(tasks))) as server:
        session(tmp_path / "e", server, grading=grading).run(
            ordered(tasks), progress=False, echo=lambda _: None)
        bodies = [c.body for c in server.calls]
    assert len(bodies) == 4
    for body in bodies:
        assert body["reasoning_effort"] == "high"
        assert body["chat_template_kwargs"] == {"enable_thinking": True} and body["top_k"] == 20
    assert attempts(tmp_path / "e")[0]["request"]["sent"] == {
        "max_completion_tokens": 8192, "reasoning_effort": "high", **extra}


def test_a_refused_field_is_dropped_and_recorded(data, tmp_path):
    """reasoning_effort to a model that does not reason, and a body field the server does
    not know: each is dropped after its first 400 and run.json says so."""
    _, tasks = data
    rules = OpenAIRules(perfect_script(tasks), refuse=("top_k",))
    grading = GradingSettings(model="gpt-4o", max_retries=0, reasoning_effort="low",
                              extra_body={"top_k": 5})
    with FakeOpenAI(rules) as server:
        outcome = session(tmp_path / "d", server, grading=grading, concurrency=2).run(
            ordered(tasks), progress=False, echo=lambda _: None)
    assert [r.status for r in outcome.results] == ["scored"] * 4
    assert dict(rules.refused) == {"top_k": 1, "reasoning_effort": 1}
    assert set(outcome.summary["negotiated"]) == {"top_k", "reasoning_effort"}


def test_a_parameter_that_cannot_be_fixed_stops_the_run_with_exit_4(data, tmp_path):
    """--max-tokens above what the model allows is a value the harness cannot choose for the
    user: exit 4 naming the flag, after one request, never "every task unavailable"."""
    data_dir, tasks = data
    rules = OpenAIRules(perfect_script(tasks), token_limit_max=4096)
    with FakeOpenAI(rules) as server:
        proc = run_eval(*common(server, data_dir, tmp_path / "x", "--concurrency", "4"))
        requests = len(server.calls)
    assert proc.returncode == 4, proc.stderr
    assert "--max-tokens" in proc.stderr and "too large" in proc.stderr
    assert "Traceback" not in proc.stderr and "unavailable" not in proc.stdout + proc.stderr
    assert requests <= 4  # one, unless this machine took over 0.5 s to get the 400 back
    assert fx.SECRET_KEY not in proc.stderr


def test_the_first_request_probes_and_the_others_wait_for_its_refusal(data, tmp_path):
    """With four tasks in flight and a fatal refusal, only the probe is ever sent."""
    _, tasks = data
    rules = OpenAIRules(perfect_script(tasks), token_limit_max=4096)
    from structeval.harness.client.negotiation import ParameterRejected

    with FakeOpenAI(rules) as server:
        with pytest.raises(ParameterRejected, match="--max-tokens"):
            session(tmp_path / "g", server, concurrency=4, probe_grace=60.0).run(
                ordered(tasks), progress=False, echo=lambda _: None)
        assert len(server.calls) == 1


def test_a_slow_first_request_does_not_hold_the_others():
    """The probe's wait is bounded: with a 0.2 s grace, a second caller goes after ~0.2 s
    although the first request has not finished."""
    import threading
    import time

    from structeval.harness.client.negotiation import Negotiator

    negotiator = Negotiator(api_base_token_parameter="max_tokens", probe_grace=0.2)
    _, probe = negotiator.acquire()
    assert probe
    started = time.monotonic()
    got: list[bool] = []
    waiter = threading.Thread(target=lambda: got.append(negotiator.acquire()[1]))
    waiter.start()
    waiter.join(5)
    assert got == [False] and 0.15 <= time.monotonic() - started < 2.0
    negotiator.accepted()
    assert negotiator.acquire()[1] is False  # accepted: nobody probes any more


# ------------------------------------------------------------------ answers of reasoning models


def test_cut_off_empty_and_think_only_answers_are_counted_and_explained(data, tmp_path):
    """beam_t01: cut off by the limit (finish_reason length) before any JSON → no_json, then
    perfect; frame_t01: empty, then empty again; truss_t01: its JSON only inside <think> →
    no_json, then perfect; beam_t02: perfect with 15 reasoning tokens."""
    _, tasks = data
    sha = {k: fx.image_sha(t) for k, t in tasks.items()}
    think = f"<think>{json.dumps(fx.GT_MODELS['truss_t01'])}</think>\nI am done."
    script = (Script()
              .on(sha["beam_t01"], 1, Answer("Reading the drawing: A at (0, 0), B at",
                                              finish_reason="length"))
              .on(sha["beam_t01"], 2, Answer(PERFECT["beam_t01"]))
              .on(sha["frame_t01"], 1, Answer(""))
              .on(sha["frame_t01"], 2, Answer("   "))
              .on(sha["truss_t01"], 1, Answer(think))
              .on(sha["truss_t01"], 2, Answer(PERFECT["truss_t01"]))
              .on(sha["beam_t02"], 1, Answer(PERFECT["beam_t02"], reasoning_tokens=15)))
    with FakeOpenAI(script) as server:
        outcome = session(tmp_path / "c", server).run(ordered(tasks), progress=False,
                                                      echo=lambda _: None)
    s = outcome.summary
    flags = s["answer_flags"]
    assert flags["pass_at_1"]["length"]["no_json"] == 1
    assert flags["pass_at_1"]["empty"]["no_json"] == 1  # frame; truss said "I am done."
    assert flags["after_repair"]["empty"]["no_json"] == 1  # frame stays empty
    assert flags["after_repair"]["length"] == dict.fromkeys(flags["after_repair"]["length"], 0)
    assert s["tokens"]["reasoning"] == 15
    rows = {r.id: r for r in outcome.results}
    assert rows["truss_t01"].first_attempt_stage == "no_json" and rows["truss_t01"].ratio == 1.0
    truss = attempts(tmp_path / "c", "truss_t01")[0]
    assert truss["extraction"]["reason"] == "think_only"
    assert truss["extraction"]["problem"].startswith("JSON only inside <think>")
    assert truss["verdict"]["stage"] == "no_json"
    assert truss["response"]["flags"] == []
    assert attempts(tmp_path / "c", "beam_t02")[0]["tokens"]["reasoning"] == 15
    results = json.loads((tmp_path / "c" / "results.json").read_text())
    by_id = {t["id"]: t for t in results["tasks"]}
    assert by_id["beam_t01"]["first_attempt_flags"] == ["length"]
    assert by_id["frame_t01"]["flags"] == ["empty"]


def test_the_printed_summary_leads_with_pass_at_1_and_counts_cut_offs(data, tmp_path):
    data_dir, tasks = data
    sha = fx.image_sha(tasks["beam_t01"])
    script = Script(default=Answer(PERFECT["beam_t02"])).on(
        sha, 1, Answer("The points are A (0, 0) and", finish_reason="length")).on(
        sha, 2, Answer(PERFECT["beam_t01"]))
    with FakeOpenAI(script) as server:
        proc = run_eval(*common(server, data_dir, tmp_path / "p", "--filter", "beam_t01"))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[1] == "Headline: pass@1 weighted accuracy 0.00%   (after repair 100.00%)"
    no_json = next(line for line in lines if line.startswith("no JSON"))
    assert no_json.split()[-2:] == ["1/0", "-"]  # cut off: 1 at pass@1, 0 after repair
    assert "cut off by the token limit" in proc.stdout
    summary = json.loads((tmp_path / "p" / "results.json").read_text())["summary"]
    assert next(iter(summary)) == "headline"
    assert summary["headline"] == {"metric": "pass_at_1_weighted_accuracy",
                                   "label": "pass@1 weighted accuracy", "value": 0.0,
                                   "after_repair": 100.0}


# ------------------------------------------------------------------ provenance and cost


def test_provenance_is_recorded_in_run_json_and_results(data, tmp_path):
    _, tasks = data
    script = Script(default=Answer(PERFECT["beam_t02"], model="gpt-5-2025-08-07",
                                   system_fingerprint="fp_1234"))
    with FakeOpenAI(script) as server:
        outcome = session(tmp_path / "v", server, max_retries=0).run(
            [tasks["beam_t02"]], progress=False, echo=lambda _: None)
    manifest = json.loads((tmp_path / "v" / "run.json").read_text())
    prov = manifest["provenance"]
    import structeval

    assert prov["structeval"]["version"] == structeval.__version__
    git = prov["structeval"].get("git")
    if (Path(structeval.__file__).parents[2] / ".git").exists():
        assert len(git["commit"]) == 40 and isinstance(git["dirty"], bool)
    assert prov["solver_sha256"] == hashlib.sha256(WASM.read_bytes()).hexdigest()
    assert len(prov["scorer_sha256"]) == 64
    assert len(prov["dataset"]["folder_sha256"]) == 64
    assert prov["dataset"]["selected"]["tasks"] == 1
    for name in ("python", "openai", "wasmtime"):
        assert prov["versions"][name]
    assert manifest["sessions"][0]["provenance"] == prov
    assert outcome.summary["provenance"] == prov
    assert outcome.summary["api"]["models"] == ["gpt-5-2025-08-07"]
    assert outcome.summary["api"]["system_fingerprints"] == ["fp_1234"]
    response = attempts(tmp_path / "v")[0]["response"]
    assert (response["model"], response["system_fingerprint"]) == ("gpt-5-2025-08-07",
                                                                   "fp_1234")


def test_resume_refuses_a_changed_dataset_unless_forced(tmp_path):
    copy = tmp_path / "data"
    local = {t.id: t for t in fx.build_dataset(copy)}  # a data folder of its own to change
    out = tmp_path / "run"
    with FakeOpenAI(perfect_script(local)) as server:
        session(out, server, data_dir=copy).run([local["beam_t01"]], progress=False,
                                                echo=lambda _: None)
        raw = copy / "raw_models" / "beam_t01.json"
        doc = json.loads(raw.read_text())
        doc["problem"]["notes"] = "changed since"
        raw.write_text(json.dumps(doc, indent=2))
        from structeval.dataset.ground_truth import generate

        assert not generate(copy)["errors"]
        with pytest.raises(RunDirError, match="selected tasks' raw models or ground truth"):
            session(out, server, data_dir=copy, resume=True).run(
                [local["beam_t01"]], progress=False, echo=lambda _: None)
        notes: list[str] = []
        session(out, server, data_dir=copy, resume=True, force_resume=True).run(
            [local["beam_t01"]], progress=False, echo=notes.append)
    assert any("--force-resume" in n for n in notes)
    last = json.loads((out / "run.json").read_text())["sessions"][-1]
    assert "selected tasks" in last["forced_resume"][0]


def test_cost_per_task_and_run(data, tmp_path):
    """$2.50 / $10 per million tokens; each answer 100 prompt + 20 completion tokens →
    $0.00045 per attempt. beam_t01 needs two attempts, the others one."""
    _, tasks = data
    sha = fx.image_sha(tasks["beam_t01"])
    script = perfect_script(tasks).on(sha, 1, Answer(fx.NO_JSON)).on(
        sha, 2, Answer(PERFECT["beam_t01"]))
    with FakeOpenAI(script) as server:
        outcome = session(tmp_path / "m", server, prices=Prices(2.5, 10.0, "test")).run(
            ordered(tasks), progress=False, echo=lambda _: None)
    per_attempt = (100 * 2.5 + 20 * 10.0) / 1e6
    rows = {t["id"]: t for t in json.loads((tmp_path / "m" / "results.json").read_text())[
        "tasks"]}
    assert rows["beam_t01"]["cost_usd"] == pytest.approx(2 * per_attempt)
    assert rows["truss_t01"]["cost_usd"] == pytest.approx(per_attempt)
    cost = outcome.summary["cost"]
    assert cost["usd"] == pytest.approx(5 * per_attempt)
    assert cost["paid_this_session_usd"] == pytest.approx(5 * per_attempt)


def test_max_cost_stops_starting_tasks_and_resume_finishes(data, tmp_path):
    data_dir, tasks = data
    with FakeOpenAI(perfect_script(tasks)) as server:
        proc = run_eval(*common(server, data_dir, tmp_path / "b", "--concurrency", "1",
                                "--price-in", "2.5", "--price-out", "10",
                                "--max-cost", "0.0004"))
        assert proc.returncode == 3, proc.stderr  # one attempt ($0.00045) reaches the bound
        assert len(server.calls) == 1
        summary = json.loads((tmp_path / "b" / "results.json").read_text())["summary"]
        assert summary["stopped_by_max_cost"] == 3 and summary["scored"] == 1
        assert "3 task(s) not run: --max-cost was reached" in proc.stdout
        resumed = run_eval(*common(server, data_dir, tmp_path / "b", "--resume",
                                   "--price-in", "2.5", "--price-out", "10"))
        assert resumed.returncode == 0, resumed.stderr
        assert len(server.calls) == 4
    assert json.loads((tmp_path / "b" / "results.json").read_text())["summary"][
        "scored"] == 4


def test_dry_run_prints_requests_tokens_and_cost_and_sends_nothing(data, tmp_path):
    data_dir, tasks = data
    with FakeOpenAI(perfect_script(tasks)) as server:
        proc = run_eval(*common(server, data_dir, tmp_path / "dry", "--dry-run",
                                "--price-in", "2.5", "--price-out", "10", "--runs", "2"))
        assert server.calls == []
    assert proc.returncode == 0, proc.stderr
    assert "Dry run: nothing was sent." in proc.stdout
    assert "Requests: 8 first attempt(s), 0 of them answered by the response cache; at most " \
           "16 with every repair round" in proc.stdout
    assert "Estimated tokens to send: prompt " in proc.stdout
    assert "Estimated cost at $2.5 in / $10 out per million tokens" in proc.stdout
    assert not (tmp_path / "dry").exists()


# ------------------------------------------------------------------ languages and modalities


def test_a_full_run_in_chinese(data, tmp_path):
    """--lang zh: the system prompt, the task text, the repair feedback and the diagnosis
    are Chinese; the JSON is the same, so the same answers score the same."""
    data_dir, tasks = data
    sha = fx.image_sha(tasks["beam_t01"])
    script = perfect_script(tasks).on(sha, 1, Answer(fx.tagged(fx.support_kind(
        "beam_t01", "S2", "pin")))).on(sha, 2, Answer(PERFECT["beam_t01"]))
    with FakeOpenAI(script) as server:
        proc = run_eval(*common(server, data_dir, tmp_path / "zh", "--lang", "zh"))
        bodies = {(c.image_sha, c.attempt): c.body for c in server.calls}
    assert proc.returncode == 0, proc.stderr
    first = bodies[(sha, 1)]["messages"]
    assert first[0]["content"].startswith("你是一名结构工程师。")
    assert first[1]["content"][0]["text"] == "把这幅图中的结构写成 FrameCalc JSON。"
    repair = bodies[(sha, 2)]["messages"][3]["content"]
    assert repair.startswith("你上一次的回答还不正确：几何正确，但支座与图不符。")
    assert "支座阶段未通过" in repair and "你设在结点 C 的支座 S2 的约束与图不符" in repair
    summary = json.loads((tmp_path / "zh" / "results.json").read_text())["summary"]
    assert (summary["weighted_accuracy"], summary["pass_at_1_weighted_accuracy"]) == (
        100.0, 100.0 * (0.25 * 1 + 3 + 2 + 2) / 8)
    assert summary["lang"] == "zh"
    assert json.loads((tmp_path / "zh" / "run.json").read_text())["grading"]["lang"] == "zh"


def test_a_dxf_run_sends_the_dxf_text_and_no_image(data, tmp_path):
    data_dir, tasks = data
    script = Script()
    for task_id in ("beam_t01", "frame_t01"):
        script.on(fx.dxf_sha(tasks[task_id]), 1, Answer(PERFECT[task_id]))
    with FakeOpenAI(script) as server:
        proc = run_eval(*common(server, data_dir, tmp_path / "dxf", "--modality", "dxf"))
        calls = list(server.calls)
    assert proc.returncode == 0, proc.stderr
    assert {c.image_sha for c in calls} == {fx.dxf_sha(tasks["beam_t01"]),
                                            fx.dxf_sha(tasks["frame_t01"])}
    for call in calls:
        parts = call.body["messages"][1]["content"]
        assert [p["type"] for p in parts] == ["text", "text"]
        assert "DXF" in parts[0]["text"] and "image_url" not in json.dumps(call.body)
        task = tasks["beam_t01"] if call.image_sha == fx.dxf_sha(tasks["beam_t01"]) \
            else tasks["frame_t01"]
        assert parts[1]["text"] == Path(task.dxf_path).read_text(encoding="utf-8")
    assert "Skipped: 2 selected task(s) without a DXF file" in proc.stdout
    results = json.loads((tmp_path / "dxf" / "results.json").read_text())
    assert results["summary"]["modality"] == "dxf"
    assert results["summary"]["skipped"] == {"no_dxf": 2, "tasks": ["beam_t02", "truss_t01"]}
    assert [t["id"] for t in results["tasks"]] == ["beam_t01", "frame_t01"]
    record = attempts(tmp_path / "dxf", "beam_t01")[0]
    assert record["request"]["messages"][1]["content"][1]["text"].startswith("<dxf ")
    assert record["dxf"]["sha256"] == fx.dxf_sha(tasks["beam_t01"])
    assert json.loads((tmp_path / "dxf" / "run.json").read_text())["grading"]["modality"] \
        == "dxf"


def test_compare_gives_the_perception_gap_of_an_image_and_a_dxf_run(data, tmp_path):
    """Image run: beam_t01 fails its supports (0.25), frame_t01 perfect; DXF run: both perfect.
    dxf − image: beam +75 points (difficulty 1), frame 0 → overall 75/4 = +18.75."""
    import subprocess
    import sys

    data_dir, tasks = data
    image = Script().on(fx.image_sha(tasks["beam_t01"]), 1, Answer(fx.tagged(
        fx.support_kind("beam_t01", "S2", "pin")))).on(
        fx.image_sha(tasks["frame_t01"]), 1, Answer(PERFECT["frame_t01"]))
    dxf = Script().on(fx.dxf_sha(tasks["beam_t01"]), 1, Answer(PERFECT["beam_t01"])).on(
        fx.dxf_sha(tasks["frame_t01"]), 1, Answer(PERFECT["frame_t01"]))
    for name, script, extra in (("img", image, ()), ("dxf", dxf, ("--modality", "dxf"))):
        with FakeOpenAI(script) as server:
            proc = run_eval(*common(server, data_dir, tmp_path / name, "--max-retries", "0",
                                    "--filter", "_t01", "--category", "beam",
                                    "--category", "frame", *extra))
            assert proc.returncode == 0, proc.stderr
    done = subprocess.run([sys.executable, "tools/compare.py", str(tmp_path / "img"),
                           str(tmp_path / "dxf"), "--json", str(tmp_path / "c.json")],
                          capture_output=True, text=True, cwd=Path(__file__).parents[1])
    assert done.returncode == 0, done.stderr
    assert "perception gap (dxf − image)" in done.stdout
    gap = json.loads((tmp_path / "c.json").read_text())["modality"]["perception_gap"]
    assert gap["equals"] == "B - A" and gap["overall"]["estimate"] == 18.75
    rows = {g["name"]: g for g in json.loads((tmp_path / "c.json").read_text())["by_category"]}
    assert rows["beam"]["difference"]["estimate"] == -75.0  # A − B; the gap is its negative
    assert rows["frame"]["difference"]["estimate"] == 0.0
    assert gap["by_category"]["beam"]["estimate"] == 75.0
    assert gap["by_category"]["frame"]["estimate"] == 0.0
    assert gap["by_difficulty"]["difficulty 1"]["estimate"] == 75.0
    assert "Perception gap by category: beam +75.00, frame +0.00; by difficulty: 1 +75.00, " \
           "3 +0.00" in done.stdout


def _sent_image(body: dict) -> Image.Image:
    url = body["messages"][1]["content"][1]["image_url"]["url"]
    return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))


def test_image_detail_and_downscaling(data, tmp_path):
    _, tasks = data
    grading = GradingSettings(model="gpt-4o", max_retries=0, image_detail="low",
                              max_image_side=32)
    with FakeOpenAI(Script(default=Answer(PERFECT["beam_t02"]))) as server:
        session(tmp_path / "i", server, grading=grading).run(
            [tasks["beam_t02"]], progress=False, echo=lambda _: None)
        body = server.calls[0].body
    part = body["messages"][1]["content"][1]["image_url"]
    assert part["detail"] == "low"
    sent = _sent_image(body)
    assert sent.size == (32, 24)  # the fixture images are 64 × 48
    record = attempts(tmp_path / "i")[0]
    assert record["image"]["original"]["pixels"] == [64, 48]
    assert record["image"]["sent"]["pixels"] == [32, 24]
    assert record["image"]["original"]["sha256"] == fx.image_sha(tasks["beam_t02"])
    sent_bytes = base64.b64decode(part["url"].split(",", 1)[1])
    assert record["image"]["sent"]["sha256"] == hashlib.sha256(sent_bytes).hexdigest()
    assert "detail" not in json.dumps(attempts(tmp_path / "i")[0]["request"]["messages"])
    assert record["request"]["image_detail"] == "low"
    # deterministic: the same image gives the same bytes
    with FakeOpenAI(Script(default=Answer(PERFECT["beam_t02"]))) as server:
        session(tmp_path / "i2", server, grading=grading).run(
            [tasks["beam_t02"]], progress=False, echo=lambda _: None)
        again = server.calls[0].body["messages"][1]["content"][1]["image_url"]["url"]
    assert again == part["url"]


def test_without_image_options_nothing_extra_is_sent(data, tmp_path):
    _, tasks = data
    with FakeOpenAI(Script(default=Answer(PERFECT["beam_t02"]))) as server:
        session(tmp_path / "n", server, max_retries=0).run(
            [tasks["beam_t02"]], progress=False, echo=lambda _: None)
        body = server.calls[0].body
    assert "detail" not in body["messages"][1]["content"][1]["image_url"]
    assert "reasoning_effort" not in body and body["temperature"] == 0.0
    assert base64.b64decode(body["messages"][1]["content"][1]["image_url"]["url"].split(
        ",", 1)[1]) == Path(tasks["beam_t02"].image_path).read_bytes()
