"""The stored record of the visibility proof: what OCR read in every shipped image.

A full pass of the proof reads about 72,000 texts and takes over twenty minutes on a
two-core machine, too long for every CI run. So the pass writes this record
(``python tools/check_visibility.py --record data/visibility_proof.json``): per task,
the sha256 of the image it read, how many texts it read and by which reader setting,
every text it missed, every glyph below its size or contrast minimum and every text
below its size, stroke or contrast minimum. The tests then hold
every shipped task to the record — its image must be the one the record read, and the
record must show no miss — and re-read a sample to show that the record is what the
reader reads (tests/test_visibility.py). An image re-drawn without the proof being run
again no longer matches its entry, so the record cannot vouch for pixels it never saw.

The record is read as untrusted input: a malformed file is a :class:`DatasetError`
that names it and the command that writes it again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .errors import DatasetError
from .visibility import VisibilityReport

#: the record's file name in a data folder
RECORD_FILE = "visibility_proof.json"
RECORD_FORMAT = 1
_REWRITE = "python tools/check_visibility.py --record data/visibility_proof.json"


def image_sha256(path: Path) -> str:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError as exc:
        raise DatasetError(f"{path}: cannot read the image ({exc.strerror})") from None


def task_entries(report: VisibilityReport) -> dict[str, dict[str, Any]]:
    """One record entry per task of ``report``."""
    entries: dict[str, dict[str, Any]] = {}
    for task, (style, image) in report.images.items():
        entries[task] = {"style": style, "image": image.name,
                         "image_sha256": image_sha256(image), "texts": 0, "read": 0,
                         "by_setting": {}, "misses": [], "glyphs": 0, "glyph_problems": [],
                         "ink_problems": []}
    for t in report.texts:
        entry = entries[t.task]
        entry["texts"] += 1
        if t.ok:
            entry["read"] += 1
            key = str(t.setting)
            entry["by_setting"][key] = entry["by_setting"].get(key, 0) + 1
        else:
            entry["misses"].append({"text": t.text, "role": t.role, "read": t.read,
                                    "height_px": round(t.height_px, 1)})
    for g in report.glyphs:
        entries[g.task]["glyphs"] += 1
        if g.problems:
            entries[g.task]["glyph_problems"].append(f"{g.gtype} {g.owner}: "
                                                     f"{'; '.join(g.problems)}")
    for ink in report.inks:
        if ink.problems:
            entries[ink.task]["ink_problems"].append(f"{ink.text}: {'; '.join(ink.problems)}")
    return entries


def merged(old: Mapping[str, Any] | None, report: VisibilityReport, tesseract: str,
           keep: Iterable[str] | None = None) -> dict[str, Any]:
    """The record with the tasks of ``report`` (re-)entered: the other tasks of ``old``
    are kept when the pass covered only some (a re-drawn task is proved again alone),
    but only those named in ``keep`` (the tasks the data folder still holds), so a task
    no longer shipped leaves the record. A pass at another profile starts afresh."""
    tasks: dict[str, Any] = {}
    if old is not None and old.get("profile") == report.profile:
        kept = None if keep is None else set(keep)
        tasks = {k: v for k, v in old["tasks"].items() if kept is None or k in kept}
    tasks.update(task_entries(report))
    return {"format": RECORD_FORMAT, "profile": report.profile, "tesseract": tesseract,
            "tasks": dict(sorted(tasks.items()))}


def write_record(path: Path, record: Mapping[str, Any]) -> None:
    """The record as JSON, one task per line, so that a re-proved task is a one-line diff."""
    lines = [json.dumps(f"{task}", ensure_ascii=False) + ": "
             + json.dumps(entry, ensure_ascii=False, sort_keys=True)
             for task, entry in record["tasks"].items()]
    head = {k: v for k, v in record.items() if k != "tasks"}
    body = json.dumps(head, ensure_ascii=False, sort_keys=True)[:-1]
    text = body + ', "tasks": {\n' + ",\n".join(lines) + "\n}}\n"
    Path(path).write_text(text, encoding="utf-8")


def _bad(path: Path, why: str) -> DatasetError:
    return DatasetError(f"{path}: not a visibility proof record ({why}); write it again "
                        f"with: {_REWRITE}")


def _valid_entry(entry: object) -> bool:
    if not isinstance(entry, dict):
        return False
    counts = ("texts", "read", "glyphs")
    return (all(type(entry.get(k)) is int and entry[k] >= 0 for k in counts)
            and entry["read"] <= entry["texts"]
            and isinstance(entry.get("style"), str) and isinstance(entry.get("image"), str)
            and isinstance(entry.get("image_sha256"), str)
            and isinstance(entry.get("misses"), list)
            and all(isinstance(m, dict) and isinstance(m.get("text"), str)
                    and isinstance(m.get("read"), str) for m in entry["misses"])
            and len(entry["misses"]) == entry["texts"] - entry["read"]
            and all(isinstance(entry.get(k), list) and all(isinstance(g, str) for g in entry[k])
                    for k in ("glyph_problems", "ink_problems")))


def load_record(path: Path) -> dict[str, Any]:
    """The record at ``path``, checked entry by entry; a DatasetError when it is missing
    or malformed (it names the file and the command that writes it)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DatasetError(f"{path}: no visibility proof record; write one with: "
                           f"{_REWRITE}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _bad(path, str(exc)) from None
    if not isinstance(data, dict) or data.get("format") != RECORD_FORMAT:
        raise _bad(path, f"format {RECORD_FORMAT} expected")
    if type(data.get("profile")) is not int or not isinstance(data.get("tasks"), dict):
        raise _bad(path, "no profile or no tasks")
    broken = [str(task) for task, entry in data["tasks"].items() if not _valid_entry(entry)]
    if broken:
        raise _bad(path, f"malformed entries: {', '.join(broken[:5])}")
    return data


def stale_tasks(record: Mapping[str, Any], images: Mapping[str, Path]) -> list[str]:
    """The tasks (of ``images``: task → its image file) the record does not vouch for:
    no entry, or an entry that read other bytes than the image holds now."""
    out = []
    for task, path in sorted(images.items()):
        entry = record["tasks"].get(task)
        if entry is None or entry["image_sha256"] != image_sha256(path):
            out.append(task)
    return out


def recorded_misses(record: Mapping[str, Any], styles: Iterable[str]
                    ) -> list[tuple[str, str, str]]:
    """(task, text, what was read) of every text of ``styles`` the record shows unread."""
    chosen = set(styles)
    return [(task, m["text"], m["read"]) for task, entry in record["tasks"].items()
            if entry["style"] in chosen for m in entry["misses"]]
