"""The response cache holds to its threat model (docs/cache-threat-model.md): a folder others
can write is no cache, an entry is served only if it is a regular file that carries this
request and a matching checksum, links are not followed, and a hit names its entry."""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path

import pytest

from structeval import private_folder
from structeval.harness.run.response_cache import (
    ResponseCache,
    StoredReply,
    cache_request,
    entry_checksum,
)
from tests.fakeserver import fixture as fx
from tests.fakeserver.process import common, run_eval
from tests.fakeserver.server import FakeOpenAI
from tests.test_response_cache import cached, in_process, results, script

REPLY = StoredReply("the answer", "stop", 1, 2, 3, "reported", None, None, None, None, 0.1)


def request(k: int):
    return cache_request(endpoint="http://127.0.0.1:1/v1", model="m",
                         messages=[{"role": "user", "content": f"question {k}"}],
                         parameters={"temperature": 0.0}, run=0, attempt=1)


def store(root: Path) -> tuple[ResponseCache, list[str]]:
    notes: list[str] = []
    return ResponseCache(root, warn=notes.append), notes


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> tuple[Path, dict[str, fx.FixtureTask]]:
    root = tmp_path_factory.mktemp("trust") / "data"
    return root, {t.id: t for t in fx.build_dataset(root)}


# ------------------------------------------------------------------ entries


def test_an_entry_for_another_request_or_with_a_wrong_checksum_is_a_miss_with_a_note(tmp_path):
    cache, notes = store(tmp_path / "c")
    assert cache.put(request(1), REPLY) and cache.put(request(2), REPLY)
    hit = cache.get(request(1))
    assert hit is not None and hit.reply.text == "the answer"
    assert hit.checksum == json.loads(cache.path(request(1).key).read_text())["checksum"]

    # request 2's entry, rewritten in the valid format as request 1's (key and checksum
    # recomputed), is still request 2's: a miss
    forged = json.loads(cache.path(request(2).key).read_text())
    forged["key"] = request(1).key
    forged["reply"]["text"] = "a perfect answer"
    forged["checksum"] = entry_checksum(forged)
    cache.path(request(1).key).write_text(json.dumps(forged))
    assert cache.get(request(1)) is None
    assert any("stored for another request" in n for n in notes)

    # request 2's own entry with its answer edited: the checksum no longer matches
    edited = json.loads(cache.path(request(2).key).read_text())
    edited["reply"]["text"] = "a perfect answer"
    cache.path(request(2).key).write_text(json.dumps(edited))
    assert cache.get(request(2)) is None and not cache.peek(request(2))
    assert any("checksum does not match" in n for n in notes)
    assert cache.stats()["rejected_entries"] >= 2
    assert len(notes) == 2  # one note per rejected entry, however often it is read


