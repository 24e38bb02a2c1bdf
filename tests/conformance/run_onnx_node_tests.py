#!/usr/bin/env python3
"""Runs ONNX's backend node tests through kiln and counts passes.

ONNX ships one small model per operator case (Debian: libonnx-testdata,
/usr/share/libonnx-testdata/data/node, ONNX 1.12's 932 tests): each test
directory holds `model.onnx` and one or more `test_data_set_N/` folders of
`input_K.pb` and `output_K.pb` TensorProtos. Each test goes through kiln as a
user's model would:

  import   kiln-import-onnx model.onnx -o model.mlir --param-threshold=-1
  compile  kiln-compile model.mlir --iree-hal-target-backends=<the device's>
  run      kiln-run-module --device=D --function=<the graph's> --input=@input_K.npy ...
           --output=@out_K.npy (one per graph output), for every test_data_set_N
  compare  as ONNX's backend runner (onnx/backend/test/runner) does: the same
           dtype and shape, then np.testing.assert_allclose(rtol=1e-3,
           atol=1e-7) for floats (NaN where the reference has NaN), exact for
           bool and integers

A test passes when every stage succeeds for every data set. Tests whose model
uses sequences, optionals, maps or strings fail as "unsupported type" (kiln
has none of them) without running anything. Inputs are converted from .pb
to .npy with onnx.numpy_helper; a dtype .npy cannot carry (bfloat16, complex)
fails where kiln first sees it.

Prints the pass count per operator (a test counts under its main op: the
single node's op_type, or for an expanded/function test the op its directory
is named after), the failures per stage and "passed X/N (P%)". With -v each
failure's first error line; --out writes every outcome as JSON; --min-pass
makes the exit status non-zero when fewer tests pass (a regression floor).
Exits 77 (ctest's skip code here), saying why, when the device or the test
data is not available.

Needs /usr/bin/python3 with python3-onnx and python3-numpy (Debian).

usage: run_onnx_node_tests.py --bin-dir BUILD/bin [--device cpu|cuda|vulkan]
           [--filter REGEX] [-j N] [--timeout S] [-v] [--out FILE.json] [--min-pass N]
"""
import argparse
import collections
import concurrent.futures
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
    import onnx
    from onnx import numpy_helper
except ImportError:
    # Run by an interpreter without them (a pyenv python3; ctest's
    # /usr/bin/python3 on a machine whose numpy and onnx are another
    # python3's): try the other one, once.
    if not os.environ.get("KILN_ONNX_PYTHON_RETRIED"):
        os.environ["KILN_ONNX_PYTHON_RETRIED"] = "1"
        for _other in (shutil.which("python3"), "/usr/bin/python3"):
            # (not realpath: a venv's python3 links to the system's)
            if _other and os.path.exists(_other) and \
                    os.path.abspath(_other) != os.path.abspath(sys.executable):
                os.execv(_other, [_other] + sys.argv)
    sys.exit("run_onnx_node_tests.py: needs the numpy and onnx Python packages "
             "(Debian: python3-numpy, python3-onnx; run it with /usr/bin/python3)")

DEFAULT_DATA_DIR = "/usr/share/libonnx-testdata/data/node"
BACKENDS = {"cpu": "llvm-cpu", "vulkan": "vulkan-spirv", "cuda": "cuda"}
STAGES = ["unsupported type", "import", "compile", "run", "compare"]
SKIP_EXIT_CODE = 77
RTOL, ATOL = 1e-3, 1e-7
# The public function kiln-import-onnx writes (named after the graph).
FUNCTION = re.compile(r"^\s*func\.func\s+(?:public\s+)?@(\"[^\"]*\"|[\w$.\-]+)\s*\(", re.M)
# Ops that make or take sequences and optionals (which may never appear in
# a graph input or output of the model).
SEQUENCE_OPS = re.compile(r"^(Sequence\w*|ConcatFromSequence|SplitToSequence|Optional\w*)$")


