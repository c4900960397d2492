# What the probe.sh scripts of the variants folders share. Source it after
# setting OUT (the output folder, which it creates): it sets LOG
# (OUT/probe.log) and starts SECONDS, and gives
#   say TEXT             a timestamped line in the log;
#   summary FILE         the records of FILE as a table in the log (median,
#                        % of the copy ceiling, the copy time that is of,
#                        spread, registers);
#   measure NAME FILE... one `cuda-runner run` of the files, records in
#                        OUT/NAME.json, bounded by MEASURE_TIMEOUT_S
#                        (default 60) seconds.
mkdir -p "$OUT"
LOG=$OUT/probe.log
SECONDS=0

say() { echo "=== [$SECONDS s] $*" >>"$LOG"; }

summary() {
    if command -v python3 >/dev/null; then
        python3 - "$1" >>"$LOG" 2>&1 <<'PY'
import json, sys
try:
    records = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"(no records: {e})")
    sys.exit(0)
print(f"{'example':<44} {'status':<8} {'n':>5} {'median us':>10} {'% copy':>7} {'copy us':>8} {'spread':>7} {'regs':>5}")
for r in records:
    regs = ",".join(str(v) for _, v in r.get("registers", [])) or "-"
    if not r.get("sizes"):
        print(f"{r['example']:<44} {r['status']:<8} {r.get('message', '')[:120]}")
        continue
    for i, s in enumerate(r["sizes"]):
        copy_us = s["bytes"] / (s["ceiling_gbs"] * 1e3) if s.get("ceiling_gbs") else float("nan")
        pct = s.get("pct_ceiling") or float("nan")
        print(f"{r['example'] if i == 0 else '':<44} {r['status'] if i == 0 else '':<8} {str(s['n']):>5} "
              f"{s['median_us']:>10.2f} {pct:>6.1f}% {copy_us:>8.2f} {100 * s['rel_spread']:>6.2f}% {regs if i == 0 else '':>5}")
    if r["status"] not in ("pass",):
        print(f"{'':<44} {r.get('message', '')[:160]}")
PY
    else
        cat "$1" >>"$LOG"
    fi
}

# One `cuda-runner run` of the files given, as call NAME.
measure() {
    local name=$1
    shift
    say "$name: cuda-runner run $*"
    timeout "${MEASURE_TIMEOUT_S:-60}" cuda-runner run --json "$@" >"$OUT/$name.json" 2>>"$LOG"
    say "$name: exit $?"
    summary "$OUT/$name.json"
}
