#!/usr/bin/env bash
# One measuring session on a GPU machine, everything that must come from the
# same GPU in one go:
#   1. the whole book measured twice back to back (force mode); the second
#      run's records stay in results/, the two are compared into
#      results/repeatability.json;
#   2. the planted-failure fixture book measured (its results are test data);
#   3. the peers of every problem in bench/peers/peers.toml (CUB, torch,
#      cupy for sum_f32; torch and torch.compile for the row problems), each
#      by the harness its entry names, timed right after and combined with
#      the book kernel it names into results/peers/<problem>.json;
#   4. every example meant to pass (or to be wrong) profiled by Nsight
#      Compute at its largest declared size, at the sizes {{#profile}}
#      directives name and at the size of every exercise stage whose gates
#      read a profile, into results/profile/<id>/<n>.json
#      (`cuda-runner profile`);
#   5. every {{#sanitizer ID CHECK SIZE}} directive of the chapters and the
#      exercise stage files run under compute-sanitizer, into
#      results/sanitizer/<id>/<check>-<n>.json (`cuda-runner sanitize`);
#   6. every {{#host ID SIZE}} directive's host programs (CUDA C++ with
#      nvcc, Python with CuPy, Rust with cudarc; bench/host/) built and
#      run, into results/host/<id>/<language>.json (bench/host/run_hosts.py).
# Needs dist/bin (scripts/bundle) or cargo.
#   7. (stage `lanes` only, on a machine with several GPUs) the whole book
#      measured on one GPU, then on all of them side by side, the two wall
#      times in session-logs/lanes.txt and the two runs' records compared
#      (issue 11's goal: at most 0.6x the 1-GPU time).
#   8. (stage `allreduce` only, on a machine with several GPUs) issue 11's
#      all-reduce reports: `cuda-runner allreduce` on 2 GPUs, then on 1,
#      into results/allreduce/ (NVLink multicast off in every process), and
#      torch.distributed.all_reduce on 2 ranks by the same method
#      (bench/peers/allreduce_torch.py under torch.distributed.run) into
#      session-logs/torch-allreduce-2gpu.jsonl, with `nvidia-smi topo -m`;
#      then the standalone probe of the one-shot whose ranks meet in the
#      kernel (bench/tuning/allreduce/flags/probe.sh, built with nvcc)
#      beside the book's one-shot up to 16 MiB, on 2 GPUs and on 1, into
#      session-logs/flags/allreduce-flags-*gpu.json (never results/; NCCL's
#      figures are the reports' above).
# Usage: bench/gpu-session.sh OUTDIR [all|book|book2|peers|profile|sanitize|host|lanes|allreduce]
# SKIP_AUTO_CHECKS=1 skips the auto-mode checks after the book runs,
# SKIP_PLANTED=1 the planted-failure fixture of the peers stage (its
# records stay current while the runner's method and its kernels do not
# change),
# SKIP_KILL_CHECKS=1 the SIGKILL checks of the peers stage, and
# PROFILE_NAMED_ONLY=1 profiles only what {{#profile}} directives and
# exercise gates name, not every example at its largest size, and
# PROFILE_MATCH=REGEX only the kernel files it matches: for calls
# short of device time.
# `book` is step 1 with the auto-mode checks (when the first run took
# more than SECOND_RUN_IF_UNDER_S seconds, 240 by default, the second run
# is left to `book2`, which takes results/ as the first run's records, so
# that each call stays within a device's per-call time limit), `peers` steps 2 and 3 with the
# fast_reduce counters at 2^30 (it needs the book's current fast_reduce
# record), `profile` step 4: calls of a device with a per-call time limit. OUTDIR receives one file,
# session-STAGE.tar.gz: results/, the fixture's results/ and the logs under
# session-logs/ (the device tool returns at most 8 files).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dest="${1:?usage: $0 OUTDIR [all|book|book2|peers|profile|sanitize|host|lanes|allreduce]}"
stage="${2:-all}"
case $stage in all | book | book2 | peers | profile | sanitize | host | lanes | allreduce) ;; *) echo "unknown stage $stage" >&2; exit 2 ;; esac
mkdir -p "$dest"
cd "$root"
out="$root/session-logs"
rm -rf "$out" && mkdir -p "$out"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
if [[ -x dist/bin/cuda-runner ]] && ! command -v cargo >/dev/null; then bin="$root/dist/bin"; else bin="$root/target/release"; fi
export PATH="$bin:$PATH"
start=$(date +%s)
stamp() { echo "[session $(( $(date +%s) - start )) s] $*"; }
# What has been measured so far goes into OUTDIR after every stage, so a
# call stopped at a device's time limit still returns the finished stages.
pack() {
    tar czf "$dest/session-$stage.tar.gz" results preprocessor/tests/fixtures/planted/results session-logs
}
# Which GPU (by UUID): two stages of one repeatability comparison (book,
# book2) must have run on the same one, and the logs say so.
nvidia-smi -L > "$out/gpu.txt" 2>&1 || true
stamp "GPU: $(head -1 "$out/gpu.txt")"

