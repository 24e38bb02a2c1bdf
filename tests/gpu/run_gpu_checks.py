#!/usr/bin/env python3
"""Runs kiln's GPU checks on the GPU machine from a pack made by
pack_gpu_build.sh (no build, no ctest there): every `gpu`-labelled ctest test,
with ctest's pass/fail/skip rules, then the GPU dispatch benchmark and the
PyTorch baselines in the same run, and writes OUT/summary.md.

usage: run_gpu_checks.py PACK_DIR OUT_DIR [--skip-benchmarks] [--filter REGEX]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tarfile
import time


def unpack(pack_dir, dest):
    tarball = os.path.join(pack_dir, "kiln-gpu.tar.xz")
    if not os.path.exists(os.path.join(dest, "kiln-gpu", "paths.json")):
        with tarfile.open(tarball) as t:
            t.extractall(dest)
    return os.path.join(dest, "kiln-gpu")


def make_rewriter(root, source):
    with open(os.path.join(root, "paths.json")) as f:
        old = json.load(f)
    pairs = [(old["build"], os.path.join(root, "build")),
             (old["lit"], os.path.join(root, "tools", "lit", "lit.py")),
             (old["filecheck"], os.path.join(root, "tools", "FileCheck-15")),
             (old["not"], os.path.join(root, "tools", "not-15")),
             (old["source"], source)]

    def rewrite(text):
        for a, b in pairs:
            if a:
                text = text.replace(a, b)
        return text
    return rewrite


def rewrite_site_configs(root, rewrite):
    for dirpath, _, files in os.walk(os.path.join(root, "build")):
        for name in files:
            if name == "lit.site.cfg.py":
                path = os.path.join(dirpath, name)
                with open(path) as f:
                    text = f.read()
                with open(path, "w") as f:
                    f.write(rewrite(text))


def properties(test):
    return {p["name"]: p["value"] for p in test.get("properties", [])}


def run_test(test, rewrite, env, log):
    props = properties(test)
    command = [rewrite(c) for c in test["command"]]
    # The Python that configured the build may not exist here: use this one.
    if command and os.path.basename(command[0]).startswith("python") and \
            not os.path.exists(command[0]):
        command[0] = sys.executable
    cwd = rewrite(props.get("WORKING_DIRECTORY", os.getcwd()))
    start = time.time()
    try:
        proc = subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=600)
        output = proc.stdout.decode("utf-8", "replace")
        rc = proc.returncode
    except (OSError, subprocess.TimeoutExpired) as e:
        output, rc = "could not run: %s" % e, -1
    elapsed = time.time() - start
    skip_code = props.get("SKIP_RETURN_CODE")
    if any(re.search(r, output) for r in props.get("SKIP_REGULAR_EXPRESSION", [])) or \
            (skip_code is not None and rc == int(skip_code)):
        result = "skipped"
    else:
        passes = props.get("PASS_REGULAR_EXPRESSION")
        ok = any(re.search(r, output) for r in passes) if passes else rc == 0
        if any(re.search(r, output) for r in props.get("FAIL_REGULAR_EXPRESSION", [])):
            ok = False
        if props.get("WILL_FAIL"):
            ok = not ok
        result = "passed" if ok else "FAILED"
    log.write("==== %s: %s (exit %d, %.1f s)\n$ %s\n%s\n" %
              (test["name"], result, rc, elapsed, " ".join(command), output))
    log.flush()
    print("%-50s %s (%.1f s)" % (test["name"], result, elapsed), flush=True)
    return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("pack")
    parser.add_argument("out")
    parser.add_argument("--source", default=os.getcwd())
    parser.add_argument("--skip-benchmarks", action="store_true")
    parser.add_argument("--filter", default="")
    parser.add_argument("--unpack-to", default="/tmp")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    root = unpack(args.pack, args.unpack_to)
    rewrite = make_rewriter(root, os.path.abspath(args.source))
    rewrite_site_configs(root, rewrite)
    env = dict(os.environ)
    # NVLink multicast stays off on the shared multi-GPU machines (GPU.md);
    # a caller's own setting wins.
    env.setdefault("NCCL_NVLS_ENABLE", "0")
    env["LD_LIBRARY_PATH"] = os.path.join(root, "tools", "lib") + (
        ":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    bin_dir = os.path.join(root, "build", "bin")

    summary = ["# kiln GPU checks", ""]
    gpu = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    summary.append("GPU: " + gpu.stdout.decode().strip())
    devices = subprocess.run([os.path.join(bin_dir, "kiln-run-module"), "--list_devices"], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    summary += ["", "kiln-run-module --list_devices:", "```", devices.stdout.decode().strip(), "```", ""]

    with open(os.path.join(root, "gpu_tests.json")) as f:
        tests = json.load(f)["tests"]
    counts = {"passed": 0, "FAILED": 0, "skipped": 0}
    rows = []
    with open(os.path.join(args.out, "tests.log"), "w") as log:
        for test in tests:
            if args.filter and not re.search(args.filter, test["name"]):
                continue
            result = run_test(test, rewrite, env, log)
            counts[result] += 1
            rows.append("| %s | %s |" % (test["name"], result))
    summary += ["## gpu-labelled tests: %d passed, %d failed, %d skipped" %
                (counts["passed"], counts["FAILED"], counts["skipped"]), "",
                "| test | result |", "| --- | --- |"] + rows + [""]

    if not args.skip_benchmarks:
        bench_json = os.path.join(args.out, "bench.json")
        torch_json = os.path.join(args.out, "torch.json")
        barriers_json = os.path.join(args.out, "barriers.json")
        with open(os.path.join(args.out, "bench.log"), "w") as log:
            subprocess.run([os.path.join(bin_dir, "kiln_gpu_dispatch_benchmark"),
                            "--benchmark_repetitions=5", "--benchmark_report_aggregates_only=true",
                            "--benchmark_min_time=0.2",
                            "--benchmark_out=" + bench_json, "--benchmark_out_format=json"],
                           env=env, stdout=log, stderr=subprocess.STDOUT)
            subprocess.run([sys.executable, os.path.join(args.source, "tests", "benchmarks",
                                                         "torch_dispatch_baseline.py"),
                            "--out", torch_json], stdout=log, stderr=subprocess.STDOUT)
            subprocess.run([os.path.join(bin_dir, "kiln_vulkan_barrier_benchmark"),
                            "--benchmark_repetitions=5", "--benchmark_report_aggregates_only=true",
                            "--benchmark_min_time=0.2",
                            "--benchmark_out=" + barriers_json, "--benchmark_out_format=json"],
                           env=env, stdout=log, stderr=subprocess.STDOUT)
        table = subprocess.run([sys.executable, os.path.join(args.source, "tests", "gpu",
                                                             "gpu_summary.py"),
                                bench_json, torch_json, barriers_json],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        summary += ["## Dispatch benchmark", "", table.stdout.decode()]

    with open(os.path.join(args.out, "summary.md"), "w") as f:
        f.write("\n".join(summary) + "\n")
    print("\n".join(summary))
    return 1 if counts["FAILED"] else 0


if __name__ == "__main__":
    sys.exit(main())
