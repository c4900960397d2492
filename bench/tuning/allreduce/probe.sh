#!/usr/bin/env bash
# Issue 11's first probe, on ONE GPU (no multi-GPU machine is lent yet):
# `cuda-runner allreduce` on rank 0 alone over a short sweep (8 B to
# 256 MiB, every other power of two), then torch.distributed.all_reduce
# with world size 1 (bench/peers/allreduce_torch.py) timed the same way,
# and a side-by-side table. At most 60 s in all; every step runs under
# `timeout` and logs into OUTDIR.
#
#   scripts/bundle                          # here: dist/bin/cuda-runner
#   bench/tuning/allreduce/probe.sh OUTDIR  # on the GPU machine, dist/bin on PATH
#
# OUTDIR gets: env.log (GPU, topology, torch and its NCCL), runner.log and
# allreduce-1gpu.json (the runner's report), torch.log and torch-1gpu.jsonl,
# compare.txt, and rc.txt (each step's exit status; 124 is a time-out).
set -uo pipefail
OUT="${1:?usage: bench/tuning/allreduce/probe.sh OUTDIR}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
cd "$(dirname "$0")/../../.."

# NVLink multicast stays off in every process (../shared/briefs/multigpu.md).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
# Error messages without backtraces in the logs.
export RUST_BACKTRACE=0 RUST_LIB_BACKTRACE=0
# The runner's NVRTC, as scripts/lib.sh finds it.
if [[ -e /usr/local/cuda/lib64/libnvrtc.so.13 ]]; then
    export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
fi
RUNNER="$(command -v cuda-runner || echo dist/bin/cuda-runner)"
SIZES="8,32,128,512,2KiB,8KiB,32KiB,128KiB,512KiB,2MiB,8MiB,32MiB,128MiB,256MiB"
# Short sampling: a quarter of a second at most per implementation and size.
SAMPLING=(--timeout-s 0.2 --min-gpu-s 0.02)
: > "$OUT/rc.txt"
step() {  # step NAME SECONDS LOG COMMAND...
    local name=$1 limit=$2 log=$3
    shift 3
    echo "== $name (at most ${limit} s) -> $log"
    timeout --kill-after=2 "$limit" "$@" > "$OUT/$log" 2>&1
    local rc=$?
    echo "$name $rc" >> "$OUT/rc.txt"
    echo "   exit $rc"
    tail -n 4 "$OUT/$log" | sed 's/^/   /'
}

step env 5 env.log bash -c '
    echo "runner: '"$RUNNER"'"; date -u +%FT%TZ
    nvidia-smi -L; nvidia-smi topo -m
    python3 -c "import torch, os, nvidia.nccl as m
print(\"torch\", torch.__version__, \"cuda\", torch.version.cuda, \"nccl\", torch.cuda.nccl.version())
lib = os.path.join(list(m.__path__)[0], \"lib\"); print(\"nccl wheel lib:\", lib, os.listdir(lib))"
    env | grep -E "^(NCCL_|TORCH_SYMM|NVSHMEM_|CUDA_VISIBLE|LD_LIBRARY_PATH)" | sort'

step runner 28 runner.log "$RUNNER" allreduce --gpus 1 --sizes "$SIZES" "${SAMPLING[@]}" \
    --out "$OUT/allreduce-1gpu.json"

step torch 22 torch.log python3 bench/peers/allreduce_torch.py --sizes "$SIZES" "${SAMPLING[@]}" \
    --out "$OUT/torch-1gpu.jsonl"

step compare 5 compare.txt python3 - "$OUT/allreduce-1gpu.json" "$OUT/torch-1gpu.jsonl" <<'PY'
import json, sys
rows, torch = {}, {}
try:
    report = json.load(open(sys.argv[1]))
    for r in report["rows"]:
        if r.get("timing"):
            rows[(r["implementation"], r["bytes"])] = r["timing"]["median_us"]
    print("GPU:", ", ".join(f'{g["name"]} {g["pci_bus_id"]}' for g in report["gpus"]),
          "| NCCL", report["software"].get("nccl"), "| skipped:", len(report["skipped"]))
except Exception as e:
    print("no runner report:", e)
try:
    for line in open(sys.argv[2]):
        d = json.loads(line)
        if d.get("impl") == "meta":
            print("torch", d["torch"], "| its NCCL", d["nccl"])
        elif "median_us" in d:
            torch[d["bytes"]] = d["median_us"]
except Exception as e:
    print("no torch lines:", e)
impls = ["nccl", "nccl-inplace", "one-shot", "two-shot"]
print(f'{"bytes":>10} ' + " ".join(f"{i:>13}" for i in impls) + f' {"torch":>13} {"torch/nccl-inplace":>19}')
def cell(v, width=13):
    return f"{v:{width}.2f}" if v else f'{"-":>{width}}'
for b in sorted({b for _, b in rows} | set(torch)):
    cells = [rows.get((i, b)) for i in impls]
    t = torch.get(b)
    ratio = t / cells[1] if t and cells[1] else None
    print(f"{b:>10} " + " ".join(cell(c) for c in cells) + f" {cell(t)} " + (f"{ratio:19.3f}" if ratio else f'{"-":>19}'))
print("(median us per all-reduce, hot, slowest rank; one rank: busbw is 0)")
PY
cat "$OUT/compare.txt"
echo "== done: $OUT (rc.txt: each step's exit status)"
