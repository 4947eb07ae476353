"""The response cache: a rerun of the same settings sends nothing and gives the same results;
independent samples stay independent; atomic, bounded, and never holding the key."""

from __future__ import annotations

import base64
import json
import multiprocessing
import os
import threading
import time
from pathlib import Path

import pytest

from structeval.harness import GradingSettings, RetryPolicy, Session
from structeval.harness.common.settings import TransportSettings
from structeval.harness.common.trace import Redactor
from structeval.harness.run.response_cache import (
    CacheRequest,
    ResponseCache,
    StoredReply,
    cache_request,
    default_root,
    parse_size,
    request_key,
)
from tests.fakeserver import fixture as fx
from tests.fakeserver.process import common, kill_9_when, run_eval
from tests.fakeserver.server import Answer, Call, EchoAuth, FakeOpenAI, Reply, Script

IDS = ("beam_t01", "frame_t01", "truss_t01", "beam_t02")


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> tuple[Path, dict[str, fx.FixtureTask]]:
    root = tmp_path_factory.mktemp("cache") / "data"
    return root, {t.id: t for t in fx.build_dataset(root)}


def script(tasks) -> Script:
    """beam_t01 perfect after one repair (its supports first), the others at once."""
    sha = {k: fx.image_sha(t) for k, t in tasks.items()}
    out = Script()
    for task_id in IDS:
        out.on(sha[task_id], 1, Answer(fx.tagged(fx.GT_MODELS[task_id])))
    out.on(sha["beam_t01"], 1, Answer(fx.tagged(fx.support_kind("beam_t01", "S2", "pin"))))
    out.on(sha["beam_t01"], 2, Answer(fx.tagged(fx.GT_MODELS["beam_t01"])))
    return out


def cached(server, data_dir: Path, out: Path, cache: Path, *extra: str):
    return run_eval(*common(server, data_dir, out, "--cache", "--cache-dir", str(cache),
                            *extra))


def results(out: Path) -> dict:
    return json.loads((out / "results.json").read_text())


SCORES = ("weighted_accuracy", "avg_ratio", "pass_at_1_weighted_accuracy", "pass_at_1_avg_ratio",
          "stages", "pass_at_1_stages", "tokens", "by_category", "by_difficulty")


def test_a_second_identical_run_sends_nothing_and_gives_the_same_results(data, tmp_path):
    data_dir, tasks = data
    cache = tmp_path / "cache"
    with FakeOpenAI(script(tasks)) as server:
        first = cached(server, data_dir, tmp_path / "a", cache)
        sent = len(server.calls)
        second = cached(server, data_dir, tmp_path / "b", cache, "--concurrency", "1")
        assert len(server.calls) == sent == 5  # four first attempts and one repair
    assert first.returncode == second.returncode == 0, second.stderr
    a, b = results(tmp_path / "a"), results(tmp_path / "b")
    assert [json.dumps(t) for t in a["tasks"]] == [json.dumps(t) for t in b["tasks"]]
    for key in SCORES:
        assert a["summary"][key] == b["summary"][key], key
    assert b["summary"]["cache"]["hits"] == 5 and b["summary"]["api"]["cached"] == 5
    assert a["summary"]["cache"]["stored"] == 5
    assert "Response cache: 5 answer(s) reused" in second.stdout
    replies = [r for r in map(json.loads, (tmp_path / "b" / "trace.jsonl").read_text()
                              .splitlines()) if r["type"] == "attempt"]
    assert {r["response"]["cache"] for r in replies} == {"hit"}


def in_process(server, tasks, out: Path, cache: Path, *, runs: int = 1, ids=IDS,
               **grading) -> dict:
    """A session in this process (no start-up cost) with the cache; its summary."""
    settings = GradingSettings(**{"model": "fake-vlm", "max_retries": 1, **grading})
    session = Session(out, grading=settings,
                      transport_settings=TransportSettings(api_base=server.base_url, timeout=10),
                      policy=RetryPolicy(tries=2, base_delay=0.001, max_delay=0.002),
                      api_key=fx.SECRET_KEY, resume=False, runs=runs,
                      cache=ResponseCache(cache, redact=Redactor([fx.SECRET_KEY])))
    return session.run([tasks[i] for i in ids], progress=False, echo=lambda _: None).summary


def test_independent_samples_stay_independent(data, tmp_path):
    """--runs 2: the run index is part of the key, so both samples are asked; a rerun asks
    neither, and a third run asks only the new sample."""
    _, tasks = data
    cache = tmp_path / "cache"
    with FakeOpenAI(script(tasks)) as server:
        in_process(server, tasks, tmp_path / "a", cache, runs=2, ids=["truss_t01"])
        assert len(server.calls) == 2
        in_process(server, tasks, tmp_path / "b", cache, runs=2, ids=["truss_t01"])
        assert len(server.calls) == 2
        in_process(server, tasks, tmp_path / "c", cache, runs=3, ids=["truss_t01"])
        assert len(server.calls) == 3


