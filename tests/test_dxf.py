"""DXF drawings (the ``dxf`` modality): the image's drawing, as CAD entities.

For beams, frames and trusses (shipped ones, classics and hard structures) in both
symbol sets and every drawing style: the DXF opens with ``ezdxf.readfile`` and
``ezdxf.recover`` finds no error; it carries every dimension and label text of the
image (the same strings); one similarity, fitted to the members' end points, carries
every support, hinge, arrow, arc, tick, extension line and text of the DXF onto the
image's glyph positions (checked numerically); its layers are the documented ones,
each holding only the documented entity kinds; the same input gives the same bytes.
Then the dataset side: the store writes ``<id>.dxf`` beside the image when the
problem asks for one, ``--render-missing`` draws missing ones and leaves existing
ones untouched, and the tools write DXF on request.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

ezdxf = pytest.importorskip("ezdxf", reason="writing DXF needs ezdxf (requirements.txt)")

from click.testing import CliRunner  # noqa: E402

from structeval.dataset import DATA_DIR, load_tasks  # noqa: E402
from structeval.dataset.ground_truth import generate  # noqa: E402
from structeval.dataset.rawfile import presentation_of, read_raw, render_document  # noqa: E402
from structeval.dataset.store import add_dxf, render_missing, with_dxf, write_problem  # noqa: E402
from structeval.generation.classics import classic_problems  # noqa: E402
from structeval.generation.generator import synthesize  # noqa: E402
from structeval.generation.selection import HARD  # noqa: E402
from structeval.model import Model, parse_model  # noqa: E402
from structeval.presentation import Presentation  # noqa: E402
from structeval.render import layout_model  # noqa: E402
from structeval.render.cad.dxf import drawing_units, render_dxf, render_with_dxf, scene_dxf  # noqa: E402
from structeval.render.cad.dxf_layers import LAYER_NAMES, LAYERS  # noqa: E402
from structeval.render.cad.dxf_text import TEXT_STYLES, style_for  # noqa: E402
from structeval.render.compose.figure import build_scene  # noqa: E402
from structeval.render.scene.result import FigureLayout  # noqa: E402

from .conftest import ROOT  # noqa: E402
from .dxf_reading import DxfPoints, nearest, open_dxf, read_points, similarity  # noqa: E402
from .tool_modules import load_tool  # noqa: E402

TOL = 1e-3  # image px: the DXF is rounded to 1e-9 drawing units, the record is exact


def _shipped(category: str, n: int, classic: bool = False) -> list[tuple[str, Model, dict]]:
    out = []
    for path in sorted((DATA_DIR / "raw_models").glob(f"{category}-*.json")):
        if ("classic" in path.stem) != classic:
            continue
        _, block, model = read_raw(path)
        out.append((block["id"], model, block))
        if len(out) == n:
            break
    return out


@pytest.fixture(scope="module")
def figures() -> list[tuple[str, Model, dict]]:
    """Two generated and one classic of each category, plus one hard structure of each."""
    picked = []
    for category in ("beam", "frame", "truss"):
        picked += _shipped(category, 2) + _shipped(category, 1, classic=True)
    hard: dict[str, Any] = {}
    for problem in synthesize(12, seed=5, selection=HARD):
        category = problem.block["category"]
        if category not in hard and problem.id != "truss-hard-s5-0005":
            hard[category] = (problem.id, parse_model(render_document(problem.block,
                                                                      problem.model)),
                              problem.block)
    return picked + [hard[c] for c in ("beam", "frame", "truss")]


def _cases(figures: list[tuple[str, Model, dict]]):  # type: ignore[no-untyped-def]
    """Each figure in its own style with both symbol sets, and in every other style once
    (the styles rotate over the figures)."""
    styles = ("cad", "textbook", "scanned")
    for i, (pid, model, block) in enumerate(figures):
        shown = presentation_of(block)
        for symbols in ("a", "b"):
            yield pid, model, block["image"]["style"], block["image"]["seed"], \
                shown.with_(symbols=symbols)
        other = styles[i % 3] if styles[i % 3] != block["image"]["style"] else styles[(i + 1) % 3]
        yield pid, model, other, 7, shown


def _expected(layout: FigureLayout) -> list[tuple[str, tuple[float, float], str, tuple[str, ...]]]:
    """(what, image point, pool, layers) for every glyph point the DXF must have:
    pool "vertex" (an end or corner of an entity), "centre" (of a circle or arc),
    "tick" (of a DIMENSION)."""
    out = []
    for it in layout.layout:
        g = it.glyph
        if g is None:
            continue
        who = f"{g.type} {it.owner}"
        if g.type == "member":
            out += [(who, p, "vertex", ("MEMBERS",)) for p in g.paths["ends"]]
        elif g.type == "hinge":
            out.append((who, g.points["centre"], "centre", ("HINGES",)))
        elif g.type == "support":
            out += [(f"{who} ground", p, "vertex", ("SUPPORTS",)) for p in g.paths["ground_line"]]
            out += [(f"{who} bar", p, "centre", ("SUPPORTS",))
                    for p in g.paths.get("bar_ground", ())]
            out += [(f"{who} bar top", p, "centre", ("SUPPORTS", "HINGES"))
                    for p in g.paths.get("bar_joint", ())]
        elif g.type == "angle":
            out.append((who, g.points["vertex"], "centre", ("ANGLES",)))
        elif g.type == "arrow":
            out += [(f"{who} {k}", g.points[k], "vertex", ("LOADS",)) for k in ("tail", "tip")]
        elif g.type == "row":
            out += [(f"{who} {k}", p, "vertex", ("LOADS",)) for k in ("tails", "tips")
                    for p in g.paths[k]]
        elif g.type == "couple":
            out.append((who, g.points["centre"], "centre", ("LOADS",)))
            out.append((f"{who} tip", g.points["tip"], "vertex", ("LOADS",)))
        elif g.type == "break":
            out += [(f"{who} {k}", g.points[k], "vertex", ("OTHER",)) for k in ("at", "end")]
            out += [(f"{who} line", p, "vertex", ("OTHER",)) for p in g.paths["line"]]
        elif g.type == "chain":
            out += [(f"{who} tick", p, "tick", ("DIMENSIONS",)) for p in g.paths["ticks"]]
            out += [(f"{who} extension", p, "vertex", ("DIMENSIONS",))
                    for p in g.paths["ext_inner"]]
    return out


def _check_geometry(layout: FigureLayout, dxf: DxfPoints) -> list[str]:
    members = [it.glyph.paths["ends"] for it in layout.layout
               if it.glyph is not None and it.glyph.type == "member"]
    assert len(members) == len(dxf.members)
    sim = similarity([p for seg in dxf.members for p in seg], [p for seg in members for p in seg])
    problems = [] if sim.residual < TOL else [f"members fit with residual {sim.residual}"]
    pools = {"vertex": dxf.by_layer, "centre": dxf.centres}
    for what, p, pool, layers in _expected(layout):
        if pool == "tick":
            candidates = [sim(q) for q in dxf.ticks]
        else:
            candidates = [sim(q) for layer in layers for q in pools[pool].get(layer, [])]
        d = nearest(candidates, p)
        if d > TOL:
            problems.append(f"{what} at {p}: nearest DXF {pool} {d:.4f} px away")
    for it in layout.layout:
        if it.kind != "label":
            continue
        x0, y0, x1, y1 = it.bbox
        here = [sim(q) for text, q, _ in dxf.texts if text == it.text]
        if nearest(here, ((x0 + x1) / 2, (y0 + y1) / 2)) > TOL:
            problems.append(f"text {it.text!r} is not at its image place")
    return problems


def test_dxf_is_the_image_drawing(figures: list[tuple[str, Model, dict]]) -> None:
    """The core evidence, over every case: opens cleanly, same texts, same geometry,
    documented layers and entity kinds, same bytes when drawn again."""
    documented = {layer.name: set(layer.entities) for layer in LAYERS}
    failures = []
    cases = 0
    for pid, model, style, seed, shown in _cases(figures):
        cases += 1
        tag = f"{pid} {style} symbols={shown.symbols}"
        drawing = render_dxf(model, style, presentation=shown)
        layout = layout_model(model, style=style, seed=seed, presentation=shown)
        _, auditor = open_dxf(drawing.data)
        if auditor.has_errors:
            failures.append(f"{tag}: ezdxf.recover: {auditor.errors[:3]}")
        doc, points = read_points(drawing.data)
        image_texts = Counter(it.text for it in layout.layout if it.kind == "label")
        dxf_texts = Counter(text for text, _, _ in points.texts)
        if image_texts != dxf_texts:
            failures.append(f"{tag}: texts differ: image only {image_texts - dxf_texts}, "
                            f"DXF only {dxf_texts - image_texts}")
        failures += [f"{tag}: {p}" for p in _check_geometry(layout, points)]
        layers = {layer.dxf.name for layer in doc.layers} - {"0", "Defpoints"}
        if layers != set(LAYER_NAMES):
            failures.append(f"{tag}: layers {sorted(layers)}")
        for layer, kinds in points.kinds.items():
            if not kinds <= documented.get(layer, set()):
                failures.append(f"{tag}: layer {layer} holds {sorted(kinds)}")
        chains = [it.glyph for it in layout.layout if it.glyph is not None
                  and it.glyph.type == "chain"]
        dims = [e for e in doc.modelspace() if e.dxftype() == "DIMENSION"]
        if len(dims) != sum(len(g.paths["ticks"]) - 1 for g in chains):
            failures.append(f"{tag}: {len(dims)} DIMENSIONs for {len(chains)} chains")
        if render_dxf(model, style, presentation=shown).data != drawing.data:
            failures.append(f"{tag}: a second drawing gives other bytes")
    assert cases == 3 * len(figures) == 36
    assert not failures, f"{len(failures)} problem(s):\n" + "\n".join(failures[:30])


def test_a_beam_in_two_rows_is_the_image_drawing() -> None:
    """A beam drawn in two rows (render.compose.rows): both rows, their break marks (layer
    OTHER) and every text of the image are in the DXF where the image has them."""
    _, block, model = read_raw(DATA_DIR / "raw_models" / "beam-hard-s22-0000.json")
    shown = presentation_of(block)
    layout = layout_model(model, seed=block["image"]["seed"], presentation=shown)
    assert len([it for it in layout.layout if it.kind == "break"]) == 2
    drawing = render_dxf(model, presentation=shown, seed=block["image"]["seed"])
    _, points = read_points(drawing.data)
    assert Counter(text for text, _, _ in points.texts) == Counter(
        it.text for it in layout.layout if it.kind == "label")
    assert _check_geometry(layout, points) == []
    assert points.kinds["OTHER"] == {"LINE", "LWPOLYLINE"}


def test_dxf_file_opens_with_readfile_and_has_world_units(tmp_path: Path) -> None:
    """A CAD user's view: ``ezdxf.readfile`` on the saved file; the members are at the
    model's coordinates in metres ($INSUNITS 6), y up; the DIMENSIONs measure what
    their texts say."""
    _, model, block = _shipped("frame", 1)[0]
    drawing = render_dxf(model, block["image"]["style"], presentation=presentation_of(block))
    path = drawing.save(tmp_path / "f.dxf")
    doc = ezdxf.readfile(path)
    assert doc.header["$INSUNITS"] == 6 and drawing.units.name == "m"
    ends = {(round(e.dxf.start[0], 6), round(e.dxf.start[1], 6)) for e in
            doc.modelspace().query('LINE[layer=="MEMBERS"]')} | {
        (round(e.dxf.end[0], 6), round(e.dxf.end[1], 6)) for e in
        doc.modelspace().query('LINE[layer=="MEMBERS"]')}
    assert ends == {(round(p.x, 6), round(p.y, 6)) for p in model.points}
    for dim in doc.modelspace().query("DIMENSION"):
        value = float(dim.dxf.text.split()[0])
        assert dim.get_measurement() == pytest.approx(value, abs=1e-6), dim.dxf.text
    lo, hi = doc.header["$EXTMIN"], doc.header["$EXTMAX"]
    assert all(lo[0] <= p.x <= hi[0] and lo[1] <= p.y <= hi[1] for p in model.points)


def test_same_input_same_bytes_whatever_the_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Dates and GUIDs are fixed: a drawing made 'years later' has the same bytes, and
    ezdxf's own option is left as it was."""
    import datetime as real

    _, model, _ = _shipped("beam", 1)[0]
    first = render_dxf(model, "cad").data
    before = ezdxf.options.write_fixed_meta_data_for_testing

    class Later(real.datetime):
        @classmethod
        def now(cls, tz: Any = None) -> real.datetime:
            return real.datetime(2031, 5, 17, 3, 4, 5, tzinfo=tz)

    monkeypatch.setattr(ezdxf.document, "datetime", Later)
    assert render_dxf(model, "cad").data == first
    assert ezdxf.options.write_fixed_meta_data_for_testing == before
    text = first.decode("utf-8")
    assert "{00000000-0000-0000-0000-000000000000}" in text
    monkeypatch.undo()
    doc = ezdxf.new()  # without our guard, ezdxf stamps the clock: the guard is needed
    assert doc.header["$FINGERPRINTGUID"] != "{00000000-0000-0000-0000-000000000000}"


