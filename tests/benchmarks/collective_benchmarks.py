#!/usr/bin/env python3
"""Collective benchmarks on several GPUs of one host: kiln against torch.distributed.

One run, every row on the same machine (compare only figures of one run):

  all-reduce  a 256 MiB f32 tensor summed over N GPUs (N = 2 and 4, as many
              as the host has), as bus bandwidth: busbw = bytes * 2(N-1)/N / t
              (NCCL's definition, nccl-tests' "busbw").
      kiln    a program of one flow.collective.all_reduce, compiled for cuda,
              timed by kiln-benchmark-module in N processes (one per GPU,
              --rank/--world_size/--rendezvous, --iterations so every rank
              makes the same calls); t is the median over repetitions of a
              call's wall time (issue the graph, the NCCL all-reduce inside
              it, wait), the slowest rank's.
      torch   torch.distributed (NCCL backend), N processes, dist.all_reduce
              on the same tensor in place; t is the median over repetitions
              of a loop's time per call (cuda synchronize at both ends).
  tp block    samples/multi_gpu's tensor-parallel GPT-2 MLP block (sequence
              128) on 1, 2 and 4 GPUs: kiln's wall time per call (the median
              over repetitions, the slowest rank's), after checking every
              rank's result against the unsplit block's.

NCCL_NVLS_ENABLE=0 is set for every process (NVLink multicast stays off on the
shared machines). A row that fails shows its error; no figure is made up.

usage: collective_benchmarks.py --bin-dir BIN [--gpus N] [--iterations 20]
           [--repetitions 5] [--work DIR] [--markdown FILE] [--out FILE.json]
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
ROOT = os.path.dirname(os.path.dirname(HERE))
ALL_REDUCE_BYTES = 256 << 20

ALL_REDUCE_PROGRAM = """\
func.func @all_reduce(%x: tensor<{n}xf32>) -> tensor<{n}xf32> {{
  %channel = flow.channel.default : !flow.channel
  %empty = tensor.empty() : tensor<{n}xf32>
  %sum = flow.collective.all_reduce sum, f32, %empty, %x, %channel
      : (tensor<{n}xf32>, tensor<{n}xf32>, !flow.channel) -> %empty as tensor<{n}xf32>
  return %sum : tensor<{n}xf32>
}}
"""


def environment():
    env = dict(os.environ)
    env["NCCL_NVLS_ENABLE"] = "0"
    return env


def run(command, timeout=600):
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                            env=environment())
    if result.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(command[:2]), result.returncode,
                                                (result.stderr or result.stdout).strip()[-600:]))
    return result.stdout


def run_ranks(command, ranks, work, timeout=600):
    """Runs `command` (a list; '{rank}' is replaced) as every rank; returns stdouts."""
    rendezvous = tempfile.mkdtemp(prefix="rendezvous-", dir=work)
    processes = []
    for rank in range(ranks):
        argv = [a.replace("{rank}", str(rank)) for a in command]
        argv += ["--rank=%d" % rank, "--world_size=%d" % ranks, "--rendezvous=" + rendezvous]
        processes.append(subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                          text=True, env=environment()))
    outputs = []
    failure = None
    deadline = time.monotonic() + timeout
    for rank, process in enumerate(processes):
        try:
            out, err = process.communicate(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            for p in processes:
                p.kill()
            raise RuntimeError("rank %d timed out" % rank)
        if process.returncode != 0 and failure is None:
            failure = "rank %d: exit %d: %s" % (rank, process.returncode, err.strip()[-600:])
        outputs.append(out)
    if failure:
        raise RuntimeError(failure)
    return outputs


def kiln_median_seconds(outputs):
    """The slowest rank's median real_time per call (seconds) from JSON outputs."""
    per_rank = []
    for out in outputs:
        report = json.loads(out[out.index("{"):])
        times = [b["real_time"] for b in report["benchmarks"] if b.get("run_type") == "iteration"]
        unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[report["benchmarks"][0]["time_unit"]]
        per_rank.append(statistics.median(times) * unit)
    return max(per_rank)


def kiln_all_reduce(args, ranks, work):
    count = ALL_REDUCE_BYTES // 4
    source = os.path.join(work, "all_reduce.mlir")
    module = os.path.join(work, "all_reduce.kmod")
    if not os.path.exists(module):
        with open(source, "w") as f:
            f.write(ALL_REDUCE_PROGRAM.format(n=count))
        run([os.path.join(args.bin_dir, "kiln-compile"), source,
             "--iree-hal-target-backends=cuda", "-o", module])
    # Correct first: every rank's sum of ones is the rank count.
    run_ranks([os.path.join(args.bin_dir, "kiln-run-module"), "--module=" + module,
               "--device=cuda", "--function=all_reduce", "--input=%dxf32=1" % count,
               "--expected_output=%dxf32=%d" % (count, ranks), "--output_max_element_count=4"],
              ranks, work)
    outputs = run_ranks([os.path.join(args.bin_dir, "kiln-benchmark-module"),
                         "--module=" + module, "--device=cuda", "--function=all_reduce",
                         "--input=%dxf32=1" % count, "--iterations=%d" % args.iterations,
                         "--benchmark_repetitions=%d" % args.repetitions,
                         "--benchmark_format=json"], ranks, work)
    return kiln_median_seconds(outputs)


