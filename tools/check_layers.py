"""Check that imports in ``src/structeval`` run down the layers, close no circle and take
no private name from another module.

The architecture (``docs/architecture.md``) is a stack: each top-level room of the
package, and each subpackage of ``render/`` and ``harness/``, may import only what lies
below it. Nothing but this script holds that line, so it reads the import graph with
``ast`` (the code is never imported: a broken or planted module cannot run) and fails on:

* an import against the layers (a room or subpackage importing one above it or beside it);
* a module of ``render/`` or ``harness/`` outside their subpackages (the flat layout);
* a circle of modules (imports inside functions count: a lazy import hides a circle, it
  does not break it; only ``if TYPE_CHECKING:`` imports are left out);
* ``from module import _private`` across modules (a private helper needed elsewhere
  belongs in a lower module, made public).

Usage: ``python tools/check_layers.py [--root REPO]``; exit 0 when clean, 1 with one line
per fault (``file:line: what``).
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

PACKAGE = "structeval"

# Top-level rooms, lowest first; a room imports only rooms of a lower rank.
ROOMS: tuple[tuple[str, ...], ...] = (
    ("model",),
    ("cachedir", "phrasebook", "presentation", "private_folder", "safe_files", "safe_text"),
    ("note_keys", "statistics"),
    ("fe",),
    ("scoring",),
    ("api", "render"),
    ("dataset",),
    ("generation",),
    ("harness",),
    ("inspect_task", "reports"),
    ("cli",),
    ("__main__",),
)

# Subpackages of the layered rooms, lowest first; a subpackage imports only its own
# modules and those of the subpackages before it.
SUBLAYERS: dict[str, tuple[str, ...]] = {
    "render": ("reading", "scene", "legibility", "paint", "symbols", "annotation", "compose",
               "cad"),
    "harness": ("common", "inputs", "answers", "client", "run", "command"),
}


class Import(NamedTuple):
    """One imported module (``target``) with the names taken from it, where it is written."""

    source: str
    target: str
    names: tuple[str, ...]
    path: Path
    line: int


def module_names(src: Path) -> dict[str, Path]:
    """Dotted name → file for every module of the package under ``src``."""
    out: dict[str, Path] = {}
    for path in sorted((src / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _type_checking_lines(tree: ast.AST) -> set[int]:
    """Lines of imports under ``if TYPE_CHECKING:`` (never run, so they close no circle)."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for inner in node.body:
                for sub in ast.walk(inner):
                    if isinstance(sub, ast.Import | ast.ImportFrom):
                        lines.add(sub.lineno)
    return lines


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> Iterator[Import]:
    """The package modules ``module`` imports, one record per module (a ``from pkg import
    submodule`` names the submodule)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    skip = _type_checking_lines(tree)
    is_package = path.name == "__init__.py"
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skip:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == PACKAGE:
                    yield Import(module, alias.name, (), path, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, is_package, node)
            if base.split(".")[0] != PACKAGE:
                continue
            plain = []
            for alias in node.names:
                if f"{base}.{alias.name}" in modules:
                    yield Import(module, f"{base}.{alias.name}", (), path, node.lineno)
                else:
                    plain.append(alias.name)
            if plain:
                yield Import(module, base, tuple(plain), path, node.lineno)


def _absolute(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _place(module: str) -> tuple[str, str | None]:
    """(room, subpackage) of a dotted module name; the room is ``""`` for the package."""
    parts = module.split(".")[1:]
    room = parts[0] if parts else ""
    sub = parts[1] if room in SUBLAYERS and len(parts) > 1 else None
    return room, sub


def _room_rank(room: str) -> int | None:
    return next((i for i, level in enumerate(ROOMS) if room in level), None)


def layer_faults(imp: Import, modules: dict[str, Path]) -> list[str]:
    """Why ``imp`` runs against the layers (empty when it does not)."""
    room, sub = _place(imp.source)
    to_room, to_sub = _place(imp.target)
    if room == "":  # structeval/__init__.py: the package's face may gather from any room
        return []
    if to_room == "" and all(n.startswith("__") for n in imp.names):
        return []  # the package's own metadata (__version__, __file__): loaded before any room
    if room != to_room:
        mine, theirs = _room_rank(room), _room_rank(to_room)
        if mine is None:
            return [f"{room!r} is not a known room (add it to ROOMS in tools/check_layers.py)"]
        if theirs is None or theirs >= mine:
            return [f"{imp.source} imports {imp.target}: room {room!r} may not import "
                    f"{to_room or 'the package face'!r} (same or higher layer)"]
        return []
    if room not in SUBLAYERS or imp.source == f"{PACKAGE}.{room}":
        return []  # an unlayered room, or the layered room's own face (__init__)
    order = SUBLAYERS[room]
    if sub is None or sub not in order:
        return [f"{imp.source} lies outside the subpackages of {room}/ ({', '.join(order)})"]
    if to_sub is None or to_sub not in order:
        return [f"{imp.source} imports {imp.target}, which is no subpackage of {room}/"]
    if order.index(to_sub) > order.index(sub):
        return [f"{imp.source} imports {imp.target}: {room}/{sub} may not import "
                f"{room}/{to_sub} (a higher layer)"]
    return []


def private_faults(imp: Import) -> list[str]:
    """``from other import _name``: a private helper crossing files."""
    if imp.target == imp.source:
        return []
    return [f"{imp.source} imports private {name} from {imp.target}"
            for name in imp.names if name.startswith("_") and not name.startswith("__")]


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def check(root: Path) -> list[str]:
    """Every fault of the package under ``root/src``, one line each (``file:line: what``)."""
    src = root / "src"
    modules = module_names(src)
    faults: list[str] = []
    graph: dict[str, set[str]] = {m: set() for m in modules}
    where: dict[tuple[str, str], Import] = {}

    def rel(path: Path) -> str:
        return str(path.relative_to(root))

    for module, path in modules.items():
        room, sub = _place(module)
        if room and _room_rank(room) is None:
            faults.append(f"{rel(path)}:1: {room!r} is in no layer (add it to ROOMS in "
                          "tools/check_layers.py and to docs/architecture.md)")
        elif room in SUBLAYERS and module != f"{PACKAGE}.{room}" and sub not in SUBLAYERS[room]:
            faults.append(f"{rel(path)}:1: {module} lies outside the subpackages of {room}/ "
                          f"({', '.join(SUBLAYERS[room])})")
        for imp in imports_of(module, path, modules):
            for fault in layer_faults(imp, modules) + private_faults(imp):
                faults.append(f"{rel(imp.path)}:{imp.line}: {fault}")
            if imp.target in modules and imp.target != module:
                graph[module].add(imp.target)
                where.setdefault((module, imp.target), imp)
    for component in circles(graph):
        members = set(component)
        first = component[0]
        edges = sorted((a, b) for a in component for b in graph[a] if b in members)
        a, b = next(e for e in edges if e[0] == first)
        imp = where[(a, b)]
        faults.append(f"{rel(imp.path)}:{imp.line}: circle of {len(component)} modules: "
                      f"{' ↔ '.join(m.removeprefix(PACKAGE + '.') for m in component)}")
    return faults


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent,
                        help="the repository (default: the one holding this script)")
    args = parser.parse_args(argv)
    faults = check(args.root)
    for fault in faults:
        print(fault)
    if faults:
        print(f"{len(faults)} import fault(s): see docs/architecture.md for the layers",
              file=sys.stderr)
        return 1
    print("imports follow the layers: no back-import, no circle, no private name across files")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
