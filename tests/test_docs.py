"""The documentation: the site builds strictly, the README stays short, nothing was lost.

``mkdocs build --strict`` turns every broken link, anchor or include into an error, so
a page that points at a moved section fails here rather than in a reader's browser.
The README was once 1,168 lines; its sections now live in ``docs/``, and the headings
below (every heading it had) must each still head a section somewhere.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .doc_commands import doc_files

ROOT = Path(__file__).resolve().parent.parent
README_MAX_LINES = 250
TEST_COMMAND = "python -m pytest -n auto"

#: Every heading of the README before it became a site (commit 1c0f0e7).
OLD_README_HEADINGS = (
    "StructuralEval", "Set up and run", "As an installed package", "Test",
    "Running an evaluation", "Reasoning models", "Languages and modalities",
    "Response cache", "Rescoring a run", "Provenance and cost", "The headline: pass@1",
    "Limits and failure behaviour", "Reports", "Reading the factor table",
    "How scoring works", "The FrameCalc format in brief", "The solver", "Dataset",
    "Hugging Face export", "Drawing models",
    "Presentations: exam dimensioning, parametric values, millimetres", "DXF drawings",
    "inspect_ai", "Tools", "Measured figures", "Licence",
)

#: Pages other branches of this session add; the nav names them in comments until merged.
PAGES_OF_OTHER_BRANCHES = (
    "architecture.md", "reliability-text.md", "cache-threat-model.md",
    "provenance-and-rescore.md", "running-and-statistics.md", "reports.md",
    "delivery-profile.md", "batch-and-providers.md", "image-modes.md",
)


def _mkdocs(tmp_path: Path, config: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict",
                           "-f", str(config), "-d", str(tmp_path / "site")],
                          cwd=config.parent, env=env, capture_output=True, text=True,
                          timeout=300)


@pytest.fixture(scope="module")
def mkdocs_ready() -> None:
    pytest.importorskip("mkdocs", reason="mkdocs is not installed (requirements-dev.txt)")
    pytest.importorskip("material", reason="mkdocs-material is not installed "
                                           "(requirements-dev.txt)")


def test_the_site_builds_strictly(mkdocs_ready, tmp_path: Path) -> None:
    done = _mkdocs(tmp_path, ROOT / "mkdocs.yml")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "site" / "index.html").is_file()
    # the included files (run format, solver ABI, data/README.md) are in the site
    run_format = (tmp_path / "site" / "reference" / "run-format" / "index.html").read_text()
    assert "trace.jsonl" in run_format


def _copy_for_build(tmp_path: Path) -> Path:
    """What ``mkdocs.yml`` reads (its pages and the files they include), in tmp_path."""
    copy = tmp_path / "copy"
    shutil.copytree(ROOT / "docs", copy / "docs")
    shutil.copy2(ROOT / "mkdocs.yml", copy / "mkdocs.yml")
    for included in ("src/structeval/harness/RUN_FORMAT.md", "solver/ABI.md",
                     "data/README.md"):
        (copy / included).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / included, copy / included)
    return copy


def test_a_broken_link_fails_the_build(mkdocs_ready, tmp_path: Path) -> None:
    copy = _copy_for_build(tmp_path)
    page = copy / "docs" / "getting-started.md"
    page.write_text(page.read_text() + "\nSee [the options](evaluation/index.md#no-such-part).\n")
    done = _mkdocs(tmp_path, copy / "mkdocs.yml")
    assert done.returncode != 0 and "no-such-part" in done.stdout + done.stderr


def test_every_page_is_in_the_nav() -> None:
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\s*- [^:#]+: (\S+\.md)\s*$", config, re.M))
    pages = {str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").rglob("*.md")}
    missing = pages - listed - set(PAGES_OF_OTHER_BRANCHES)
    assert not missing, f"pages not in mkdocs.yml's nav: {sorted(missing)}"
    assert not listed - pages, f"nav entries without a page: {sorted(listed - pages)}"
    for other in PAGES_OF_OTHER_BRANCHES:  # their place is kept, ready to uncomment
        if (ROOT / "docs" / other).is_file():
            continue  # the page has landed: it is in the nav (checked above)
        assert re.search(rf"^\s*# - [^:]+: {re.escape(other)}\s*$", config, re.M), other


def test_the_readme_is_short_and_names_the_test_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= README_MAX_LINES
    assert f"\n{TEST_COMMAND}\n" in readme
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert ci.rstrip().splitlines()[-1] == TEST_COMMAND


def test_the_readme_says_what_each_dependency_is_for() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("## What each dependency is for"):]
    for requirements in ("requirements.txt", "requirements-dev.txt"):
        for line in (ROOT / requirements).read_text(encoding="utf-8").splitlines():
            name = re.match(r"[A-Za-z][\w.-]*", line.strip())
            if name and not line.startswith(("-", "#")):
                assert f"`{name.group(0)}`" in table, f"{requirements}: {name.group(0)}"


def test_every_old_readme_heading_heads_a_section() -> None:
    headings = set()
    for page in doc_files():
        fenced = False
        for line in page.read_text(encoding="utf-8").splitlines():
            if line.startswith(("```", "~~~")):
                fenced = not fenced
            elif not fenced and (found := re.match(r"#{1,6} (.+)", line)):
                headings.add(found.group(1).strip())
    for included in ("src/structeval/harness/RUN_FORMAT.md", "solver/ABI.md"):
        headings |= set(re.findall(r"^#{1,6} (.+)$", (ROOT / included).read_text(), re.M))
    lost = [h for h in OLD_README_HEADINGS if h not in headings]
    assert not lost, f"sections of the old README with no heading any more: {lost}"


def test_the_readme_links_to_pages_that_exist() -> None:
    """The README is read on the forge, outside the site: its links are file paths."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", readme)
    local = [t for t in targets if "://" not in t]
    assert local, "the README links into the documentation"
    missing = [t for t in local if not (ROOT / t).is_file()]
    assert not missing, f"README links to missing files: {missing}"
