"""Layers point one way: each part of the package imports only parts below it, and no two
modules import each other (function-level imports included)."""

import ast
from pathlib import Path

import cipherfab

PKG = Path(cipherfab.__file__).parent

#: each part and the parts it may import (the registry finds the ciphers it lists, and the
#: ciphers declare themselves with it: that pair is the one plug-in loop)
ALLOWED = {
    "errors": set(), "argtypes": set(), "userfiles": {"errors"}, "cache": {"errors", "userfiles"},
    "lint": {"errors"}, "cluster": {"errors"}, "readme": {"errors"}, "verilog_files": {"errors", "userfiles"},
    "env": {"errors", "userfiles"}, "progress": set(),
    "registry": {"errors", "argtypes", "ciphers"},
    # hw/ itself (the core contract and the blocks every core shares), then its rooms
    "hw": {"errors", "registry"},
    "hw.masking": {"errors", "hw"},
    "hw.stream": {"errors", "hw"},
    "hw.gcm": {"errors", "hw", "hw.stream"},
    "hw.system": {"errors", "hw", "hw.stream", "hw.gcm"},
    "ciphers": {"errors", "registry", "hw", "hw.masking"},
    "generate": {"errors", "userfiles", "argtypes", "registry", "hw", "hw.stream", "hw.system", "lint"},
    "vectors": {"errors", "userfiles", "registry"},
    "sim": {"errors", "userfiles", "argtypes", "cache", "registry", "hw", "lint", "generate", "vectors", "cluster",
            "readme", "verilog_files"},
    "flow": {"errors", "userfiles", "argtypes", "cache", "registry", "hw", "hw.stream", "generate", "sim",
             "verilog_files", "progress"},
    "host": {"errors", "userfiles", "argtypes", "cache", "registry", "hw", "hw.stream", "hw.gcm", "hw.system",
             "generate", "sim", "vectors"},
    "study": {"errors", "userfiles", "argtypes", "cache", "registry", "hw", "generate", "sim", "flow", "host",
              "cluster", "readme", "cli", "progress"},
}

#: single modules allowed more than their part, each with its reason
EXCEPTIONS = {
    # the order-t robust run on one masked S-box in isolation (issue 36): it builds the
    # gadget circuit itself (the gate list comes from a registry point's core); no other
    # flow module imports the gadget library
    "cipherfab.flow.robust_sbox": {"hw.masking"},
}
#: the rooms of hw/: a module in one is part "hw.<room>"
HW_ROOMS = {"masking", "stream", "gcm", "system"}


def test_every_room_of_hw_has_its_layer():
    assert {d.name for d in (PKG / "hw").iterdir() if (d / "__init__.py").is_file()} == HW_ROOMS


def _module(f: Path) -> str:
    parts = list(f.relative_to(PKG.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> dict[str, set[str]]:
    out = {}
    for f in PKG.rglob("*.py"):
        mod = _module(f)
        base = mod.split(".") if f.name == "__init__.py" else mod.split(".")[:-1]
        targets = out.setdefault(mod, set())
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.ImportFrom):
                name = ".".join(base[:len(base) - node.level + 1] + [node.module or ""]).strip(".") \
                    if node.level else (node.module or "")
                if name.startswith("cipherfab"):      # `from . import x` imports x, not the package
                    targets |= ({name} if node.module else set()) | {f"{name}.{a.name}" for a in node.names}
            elif isinstance(node, ast.Import):
                targets |= {a.name for a in node.names if a.name.startswith("cipherfab")}
    return out


def _part(name: str) -> str:
    parts = name.split(".")
    if parts[1:2] == ["hw"] and len(parts) > 2 and parts[2] in HW_ROOMS:
        return f"hw.{parts[2]}"
    return parts[1] if len(parts) > 1 else name


def test_parts_import_only_parts_below_them():
    wrong = sorted(f"{m} imports {t}" for m, ts in _imports().items() for t in ts
                   if _part(m) in ALLOWED and _part(t) in ALLOWED
                   and _part(t) != _part(m) and _part(t) not in ALLOWED[_part(m)]
                   and _part(t) not in EXCEPTIONS.get(m, ()))
    assert not wrong, wrong


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm): each
    is an import cycle, of any length."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycle_of_any_length():
    """No set of modules imports itself round (function-level imports included); the one
    plug-in loop, the registry and the ciphers it finds, is the exception."""
    imports = _imports()
    modules = set(imports)
    edges = {m: {t for t in ts if t in modules and t != m and not
                 {_part(m), _part(t)} <= {"registry", "ciphers"}} for m, ts in imports.items()}
    assert not _cycles(edges), _cycles(edges)


def test_the_cycle_check_finds_a_long_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_file_of_the_package_names_a_path_of_the_machine_it_was_written_on():
    """A path under the machine's own folders (work, home, root, Users, tmp) in a module, a
    data file or a template holds only on the machine that wrote it (issue 35: seven files
    named the shared papers folder by its absolute path)."""
    import re
    machine = re.compile(r"(?<![\w.~])/(?:work|home|root|Users|tmp)/[\w.-]")
    found = [f"{f.relative_to(PKG)}:{n}" for f in sorted(PKG.rglob("*"))
             if f.is_file() and f.suffix in (".py", ".toml", ".j2", ".cpp", ".md", ".json")
             for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1)
             if machine.search(line)]
    assert not found, found


def test_no_module_replaces_another_modules_attributes():
    """A layer hands a lower one its code through a declared extension point (sim.hooks),
    never by assigning into the lower module (``sim_cli.GCM_RUNNER = ...``), which runs an upper
    layer's code where the layer rules cannot see it."""
    found = []
    for f in PKG.rglob("*.py"):
        tree = ast.parse(f.read_text())
        modules = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("cipherfab")):
                base = f.parent if node.level else None
                for a in node.names:
                    name = a.asname or a.name
                    folder = (base.joinpath(*[".."] * (node.level - 1), *(node.module or "").split("."))
                              if base else PKG.parent.joinpath(*node.module.split(".")))
                    if (folder / f"{a.name}.py").exists() or (folder / a.name / "__init__.py").exists():
                        modules.add(name)
            elif isinstance(node, ast.Import):
                modules |= {a.asname for a in node.names if a.name.startswith("cipherfab") and a.asname}
        for node in ast.walk(tree):
            targets = node.targets if isinstance(node, ast.Assign) else \
                [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
            found += [f"{f.relative_to(PKG)}:{node.lineno}" for t in targets
                      if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id in modules]
    assert not found, found


def test_no_test_or_page_names_a_path_of_the_machine_it_was_written_on():
    """The same for the tests, the docs and the README: a sample or a fixture names the files
    of any machine by a placeholder or a path relative to the repository."""
    import re
    machine = re.compile(r"(?<![\w.~])/(?:work|home|root|Users)/[\w.-]")
    repo = PKG.parents[1]
    files = [repo / "README.md", *(f for d in ("tests", "docs") for f in (repo / d).rglob("*")
                                   if f.suffix in (".py", ".md", ".toml", ".json", ".txt", ".html"))]
    found = [f"{f.relative_to(repo)}:{n}" for f in sorted(files) if f.is_file() and f != Path(__file__)
             for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1)
             if machine.search(line)]
    assert not found, found