class StageError(Exception):
    def __init__(self, stage, message, output=""):
        super().__init__(message)
        self.stage = stage
        self.message = message
        self.output = output  # the failing tool's output, for --out


def first_error(output):
    """The line of a tool's output that best says what went wrong."""
    lines = [l.strip() for l in output.splitlines() if l.strip()]
    for line in lines:
        if "error" in line.lower():
            return line
    return lines[0] if lines else "(no output)"


def run_step(stage, cmd, timeout):
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        raise StageError(stage, "timed out after %d s: %s" % (timeout, " ".join(cmd)))
    output = proc.stdout.decode("utf-8", "replace")
    if proc.returncode < 0:  # a crash: say so before whatever it printed
        try:
            name = signal.Signals(-proc.returncode).name
        except ValueError:
            name = "signal %d" % -proc.returncode
        raise StageError(stage, "crashed (%s): %s" % (name, first_error(output)), output[:4000])
    if proc.returncode != 0:
        raise StageError(stage, "exit %d: %s" % (proc.returncode, first_error(output)),
                         output[:4000])
    return output


# ---- the model: what it needs, what it is named under ----------------------

def graphs_of(graph):
    """The graph and every subgraph of its nodes' attributes (If, Loop, Scan)."""
    yield graph
    for node in graph.node:
        for attr in node.attribute:
            if attr.HasField("g"):
                yield from graphs_of(attr.g)
            for g in attr.graphs:
                yield from graphs_of(g)


def unsupported_type(type_proto):
    """Why a value of this TypeProto is beyond kiln, or None."""
    kind = type_proto.WhichOneof("value")
    if kind == "tensor_type":
        if type_proto.tensor_type.elem_type == onnx.TensorProto.STRING:
            return "string tensor"
        return None
    if kind is None:
        return None  # no type given (an intermediate value): nothing to say
    return {"sequence_type": "sequence", "optional_type": "optional",
            "map_type": "map", "sparse_tensor_type": "sparse tensor"}.get(kind, kind)


def model_unsupported(model):
    """Why the model uses a type kiln has not (sequence, optional, string), or None."""
    for graph in graphs_of(model.graph):
        for value in list(graph.input) + list(graph.output) + list(graph.value_info):
            why = unsupported_type(value.type)
            if why:
                return "%s value '%s'" % (why, value.name)
        for init in graph.initializer:
            if init.data_type == onnx.TensorProto.STRING:
                return "string initializer '%s'" % init.name
        for node in graph.node:
            if SEQUENCE_OPS.match(node.op_type):
                return "%s (sequences/optionals)" % node.op_type
            for attr in node.attribute:
                if attr.HasField("t") and attr.t.data_type == onnx.TensorProto.STRING:
                    return "string tensor attribute of %s" % node.op_type
                if node.op_type == "Cast" and attr.name == "to" and \
                        attr.i == onnx.TensorProto.STRING:
                    return "Cast to string"
    return None


def snake(name):
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def op_aliases():
    """Every ONNX op's spellings in test names (LayerNormalization:
    layer_normalization and layernormalization), longest first."""
    aliases = []
    for schema in onnx.defs.get_all_schemas_with_history():
        if schema.domain not in ("", "ai.onnx"):
            continue
        for alias in {snake(schema.name), schema.name.lower()}:
            aliases.append((alias, schema.name))
    # Names the tests abbreviate or spell apart from the op.
    aliases += [("mvn", "MeanVarianceNormalization"), ("nllloss", "NegativeLogLikelihoodLoss"),
                ("sce", "SoftmaxCrossEntropyLoss"), ("greater_equal", "GreaterOrEqual"),
                ("less_equal", "LessOrEqual")]
    return sorted(set(aliases), key=lambda a: -len(a[0]))


ALIASES = op_aliases()


def main_op(name, model):
    """The op a test counts under: the single node's, else its name's."""
    ops = [n.op_type for n in model.graph.node]
    if len(ops) == 1:
        return ops[0]
    stem = name[len("test_"):] if name.startswith("test_") else name
    for alias, op in ALIASES:
        if stem == alias or stem.startswith(alias + "_"):
            return op
    counts = collections.Counter(ops)
    return counts.most_common(1)[0][0] if counts else stem.split("_")[0]