if [[ $stage == lanes ]]; then
gpus=$(cuda-runner device --count 2>/dev/null || echo 0)
stamp "lanes: the book on 1 GPU, then on $gpus side by side"
if [[ $gpus -lt 2 ]]; then
    echo "lanes: this machine shows $gpus GPU(s); the comparison needs 2 or more" | tee "$out/lanes.txt"
else
    one=$(mktemp -d)
    t0=$(date +%s)
    CUDA_MEASURED_GPUS=1 CUDA_MEASURED_MODE=force scripts/book 2>&1 | tee "$out/lanes-1gpu.log" | grep -E "^\[cuda\] [0-9]+ example" || true
    t1=$(date +%s)
    cp -r results/. "$one/"
    CUDA_MEASURED_GPUS=$gpus CUDA_MEASURED_MODE=force scripts/book 2>&1 | tee "$out/lanes-${gpus}gpu.log" | grep -E "^\[cuda\] [0-9]+ example" || true
    t2=$(date +%s)
    {
        echo "whole book, force mode: 1 GPU $(( t1 - t0 )) s, $gpus GPUs $(( t2 - t1 )) s"
        python3 -c "import sys; a, b = map(int, sys.argv[1:]); print(f'ratio {b / a:.3f} (goal: at most 0.6 on 2 GPUs)')" $(( t1 - t0 )) $(( t2 - t1 ))
    } | tee "$out/lanes.txt"
    cuda-runner repeatability "$one" results > "$out/lanes-repeatability.json" || echo "lanes: repeatability refused, see above"
fi
pack
fi

if [[ $stage == allreduce ]]; then
# The rule of the machines: NVLink multicast stays off in every process.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
gpus=$(cuda-runner device --count 2>/dev/null || echo 0)
nvidia-smi topo -m > "$out/topo.txt" 2>&1 || true
mkdir -p results/allreduce
# One step: COMMAND under a time limit, its output in session-logs/LOG, a
# line if it fails, and the tarball packed after it.
logged() { # LOG LIMIT COMMAND...
    local log=$1 limit=$2
    shift 2
    timeout "$limit" "$@" > "$out/$log" 2>&1 || echo "${log%.log}: exit $?, see $log"
    pack
}
# The standalone probe of the one-shot whose ranks meet in the kernel
# (bench/tuning/allreduce/flags/) beside the book's one-shot on K GPUs,
# into session-logs/flags/ (never results/).
flags_probe() { # K LIMIT
    stamp "allreduce: the in-kernel-barrier one-shot probe on $1 GPU(s), against the one-shot"
    logged "allreduce-flags-$1gpu.log" "$2" bench/tuning/allreduce/flags/probe.sh "$out/flags" "$1"
}
if [[ $gpus -lt 2 ]]; then
    stamp "allreduce: this machine shows $gpus GPU(s); the 2-GPU report needs 2 or more" | tee "$out/allreduce.txt"
