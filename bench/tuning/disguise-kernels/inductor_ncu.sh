#!/usr/bin/env bash
# Inductor's autotuned configs for the row peers and Nsight Compute counters of its
# kernels against ours (layer norm 2^12, softmax 2^10), one launch each, cache
# control all. GPU machine, repository root, dist/bin on PATH: inductor_ncu.sh (writes $OUT/ind).
export PATH=$PWD/dist/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH
D=bench/tuning/disguise-kernels; O=$OUT/ind; mkdir -p $O
for s in "layernorm_rows 4096" "layernorm_rows 1024" "softmax_rows 1024"; do timeout 120 python3 $D/inductor_profile.py $s --configs; done > $O/configs.txt 2>&1
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__block_size,launch__grid_size,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__shared_mem_per_block_dynamic,launch__shared_mem_per_block_static,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum
timeout 120 ncu --clock-control none --csv --metrics $M --launch-skip 40 --launch-count 1 -k regex:triton python3 $D/inductor_profile.py layernorm_rows 4096 > $O/ncu-compile-ln4096.csv 2>&1
timeout 60 ncu --clock-control none --csv --metrics $M -k regex:layernorm cuda-runner launch-once kernels/disguise/layernorm_cached_block.cu --size 2^12 > $O/ncu-ours-ln4096.csv 2>&1
timeout 120 ncu --clock-control none --csv --metrics $M --launch-skip 40 --launch-count 1 -k regex:triton python3 $D/inductor_profile.py softmax_rows 1024 > $O/ncu-compile-sm1024.csv 2>&1
timeout 60 ncu --clock-control none --csv --metrics $M -k regex:softmax cuda-runner launch-once kernels/disguise/softmax_cached_block.cu --size 2^10 > $O/ncu-ours-sm1024.csv 2>&1
cat $O/configs.txt | grep -v Warning | tail -20
for f in $O/ncu-*.csv; do echo "== $f"; grep '^"0"' $f | awk -F'","' '{print $13" = "$15}' | tr -d '"'; done
