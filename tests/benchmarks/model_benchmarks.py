#!/usr/bin/env python3
"""Model benchmarks: kiln against PyTorch (GPU table) and ONNX Runtime (CPU table).

Two tables, each taken in one run (compare only ratios of one run):

  gpu  kiln on --kiln-device (cuda) against PyTorch on --torch-device (cuda):
       eager, a CUDA graph (torch.cuda.CUDAGraph captured once, replayed) and
       torch.compile(mode="reduce-overhead"); f32 with TF32 off, f16 for the
       *_f16 models. Models (default): mlp_b256 mlp_b1 resnet50 gpt2
       resnet50_f16 gpt2_f16.
  cpu  kiln on --device=cpu against onnxruntime's CPUExecutionProvider with
       the same thread count, on the same model.onnx. Models: resnet50 gpt2.

Every model is the one tests/models/export_models.py exports (its builders,
its seed): the folder MODELS_DIR/<model> (model.onnx, input_K.npy,
expected_K.npy, meta.json); a missing folder is exported first when torch
is importable (--export). For kiln, each model is imported and compiled as
tests/models/run_models.py does (kiln-import-onnx --param-file,
kiln-compile --iree-hal-target-backends=..., --parameters=model=...).

What a figure is (every row, kiln and peers alike): the wall time of one
synchronous call, i.e. issue the call and wait for its results, measured
over a loop of calls that lasts about --min-time seconds, repeated
--repetitions times; a row is the median of those repetitions, in µs.
  kiln   kiln-benchmark-module (Google Benchmark): `real_time` per iteration;
         one iteration is one call, which returns once the device is done.
         Inputs are uploaded once before timing, as the peers' are.
  torch  a Python loop of fn(); torch.cuda.synchronize(), perf_counter.
  ORT    a Python loop of session.run(), perf_counter.
Host time (the second GPU table):
  kiln   kiln-benchmark-module's user counters: `host_time_us`, the median
         over a repetition's calls of a call's wall time less its fence
         waits (the host's own work: VM, patching, cuGraphLaunch), as the
         peers' issue time is a median; and `host_time_mean_us`, their mean,
         which one preemption of the process during a repetition inflates.
         Google Benchmark's `cpu_time` (the whole process's CPU time) is
         shown beside them: kiln's wait for the GPU spins (cuEventSynchronize
         under the driver's spin policy), so it is close to the wall time.
  torch  how long fn() takes to return before the synchronize (median over
         one extra loop of calls, so the timed loops stay bare): the host's
         cost of issuing the call (eager: Python + launches; graph: replay()).

A row that fails (export, import, compile, run, a peer) shows its error in
its cell and the rest goes on; a kiln output that differs from the export's
expected output beyond the tolerance is marked WRONG beside its time. No
figure is ever made up: a cell without a measurement says why.

usage: model_benchmarks.py gpu --bin-dir BIN --models-dir DIR [--models a,b]
           [--kiln-device cuda] [--torch-device cuda] [--peers eager,graph,compile]
           [--repetitions 5] [--min-time 0.2] [--smoke] [--out FILE.json]
       model_benchmarks.py cpu --bin-dir BIN --models-dir DIR [--models a,b]
           [--threads N] [--repetitions 5] [--min-time 0.2] [--smoke] [--out FILE.json]
"""
import argparse
import json
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "models"))
import run_models  # noqa: E402  (numpy only: the import/compile steps and compare())

GPU_MODELS = ["mlp_b256", "mlp_b1", "resnet50", "gpt2", "resnet50_f16", "gpt2_f16"]
CPU_MODELS = ["resnet50", "gpt2"]
PEERS = {"eager": "PyTorch eager", "graph": "CUDA graph", "compile": "torch.compile r-o"}
# kiln's output against the export's (PyTorch's) expected output: max|a-b| / max|b|.
# f16 accumulates differently in every implementation; 2e-2 still catches a wrong graph.
TOLERANCE = {"f32": 1e-3, "f16": 2e-2}
GOAL_HOST_US = 10.0   # item 5: kiln's host time per call of a static-shape model
GOAL_CPU_RATIO = 1.5  # item 6: kiln cpu within 1.5x of ONNX Runtime


class RowError(Exception):
    """A failure confined to one cell of a table."""


def log(message):
    print(message, flush=True)


def short(error, width=70):
    """The first informative line of an error, for a table cell."""
    lines = [l.strip() for l in str(error).splitlines() if l.strip()]
    text = " / ".join(lines[:2]) if lines else "error"
    text = text.replace("|", "/")
    return text if len(text) <= width else text[:width - 1] + "…"


def dtype_of(model):
    return "f16" if model.endswith("_f16") else "f32"


# --- the models -------------------------------------------------------------------------

