"""Shared harness of the interpreter benchmarks (run_vm_benchmarks.sh,
run_mlir_benchmarks.sh): the two programs' expected results, runners for the
builder-made kiln bytecode and the Lua scripts, and the round-robin loop with
its median/min/max table.

Every runner returns CPU seconds of one run and records a wrong result in
`errors` (the scripts exit non-zero when it is not empty)."""
import json
import re
import statistics
import subprocess
import sys

REPETITIONS = 5
FIB_N, LOOP_N = 32, 100_000_000
PROGRAMS = ("fib", "loop")
LABEL = {"fib": f"fib({FIB_N})", "loop": "loop 1e8"}
INPUT = {"fib": FIB_N, "loop": LOOP_N}


def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def loop_sum(n):
    # i * 3 % 7 has period 7 and each period sums to 21.
    q, r = divmod(n, 7)
    return 21 * q + sum(i * 3 % 7 for i in range(r))


EXPECTED = {"fib": fib(FIB_N), "loop": loop_sum(LOOP_N)}
errors = []


def run(command):
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {proc.returncode}:\n"
                           f"{proc.stdout}{proc.stderr}")
    return proc.stdout


def run_kiln_builder(benchmark, name):
    """The builder-made bytecode (kiln_vm_benchmark, one invocation).
    Returns (CPU seconds, ns per instruction, instructions executed)."""
    filter_name = {"fib": "BM_Fib32", "loop": "BM_Loop1e8"}[name]
    out = run([benchmark, f"--benchmark_filter=^{filter_name}/", "--repetitions=1",
               "--benchmark_format=json"])
    runs = [b for b in json.loads(out)["benchmarks"] if b.get("run_type") == "iteration"]
    if len(runs) != 1 or runs[0].get("error_occurred"):
        raise RuntimeError(f"kiln_vm_benchmark {name}: {runs}")
    r = runs[0]
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[r["time_unit"]]
    # The benchmark checks its result itself and exits non-zero if it is wrong.
    return r["cpu_time"] * scale, r["ns_per_instruction"], int(r["instructions"])


def run_lua(interpreter, script_dir, name):
    """`interpreter` is e.g. ["luajit", "-joff"]; the script times itself."""
    out = run(interpreter + [f"{script_dir}/{name}.lua"])
    m = re.fullmatch(r"result=(-?\d+) seconds=([0-9.]+)\s*", out)
    if not m:
        raise RuntimeError(f"unexpected output from {' '.join(interpreter)} {name}.lua: {out!r}")
    if int(m.group(1)) != EXPECTED[name]:
        errors.append(f"{' '.join(interpreter)} {name}.lua returned {m.group(1)}, "
                      f"expected {EXPECTED[name]}")
    return float(m.group(2))


def run_round_robin(runtimes, run_one):
    """Runs every (runtime, program) once per repetition, so machine noise hits
    all of them evenly. `run_one(runtime, program)` returns CPU seconds.
    Returns {(runtime, program): [seconds...]} and prints the table."""
    configs = [(runtime, name) for runtime in runtimes for name in PROGRAMS]
    seconds = {c: [] for c in configs}
    try:
        for rep in range(REPETITIONS):
            for config in configs:
                seconds[config].append(run_one(*config))
            print(f"repetition {rep + 1}/{REPETITIONS}: " +
                  "  ".join(f"{r} {n} {seconds[(r, n)][-1]:.3f}s" for r, n in configs),
                  flush=True)
    except RuntimeError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(1)
    width = max(len(f"{r} {LABEL[n]}") for r, n in configs) + 2
    print()
    print(f"{'configuration':<{width}} {'median s':>9} {'min s':>9} {'max s':>9}   "
          f"(CPU seconds, {REPETITIONS} runs each)")
    for runtime, name in configs:
        v = seconds[(runtime, name)]
        print(f"{runtime + ' ' + LABEL[name]:<{width}} {statistics.median(v):>9.3f} "
              f"{min(v):>9.3f} {max(v):>9.3f}")
    print()
    return seconds


def exit_on_wrong_results():
    if errors:
        print("\nWRONG RESULTS:", *errors, sep="\n  ", file=sys.stderr)
        sys.exit(1)
