# The peer drivers' one way of timing (sourced by run.sh, scan.sh,
# histogram.sh, memory.sh, rows.sh, transfer.sh and matmul.sh, each of which
# keeps only what is its own: which harness, which CUB program, which
# sizes, which table): like the runner, each program runs in PROCESSES
# processes (default 8, the runner's Policy::processes) with a 1/PROCESSES
# share of the sampling budget (the programs' --processes), and pool.py
# pools their samples. Each step's failure is recorded, not fatal, so one
# peer's results survive another's failure; the driver still exits non-zero
# (`exit $peer_status`) if any step failed.
#
#   peer_start NAME OUT   sets here, python (PYTHON, default python3),
#                         processes (PROCESSES, default 8), out, tmp (removed
#                         on exit), raw (every process's lines), peer_sizes
#                         (--sizes "$SIZES" where SIZES is set, else nothing)
#   peer_cub SRC ARGS...  builds SRC.cu with nvcc (NVCC, default
#                         /usr/local/cuda/bin/nvcc, else nvcc on PATH) and
#                         runs it as peer_run does
#   peer_run LABEL CMD... runs CMD --processes P in P processes, one at a
#                         time, each through peer_process (which a driver may
#                         redefine: rows.sh tags and times its processes)
#   peer_pool             keeps the raw lines at RAW where given, pools them
#                         into OUT
#   peer_table ARGS...    prints the pooled lines as a table (peer_table.py)

peer_start() {
    peer_name=$1
    out=$2
    here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
    python=${PYTHON:-python3}
    processes=${PROCESSES:-8}
    peer_status=0
    peer_sizes=()
    if [[ -n ${SIZES:-} ]]; then peer_sizes=(--sizes "$SIZES"); fi

    mkdir -p "$(dirname "$out")"
    : >"$out"
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    raw="$tmp/raw.jsonl"
    : >"$raw"
}

# LABEL P CMD...: one process, its stdout appended to the raw lines.
peer_process() {
    local label=$1 p=$2
    shift 2
    "$@" >>"$raw" || {
        echo "$peer_name: $label process $p failed (rc $?)" >&2
        return 1
    }
}

peer_run() {
    local label=$1 p
    shift
    for ((p = 0; p < processes; p++)); do
        peer_process "$label" "$p" "$@" --processes "$processes" || peer_status=1
    done
}

peer_cub() {
    local src=$1
    shift
    local nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
    if [[ ! -x $nvcc ]]; then nvcc=$(command -v nvcc || true); fi
    if [[ -z $nvcc ]]; then
        echo "$peer_name: nvcc not found; skipping CUB" >&2
        peer_status=1
        return 0
    fi
    echo "$peer_name: compiling $src.cu with $nvcc" >&2
    if "$nvcc" -O3 -std=c++17 -arch=sm_90 -o "$tmp/$src" "$here/$src.cu"; then
        peer_run "$src" "$tmp/$src" "$@"
    else
        echo "$peer_name: compiling $src.cu failed" >&2
        peer_status=1
    fi
}

peer_pool() {
    if [[ -n ${RAW:-} ]]; then cp "$raw" "$RAW"; fi
    "$python" "$here/pool.py" "$raw" >"$out"
    echo "$peer_name: $(wc -l <"$out") JSON lines in $out" >&2
}

peer_table() {
    "$python" "$here/peer_table.py" "$out" "$@"
}
