#!/bin/bash
# The 16-core figures of docs/speed.md (bulk and the explorer), one call on
# the lent GPU machine's host (16 cores; nothing can be fetched there).
# Prepare as benchmarks/gpu_check.sh says (the wheel in .gpu), and:
#   cp ../shared/reference/rsp/RSP_Test9.litmus .gpu/
# then run `bash benchmarks/scale_check.sh` there with .gpu carried (about
# 4 minutes); the figures go to $OUT/scale.txt and the output.
set -u
W=${HRF_GPU_DIR:-.gpu}
python3 -m pip install -q --no-index --no-deps --no-compile --upgrade --target /tmp/hrf-site "$W"/hrf-*.whl || exit 1
export PYTHONPATH=/tmp/hrf-site PYTHONUNBUFFERED=1
OUT=${OUT:-scale-check}
mkdir -p "$OUT"
# what the 16 CPUs are: 16 cores, or 8 cores of two hardware threads each
# (a speed-up past 8 is then bounded by what the second threads add)
echo "cpus: $(nproc)"
lscpu 2>/dev/null | grep -E "^(Model name|Socket|Core|Thread|NUMA node|L3)" || grep -m1 'model name' /proc/cpuinfo
python3 benchmarks/bench_scale.py --count 100000 --db --states 11300000 --rsp "$W" \
  --workers "${HRF_SCALE_WORKERS:-1,8,16}" --repeat 1 --bandwidth --one-every 4 "$@" 2>&1 | tee "$OUT/scale.txt"
