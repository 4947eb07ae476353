"""Which code, solver, dataset and libraries produced a run — and whether ``--resume`` may
continue it.

Recorded in ``run.json`` (``provenance``, taken when the run began; each session
adds its own) and in ``results.json`` (``summary.provenance``):

* ``structeval``: the package version, and ``git`` — the commit of the checkout
  the package runs from and whether tracked files differ from it (``dirty``) —
  when it runs from a git checkout; absent otherwise (an installed wheel);
* ``scorer_sha256``: sha256 over the source files that turn an answer's text
  into a verdict (:data:`SCORER_SOURCES`: the model parser and validator, the
  solver bridge, the scoring package, and the harness's extraction and grading),
  each as its path relative to the package and its bytes, in sorted order;
* ``solver_sha256``: sha256 of the shipped ``framecalc.wasm``;
* ``dataset``: ``tasks_sha256`` over the content of the tasks the session loaded
  — raw model, ground truth, image and DXF bytes, from whatever source: a data
  folder, an export or ``hf://`` (:mod:`structeval.dataset.content_hash`; the same
  tasks give the same hash from a folder and from its export; None for task
  objects no loader made); ``folder_sha256`` over every file of ``raw_models/``,
  ``ground_truth_meta/`` and ``images/`` (names and bytes, sorted; None when the
  tasks do not come from a data folder); and for the selected tasks
  ``selected.sha256`` over their raw model and meta files (sorted by id),
  ``selected.ids_sha256`` over their ids and ``selected.tasks``;
* ``versions``: Python, openai, wasmtime, numpy, Pillow, json-repair.

``--resume`` refuses (exit 2, naming what changed) when the scorer hash, the
solver hash or the dataset changed since the run began — the selected tasks'
content (``tasks_sha256``, else their files) when the selection is the same, the
data folder otherwise — because the results would then mix two scorers or two
datasets; ``--force-resume`` continues anyway and records what was overridden.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import platform
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import structeval
from structeval.dataset.content_hash import tasks_content_sha256

PACKAGE = Path(structeval.__file__).resolve().parent
#: the sources behind a verdict, relative to the package (globs)
SCORER_SOURCES = ("model/*.py", "fe/*.py", "scoring/*.py", "harness/answers/extract.py",
                  "harness/answers/grading.py")
WASM = PACKAGE / "fe" / "framecalc.wasm"
#: what older runs recorded as the folder hash of an export (the hash of no file): unknown
NOTHING_SHA256 = hashlib.sha256(b"").hexdigest()
_LIBRARIES = ("openai", "wasmtime", "numpy", "pillow", "json-repair", "httpx", "httpx2")


def _sha_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def scorer_sha256() -> str:
    """Hash of the scorer's code (see the module docstring)."""
    digest = hashlib.sha256()
    files = sorted({p for pattern in SCORER_SOURCES for p in PACKAGE.glob(pattern)})
    for path in files:
        digest.update(path.relative_to(PACKAGE).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def solver_sha256() -> str:
    return _sha_file(WASM)


def git_state(where: Path = PACKAGE) -> dict[str, Any] | None:
    """{"commit", "dirty"} of the git checkout holding the package, or None (not a checkout,
    no git, or git failing: provenance never fails a run)."""
    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(["git", *args], cwd=where, capture_output=True, text=True,
                                  timeout=10)
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    if not commit or len(commit) < 40:
        return None
    status = git("status", "--porcelain", "--untracked-files=no")
    return {"commit": commit, "dirty": None if status is None else bool(status)}


def versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {"python": platform.python_version()}
    for name in _LIBRARIES:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = None
    return out


def _files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.is_file() and not p.is_symlink())


