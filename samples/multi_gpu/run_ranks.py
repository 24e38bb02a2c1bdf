#!/usr/bin/env python3
"""Runs one command as every rank of a collective group, as mpirun would.

    run_ranks.py -n 3 [--tcp] [--timeout 120] -- kiln-run-module --module=m.kmod \
        --input="4xf32={1 2 3 4|5 6 7 8|9 10 11 12}" --expected_output=...

Starts N copies of the command at once, each with --rank=R --world_size=N
--rendezvous=... appended (a fresh directory, or with --tcp
tcp://127.0.0.1:<free port>). In the command's arguments `{rank}` becomes the
rank, `{world_size}` N, and `{a|b|c}` (exactly N alternatives) the
alternative of the rank, so each rank can get its own input and expected
output. Prints each rank's output in rank order ("== rank R: exit C", then
its stdout and stderr lines) and exits with the first non-zero exit code of
the ranks (1 when a rank timed out; every rank is killed then).
"""
import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


def substitute(argument, rank, world_size):
    def replace(match):
        body = match.group(1)
        if body == "rank":
            return str(rank)
        if body == "world_size":
            return str(world_size)
        if "|" in body:
            choices = body.split("|")
            if len(choices) != world_size:
                sys.exit("run_ranks.py: '%s' has %d alternatives for %d ranks" %
                         (match.group(0), len(choices), world_size))
            return choices[rank]
        return match.group(0)

    return PLACEHOLDER.sub(replace, argument)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", type=int, required=True, help="the number of ranks")
    parser.add_argument("--tcp", action="store_true", help="a tcp:// rendezvous on 127.0.0.1")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds for all ranks")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if args.n < 1 or not command:
        parser.error("give -n N >= 1 and a command after --")

    directory = tempfile.mkdtemp(prefix="kiln-ranks-")
    rendezvous = ("tcp://127.0.0.1:%d" % free_port()) if args.tcp else os.path.join(
        directory, "rendezvous")
    processes = []
    outputs = []
    try:
        for rank in range(args.n):
            argv = [substitute(a, rank, args.n) for a in command]
            argv += ["--rank=%d" % rank, "--world_size=%d" % args.n,
                     "--rendezvous=" + rendezvous]
            out = open(os.path.join(directory, "rank%d.out" % rank), "w+")
            err = open(os.path.join(directory, "rank%d.err" % rank), "w+")
            outputs.append((out, err))
            processes.append(subprocess.Popen(argv, stdout=out, stderr=err))
        deadline = time.monotonic() + args.timeout
        codes = []
        for process in processes:
            try:
                codes.append(process.wait(timeout=max(0.0, deadline - time.monotonic())))
            except subprocess.TimeoutExpired:
                codes.append(None)
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
        exit_code = 0
        for rank, (code, (out, err)) in enumerate(zip(codes, outputs)):
            out.seek(0)
            err.seek(0)
            status = "timed out after %g s" % args.timeout if code is None else "exit %d" % code
            print("== rank %d: %s" % (rank, status))
            sys.stdout.write(out.read())
            for line in err.read().splitlines():
                print("rank %d stderr: %s" % (rank, line))
            if exit_code == 0 and code != 0:
                exit_code = 1 if code is None else code
        return exit_code
    finally:
        for out, err in outputs:
            out.close()
            err.close()
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
