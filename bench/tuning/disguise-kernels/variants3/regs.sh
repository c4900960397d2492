#!/usr/bin/env bash
# Registers, stack and spills of kernel files, without a GPU and without
# touching results/: the files are copied under a scratch kernels/ folder
# (with the book's kernels/ beside them, so includes resolve), checked with
# `cuda-runner check` and listed with `cuda-runner sass` there.
#   bench/tuning/disguise-kernels/variants3/regs.sh FILE.cu ...
# Needs target/release/cuda-runner (cargo build --release -p cuda-runner),
# the pinned NVRTC (.tools/nvrtc) and cuobjdump/nvdisasm (.tools/sass), as
# scripts/test and scripts/sass install them.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../../.." && pwd)
export LD_LIBRARY_PATH=$ROOT/.tools/nvrtc/nvidia/cu13/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
RUNNER=$ROOT/target/release/cuda-runner
TOOLS=$ROOT/.tools/sass/nvidia/cu13/bin
TMP=$(mktemp -d)
[[ -n "${KEEP:-}" ]] && echo "scratch kept: $TMP" || trap 'rm -rf "$TMP"' EXIT
cp -r "$ROOT/kernels" "$TMP/kernels"
mkdir -p "$TMP/kernels/probe"
targets=()
for f in "$@"; do
    abs=$(realpath "$f")
    case "$abs" in
        "$ROOT"/kernels/*) targets+=("$TMP/kernels/${abs#"$ROOT"/kernels/}") ;;
        *) cp "$f" "$TMP/kernels/probe/"; targets+=("$TMP/kernels/probe/$(basename "$f")") ;;
    esac
done
(cd "$TMP" && "$RUNNER" check "${targets[@]}" --arch sm_90)
(cd "$TMP" && "$RUNNER" sass --tools "$TOOLS" "${targets[@]}" >/dev/null)
python3 - "$TMP/results/sass" <<'PY'
import json, pathlib, sys
for f in sorted(pathlib.Path(sys.argv[1]).rglob("*.json")):
    for k in json.load(open(f))["kernels"]:
        text = [i.get("text") or i.get("sass") or "" for i in k["instructions"]]
        stl = sum("STL" in t for t in text)
        ldl = sum("LDL" in t for t in text)
        print(f"{k['name']:<40} registers {k['registers']:>3}  stack {k['stack']:>3}  local {k['local']:>3}  "
              f"STL {stl:>2}  LDL {ldl:>2}  instructions {len(text)}")
PY