def test_same_figure_same_bytes_in_every_process() -> None:
    """ezdxf lists the entity types in use in string-hash order; two processes with
    other hash seeds (0 and 4 ordered this figure's CLASSES differently) must still write
    the same bytes."""
    script = ("import hashlib, sys; from pathlib import Path; "
              "from structeval.dataset.rawfile import read_raw, presentation_of; "
              "from structeval.render.cad.dxf import render_dxf; "
              "_, b, m = read_raw(Path(sys.argv[1])); "
              "print(hashlib.sha256(render_dxf(m, presentation=presentation_of(b), "
              "seed=b['image']['seed'], category=b['category']).data).hexdigest())")
    raw = str(DATA_DIR / "raw_models" / "beam-s21-0000-ref.json")
    digests = {subprocess.run([sys.executable, "-c", script, raw], capture_output=True,
                              text=True, check=True, timeout=120,
                              env={**os.environ, "PYTHONHASHSEED": seed}).stdout.strip()
               for seed in ("0", "4")}
    assert len(digests) == 1 and len(next(iter(digests))) == 64


def test_units_follow_the_written_lengths() -> None:
    """Metres for m-kN, millimetres for mm-kN (coordinates × 1000), no unit for a
    parametric drawing (its geometry must not give the value of a away)."""
    scene, _ = build_scene(_shipped("beam", 1)[0][1], "cad", None, "normal")
    k = scene.k
    assert drawing_units(Presentation(), k).insunits == 6
    mm = drawing_units(Presentation(units="mm-kN"), k)
    assert mm.insunits == 4 and mm.per_px == pytest.approx(1000 / k)
    para = drawing_units(Presentation(values="parametric"), k)
    assert para.insunits == 0 and para.per_px == 0.01
    model = _shipped("beam", 1)[0][1]
    # both drawn as a task's figure (a presentation given): the same layout, fitted to
    # the delivery profile alike (a long beam may be drawn in two rows)
    metres = ezdxf.read(_stream(render_dxf(model, presentation={"units": "m-kN"}).data))
    millis = ezdxf.read(_stream(render_dxf(model, presentation={"units": "mm-kN"}).data))
    assert millis.header["$INSUNITS"] == 4
    a = sorted(e.dxf.end[0] for e in metres.modelspace().query('LINE[layer=="MEMBERS"]'))
    b = sorted(e.dxf.end[0] for e in millis.modelspace().query('LINE[layer=="MEMBERS"]'))
    assert b == pytest.approx([1000 * x for x in a])


