#!/usr/bin/env python3
"""The module rule: in each crate listed below, no cycle among its top-level
modules, in a layered crate no module importing from a layer above its
own, and in a folder listed in SIBLINGS no submodule importing another
(the plugin's artifact kinds). scripts/test runs it; `scripts/modgraph.py --self-test` shows it
failing on a planted upward import (under both forms of layers), a planted
cycle and a module outside the layers; `--crate DIR` (repeatable) checks
only the crates named.

A crate's layers are given in one of two forms, bottom first:
- a list of folder names: the folders under its src/; a module's layer is
  the folder it lives in, and `crate::a::b` or `crate::b` (a curated
  re-export at the crate root) both name module b of layer a;
- an ordered mapping layer -> module names, for a flat crate (every module
  a file or folder directly under src/): every module must be in exactly
  one layer, and every name listed must be a module.
Test code is left out: `#[cfg(test)]` items and the files they declare
(`mod tests;`) may import anything.

The core's layers (runner/core/src), bottom first, and why each sits where
it does:
- base: leaf helpers that import no crate module (writing a file whole,
  non-finite floats in JSON, did-you-mean), usable from any layer.
- model: what an example is: its source, header, declaration, sizes and
  the problem it solves (a declaration names its problem, so it sits on
  the problems, and reading a record's size back needs their registry).
- plan: how an example is launched: launch tables resolved against a size
  and the GPU's limits, argument binding and the kernels' PTX signatures,
  all read from the model.
- method: the measuring method's statistics (sampling policy, stop rule,
  ceilings), which a record carries.
- store: a record, its key and the results folder; records hold the model
  and the method's figures.
- figures: what is derived from records: the figures of a size and the
  pooling of several processes' samples into one record.
- engine: measuring a list of examples in child processes (sessions,
  isolation, their lifetime and diagnostics), writing records to the store.
- reports: everything read off the layers below: peers, repeatability,
  profiles, the sanitizer, SASS, host figures, exercises, the all-reduce,
  the compile job's judgement and hints, templates.
"""
import os
import re
import sys
import tempfile

# crate source folder -> its layers, bottom first (None: only no cycles;
# a list: folder layers; a dict: layer -> modules of a flat crate).
CORE_LAYERS = {
    "base": ["atomic_file", "nonfinite", "suggest"],
    "model": [
        "size",
        "dims",
        "call_syntax",
        "include_scan",
        "source",
        "problem",
        "declaration",
        "header_lines",
        "sweep",
        "example",
        "compile_options",
    ],
    "plan": ["plan_expr", "launch_plan", "binding", "limits", "plan_check", "ptx", "ptx_calls", "fault_cause", "signature"],
    "method": ["method"],
    "store": ["record", "key", "store"],
    "figures": ["figures", "pool"],
    "engine": ["session", "isolate", "workers", "child", "lifetime", "launcher", "diagnostics"],
    "reports": [
        "peers",
        "repeatability",
        "profile",
        "sanitizer",
        "sass",
        "sass_counts",
        "host",
        "exercise",
        "allreduce",
        "report",
        "template",
        "compile_job",
        "compile_judge",
        "compile_hint",
    ],
}

# The plugin's layers (preprocessor/src, a flat crate), bottom first:
# - base: leaf helpers and the plugin's settings, the results folder.
# - book: reading the book: chapters, where each byte came from, the
#   `{{#...}}` of a chapter, the catalog of examples and the names it knows.
# - settle: compiling and settling each example's outcome, and the
#   results directives read.
# - render: what every renderer shares (tables, charts, example panels).
# - artifacts: one module per stored-artifact kind (sass, profile,
#   sanitizer, host, peers, repeatability, allreduce), each reading its
#   arguments and file, judging and rendering it; no kind imports another
#   (SIBLINGS below).
# - directives: parsing every directive, dispatching the kinds' arguments.
# - pages: evaluating and rendering directives, the status page, the
#   evidence it lists, exercises.
# - pass: the book's pass and the commands.
PLUGIN_LAYERS = {
    "base": [
        "chapter_links",
        "compile_cache",
        "compile_run",
        "config",
        "fence_info",
        "figures",
        "markup",
        "outcome",
        "report",
        "shard",
        "shown",
        "splice",
        "stored",
    ],
    "book": ["scan", "powers", "maths_guard", "source_map", "directive_syntax", "catalog", "example_ref", "names", "book_files", "typed_figures", "unlinked"],
    "settle": ["compile_step", "measure", "results"],
    "render": ["render"],
    "artifacts": ["artifacts"],
    "directives": ["directives"],
    "pages": [
        "status_page",
        "evidence",
        "values",
        "evidence_judge",
        "exercise_gates",
        "page",
        "exercise_page",
    ],
    "pass": ["book_pass", "cmd"],
}