else
    stamp "allreduce: NCCL and our kernels on 2 GPUs, 8 B to 4 GiB"
    logged allreduce-2gpu.log "${ALLREDUCE_LIMIT_S:-300}" cuda-runner allreduce --gpus 2
    tail -8 "$out/allreduce-2gpu.log"
    stamp "allreduce: torch.distributed.all_reduce on 2 ranks"
    logged torch-allreduce-2gpu.log 150 python3 -m torch.distributed.run --nproc-per-node 2 \
        bench/peers/allreduce_torch.py --out "$out/torch-allreduce-2gpu.jsonl"
    flags_probe 2 120
fi
stamp "allreduce: the same on 1 GPU (busbw 0: the time alone)"
logged allreduce-1gpu.log 200 cuda-runner allreduce --gpus 1
flags_probe 1 60
fi

second=no
if [[ $stage == all || $stage == book ]]; then
stamp "book, first full measuring run"
CUDA_MEASURED_SAMPLES_DIR="$out/samples-run1" CUDA_MEASURED_MODE=force scripts/book 2>&1 | tee "$out/book-run1.log" | grep -E "^\[cuda\]" || true
pack
first_s=$(( $(date +%s) - start ))
if [[ $stage == all || $first_s -lt ${SECOND_RUN_IF_UNDER_S:-240} ]]; then
    second=yes
else
    stamp "first run took $first_s s: the second is left to stage book2"
fi
fi
[[ $stage == book2 ]] && second=yes

if [[ $second == yes ]]; then
run1=$(mktemp -d)
cp -r results/. "$run1/"
stamp "book, second full measuring run"
CUDA_MEASURED_SAMPLES_DIR="$out/samples-run2" CUDA_MEASURED_MODE=force scripts/book 2>&1 | tee "$out/book-run2.log" | grep -E "^\[cuda\]" || true
if cuda-runner repeatability "$run1" results > "$out/repeatability.json"; then
    cp "$out/repeatability.json" results/repeatability.json
else
    echo "repeatability refused: see above; results/repeatability.json kept as it was"
fi
stamp "repeatability written"
pack

if [[ -z ${SKIP_AUTO_CHECKS:-} ]]; then
stamp "auto mode with nothing changed: expect nothing measured"
scripts/book 2>&1 | grep -E "^\[cuda\]" | tee "$out/auto-unchanged.log" || true
stamp "auto mode after editing one kernel: expect exactly that one measured"
cp kernels/reductions/stride_tree.cu "$run1/stride_tree.cu.orig"
cp results/reductions/stride_tree.json "$run1/stride_tree.json.orig"
echo "// an edit that changes the key" >> kernels/reductions/stride_tree.cu
scripts/book 2>&1 | grep -E "^\[cuda\]" | tee "$out/auto-one-edit.log" || true
cp "$run1/stride_tree.cu.orig" kernels/reductions/stride_tree.cu
cp "$run1/stride_tree.json.orig" results/reductions/stride_tree.json
fi
fi

if [[ $stage == all || $stage == peers ]]; then
if [[ -z ${SKIP_PLANTED:-} ]]; then
stamp "planted-failure fixture book"
(cd preprocessor/tests/fixtures/planted && CUDA_MEASURED_MODE=force mdbook build --dest-dir "$(mktemp -d)") 2>&1 | tee "$out/planted.log" | grep -E "^\[cuda\]" || true
fi