def _stream(data: bytes) -> Any:
    import io

    return io.StringIO(data.decode("utf-8"))


def test_text_style_follows_the_script() -> None:
    """Chinese text takes the CJK-capable style, Latin the default one: the choice is the
    TEXT_STYLES table, so a language only needs a row (a font name)."""
    assert style_for("铰 A").name == "LABELS_CJK"
    assert style_for("均布荷载 10 kN/m").font == "NotoSansCJK-Regular.ttc"
    assert style_for("12 kN·m").name == "LABELS"
    assert style_for("30°") is TEXT_STYLES[-1]
    scene, _ = build_scene(_shipped("beam", 1)[0][1], "cad", None, "normal")
    scene.add_text("X", "figure", "note", "固定端 A", 14.0, (0.0, -400.0, 60.0, -386.0))
    items = scene.layout.items
    k = next(i for i, it in enumerate(items) if it.owner_type == "dimension"
             and it.kind == "label")
    items[k] = replace(items[k], text="四米")  # a dimension text in Chinese
    data = scene_dxf(scene).data
    doc = ezdxf.read(_stream(data))
    (text,) = [e for e in doc.modelspace().query("TEXT") if e.dxf.text == "固定端 A"]
    assert text.dxf.style == "LABELS_CJK"
    assert doc.styles.get("LABELS_CJK").dxf.font == "NotoSansCJK-Regular.ttc"
    assert {e.dxf.style for e in doc.modelspace().query("TEXT")} == {"LABELS", "LABELS_CJK"}
    (dim,) = [d for d in doc.modelspace().query("DIMENSION") if d.dxf.text == "四米"]
    assert dim.get_dxf_attrib("dimstyle") == "FIGURE"
    (mtext,) = [e for e in doc.blocks.get(dim.dxf.geometry) if e.dxftype() == "MTEXT"]
    assert mtext.dxf.style == "LABELS_CJK"  # the dimension draws its text in the CJK style
    assert not open_dxf(data)[1].has_errors