def ensure_exported(model, args):
    """The model's folder, exported with export_models.py if it is missing."""
    folder = os.path.join(args.models_dir, model)
    if os.path.isfile(os.path.join(folder, "model.onnx")):
        return folder
    if args.export == "never":
        raise RowError("no %s/model.onnx (run tests/models/export_models.py --models %s)" %
                       (folder, model))
    try:
        import export_models  # torch (and torchvision/transformers) only where it runs
    except ImportError as e:
        raise RowError("no %s/model.onnx, and export_models.py cannot run here: %s" % (folder, e))
    start = time.time()
    try:
        import torch
        with torch.no_grad():
            export_models.export(model, args.models_dir, args.seed)
    except Exception as e:  # The exporter raises anything; the row says what.
        raise RowError("export failed: %s: %s" % (type(e).__name__, e))
    log("  exported %s in %.1f s" % (model, time.time() - start))
    return folder


def model_seed(folder, default):
    try:
        with open(os.path.join(folder, "meta.json")) as f:
            return json.load(f).get("seed", default)
    except (OSError, ValueError):
        return default


# --- kiln -------------------------------------------------------------------------------

def kiln_compile(model, folder, device, args, instrumented=False):
    """Imports and compiles the model for `device` (run_models.py's commands);
    `instrumented` adds kiln-compile --instrument-dispatches (its own folder).
    Returns (kmod, parameters file or None, function, seconds per stage)."""
    work = os.path.join(args.work_dir, device + ("-instrumented" if instrumented else ""), model)
    os.makedirs(work, exist_ok=True)
    mlir = os.path.join(work, "model.mlir")
    params = os.path.join(work, "model.safetensors")
    kmod = os.path.join(work, "model.kmod")
    onnx_path = os.path.join(folder, "model.onnx")
    compiler = os.path.join(args.bin_dir, "kiln-compile")
    times = {}
    fresh = (args.reuse_kmod and os.path.isfile(kmod) and os.path.isfile(mlir) and
             os.path.getmtime(kmod) > max(os.path.getmtime(onnx_path),
                                          os.path.getmtime(compiler)))
    try:
        if not fresh:
            for path in (params, kmod):
                if os.path.exists(path):
                    os.remove(path)  # A stale file is not this import's.
            run_models.run_step("import", [os.path.join(args.bin_dir, "kiln-import-onnx"),
                                           onnx_path, "-o", mlir, "--param-file=" + params],
                                args.timeout, times, args.verbose)
            run_models.run_step("compile", [compiler, mlir, "--iree-hal-target-backends=" +
                                            run_models.BACKENDS[device], "-o", kmod] +
                                (["--instrument-dispatches"] if instrumented else []),
                                args.timeout, times, args.verbose)
    except run_models.StageError as e:
        raise RowError("kiln %s: %s" % (e.stage, e))
    function = None
    with open(mlir) as f:
        for line in f:
            match = run_models.FUNCTION.match(line)
            if match:
                function = match.group(1).strip('"')
                break
    if not function:
        raise RowError("kiln import: no func.func in " + mlir)
    return kmod, (params if os.path.exists(params) else None), function, times


def kiln_io_flags(kmod, params, function, device):
    flags = ["--module=" + kmod, "--device=" + device, "--function=" + function]
    if params:
        flags.append("--parameters=model=" + params)
    return flags


def kiln_check(model, folder, kmod, params, function, device, args, instrument_file=None):
    """Runs the model once with kiln-run-module; max relative error of its
    outputs against the export's expected outputs (the largest over outputs).
    With `instrument_file`, the run writes it (--instrument_file)."""
    expected = run_models.numbered(folder, "expected")
    inputs = run_models.numbered(folder, "input")
    work = os.path.dirname(kmod)
    outputs = [os.path.join(work, "output_%d.npy" % k) for k in range(len(expected))]
    for path in outputs:
        if os.path.exists(path):
            os.remove(path)
    cmd = [os.path.join(args.bin_dir, "kiln-run-module")] + \
        kiln_io_flags(kmod, params, function, device) + \
        ["--input=@" + p for p in inputs] + ["--output=@" + p for p in outputs] + \
        (["--instrument_file=" + instrument_file] if instrument_file else [])
    try:
        run_models.run_step("run", cmd, args.timeout, {}, args.verbose)
    except run_models.StageError as e:
        raise RowError("kiln-run-module: %s" % e)
    import numpy as np
    worst = 0.0
    for e, o in zip(expected, outputs):
        ok, _, max_rel, note = run_models.compare(np.load(e), np.load(o), float("inf"))
        if max_rel is None:
            raise RowError("kiln output: " + note)
        worst = max(worst, max_rel)
    return worst


def gbench_min_time(seconds):
    # Debian 12's libbenchmark (1.7.1, what the GPU pack carries) takes a plain
    # number of seconds; 1.8 also takes it (with "s" preferred).
    return "%g" % seconds


