#!/usr/bin/env bash
# CPU correctness check of a matmul kernel file: run.sh FILE.cu KERNEL GRID_BM GRID_BN BLOCK [-DNAME=V ...]
# e.g. run.sh kernels/matmul/naive.cu matmul_naive 32 32 1024
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
file=$(realpath "$1"); kernel=$2; bm=$3; bn=$4; block=$5; shift 5
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# extern __shared__ arrays become static arrays of 64 KiB floats.
sed -E 's/extern __shared__ (float4|float) ([a-z_0-9]+)\[\];/__shared__ \1 \2[16384];/' "$file" > "$tmp/k.cu"
for inc in $(grep -oE '#include "[^"]+"' "$file" | sed -E 's/#include "(.*)"/\1/'); do
  sed -E 's/extern __shared__ (float4|float) ([a-z_0-9]+)\[\];/__shared__ \1 \2[16384];/' "$(dirname "$file")/$inc" > "$tmp/$inc"
done
g++ -std=c++20 -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -pthread -w \
  -I"$here" -I"$tmp" -DKERNEL_FILE="\"$tmp/k.cu\"" -DKERNEL=$kernel -DSTR_\(x\)=#x -DSTR\(x\)=STR_\(x\) \
  -DGRID\(m,n\)="((((m)+$bm-1)/$bm)*(((n)+$bn-1)/$bn))" -DBLOCK=$block "$@" \
  "$here/emulate.cpp" -o "$tmp/emu"
"$tmp/emu"
