#!/usr/bin/env python3
"""Speed of kiln's generated kernels against the peers doing the same work.

Compiles tensor_kernels.mlir with kiln-compile for the device, checks each
function's result against a numpy reference, then times it with
kiln-benchmark-module (Google Benchmark, one synchronous invocation per
iteration: upload once, then call and wait) and the peers in the same run:

  cuda  PyTorch eager on the same GPU: y.copy_(x) of 64M f32 (the device's
        copy bandwidth), the same 4-op chain, torch.softmax(x, -1),
        torch.nn.functional.layer_norm. Each PyTorch op is timed two ways:
        `sync` (a torch.cuda.synchronize after every call, as a kiln
        invocation waits for its result) and `queued` (calls back to back,
        one synchronize at the end).
  vulkan  kiln's Vulkan kernels alone, checked and timed (compare them
        with the cuda run's peers on the same GPU).
  cpu   numpy (one thread) on the chain over 16M f32; kiln on local-task.

Every figure is the median of --repetitions runs. Prints a table and writes
JSON (--out).

usage: run_tensor_benchmarks.py --bin-dir BUILD/bin --device cuda|vulkan|cpu [--out F]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "tensor_kernels.mlir")

CHAIN_GPU = 64 * 1024 * 1024
CHAIN_CPU = 16 * 1024 * 1024


def run(cmd):
    result = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        sys.exit("run_tensor_benchmarks.py: failed (%d): %s\n%s" %
                 (result.returncode, " ".join(cmd), result.stdout[-4000:]))
    return result.stdout


def kiln_median_us(bin_dir, module, device, function, inputs, repetitions):
    out = run([os.path.join(bin_dir, "kiln-benchmark-module"), "--module=" + module,
               "--device=" + device, "--function=" + function] +
              ["--input=" + i for i in inputs] +
              ["--benchmark_repetitions=%d" % repetitions, "--benchmark_format=json",
               "--time_unit=us"])
    report = json.loads(out[out.index("{"):])
    times = [b["real_time"] for b in report["benchmarks"] if b.get("run_type") == "iteration"]
    return statistics.median(times)


def kiln_check(bin_dir, module, device, function, inputs, expected, tmp, rtol, atol):
    import numpy as np
    paths = []
    for k, value in enumerate(inputs):
        path = os.path.join(tmp, "%s_in%d.npy" % (function, k))
        np.save(path, value)
        paths.append(path)
    out_path = os.path.join(tmp, function + "_out.npy")
    run([os.path.join(bin_dir, "kiln-run-module"), "--module=" + module, "--device=" + device,
         "--function=" + function, "--output=@" + out_path] + ["--input=@" + p for p in paths])
    actual = np.load(out_path)
    error = float(np.max(np.abs(actual - expected)))
    ok = bool(np.allclose(actual, expected, rtol=rtol, atol=atol))
    print("check %-10s max |error| %.3g %s" % (function, error, "ok" if ok else "WRONG"))
    if not ok:
        sys.exit("run_tensor_benchmarks.py: %s computed a wrong result" % function)
    return error


def references():
    import numpy as np
    rng = np.random.default_rng(0)
    x_softmax = rng.standard_normal((12, 128, 128), dtype=np.float32) * 3
    e = np.exp(x_softmax - x_softmax.max(-1, keepdims=True))
    softmax = e / e.sum(-1, keepdims=True)
    x_norm = rng.standard_normal((128, 384), dtype=np.float32) * 2 + 1
    scale = rng.standard_normal(384, dtype=np.float32)
    bias = rng.standard_normal(384, dtype=np.float32)
    mean = x_norm.mean(-1, keepdims=True)
    var = ((x_norm - mean) ** 2).mean(-1, keepdims=True)
    layernorm = (x_norm - mean) / np.sqrt(var + 1e-5) * scale + bias
    return (x_softmax, softmax), (x_norm, scale, bias, layernorm)


def torch_times(repetitions, min_time=0.2):
    import torch
    device = torch.device("cuda")
    sync = torch.cuda.synchronize

    def per_call(fn, synced):
        for _ in range(3):
            fn()
        sync()
        calls = 1
        while True:
            start = time.perf_counter()
            for _ in range(calls):
                fn()
                if synced:
                    sync()
            sync()
            elapsed = time.perf_counter() - start
            if elapsed >= min_time or calls >= 1 << 20:
                return elapsed / calls * 1e6
            calls *= 2

    def median(fn, synced):
        return statistics.median(per_call(fn, synced) for _ in range(repetitions))

    x = torch.full((CHAIN_GPU,), 1.5, device=device)
    y = torch.empty_like(x)
    s = torch.randn(12, 128, 128, device=device)
    n = torch.randn(128, 384, device=device)
    w = torch.randn(384, device=device)
    b = torch.randn(384, device=device)
    ops = {
        "copy": lambda: y.copy_(x),
        "chain4": lambda: torch.relu(x * 2 + 1) - 0.5,
        "softmax": lambda: torch.softmax(s, -1),
        "layernorm": lambda: torch.nn.functional.layer_norm(n, (384,), w, b, 1e-5),
    }
    result = {}
    for name, fn in ops.items():
        result[name] = {"sync": median(fn, True), "queued": median(fn, False)}
    result["torch"] = torch.__version__
    result["device"] = torch.cuda.get_device_name()
    return result


def numpy_chain_ms(repetitions):
    import numpy as np
    x = np.full(CHAIN_CPU, 1.5, np.float32)
    times = []
    for _ in range(repetitions):
        start = time.perf_counter()
        np.maximum(x * np.float32(2) + np.float32(1), np.float32(0)) - np.float32(0.5)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--device", choices=["cuda", "vulkan", "cpu"], required=True)
    parser.add_argument("--repetitions", type=int, default=10)
    parser.add_argument("--out")
    args = parser.parse_args()

    backend = {"cuda": "cuda", "vulkan": "vulkan-spirv", "cpu": "llvm-cpu"}[args.device]
    device = {"cuda": "cuda", "vulkan": "vulkan", "cpu": "local-task"}[args.device]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        module = os.path.join(tmp, "tensor_kernels.kmod")
        run([os.path.join(args.bin_dir, "kiln-compile"), SOURCE,
             "--iree-hal-target-backends=" + backend, "-o", module])
        (x_softmax, softmax), (x_norm, scale, bias, layernorm) = references()
        kiln_check(args.bin_dir, module, device, "softmax", [x_softmax], softmax, tmp, 1e-5, 1e-6)
        kiln_check(args.bin_dir, module, device, "layernorm", [x_norm, scale, bias], layernorm,
                   tmp, 1e-4, 1e-4)
        reps = args.repetitions
        if args.device == "cuda":
            chain = kiln_median_us(args.bin_dir, module, device, "chain4",
                                   ["%dxf32=1.5" % CHAIN_GPU], reps)
            soft = kiln_median_us(args.bin_dir, module, device, "softmax",
                                  ["@" + os.path.join(tmp, "softmax_in0.npy")], reps)
            norm = kiln_median_us(args.bin_dir, module, device, "layernorm",
                                  ["@" + os.path.join(tmp, "layernorm_in%d.npy" % k)
                                   for k in range(3)], reps)
            peers = torch_times(reps)
            moved = CHAIN_GPU * 4 * 2
            copy_bw = moved / peers["copy"]["sync"] / 1e3
            chain_bw = moved / chain / 1e3
            rows = [
                ("chain4 64M f32 (GB/s moved)", chain, peers["chain4"]["sync"],
                 peers["chain4"]["queued"], "%.0f GB/s = %.1f%% of copy %.0f GB/s" %
                 (chain_bw, 100 * chain_bw / copy_bw, copy_bw)),
                ("softmax 12x128x128", soft, peers["softmax"]["sync"], peers["softmax"]["queued"],
                 "kiln/torch-sync %.2fx, kiln/torch-queued %.2fx" %
                 (soft / peers["softmax"]["sync"], soft / peers["softmax"]["queued"])),
                ("layernorm 128x384", norm, peers["layernorm"]["sync"],
                 peers["layernorm"]["queued"], "kiln/torch-sync %.2fx, kiln/torch-queued %.2fx" %
                 (norm / peers["layernorm"]["sync"], norm / peers["layernorm"]["queued"])),
                ("torch copy_ 64M f32", None, peers["copy"]["sync"], peers["copy"]["queued"], ""),
            ]
            print("device: %s, torch %s, median of %d" % (peers["device"], peers["torch"], reps))
            print("%-30s %12s %14s %16s  %s" % ("work", "kiln us", "torch sync us",
                                                "torch queued us", "figure"))
            for name, k, ts, tq, figure in rows:
                print("%-30s %12s %14.1f %16.1f  %s" %
                      (name, "-" if k is None else "%.1f" % k, ts, tq, figure))
            result = {"device": peers["device"], "torch": peers["torch"], "repetitions": reps,
                      "kiln_us": {"chain4": chain, "softmax": soft, "layernorm": norm},
                      "torch_us": {k: v for k, v in peers.items() if isinstance(v, dict)},
                      "chain4_fraction_of_copy_bandwidth": chain_bw / copy_bw}
        elif args.device == "vulkan":
            # kiln's Vulkan kernels alone (the peers are measured on cuda).
            result = {"kiln_us": {}, "repetitions": reps}
            for function, inputs in [
                    ("chain4", ["%dxf32=1.5" % CHAIN_GPU]),
                    ("softmax", ["@" + os.path.join(tmp, "softmax_in0.npy")]),
                    ("layernorm", ["@" + os.path.join(tmp, "layernorm_in%d.npy" % k)
                                   for k in range(3)])]:
                result["kiln_us"][function] = kiln_median_us(args.bin_dir, module, device,
                                                             function, inputs, reps)
                print("vulkan %-10s %10.1f us (median of %d)" %
                      (function, result["kiln_us"][function], reps))
        else:
            chain = kiln_median_us(args.bin_dir, module, device, "chain4_cpu",
                                   ["%dxf32=1.5" % CHAIN_CPU], reps)
            numpy_us = numpy_chain_ms(reps)
            print("chain4 16M f32 on the CPU: kiln local-task %.0f us, numpy %.0f us: %.2fx" %
                  (chain, numpy_us, chain / numpy_us))
            result = {"kiln_us": chain, "numpy_us": numpy_us, "ratio": chain / numpy_us,
                      "repetitions": reps}
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