def test_render_with_dxf_draws_the_image_of_render_model() -> None:
    from structeval.render import render_model

    model = _shipped("truss", 1)[0][1]
    image, drawing = render_with_dxf(model, "scanned", 3, presentation={"symbols": "b"})
    assert image.encode("JPEG") == render_model(model, style="scanned", seed=3,
                                                presentation={"symbols": "b"}).encode("JPEG")
    assert drawing.data == render_dxf(model, "scanned", presentation={"symbols": "b"}).data


# -- the dataset side --------------------------------------------------------------------------

def _problems(n: int = 3):  # type: ignore[no-untyped-def]
    return [with_dxf(p) for p in synthesize(n, seed=3)]


def test_store_writes_the_dxf_beside_the_image_and_the_loader_finds_it(tmp_path: Path) -> None:
    problems = _problems()
    for p in problems:
        write_problem(p, tmp_path, images=True)
    for p in problems:
        assert (tmp_path / "images" / f"{p.id}.dxf").is_file()
        assert (tmp_path / "images" / p.block["image"]["file"]).is_file()
    report = generate(tmp_path)
    assert not report["errors"]
    tasks = load_tasks(tmp_path)
    assert [t.dxf_path.name for t in tasks] == [f"{p.id}.dxf" for p in problems]
    ezdxf.readfile(tasks[0].dxf_path)


