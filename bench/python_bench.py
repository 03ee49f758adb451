#!/usr/bin/python3
"""The Python lines of make bench (bench/run.sh runs this with PYTHONPATH at
the built module):

  python_bench.py --dir D --desc DESC --type T --runs N --pbdiff PBDIFF [--small N]
                  KEY:LEFT:RIGHT:EXIT...

For each pair, the median over N runs of mapping both files (mmap, as the
CLI maps its inputs: any bytes-like object will do) and pbdiff.compare()
on them in process, and of `PBDIFF -s DESC -t T LEFT RIGHT` (the report to
/dev/null), the two taken in turn so that both meet the same load on a
shared machine (KEY.py and KEY.cli lines); then, with
--small, N compares of two equal small messages (an onnx.NodeProto with
attributes, as ML tests assert on) by pbdiff.compare, by `a == b` and by
`MessageToDict(a) == MessageToDict(b)`.  Prints `KEY NANOSECONDS` lines;
a wrong verdict is an error (exit 1)."""

import argparse
import mmap
import statistics
import subprocess
import sys
import time

import pbdiff


def module_once(args, left, right):
    t0 = time.perf_counter_ns()
    with open(f"{args.dir}/{left}", "rb") as fa, open(f"{args.dir}/{right}", "rb") as fb, \
            mmap.mmap(fa.fileno(), 0, access=mmap.ACCESS_READ) as a, \
            mmap.mmap(fb.fileno(), 0, access=mmap.ACCESS_READ) as b:
        r = pbdiff.compare(a, b, schema=args.desc, type=args.type)
    return time.perf_counter_ns() - t0, 0 if r.equal else 1


def cli_once(args, left, right):
    t0 = time.perf_counter_ns()
    p = subprocess.run([args.pbdiff, "--no-config", "-s", args.desc, "-t", args.type,
                        f"{args.dir}/{left}", f"{args.dir}/{right}"], stdout=subprocess.DEVNULL)
    return time.perf_counter_ns() - t0, p.returncode


def pair_times(args, left, right, expect):
    times = {"py": [], "cli": []}
    for _ in range(args.runs):
        for way, once in (("cli", cli_once), ("py", module_once)):
            ns, status = once(args, left, right)
            if status != expect:
                sys.exit(f"python_bench: {left} vs {right}: {way} says {status}, expected {expect}")
            times[way].append(ns)
    return {way: int(statistics.median(t)) for way, t in times.items()}


def small_messages():
    import onnx
    from onnx import helper
    node = helper.make_node("Conv", ["x", "w", "b"], ["y"], name="conv1", kernel_shape=[3, 3],
                            pads=[1, 1, 1, 1], strides=[1, 1], group=1, alpha=0.5)
    a, b = onnx.NodeProto(), onnx.NodeProto()
    a.CopyFrom(node)
    b.ParseFromString(node.SerializeToString())
    return a, b


def small_times(n):
    from google.protobuf.json_format import MessageToDict
    a, b = small_messages()
    assert pbdiff.compare(a, b) and a == b and MessageToDict(a) == MessageToDict(b)
    out = {}
    for key, fn in (("small.pbdiff", lambda: pbdiff.compare(a, b).equal),
                    ("small.eq", lambda: a == b),
                    ("small.dict", lambda: MessageToDict(a) == MessageToDict(b))):
        t0 = time.perf_counter_ns()
        for _ in range(n):
            if not fn():
                sys.exit(f"python_bench: {key}: the equal messages compared different")
        out[key] = time.perf_counter_ns() - t0
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dir", required=True)
    p.add_argument("--desc", required=True)
    p.add_argument("--type", required=True)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--small", type=int, default=0)
    p.add_argument("--pbdiff", required=True)
    p.add_argument("pairs", nargs="*")
    args = p.parse_args()
    pbdiff.compare(b"", b"", schema=args.desc, type=args.type)  # the schema, loaded once
    for spec in args.pairs:
        key, left, right, expect = spec.split(":")
        for way, ns in pair_times(args, left, right, int(expect)).items():
            print(f"{key}.{way}", ns, flush=True)
    if args.small:
        for key, ns in small_times(args.small).items():
            print(key, ns, flush=True)


if __name__ == "__main__":
    main()