def _returns_within(call, seconds: float = 10.0):
    """``call()``'s result, asserting it came back (a FIFO read would block forever)."""
    box: list = []
    worker = threading.Thread(target=lambda: box.append(call()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), "the cache blocked on a non-regular file"
    return box[0]


def test_a_fifo_in_place_of_an_entry_is_a_miss_without_blocking(tmp_path):
    cache, notes = store(tmp_path / "c")
    cache.put(request(1), REPLY)
    path = cache.path(request(1).key)
    path.unlink()
    os.mkfifo(path)
    assert _returns_within(lambda: cache.get(request(1))) is None
    assert _returns_within(lambda: cache.peek(request(1))) is False
    assert "not a regular file" in notes[0]
    assert cache.put(request(1), REPLY)  # a new reply replaces the FIFO
    assert stat.S_ISREG(path.lstat().st_mode) and cache.get(request(1)) is not None


def test_a_symlinked_entry_is_not_followed(tmp_path):
    cache, notes = store(tmp_path / "c")
    elsewhere, _ = store(tmp_path / "elsewhere")
    elsewhere.put(request(1), REPLY)
    target = elsewhere.path(request(1).key)
    cache.path(request(1).key).parent.mkdir(parents=True, mode=0o700)
    cache.path(request(1).key).symlink_to(target)
    assert cache.get(request(1)) is None and "symbolic link" in notes[0]


def test_a_symlinked_subfolder_is_followed_neither_for_reads_nor_for_writes(tmp_path):
    cache, notes = store(tmp_path / "c")
    outside = tmp_path / "outside"
    outside.mkdir(mode=0o700)
    key = request(1).key
    (tmp_path / "c" / "v2").mkdir(parents=True, mode=0o700)
    (tmp_path / "c" / "v2" / key[:2]).symlink_to(outside)
    assert cache.put(request(1), REPLY) is False
    assert list(outside.iterdir()) == []  # nothing written through the link
    assert "cannot be written" in notes[0] and "symbolic link" in notes[0]
    other, _ = store(tmp_path / "o")
    other.put(request(1), REPLY)
    (outside / f"{key}.json").write_bytes(other.path(key).read_bytes())
    fresh, fresh_notes = store(tmp_path / "c")
    assert fresh.get(request(1)) is None  # a valid entry behind the link is not read
    assert "symbolic link" in fresh_notes[0]
    assert fresh.size() == 0  # nor counted, nor evicted


# ------------------------------------------------------------------ the folder


@pytest.mark.parametrize("bits", [stat.S_IWGRP, stat.S_IWOTH])
def test_a_cache_folder_others_can_write_is_no_cache(tmp_path, bits):
    root = tmp_path / "c"
    root.mkdir(mode=0o700)
    os.chmod(root, 0o700 | bits)
    cache, notes = store(root)
    assert cache.untrusted and len(notes) == 1 and "\n" not in notes[0]
    assert "writable by its group or by others" in notes[0] and "without a cache" in notes[0]
    assert cache.put(request(1), REPLY) is False and cache.get(request(1)) is None
    assert list(root.iterdir()) == []


def test_a_subfolder_others_can_write_is_not_trusted(tmp_path):
    cache, notes = store(tmp_path / "c")
    cache.put(request(1), REPLY)
    os.chmod(cache.path(request(1).key).parent, 0o777)
    assert cache.get(request(1)) is None and "writable by its group or by others" in notes[0]


@pytest.mark.skipif(os.geteuid() != 0, reason="changing a folder's owner needs root")
def test_a_cache_folder_of_another_user_is_no_cache(tmp_path):
    root = tmp_path / "c"
    root.mkdir(mode=0o700)
    os.chown(root, 65534, 65534)
    cache, notes = store(root)
    assert cache.untrusted and "belongs to another user" in notes[0]


def test_the_default_cache_checks_the_folders_up_to_the_cache_root(tmp_path, monkeypatch):
    monkeypatch.setenv("STRUCTEVAL_CACHE", str(tmp_path))
    (tmp_path / "structeval").mkdir(mode=0o700)
    os.chmod(tmp_path / "structeval", 0o775)
    cache, notes = store(None)  # type: ignore[arg-type]
    assert cache.untrusted and str(tmp_path / "structeval") in notes[0]


def test_folders_are_created_private_whatever_the_umask(tmp_path):
    old = os.umask(0o002)
    try:
        cache, _ = store(tmp_path / "a" / "b" / "c")
        assert cache.put(request(1), REPLY)
    finally:
        os.umask(old)
    for folder in (tmp_path / "a", tmp_path / "a" / "b", tmp_path / "a" / "b" / "c",
                   cache.path(request(1).key).parent):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    assert private_folder.untrusted_reason(cache.path(request(1).key).parent, tmp_path) is None


def test_where_ownership_cannot_be_checked_there_is_no_cache(tmp_path, monkeypatch):
    """A platform without geteuid or dir_fd calls (Windows): a warning and no cache, and the
    descriptor walk refuses with a sentence instead of failing inside os.open."""
    monkeypatch.setattr(private_folder, "SUPPORTED", False)
    cache, notes = store(tmp_path / "c")
    assert cache.untrusted and "cannot check who may write" in notes[0]
    assert cache.put(request(1), REPLY) is False and not (tmp_path / "c").exists()
    with pytest.raises(private_folder.UntrustedFolder):
        private_folder.open_folder(tmp_path, ["x"], create=True)


# ------------------------------------------------------------------ runs


def _entry_of(cache: Path, task: fx.FixtureTask, attempt: int) -> Path:
    sha = fx.image_sha(task)
    for path in (cache / "v2").rglob("*.json"):
        document = json.loads(path.read_text())
        if sha in json.dumps(document["request"]) and document["request"]["attempt"] == attempt:
            return path
    raise AssertionError(f"no entry of {task.id} attempt {attempt}")


def test_a_run_never_serves_a_poisoned_entry_and_names_the_entries_it_serves(data, tmp_path):
    """beam_t01's first answer is wrong (pass@1 < 100 %). Its entry edited to the perfect
    answer (checksum now wrong), and frame_t01's entry replaced by beam_t02's rewritten in
    the valid format: both are misses, sent again, and the scores do not move."""
    _, tasks = data
    cache = tmp_path / "cache"
    with FakeOpenAI(script(tasks)) as server:
        first = in_process(server, tasks, tmp_path / "a", cache)
        beam = _entry_of(cache, tasks["beam_t01"], 1)
        edited = json.loads(beam.read_text())
        edited["reply"]["text"] = fx.tagged(fx.GT_MODELS["beam_t01"])
        beam.write_text(json.dumps(edited))
        frame = _entry_of(cache, tasks["frame_t01"], 1)
        forged = json.loads(_entry_of(cache, tasks["beam_t02"], 1).read_text())
        forged["key"] = frame.stem
        forged["checksum"] = entry_checksum(forged)
        frame.write_text(json.dumps(forged))
        sent = len(server.calls)
        second = in_process(server, tasks, tmp_path / "b", cache)
        assert len(server.calls) - sent == 2  # the two poisoned entries were asked again
    assert first["pass_at_1_weighted_accuracy"] < 100
    assert second["pass_at_1_weighted_accuracy"] == first["pass_at_1_weighted_accuracy"]
    assert second["cache"]["rejected_entries"] == 2 and second["cache"]["hits"] == 3
    attempts = [r for r in map(json.loads, (tmp_path / "b" / "trace.jsonl").read_text()
                               .splitlines()) if r["type"] == "attempt"]
    checksums = {json.loads(p.read_text())["checksum"] for p in (cache / "v2").rglob("*.json")}
    served = [r["response"] for r in attempts if r["response"]["cache"] == "hit"]
    assert len(served) == 3 and {r["cache_checksum"] for r in served} <= checksums
    assert all("cache_checksum" not in r["response"] for r in attempts
               if r["response"]["cache"] == "miss")


def test_fifo_entries_hang_neither_a_run_nor_a_dry_run(data, tmp_path):
    data_dir, tasks = data
    cache = tmp_path / "cache"
    with FakeOpenAI(script(tasks)) as server:
        in_process(server, tasks, tmp_path / "a", cache, ids=["truss_t01"])
        entries = list((cache / "v2").rglob("*.json"))
        assert entries
        for path in entries:
            path.unlink()
            os.mkfifo(path)
        dry = cached(server, data_dir, tmp_path / "d", cache, "--filter", "truss", "--dry-run")
        again = cached(server, data_dir, tmp_path / "b", cache, "--filter", "truss")
    assert dry.returncode == 0 and "0 of them answered by the response cache" in dry.stdout
    assert "not a regular file" in dry.stderr  # the FIFO was looked at, and not waited on
    assert again.returncode == 0, again.stderr
    assert "not a regular file" in again.stderr and "Traceback" not in again.stderr
    assert results(tmp_path / "b")["summary"]["cache"]["rejected_entries"] >= 1


def test_run_eval_with_a_group_writable_cache_dir_warns_once_and_runs_without_a_cache(
        data, tmp_path):
    data_dir, tasks = data
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    os.chmod(cache, 0o770)
    with FakeOpenAI(script(tasks)) as server:
        proc = run_eval(*common(server, data_dir, tmp_path / "a", "--cache", "--cache-dir",
                                str(cache), "--filter", "truss"))
    assert proc.returncode == 0, proc.stderr
    warnings = [line for line in proc.stderr.splitlines() if "response cache" in line]
    assert len(warnings) == 1 and "is not used" in warnings[0]
    assert "Traceback" not in proc.stderr and list(cache.iterdir()) == []
    assert results(tmp_path / "a")["summary"]["cache"] is None