def folder_sha256(data_dir: Path) -> str | None:
    """Hash of the whole data folder: every raw model, meta and image (names and bytes);
    None when it holds none (an export's tasks live in a cache, not in such a folder: a
    hash of nothing would match any other export)."""
    digest = hashlib.sha256()
    hashed = 0
    for sub in ("raw_models", "ground_truth_meta", "images"):
        for path in _files(Path(data_dir) / sub):
            digest.update(f"{sub}/{path.name}\0".encode())
            digest.update(_sha_file(path).encode() + b"\n")
            hashed += 1
    return digest.hexdigest() if hashed else None


def selected_hashes(data_dir: Path, task_ids: Iterable[str]) -> dict[str, Any]:
    """Hashes of the selected tasks' raw models and metas, and of their ids."""
    ids = sorted(set(task_ids))
    files = hashlib.sha256()
    for task_id in ids:
        for sub in ("raw_models", "ground_truth_meta"):
            path = Path(data_dir) / sub / f"{task_id}.json"
            files.update(f"{sub}/{task_id}\0".encode())
            files.update((_sha_file(path) if path.is_file() else "missing").encode() + b"\n")
    return {"tasks": len(ids), "sha256": files.hexdigest(),
            "ids_sha256": hashlib.sha256("\n".join(ids).encode()).hexdigest()}


def collect(data_dir: Path, tasks: Sequence[Any]) -> dict[str, Any]:
    """The provenance record of a session over the tasks it loaded (see the module
    docstring)."""
    out: dict[str, Any] = {"structeval": {"version": structeval.__version__}}
    git = git_state()
    if git is not None:
        out["structeval"]["git"] = git
    out.update(scorer_sha256=scorer_sha256(), solver_sha256=solver_sha256(),
               dataset={"tasks_sha256": tasks_content_sha256(tasks),
                        "folder_sha256": folder_sha256(data_dir),
                        "selected": selected_hashes(data_dir, [t.id for t in tasks])},
               versions=versions())
    return out


def resume_conflicts(stored: Any, current: Mapping[str, Any]) -> list[str]:
    """Why the stored run may not be continued with the current code and data (empty: it
    may). A run.json from before provenance was recorded has nothing to compare."""
    if not isinstance(stored, Mapping):
        return []
    out = []
    for key, what in (("scorer_sha256", "the scorer's code"),
                      ("solver_sha256", "the solver binary (framecalc.wasm)")):
        old = stored.get(key)
        if isinstance(old, str) and old != current.get(key):
            out.append(f"{what} changed since the run began ({key} {old[:12]}… → "
                       f"{str(current.get(key))[:12]}…)")
    old_data = stored.get("dataset") if isinstance(stored.get("dataset"), Mapping) else {}
    new_data = current.get("dataset") or {}
    old_sel = old_data.get("selected") if isinstance(old_data.get("selected"), Mapping) else {}
    new_sel = new_data.get("selected") or {}
    if old_sel.get("ids_sha256") and old_sel.get("ids_sha256") == new_sel.get("ids_sha256"):
        old_tasks = old_data.get("tasks_sha256")
        if isinstance(old_tasks, str):
            if old_tasks != new_data.get("tasks_sha256"):
                out.append("the selected tasks' raw models, ground truth, images or DXF files "
                           "changed since the run began (dataset tasks_sha256 "
                           f"{old_tasks[:12]}… → {str(new_data.get('tasks_sha256'))[:12]}…)")
        elif old_sel.get("sha256") != new_sel.get("sha256"):
            out.append("the selected tasks' raw models or ground truth changed since the run "
                       f"began (dataset selected.sha256 {str(old_sel.get('sha256'))[:12]}… → "
                       f"{str(new_sel.get('sha256'))[:12]}…)")
    elif isinstance(old_data.get("folder_sha256"), str) and \
            old_data["folder_sha256"] not in (new_data.get("folder_sha256"), NOTHING_SHA256):
        out.append("the dataset changed since the run began (data folder sha256 "
                   f"{old_data['folder_sha256'][:12]}… → "
                   f"{str(new_data.get('folder_sha256'))[:12]}…)")
    return out
