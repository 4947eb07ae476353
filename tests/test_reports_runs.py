"""``run_eval.py --runs K``: every task answered K times, with error bars and agreement.

The scripted server answers the k-th request for a drawing with the k-th
scripted reply, so with one task in flight at a time (concurrency 1) run r of
a task gets reply r. Expected numbers are worked out by hand in the docstrings.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from structeval.harness import GradingSettings, RetryPolicy, Session
from structeval.harness.common.settings import TransportSettings
from structeval.harness.common.trace import read_trace
from structeval.reports.leaderboard import leaderboard
from structeval.reports.runfiles import load_results
from tests.fakeserver import fixture as fx
from tests.fakeserver.server import Answer, FakeOpenAI, Script

ROOT = Path(__file__).resolve().parents[1]
IDS = ("beam_t01", "frame_t01", "truss_t01")  # difficulties 1, 3, 2
PERFECT = {i: fx.tagged(fx.equivalent(i)) for i in IDS}
LOADS = fx.tagged(fx.scaled_load("frame_t01", "Q1", 1.5))


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> tuple[Path, dict[str, fx.FixtureTask]]:
    root = tmp_path_factory.mktemp("runs") / "data"
    return root, {t.id: t for t in fx.build_dataset(root, list(IDS))}


def script(tasks: dict[str, fx.FixtureTask]) -> Script:
    """Runs 0, 1, 2: beam perfect ×3; frame loads, perfect, loads; truss perfect, perfect,
    no JSON."""
    sha = {k: fx.image_sha(t) for k, t in tasks.items()}
    return (Script()
            .on(sha["beam_t01"], 1, Answer(PERFECT["beam_t01"]))
            .on(sha["frame_t01"], 1, Answer(LOADS), Answer(PERFECT["frame_t01"]), Answer(LOADS))
            .on(sha["truss_t01"], 1, Answer(PERFECT["truss_t01"]), Answer(PERFECT["truss_t01"]),
                Answer(fx.NO_JSON)))


def session(out: Path, server: FakeOpenAI, runs: int, resume: bool = False) -> Session:
    return Session(out, grading=GradingSettings(model="fake-vlm", max_retries=0),
                   transport_settings=TransportSettings(api_base=server.base_url, timeout=5.0,
                                                        concurrency=1),
                   policy=RetryPolicy(tries=2, base_delay=0.001, max_delay=0.002),
                   api_key=fx.SECRET_KEY, resume=resume, runs=runs)


@pytest.fixture(scope="module")
def three_runs(dataset, tmp_path_factory):
    _, tasks = dataset
    out = tmp_path_factory.mktemp("three") / "run"
    with FakeOpenAI(script(tasks)) as server:
        outcome = session(out, server, 3).run([tasks[i] for i in IDS], progress=False,
                                              echo=lambda _t: None)
    return out, outcome, server


def test_every_task_is_answered_once_per_run(three_runs):
    out, _, server = three_runs
    assert len(server.calls) == 9
    rows = json.loads((out / "results.json").read_text())["tasks"]
    assert [(r["run"], r["id"]) for r in rows] == [(k, i) for k in range(3) for i in IDS]
    stages = {(r["run"], r["id"]): r["stage"] for r in rows}
    assert [stages[(k, "frame_t01")] for k in range(3)] == ["loads", "perfect", "loads"]
    assert [stages[(k, "truss_t01")] for k in range(3)] == ["perfect", "perfect", "no_json"]
    records, _ = read_trace(out / "trace.jsonl")
    attempts = [(r["run"], r["task_id"]) for r in records if r["type"] == "attempt"]
    assert sorted(attempts) == sorted((k, i) for k in range(3) for i in IDS)
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["sessions"][0]["runs"] == 3


def test_statistics_by_hand(three_runs):
    """Σ difficulty = 6. Per run: (1 + 0.75·3 + 2)/6 = 87.5 %, (1 + 3 + 2)/6 = 100 %,
    (1 + 2.25 + 0)/6 = 54.1667 %. Per-task means 1, 5/6, 2/3 → (1 + 2.5 + 4/3)/6 =
    80.5556 %, the mean of the three runs. Only beam ends at the same stage in all runs."""
    out, outcome, _ = three_runs
    summary = json.loads((out / "results.json").read_text())["summary"]
    assert summary == outcome.summary
    st = summary["statistics"]
    assert (st["runs"], st["tasks"]) == (3, 3)
    assert [r["weighted_accuracy"] for r in st["per_run"]] == [87.5, 100.0, 54.1667]
    assert [r["run"] for r in st["per_run"]] == [0, 1, 2]
    assert st["weighted_accuracy"]["estimate"] == 80.5556
    assert summary["weighted_accuracy"] == 80.5556  # pooled over runs: the same mean
    # every resample's weighted mean lies between the smallest and largest task mean
    acc = st["weighted_accuracy"]
    assert 66.6666 <= acc["low"] < acc["estimate"] < acc["high"] <= 100.0
    assert st["stage_consistency"] == {"share": round(1 / 3, 6), "tasks": 3, "consistent": 1,
                                       "runs": 3}
    assert st["bootstrap"]["resamples"] == 10_000
    assert summary["tasks"] == 9  # counts cover all runs (RUN_FORMAT.md)


def test_the_results_are_the_same_for_any_concurrency(three_runs, dataset, tmp_path):
    """Assembly is in (run, dataset) order whatever finishes first; with several tasks in
    flight the server may hand out replies in another order, so the check uses one reply
    per drawing (perfect for everything)."""
    _, tasks = dataset
    sha = {k: fx.image_sha(t) for k, t in tasks.items()}
    same = Script()
    for i in IDS:
        same.on(sha[i], 1, Answer(PERFECT[i]))
    results = []
    for concurrency in (1, 4):
        out = tmp_path / f"c{concurrency}"
        with FakeOpenAI(same) as server:
            Session(out, grading=GradingSettings(model="fake-vlm", max_retries=0),
                    transport_settings=TransportSettings(api_base=server.base_url,
                                                         timeout=5.0, concurrency=concurrency),
                    policy=RetryPolicy(tries=2, base_delay=0.001, max_delay=0.002),
                    api_key=fx.SECRET_KEY, resume=False, runs=2).run(
                [tasks[i] for i in IDS], progress=False, echo=lambda _t: None)
        data = json.loads((out / "results.json").read_text())
        del data["summary"]["wall_s"]
        results.append(data)
    assert results[0] == results[1]
    assert results[0]["summary"]["statistics"]["weighted_accuracy"] == {
        "estimate": 100.0, "low": 100.0, "high": 100.0}


def test_resume_with_more_runs_only_runs_the_new_ones(dataset, three_runs, tmp_path):
    """Two runs, then --resume with three: the third run's tasks alone are asked, and the
    final results equal the uninterrupted three-run results."""
    _, tasks = dataset
    out = tmp_path / "grow"
    with FakeOpenAI(script(tasks)) as server:
        session(out, server, 2).run([tasks[i] for i in IDS], progress=False,
                                    echo=lambda _t: None)
        assert len(server.calls) == 6
        outcome = session(out, server, 3, resume=True).run([tasks[i] for i in IDS],
                                                           progress=False, echo=lambda _t: None)
        assert len(server.calls) == 9
    assert (outcome.reused, outcome.ran) == (6, 3)
    grown = json.loads((out / "results.json").read_text())
    full = json.loads((three_runs[0] / "results.json").read_text())
    for data in (grown, full):
        del data["summary"]["wall_s"]
    assert grown == full


def test_single_run_results_carry_an_interval_too(dataset, tmp_path):
    _, tasks = dataset
    out = tmp_path / "one"
    with FakeOpenAI(script(tasks)) as server:
        outcome = session(out, server, 1).run([tasks[i] for i in IDS], progress=False,
                                              echo=lambda _t: None)
    st = outcome.summary["statistics"]
    assert st["runs"] == 1 and st["stage_consistency"]["share"] is None
    assert st["weighted_accuracy"]["estimate"] == outcome.summary["weighted_accuracy"] == 87.5
    # the reports read it back: the leaderboard shows the same headline number
    assert "| 87.5 (" in leaderboard([load_results(out)])


def test_run_eval_cli_prints_the_run_statistics(dataset, tmp_path):
    data_dir, tasks = dataset
    out = tmp_path / "cli"
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    env["OPENAI_API_KEY"] = fx.SECRET_KEY
    with FakeOpenAI(script(tasks)) as server:
        done = subprocess.run(
            [sys.executable, str(ROOT / "run_eval.py"), "--model", "fake-vlm", "--api-base",
             server.base_url, "--data-dir", str(data_dir), "--output", str(out),
             "--max-retries", "0", "--concurrency", "1", "--runs", "3", "--backoff-base",
             "0.001", "--backoff-max", "0.002"],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Weighted accuracy 80.56% (95% CI " in done.stdout
    assert "Runs: 3 × 3 tasks; weighted accuracy per run: 87.50%, 100.00%, 54.17%" in done.stdout
    assert "Stage consistency: 33.3% of 3 task(s)" in done.stdout
    assert fx.SECRET_KEY not in done.stdout + done.stderr


def test_the_report_shows_the_chosen_run_and_every_run_per_task(three_runs, dataset):
    from structeval.reports.report import build_report

    data_dir, _ = dataset
    html, warnings = build_report(three_runs[0], data_dir=data_dir, run=1)
    assert warnings == []
    assert "<h2>Tasks (run 1 of 3)</h2>" in html
    frame = html.split("data-id='frame_t01'")[1].split("</article>")[0]
    assert frame.startswith(" data-stage='perfect'")  # run 1 answered the frame perfectly
    assert "run 0: loads (0.75), run 1: perfect (1), run 2: loads (0.75)" in frame
    assert "Stage consistency (same final stage in every run): 33.3% of 3" in html
    first, _ = build_report(three_runs[0], data_dir=data_dir)
    assert "<h2>Tasks (run 0 of 3)</h2>" in first
