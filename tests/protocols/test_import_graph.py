"""The protocol package's imports run one way (brief: untie ``_protocol`` <-> dispatch/mapping/tools).

``protocols`` never imports ``harness``; the semantics modules read the ``ProtocolVersion``
descriptor and never import ``_protocol`` (only the catalog and the package do); and no module of
the package is part of an import cycle, lazy imports inside functions included.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).parents[2] / "protocols"


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every protocols module this file imports, at any depth of the file (lazy imports too)."""
    here = _module(path)
    package = here if path.name == "__init__.py" else here.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            found.add(target)
            found |= {f"{target}.{a.name}" for a in node.names}
    return found


def _graph() -> dict[str, set[str]]:
    modules = {_module(p): p for p in ROOT.rglob("*.py")}
    return {name: {m for m in _imports(path) if m in modules and m != name} for name, path in modules.items()}


def test_protocols_never_imports_harness() -> None:
    for path in ROOT.rglob("*.py"):
        assert not any(m == "harness" or m.startswith("harness.") for m in _imports(path)), path


def test_only_the_catalog_and_the_package_import_protocol() -> None:
    importers = {name for name, deps in _graph().items() if "protocols._protocol" in deps}
    assert importers == {"protocols", "protocols._catalog"}


def test_no_module_of_the_package_is_in_an_import_cycle() -> None:
    graph = _graph()
    packages = {name for name in graph if (ROOT.parent / name.replace(".", "/") / "__init__.py").exists()}

    def reach(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for dep in graph[todo.pop()] - packages:  # a package's __init__ only re-exports its modules
                if dep not in seen:
                    seen.add(dep)
                    todo.append(dep)
        return seen

    cyclic = sorted(name for name in graph if name not in packages and name in reach(name))
    assert cyclic == []