def test_render_missing_draws_missing_dxfs_and_leaves_existing_ones(tmp_path: Path) -> None:
    problems = _problems()
    for p in problems:
        write_problem(p, tmp_path, images=False)
    assert sorted(render_missing(tmp_path)) == sorted(p.id for p in problems)
    keep, redo = (tmp_path / "images" / f"{problems[0].id}.dxf",
                  tmp_path / "images" / f"{problems[1].id}.dxf")
    keep.write_bytes(b"0\nSECTION\n0\nENDSEC\n0\nEOF\n")  # a stand-in nobody may overwrite
    stamp = keep.stat().st_mtime_ns
    good = redo.read_bytes()
    redo.unlink()
    assert render_missing(tmp_path) == [problems[1].id]
    assert keep.read_bytes() == b"0\nSECTION\n0\nENDSEC\n0\nEOF\n"
    assert keep.stat().st_mtime_ns == stamp
    assert redo.read_bytes() == good  # redrawn: the same bytes
    assert render_missing(tmp_path) == []
    assert len(render_missing(tmp_path, force=True)) == 3
    assert keep.read_bytes() != b"0\nSECTION\n0\nENDSEC\n0\nEOF\n"


def test_add_dxf_changes_only_the_dxf_key(tmp_path: Path) -> None:
    shutil.copytree(DATA_DIR / "raw_models", tmp_path / "raw_models",
                    ignore=lambda d, names: [n for n in names if not n.startswith("beam-s1-000")])
    before = {p.name: p.read_text() for p in (tmp_path / "raw_models").glob("*.json")}
    assert add_dxf(tmp_path, "beam-s1-0003") == ["beam-s1-0003"]
    assert add_dxf(tmp_path, "beam-s1-0003") == []  # it has one now
    after = {p.name: p.read_text() for p in (tmp_path / "raw_models").glob("*.json")}
    changed = [n for n in before if before[n] != after[n]]
    assert changed == ["beam-s1-0003.json"]
    old, new = json.loads(before[changed[0]]), json.loads(after[changed[0]])
    assert new["problem"].pop("dxf") == {"file": "beam-s1-0003.dxf"}
    assert new == old


