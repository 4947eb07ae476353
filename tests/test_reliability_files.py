"""Hostile files, sizes and folders: one sentence and exit 2, never a traceback, never lost.

* one session per run directory (``run.lock``): a second ``--resume`` refuses and says
  who holds it; the lock of a killed session is taken over;
* nothing is written through a symbolic link (trace, results, metas), and symlinked
  metas or raw models that leave ``data/`` are refused;
* sizes are bounded: a 500 MB answer costs a 2 MB trace and bounded memory (measured
  with ``wait4`` on the real process), ``/dev/zero`` is a sentence, ``--samples`` ×
  links is bounded, an oversized image makes its task unavailable with the reason;
* a full disk (``RLIMIT_FSIZE`` in the child) or a read-only folder stops the run with
  one sentence, and ``--resume`` afterwards gives exactly an uninterrupted run's results.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.fakeserver import fixture as fx
from tests.fakeserver.process import ROOT, common, run_eval, run_measured
from tests.fakeserver.server import Answer, Call, Fail, FakeOpenAI, Huge, Reply, Script
from tests.structure_builders import cantilever_chain

RUN_EVAL = str(ROOT / "run_eval.py")


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> tuple[Path, dict[str, fx.FixtureTask]]:
    root = tmp_path_factory.mktemp("files") / "data"
    return root, {t.id: t for t in fx.build_dataset(root)}


def _script(tasks: dict[str, fx.FixtureTask]) -> Script:
    """Every task answered right at once, except frame_t01 (perfect after one repair)."""
    script = Script()
    for task_id, task in tasks.items():
        script.on(fx.image_sha(task), 1, Answer(fx.tagged(fx.GT_MODELS[task_id])))
    frame = fx.image_sha(tasks["frame_t01"])
    script.on(frame, 1, Answer(fx.tagged(fx.scaled_load("frame_t01", "Q1", 1.5))))
    script.on(frame, 2, Answer(fx.fenced(fx.GT_MODELS["frame_t01"])))
    return script


class Held:
    """The script, but the first request is held until ``release`` (a run in flight)."""

    def __init__(self, script: Script):
        self.script = script
        self.release = threading.Event()
        self.arrived = threading.Event()

    def __call__(self, call: Call) -> Reply:
        self.arrived.set()
        self.release.wait(60)
        return self.script(call)


def _clean(proc, code: int) -> None:
    assert proc.returncode == code, (proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout


def _without_wall(out: Path) -> dict:
    document = json.loads((out / "results.json").read_text())
    del document["summary"]["wall_s"]
    return document


@pytest.fixture(scope="module")
def reference(data, tmp_path_factory) -> Path:
    """An uninterrupted run: what every interrupted-then-resumed run must equal."""
    data_dir, tasks = data
    out = tmp_path_factory.mktemp("reference") / "run"
    with FakeOpenAI(_script(tasks)) as server:
        _clean(run_eval(*common(server, data_dir, out, "--concurrency", "1")), 0)
    return out


# ------------------------------------------------------------------ one session per folder


@contextlib.contextmanager
def _in_flight(server: FakeOpenAI, held: Held, data_dir: Path, out: Path):
    """A first session on ``out`` whose first request the server holds; on leaving, the
    request is released and the session waited for (its stderr kept as ``.errors``)."""
    first = run_eval(*common(server, data_dir, out, "--concurrency", "1"), wait=False)
    try:
        assert held.arrived.wait(60), "the first session never sent a request"
        yield first
    finally:
        held.release.set()
        first.errors = first.communicate(timeout=120)[1]


def test_a_second_session_on_a_run_in_progress_refuses_and_names_the_holder(data, tmp_path):
    data_dir, tasks = data
    out = tmp_path / "run"
    held = Held(_script(tasks))
    with FakeOpenAI(held) as server:
        with _in_flight(server, held, data_dir, out) as first:
            calls = len(server.calls)
            second = run_eval(*common(server, data_dir, out, "--resume"))
            _clean(second, 2)
            assert f"in use by process {first.pid}" in second.stderr
            assert len(server.calls) == calls  # the second session asked nothing: no double pay
            fresh = run_eval(*common(server, data_dir, out))  # without --resume: refused too
            _clean(fresh, 2)
        assert first.returncode == 0, first.errors
        again = run_eval(*common(server, data_dir, out, "--resume"))
        _clean(again, 0)  # released with the first session
        assert "4 task(s) taken from earlier sessions, 0 run now" in again.stdout


def test_the_lock_of_a_killed_session_is_taken_over(data, reference, tmp_path):
    data_dir, tasks = data
    out = tmp_path / "run"
    held = Held(_script(tasks))
    with FakeOpenAI(held) as server:
        with _in_flight(server, held, data_dir, out) as first:
            first.send_signal(signal.SIGKILL)
            first.wait(timeout=30)
        assert json.loads((out / "run.lock").read_text())["pid"] == first.pid  # stale
        resumed = run_eval(*common(server, data_dir, out, "--resume", "--concurrency", "1"),
                           wait=False)
        _, stderr = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, stderr
    assert json.loads((out / "run.lock").read_text())["pid"] == resumed.pid
    assert _without_wall(out) == _without_wall(reference)


# ------------------------------------------------------------------ symbolic links


@pytest.mark.parametrize("name", ["trace.jsonl", "results.json", "run.json"])
def test_run_files_are_never_written_through_a_symlink(data, tmp_path, name):
    data_dir, tasks = data
    out = tmp_path / "run"
    out.mkdir()
    target = tmp_path / "elsewhere.txt"
    target.write_text("precious\n")
    (out / name).symlink_to(target)
    with FakeOpenAI(_script(tasks)) as server:
        for extra in ((), ("--resume",)):
            proc = run_eval(*common(server, data_dir, out, *extra))
            _clean(proc, 2)
            assert "symbolic link" in proc.stderr and name in proc.stderr
        assert server.calls == []  # refused before anything was paid for
    assert target.read_text() == "precious\n"


def test_the_trace_of_a_finished_run_replaced_by_a_symlink_is_not_appended_to(data, reference,
                                                                              tmp_path):
    data_dir, tasks = data
    out = tmp_path / "run"
    shutil.copytree(reference, out)
    target = tmp_path / "elsewhere.jsonl"
    shutil.move(out / "trace.jsonl", target)
    before = target.read_bytes()
    (out / "trace.jsonl").symlink_to(target)
    with FakeOpenAI(_script(tasks)) as server:
        _clean(run_eval(*common(server, data_dir, out, "--resume")), 2)
    assert target.read_bytes() == before


def _dataset_copy(data_dir: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "data"
    shutil.copytree(data_dir, copy)
    return copy


def test_a_meta_linked_outside_data_is_refused_by_the_loader_and_generate_gt(data, tmp_path):
    from structeval.dataset import DatasetError, load_tasks

    copy = _dataset_copy(data[0], tmp_path)
    meta = copy / "ground_truth_meta" / "beam_t01.json"
    outside = tmp_path / "outside" / "beam_t01.json"
    outside.parent.mkdir()
    outside.write_text('{"stale": true}\n')  # generate_gt would rewrite it if it followed
    meta.unlink()
    meta.symlink_to(outside)
    with pytest.raises(DatasetError) as info:
        load_tasks(copy)
    assert "symbolic link" in str(info.value) and "outside" in str(info.value)
    proc = subprocess.run([sys.executable, "tools/generate_gt.py", "--data", str(copy),
                           "--no-progress"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    _clean(proc, 2)
    assert "beam_t01.json: is a symbolic link" in proc.stderr
    assert outside.read_text() == '{"stale": true}\n'


def test_a_raw_model_linked_outside_data_is_refused_by_generate_gt(data, tmp_path):
    copy = _dataset_copy(data[0], tmp_path)
    raw = copy / "raw_models" / "beam_t02.json"
    outside = tmp_path / "beam_t02.json"
    shutil.move(raw, outside)
    raw.symlink_to(outside)
    proc = subprocess.run([sys.executable, "tools/generate_gt.py", "--data", str(copy),
                           "--no-progress"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    _clean(proc, 2)
    assert "outside" in proc.stderr and "beam_t02.json" in proc.stderr


# ------------------------------------------------------------------ sizes


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_a_500_mb_answer_costs_a_capped_trace_and_bounded_memory(data, tmp_path, stream):
    data_dir, _ = data
    out = tmp_path / "run"
    with FakeOpenAI(lambda call: Huge(500_000_000, prefix="<json>")) as server:
        done = run_measured(RUN_EVAL, *common(server, data_dir, out, "--filter", "beam_t02",
                                              "--max-retries", "0",
                                              *(["--stream"] if stream else [])))
        _clean(done, 0)
        assert done.max_rss_mb < 400, done.max_rss_mb  # was 1.6 GB
        attempt = next(json.loads(line) for line in (out / "trace.jsonl").read_text()
                       .splitlines() if '"attempt"' in line)
        assert len(attempt["response"]["text"]) == 2_000_000
        assert attempt["response"]["truncated"]["kept_chars"] == 2_000_000
        assert (out / "trace.jsonl").stat().st_size < 5_000_000  # was 524 MB
        resumed = run_measured(RUN_EVAL, *common(server, data_dir, out, "--filter",
                                                 "beam_t02", "--max-retries", "0", "--resume"))
        _clean(resumed, 0)
        assert resumed.max_rss_mb < 400, resumed.max_rss_mb
    report = run_measured("tools/report.py", str(out), "-o", str(tmp_path / "r.html"),
                          "--data-dir", str(data_dir), "--no-progress")
    _clean(report, 0)
    assert report.max_rss_mb < 600, report.max_rss_mb


def _structeval(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "structeval", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")})


def test_endless_binary_and_non_utf8_model_files_are_one_sentence(tmp_path):
    binary = tmp_path / "binary.json"
    binary.write_bytes(bytes(range(256)) * 4)
    latin = tmp_path / "latin.json"
    latin.write_bytes('{"points": [], "note": "Träger"}'.encode("latin-1"))
    gt = ROOT / "data" / "raw_models" / sorted(os.listdir(ROOT / "data" / "raw_models"))[0]
    cases = [(["solve", "/dev/zero"], "larger than the 16 MB cap"),
             (["solve", str(binary)], "not UTF-8"), (["solve", str(latin)], "not UTF-8"),
             (["score", "/dev/zero", str(gt)], "larger than the 16 MB cap"),
             (["score", str(gt), "/dev/zero"], "larger than the 16 MB cap"),
             (["score", str(gt), str(latin)], "not UTF-8"),
             (["solve", "--max-file-mb", "0.001", str(gt)], "larger than the 1.0 KB cap")]
    for args, words in cases:
        proc = _structeval(*args)
        _clean(proc, 2)
        assert words in proc.stderr, (args, proc.stderr)
        assert len(proc.stderr.strip().splitlines()) == 1


def test_samples_times_links_is_bounded_before_anything_is_built(tmp_path):
    model = tmp_path / "chain.json"
    model.write_text(json.dumps(cantilever_chain(4999)))
    started = time.monotonic()
    done = run_measured("-m", "structeval", "solve", "--samples", "10000", str(model))
    _clean(done, 2)
    assert "49,990,000 samples" in done.stderr and "--samples" in done.stderr
    assert done.max_rss_mb < 500 and time.monotonic() - started < 60  # was OOM-killed at 24 GB
    small = _structeval("solve", "--samples", "3", str(model))
    _clean(small, 0)


def test_an_image_over_the_cap_makes_its_task_unavailable_with_the_reason(data, tmp_path):
    data_dir, tasks = data
    out = tmp_path / "run"
    with FakeOpenAI(_script(tasks)) as server:
        proc = run_eval(*common(server, data_dir, out, "--max-image-mb", "0.0001"))
        _clean(proc, 3)
        assert server.calls == []
    rows = json.loads((out / "results.json").read_text())["tasks"]
    assert {r["status"] for r in rows} == {"unavailable"}
    assert all("larger than the 104 bytes cap for a task image" in r["reason"] for r in rows)


# ------------------------------------------------------------------ full disk, read-only


def _limit_file_size(limit: int):
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of being killed
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def test_a_full_disk_stops_the_run_with_a_sentence_and_resume_finishes_it(data, reference,
                                                                          tmp_path):
    data_dir, tasks = data
    out = tmp_path / "run"
    limit = (reference / "trace.jsonl").stat().st_size // 2
    assert (reference / "run.json").stat().st_size < limit  # the run starts, then the disk fills
    with FakeOpenAI(_script(tasks)) as server:
        full = run_measured(RUN_EVAL, *common(server, data_dir, out, "--concurrency", "1"),
                            preexec=_limit_file_size(limit))
        _clean(full, 2)
        assert "the file size limit was reached" in full.stderr
        assert "--resume" in full.stderr and len(full.stderr.strip().splitlines()) <= 2
        assert not (out / "results.json").exists()
        assert 0 < (out / "trace.jsonl").stat().st_size <= limit
        resumed = run_eval(*common(server, data_dir, out, "--resume", "--concurrency", "3"))
        _clean(resumed, 0)
    assert _without_wall(out) == _without_wall(reference)


def _can_lock_folders() -> str | None:
    """How this process can make a folder read-only for itself: chmod (not root) or the
    immutable attribute (root, where chmod is ignored); None when neither works."""
    if os.geteuid() != 0:
        return "chmod"
    return "chattr" if shutil.which("chattr") else None


@pytest.fixture
def read_only():
    """``set(path, True/False)``: make a folder read-only for this user, even for root."""
    how = _can_lock_folders()
    touched: list[Path] = []

    def apply(path: Path, flag: bool) -> None:
        if how == "chmod":
            path.chmod(0o555 if flag else 0o755)
        else:
            result = subprocess.run(["chattr", "+i" if flag else "-i", str(path)],
                                    capture_output=True, text=True)
            if result.returncode:
                pytest.skip(f"chattr is not supported here: {result.stderr.strip()}")
        touched.append(path)

    if how is None:
        pytest.skip("cannot make a read-only folder here (root without chattr)")
    yield apply
    for path in reversed(touched):
        apply(path, False)


def test_a_read_only_folder_is_a_sentence_and_the_run_resumes_once_writable(data, reference,
                                                                           read_only, tmp_path):
    data_dir, tasks = data
    parent = tmp_path / "parent"
    parent.mkdir()
    read_only(parent, True)
    with FakeOpenAI(_script(tasks)) as server:
        proc = run_eval(*common(server, data_dir, parent / "run"))  # cannot even create it
        _clean(proc, 2)
        assert "cannot create the run folder" in proc.stderr
        read_only(parent, False)
        out = parent / "run"
        with FakeOpenAI(Script(default=Fail(503))) as down:  # a first session: all unavailable
            _clean(run_eval(*common(down, data_dir, out, "--transport-retries", "1")), 3)
        read_only(out, True)
        proc = run_eval(*common(server, data_dir, out, "--resume"))
        _clean(proc, 2)
        assert str(out) in proc.stderr and len(proc.stderr.strip().splitlines()) <= 2
        assert server.calls == []
        read_only(out, False)
        _clean(run_eval(*common(server, data_dir, out, "--resume", "--concurrency", "1")), 0)
    assert _without_wall(out) == _without_wall(reference)


@pytest.mark.parametrize(("code", "words"), [
    ("ENOSPC", "the disk is full"), ("EFBIG", "file size limit"), ("EROFS", "read-only"),
    ("EACCES", "permission denied"), ("EDQUOT", "quota"), ("ELOOP", "symbolic link")])
def test_every_write_failure_has_its_sentence(code, words):
    import errno

    from structeval.safe_files import explain_os_error

    text = explain_os_error(OSError(getattr(errno, code), os.strerror(getattr(errno, code))),
                            Path("/x/trace.jsonl"), "write to")
    assert text == f"cannot write to /x/trace.jsonl: {text.split(': ', 1)[1]}"
    assert words in text
