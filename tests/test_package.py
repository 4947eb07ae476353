"""The package as users get it: a built wheel installed into a fresh virtualenv and run
from a folder outside the checkout (issue 12, item 1).

Offline by construction: the wheel is built with the installed setuptools
(``--no-build-isolation``), installed with ``--no-index --no-deps``, and the new
virtualenv sees the dependencies already installed here through a path entry (not
their ``.pth`` files, so an editable install of this checkout stays invisible and
``import structeval`` can only find the wheel).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from structeval.dataset.paths import NOT_FOUND
from tests.fakeserver import fixture as fx

ROOT = Path(__file__).resolve().parent.parent
MIN_SETUPTOOLS = (77,)

pytestmark = pytest.mark.slow


def _setuptools_ok() -> bool:
    try:
        import setuptools
    except ImportError:
        return False
    return tuple(int(p) for p in setuptools.__version__.split(".")[:1]) >= MIN_SETUPTOOLS


def _run(cmd: list[str], *, cwd: Path, env: dict[str, str], timeout: float = 120,
         ) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict[str, object]:
    if not _setuptools_ok():
        pytest.skip("building the wheel offline needs setuptools>=77 installed "
                    "(requirements-dev.txt)")
    base = tmp_path_factory.mktemp("wheel")
    # build from a copy: a build writes build/ and *.egg-info next to the sources
    source = base / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(ROOT / "src", source / "src",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc"))
    dist = base / "dist"
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "STRUCTEVAL_DATA", "PIP_INDEX_URL")}
    env.update(STRUCTEVAL_CACHE=str(base / "cache"), PIP_DISABLE_PIP_VERSION_CHECK="1",
               PIP_NO_INPUT="1")
    built = _run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps",
                  "--no-build-isolation", "--no-index", "-w", str(dist)], cwd=base, env=env,
                 timeout=240)
    assert built.returncode == 0, built.stdout + built.stderr
    wheel = next(dist.glob("structeval-*.whl"))

    venv = base / "venv"
    made = _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=base, env=env)
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    inst = _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
                 "--no-index", str(wheel)], cwd=base, env=env, timeout=240)
    assert inst.returncode == 0, inst.stdout + inst.stderr
    purelib = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()"
                         "['purelib'])"], cwd=base, env=env).stdout.strip())
    here = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (purelib / "_structeval_test_deps.pth").write_text("\n".join(sorted(here)) + "\n")

    outside = base / "elsewhere"
    outside.mkdir()
    gt = {"points": [{"id": "A", "x": 0, "y": 0}, {"id": "B", "x": 4, "y": 0}],
          "links": [{"id": "L1", "a": "A", "b": "B"}],
          "supports": [{"id": "S1", "at": {"type": "point", "id": "A"}, "kind": "pin"},
                       {"id": "S2", "at": {"type": "point", "id": "B"}, "kind": "roller"}],
          "loads": [{"id": "F", "kind": "pointLoad", "at": {"type": "link", "id": "L1"},
                     "value": 10, "angleDeg": 270, "angleMode": "world", "offset": 1}]}
    (outside / "gt.json").write_text(json.dumps(gt))
    wrong = json.loads(json.dumps(gt))
    wrong["loads"][0]["value"] = 15
    (outside / "wrong.json").write_text(json.dumps(wrong))
    return {"wheel": wheel, "venv": venv, "python": python, "cwd": outside, "env": env,
            "base": base}


def test_wheel_ships_the_kernel_and_run_format(installed):
    with zipfile.ZipFile(installed["wheel"]) as whl:
        names = set(whl.namelist())
        assert "structeval/fe/framecalc.wasm" in names
        assert "structeval/harness/RUN_FORMAT.md" in names
        assert whl.read("structeval/fe/framecalc.wasm") == (
            ROOT / "src/structeval/fe/framecalc.wasm").read_bytes()
        entry = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
        text = whl.read(entry).decode()
        metadata = whl.read(entry.replace("entry_points.txt", "METADATA")).decode()
    assert "[inspect_ai]\nstructeval = structeval.inspect_task" in text
    assert "structeval = structeval.cli:main" in text
    assert "Provides-Extra: hf" in metadata and "Provides-Extra: inspect" in metadata


def test_solve_and_score_from_the_installed_wheel(installed):
    code = (
        "import json, structeval\n"
        "gt = json.load(open('gt.json')); wrong = json.load(open('wrong.json'))\n"
        "out = structeval.solve(gt)\n"
        "v = structeval.score(json.dumps(gt), structeval.parse_model(wrong), tolerance=0.02)\n"
        "print(json.dumps({'file': structeval.__file__, 'reactions': out['reactions'],\n"
        "                  'verdict': v.to_dict(), 'same': structeval.score(gt, gt).ratio}))\n")
    proc = _run([str(installed["python"]), "-c", code], cwd=installed["cwd"],
                env=installed["env"])
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert got["file"].startswith(str(installed["venv"])), got["file"]
    # 10 kN at 1 m of a 4 m simply supported beam: 7.5 kN at A, 2.5 kN at B
    values = {(r["atId"], r["type"]): r["value"] for r in got["reactions"]}
    assert values[("S1", "uy")] == pytest.approx(7.5, abs=1e-9)
    assert values[("S2", "normal")] == pytest.approx(2.5, abs=1e-9)
    assert (got["verdict"]["stage"], got["verdict"]["ratio"], got["same"]) == (
        "loads", 0.75, 1.0)


def test_cli_from_the_installed_wheel(installed):
    bin_dir = Path(installed["venv"]) / "bin"
    for cmd in ([str(bin_dir / "structeval"), "--help"],
                [str(installed["python"]), "-m", "structeval", "--help"]):
        proc = _run(cmd, cwd=installed["cwd"], env=installed["env"])
        assert proc.returncode == 0, proc.stderr
        assert "solve" in proc.stdout and "score" in proc.stdout and "eval" in proc.stdout
    proc = _run([str(bin_dir / "structeval"), "score", "gt.json", "wrong.json"],
                cwd=installed["cwd"], env=installed["env"])
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["stage"] == "loads"
    proc = _run([str(bin_dir / "structeval"), "solve", "gt.json"], cwd=installed["cwd"],
                env=installed["env"])
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["max_abs_moment"] == pytest.approx(7.5)


def test_installed_eval_without_a_dataset_names_the_options(installed):
    proc = _run([str(Path(installed["venv"]) / "bin" / "structeval"), "eval", "--debug"],
                cwd=installed["cwd"], env=installed["env"])
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"error: {NOT_FOUND}"
    for option in ("--data-dir", "STRUCTEVAL_DATA", "export_hf.py", "hf://"):
        assert option in proc.stderr
    assert "Traceback" not in proc.stderr and "site-packages" not in proc.stderr


def test_installed_eval_finds_a_dataset_by_option_and_variable(installed):
    data = Path(installed["base"]) / "data"
    fx.build_dataset(data)
    eval_cmd = [str(Path(installed["venv"]) / "bin" / "structeval"), "eval", "--debug"]
    proc = _run([*eval_cmd, "--data-dir", str(data)], cwd=installed["cwd"],
                env=installed["env"])
    assert proc.returncode == 0, proc.stderr
    assert "OVERALL" in proc.stdout and "100.0" in proc.stdout
    proc = _run(eval_cmd, cwd=installed["cwd"],
                env={**installed["env"], "STRUCTEVAL_DATA": str(data)})
    assert proc.returncode == 0, proc.stderr
    assert "OVERALL         4       4  100.0" in proc.stdout


def test_inspect_finds_the_task_through_the_entry_point(installed, tmp_path):
    """``inspect eval structeval/structeval`` resolves the task from the installed package's
    inspect_ai entry point (here against the scripted local server, one perfect answer)."""
    pytest.importorskip("inspect_ai", reason="inspect-ai is not installed")
    from tests.fakeserver.server import Answer, FakeOpenAI, Script

    data = tmp_path / "data"
    fx.build_dataset(data, ["beam_t01"])
    with FakeOpenAI(Script(Answer(fx.tagged(fx.GT_MODELS["beam_t01"])))) as server:
        env = {**installed["env"], "FAKE_API_KEY": fx.SECRET_KEY,
               "FAKE_BASE_URL": server.base_url}
        proc = _run([str(installed["python"]), "-m", "inspect_ai", "eval",
                     "structeval/structeval", "--model", "openai-api/fake/fake-vlm",
                     "-T", f"data_dir={data}", "-T", "max_retries=0",
                     "--log-dir", str(tmp_path / "logs"), "--display", "plain"],
                    cwd=installed["cwd"], env=env, timeout=180)
        assert len(server.calls) == 1
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "weighted_accuracy" in proc.stdout and "1.000" in proc.stdout
    assert any((tmp_path / "logs").iterdir())
