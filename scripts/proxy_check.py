#!/usr/bin/env python3
"""deploy/nginx.conf in front of two `cuda-runner serve --compile-only`
instances, as CI runs it (issue 22, item 4).

Usage: scripts/proxy_check.py [--self-test] CUDA_RUNNER

Starts two instances on free ports (the book of this repository, the
default bubblewrap sandbox, --trust-proxy, --instance-name a and b) and
nginx unprivileged with deploy/nginx.conf on a free high port in a
temporary prefix (only its listen and upstream server lines rewritten),
then through nginx: /health must be answered by both instances, a broken
kernel must come back as a compile error at the reader's line, a good one
as "compiled; no GPU here", and a body over the limit as a JSON 413.

--self-test: the same with the second upstream pointed at a port nobody
listens on; the check must then fail (only one instance answers), or it
could not tell one instance from two. Needs NVRTC on the loader path and
nginx (scripts/lib.sh: ensure_nvrtc, ensure_nginx; NGINX names it).
"""

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIG = os.path.join(ROOT, "deploy", "nginx.conf")
EXAMPLE = "vector-add/add"
KERNEL = os.path.join(ROOT, "kernels", "vector-add", "add.cu")


class CheckFailed(Exception):
    """A check that did not hold."""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, what, proc, log):
    deadline = time.time() + 60
    while time.time() < deadline:
        if proc.poll() is not None:
            raise CheckFailed(f"{what} ended ({proc.returncode}): {read(log)}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    raise CheckFailed(f"{what} is not listening on {port} after 60 s: {read(log)}")


def read(path):
    with open(path, errors="replace") as f:
        return f.read()[-4000:]


def request(port, method, path, body=None):
    """(status, parsed JSON body) of one request through nginx."""
    headers = {"Content-Type": "application/json"} if body is not None else {}
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", data=body, method=method, headers=headers
    )
    try:
        with urllib.request.urlopen(req, timeout=120) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def nginx_config(listen, upstreams):
    """deploy/nginx.conf with its listen and upstream server lines set."""
    with open(CONFIG) as f:
        text = f.read()
    text, listens = re.subn(r"(?m)^(\s*)listen 8080;", rf"\g<1>listen 127.0.0.1:{listen};", text)
    servers = iter(upstreams)
    text, ups = re.subn(
        r"(?m)^(\s*)server 127\.0\.0\.1:878[78] ",
        lambda m: f"{m.group(1)}server 127.0.0.1:{next(servers)} ",
        text,
    )
    if (listens, ups) != (1, 2):
        raise CheckFailed(
            f"{CONFIG}: expected one `listen 8080;` line and two `server 127.0.0.1:8787/8788` lines, found {listens} and {ups}"
        )
    return text


def check(runner, dead_second):
    nginx = os.environ.get("NGINX") or shutil.which("nginx") or "/usr/sbin/nginx"
    work = tempfile.mkdtemp(prefix="proxy-check-")
    procs = []
    try:
        ports = {"a": free_port(), "b": free_port()}
        for name, port in ports.items():
            log = os.path.join(work, f"serve-{name}.log")
            procs.append(
                (
                    subprocess.Popen(
                        [runner, "serve", "--book", ROOT, "--compile-only",
                         "--listen", f"127.0.0.1:{port}", "--trust-proxy",
                         "--instance-name", name, "--rate-per-minute", "0"],
                        stdin=subprocess.DEVNULL,
                        stdout=open(log, "w"),
                        stderr=subprocess.STDOUT,
                    ),
                    f"cuda-runner serve {name}",
                    log,
                    port,
                )
            )
        upstreams = [ports["a"], free_port() if dead_second else ports["b"]]
        listen = free_port()
        for sub in ("logs", "tmp"):
            os.mkdir(os.path.join(work, sub))
        conf = os.path.join(work, "nginx.conf")
        with open(conf, "w") as f:
            f.write(nginx_config(listen, upstreams))
        prefix = work + "/"
        test = subprocess.run([nginx, "-t", "-p", prefix, "-c", conf], capture_output=True, text=True)
        if test.returncode != 0:
            raise CheckFailed(f"nginx -t refused the configuration: {test.stderr}")
        log = os.path.join(work, "nginx.out")
        procs.append(
            (
                subprocess.Popen(
                    [nginx, "-p", prefix, "-c", conf, "-g", "daemon off;"],
                    stdin=subprocess.DEVNULL,
                    stdout=open(log, "w"),
                    stderr=subprocess.STDOUT,
                ),
                "nginx",
                log,
                listen,
            )
        )
        for proc, what, log, port in procs:
            wait_for_port(port, what, proc, log)

        seen = set()
        for _ in range(10):
            status, health = request(listen, "GET", "/health")
            if status != 200 or health.get("service") != "cuda-runner":
                raise CheckFailed(f"/health through nginx: {status} {health}")
            if health.get("sandbox") != "bwrap":
                raise CheckFailed(f"the instance is not sandboxed: {health}")
            seen.add(health.get("instance"))
        if seen != {"a", "b"}:
            raise CheckFailed(f"/health through nginx was answered by {sorted(map(str, seen))}, not by both a and b")

        with open(KERNEL) as f:
            body = f.read().split("+++*/", 1)[1]
        good = json.dumps({"example": EXAMPLE, "source": body}).encode()
        status, answer = request(listen, "POST", "/run", good)
        if status != 200 or answer.get("outcome") != "no_gpu":
            raise CheckFailed(f"a good kernel through nginx: {status} {answer}")
        lines = body.split("\n")
        broken_at = next(i for i, l in enumerate(lines) if "__global__" in l)
        lines[broken_at] = lines[broken_at].replace("__global__", "__global__ not_a_type", 1)
        broken = json.dumps({"example": EXAMPLE, "source": "\n".join(lines)}).encode()
        status, answer = request(listen, "POST", "/run", broken)
        diagnostics = answer.get("diagnostics") or [{}]
        if status != 200 or answer.get("outcome") != "compile_error" or diagnostics[0].get("line") != broken_at + 1:
            raise CheckFailed(f"a broken kernel (line {broken_at + 1}) through nginx: {status} {answer}")
        status, answer = request(listen, "POST", "/run", b"x" * (300 * 1024))
        if status != 413 or "error" not in answer:
            raise CheckFailed(f"a 300 KiB body through nginx: {status} {answer}")
        print(f"proxy check: /health answered by {sorted(seen)}, a compile error at line {broken_at + 1}, no_gpu, 413 as JSON, all through nginx")
    finally:
        for proc, _, _, _ in procs:
            proc.terminate()
        for proc, _, _, _ in procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
        shutil.rmtree(work, ignore_errors=True)


def main():
    args = sys.argv[1:]
    self_test = args[:1] == ["--self-test"]
    if self_test:
        args = args[1:]
    if len(args) != 1:
        sys.exit(__doc__)
    runner = os.path.abspath(args[0])
    if self_test:
        try:
            check(runner, dead_second=True)
        except CheckFailed as e:
            print(f"proxy check self-test: a dead second upstream fails the check, as it must ({e})")
            return
        sys.exit("proxy check self-test: the check passed with one instance behind nginx; it cannot tell one from two")
    try:
        check(runner, dead_second=False)
    except CheckFailed as e:
        sys.exit(f"proxy check failed: {e}")


if __name__ == "__main__":
    main()
