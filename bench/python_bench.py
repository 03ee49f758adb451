#!/usr/bin/python3
"""The Python lines of make bench (bench/run.sh runs this with PYTHONPATH at
the built module):

  python_bench.py --dir D --desc DESC --type T --runs N [--small N] KEY:LEFT:RIGHT:EXIT...

For each pair, the median over N runs of mapping both files (mmap, as the
CLI maps its inputs: any bytes-like object will do) and pbdiff.compare()
on them in process (the CLI's figure includes its reading too); then, with
--small, N compares of two equal small messages (an onnx.NodeProto with
attributes, as ML tests assert on) by pbdiff.compare, by `a == b` and by
`MessageToDict(a) == MessageToDict(b)`.  Prints `KEY NANOSECONDS` lines;
a wrong verdict is an error (exit 1)."""

import argparse
import mmap
import statistics
import sys
import time

import pbdiff


def pair_time(args, left, right, expect):
    times = []
    for _ in range(args.runs):
        t0 = time.perf_counter_ns()
        with open(f"{args.dir}/{left}", "rb") as fa, open(f"{args.dir}/{right}", "rb") as fb, \
                mmap.mmap(fa.fileno(), 0, access=mmap.ACCESS_READ) as a, \
                mmap.mmap(fb.fileno(), 0, access=mmap.ACCESS_READ) as b:
            r = pbdiff.compare(a, b, schema=args.desc, type=args.type)
        times.append(time.perf_counter_ns() - t0)
        if r.equal != (expect == 0):
            sys.exit(f"python_bench: {left} vs {right}: equal={r.equal}, expected exit {expect}")
    return int(statistics.median(times))


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
    p.add_argument("pairs", nargs="*")
    args = p.parse_args()
    pbdiff.compare(b"", b"", schema=args.desc, type=args.type)  # the schema, loaded once
    for spec in args.pairs:
        key, left, right, expect = spec.split(":")
        print(key, pair_time(args, left, right, int(expect)), flush=True)
    if args.small:
        for key, ns in small_times(args.small).items():
            print(key, ns, flush=True)


if __name__ == "__main__":
    main()