# ---- data: .pb to .npy, comparison -----------------------------------------

def load_tensor(path):
    tensor = onnx.TensorProto()
    with open(path, "rb") as f:
        tensor.ParseFromString(f.read())
    return numpy_helper.to_array(tensor)


def numbered(folder, prefix):
    """folder/prefix_0.pb, prefix_1.pb, ... in order."""
    count = len(glob.glob(os.path.join(folder, prefix + "_*.pb")))
    return [os.path.join(folder, "%s_%d.pb" % (prefix, i)) for i in range(count)]


def compare(expected, actual, index):
    """Raises AssertionError, as ONNX's runner would, when `actual` is not
    close enough to `expected`."""
    if actual.dtype != expected.dtype:
        raise AssertionError("output %d: dtype %s, expected %s" %
                             (index, actual.dtype, expected.dtype))
    if actual.shape != expected.shape:
        raise AssertionError("output %d: shape %s, expected %s" %
                             (index, actual.shape, expected.shape))
    if expected.dtype.kind in "biuSUO":
        bad = np.flatnonzero(np.asarray(actual != expected).reshape(-1))
        if bad.size:
            where = np.unravel_index(bad[0], expected.shape)
            raise AssertionError("output %d: %d of %d elements differ; first at %s: %r, "
                                 "expected %r" % (index, bad.size, expected.size,
                                                  [int(w) for w in where], actual[where],
                                                  expected[where]))
        return
    try:
        np.testing.assert_allclose(actual, expected, rtol=RTOL, atol=ATOL, equal_nan=True)
    except AssertionError as e:
        # numpy's message: the counts and the largest differences.
        detail = "; ".join(l.strip() for l in str(e).splitlines()
                           if l.strip().startswith(("Mismatched", "Max abs", "Max rel",
                                                    "x and y nan")))
        raise AssertionError("output %d: not within rtol=%g atol=%g: %s" %
                             (index, RTOL, ATOL, detail or str(e).strip()))


# ---- one test ----------------------------------------------------------------

