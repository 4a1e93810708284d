#!/bin/bash
# The device check of `hrf run`, one call on a machine with an NVIDIA GPU
# and CuPy (the lent H100/H200 has both; nothing can be fetched there).
# Prepare here, in the repository's root:
#   maturin build --release -o .gpu && mkdir -p .gpu/ptx-asplos15
#   cp ../shared/reference/ptx-asplos15/*.litmus .gpu/ptx-asplos15/
#   mkdir -p .gpu/barriers && cp ../shared/reference/dat3m-gpu/litmus/PTX/{Barrier,Manual}/*.litmus \
#     ../shared/reference/opencl-dat3m/herd/barrier_example.litmus .gpu/barriers/  (CTA barriers; the rest refused by name)
#   cp ../shared/reference/dat3m-gpu/cat/ptx-v6.0.cat .gpu/
# then run `bash benchmarks/gpu_check.sh` there with .gpu carried. Results
# (litmus7 log, JSON, SASS, tuned settings) go to $OUT; the table ends the output.
set -u
W=${HRF_GPU_DIR:-.gpu}
python3 -m pip install -q --no-index --no-deps --no-compile --upgrade --target /tmp/hrf-site "$W"/hrf-*.whl || exit 1
export PYTHONPATH=/tmp/hrf-site PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv 2>/dev/null
CAT=""
[ -f "$W/ptx-v6.0.cat" ] && CAT="--cat $W/ptx-v6.0.cat"
TESTS="--tests litmus/gpu --tests litmus/ptx7 --tests litmus/ptx8 --tests litmus/gpu15 --tests litmus/hrf"
[ -d "$W/ptx-asplos15" ] && TESTS="$TESTS --tests $W/ptx-asplos15"
[ -d "$W/barriers" ] && TESTS="$TESTS --tests $W/barriers"
exec python3 benchmarks/gpu_check.py $TESTS $CAT --out "${OUT:-gpu-check}" "$@"
