#!/usr/bin/env python3
"""deploy/k8s.yaml has the shape kubectl needs and says what README and
deploy/k8s.md promise: every document has apiVersion, kind and
metadata.name; the Deployment's pods ask for one GPU (`nvidia.com/gpu:
1`), are ready on GET /health, and pass `cuda-runner serve` only flags it
has (read from `cuda-runner serve --help`), --trust-proxy among them; the
Service selects the pods' labels and targets their port; the Ingress
routes /run and /health to the Service. No cluster is contacted.

Usage: scripts/k8s_check.py CUDA_RUNNER [MANIFEST]
--self-test: a planted manifest without the GPU limit and with a flag
the service lacks must fail.
"""

import copy
import os
import re
import subprocess
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def problems(docs, flags):
    found = []
    by_kind = {}
    for i, doc in enumerate(docs):
        for key in ("apiVersion", "kind"):
            if not isinstance(doc.get(key), str):
                found.append(f"document {i + 1} has no {key}")
        if not (doc.get("metadata") or {}).get("name"):
            found.append(f"document {i + 1} has no metadata.name")
        by_kind.setdefault(doc.get("kind"), []).append(doc)
    for kind in ("Deployment", "Service", "Ingress"):
        if len(by_kind.get(kind, [])) != 1:
            found.append(f"expected one {kind}, found {len(by_kind.get(kind, []))}")
    if found:
        return found
    deployment, service, ingress = (by_kind[k][0] for k in ("Deployment", "Service", "Ingress"))
    spec = deployment["spec"]
    labels = spec["template"]["metadata"]["labels"]
    if spec["selector"]["matchLabels"] != labels:
        found.append("the Deployment's selector does not match its pods' labels")
    [container] = spec["template"]["spec"]["containers"]
    if str(container["resources"]["limits"].get("nvidia.com/gpu")) != "1":
        found.append("the pod does not ask for one GPU (resources.limits nvidia.com/gpu: 1)")
    if container.get("readinessProbe", {}).get("httpGet", {}).get("path") != "/health":
        found.append("the pod's readiness probe is not GET /health")
    args = container["args"]
    if args[0] != "serve":
        found.append(f"the container runs `{args[0]}`, not `serve`")
    for flag in (a for a in args if a.startswith("--")):
        if flag not in flags:
            found.append(f"`cuda-runner serve` has no flag {flag}")
    if "--trust-proxy" not in args:
        found.append("the pods are not started with --trust-proxy behind the Ingress")
    ports = {p["name"] for p in container["ports"]}
    if service["spec"]["selector"] != labels:
        found.append("the Service does not select the pods' labels")
    for port in service["spec"]["ports"]:
        if port["targetPort"] not in ports:
            found.append(f"the Service targets port {port['targetPort']}, which the pod does not name")
    routed = set()
    for rule in ingress["spec"]["rules"]:
        for path in rule["http"]["paths"]:
            if path["backend"]["service"]["name"] == service["metadata"]["name"]:
                routed.add(path["path"])
    if not {"/run", "/health"} <= routed:
        found.append(f"the Ingress routes {sorted(routed)} to the Service, not /run and /health")
    return found


def serve_flags(runner):
    help_text = subprocess.run(
        [runner, "serve", "--help"], capture_output=True, text=True, check=True
    ).stdout
    return set(re.findall(r"--[a-z][a-z0-9-]*", help_text))


def main():
    args = sys.argv[1:]
    self_test = args[:1] == ["--self-test"]
    if self_test:
        args = args[1:]
    if len(args) not in (1, 2):
        sys.exit(__doc__)
    flags = serve_flags(args[0])
    manifest = args[1] if len(args) == 2 else os.path.join(ROOT, "deploy", "k8s.yaml")
    with open(manifest) as f:
        docs = [d for d in yaml.safe_load_all(f) if d is not None]
    if self_test:
        planted = copy.deepcopy(docs)
        for doc in planted:
            if doc["kind"] == "Deployment":
                [c] = doc["spec"]["template"]["spec"]["containers"]
                del c["resources"]["limits"]["nvidia.com/gpu"]
                c["args"].append("--no-such-flag")
        found = problems(planted, flags)
        if len(found) != 2:
            sys.exit(f"k8s check self-test: the planted manifest gave {found}, not its two faults")
        print(f"k8s check self-test: the planted manifest fails ({'; '.join(found)})")
        return
    found = problems(docs, flags)
    if found:
        sys.exit(f"{manifest}:\n  " + "\n  ".join(found))
    print(f"{manifest}: {len(docs)} documents of the shape kubectl takes; one GPU per pod, ready on /health, flags of `cuda-runner serve`")


if __name__ == "__main__":
    main()
