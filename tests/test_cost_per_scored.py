"""The printed cost per task divides by the tasks that were scored, not by every task.

Four tasks, one of them unavailable (the server fails its only try); every answer
costs 100 prompt tokens at $1000/M and 20 completion tokens at $2000/M = $0.14, one
attempt each (--max-retries 0): $0.42 for 3 scored tasks → $0.1400 per scored task,
where dividing by all 4 tasks said $0.1050.
"""

from __future__ import annotations

from tests.fakeserver import fixture as fx
from tests.fakeserver.process import common, run_eval
from tests.fakeserver.server import Answer, Fail, FakeOpenAI, Script


def test_cost_per_scored_task_in_the_printed_summary(tmp_path):
    tasks = fx.build_dataset(tmp_path / "data")
    truss = next(t for t in tasks if t.category == "truss")
    script = Script(default=Answer(fx.NO_JSON)).on(fx.image_sha(truss), 1, Fail(503))
    with FakeOpenAI(script) as server:
        done = run_eval(*common(server, tmp_path / "data", tmp_path / "run", "--split", "all",
                                "--max-retries", "0", "--transport-retries", "1",
                                "--price-in", "1000", "--price-out", "2000",
                                "--progress-interval", "0"))
    assert done.returncode == 3, done.stderr  # one task unavailable
    assert "4 task(s), 3 scored, 1 unavailable" in done.stdout
    assert "Cost: $0.4200 for the answers ($0.1400 per scored task)" in done.stdout
