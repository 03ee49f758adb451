#!/usr/bin/env python3
"""Writes synthetic ONNX models (onnx.ModelProto) for the benchmark.

  gen_onnx.py fields OUT MB [--change]   field-heavy: many nodes with attributes
  gen_onnx.py tensors OUT MB [--change]  tensor-heavy: large initializers (raw_data)

--change alters one attribute / one byte near the end, so that a comparison has
one real difference to find.  A tiny protobuf encoder, no libraries needed."""
import sys


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def ld(f, b):
    return varint(f << 3 | 2) + varint(len(b)) + b


def vi(f, n):
    return varint(f << 3) + varint(n)


def attr(name, i, ints):
    body = ld(1, name.encode()) + vi(20, 2) + vi(3, i)  # type INT, i
    body += ld(8, b"".join(varint(x) for x in ints))     # packed ints
    return body


def node(k, change):
    ins = ld(1, f"t{k}".encode()) + ld(1, f"w{k}".encode())
    outs = ld(2, f"t{k+1}".encode())
    attrs = b"".join(ld(5, attr(n, (k * 7 + j + (1 if change else 0)) % 1000, [1, 2, 3, k % 5]))
                     for j, n in enumerate(("axis", "group", "kernel", "stride")))
    return ins + outs + ld(3, f"node_{k}".encode()) + ld(4, b"Conv") + attrs


def tensor(k, size, change):
    raw = bytearray((k * 131 + i) & 0xFF for i in range(256)) * (size // 256)
    if change:
        raw[len(raw) // 2] ^= 1
    return vi(2, 1) + vi(1, 1) + vi(1, len(raw) // 4) + ld(8, f"w{k}".encode()) + ld(9, bytes(raw))


def main():
    kind, out, mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
    change = "--change" in sys.argv
    target = int(mb * 1e6)
    parts, total, k = [], 0, 0
    while total < target:
        last = total > target * 0.9
        if kind == "fields":
            b = ld(1, node(k, change and last and k % 97 == 0))
        else:
            b = ld(5, tensor(k, 4 << 20, change and last))
            change = change and not last
        parts.append(b)
        total += len(b)
        k += 1
    graph = b"".join(parts) + ld(2, b"bench")
    model = vi(1, 8) + ld(2, b"pbdiff-bench") + ld(7, graph) + ld(8, vi(2, 17))
    with open(out, "wb") as f:
        f.write(model)


main()
