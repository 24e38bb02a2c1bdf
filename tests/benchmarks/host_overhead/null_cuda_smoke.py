#!/usr/bin/env python3
"""Smoke test of the null CUDA driver: kiln's CUDA path runs without a GPU.

Compiles mlp.mlir for cuda, runs kiln-benchmark-module on it with the null
libcuda.so.1 and libcublasLt.so.13 first on LD_LIBRARY_PATH, and checks that
the run went through the null driver (its call counts are printed, with
graph launches among them) and reported the host_time_us counter. No timing
thresholds: it guards that the stubs keep up with what kiln calls, so the
host-overhead measurements in README.md stay possible.

Usage: null_cuda_smoke.py --compile KILN_COMPILE --benchmark KILN_BENCHMARK_MODULE
                          --null-cuda DIR --mlir mlp.mlir --work DIR
"""
import argparse
import json
import os
import re
import subprocess
import sys

# The MLP's arguments (mlp.mlir): the batch, then weight and bias per layer.
INPUTS = ["--input=256x1024xf32=1"] + [
    "--input=1024x1024xf32=0.001", "--input=1024xf32=0.5"
] * 3


def fail(message, output=""):
    print("FAILED: " + message)
    if output:
        print(output)
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compile", required=True)
    parser.add_argument("--benchmark", required=True)
    parser.add_argument("--null-cuda", required=True)
    parser.add_argument("--mlir", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()

    os.makedirs(args.work, exist_ok=True)
    module = os.path.join(args.work, "mlp.kmod")
    compiled = subprocess.run(
        [args.compile, args.mlir, "--iree-hal-target-backends=cuda", "-o", module],
        capture_output=True, text=True)
    if compiled.returncode != 0:
        fail("kiln-compile exited with %d" % compiled.returncode, compiled.stderr)

    env = dict(os.environ)
    # Only the benchmark sees the null libraries (first, ahead of a real
    # driver on a GPU machine); the counts prove they were the ones loaded.
    env["LD_LIBRARY_PATH"] = os.pathsep.join(
        p for p in [args.null_cuda, env.get("LD_LIBRARY_PATH", "")] if p)
    env["KILN_NULL_CUDA_COUNTS"] = "1"
    command = [args.benchmark, "--module=" + module, "--device=cuda", "--function=mlp"
              ] + INPUTS + ["--benchmark_min_time=0.05", "--benchmark_format=json"]
    run = subprocess.run(command, capture_output=True, text=True, env=env)
    if run.returncode != 0:
        fail("kiln-benchmark-module exited with %d" % run.returncode, run.stdout + run.stderr)

    launches = re.search(r"^\s+cuGraphLaunch\s+(\d+)$", run.stderr, re.MULTILINE)
    if "kiln null CUDA driver" not in run.stderr or not launches or int(launches.group(1)) == 0:
        fail("the run did not launch graphs through the null CUDA driver", run.stderr)
    try:
        report = json.loads(run.stdout)
    except json.JSONDecodeError as error:
        fail("the benchmark output is not JSON (%s)" % error, run.stdout)
    rows = [b for b in report.get("benchmarks", []) if b.get("name", "").startswith("BM_mlp")]
    if not rows:
        fail("no BM_mlp row in the benchmark output", run.stdout)
    for row in rows:
        if row.get("error_occurred"):
            fail("BM_mlp failed: %s" % row.get("error_message"), run.stdout)
        if not isinstance(row.get("host_time_us"), (int, float)) or row["host_time_us"] <= 0:
            fail("BM_mlp reported no host_time_us counter", json.dumps(row, indent=2))
    row = rows[0]
    print("OK: %s: %d iterations, host_time_us=%.3f, %s graph launches through the null driver" %
          (row["name"], row["iterations"], row["host_time_us"], launches.group(1)))


if __name__ == "__main__":
    main()