CRATES = {
    "runner/core/src": CORE_LAYERS,
    "preprocessor/src": PLUGIN_LAYERS,
    "runner/src": None,
}

# crate source folder -> folder modules whose submodules are siblings that
# never import one another (each stored-artifact kind stands alone; what
# they share sits in the folder's own mod.rs or below the folder).
SIBLINGS = {
    "preprocessor/src": ["artifacts"],
}

CFG_TEST_MOD = re.compile(r"#\[cfg\(test\)\]\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;")


def strip_comments(src):
    src = re.sub(r"/\*.*?\*/", "", src, flags=re.S)
    return re.sub(r"//[^\n]*", "", src)


def strip_cfg_test_blocks(src):
    """Removes every `#[cfg(test)]` item with a braced body (a test module)."""
    out = []
    i = 0
    marker = "#[cfg(test)]"
    while True:
        j = src.find(marker, i)
        if j < 0:
            out.append(src[i:])
            return "".join(out)
        out.append(src[i:j])
        brace = src.find("{", j)
        semi = src.find(";", j)
        if brace < 0 or (0 <= semi < brace):
            i = semi + 1  # `#[cfg(test)] mod tests;` or a `use`: dropped
            continue
        depth = 0
        k = brace
        while k < len(src):
            if src[k] == "{":
                depth += 1
            elif src[k] == "}":
                depth -= 1
                if depth == 0:
                    break
            k += 1
        i = k + 1


def rust_files(src_dir):
    for d, _, files in os.walk(src_dir):
        for f in sorted(files):
            if f.endswith(".rs"):
                yield os.path.relpath(os.path.join(d, f), src_dir)


def test_only_files(src_dir):
    """Files declared by a `#[cfg(test)] mod name;` (and what lies under them)."""
    test_only = set()
    for rel in rust_files(src_dir):
        text = strip_comments(open(os.path.join(src_dir, rel), encoding="utf-8").read())
        base = os.path.dirname(rel)
        stem = os.path.splitext(os.path.basename(rel))[0]
        here = base if stem in ("lib", "main", "mod") else os.path.join(base, stem)
        for name in CFG_TEST_MOD.findall(text):
            test_only.add(os.path.normpath(os.path.join(here, name + ".rs")))
            test_only.add(os.path.normpath(os.path.join(here, name)) + os.sep)
    return test_only


def is_test_only(rel, test_only):
    return rel in test_only or any(rel.startswith(p) for p in test_only if p.endswith(os.sep))


def modules(src_dir, layers):
    """Top-level module of each source file: (layer, module) for a layered
    crate, (None, module) otherwise; lib.rs and main.rs are the root."""
    found = {}
    mapped = isinstance(layers, dict)
    for rel in rust_files(src_dir):
        parts = rel.split(os.sep)
        if mapped:
            if parts[0] in ("lib.rs", "main.rs"):
                continue
            m = parts[0].removesuffix(".rs")
            found[rel] = (next((l for l, ms in layers.items() if m in ms), None), m)
        elif layers:
            if parts[0] in ("lib.rs", "main.rs") or parts[0].removesuffix(".rs") in layers and len(parts) == 1:
                continue
            layer = parts[0].removesuffix(".rs")
            if len(parts) < 2 or layer not in layers:
                found[rel] = (None, parts[0].removesuffix(".rs"))
                continue
            found[rel] = (layer, parts[1].removesuffix(".rs"))
        else:
            if parts[0] in ("lib.rs", "main.rs"):
                continue
            found[rel] = (None, parts[0].removesuffix(".rs"))
    return found


def references(text):
    """Every first or second path segment after `crate::`, with groups."""
    refs = []
    for m in re.finditer(r"\bcrate::(\{[^}]*\}|\w+)(?:::(\{[^}]*\}|\w+))?", text):
        first, second = m.group(1), m.group(2)
        firsts = re.findall(r"(?:^|[{,])\s*(\w+)", first) if first.startswith("{") else [first]
        for f in firsts:
            seconds = []
            if second and len(firsts) == 1:
                seconds = re.findall(r"(?:^|[{,])\s*(\w+)", second) if second.startswith("{") else [second]
            refs.append((f, seconds))
    return refs


