#!/bin/bash
# Times mlp_dynamic_batch.mlir (a function with a dynamic batch) on CUDA with
# the one-shot graph cache on and off (--cuda_graph_cache), in one run:
# µs per call (median of --benchmark_repetitions) and kiln's host time per
# call. Usage: run_dynamic_shape_benchmarks.sh BIN_DIR [DEVICE] [REPETITIONS]
set -euo pipefail
bin=${1:?usage: $0 BIN_DIR [DEVICE] [REPETITIONS]}
device=${2:-cuda}
repetitions=${3:-5}
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bin/kiln-compile" "$here/mlp_dynamic_batch.mlir" --iree-hal-target-backends=cuda -o "$work/mlp.kmod"
weights="--input=1024x1024xf32=0.001 --input=1024x1024xf32=0.001 --input=1024x1024xf32=0.001 --input=1024xf32=0.5"
echo "| batch | graph cache | µs per call | host µs per call |"
echo "| --- | --- | --- | --- |"
for batch in 1 64; do
  for cache in true false; do
    # shellcheck disable=SC2086
    "$bin/kiln-benchmark-module" --module="$work/mlp.kmod" --device="$device" --function=mlp \
      --input="${batch}x1024xf32=1" $weights --cuda_graph_cache=$cache \
      --benchmark_repetitions="$repetitions" --benchmark_min_time=0.3 \
      --benchmark_report_aggregates_only=true --benchmark_out="$work/out.json" \
      --benchmark_out_format=json > "$work/log.txt" 2>&1 || { cat "$work/log.txt"; exit 1; }
    python3 - "$work/out.json" "$batch" "$cache" <<'PY'
import json, sys
data = json.load(open(sys.argv[1]))
median = [b for b in data["benchmarks"] if b.get("aggregate_name") == "median"][0]
scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3}[median["time_unit"]]
host = median.get("host_time_us")
print("| %s | %s | %.1f | %s |" % (sys.argv[2], sys.argv[3], median["real_time"] * scale,
                                   "%.1f" % host if host is not None else "—"))
PY
  done
done