TORCH_WORKER = r"""
import os, statistics, sys, time
import torch
import torch.distributed as dist
rank, ranks, init, iterations, repetitions, count = (int(sys.argv[1]), int(sys.argv[2]),
    sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]))
torch.cuda.set_device(rank)
dist.init_process_group("nccl", init_method=init, rank=rank, world_size=ranks,
                        device_id=torch.device("cuda", rank))
x = torch.ones(count, dtype=torch.float32, device="cuda")
for _ in range(5):
    dist.all_reduce(x)
torch.cuda.synchronize()
times = []
for _ in range(repetitions):
    dist.barrier()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(iterations):
        dist.all_reduce(x)
    torch.cuda.synchronize()
    times.append((time.perf_counter() - start) / iterations)
print("TIME %.9f" % statistics.median(times))
dist.destroy_process_group()
"""


def torch_all_reduce(args, ranks, work):
    script = os.path.join(work, "torch_all_reduce.py")
    with open(script, "w") as f:
        f.write(TORCH_WORKER)
    init = "file://" + os.path.join(tempfile.mkdtemp(prefix="torch-", dir=work), "store")
    processes = [subprocess.Popen([sys.executable, script, str(r), str(ranks), init,
                                   str(args.iterations), str(args.repetitions),
                                   str(ALL_REDUCE_BYTES // 4)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  env=environment()) for r in range(ranks)]
    seconds = []
    for rank, process in enumerate(processes):
        out, err = process.communicate(timeout=600)
        if process.returncode != 0:
            raise RuntimeError("torch rank %d: %s" % (rank, err.strip()[-600:]))
        seconds.append(float(out.split("TIME")[1].split()[0]))
    return max(seconds)


def bus_bandwidth(seconds, ranks):
    return ALL_REDUCE_BYTES * 2 * (ranks - 1) / ranks / seconds / 1e9


def tp_block(args, ranks, work):
    folder = os.path.join(work, "tp%d" % ranks)
    run([sys.executable, os.path.join(ROOT, "samples", "multi_gpu", "make_tp_mlp.py"),
         "--ranks", str(ranks), "--out", folder])
    module = os.path.join(folder, "tp_mlp.kmod")
    run([os.path.join(args.bin_dir, "kiln-compile"),
         os.path.join(folder, "tp_mlp_n%d.mlir" % ranks), "--iree-hal-target-backends=cuda",
         "-o", module])
    common = ["--module=" + module, "--device=cuda", "--function=mlp",
              "--parameters=model=" + os.path.join(folder,
                                                   "weights_n%d_rank{rank}.safetensors" % ranks),
              "--input=@" + os.path.join(folder, "input.npy")]
    run_ranks([os.path.join(args.bin_dir, "kiln-run-module")] + common +
              ["--expected_output=@" + os.path.join(folder, "expected.npy"),
               "--expected_f32_threshold=1e-4", "--output_max_element_count=4"], ranks, work)
    outputs = run_ranks([os.path.join(args.bin_dir, "kiln-benchmark-module")] + common +
                        ["--iterations=%d" % (args.iterations * 10),
                         "--benchmark_repetitions=%d" % args.repetitions,
                         "--benchmark_format=json"], ranks, work)
    return kiln_median_seconds(outputs)


def cell(function):
    try:
        return function(), None
    except Exception as error:  # A failing row shows its error; the rest goes on.
        return None, str(error).replace("\n", " ")[:300]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--gpus", type=int, default=0, help="default: every visible GPU")
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--work", default="")
    parser.add_argument("--markdown", default="")
    parser.add_argument("--out", default="")
    args = parser.parse_args()
    gpus = args.gpus
    if gpus == 0:
        listing = run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"])
        gpus = len([l for l in listing.splitlines() if l.strip()])
    work = args.work or tempfile.mkdtemp(prefix="kiln-collectives-")
    os.makedirs(work, exist_ok=True)
    results = {"gpus": gpus, "all_reduce": [], "tp_block": []}
    lines = ["## Collectives on %d GPUs: kiln against torch.distributed" % gpus, "",
             "All-reduce of 256 MiB f32, bus bandwidth (GB/s, median of %d repetitions of %d "
             "calls):" % (args.repetitions, args.iterations), "",
             "| GPUs | kiln ms | kiln busbw | torch ms | torch busbw | kiln / torch busbw |",
             "| --- | --- | --- | --- | --- | --- |"]
    for ranks in [n for n in (2, 4, 8) if n <= gpus]:
        kiln, kiln_error = cell(lambda: kiln_all_reduce(args, ranks, work))
        torch_time, torch_error = cell(lambda: torch_all_reduce(args, ranks, work))
        row = {"ranks": ranks, "kiln_s": kiln, "kiln_error": kiln_error, "torch_s": torch_time,
               "torch_error": torch_error}
        results["all_reduce"].append(row)
        k = "%.3f | %.1f" % (kiln * 1e3, bus_bandwidth(kiln, ranks)) if kiln else (
            "error: %s | —" % kiln_error)
        t = "%.3f | %.1f" % (torch_time * 1e3, bus_bandwidth(torch_time, ranks)) if torch_time \
            else "error: %s | —" % torch_error
        ratio = "%.3f" % (torch_time / kiln) if kiln and torch_time else "—"
        lines.append("| %d | %s | %s | %s |" % (ranks, k, t, ratio))
    lines += ["", "Tensor-parallel GPT-2 MLP block (seq 128, 768 → 3072 → 768, f32), kiln µs per "
              "call (median of %d repetitions of %d calls, the slowest rank):" %
              (args.repetitions, args.iterations * 10), "", "| GPUs | kiln µs |", "| --- | --- |"]
    for ranks in [n for n in (1, 2, 4) if n <= gpus]:
        seconds, error = cell(lambda: tp_block(args, ranks, work))
        results["tp_block"].append({"ranks": ranks, "kiln_s": seconds, "error": error})
        lines.append("| %d | %s |" % (ranks, "%.1f" % (seconds * 1e6) if seconds else
                                      "error: " + error))
    text = "\n".join(lines) + "\n"
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