def _tool(name: str) -> Any:
    return load_tool(name).main


def test_synthesize_dxf_and_render_missing_cli(tmp_path: Path) -> None:
    main = _tool("synthesize")
    runner = CliRunner()
    done = runner.invoke(main, ["--count", "2", "--seed", "4", "--dxf", "--out", str(tmp_path),
                                "--presentation", "symbols=b"])
    assert done.exit_code == 0, done.output
    dxfs = sorted(p.name for p in (tmp_path / "images").glob("*.dxf"))
    assert len(dxfs) == 2
    raw = json.loads(next((tmp_path / "raw_models").glob("*.json")).read_text())
    assert raw["problem"]["dxf"]["file"] in dxfs
    assert raw["problem"]["presentation"]["symbols"] == "b"
    first = {n: (tmp_path / "images" / n).read_bytes() for n in dxfs}
    again = runner.invoke(main, ["--render-missing", "--out", str(tmp_path)])
    assert again.exit_code == 0 and "of 0 problem(s)" in again.output, again.output
    assert first == {n: (tmp_path / "images" / n).read_bytes() for n in dxfs}
    (tmp_path / "images" / dxfs[0]).unlink()
    again = runner.invoke(main, ["--render-missing", "--out", str(tmp_path)])
    assert "of 1 problem(s)" in again.output, again.output
    assert first == {n: (tmp_path / "images" / n).read_bytes() for n in dxfs}


def test_render_tool_writes_dxf_and_refuses_bad_requests(tmp_path: Path) -> None:
    main = _tool("render")
    src = next((DATA_DIR / "raw_models").glob("frame-s1-*.json"))
    out = tmp_path / "f.dxf"
    assert main([str(src), "-o", str(out), "--presentation", "symbols=b"]) == 0
    doc = ezdxf.readfile(out)
    symbols = {e.dxf.layer for e in doc.modelspace()}
    assert "SUPPORTS" in symbols and "MEMBERS" in symbols
    assert main([str(src), "-o", str(out), "--presentation", "symbols=z"]) == 2
    assert main([str(src), "-o", str(out), "--moment"]) == 2
    assert main([str(src), "-o", str(tmp_path / "missing" / "f.dxf")]) == 2