def kiln_benchmark(folder, kmod, params, function, device, args):
    """Times the model with kiln-benchmark-module. Returns the row's figures."""
    inputs = run_models.numbered(folder, "input")
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = f.name
    cmd = [os.path.join(args.bin_dir, "kiln-benchmark-module")] + \
        kiln_io_flags(kmod, params, function, device) + \
        ["--input=@" + p for p in inputs] + \
        ["--benchmark_repetitions=%d" % args.repetitions,
         "--benchmark_min_time=" + gbench_min_time(args.min_time),
         "--benchmark_min_warmup_time=" + gbench_min_time(args.warmup_time),
         "--benchmark_out=" + out, "--benchmark_out_format=json"]
    if device == "cpu" and getattr(args, "cpu_threads", 0):
        # The same worker count as the peer it is compared with.
        cmd.append("--task_topology_group_count=%d" % args.cpu_threads)
    if args.verbose:
        log("  + " + " ".join(cmd))
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=args.timeout)
        text = proc.stdout.decode("utf-8", "replace")
        if proc.returncode != 0:
            raise RowError("kiln-benchmark-module exit %d: %s" %
                           (proc.returncode, run_models.tail(text, 3)))
        with open(out) as f:
            data = json.load(f)
    except subprocess.TimeoutExpired:
        raise RowError("kiln-benchmark-module timed out after %d s" % args.timeout)
    except (OSError, ValueError) as e:
        raise RowError("kiln-benchmark-module's JSON: %s" % e)
    finally:
        if os.path.exists(out):
            os.remove(out)
    runs = [b for b in data.get("benchmarks", []) if b.get("run_type") == "iteration"]
    failed = [b for b in runs if b.get("error_occurred")]
    if failed:
        raise RowError("kiln: " + failed[0].get("error_message", "error"))
    if not runs:
        raise RowError("kiln-benchmark-module reported no runs")
    scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
    real = [b["real_time"] * scale[b["time_unit"]] for b in runs]
    cpu = [b["cpu_time"] * scale[b["time_unit"]] for b in runs]
    result = {"us": statistics.median(real), "samples_us": real,
              "process_cpu_us": statistics.median(cpu), "process_cpu_samples_us": cpu,
              "iterations": [b["iterations"] for b in runs],
              "library_build_type": data.get("context", {}).get("library_build_type")}
    hosts = [b["host_time_us"] for b in runs if "host_time_us" in b]
    if hosts:
        result["host_time_us"] = statistics.median(hosts)
        result["host_samples_us"] = hosts
    host_means = [b["host_time_mean_us"] for b in runs if "host_time_mean_us" in b]
    if host_means:
        result["host_time_mean_us"] = statistics.median(host_means)
    submits = [b["submit_time_us"] for b in runs if "submit_time_us" in b]
    if submits:
        result["submit_time_us"] = statistics.median(submits)
        result["submit_samples_us"] = submits
    return result


def merge_benchmarks(row, more):
    """Adds a second kiln_benchmark() of the same module to `row`: every
    figure becomes the median over the repetitions of both."""
    for median_key, samples_key in (("us", "samples_us"),
                                    ("process_cpu_us", "process_cpu_samples_us"),
                                    ("host_time_us", "host_samples_us"),
                                    ("submit_time_us", "submit_samples_us")):
        if samples_key in row and samples_key in more:
            row[samples_key] = row[samples_key] + more[samples_key]
            row[median_key] = statistics.median(row[samples_key])
    row["iterations"] = row.get("iterations", []) + more.get("iterations", [])
    row["benchmark_runs"] = row.get("benchmark_runs", 1) + 1


def kiln_row(model, folder, device, args, instrumented=False):
    """Compile, check and time one model with kiln: the row's kiln figures.
    `instrumented`: compiled with --instrument-dispatches; the check run
    writes an instrument file, whose per-call figures the row keeps."""
    kmod, params, function, times = kiln_compile(model, folder, device, args, instrumented)
    row = {"compile_s": times}
    if args.check or instrumented:
        instrument_file = os.path.join(os.path.dirname(kmod), "check.kins") \
            if instrumented else None
        max_rel = kiln_check(model, folder, kmod, params, function, device, args,
                             instrument_file)
        row["max_rel_err"] = max_rel
        row["tolerance"] = TOLERANCE[dtype_of(model)]
        row["correct"] = max_rel <= row["tolerance"]
        if instrumented:
            row["instruments"] = kiln_instrument_summary(instrument_file, args)
    row.update(kiln_benchmark(folder, kmod, params, function, device, args))
    row["module"] = {"kmod": kmod, "params": params, "function": function}
    return row


def rebenchmark(row, folder, device, args):
    """Times the row's module once more and merges the figures into it."""
    m = row["module"]
    merge_benchmarks(row, kiln_benchmark(folder, m["kmod"], m["params"], m["function"],
                                         device, args))


