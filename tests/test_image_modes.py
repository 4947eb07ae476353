"""Issue 18 item 3: ``--image-mode fit|tiles``.

The tile boxes must cover the sheet with the stated overlap and stay within the token
budget; a tile must be the native pixels of its labelled box; a run in tiles mode must
send the overview and the labelled tiles, record them in the trace and run.json, and
never share a cache entry with a fit run.
"""

from __future__ import annotations

import base64
import dataclasses
import io
import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from structeval.harness import GradingSettings, ResponseCache, RetryPolicy, Session
from structeval.harness.common.settings import TransportSettings
from structeval.harness.common.trace import read_trace
from structeval.harness.inputs.tiles import (
    MAX_TILES,
    OVERVIEW_SIDE,
    TILE_OVERLAP,
    TILE_SIDE,
    axis_spans,
    tile_boxes,
    tile_sheet,
)
from structeval.harness.run.cost import image_tokens
from tests.fakeserver import fixture as fx
from tests.fakeserver.process import common, run_eval
from tests.fakeserver.server import Answer, FakeOpenAI, Script

#: the images of one tiles request stay under this many tokens (docs/image-modes.md)
TOKEN_BUDGET = (MAX_TILES + 1) * 765


def _covered(spans: list[tuple[int, int]], length: int, overlap: int) -> None:
    """The windows start at 0, end at ``length`` and each overlaps the next by ``overlap``
    pixels or more (so every pixel is in one)."""
    assert spans[0][0] == 0 and spans[-1][0] + spans[-1][1] == length
    for (a, wa), (b, _) in itertools.pairwise(spans):
        assert b > a and a + wa - b >= overlap
    assert all(start >= 0 and start + size <= length for start, size in spans)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 30000), st.integers(1, 30000))
def test_tile_boxes_cover_the_sheet_with_the_stated_overlap(width, height):
    boxes = tile_boxes(width, height)
    assert 1 <= len(boxes) <= MAX_TILES
    columns = sorted({(b.x, b.width) for b in boxes})
    rows = sorted({(b.y, b.height) for b in boxes})
    assert len(boxes) == len(columns) * len(rows)  # a grid: every column meets every row
    side = max(b.width for b in boxes) if width > TILE_SIDE else TILE_SIDE
    grown = TILE_OVERLAP + (side - TILE_SIDE) * TILE_OVERLAP // TILE_SIDE
    _covered(columns, width, grown if len(columns) > 1 else 0)
    _covered(rows, height, grown if len(rows) > 1 else 0)
    native = len(axis_spans(width, TILE_SIDE, TILE_OVERLAP)) * len(
        axis_spans(height, TILE_SIDE, TILE_OVERLAP)) <= MAX_TILES
    if native:  # at native scale whenever the budget allows it
        assert all(b.width <= TILE_SIDE and b.height <= TILE_SIDE for b in boxes)


def test_a_wide_sheet_is_cut_into_the_fewest_overlapping_native_tiles():
    assert axis_spans(1600, 768, 96) == [(0, 768), (416, 768), (832, 768)]
    assert axis_spans(768, 768, 96) == [(0, 768)]
    assert axis_spans(769, 768, 96) == [(0, 768), (1, 768)]
    boxes = tile_boxes(1600, 711)
    assert [(b.x, b.y, b.width, b.height) for b in boxes] == [
        (0, 0, 768, 711), (416, 0, 768, 711), (832, 0, 768, 711)]


def _noise(width: int, height: int, path: Path) -> Path:
    """A deterministic sheet whose every pixel differs from its neighbours' (a tile taken
    from the wrong place cannot match)."""
    y, x, c = np.mgrid[0:height, 0:width, 0:3]
    Image.fromarray(((x * 7 + y * 13 + c * 101) % 251).astype(np.uint8), "RGB").save(path)
    return path


def _decoded(url: str) -> Image.Image:
    return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))