def run_test(test_dir, args, work_root):
    name = os.path.basename(test_dir)
    outcome = {"name": name, "op": None, "passed": False, "stage": None, "message": "",
               "output": "", "data_sets": 0}
    start = time.time()
    work = os.path.join(work_root, name)
    os.makedirs(work, exist_ok=True)
    try:
        try:
            model = onnx.load(os.path.join(test_dir, "model.onnx"))
        except Exception as e:  # a model ONNX itself cannot read
            raise StageError("import", "onnx.load: %s" % e)
        outcome["op"] = main_op(name, model)
        why = model_unsupported(model)
        if why:
            raise StageError("unsupported type", why)

        mlir = os.path.join(work, "model.mlir")
        kmod = os.path.join(work, "model.kmod")
        run_step("import", [os.path.join(args.bin_dir, "kiln-import-onnx"),
                            os.path.join(test_dir, "model.onnx"), "-o", mlir,
                            "--param-threshold=-1"], args.timeout)
        with open(mlir) as f:
            match = FUNCTION.search(f.read())
        if not match:
            raise StageError("import", "no func.func in %s" % mlir)
        function = match.group(1).strip('"')
        run_step("compile", [os.path.join(args.bin_dir, "kiln-compile"), mlir,
                             "--iree-hal-target-backends=" + BACKENDS[args.device],
                             "-o", kmod] + args.compile_flag, args.timeout)

        data_sets = sorted(glob.glob(os.path.join(test_dir, "test_data_set_*")))
        if not data_sets:
            raise StageError("run", "no test_data_set_* folder")
        for data_set in data_sets:
            set_name = os.path.basename(data_set)
            set_work = os.path.join(work, set_name)
            os.makedirs(set_work, exist_ok=True)
            cmd = [os.path.join(args.bin_dir, "kiln-run-module"), "--module=" + kmod,
                   "--device=" + args.device, "--function=" + function]
            for k, pb in enumerate(numbered(data_set, "input")):
                npy = os.path.join(set_work, "input_%d.npy" % k)
                np.save(npy, load_tensor(pb), allow_pickle=False)
                cmd.append("--input=@" + npy)
            outputs = []
            for k in range(len(model.graph.output)):
                outputs.append(os.path.join(set_work, "out_%d.npy" % k))
                cmd.append("--output=@" + outputs[-1])
            try:
                run_step("run", cmd, args.timeout)
            except StageError as e:
                e.message = "%s: %s" % (set_name, e.message)
                raise
            expected_files = numbered(data_set, "output")
            if len(expected_files) != len(outputs):
                raise StageError("compare", "%s: %d outputs, %d reference outputs" %
                                 (set_name, len(outputs), len(expected_files)))
            for k, (pb, npy) in enumerate(zip(expected_files, outputs)):
                try:
                    compare(load_tensor(pb), np.load(npy, allow_pickle=False), k)
                except AssertionError as e:
                    raise StageError("compare", "%s: %s" % (set_name, e))
                except (OSError, ValueError) as e:
                    raise StageError("compare", "%s: output %d: %s" % (set_name, k, e))
            outcome["data_sets"] += 1
        outcome["passed"] = True
    except StageError as e:
        outcome["stage"], outcome["message"], outcome["output"] = e.stage, e.message, e.output
    except Exception as e:  # a bug here or unreadable test data: still one outcome
        outcome["stage"], outcome["message"] = "run", "%s: %s" % (type(e).__name__, e)
    outcome["seconds"] = round(time.time() - start, 2)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return outcome


# ---- the whole suite ---------------------------------------------------------

