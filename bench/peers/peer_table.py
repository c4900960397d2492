"""The peer drivers' table of pooled lines (pooled.sh's peer_table): a line
of chosen fields for each meta line, then one row per size with one cell
per implementation, "median (GB/s)" marked '*' when noisy and '!' when the
check failed, '-' where there is no median.

Usage: python3 peer_table.py POOLED.jsonl [--impls a,b,...] [--meta-keys k,...]
           [--title TEXT] [--width W] [--median FORMAT] [--gbs FORMAT]
           [--label TEXT] [--label-width W] [--plain-n]
--impls: the columns, in order (default: every implementation, sorted).
--meta-keys: the fields of each meta line shown (default: no meta lines).
Rows are labelled 2^k, or with n itself under --plain-n.
"""
import argparse
import json


def table(lines, impls=None, meta_keys=(), title="median cold time, us (GB/s)", width=20,
          median="10.2f", gbs="5.0f", label="N", label_width=6, plain_n=False):
    """The table's lines, from the pooled JSON lines."""
    rows, metas = {}, []
    for line in lines:
        if line.strip():
            r = json.loads(line)
            if r.get("impl") == "meta":
                metas.append(r)
            else:
                rows.setdefault(r["n"], {})[r["impl"]] = r
    if impls is None:
        impls = sorted({i for by in rows.values() for i in by})
    out = []
    if meta_keys:
        for m in metas:
            out.append("  ".join(f"{k}={m[k]}" for k in meta_keys if m.get(k) is not None))
    out.append(f"{title}; '*' noisy, '!' failed check")
    out.append(f"{label:>{label_width}} " + " ".join(f"{i:>{width}}" for i in impls))
    for n in sorted(rows):
        cells = []
        for i in impls:
            r = rows[n].get(i)
            if r is None or r.get("median_us") is None:
                cells.append(f"{'-':>{width}}")
                continue
            mark = ("*" if r.get("noisy") else "") + ("" if r.get("pass") else "!")
            cells.append(f"{r['median_us']:{median}} ({r.get('gb_per_s') or 0:{gbs}}){mark:<2}")
        head = f"{n:>{label_width}}" if plain_n else f"2^{n.bit_length() - 1:<{label_width - 2}}"
        out.append(head + " " + " ".join(cells))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pooled")
    ap.add_argument("--impls", default=None)
    ap.add_argument("--meta-keys", default="")
    ap.add_argument("--title", default="median cold time, us (GB/s)")
    ap.add_argument("--width", type=int, default=20)
    ap.add_argument("--median", default="10.2f")
    ap.add_argument("--gbs", default="5.0f")
    ap.add_argument("--label", default="N")
    ap.add_argument("--label-width", type=int, default=6)
    ap.add_argument("--plain-n", action="store_true")
    a = ap.parse_args()
    split = lambda s: [x for x in s.split(",") if x]  # noqa: E731
    with open(a.pooled) as f:
        for line in table(f, impls=split(a.impls) if a.impls is not None else None,
                          meta_keys=split(a.meta_keys), title=a.title, width=a.width,
                          median=a.median, gbs=a.gbs, label=a.label, label_width=a.label_width,
                          plain_n=a.plain_n):
            print(line)


if __name__ == "__main__":
    main()