def check_crate(src_dir, layers):
    """The crate's violations, as sentences."""
    problems = []
    test_only = test_only_files(src_dir)
    mods = modules(src_dir, layers)
    names = {m for _, m in mods.values()}
    layer_of = {m: layer for layer, m in mods.values()}
    mapped = isinstance(layers, dict)
    if mapped:
        seen = {}
        for layer, ms in layers.items():
            for m in ms:
                if m in seen:
                    problems.append(f"{src_dir}: module `{m}` is in two layers, {seen[m]} and {layer}; keep it in one (scripts/modgraph.py)")
                seen.setdefault(m, layer)
                if m not in names:
                    problems.append(f"{src_dir}: layer {layer} lists `{m}`, which is no module of the crate; drop it (scripts/modgraph.py)")
    if layers:
        reported = set()
        for rel, (layer, m) in sorted(mods.items()):
            if layer is None and not is_test_only(rel, test_only) and m not in reported:
                reported.add(m)
                fix = "add it to one of the layers in scripts/modgraph.py" if mapped else "move it under one of"
                problems.append(f"{src_dir}/{rel}: module `{m}` is in no layer; {fix} {', '.join(layers)}")
    graph = {m: set() for m in names}
    where = {}
    for rel, (layer, m) in mods.items():
        if is_test_only(rel, test_only):
            continue
        text = strip_cfg_test_blocks(strip_comments(open(os.path.join(src_dir, rel), encoding="utf-8").read()))
        for first, seconds in references(text):
            targets = []
            if layers and not mapped and first in layers:
                targets = [s for s in seconds if s in names]
            elif first in names:
                targets = [first]
            for t in targets:
                if t != m:
                    graph[m].add(t)
                    where.setdefault((m, t), rel)
    if layers:
        rank = {layer: i for i, layer in enumerate(layers)}  # a dict's keys, in order
        for (m, t), rel in sorted(where.items()):
            lm, lt = layer_of.get(m), layer_of.get(t)
            if lm in rank and lt in rank and rank[lt] > rank[lm]:
                problems.append(
                    f"{src_dir}/{rel}: `{m}` ({lm}) imports `{t}` ({lt}), a layer above it; "
                    f"layers go {' < '.join(layers)} and imports point down only"
                )
    for cycle in cycles(graph):
        edges = ", ".join(f"{a} -> {b} ({where[(a, b)]})" for a, b in cycle_edges(graph, cycle))
        problems.append(f"{src_dir}: module cycle {{{', '.join(sorted(cycle))}}}: {edges}")
    return problems


def check_siblings(src_dir, folder):
    """Sentences for each submodule of `folder` that imports another:
    `crate::folder::other`, or `super::other` from its mod.rs (or its
    file), `super::super::other` one level deeper."""
    problems = []
    base = os.path.join(src_dir, folder)
    if not os.path.isdir(base):
        return [f"{src_dir}: {folder}/ is listed in SIBLINGS but is no folder; drop it (scripts/modgraph.py)"]
    test_only = test_only_files(src_dir)
    kinds = sorted(
        {e.removesuffix(".rs") for e in os.listdir(base) if e != "mod.rs" and (e.endswith(".rs") or os.path.isdir(os.path.join(base, e)))}
    )
    for rel in rust_files(src_dir):
        parts = rel.split(os.sep)
        if parts[0] != folder or len(parts) < 2 or parts[1] == "mod.rs" or is_test_only(rel, test_only):
            continue
        own = parts[1].removesuffix(".rs")
        depth = len(parts) - 2 if parts[-1] == "mod.rs" or len(parts) == 2 else len(parts) - 1
        text = strip_cfg_test_blocks(strip_comments(open(os.path.join(src_dir, rel), encoding="utf-8").read()))
        ups = r"super::" * depth
        pattern = rf"\bcrate::{folder}::(\{{[^}}]*\}}|\w+)" + (rf"|(?<![\w:]){ups}(\{{[^}}]*\}}|\w+)" if depth else "")
        for m in re.finditer(pattern, text):
            group = m.group(1) or m.group(2) or ""
            names = re.findall(r"(?:^|[{,])\s*(\w+)", group) if group.startswith("{") else [group]
            for name in names:
                if name in kinds and name != own:
                    problems.append(
                        f"{src_dir}/{rel}: `{folder}::{own}` imports `{folder}::{name}`; the modules of {folder}/ stand alone: "
                        f"move what they share into {folder}/mod.rs or below {folder}/"
                    )
    return problems


def cycles(graph):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
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
                out.append(comp)

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def cycle_edges(graph, comp):
    members = set(comp)
    return sorted((a, b) for a in members for b in graph[a] if b in members)


