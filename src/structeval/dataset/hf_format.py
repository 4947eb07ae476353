"""The Hugging Face export's layout: columns, their ``datasets`` features, file names.

Shared by the writer (:mod:`.hf_export`), the reader (:mod:`.hf_load`) and the
dataset card (:mod:`.hf_card`), so the three cannot drift apart.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from ..presentation import FACTORS
from .errors import DatasetError

LICENSE = "cc-by-4.0"
DATA_FOLDER = "data"
#: Columns in their order; presentation factors follow ``category … split``.
COLUMNS = ("id", "structure", "image", "model", "ground_truth", "category", "difficulty",
           "split", *FACTORS, "notes", "license", "dxf")
INSTALL_HINT = "pip install 'structeval[hf]'"


def pyarrow_modules() -> Any:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise DatasetError(f"reading or writing a Hugging Face export needs pyarrow: "
                           f"{INSTALL_HINT}") from None
    return pa, pq


def features() -> dict[str, Any]:
    """The ``datasets`` feature of every column (stored in the parquet schema metadata, so
    ``load_dataset("parquet", …)`` decodes the image column as an Image)."""
    string = {"dtype": "string", "_type": "Value"}
    feats: dict[str, Any] = {name: dict(string) for name in COLUMNS}
    feats["image"] = {"_type": "Image"}
    feats["difficulty"] = {"dtype": "int64", "_type": "Value"}
    return feats


def schema(pa: Any) -> Any:
    fields = []
    for name in COLUMNS:
        if name == "image":
            kind = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
        elif name == "difficulty":
            kind = pa.int64()
        else:
            kind = pa.string()
        fields.append(pa.field(name, kind))
    meta = json.dumps({"info": {"features": features()}}, separators=(",", ":"))
    return pa.schema(fields, metadata={"huggingface": meta})


#: What each column holds in a row as ``datasets`` or pyarrow give it back: ``dxf`` may be
#: empty (a task without a drawing), the image is a struct of bytes and a path.
_NULLABLE = frozenset({"dxf"})


def _kind(value: Any) -> str:
    """How a user would name a value's type in a sentence."""
    if value is None:
        return "no value"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, bytes | bytearray):
        return "bytes"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, dict):
        return "a struct"
    return "text" if isinstance(value, str) else type(value).__name__


def column_problems(row: Any) -> dict[str, str]:
    """``{column: one sentence}`` for every column of an export row whose value is not of
    the column's type (a row that is not a mapping: one problem under ``row``).

    Why every column, before anything reads them: the loader's checks (JSON of the ground
    truth, sha256 of the model, …) assume text, so a hand-made export with an integer or a
    struct where text belongs must be refused here, in a sentence, not reach them."""
    if not isinstance(row, dict):
        return {"row": f"the row is {_kind(row)}, not a record of the export's columns"}
    found: dict[str, str] = {}
    for name in COLUMNS:
        value = row.get(name)
        if name == "image":
            ok = isinstance(value, dict) and isinstance(value.get("bytes"), bytes | bytearray)
            expected = "a struct of the image's bytes and file name"
        elif name == "difficulty":
            ok = isinstance(value, int) and not isinstance(value, bool)
            expected = "an integer"
        else:
            ok = isinstance(value, str) or (value is None and name in _NULLABLE)
            expected = "text" + (" or no value" if name in _NULLABLE else "")
        if not ok:
            found[name] = (f"column {name} holds {_kind(value)}, not {expected} (not an "
                           "export tools/export_hf.py writes)")
    return found


def split_file(split: str) -> str:
    return f"{DATA_FOLDER}/{split}-00000-of-00001.parquet"


def write_atomically(target: Path, write: Any) -> None:
    """``write(temporary path)``, then the file replaces ``target`` in one step: a reader
    never sees half a file, and an interrupted export leaves the previous one whole."""
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