def test_other_settings_are_other_keys_but_streaming_is_not(data, tmp_path):
    _, tasks = data
    cache = tmp_path / "cache"
    truss = ["truss_t01"]
    with FakeOpenAI(script(tasks)) as server:
        in_process(server, tasks, tmp_path / "a", cache, ids=truss)
        streamed = Session(tmp_path / "b", grading=GradingSettings(model="fake-vlm"),
                           transport_settings=TransportSettings(api_base=server.base_url,
                                                                timeout=10, stream=True),
                           policy=RetryPolicy(tries=2), api_key=fx.SECRET_KEY, resume=False,
                           cache=ResponseCache(cache))
        streamed.run([tasks["truss_t01"]], progress=False, echo=lambda _: None)
        assert len(server.calls) == 1  # how an answer arrives is not what it is
        in_process(server, tasks, tmp_path / "c", cache, ids=truss, temperature=0.5)
        in_process(server, tasks, tmp_path / "d", cache, ids=truss, lang="zh")
        in_process(server, tasks, tmp_path / "e", cache, ids=truss, prompt_type="strict")
        in_process(server, tasks, tmp_path / "f", cache, ids=truss, image_detail="low")
        assert len(server.calls) == 5
        in_process(server, tasks, tmp_path / "g", cache, ids=truss, tolerance=0.05)
        assert len(server.calls) == 5  # the tolerance grades; it does not ask


def test_the_key_is_in_no_cache_file_and_an_echoed_key_is_not_stored(data, tmp_path):
    _, tasks = data
    cache = tmp_path / "cache"
    with FakeOpenAI(script(tasks)) as server:
        in_process(server, tasks, tmp_path / "a", cache)
    with FakeOpenAI(Script(default=EchoAuth())) as server:
        summary = in_process(server, tasks, tmp_path / "b", cache, ids=["beam_t02"],
                             max_retries=0)
    files = [p for p in cache.rglob("*") if p.is_file()]
    assert files
    for path in files:
        assert fx.SECRET_KEY not in path.read_text(errors="replace")
        assert "Bearer" not in path.read_text(errors="replace")
    assert summary["cache"]["not_stored_secret"] == 1


class Holding:
    """Answers at once, except beam_t02 (second in id order), held until released."""

    def __init__(self, tasks):
        self.inner = script(tasks)
        self.hold = fx.image_sha(tasks["beam_t02"])
        self.release = threading.Event()

    def __call__(self, call: Call) -> Reply:
        if call.image_sha == self.hold:
            self.release.wait(30)
        return self.inner(call)


def test_kill_9_during_a_cached_run_leaves_a_usable_cache(data, tmp_path):
    data_dir, tasks = data
    cache = tmp_path / "cache"
    answers = Holding(tasks)
    with FakeOpenAI(answers) as server:
        proc = run_eval(*common(server, data_dir, tmp_path / "k", "--cache", "--cache-dir",
                                str(cache), "--concurrency", "1"), wait=False)
        kill_9_when(proc, lambda: any(c.image_sha == answers.hold for c in server.calls),
                    answers.release)
        entries = list((cache / "v2").rglob("*.json"))
        assert len(entries) == 2  # beam_t01's two answers (supports, then perfect)
        store = ResponseCache(cache)
        for path in entries:
            document = json.loads(path.read_text())
            assert StoredReply.from_json(document["reply"]) is not None
            request = CacheRequest(path.stem, json.dumps(
                document["request"], sort_keys=True, separators=(",", ":"), ensure_ascii=False))
            assert store.get(request) is not None
        before = len(server.calls)
        again = cached(server, data_dir, tmp_path / "again", cache)
        assert again.returncode == 0, again.stderr
        assert len(server.calls) - before == 3  # beam_t01 comes from the cache


def fake_request(k: int) -> CacheRequest:
    """The cache's view of a small made-up request number ``k``."""
    return cache_request(endpoint="http://127.0.0.1:1/v1", model="m",
                         messages=[{"role": "user", "content": f"q{k:04d}"}],
                         parameters={"temperature": 0.0}, run=0, attempt=1)


def _writer(root: str, k: int, text: str, rounds: int) -> None:
    store = ResponseCache(Path(root))
    reply = StoredReply(text, "stop", 1, 2, 3, "reported", None, None, None, None, 0.1)
    for _ in range(rounds):
        store.put(fake_request(k), reply)


def test_writers_in_parallel_processes_never_leave_a_torn_entry(tmp_path):
    """Four processes rewrite the same entries with answers of different lengths while this
    process reads them: every read is one complete answer or a miss, never a mix."""
    keys = [fake_request(k) for k in range(3)]
    texts = ["a" * 10, "b" * 50_000, "c" * 200_000, "d" * 5]
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), k % 3, texts[k], 40))
             for k in range(4)]
    for p in procs:
        p.start()
    store = ResponseCache(tmp_path)
    seen = 0
    while any(p.is_alive() for p in procs):
        for key in keys:
            got = store.get(key)
            if got is not None:
                assert got.reply.text in texts
                seen += 1
    for p in procs:
        p.join()
        assert p.exitcode == 0
    assert seen > 0
    assert not [p for p in tmp_path.rglob(".tmp-*")]  # every temporary file was renamed