def test_each_tile_is_the_native_pixels_of_its_labelled_box(tmp_path):
    path = _noise(1000, 800, tmp_path / "sheet.png")
    sheet = tile_sheet(path)
    native = Image.open(path).convert("RGB")
    assert len(sheet.tiles) == 4  # 2 columns x 2 rows
    for tile in sheet.tiles:
        box = tile.box
        assert f"x {box.x}-{box.x + box.width}, y {box.y}-{box.y + box.height}" in tile.label
        sent = _decoded(tile.image.data_url).convert("RGB")
        assert sent.tobytes() == native.crop(box.corners()).tobytes()
    assert sheet.overview.pixels == (1000, 800)  # it already fits
    assert "1000 x 800" in sheet.intro and "4 overlapping tiles" in sheet.intro
    again = tile_sheet(path)
    assert [t.image.sha256 for t in again.tiles] == [t.image.sha256 for t in sheet.tiles]
    assert again.overview.sha256 == sheet.overview.sha256


@pytest.mark.parametrize("size", [(1600, 711), (4000, 3000), (20000, 200)])
def test_the_images_of_a_tiles_request_stay_within_the_token_budget(tmp_path, size):
    path = tmp_path / "big.png"
    Image.new("L", size, 255).save(path)
    sheet = tile_sheet(path)
    sizes = [sheet.overview.pixels] + [t.image.pixels for t in sheet.tiles]
    assert all(max(s) <= max(TILE_SIDE, OVERVIEW_SIDE) for s in sizes)
    assert sum(image_tokens(w, h, "high") for w, h in sizes) <= TOKEN_BUDGET
    if size == (4000, 3000):  # 6 x 5 native tiles would be over budget: larger boxes
        assert len(sheet.tiles) <= MAX_TILES and "shown at" in sheet.tiles[0].label


def test_an_unreadable_image_is_an_image_error(tmp_path):
    from structeval.harness.inputs.images import ImageError

    path = tmp_path / "broken.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 40)
    with pytest.raises(ImageError, match="cannot be decoded"):
        tile_sheet(path)


# ---------------------------------------------------------------- a run in tiles mode


@pytest.fixture(scope="module")
def big_task(tmp_path_factory):
    root = tmp_path_factory.mktemp("tiles") / "data"
    task = fx.build_dataset(root, ["beam_t02"])[0]
    image = _noise(1600, 700, root / "big.png")
    return dataclasses.replace(task, image_path=image)


def _session(out: Path, server, mode: str, cache: ResponseCache) -> Session:
    grading = GradingSettings(model="fake-vlm", max_retries=0, image_mode=mode)
    return Session(out, grading=grading,
                   transport_settings=TransportSettings(api_base=server.base_url, timeout=10),
                   policy=RetryPolicy(tries=2, base_delay=0.001, max_delay=0.002),
                   api_key=fx.SECRET_KEY, resume=False, cache=cache)


def test_a_tiles_run_sends_the_overview_and_labelled_tiles_and_records_them(big_task,
                                                                           tmp_path):
    answer = Answer(fx.tagged(fx.GT_MODELS["beam_t02"]))
    cache = ResponseCache(tmp_path / "cache")
    with FakeOpenAI(Script(default=answer)) as server:
        outcome = _session(tmp_path / "t", server, "tiles", cache).run(
            [big_task], progress=False, echo=lambda _: None)
        content = server.calls[0].body["messages"][1]["content"]
        _session(tmp_path / "t2", server, "tiles", cache).run(
            [big_task], progress=False, echo=lambda _: None)
        after_tiles = len(server.calls)
        _session(tmp_path / "f", server, "fit", cache).run(
            [big_task], progress=False, echo=lambda _: None)
        fit_content = server.calls[-1].body["messages"][1]["content"]
        calls = len(server.calls)
    assert outcome.results[0].status == "scored"
    kinds = [p["type"] for p in content]
    assert kinds == ["text", "text", "image_url"] + ["text", "image_url"] * 3
    assert _decoded(content[2]["image_url"]["url"]).size == (1024, 448)
    assert content[3]["text"] == "Tile 1 of 3: x 0-768, y 0-700 (full size)."
    assert [_decoded(p["image_url"]["url"]).size for p in content[4::2]] == [(768, 700)] * 3
    assert after_tiles == 1  # the second tiles run is answered by the cache
    assert calls == 2 and [p["type"] for p in fit_content] == ["text", "image_url"]
    records, _ = read_trace(tmp_path / "t" / "trace.jsonl")
    attempt = next(r for r in records if r["type"] == "attempt")
    assert [t["box"] for t in attempt["tiles"]] == [[0, 0, 768, 700], [416, 0, 768, 700],
                                                   [832, 0, 768, 700]]
    assert "base64" not in str(attempt)
    run_json = (tmp_path / "t" / "run.json").read_text()
    assert '"image_mode": "tiles"' in run_json


