#!/usr/bin/env python3
"""PyTorch baselines of the GPU dispatch benchmark (gpu_dispatch_benchmark.cc).

The same work as kiln's chains: N dependent in-place adds of 1.0 to 1,024
floats, then a synchronize, timed per call:
  eager/N   N x torch.Tensor.add_(1.0) launched eagerly
  graph/N   the same N adds captured once in a torch.cuda.CUDAGraph, replayed
Each row is the median of --repetitions runs, each the mean over enough calls
to take about --min-time seconds. Writes JSON: {"rows": [{"name", "per_call_us",
"per_dispatch_us", "n"}], "device": ..., "torch": ...}.

usage: torch_dispatch_baseline.py --out torch.json [--chains 10,100,1000]
"""
import argparse
import json
import statistics
import time


def time_calls(fn, sync, min_time):
    # Warm up, then find a call count that takes about min_time.
    for _ in range(3):
        fn()
    sync()
    calls = 1
    while True:
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        sync()
        elapsed = time.perf_counter() - start
        if elapsed >= min_time or calls >= 1 << 20:
            return elapsed / calls
        calls *= 2


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--chains", default="10,100,1000")
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--min-time", type=float, default=0.2)
    args = parser.parse_args()
    import torch  # On the GPU machine only.

    if not torch.cuda.is_available():
        raise SystemExit("torch_dispatch_baseline.py: no CUDA device for PyTorch")
    device = torch.device("cuda")
    sync = torch.cuda.synchronize
    rows = []
    for n in [int(x) for x in args.chains.split(",")]:
        data = torch.zeros(1024, dtype=torch.float32, device=device)

        def eager():
            for _ in range(n):
                data.add_(1.0)

        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            eager()  # Warm-up on the side stream, as capture requires.
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            eager()

        # Check the work: each eager call and each replay adds n.
        data.zero_()
        eager()
        graph.replay()
        sync()
        if data[1023].item() != 2 * n:
            raise SystemExit("torch baseline computed %s, expected %s" % (data[1023].item(), 2 * n))

        for name, fn in (("eager", eager), ("graph", graph.replay)):
            samples = [time_calls(fn, sync, args.min_time) for _ in range(args.repetitions)]
            per_call = statistics.median(samples)
            rows.append({"name": "%s/%d" % (name, n), "n": n, "per_call_us": per_call * 1e6,
                         "per_dispatch_us": per_call * 1e6 / n,
                         "samples_us": [s * 1e6 for s in samples]})
            print("torch %-12s %10.2f us/call %8.3f us/dispatch" %
                  (name + "/" + str(n), per_call * 1e6, per_call * 1e6 / n), flush=True)
    with open(args.out, "w") as f:
        json.dump({"rows": rows, "device": torch.cuda.get_device_name(0),
                   "torch": torch.__version__}, f, indent=1)


if __name__ == "__main__":
    main()