def self_test():
    """The rule fails on a planted upward import and a planted cycle, and
    passes the same crate without them."""
    def crate(files):
        root = tempfile.mkdtemp()
        for rel, text in files.items():
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        return root

    clean = {
        "lib.rs": "pub mod model; pub mod store;\npub use model::size;\n",
        "model/mod.rs": "pub mod size;\n",
        "model/size.rs": "pub struct Size;\n#[cfg(test)]\nmod tests { use crate::store::record::Record; }\n",
        "store/mod.rs": "pub mod record;\n",
        "store/record.rs": "use crate::model::size::Size;\nuse crate::size;\n",
    }
    layers = ["model", "store"]
    assert check_crate(crate(clean), layers) == [], check_crate(crate(clean), layers)
    upward = dict(clean)
    upward["model/size.rs"] = "use crate::store::record::Record;\npub struct Size;\n"
    found = check_crate(crate(upward), layers)
    assert any("a layer above it" in p for p in found), found
    assert any("module cycle" in p for p in found), found
    flat = {
        "lib.rs": "mod a; mod b; mod c;\n#[cfg(test)]\nmod test_support;\n",
        "a.rs": "use crate::{b, c::Thing};\n",
        "b.rs": "// crate::a is only named in a comment\n",
        "c.rs": "pub struct Thing;\n",
        "test_support.rs": "use crate::a;\n",
    }
    assert check_crate(crate(flat), None) == [], check_crate(crate(flat), None)
    flat["c.rs"] = "pub struct Thing;\nfn f() { crate::a::g(); }\n"
    found = check_crate(crate(flat), None)
    assert len(found) == 1 and "{a, c}" in found[0], found
    stray = dict(clean)
    stray["loose.rs"] = "pub fn f() {}\n"
    found = check_crate(crate(stray), layers)
    assert any("is in no layer" in p for p in found), found
    mapping = {"model": ["size"], "store": ["record"]}
    mapped = {
        "lib.rs": "pub mod record; pub mod size;\n",
        "size.rs": "pub struct Size;\n#[cfg(test)]\nmod tests { use crate::record::Record; }\n",
        "record.rs": "use crate::size::Size;\npub struct Record;\n",
    }
    assert check_crate(crate(mapped), mapping) == [], check_crate(crate(mapped), mapping)
    up = dict(mapped)
    up["size.rs"] = "pub struct Size;\npub fn f() -> crate::record::Record { todo!() }\n"
    up["record.rs"] = "pub struct Record;\n"
    found = check_crate(crate(up), mapping)
    assert len(found) == 1 and "`size` (model) imports `record` (store), a layer above it" in found[0], found
    loose = dict(mapped)
    loose["loose/mod.rs"] = "pub fn f() {}\n"
    found = check_crate(crate(loose), mapping)
    assert len(found) == 1 and "module `loose` is in no layer" in found[0], found
    found = check_crate(crate(mapped), {"model": ["size", "gone"], "store": ["record", "size"]})
    assert any("`gone`, which is no module" in p for p in found), found
    assert any("`size` is in two layers" in p for p in found), found
    kinds = {
        "lib.rs": "mod artifacts;\n",
        "artifacts/mod.rs": "pub mod a; pub mod b;\npub struct Shared;\n",
        "artifacts/a/mod.rs": "use super::Shared;\nmod view;\n#[cfg(test)]\nmod tests { use crate::artifacts::b; }\n",
        "artifacts/a/view.rs": "use super::super::Shared;\n",
        "artifacts/b.rs": "use crate::artifacts::Shared;\n",
    }
    assert check_siblings(crate(kinds), "artifacts") == [], check_siblings(crate(kinds), "artifacts")
    for rel, text in [
        ("artifacts/a/view.rs", "use super::super::b::Thing;\n"),
        ("artifacts/b.rs", "use crate::artifacts::{Shared, a};\n"),
        ("artifacts/a/mod.rs", "use super::b;\nmod view;\n"),
    ]:
        planted = dict(kinds)
        planted[rel] = text
        found = check_siblings(crate(planted), "artifacts")
        assert len(found) == 1 and "the modules of artifacts/ stand alone" in found[0], (rel, found)
    print(
        "modgraph self-test: an upward import (folder and mapped layers), a cycle, a module outside "
        "the layers, a module in two, a listed name that is no module and one artifact kind importing "
        "another each fail the rule"
    )


def main():
    if "--self-test" in sys.argv[1:]:
        self_test()
        return 0
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    args = sys.argv[1:]
    chosen = [args[i + 1] for i, a in enumerate(args) if a == "--crate" and i + 1 < len(args)]
    unknown = [c for c in chosen if c not in CRATES]
    if unknown or args.count("--crate") != len(chosen) or len(args) != 2 * len(chosen):
        print(f"usage: scripts/modgraph.py [--self-test] [--crate DIR]...; DIR one of {', '.join(CRATES)}", file=sys.stderr)
        return 2
    crates = {c: CRATES[c] for c in (chosen or CRATES)}
    problems = []
    for src_dir, layers in crates.items():
        os.chdir(root)
        problems += check_crate(src_dir, layers)
        for folder in SIBLINGS.get(src_dir, []):
            problems += check_siblings(src_dir, folder)
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        return 1
    print(f"module rule holds in {', '.join(crates)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
