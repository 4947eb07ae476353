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