if [[ -z ${SKIP_KILL_CHECKS:-} ]]; then
stamp "killing measuring runs with SIGKILL: no measuring process may survive"
kill_check() { # name, then the command to start in the background
    local name=$1; shift
    "$@" > "$out/kill-$name.log" 2>&1 &
    local pid=$!
    for _ in $(seq 1 100); do pgrep -f "cuda-runner (measure|worker)" >/dev/null && break; sleep 0.2; done
    echo "[$name] measuring processes before kill -9 of pid $pid:" >> "$out/kill-check.log"
    pgrep -fa "cuda-runner (measure|worker)" >> "$out/kill-check.log" || echo "  none started" >> "$out/kill-check.log"
    kill -9 "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true
    sleep 2
    if pgrep -fa "cuda-runner (measure|worker)" >> "$out/kill-check.log"; then
        echo "[$name] FAIL: measuring processes survived" | tee -a "$out/kill-check.log"
        pkill -9 -f "cuda-runner (measure|worker)" || true
    else
        echo "[$name] ok: no measuring process left 2 s after kill -9" | tee -a "$out/kill-check.log"
    fi
}
kill_copy=$(mktemp -d)
cp -r preprocessor/tests/fixtures/planted/. "$kill_copy/"
kill_check cuda-runner-run cuda-runner run kernels/reductions/atomic_per_element.cu
kill_check mdbook-build env -C "$kill_copy" CUDA_MEASURED_MODE=force mdbook build --dest-dir "$kill_copy/book"
for f in "$kill_copy"/results/planted/*.json; do python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$f" || echo "unreadable after kill: $f"; done | tee -a "$out/kill-check.log"
fi

stamp "peers"
mkdir -p results/peers
# Every problem bench/peers/peers.toml lists: its harness (a command from the
# repository root; the output path is appended) writes
# results/peers/<problem>.jsonl, then it is combined with the book kernel
# the entry names (or the fastest of the kernels it lists, at each size).
# PEER_PROBLEMS (space-separated) limits the problems run.
python3 -c 'import tomllib; [print(p, ",".join([e["ours"]] if isinstance(e["ours"], str) else e["ours"]), e.get("harness", "")) for p, e in tomllib.load(open("bench/peers/peers.toml", "rb")).items()]' |
while read -r problem ours harness; do
    if [[ -n ${PEER_PROBLEMS:-} && " $PEER_PROBLEMS " != *" $problem "* ]]; then continue; fi
    if [[ -z $harness ]]; then
        echo "peers $problem: no harness in bench/peers/peers.toml, skipped"
        continue
    fi
    stamp "peers $problem: $harness"
    read -r -a cmd <<<"$harness"
    # The harness writes its file afresh; on failure what it wrote is kept.
    RAW="$out/peers-raw-$problem.jsonl" "${cmd[@]}" "results/peers/$problem.jsonl" > "$out/peers-$problem.log" 2>&1 </dev/null ||
        echo "peers $problem: some step failed, see peers-$problem.log"
    # Only problems whose peers ran this session; a report is replaced only
    # when its new version was written whole.
    [[ -s results/peers/$problem.jsonl ]] || { echo "peers $problem: no results/peers/$problem.jsonl, skipped"; continue; }
    ours_args=()
    IFS=, read -r -a ours_ids <<<"$ours"
    for id in "${ours_ids[@]}"; do ours_args+=(--ours "results/$id.json"); done
    if cuda-runner peers --same-session --problem "$problem" "${ours_args[@]}" --peers "results/peers/$problem.jsonl" > "$out/$problem.json"; then
        cp "$out/$problem.json" "results/peers/$problem.json"
    else
        echo "peers $problem: combining failed, results/peers/$problem.json kept as it was"
    fi
    tail -16 "$out/peers-$problem.log"
    pack
done || echo "peers: listing the problems of bench/peers/peers.toml failed"

fi

if [[ $stage == all || $stage == profile ]]; then
# Every example of the book that is meant to pass (or to be wrong),
# profiled by Nsight Compute (cuda-runner profile) at its largest declared
# size and at every size a {{#profile}} directive of src/ names, into
# results/profile/<id>/<n>.json. A failure is logged and the next one run.
stamp "profiles of the book's examples (Nsight Compute, clocks not locked)"
python3 - <<'PY' > "$out/profile-list.txt" || echo "listing the examples to profile failed"
import os, pathlib, re, tomllib
def value(s):
    # A size's order: the product of its values ("2^28", "8192x4096",
    # "rows = 2048, cols = 16384", "footprint = 64MiB, stride = 128").
    total = 1
    for base, exp, unit in re.findall(r"(\d+)(?:\^(\d+))?\s*(KiB|MiB|GiB)?", str(s)):
        v = int(base) ** int(exp) if exp else int(base)
        total *= v << {"KiB": 10, "MiB": 20, "GiB": 30}.get(unit, 0)
    return total
named = {}
# Profiles a {{#profile ID stalls SIZE}} (or a stall_<reason> or
# issue_interval metric) reads: collected with the warp stall reasons.
stalls = set()
# {{#profile}} directives of the chapters and of exercise stages' text.
texts = list(pathlib.Path("src").rglob("*.md")) + list(pathlib.Path("kernels/exercise").rglob("*.toml"))
for text in texts:
    for id_, metric, size in re.findall(r"\{\{#profile\s+(\S+)\s+(\S+)\s+(\S+)\s*\}\}", text.read_text()):
        named.setdefault(id_, set()).add(size)
        if metric == "stalls" or metric == "issue_interval" or "stall" in metric:
            stalls.add((id_, size))
# Exercise stages (kernels/exercise/TRACK/STAGE.toml): a profile or
# profile_ratio gate reads the starter's and the solution's profiles (and
# those of the stage it compares with) at the stage's size, and the test
# of the gates (preprocessor/src/exercise_gates/verdicts.rs) those of the
# stage's pitfall kernels and of every solution of the track.
exercises = pathlib.Path("kernels/exercise")
for path in exercises.rglob("*.toml"):
    try:
        stage = tomllib.loads(path.read_text())
        gates = [g for g in stage.get("gate", []) if g.get("kind") in ("profile", "profile_ratio")]
        if not gates:
            continue
        files = [path.parent / stage["starter"], path.parent / stage["solution"]]
        files += [path.parent / p["kernel"] for p in stage.get("pitfall", []) if "kernel" in p]
        for sibling in path.parent.glob("*.toml"):
            files.append(path.parent / tomllib.loads(sibling.read_text())["solution"])
        for over in {g.get("over", "starter") for g in gates} - {"starter"}:
            other = exercises / over if "/" in over else path.parent / over
            other = other.with_name(other.name + ".toml")
            files.append(other.parent / tomllib.loads(other.read_text())["solution"])
        for f in files:
            named.setdefault(str(f.relative_to("kernels").with_suffix("")), set()).add(str(stage["size"]))
    except Exception as e:
        print(f"# {path}: {e}")
for path in sorted(pathlib.Path("kernels").rglob("*.cu")):
    m = re.search(r"/\*\+\+\+\n(.*?)\n\+\+\+\*/", path.read_text(), re.S)
    if not m:
        continue
    try:
        header = tomllib.loads(m.group(1))
        if header.get("expect", "pass") not in ("pass", "wrong"):
            continue
        id_ = str(path.relative_to("kernels").with_suffix(""))
        sizes = named.get(id_, set())
        if not os.environ.get("PROFILE_NAMED_ONLY"):
            sizes |= {max(header["sizes"], key=value)}
    except Exception as e:
        print(f"# {path}: {e}")
        continue
    for size in sorted(sizes, key=value):
        print("--stalls" if (id_, size) in stalls else "-", path, size)