def test_classics_draw_as_dxf() -> None:
    """Every hand-authored classic (multi-span Gerber beams, three-hinged frames, compound
    trusses) gives a DXF that opens without errors and carries its image's texts."""
    for problem in classic_problems():
        shown = presentation_of(problem.block)
        drawing = render_dxf(problem.model, problem.block["image"]["style"], presentation=shown)
        _, auditor = open_dxf(drawing.data)
        assert not auditor.has_errors, problem.id
        _, points = read_points(drawing.data)
        layout = layout_model(problem.model, style=problem.block["image"]["style"],
                              presentation=shown)
        assert Counter(t for t, _, _ in points.texts) == Counter(
            it.text for it in layout.layout if it.kind == "label"), problem.id
        assert len(drawing.data) < 400_000, problem.id


def test_the_geometry_and_text_checks_can_fail() -> None:
    """The same comparison on damaged readings: a member end moved by a millimetre, a
    hinge circle lost, an arrowhead moved, a text changed, each is caught."""
    from dataclasses import replace

    _, _, model = read_raw(DATA_DIR / "raw_models" / "beam-classic-gerber-3span.json")
    assert any(lk.hinge_a or lk.hinge_b for lk in model.links)
    layout = layout_model(model, presentation={"symbols": "b"})
    data = render_dxf(model, presentation={"symbols": "b"}).data
    _, points = read_points(data)
    assert _check_geometry(layout, points) == []

    moved = replace(points, members=[((points.members[0][0][0] + 0.001,
                                       points.members[0][0][1]), points.members[0][1]),
                                     *points.members[1:]])
    assert any("residual" in p for p in _check_geometry(layout, moved))
    lost = replace(points, centres={k: v for k, v in points.centres.items() if k != "HINGES"})
    assert any(p.startswith("hinge") for p in _check_geometry(layout, lost))
    loads = [(x + 0.05, y) for x, y in points.by_layer["LOADS"]]
    shifted = replace(points, by_layer={**points.by_layer, "LOADS": loads})
    assert any(p.startswith("arrow") or p.startswith("row") or p.startswith("couple")
               for p in _check_geometry(layout, shifted))
    renamed = replace(points, texts=[(t + "!", q, layer) for t, q, layer in points.texts])
    assert any("is not at its image place" in p for p in _check_geometry(layout, renamed))


def test_the_docs_document_the_layers_as_written() -> None:
    """The DXF page's layer table names every layer with the entity kinds it holds."""
    section = (ROOT / "docs" / "dataset" / "dxf.md").read_text(encoding="utf-8")
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("`"):
            for name in cells[0].replace("`", "").split(", "):
                rows[name] = set() if cells[1] == "—" else set(cells[1].split(", "))
    assert set(rows) == set(LAYER_NAMES)
    for layer in LAYERS:
        if rows[layer.name]:
            assert rows[layer.name] == set(layer.entities), layer.name


def test_an_ezdxf_failure_is_a_typed_refusal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever ezdxf refuses becomes a RenderError (exit 2 with a sentence in the tools),
    and ezdxf's global option is restored."""
    from structeval.render.cad import dxf as writer
    from structeval.render.scene.errors import RenderError

    def refuse(self: Any) -> None:
        raise ezdxf.DXFValueError("no such thing")

    monkeypatch.setattr(writer._Writer, "write", refuse)
    before = ezdxf.options.write_fixed_meta_data_for_testing
    with pytest.raises(RenderError, match="ezdxf cannot write this figure as DXF"):
        render_dxf(_shipped("beam", 1)[0][1])
    assert ezdxf.options.write_fixed_meta_data_for_testing == before
    src = next((DATA_DIR / "raw_models").glob("beam-s1-*.json"))
    assert _tool("render")([str(src), "-o", "/dev/null/x.dxf"]) == 2