def test_a_torn_or_foreign_file_is_a_miss_and_old_temporary_files_are_swept(tmp_path):
    store = ResponseCache(tmp_path, max_bytes=1 << 20)
    request = fake_request(1)
    key = request.key
    path = store.path(key)
    path.parent.mkdir(parents=True)
    path.write_text('{"format": 2, "key": "' + key + '", "reply": {"text": "x"')
    assert store.get(request) is None
    path.write_text(json.dumps({"format": 2, "key": "cd" * 32, "reply": {}}))
    assert store.get(request) is None  # another key's content
    temp = path.parent / ".tmp-1-2-deadbeef"
    temp.write_text("half")
    os.utime(temp, (time.time() - 7200, time.time() - 7200))
    fresh = path.parent / ".tmp-1-2-cafebabe"
    fresh.write_text("being written")
    store.evict()
    assert not temp.exists() and fresh.exists()


def test_the_bound_evicts_the_least_recently_used(tmp_path):
    """Entries of 1,609 bytes under a 12,000-byte bound: seven old entries (11,263 bytes, last
    used in order 0…6), entry 0 read again now, then three new ones. The 8th entry makes
    12,872 > 12,000: the least recently used go until ≤ 10,800 (1 and 2); the 10th again
    (3 and 4). Entry 0, read after 1…6 were written, survives."""
    store = ResponseCache(tmp_path, max_bytes=12_000)
    sized = ResponseCache(tmp_path / "probe")
    sized.put(fake_request(99), StoredReply("0000" + "x" * 1000, "stop", 1, 1, 2, "reported",
                                            None, None, None, None, 0.1))
    assert sized.size() == 1609

    def reply(k: int) -> StoredReply:
        return StoredReply(f"{k:04d}" + "x" * 1000, "stop", 1, 1, 2, "reported", None, None,
                           None, None, 0.1)

    keys = [fake_request(k) for k in range(10)]
    for k, key in enumerate(keys[:7]):
        store.put(key, reply(k))
        past = time.time() - 1000 + k  # a clear order of last use
        os.utime(store.path(key.key), (past, past))
    assert store.get(keys[0]) is not None  # used now: more recent than 1…6
    for k, key in enumerate(keys[7:], start=7):
        store.put(key, reply(k))
        assert store.size() <= 12_000
    assert store.evicted == 4
    alive = [k for k, key in enumerate(keys) if store.path(key.key).exists()]
    assert alive == [0, 5, 6, 7, 8, 9]


def test_keys_cover_what_decides_an_answer():
    image = "data:image/png;base64," + base64.b64encode(b"\x89PNG one").decode()
    other = "data:image/png;base64," + base64.b64encode(b"\x89PNG two").decode()
    messages = [{"role": "system", "content": "s"},
                {"role": "user", "content": [{"type": "text", "text": "t"},
                                             {"type": "image_url", "image_url": {"url": image}}]}]
    base = dict(endpoint="http://127.0.0.1:1/v1", model="m", messages=messages,
                parameters={"temperature": 0.0, "max_tokens": 10}, run=0, attempt=1)
    key = request_key(**base)
    assert key == request_key(**base) and len(key) == 64
    changed = [dict(base, endpoint="http://127.0.0.1:2/v1"), dict(base, model="n"),
               dict(base, parameters={"max_tokens": 10}), dict(base, run=1),
               dict(base, attempt=2),
               dict(base, messages=[messages[0], {"role": "user", "content": [
                   messages[1]["content"][0],
                   {"type": "image_url", "image_url": {"url": other}}]}])]
    assert len({request_key(**c) for c in changed} | {key}) == len(changed) + 1


def test_sizes_and_the_default_folder(monkeypatch, tmp_path):
    assert parse_size("2G") == 2 << 30 and parse_size("500M") == 500 << 20
    assert parse_size("64k") == 64 << 10 and parse_size("1000") == 1000
    with pytest.raises(ValueError):
        parse_size("lots")
    monkeypatch.delenv("STRUCTEVAL_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert default_root() == tmp_path / "structeval" / "responses"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert default_root() == Path.home() / ".cache" / "structeval" / "responses"


def test_an_unwritable_cache_folder_is_one_note_and_the_run_goes_on(data, tmp_path):
    data_dir, tasks = data
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    with FakeOpenAI(script(tasks)) as server:
        proc = cached(server, data_dir, tmp_path / "a", blocked / "cache", "--filter", "truss")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("cannot be written") == 1 and "Traceback" not in proc.stderr