PY
: > "$out/profile.log"
while read -r flag file size; do
    # PROFILE_MATCH (an extended regular expression) limits the profiles to
    # the kernel files it matches: for a call that profiles new chapters only.
    if [[ -n ${PROFILE_MATCH:-} && ! $file =~ $PROFILE_MATCH ]]; then continue; fi
    extra=()
    [[ $flag == --stalls ]] && extra=(--stalls)
    cuda-runner profile "$file" --size "$size" "${extra[@]}" >> "$out/profile.log" 2>&1 </dev/null || echo "profile $file at $size failed, see profile.log"
done < <(grep -v '^#' "$out/profile-list.txt" || true)
tail -3 "$out/profile.log" || true
pack
fi

if [[ $stage == all || $stage == sanitize ]]; then
stamp "compute-sanitizer runs the pages name"
python3 - <<'PY' > "$out/sanitize-list.txt" || echo "listing the sanitizer runs failed"
import pathlib, re
texts = list(pathlib.Path("src").rglob("*.md")) + list(pathlib.Path("kernels/exercise").rglob("*.toml"))
runs = set()
for text in texts:
    for id_, check, size in re.findall(r"\{\{#sanitizer\s+(\S+)\s+(\S+)\s+(\S+)\s*\}\}", text.read_text()):
        runs.add((f"kernels/{id_}.cu", check, size))
