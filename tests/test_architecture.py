"""The architecture holds (issue 20): imports run down the layers with no circle and no
private name across files (``tools/check_layers.py``), the API client is loaded only where
a request is sent, and ``docs/architecture.md`` names every subpackage."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT
from .tool_modules import load_tool

check_layers = load_tool("check_layers")
PACKAGE = ROOT / "src" / "structeval"


def test_the_repository_follows_its_layers() -> None:
    assert check_layers.check(ROOT) == []


def test_the_script_exits_0_on_the_repository() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "check_layers.py")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """A copy of the package's sources (no data), to plant faults in."""
    shutil.copytree(PACKAGE, tmp_path / "src" / "structeval",
                    ignore=shutil.ignore_patterns("*.wasm", "__pycache__", "*.md"))
    return tmp_path


def _plant(root: Path, module: str, line: str) -> str:
    """Append ``line`` to ``module`` (a path under src/structeval); its file:line as reported."""
    path = root / "src" / "structeval" / module
    text = path.read_text(encoding="utf-8")
    if not text.endswith("\n"):
        text += "\n"
    path.write_text(text + line + "\n", encoding="utf-8")
    return f"src/structeval/{module}:{len(text.splitlines()) + 1}"


@pytest.mark.parametrize(("module", "line", "says"), [
    # the scene reaching up into figure composition
    ("render/scene/shapes.py", "from ..compose.figure import render_model",
     "render/scene may not import render/compose"),
    # the grading of an answer reaching up into the API client
    ("harness/answers/grading.py", "from ..client.transport import ChatTransport",
     "harness/answers may not import harness/client"),
    # a room below importing one above it
    ("model/types.py", "from ..reports import report",
     "room 'model' may not import 'reports'"),
    # two rooms of one layer importing each other's way
    ("render/symbols/ground.py", "from ...api import solve",
     "room 'render' may not import 'api'"),
    # a private helper crossing files
    ("render/annotation/dimensions.py", "from .chains import _heads",
     "imports private _heads from structeval.render.annotation.chains"),
])
def test_a_planted_import_fails_naming_file_line_and_import(copy: Path, module: str, line: str,
                                                             says: str) -> None:
    where = _plant(copy, module, line)
    faults = [f for f in check_layers.check(copy) if f.startswith(where + ":")]
    assert len(faults) == 1 and says in faults[0], check_layers.check(copy)


def test_the_script_exits_1_on_a_planted_back_import(copy: Path) -> None:
    where = _plant(copy, "render/reading/exam.py", "from ..annotation import dimensions")
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "check_layers.py"),
                           "--root", str(copy)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stdout.startswith(f"{where}: structeval.render.reading.exam imports "
                                  "structeval.render.annotation.dimensions"), done.stdout


def test_a_lazy_import_closing_a_circle_fails(copy: Path) -> None:
    """A circle hidden in a function (as value_text once reached into dimensions) counts."""
    _plant(copy, "render/annotation/chains.py",
           "def _late():\n    from .dimensions import draw_dimensions\n    return draw_dimensions")
    faults = check_layers.check(copy)
    assert any("circle of 3 modules: render.annotation.chains ↔ render.annotation.dimensions"
               " ↔ render.annotation.exam_marks" in f for f in faults), faults


def test_a_module_left_at_the_flat_layout_fails(copy: Path) -> None:
    (copy / "src" / "structeval" / "render" / "stray.py").write_text("X = 1\n")
    faults = check_layers.check(copy)
    assert faults == ["src/structeval/render/stray.py:1: structeval.render.stray lies outside "
                      "the subpackages of render/ (" + ", ".join(check_layers.SUBLAYERS["render"])
                      + ")"]


def test_a_new_room_must_be_placed_in_a_layer(copy: Path) -> None:
    (copy / "src" / "structeval" / "newroom").mkdir()
    (copy / "src" / "structeval" / "newroom" / "__init__.py").write_text("")
    assert any("'newroom' is in no layer" in f for f in check_layers.check(copy))


# Entry points that read, grade or report and never send a request.
NO_CLIENT = {
    "grading": "import structeval.harness.answers.grading",
    "rescore": "import structeval.harness.run.rescore",
    "reports": "import structeval.reports.report, structeval.reports.evidence",
    "harness face": "import structeval.harness",
    "tools/report.py": "import runpy; runpy.run_path('tools/report.py', run_name='report')",
    "tools/rescore.py": "import runpy; runpy.run_path('tools/rescore.py', run_name='rescore')",
    "run_eval.py --debug": (
        "import runpy, sys\n"
        "sys.argv = ['run_eval.py', '--debug', '--filter', 'beam-classic-continuous-fixed']\n"
        "try:\n    runpy.run_path('run_eval.py', run_name='__main__')\n"
        "except SystemExit as exc:\n    assert exc.code == 0, exc.code\n"),
}


@pytest.mark.parametrize("entry", sorted(NO_CLIENT))
def test_no_request_no_api_client(entry: str) -> None:
    code = NO_CLIENT[entry] + "\nimport sys\nprint(sorted({'openai', 'httpx'} & set(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, env=_env())
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[]", done.stdout


def _env() -> dict[str, str]:
    import os

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    return env


def test_the_architecture_page_names_every_subpackage() -> None:
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    subpackages = sorted(str(p.parent.relative_to(PACKAGE)) for p in PACKAGE.rglob("__init__.py")
                         if p.parent != PACKAGE)
    assert len(subpackages) > 15
    missing = [s for s in subpackages if f"`{s}/`" not in page]
    assert missing == []
    rooms = [room for level in check_layers.ROOMS for room in level]
    assert [r for r in rooms if f"`{r}" not in page] == []
