"""Hostile inputs of round 3 (issue 21, minor items): a DXF of random bytes is not text, a
ground_truth_meta/ linked out of the data folder is not written through, and a truncated
2-million-character answer costs bounded repair work."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from structeval.harness.answers import extract
from structeval.harness.inputs.task_input import DxfError, read_dxf
from tests.fakeserver import fixture as fx
from tests.fakeserver.process import ROOT, common, run_eval
from tests.fakeserver.server import Answer, FakeOpenAI, Script


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> tuple[Path, dict[str, fx.FixtureTask]]:
    root = tmp_path_factory.mktemp("inputs") / "data"
    return root, {t.id: t for t in fx.build_dataset(root, dxf=["beam_t01", "frame_t01"])}


def _random_text_free_bytes(n: int, seed: int) -> bytes:
    """Random bytes without NUL (the case a NUL check alone lets through)."""
    rng = random.Random(seed)
    return bytes(rng.randrange(1, 256) for _ in range(n))


# ------------------------------------------------------------------ DXF


@pytest.mark.parametrize("seed", range(5))
def test_random_non_nul_bytes_are_not_a_text_dxf(tmp_path, seed):
    path = tmp_path / "t.dxf"
    path.write_bytes(_random_text_free_bytes(4096, seed))
    with pytest.raises(DxfError, match="is not a text DXF file"):
        read_dxf(path)


def test_text_dxf_files_still_read_in_utf8_and_cp1252(tmp_path):
    utf8 = tmp_path / "u.dxf"
    utf8.write_bytes("\ufeff  0\nSECTION\n  2\nENTITIES\n  1\n跨度 4 m\n  0\nEOF\n".encode())
    assert "跨度" in read_dxf(utf8).text
    ansi = tmp_path / "a.dxf"  # an old AutoCAD ANSI file: a degree sign, CR LF, Ctrl-Z
    ansi.write_bytes(b"999\r\nmade by hand\r\n  0\r\nSECTION\r\n  1\r\n30\xb0\r\n"
                     b"  0\r\nEOF\r\n\x1a")
    assert "30°" in read_dxf(ansi).text
    prose = tmp_path / "p.dxf"
    prose.write_text("Dear model, here is my structure.\n")
    with pytest.raises(DxfError, match="starting with a group code"):
        read_dxf(prose)


def test_a_random_bytes_dxf_makes_its_task_unavailable_and_nothing_is_sent(data, tmp_path):
    data_dir, tasks = data
    copy = tmp_path / "data"
    shutil.copytree(data_dir, copy)
    dxf = copy / "images" / Path(tasks["beam_t01"].dxf_path).name
    dxf.write_bytes(_random_text_free_bytes(20_000, 7))
    script = Script().on(fx.dxf_sha(tasks["frame_t01"]), 1,
                         Answer(fx.tagged(fx.GT_MODELS["frame_t01"])))
    with FakeOpenAI(script) as server:
        proc = run_eval(*common(server, copy, tmp_path / "run", "--modality", "dxf"))
        sent = {c.image_sha for c in server.calls}
    assert "Traceback" not in proc.stderr
    assert sent == {fx.dxf_sha(tasks["frame_t01"])}  # beam_t01's bytes were never sent
    rows = {r["id"]: r for r in json.loads((tmp_path / "run" / "results.json").read_text())[
        "tasks"]}
    assert rows["beam_t01"]["status"] == "unavailable"
    assert "is not a text DXF file" in rows["beam_t01"]["reason"]
    assert rows["frame_t01"]["status"] != "unavailable"


# ------------------------------------------------------------------ generate_gt


def test_generate_gt_refuses_a_ground_truth_meta_folder_linked_out_of_the_data(data, tmp_path):
    copy = tmp_path / "data"
    shutil.copytree(data[0], copy)
    outside = tmp_path / "elsewhere"
    shutil.move(copy / "ground_truth_meta", outside)
    (outside / "keep.json").write_text("{}\n")  # an orphan generate_gt would delete
    (outside / "beam_t01.json").write_text('{"stale": true}\n')
    (copy / "ground_truth_meta").symlink_to(outside, target_is_directory=True)
    before = {p.name: p.read_bytes() for p in outside.iterdir()}
    proc = subprocess.run([sys.executable, "tools/generate_gt.py", "--data", str(copy),
                           "--no-progress"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "ground_truth_meta: is a symbolic link" in errors[0]
    assert {p.name: p.read_bytes() for p in outside.iterdir()} == before  # nothing touched


# ------------------------------------------------------------------ json-repair bound


def _cut_in_a_string(n: int) -> str:
    """An answer cut at ``n`` characters inside a string: json_repair's quadratic case."""
    return ('<json>{"points": {"A": [0, 0], "B": [4, 0]}, "links": {}, "note": "'
            + "x" * n)[:n]


def test_a_2_million_character_truncated_answer_costs_bounded_repair_work(monkeypatch):
    """Counting work: json_repair is handed at most MAX_REPAIR_CHARS characters for the
    2,000,000-character answer (before: all of them, 73 s of CPU), and the answer is still
    read as the cut JSON it is; a generous CPU bound backs the count."""
    handed: list[int] = []
    real = extract.json_repair.loads

    def counting(text, *args, **kwargs):
        handed.append(len(text))
        return real(text, *args, **kwargs)

    monkeypatch.setattr(extract.json_repair, "loads", counting)
    small = extract.extract_json(_cut_in_a_string(20_000))
    assert handed and small.repaired and small.document["points"]["B"] == [4, 0]
    handed.clear()
    started = time.process_time()
    found = extract.extract_json(_cut_in_a_string(2_000_000))
    spent = time.process_time() - started
    assert sum(handed) <= extract.MAX_REPAIR_CHARS
    assert found.repaired and found.document["points"]["B"] == [4, 0]
    assert len(found.document["note"]) > 1_900_000
    assert spent < 5.0, f"{spent:.1f} s of CPU for the 2 M answer"
