#!/usr/bin/env python3
"""Summarises one GPU benchmark run (kiln_gpu_dispatch_benchmark's JSON and
torch_dispatch_baseline.py's JSON, taken in the same run) as a Markdown table
with the ratios issue 5 and 6 set goals for:
  (a) kiln graph replay      / (d) raw CUDA graph    <= 1.15
  (b) kiln stream mode       / (c) raw cuLaunchKernel <= 1.15
  (e) PyTorch eager          / (a) kiln graph replay  >= 5
  (g) kiln vulkan replay     / (a) kiln graph replay  <= 1.5
and, beside them, what plain Vulkan pays for the same chain on the same
device: (h) one command buffer with a barrier between dispatches, (i) the
same without barriers (racing; it shows what the barriers cost).

With kiln_vulkan_barrier_benchmark's JSON from the same run, a last table
gives what each way of ordering the chain costs on plain Vulkan.

usage: gpu_summary.py BENCH.json [TORCH.json [BARRIERS.json]]
"""
import json
import sys


def load_medians(path):
    """run_name -> the median aggregate's row."""
    with open(path) as f:
        data = json.load(f)
    rows = {}
    for b in data.get("benchmarks", []):
        if b.get("aggregate_name") == "median":
            rows[b["run_name"].replace("/real_time", "").replace("/iterations:20", "")] = b
        elif b.get("run_type") == "iteration" and "error_occurred" in b:
            rows.setdefault(b["run_name"].replace("/real_time", ""), b)
    return rows, data.get("context", {})


def us(value_seconds):
    return value_seconds * 1e6


def print_barriers(path, chains, fmt):
    """The plain-Vulkan ordering table: wall and GPU-timestamp time per dispatch."""
    print()
    try:
        rows, _ = load_medians(path)
    except (OSError, ValueError) as e:
        print("Plain Vulkan orderings: missing (%s)" % e)
        return
    orderings = []
    for name in rows:
        ordering = name.split("/")[1]
        if ordering not in orderings:
            orderings.append(ordering)
    print("| plain Vulkan, ordering between dispatches: wall / GPU us per dispatch | %s |" %
          " | ".join("N=%d" % n for n in chains))
    print("| --- |%s" % (" --- |" * len(chains)))
    for ordering in orderings:
        cells = []
        for n in chains:
            row = rows.get("BM_VulkanChain/%s/%d" % (ordering, n))
            if not row or "error_occurred" in row:
                cells.append("n/a")
            else:
                cells.append("%s / %s" % (fmt(row["per_dispatch"] * 1e6),
                                          fmt(row["gpu_per_dispatch_us"])))
        print("| %s | %s |" % (ordering, " | ".join(cells)))


def main():
    bench, context = load_medians(sys.argv[1])
    torch = {}
    torch_info = ""
    if len(sys.argv) > 2:
        try:
            with open(sys.argv[2]) as f:
                t = json.load(f)
            torch = {r["name"]: r for r in t["rows"]}
            torch_info = "PyTorch %s on %s" % (t.get("torch"), t.get("device"))
        except (OSError, ValueError, KeyError) as e:
            torch_info = "PyTorch baseline missing (%s)" % e

    def per_dispatch(name):
        row = bench.get(name)
        if not row or "error_occurred" in row:
            return None
        return us(row["per_dispatch"])

    def per_call(name):
        row = bench.get(name)
        if not row or "error_occurred" in row:
            return None
        scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}[row.get("time_unit", "ns")]
        return row["real_time"] * scale

    def fmt(v, digits=3):
        return "n/a" if v is None else ("%.*f" % (digits, v))

    def ratio(x, y):
        return None if x is None or y is None or y == 0 else x / y

    print("Medians of 5 repetitions, one run. %s. Host: %s CPUs." %
          (torch_info, context.get("num_cpus", "?")))
    print()
    print("| per dispatch (us) | N=10 | N=100 | N=1000 |")
    print("| --- | --- | --- | --- |")
    chains = [10, 100, 1000]
    lines = [
        ("(a) kiln cuda, graph replay", lambda n: per_dispatch("BM_Kiln/cuda/%d" % n)),
        ("(b) kiln cuda, stream mode", lambda n: per_dispatch("BM_Kiln/cuda-streams/%d" % n)),
        ("(c) raw cuLaunchKernel loop", lambda n: per_dispatch("BM_RawLaunch/%d" % n)),
        ("(d) raw CUDA graph replay", lambda n: per_dispatch("BM_RawGraph/%d" % n)),
        ("(e) PyTorch eager add_", lambda n: torch.get("eager/%d" % n, {}).get("per_dispatch_us")),
        ("(f) PyTorch CUDA graph replay",
         lambda n: torch.get("graph/%d" % n, {}).get("per_dispatch_us")),
        ("(g) kiln vulkan, reusable replay", lambda n: per_dispatch("BM_Kiln/vulkan/%d" % n)),
        ("(h) raw Vulkan replay, barrier per dispatch",
         lambda n: per_dispatch("BM_RawVulkan/%d" % n)),
        ("(i) raw Vulkan replay, no barriers (racing)",
         lambda n: per_dispatch("BM_RawVulkanUnordered/%d" % n)),
        ("kiln cuda, replay on new buffers (patched)",
         lambda n: per_dispatch("BM_KilnNewBuffers/cuda/%d" % n)),
        ("kiln vulkan, replay on new buffers",
         lambda n: per_dispatch("BM_KilnNewBuffers/vulkan/%d" % n)),
    ]
    values = {}
    for label, get in lines:
        cells = []
        for n in chains:
            v = get(n)
            values[(label[:3] if label.startswith("(") else label, n)] = v
            cells.append(fmt(v))
        print("| %s | %s |" % (label, " | ".join(cells)))
    print()
    print("| ratio (goal) | N=10 | N=100 | N=1000 |")
    print("| --- | --- | --- | --- |")
    ratios = [
        ("(a)/(d) graph vs raw graph (<= 1.15)", "(a)", "(d)"),
        ("(b)/(c) streams vs raw launches (<= 1.15)", "(b)", "(c)"),
        ("(e)/(a) PyTorch eager vs kiln graph (>= 5)", "(e)", "(a)"),
        ("(g)/(a) kiln vulkan vs kiln cuda graph (<= 1.5)", "(g)", "(a)"),
        ("(g)/(h) kiln vulkan vs raw Vulkan", "(g)", "(h)"),
        ("(h)/(d) raw Vulkan vs raw CUDA graph", "(h)", "(d)"),
    ]
    for label, x, y in ratios:
        print("| %s | %s |" % (label, " | ".join(
            fmt(ratio(values.get((x, n)), values.get((y, n))), 2) for n in chains)))
    print()
    print("| first call of a fresh context (record + instantiate), us per call | N=10 | N=100 | N=1000 |")
    print("| --- | --- | --- | --- |")
    print("| kiln cuda | %s |" % " | ".join(
        fmt(per_call("BM_KilnFirstCall/cuda/%d" % n), 1) for n in chains))
    if len(sys.argv) > 3:
        print_barriers(sys.argv[3], chains, fmt)
    errors = [(k, v.get("error_message", "")) for k, v in bench.items() if "error_occurred" in v]
    if errors:
        print()
        print("Rows that did not run:")
        for k, message in sorted(errors):
            print("- %s: %s" % (k, message))


if __name__ == "__main__":
    main()
