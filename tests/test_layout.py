"""The layout of docs/design.md, checked: what ``lint-imports`` (the layers contract in pyproject.toml)
does not see. Read from the source of ``harness/`` and ``protocols/``:

- no import circle, counting that importing a module first runs the ``__init__`` of each package on
  its path that the importer is not already inside (so ``models`` importing ``scripted`` inside a
  function, or a type-checking import back, is a circle);
- no package with over 20 modules or 3,000 lines directly in its folder;
- no two packages named alike (``report`` beside ``reports``);
- no comment or docstring that explains code by a ticket number instead of a spec rule id;
- docs/design.md's layout table names exactly the packages there are, in the contract's order;
- no source or documentation file over 400 lines (the generated data under tests and plans aside), and a
  README.md that fits a screen or two (150 lines): depth goes to the docs pages.
"""

from __future__ import annotations

import ast
import re
import subprocess
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOPS = ("harness", "protocols")


def _modules() -> dict[str, Path]:
    out = {}
    for top in TOPS:
        for path in (ROOT / top).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


MODULES = _modules()


def _imported(path: Path, module: str) -> Iterator[str]:
    """Every harness/protocols name an import statement anywhere in the file reaches (functions too)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            yield from (f"{target}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)


def _resolve(name: str) -> str | None:
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def import_graph() -> dict[str, set[str]]:
    """module → modules whose execution importing it starts (packages' ``__init__`` included)."""
    graph: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        inside = {".".join(module.split(".")[:i]) for i in range(1, module.count(".") + 2)}
        if path.name != "__init__.py":
            inside.discard(module)
        edges: set[str] = set()
        for name in _imported(path, module):
            if not name.startswith(TOPS) or (target := _resolve(name)) is None or target == module:
                continue
            parts = target.split(".")
            edges |= {p for i in range(1, len(parts) + 1) if (p := ".".join(parts[:i])) not in inside}
        edges.discard(module)
        graph[module] = edges
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def packages() -> list[Path]:
    return sorted(p.parent for top in TOPS for p in (ROOT / top).rglob("__init__.py"))


def test_no_import_circle_counting_package_inits() -> None:
    assert cycles(import_graph()) == []


def test_the_circle_finder_sees_a_circle_and_only_a_circle() -> None:
    chain = {"a": {"b", "b._x"}, "b": {"b._y"}, "b._x": set(), "b._y": set()}
    assert cycles(chain) == []
    back = {**chain, "b._y": {"a"}}  # a → b (its __init__) → b._y → a
    assert cycles(back) == [["a", "b", "b._y"]]


def test_importing_a_submodule_runs_its_package_init() -> None:
    """``harness.judging._judge`` importing ``harness.results._records`` also starts ``harness.results``;
    its own package's ``__init__`` (already running) is no edge."""
    graph = import_graph()
    assert {"harness.results", "harness.results._records"} <= graph["harness.judging._judge"]
    assert "harness.judging" not in graph["harness.judging._judge"]


@pytest.mark.parametrize("package", packages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_package_over_20_modules_or_3000_lines(package: Path) -> None:
    modules = list(package.glob("*.py"))
    lines = sum(len(m.read_text(encoding="utf-8").splitlines()) for m in modules)
    assert len(modules) <= 20 and lines <= 3000, f"{package}: {len(modules)} modules, {lines} lines"


def test_no_two_packages_named_alike() -> None:
    def stem(path: Path) -> str:
        return re.sub(r"(e?s)$", "", path.name.strip("_").lower())

    seen: dict[str, Path] = {}
    for package in packages():
        other = seen.setdefault(stem(package), package)
        assert other == package, f"{other.relative_to(ROOT)} and {package.relative_to(ROOT)} are named alike"


TICKET = re.compile(r"\b(issue|ticket)s?\s*#?\d+|\(#\d+\)", re.IGNORECASE)


def test_no_comment_or_docstring_cites_a_ticket() -> None:
    """A module says what it does and the spec rule it implements (X-40, O-2); a ticket number means
    nothing to a reader."""
    hits = [f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
            for path in sorted(MODULES.values())
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if TICKET.search(line)]
    hits += [f"{path.relative_to(ROOT)}: {line.strip()}" for path in (ROOT / "harness").rglob("*.j2")
             for line in path.read_text(encoding="utf-8").splitlines() if TICKET.search(line)]
    assert hits == []


def _contract_layers() -> list[list[str]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (contract,) = [c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers"]
    return [[name.strip() for name in layer.split("|")] for layer in contract["layers"]]


def _design_table() -> list[list[str]]:
    text = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    section = text.split("## Layout", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    out = []
    for row in rows:
        cell = row.split("|")[1]
        names = re.findall(r"`([^`]+)`|·\s*`?([\w/]+)`?", cell)
        first = [a or b for a, b in names]
        prefix = first[0].rpartition("/")[0]
        out.append([(n if "/" in n or not prefix else f"{prefix}/{n}").replace("/", ".") for n in first])
    return out


def test_design_table_matches_the_folders_and_the_contract() -> None:
    table = _design_table()
    assert table == _contract_layers()
    under_harness = {f"harness.{p.parent.name}" for p in (ROOT / "harness").glob("*/__init__.py")}
    under_harness |= {f"harness.{p.stem}" for p in (ROOT / "harness").glob("*.py") if p.stem != "__init__"}
    assert {name for row in table for name in row} == under_harness | {"protocols"}


MAX_LINES = 400
README_MAX_LINES = 150
DATA = (".json", ".jsonl", ".ipynb", ".csv", ".svg", ".png", ".sqlite", ".duckdb", ".parquet")
"""Data a test or a plan reads (golden requests, recorded reports, the schema), not text anyone reads through."""
SPLITTING: dict[str, int] = {}
"""Files over the limit that are being split, each at most as long as it is now: remove its entry once it is."""


def _tracked() -> list[str]:
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [name for name in listed.splitlines() if (ROOT / name).is_file()]


def test_no_file_over_400_lines() -> None:
    """One sitting's reading (docs/design.md): no module, script, template, page or config over 400 lines."""
    long = {}
    for name in _tracked():
        if name.endswith(DATA):
            continue
        lines = len((ROOT / name).read_text(encoding="utf-8").splitlines())
        if lines > SPLITTING.get(name, MAX_LINES):
            long[name] = lines
    assert long == {}
    done = [name for name, cap in SPLITTING.items() if len((ROOT / name).read_text(encoding="utf-8").splitlines())
            <= MAX_LINES]
    assert done == [], f"{done} now fit {MAX_LINES} lines: remove them from SPLITTING"


def test_the_readme_fits_a_screen_or_two() -> None:
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= README_MAX_LINES