def kiln_instrument_summary(path, args):
    """kiln-dump-instruments' JSON of one call's instrument file: the sites
    and records it counted, and the dropped ones (a ring too small)."""
    cmd = [os.path.join(args.bin_dir, "kiln-dump-instruments"), path, "--output=json"]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=args.timeout)
    if proc.returncode != 0:
        raise RowError("kiln-dump-instruments exit %d: %s" %
                       (proc.returncode, run_models.tail(proc.stderr.decode("utf-8", "replace"), 3)))
    try:
        data = json.loads(proc.stdout.decode("utf-8", "replace"))
    except ValueError as e:
        raise RowError("kiln-dump-instruments' JSON: %s" % e)
    return {"sites": len(data.get("sites", [])), "records": data.get("records"),
            "dropped": data.get("dropped")}


def kiln_cpu_threads(bin_dir):
    """The thread count of kiln's cpu device by default, as it reports it (one
    per CPU of the affinity mask; --task_topology_group_count sets it)."""
    proc = subprocess.run([os.path.join(bin_dir, "kiln-benchmark-module"), "--list_devices"],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    match = re.search(r"^cpu://\d+\s+CPU \((\d+) threads\)", proc.stdout.decode(), re.M)
    return int(match.group(1)) if match else None


# --- timing loops of the peers (PyTorch, ONNX Runtime) ------------------------------------

def time_calls(call, sync, args):
    """Median wall µs of call()+sync() over --repetitions loops of about
    --min-time s each (after about --warmup-time s of warm-up), and the median
    µs that call() itself takes before the sync (the host's issue time)."""
    warm_end = time.perf_counter() + args.warmup_time
    calls = 0
    while calls < 2 or time.perf_counter() < warm_end:
        call()
        sync()
        calls += 1
    # Calibrate the loop length like Google Benchmark: enough calls for min_time.
    start = time.perf_counter()
    for _ in range(3):
        call()
        sync()
    estimate = (time.perf_counter() - start) / 3
    count = max(1, min(100000, int(math.ceil(args.min_time / max(estimate, 1e-9)))))
    walls = []
    perf = time.perf_counter
    for _ in range(args.repetitions):
        start = perf()
        for _ in range(count):
            call()
            sync()
        walls.append((perf() - start) / count * 1e6)
    # The issue time in a loop of its own, so the timed loops above are the
    # same bare loop for every row.
    issues = []
    for _ in range(count):
        start = perf()
        call()
        issues.append(perf() - start)
        sync()
    return {"us": statistics.median(walls), "samples_us": walls, "calls_per_sample": count,
            "issue_us": statistics.median(issues) * 1e6}


def max_rel_error(expected, actual):
    import numpy as np
    _, _, max_rel, note = run_models.compare(expected, np.asarray(actual, dtype=np.float32),
                                             float("inf"))
    if max_rel is None:
        raise RowError(note)
    return max_rel


# --- PyTorch ------------------------------------------------------------------------------

def torch_rows(model, folder, args):
    """Eager, CUDA graph and torch.compile rows for one model: {peer: figures or error}."""
    import numpy as np
    import torch
    import export_models
    device = torch.device(args.torch_device)
    cuda = device.type == "cuda"
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    results = {}
    start = time.time()
    try:
        net, built_inputs, _ = export_models.build(model, model_seed(folder, args.seed), device)
    except Exception as e:
        message = "build failed: %s: %s" % (type(e).__name__, e)
        return {peer: {"error": message} for peer in args.peers}
    # The very input kiln gets (input_K.npy), not a fresh draw.
    inputs = []
    for path, (_, built) in zip(run_models.numbered(folder, "input"), built_inputs):
        inputs.append(torch.from_numpy(np.load(path)).to(device=device, dtype=built.dtype))
    expected = [np.load(p) for p in run_models.numbered(folder, "expected")]
    log("  torch: built %s on %s in %.1f s" % (model, device, time.time() - start))

    def first_output(out):
        while isinstance(out, (tuple, list)):
            out = out[0]
        return out.detach().float().cpu().numpy()

    for peer in args.peers:
        start = time.time()
        try:
            with torch.no_grad():
                if peer == "eager":
                    fn = lambda: net(*inputs)  # noqa: E731
                    out = fn()
                elif peer == "graph":
                    if not cuda:
                        raise RowError("CUDA graphs need --torch-device=cuda")
                    # Warm-up on a side stream (lazy initialisations must not
                    # be captured), then capture one call and replay it.
                    side = torch.cuda.Stream()
                    side.wait_stream(torch.cuda.current_stream())
                    with torch.cuda.stream(side):
                        for _ in range(3):
                            net(*inputs)
                    torch.cuda.current_stream().wait_stream(side)
                    graph = torch.cuda.CUDAGraph()
                    with torch.cuda.graph(graph):
                        static_out = net(*inputs)
                    fn = graph.replay
                    fn()
                    sync()
                    out = static_out
                elif peer == "compile":
                    if not hasattr(torch, "compile"):
                        raise RowError("torch.compile needs PyTorch 2 (this is %s)" %
                                       torch.__version__)
                    compiled = torch.compile(net, mode="reduce-overhead")
                    mark = getattr(getattr(torch, "compiler", None),
                                   "cudagraph_mark_step_begin", None)

                    def fn():
                        # Each call is a new step for cudagraph trees: the
                        # previous outputs may be overwritten (none is kept).
                        if mark:
                            mark()
                        return compiled(*inputs)
                    out = fn()  # Compiles.
                    sync()
                    results.setdefault("_compile_s", time.time() - start)
                else:
                    raise RowError("unknown peer " + peer)
                sync()
                rel = max_rel_error(expected[0], first_output(out))
                figures = time_calls(fn, sync, args)
            figures["max_rel_err"] = rel
            figures["seconds"] = time.time() - start
            results[peer] = figures
            log("  %-8s %10.1f us/call (issue %.1f us), max rel err %.2g vs export, %.1f s" %
                (peer, figures["us"], figures["issue_us"], rel, figures["seconds"]))
        except Exception as e:  # A peer that fails is a cell, not the end of the run.
            if args.verbose:
                traceback.print_exc()
            results[peer] = {"error": "%s: %s" % (type(e).__name__, e)
                             if not isinstance(e, RowError) else str(e)}
            log("  %-8s error: %s" % (peer, short(results[peer]["error"], 200)))
        finally:
            fn = out = None
    compile_s = results.pop("_compile_s", None)
    if compile_s is not None and "compile" in results:
        results["compile"]["compile_s"] = compile_s
    net = inputs = None  # Drop the model before the next one is built.
    if cuda:
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
    if hasattr(torch, "_dynamo"):
        torch._dynamo.reset()  # Frees compiled graphs (and their CUDA graph pools).
    return results


def torch_setup(args):
    import torch
    torch.set_grad_enabled(False)
    # f32 means f32: no TF32 in matmuls or convolutions.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    if hasattr(torch, "set_float32_matmul_precision"):
        torch.set_float32_matmul_precision("highest")
    info = {"torch": torch.__version__, "torch_device": args.torch_device,
            "tf32": False}
    if args.torch_device.startswith("cuda"):
        if not torch.cuda.is_available():
            raise SystemExit("model_benchmarks.py: --torch-device=%s but PyTorch sees no GPU" %
                             args.torch_device)
        info["gpu"] = torch.cuda.get_device_name(torch.device(args.torch_device))
    return info


# --- ONNX Runtime -------------------------------------------------------------------------

def ort_row(model, folder, threads, args):
    import numpy as np
    try:
        import onnxruntime as ort
    except ImportError:
        raise RowError("onnxruntime is not installed here")
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    start = time.time()
    session = ort.InferenceSession(os.path.join(folder, "model.onnx"), options,
                                   providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    feeds = {n: np.load(p) for n, p in zip(names, run_models.numbered(folder, "input"))}
    expected = np.load(run_models.numbered(folder, "expected")[0])
    rel = max_rel_error(expected, session.run(None, feeds)[0])
    figures = time_calls(lambda: session.run(None, feeds), lambda: None, args)
    figures.update({"max_rel_err": rel, "threads": threads, "onnxruntime": ort.__version__,
                    "seconds": time.time() - start})
    return figures


# --- tables -------------------------------------------------------------------------------

def fmt_us(value):
    if value is None:
        return "—"
    return "{:,.1f}".format(value) if value < 1000 else "{:,.0f}".format(value)


def note_number(notes, message):
    """The 1-based number of `message` among the notes under a table (one
    note for an error that several cells share)."""
    if message not in notes:
        notes.append(message)
    return notes.index(message) + 1


def cell(figures, notes, key="us"):
    """A table cell: the median, or the error (its full text in a note)."""
    if figures is None:
        return "—"
    if "error" in figures:
        return "error [%d]: %s" % (note_number(notes, figures["error"]),
                                   short(figures["error"], 50))
    value = figures.get(key)
    return fmt_us(value) if value is not None else "—"


def kiln_cell(kiln, notes):
    text = cell(kiln, notes)
    if kiln and "error" not in kiln and kiln.get("correct") is False:
        text += " WRONG (max rel err %.2g > %g)" % (kiln["max_rel_err"], kiln["tolerance"])
    return text


def check_cell(kiln):
    if not kiln or "error" in kiln:
        return "—"
    if "max_rel_err" not in kiln:
        return "not checked"
    return "%.2g %s" % (kiln["max_rel_err"], "ok" if kiln["correct"] else "WRONG")


def ok_figure(figures):
    return figures is not None and "error" not in figures and figures.get("us") is not None


def gpu_tables(rows, info, args):
    notes = []
    lines = ["## kiln (%s) against PyTorch %s (%s)" % (args.kiln_device, info["torch"],
                                                     info.get("gpu", args.torch_device)),
             "",
             "Wall µs per synchronous call, median of %d repetitions of about %g s; "
             "f32 with TF32 off unless the model says f16." % (args.repetitions, args.min_time),
             "",
             "| model | kiln | " + " | ".join(PEERS[p] for p in args.peers) +
             " | fastest peer | kiln / fastest | kiln output (max rel err) |",
             "| --- | --- | " + " | ".join("---" for _ in args.peers) + " | --- | --- | --- |"]
    for r in rows:
        peers = r.get("torch", {})
        fastest = None
        for peer in args.peers:
            f = peers.get(peer)
            if ok_figure(f) and (fastest is None or f["us"] < peers[fastest]["us"]):
                fastest = peer
        kiln = r.get("kiln")
        if fastest and ok_figure(kiln):
            ratio = "%.2f" % (kiln["us"] / peers[fastest]["us"])
            if kiln.get("correct") is False:
                ratio += " (wrong output)"
        else:
            ratio = "—"
        lines.append("| %s | %s | %s | %s | %s | %s |" % (
            r["model"], kiln_cell(kiln, notes),
            " | ".join(cell(peers.get(p), notes) for p in args.peers),
            PEERS[fastest] if fastest else "—", ratio, check_cell(kiln)))
    lines += ["", "Host µs per call (goal: kiln under %g µs for a static-shape model)." %
              GOAL_HOST_US, "",
              "| model | kiln host_time_us (median call) | kiln submit_time_us (its driver share) | "
              "kiln host_time_mean_us | "
              "kiln process CPU (includes the spinning wait) | " +
              " | ".join("%s issue" % PEERS[p] for p in args.peers) + " |",
              "| --- | --- | --- | --- | --- | " + " | ".join("---" for _ in args.peers) + " |"]
    for r in rows:
        kiln = r.get("kiln") or {}
        ok = "error" not in kiln
        host = fmt_us(kiln.get("host_time_us")) if ok and "host_time_us" in kiln else \
            "not reported by the tool"
        lines.append("| %s | %s | %s | %s | %s | %s |" % (
            r["model"], host if ok else "—",
            fmt_us(kiln.get("submit_time_us")) if ok and "submit_time_us" in kiln else "—",
            fmt_us(kiln.get("host_time_mean_us")) if ok and "host_time_mean_us" in kiln else "—",
            fmt_us(kiln.get("process_cpu_us")) if ok else "—",
            " | ".join(cell(r.get("torch", {}).get(p), [], "issue_us") if
                       ok_figure(r.get("torch", {}).get(p)) else "—" for p in args.peers)))
    if args.instrumented:
        lines += instrumentation_table(rows, notes)
    return lines, notes


def instrumentation_table(rows, notes):
    """Issue 19: the cost of kiln-compile --instrument-dispatches, the same
    model with and without, both timed in this run."""
    lines = ["", "Instrumentation overhead: the model compiled with and without "
             "kiln-compile --instrument-dispatches (one record per workgroup into a 1 MiB "
             "ring), timed alternately (plain, instrumented, plain, ...), each figure the "
             "median over all its repetitions; wall µs per call as above.", "",
             "| model | kiln | kiln instrumented | overhead | host µs | host µs instrumented | "
             "records per call (sites) | instrumented output (max rel err) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        plain, inst = r.get("kiln"), r.get("kiln_instrumented")
        overhead = "%+.1f%%" % (100.0 * (inst["us"] / plain["us"] - 1.0)) \
            if ok_figure(plain) and ok_figure(inst) else "—"
        records = "—"
        if ok_figure(inst) and "instruments" in inst:
            i = inst["instruments"]
            records = "%s (%s)" % (i["records"], i["sites"])
            if i.get("dropped"):
                records += ", %s dropped" % i["dropped"]
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["model"], kiln_cell(plain, notes), kiln_cell(inst, notes), overhead,
            fmt_us(plain.get("host_time_us")) if ok_figure(plain) else "—",
            fmt_us(inst.get("host_time_us")) if ok_figure(inst) else "—",
            records, check_cell(inst)))
    return lines


def cpu_table(rows, info, args):
    notes = []
    lines = ["## kiln cpu against ONNX Runtime %s (CPUExecutionProvider)" %
             info.get("onnxruntime", "(not installed)"),
             "",
             "Wall µs per call, median of %d repetitions of about %g s; kiln's cpu device "
             "runs %d threads (--task_topology_group_count; %s by default), ONNX Runtime "
             "intra_op_num_threads=%d (inter_op 1, sequential); %s CPUs online, %d in this "
             "process's affinity mask." %
             (args.repetitions, args.min_time, info["threads"], info.get("kiln_threads") or "?",
              info["threads"],
              os.cpu_count(), len(os.sched_getaffinity(0))),
             ""] + ["**warning**: %s." % w for w in info["warnings"]] + \
            (["", ] if info["warnings"] else []) + [
             "| model | kiln cpu | ONNX Runtime | kiln / ORT (goal <= %g) | kiln output (max rel err) |"
             % GOAL_CPU_RATIO,
             "| --- | --- | --- | --- | --- |"]
    for r in rows:
        kiln, ort = r.get("kiln"), r.get("ort")
        ratio = "%.2f" % (kiln["us"] / ort["us"]) if ok_figure(kiln) and ok_figure(ort) else "—"
        lines.append("| %s | %s | %s | %s | %s |" % (r["model"], kiln_cell(kiln, notes),
                                                     cell(ort, notes), ratio, check_cell(kiln)))
    return lines, notes


def print_report(lines, notes):
    if notes:
        lines += [""] + ["[%d] %s" % (k + 1, n.replace("\n", " / ")) for k, n in enumerate(notes)]
    log("\n" + "\n".join(lines) + "\n")
    return "\n".join(lines) + "\n"


# --- the two commands ---------------------------------------------------------------------

def run_gpu(args):
    info = torch_setup(args) if args.peers else {"torch": "(no peers)"}
    rows = []
    for model in args.models:
        log("%s:" % model)
        start = time.time()
        row = {"model": model, "dtype": dtype_of(model)}
        try:
            folder = ensure_exported(model, args)
        except RowError as e:
            row["kiln"] = {"error": str(e)}
            row["torch"] = {p: {"error": str(e)} for p in args.peers}
            rows.append(row)
            continue
        try:
            row["kiln"] = kiln_row(model, folder, args.kiln_device, args)
            k = row["kiln"]
            log("  kiln     %10.1f us/call (process CPU %.1f us)%s" %
                (k["us"], k["process_cpu_us"],
                 ", max rel err %.2g" % k["max_rel_err"] if "max_rel_err" in k else ""))
        except RowError as e:
            row["kiln"] = {"error": str(e)}
            log("  kiln     error: %s" % short(e, 200))
        if args.instrumented:
            try:
                row["kiln_instrumented"] = kiln_row(model, folder, args.kiln_device, args,
                                                    instrumented=True)
                k = row["kiln_instrumented"]
                log("  kiln instrumented %10.1f us/call, %s records per call in %s sites" %
                    (k["us"], k["instruments"]["records"], k["instruments"]["sites"]))
                # Alternate the two once more (plain, instrumented, plain,
                # instrumented) and merge: whichever runs first pays for the
                # GPU's and the CPU's warm-up (host time especially), which
                # would otherwise read as an overhead or a gain.
                for _ in range(args.instrumented_rounds - 1):
                    if ok_figure(row["kiln"]):
                        rebenchmark(row["kiln"], folder, args.kiln_device, args)
                    rebenchmark(k, folder, args.kiln_device, args)
                log("  kiln %10.1f us/call, instrumented %10.1f us/call over %d rounds" %
                    (row["kiln"].get("us") or 0, k["us"], args.instrumented_rounds))
            except RowError as e:
                row["kiln_instrumented"] = {"error": str(e)}
                log("  kiln instrumented error: %s" % short(e, 200))
        if args.peers:
            row["torch"] = torch_rows(model, folder, args)
        row["seconds"] = time.time() - start
        log("  (%.1f s)" % row["seconds"])
        rows.append(row)
    lines, notes = gpu_tables(rows, info, args)
    return {"table": "gpu", "info": info, "rows": rows}, print_report(lines, notes)


def cgroup_cpu_limit():
    """The cgroup v2 CPU quota in CPUs ("max" when none), or None."""
    try:
        with open("/sys/fs/cgroup/cpu.max") as f:
            quota, period = f.read().split()[:2]
        return "max" if quota == "max" else "%.2f" % (int(quota) / int(period))
    except (OSError, ValueError):
        return None


def run_cpu(args):
    kiln_threads = kiln_cpu_threads(args.bin_dir)
    affinity = len(os.sched_getaffinity(0))
    threads = args.threads or affinity
    args.cpu_threads = threads  # kiln gets --task_topology_group_count=threads.
    info = {"kiln_threads": kiln_threads, "threads": threads, "cpu_count": os.cpu_count(),
            "affinity": affinity, "cgroup_cpu_max": cgroup_cpu_limit(),
            "warnings": []}
    if threads > affinity:
        info["warnings"].append(
            "%d threads each for kiln and ONNX Runtime, but this process may run on %d CPUs "
            "(affinity mask): oversubscribed" % (threads, affinity))
    for warning in info["warnings"]:
        log("warning: " + warning)
    try:
        import onnxruntime
        info["onnxruntime"] = onnxruntime.__version__
    except ImportError:
        pass
    rows = []
    for model in args.models:
        log("%s:" % model)
        start = time.time()
        row = {"model": model, "dtype": dtype_of(model)}
        try:
            folder = ensure_exported(model, args)
        except RowError as e:
            rows.append(dict(row, kiln={"error": str(e)}, ort={"error": str(e)}))
            continue
        try:
            row["kiln"] = kiln_row(model, folder, "cpu", args)
            log("  kiln cpu %10.1f us/call" % row["kiln"]["us"])
        except RowError as e:
            row["kiln"] = {"error": str(e)}
            log("  kiln cpu error: %s" % short(e, 200))
        try:
            row["ort"] = ort_row(model, folder, threads, args)
            log("  ORT      %10.1f us/call, max rel err %.2g vs export" %
                (row["ort"]["us"], row["ort"]["max_rel_err"]))
        except Exception as e:  # ORT raises its own types; the cell says what.
            row["ort"] = {"error": str(e) if isinstance(e, RowError) else
                          "%s: %s" % (type(e).__name__, e)}
            log("  ORT      error: %s" % short(row["ort"]["error"], 200))
        row["seconds"] = time.time() - start
        rows.append(row)
    lines, notes = cpu_table(rows, info, args)
    return {"table": "cpu", "info": info, "rows": rows}, print_report(lines, notes)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="table", required=True)
    for name, models, doc in (("gpu", GPU_MODELS, "kiln vs PyTorch eager / CUDA graph / "
                               "torch.compile (issue 16 item 5)"),
                              ("cpu", CPU_MODELS, "kiln cpu vs ONNX Runtime CPU, same thread "
                               "count (issue 16 item 6)")):
        p = sub.add_parser(name, help=doc, description=doc)
        p.add_argument("--bin-dir", required=True,
                       help="kiln tools (kiln-import-onnx, kiln-compile, kiln-run-module, "
                       "kiln-benchmark-module)")
        p.add_argument("--models-dir", required=True,
                       help="export_models.py's --out: one folder per model")
        p.add_argument("--models", default=",".join(models),
                       help="comma-separated (default: %(default)s)")
        p.add_argument("--work-dir", default="/tmp/kiln-model-bench",
                       help="where .mlir, .safetensors, .kmod go (per device and model)")
        p.add_argument("--export", choices=("missing", "never"), default="missing",
                       help="export a model with export_models.py when its folder is missing "
                       "(needs torch)")
        p.add_argument("--seed", type=int, default=0, help="export seed of missing models")
        p.add_argument("--repetitions", type=int, default=5)
        p.add_argument("--min-time", type=float, default=0.2,
                       help="seconds of calls in one repetition")
        p.add_argument("--warmup-time", type=float, default=0.1,
                       help="seconds of warm-up calls before timing")
        p.add_argument("--smoke", action="store_true",
                       help="2 repetitions of 0.05 s, 0.02 s warm-up: checks the script, "
                       "not a measurement")
        p.add_argument("--no-check", dest="check", action="store_false",
                       help="skip the kiln-run-module run that checks kiln's output")
        p.add_argument("--reuse-kmod", action="store_true",
                       help="keep a .kmod newer than its model.onnx and kiln-compile")
        p.add_argument("--timeout", type=int, default=900, help="seconds per tool run")
        p.add_argument("--out", help="write every figure (and every sample) as JSON")
        p.add_argument("--markdown", help="write the tables to this file too")
        p.add_argument("-v", "--verbose", action="store_true")
        if name == "gpu":
            p.add_argument("--kiln-device", default="cuda")
            p.add_argument("--torch-device", default="cuda",
                           help="cpu for a smoke run without a GPU")
            p.add_argument("--peers", default=",".join(PEERS),
                           help="comma-separated, of: %s; empty for kiln only" % ", ".join(PEERS))
            p.add_argument("--instrumented", action="store_true",
                           help="also compile and time each model with kiln-compile "
                           "--instrument-dispatches: the overhead table (issue 19)")
            p.add_argument("--instrumented-rounds", type=int, default=2,
                           help="with --instrumented: time the plain and the instrumented "
                           "module this many times each, alternating (default %(default)s)")
        else:
            p.add_argument("--threads", type=int, default=0,
                           help="ONNX Runtime's intra-op threads (default: what kiln's cpu "
                           "device reports it runs)")
    args = parser.parse_args()
    args.bin_dir = os.path.abspath(args.bin_dir)
    args.models_dir = os.path.abspath(args.models_dir)
    args.models = [m for m in args.models.split(",") if m]
    if args.smoke:
        args.repetitions, args.min_time, args.warmup_time = 2, 0.05, 0.02
    if args.table == "gpu":
        args.peers = [p for p in args.peers.split(",") if p]
        unknown = [p for p in args.peers if p not in PEERS]
        if unknown:
            parser.error("unknown peer(s) %s" % ", ".join(unknown))
    tools = ["kiln-import-onnx", "kiln-compile", "kiln-run-module", "kiln-benchmark-module"]
    if getattr(args, "instrumented", False):
        tools.append("kiln-dump-instruments")
    for tool in tools:
        if not os.access(os.path.join(args.bin_dir, tool), os.X_OK):
            parser.error("no %s in %s" % (tool, args.bin_dir))

    start = time.time()
    result, report = run_gpu(args) if args.table == "gpu" else run_cpu(args)
    result.update({"seconds": time.time() - start, "host": platform.node(),
                   "settings": {"repetitions": args.repetitions, "min_time_s": args.min_time,
                                "warmup_time_s": args.warmup_time, "smoke": args.smoke,
                                "models_dir": args.models_dir, "bin_dir": args.bin_dir}})
    log("total %.0f s" % result["seconds"])
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