def test_tiles_with_a_dxf_run_is_a_usage_error(tmp_path):
    with FakeOpenAI(Script()) as server:
        done = run_eval(*common(server, tmp_path / "data", tmp_path / "o"), "--modality",
                        "dxf", "--image-mode", "tiles")
        assert not server.calls
    assert done.returncode == 2
    assert "--image-mode tiles needs --modality image" in done.stderr
    assert "Traceback" not in done.stderr


# ---------------------------------------------------------------- reports across modes


def _runs_in_two_modes(tmp_path):
    from tests.test_factors_compare import write

    a, b = write(tmp_path / "a", 2), write(tmp_path / "b", 3)
    manifest = json.loads((a / "run.json").read_text())
    manifest["grading"]["image_mode"] = "tiles"
    (a / "run.json").write_text(json.dumps(manifest))
    return a, b


def test_compare_pairs_a_tiles_run_with_a_fit_run(tmp_path):
    from structeval.reports.compare import compare_runs, format_comparison
    from structeval.reports.runfiles import load_results

    a, b = _runs_in_two_modes(tmp_path)
    c = compare_runs(load_results(a), load_results(b))
    text = format_comparison(c)
    assert "(1 run, image, tiles)" in text.splitlines()[0]
    assert "(1 run, image)" in text.splitlines()[1]
    assert "Image mode: A tiles, B fit" in text
    data = c.to_json()
    assert (data["a"]["image_mode"], data["b"]["image_mode"]) == ("tiles", "fit")
    assert not c.modalities.differ  # the same images: task fingerprints were compared


def test_the_leaderboard_shows_each_image_mode_in_its_row(tmp_path):
    from structeval.reports.leaderboard import leaderboard
    from structeval.reports.runfiles import load_results

    a, b = _runs_in_two_modes(tmp_path)
    rows = {line.split(" | ")[1]: line for line in
            leaderboard([load_results(a), load_results(b)]).splitlines()
            if line.startswith("| 1 ") or line.startswith("| 2 ")}
    assert "| image, tiles |" in rows["m2"]
    assert "tiles" not in rows["m3"]


def test_tiles_go_through_the_batch_api(big_task, tmp_path):
    """A job line holds the whole tiles message; the first attempt is answered by the job."""
    from structeval.harness.run.batch import BatchSettings
    from tests.fakeserver.batch_api import BatchAPI

    api = BatchAPI(polls_until_done=1)
    grading = GradingSettings(model="fake-vlm", max_retries=0, image_mode="tiles")
    with FakeOpenAI(Script(default=Answer(fx.tagged(fx.GT_MODELS["beam_t02"]))),
                    routes=api) as server:
        outcome = Session(tmp_path / "b", grading=grading,
                          transport_settings=TransportSettings(api_base=server.base_url,
                                                               timeout=10),
                          policy=RetryPolicy(tries=2, base_delay=0.001, max_delay=0.002),
                          api_key=fx.SECRET_KEY, resume=False, sleep=lambda s: None,
                          batch=BatchSettings(poll_s=0.001)).run(
            [big_task], progress=False, echo=lambda _: None)
        live = [c for c in server.calls if c not in api.line_calls]
    assert outcome.results[0].status == "scored" and not live
    content = api.line_calls[0].body["messages"][1]["content"]
    assert [p["type"] for p in content].count("image_url") == 4  # overview and 3 tiles
    records, _ = read_trace(tmp_path / "b" / "trace.jsonl")
    assert [r["response"]["cache"] for r in records if r["type"] == "attempt"] == ["batch"]
