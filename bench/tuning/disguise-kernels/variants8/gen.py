#!/usr/bin/env python3
"""Writes this folder's probe files from layernorm_onebar.cu.in (probe.sh runs it)."""
import pathlib

HERE = pathlib.Path(__file__).resolve().parent
T = (HERE / "layernorm_onebar.cu.in").read_text()
for vec, maxb, minb, sizes, what in [
        (2, 1024, 2, '["2^10", "2^12"]', "This file: 2 float4 a thread, 512 threads at 2^12, 4 blocks an SM (32 registers), Inductor's shape."),
        (8, 1024, 1, '["2^10", "2^12", "2^14"]', "This file: 8 float4 a thread, as layernorm_cached_sums, which takes two block sums (two barriers)."),
]:
    name = f"layernorm_onebar_v{vec}"
    text = (T.replace("@NAME@", name).replace("@VEC@", str(vec)).replace("@MAXB@", str(maxb))
            .replace("@MINB@", str(minb)).replace("@SIZES@", sizes).replace("@WHAT@", what))
    (HERE / f"{name}.cu").write_text(text)