for run in sorted(runs):
    print(*run)
PY
: > "$out/sanitize.log"
while read -r file check size; do
    cuda-runner sanitize "$file" --check "$check" --size "$size" >> "$out/sanitize.log" 2>&1 </dev/null || echo "sanitize $file ($check, $size) failed, see sanitize.log"
done < "$out/sanitize-list.txt"
tail -5 "$out/sanitize.log" || true
pack
fi

if [[ $stage == all || $stage == host ]]; then
stamp "host programs in three languages"
python3 bench/host/run_hosts.py "$out/host.log" || echo "host programs: the runner script failed, see host.log"
tail -24 "$out/host.log" || true
pack
fi

if [[ $stage == all || $stage == peers ]]; then
stamp "profile at 2^30: counters (Nsight Compute) and SASS of fast_reduce"
metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,lts__t_sector_hit_rate.pct,launch__grid_size,launch__block_size,launch__registers_per_thread
ncu --clock-control none --csv --metrics "$metrics" python3 bench/peers/profile.py > "$out/ncu-2p30.csv" 2> "$out/ncu.err" || echo "ncu failed: $(tail -3 "$out/ncu.err")"
python3 - "$out/ncu-2p30.csv" <<'PY' || true
import csv, sys
for row in csv.reader(open(sys.argv[1])):
    if len(row) > 14 and ("reduce_fast" in row[4] or "DeviceReduce" in row[4]):
        print(f"  {row[4][:40]:40} {row[12]:55} {row[14]}")
PY
nvcc -cubin -arch=sm_90 -o /tmp/fast_reduce.cubin kernels/reductions/fast_reduce.cu && cuobjdump --dump-sass /tmp/fast_reduce.cubin > "$out/fast_reduce.sass" && grep -cE "LDG" "$out/fast_reduce.sass" && grep -E "LDG|ATOM|RED" "$out/fast_reduce.sass" | head -20 || true

python3 - <<'PY' || true
import json
r = json.load(open("results/peers/sum_f32.json"))
for row in r["rows"]:
    o = row["ours"]["median_us"] if row["ours"] else float("nan")
    c = row["peers"].get("cub", {}).get("median_us", float("nan"))
    print(f"  n={row['n']:>10}  ours {o:9.2f}  cub {c:9.2f}  cub/ours {c / o:.3f}  ours {row['bytes'] / o / 1e3:6.0f} GB/s")
PY
fi

python3 - <<'PY' || true
import json
rep = json.load(open("results/repeatability.json"))
print("  repeatability: max |diff| over 20 us medians", round(rep["max_abs_diff_pct_over_floor"], 2), "% goal met:", rep["goal_met"])
for r in sorted(rep["rows"], key=lambda r: -abs(r["diff_pct"]))[:5]:
    print(f"    {r['example']:32} n={r['n']:>10}  {r['first_us']:10.2f} {r['second_us']:10.2f}  {r['diff_pct']:+.2f}%")
PY

stamp "packing"
pack
stamp "done"
