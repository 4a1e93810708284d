#!/bin/bash
# Both device checks in one call of the lent machine (its time is short:
# one call, then give it back): `hrf run` on the GPU (gpu_check.sh, about
# 4 minutes) and the 16-core scaling of bulk and the explorer
# (scale_check.sh, about 4 minutes), each under a time limit so that the
# call ends within 10 minutes with what both wrote under $OUT.
# Prepare here, in the repository's root (.gpu is in .git/info/exclude):
#   maturin build --release -o .gpu && mkdir -p .gpu/ptx-asplos15
#   cp ../shared/reference/ptx-asplos15/*.litmus .gpu/ptx-asplos15/
#   mkdir -p .gpu/barriers && cp ../shared/reference/dat3m-gpu/litmus/PTX/{Barrier,Manual}/*.litmus \
#     ../shared/reference/opencl-dat3m/herd/barrier_example.litmus .gpu/barriers/  (CTA barriers; the rest refused by name)
#   cp ../shared/reference/dat3m-gpu/cat/ptx-v6.0.cat ../shared/reference/rsp/RSP_Test9.litmus .gpu/
set -u
export OUT=${OUT:-device-check}
mkdir -p "$OUT"
timeout 300 bash "$(dirname "$0")/gpu_check.sh" --launches 1000 --tune 12 > "$OUT/gpu_check.txt" 2>&1
echo "gpu_check: exit $?"
tail -60 "$OUT/gpu_check.txt"
timeout 250 bash "$(dirname "$0")/scale_check.sh" > "$OUT/scale_check.txt" 2>&1
echo "scale_check: exit $?"
tail -40 "$OUT/scale_check.txt"