def device_available(bin_dir, device):
    """(True, "") when kiln-run-module lists a usable `device`, else (False, why)."""
    try:
        proc = subprocess.run([os.path.join(bin_dir, "kiln-run-module"), "--list_devices"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return False, "kiln-run-module --list_devices: %s" % e
    lines = proc.stdout.decode("utf-8", "replace").splitlines()
    mine = [l for l in lines if re.match(r"^%s(://\d+)?(\s|$)" % re.escape(device), l)]
    if any("  unavailable: " not in l for l in mine):
        return True, ""
    return False, "; ".join(mine) or "kiln-run-module lists no %s device" % device


def main():
    parser = argparse.ArgumentParser(
        description="Runs ONNX's backend node tests through kiln-import-onnx, kiln-compile "
                    "and kiln-run-module and counts passes.")
    parser.add_argument("--bin-dir", required=True,
                        help="folder of kiln-import-onnx, kiln-compile, kiln-run-module")
    parser.add_argument("--device", default="cpu", choices=sorted(BACKENDS))
    parser.add_argument("--data-dir",
                        help="ONNX's node tests (default: $KILN_ONNX_NODE_DATA, else "
                             + DEFAULT_DATA_DIR + ", else BIN_DIR/../onnx-node-data, the "
                             "copy a GPU pack carries)")
    parser.add_argument("--compile-flag", action="append", default=[],
                        help="one more kiln-compile flag (repeatable), e.g. --library-calls=false")
    parser.add_argument("--filter", default="", help="only tests whose name matches this regex")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--timeout", type=int, default=120, help="seconds per step")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="print each failure's first error line")
    parser.add_argument("--out", help="write every outcome to this JSON file")
    parser.add_argument("--min-pass", type=int, default=0,
                        help="exit 1 when fewer tests pass (a regression floor)")
    parser.add_argument("--work-dir", help="where the .mlir/.kmod/.npy files go "
                                           "(default: a temporary folder, removed)")
    parser.add_argument("--keep", action="store_true",
                        help="keep each test's files in --work-dir")
    args = parser.parse_args()
    args.bin_dir = os.path.abspath(args.bin_dir)
    if not args.data_dir:
        candidates = [os.environ.get("KILN_ONNX_NODE_DATA"), DEFAULT_DATA_DIR,
                      os.path.join(os.path.dirname(args.bin_dir), "onnx-node-data")]
        args.data_dir = next((c for c in candidates if c and os.path.isdir(c)), DEFAULT_DATA_DIR)

    tests = sorted(glob.glob(os.path.join(args.data_dir, "test_*")))
    tests = [t for t in tests if os.path.isfile(os.path.join(t, "model.onnx"))]
    if not tests:
        print("run_onnx_node_tests: SKIPPED: no ONNX node tests in %s (Debian: apt install "
              "libonnx-testdata, or give --data-dir)" % args.data_dir)
        return SKIP_EXIT_CODE
    total_in_suite = len(tests)
    if args.filter:
        tests = [t for t in tests if re.search(args.filter, os.path.basename(t))]
    for tool in ("kiln-import-onnx", "kiln-compile", "kiln-run-module"):
        if not os.access(os.path.join(args.bin_dir, tool), os.X_OK):
            print("run_onnx_node_tests: error: %s is missing (build it first)" %
                  os.path.join(args.bin_dir, tool))
            return 1
    ok, why = device_available(args.bin_dir, args.device)
    if not ok:
        print("run_onnx_node_tests: SKIPPED: device %s is not available: %s" % (args.device, why))
        return SKIP_EXIT_CODE

    work_root = args.work_dir or tempfile.mkdtemp(prefix="kiln-onnx-node-")
    os.makedirs(work_root, exist_ok=True)
    print("ONNX node tests: %d of %d in %s, device %s (%s), %d jobs" %
          (len(tests), total_in_suite, args.data_dir, args.device, BACKENDS[args.device],
           args.jobs), flush=True)
    start = time.time()
    outcomes = []
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            futures = [pool.submit(run_test, t, args, work_root) for t in tests]
            for future in concurrent.futures.as_completed(futures):
                outcome = future.result()
                outcomes.append(outcome)
                if args.verbose and not outcome["passed"]:
                    print("FAIL %s [%s]: %s" % (outcome["name"], outcome["stage"],
                                                outcome["message"]), flush=True)
    finally:
        if not args.work_dir and not args.keep:
            shutil.rmtree(work_root, ignore_errors=True)
    outcomes.sort(key=lambda o: o["name"])
    elapsed = time.time() - start

    by_op = collections.OrderedDict()
    for o in sorted(outcomes, key=lambda o: (o["op"] or "?").lower()):
        by_op.setdefault(o["op"] or "?", []).append(o)
    width = max([len(op) for op in by_op] + [8])
    print("\n%-*s  passed" % (width, "operator"))
    for op, items in by_op.items():
        passed = sum(o["passed"] for o in items)
        failed = sorted(collections.Counter(o["stage"] for o in items if not o["passed"]).items())
        note = ", ".join("%d %s" % (n, s) for s, n in failed)
        print("%-*s  %3d/%-3d%s" % (width, op, passed, len(items), "  (failed: %s)" % note
                                    if note else ""))
    stages = collections.Counter(o["stage"] for o in outcomes if not o["passed"])
    passed = sum(o["passed"] for o in outcomes)
    print("\nfailed at: " + ", ".join("%s %d" % (s, stages.get(s, 0)) for s in STAGES))
    total = len(outcomes)
    print("passed %d/%d (%.1f%%) on %s in %.0f s" %
          (passed, total, 100.0 * passed / total if total else 0.0, args.device, elapsed))

    if args.out:
        with open(args.out, "w") as f:
            json.dump({"device": args.device, "data_dir": args.data_dir, "passed": passed,
                       "total": total, "failed_at": {s: stages.get(s, 0) for s in STAGES},
                       "tests": outcomes}, f, indent=1)
    if passed < args.min_pass:
        print("run_onnx_node_tests: FAILED: %d passed, fewer than --min-pass %d" %
              (passed, args.min_pass))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
