"""Shared fixtures: where the repository and the FrameCalc reference material live."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# run_eval.py keeps a response cache in the user's cache folder by default; tests never
# touch it (subprocesses and CliRunner inherit this). Tests of the cache pass --cache and
# their own --cache-dir.
os.environ["STRUCTEVAL_RESPONSE_CACHE"] = "off"


def _shared_candidates() -> list[Path]:
    found = []
    if os.environ.get("STRUCTEVAL_SHARED"):
        found.append(Path(os.environ["STRUCTEVAL_SHARED"]))
    found.append(ROOT.parent / "shared")
    # A CI clone lives elsewhere; its origin is the main checkout, beside ../shared.
    try:
        origin = subprocess.run(["git", "config", "--get", "remote.origin.url"], cwd=ROOT,
                                capture_output=True, text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        origin = ""
    if origin and "://" not in origin:
        found.append(Path(origin).resolve().parent / "shared")
    return found


def shared_dir() -> Path | None:
    for candidate in _shared_candidates():
        if (candidate / "framecalc" / "FORMAT.md").is_file():
            return candidate
    return None


@pytest.fixture(scope="session")
def conformance_dir() -> Path:
    shared = shared_dir()
    if shared is None:
        pytest.skip("../shared/framecalc (FrameCalc reference material) is not available here; "
                    "set STRUCTEVAL_SHARED to its parent folder to run these tests")
    return shared / "framecalc" / "conformance"


@pytest.fixture(scope="session")
def drawing_fonts() -> None:
    """The fonts Chinese text and hand lettering are drawn with (Debian packages, see
    structeval.render.scene.fonts); tests that draw them skip, naming the package, without."""
    from structeval.render import RenderError
    from structeval.render.scene.fonts import FONT_FILES, located

    for key in FONT_FILES:
        try:
            located(key)
        except RenderError as exc:
            pytest.skip(str(exc))


# Reports that tests want shown in the terminal summary (e.g. the scorer's confusion matrix).
REPORTS: list[str] = []


@pytest.fixture(scope="session")
def shipped_figures():  # type: ignore[no-untyped-def]
    """Every shipped task's layout record (layout-only path), shared by the readability
    proof and the legibility tests."""
    from structeval.dataset import DATA_DIR

    from .shipped_figures import TIMINGS, build

    figures = build(DATA_DIR)
    if not figures:
        pytest.fail(f"no raw problems in {DATA_DIR}")
    yield figures
    REPORTS.append(TIMINGS.report())


@pytest.fixture(scope="session")
def shipped_figures_b():  # type: ignore[no-untyped-def]
    """Every core task re-drawn with symbol set b (layout-only path), shared by the
    readability proof and the legibility tests of that set (tasks shipped in set b are
    in the full pass of :func:`shipped_figures`)."""
    from structeval.dataset import DATA_DIR

    from .shipped_figures import REDRAWN, TIMINGS_B, build

    figures = build(DATA_DIR, TIMINGS_B, REDRAWN, symbols="b")
    if not figures:
        pytest.fail(f"no raw problems in {DATA_DIR}")
    yield figures
    REPORTS.append(TIMINGS_B.report())


#: session fixtures that take minutes to build → the xdist group of the tests using them:
#: with ``--dist loadgroup`` (pyproject's addopts) each is built by one worker, not by all
HEAVY_FIXTURES = {"shipped_figures": "shipped", "shipped_figures_b": "shipped",
                  "shipped_sheets": "sheets",
                  "visibility_sample": "visibility"}  # tests/test_visibility.py


@pytest.hookimpl(tryfirst=True)  # before xdist's worker reads the groups into node ids
def pytest_collection_modifyitems(config, items) -> None:  # type: ignore[no-untyped-def]
    for item in items:
        group = next((HEAVY_FIXTURES[f] for f in getattr(item, "fixturenames", ())
                      if f in HEAVY_FIXTURES), None)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:  # type: ignore[no-untyped-def]
    for text in REPORTS:
        terminalreporter.write_line("")
        for line in text.splitlines():
            terminalreporter.write_line(line)
