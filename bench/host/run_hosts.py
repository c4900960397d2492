"""Runs the host programs of bench/host (CUDA C++ with nvcc, Python with
CuPy, Rust with cudarc) for every {{#host ID SIZE}} directive of the
chapters and the exercise stage files, on a GPU machine, and writes what
each printed, and whether its check passed, to
results/host/<id>/<language>.json, where {{#host}} reads it.

    python3 bench/host/run_hosts.py [LOGFILE]

Needs cuda-runner (for the launch plan and the example's key), nvcc,
python3 with cupy, and the host-sum binary (dist/bin or target/release).
Each record carries the SHA-256 of the host program it ran, so a page
shows a record as stale once the program changes.
"""
import datetime
import hashlib
import json
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
HOST = ROOT / "bench" / "host"
PROGRAMS = {
    "cuda": HOST / "host_sum.cu",
    "python": HOST / "host_sum.py",
    "rust": HOST / "rust" / "src" / "main.rs",
}
DIRECTIVE = re.compile(r"\{\{#host\s+(\S+)\s+(\S+)\s*\}\}")


def directives():
    texts = list((ROOT / "src").rglob("*.md")) + list((ROOT / "kernels" / "exercise").rglob("*.toml"))
    found = set()
    for text in texts:
        found.update(DIRECTIVE.findall(text.read_text()))
    return sorted(found)


def size_of(text):
    return int(eval(text.replace("^", "**"), {"__builtins__": {}}))


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kw)
    return p.returncode, (p.stdout + p.stderr).strip()[-4000:]


def tool_of(language):
    if language == "cuda":
        _, out = run(["nvcc", "--version"])
        return "nvcc " + (re.findall(r"V(\d+\.\d+\.\d+)", out) or ["?"])[-1]
    if language == "python":
        _, out = run([sys.executable, "-c", "import cupy, sys; print(sys.version.split()[0], cupy.__version__)"])
        py, cupy = (out.split() + ["?", "?"])[:2]
        return f"python {py}, cupy {cupy}"
    return "rust host-sum (cudarc, built by scripts/bundle)"


def host_sum_binary():
    for candidate in (ROOT / "dist" / "bin" / "host-sum", ROOT / "target" / "release" / "host-sum"):
        if candidate.exists():
            return str(candidate)
    return shutil.which("host-sum")


def main(log):
    gpu = run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"])[1].splitlines()[0]
    for id_, size in directives():
        kernel_file = ROOT / "kernels" / f"{id_}.cu"
        n = size_of(size)
        code, out = run(["cuda-runner", "plan", str(kernel_file), "--size", str(n)])
        launches = [json.loads(l) for l in out.splitlines() if l.startswith("{")]
        if code != 0 or len(launches) != 1 or launches[0]["args"] != ["input", "out", "n"]:
            print(f"host {id_}: not one launch of (input, out, n): {out}", file=log)
            continue
        l = launches[0]
        numbers = [str(n), str(l["grid"]), str(l["block"]), str(l["shared"])]
        for language, program in PROGRAMS.items():
            with tempfile.TemporaryDirectory() as tmp:
                if language == "cuda":
                    # Built in the book's root as the page shows it (-I. finds
                    # kernels/..., the kernel's own includes are found beside
                    # it), the binary in a temporary folder.
                    exe = str(pathlib.Path(tmp) / "host_sum")
                    rel_kernel = f"kernels/{id_}.cu"
                    build = ["nvcc", "-std=c++17", "-O2", "-arch=sm_90", "-I.", "-o", exe,
                             f'-DKERNEL_FILE="{rel_kernel}"', f"-DKERNEL={l['kernel']}",
                             "bench/host/host_sum.cu"]
                    code, out = run(build, cwd=ROOT)
                    cmd = [exe, *numbers]
                    if code == 0:
                        code, out = run(cmd)
                    else:
                        out = "nvcc failed:\n" + out
                    # As typed in a shell: the macro's quotes quoted.
                    shown = (f"nvcc -std=c++17 -O2 -arch=sm_90 -I. -o host_sum "
                             f"-DKERNEL_FILE='\"{rel_kernel}\"' -DKERNEL={l['kernel']} "
                             f"bench/host/host_sum.cu && ./host_sum " + " ".join(numbers))
                elif language == "python":
                    cmd = [sys.executable, str(program), str(kernel_file), l["kernel"], *numbers]
                    code, out = run(cmd)
                    shown = "python3 bench/host/host_sum.py " + " ".join([f"kernels/{id_}.cu", l["kernel"], *numbers])
                else:
                    binary = host_sum_binary()
                    if binary is None:
                        print(f"host {id_}: no host-sum binary (scripts/bundle builds it)", file=log)
                        continue
                    cmd = [binary, str(kernel_file), l["kernel"], *numbers]
                    code, out = run(cmd)
                    shown = "host-sum " + " ".join([f"kernels/{id_}.cu", l["kernel"], *numbers])
            record = {
                "schema": 1,
                "example": id_,
                "key": l["key"],
                "language": language,
                "program": str(program.relative_to(ROOT)),
                "program_sha256": hashlib.sha256(program.read_bytes()).hexdigest(),
                "n": n,
                "command": shown,
                "exit_code": code,
                "pass": code == 0 and "right" in out,
                "output": out,
                "tool": tool_of(language),
                "gpu": gpu,
                "made_at": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            }
            dest = ROOT / "results" / "host" / id_ / f"{language}.json"
            dest.parent.mkdir(parents=True, exist_ok=True)
            tmp_dest = dest.with_suffix(".json.tmp")
            tmp_dest.write_text(json.dumps(record, indent=2) + "\n")
            tmp_dest.replace(dest)
            print(f"host {id_} {language}: exit {code}: {out.splitlines()[-1] if out else ''}", file=log)


if __name__ == "__main__":
    with open(sys.argv[1], "w") if len(sys.argv) > 1 else sys.stdout as log:
        main(log)
