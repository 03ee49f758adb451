#!/usr/bin/env python3
"""Writes a corpus of corpus.Record messages (testdata/proto/corpus.proto) as
two serialisers would: an independent encoder (Python's standard library
only) for the corpus tests, the Dask test and `make bench`.

  write_corpus.py [OPTIONS] OUT

OUT is a file, or with --shards N a directory of N files (records dealt
round-robin after any shuffle: part-00000.bin, ...).  Options:

  --count N         records r-0 .. r-(N-1) (default 100)
  --style a|b       a: fields in number order, minimal varints, each
                    sub-message in one piece; b: fields in reverse order,
                    non-minimal varints, the header written in two parts
  --framing F       delimited (varint length, default), tfrecord or grpc
  --compress        with grpc: every other message gzip-compressed (flag 1)
  --shuffle SEED    the records in a random order
  --change K[:R]    price + 1 in every K-th record (from R, default 0)
  --drop I,J,...    leave these records out
  --duplicate I     write record I twice
  --noise SEED      header.timestamp and trace_id drawn at random, as a
                    serialiser that stamps each run would write them
"""
import argparse
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from write_framed import frame_bytes  # noqa: E402


def varint(n, pad=False):
    n &= (1 << 64) - 1
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    if pad:  # the same value with one more byte: 0x80 then 0x00
        out += bytes([n | 0x80, 0])
    else:
        out.append(n)
    return bytes(out)


def tag(number, wire, style):
    return varint(number << 3 | wire, pad=False)


def field_varint(number, value, style):
    return tag(number, 0, style) + varint(value, pad=style == "b")


def field_len(number, data, style):
    return tag(number, 2, style) + varint(len(data), pad=style == "b") + data


def field_double(number, value, style):
    return tag(number, 1, style) + struct.pack("<d", value)


def record_fields(i, args, rng):
    price = i * 0.25 + (1 if args.change and i % args.change[0] == args.change[1] else 0)
    stamp = 1700000000 + i if not rng else rng.randrange(1 << 40)
    trace = f"tr-{i}" if not rng else f"tr-{rng.randrange(1 << 60):x}"
    header = [(1, "s", f"q-{i}"), (2, "v", stamp)]
    return [(1, "s", f"r-{i}"), (2, "h", header), (3, "d", price),
            (4, "s", f"t{i % 7}"), (4, "s", f"t{i % 5}"),
            (5, "v", i % 16), (6, "s", trace)]


def encode(fields, style):
    out = b""
    for number, kind, value in fields:
        if kind == "s":
            out += field_len(number, value.encode(), style)
        elif kind == "v":
            out += field_varint(number, value, style)
        elif kind == "d":
            out += field_double(number, value, style)
        elif style == "b":  # a sub-message in two parts, each in reverse order
            out += field_len(number, encode(value[1:][::-1], style), style)
            out += field_len(number, encode(value[:1], style), style)
        else:
            out += field_len(number, encode(value, style), style)
    return out


def record(i, args, rng):
    fields = record_fields(i, args, rng)
    if args.style == "b":  # reverse order, keeping the repeated field's own order
        fields = sorted(fields, key=lambda f: -f[0])
    return encode(fields, args.style)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--count", type=int, default=100)
    p.add_argument("--style", choices=["a", "b"], default="a")
    p.add_argument("--framing", default="delimited")
    p.add_argument("--shuffle", type=int)
    p.add_argument("--change", type=lambda s: tuple(int(x) for x in (s + ":0").split(":")[:2]))
    p.add_argument("--drop", default="")
    p.add_argument("--duplicate", type=int, action="append", default=[])
    p.add_argument("--noise", type=int)
    p.add_argument("--shards", type=int, default=0)
    p.add_argument("--compress", action="store_true")
    args = p.parse_args()
    rng = random.Random(args.noise) if args.noise is not None else None
    drop = {int(x) for x in args.drop.split(",") if x}
    order = [i for i in range(args.count) if i not in drop] + args.duplicate
    if args.shuffle is not None:
        random.Random(args.shuffle).shuffle(order)
    frames = [frame_bytes(args.framing, record(i, args, rng), args.compress and k % 2 == 0)
              for k, i in enumerate(order)]
    if not args.shards:
        with open(args.out, "wb") as f:
            f.write(b"".join(frames))
        return
    os.makedirs(args.out, exist_ok=True)
    for s in range(args.shards):
        with open(os.path.join(args.out, f"part-{s:05d}.bin"), "wb") as f:
            f.write(b"".join(frames[s::args.shards]))


if __name__ == "__main__":
    main()
