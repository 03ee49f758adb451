#!/usr/bin/env python3
"""Writes the benchmark's synthetic ONNX models (onnx.ModelProto), reproducibly.

  gen_onnx.py [--dir D] [--seed N] [--scale X] [--jobs J]   every set into D
  gen_onnx.py --selftest [--md-compare MD_COMPARE DESC]    check the re-encoder

A model is built as a tree and written twice:
  NAME.onnx        the way protobuf's own serialisers write it: fields in
                   field-number order, repeated scalars as declared (ONNX is
                   proto2: `ints`, `floats`, `dims` unpacked; `float_data`,
                   `int64_data` [packed=true]);
  NAME.reenc.onnx  the same meaning written as another serialiser might: fields
                   in reverse field-number order, every repeated scalar field
                   packed<->unpacked flipped, and some singular submessages
                   (ModelProto.graph, ValueInfoProto.type, TypeProto.tensor_type,
                   AttributeProto.t) written in two parts that the parser merges.
The sets: f (field-heavy), f10 and f200 (the same at 5 and 100 MB), t
(tensor-heavy, the weights in raw_data) and tf (tensor-heavy, the weights in
float_data: packed in tf.onnx, as declared, unpacked in tf.reenc.onnx).
The big sets also get NAME.change.onnx (the re-encoding with one value changed)
and NAME.copy.onnx (a byte copy).  A set is skipped when its stamp file says it
was written by this very script with the same seed and scale.

A tiny protobuf encoder, no libraries needed; --selftest checks with
`protoc --decode` that both encodings of a small model mean the same, and with
--md-compare that libprotobuf's MessageDifferencer calls them equal."""
import argparse
import hashlib
import operator
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile

VARINT, I32, LEN = 0, 5, 2
ONNX_PROTO = "/usr/include/onnx/onnx.proto"

# name -> (kind, MB, files beyond NAME.onnx / NAME.reenc.onnx)
SETS = {
    "f": ("fields", 50, ("change", "copy", "change2")),
    "t": ("tensors", 200, ("change", "copy")),
    "f10": ("fields", 5, ()),
    "f200": ("fields", 100, ()),
    "tf": ("float_tensors", 100, ("change", "copy")),
}

# ---------------------------------------------------------------- wire format

_SMALL = [bytes([i]) for i in range(128)]
_F32 = struct.Struct("<f")


def varint(n):
    if 0 <= n < 128:
        return _SMALL[n]
    if n < 0:
        n += 1 << 64  # int32/int64 negatives are 10-byte two's complement
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


_TAGS = {}


def tag(num, wire):
    key = num << 3 | wire
    t = _TAGS.get(key)
    if t is None:
        t = _TAGS[key] = varint(key)
    return t


def unpacked_f32(t, packed):
    """tag+4 bytes per element, built by strided slicing: a Python loop over
    a million floats would dominate the tensor-heavy generation."""
    n, tl = len(packed) // 4, len(t)
    step = tl + 4
    out = bytearray(step * n)
    for j in range(tl):
        out[j::step] = t[j:j + 1] * n
    for j in range(4):
        out[tl + j::step] = packed[j::4]
    return bytes(out)


# ---------------------------------------------------------------- the tree
#
# A message is a list of (field number, kind, value).  Kinds:
#   'i' varint   'f' float (fixed32)   's' bytes
#   'm' message (a list, or a Pre)     'M' singular message the re-encoding splits
#   'ri' / 'rf' repeated int / float declared unpacked (proto2 default)
#   'pi' / 'pf' repeated int / float declared [packed = true]
#   'pF'        repeated float declared [packed = true], the value its packed
#               bytes already (millions of floats: no Python list of them)
# A repeated message field is several entries with the same number, in order.


class Pre:
    """A message already encoded both ways: the graph's nodes and initializers
    are encoded as they are made, so no 50 MB tree is ever held in memory."""
    __slots__ = ("a", "b")

    def __init__(self, msg):
        self.a = encode(msg, False)
        self.b = encode(msg, True)


_NUM = operator.itemgetter(0)


def split(fields):
    """Two parts, each with whole fields: merging them gives the message back."""
    nums = []
    for f in fields:
        if not nums or nums[-1] != f[0]:
            nums.append(f[0])
    if len(nums) < 2:
        return [fields]
    first = set(nums[:len(nums) // 2])
    return [[f for f in fields if f[0] in first],
            [f for f in fields if f[0] not in first]]


def encode(msg, reenc):
    """reenc=False: the canonical writer; True: the other serialiser.
    sorted(reverse=True) is stable, so repeated elements keep their order."""
    out = []
    ap = out.append
    for num, kind, v in sorted(msg, key=_NUM, reverse=reenc):
        if kind == "s":
            ap(tag(num, LEN))
            ap(varint(len(v)))
            ap(v)
        elif kind == "i":
            ap(tag(num, VARINT))
            ap(varint(v))
        elif kind == "f":
            ap(tag(num, I32))
            ap(_F32.pack(v))
        elif kind == "m" or kind == "M":
            if type(v) is Pre:
                parts = [v.b if reenc else v.a]
            elif reenc and kind == "M":
                parts = [encode(p, True) for p in split(sorted(v, key=_NUM, reverse=True))]
            else:
                parts = [encode(v, reenc)]
            for body in parts:
                ap(tag(num, LEN))
                ap(varint(len(body)))
                ap(body)
        else:  # repeated scalar
            if not v:
                continue
            packed = (kind[0] == "p") != reenc
            if kind[1] == "i":
                if packed:
                    body = b"".join(map(varint, v))
                else:
                    t = tag(num, VARINT)
                    ap(t + t.join(map(varint, v)))
                    continue
            else:
                body = v if kind[1] == "F" else struct.pack("<%df" % len(v), *v)
                if not packed:
                    ap(unpacked_f32(tag(num, I32), body))
                    continue
            ap(tag(num, LEN))
            ap(varint(len(body)))
            ap(body)
    return b"".join(out)


# ---------------------------------------------------------------- ONNX pieces

FLOAT, INT, STRING, TENSOR, FLOATS, INTS = 1, 2, 3, 4, 6, 7  # AttributeType
T_FLOAT, T_INT64 = 1, 7                                      # TensorProto.DataType


def attr(name, atype, num, kind, value, doc=None):
    a = [(1, "s", name), (20, "i", atype), (num, kind, value)]
    if doc:
        a.append((13, "s", doc))
    return a


def small_tensor(rng, name):
    """A Constant's value or a small weight: dims unpacked, data packed."""
    n = rng.randint(1, 24)
    t = [(1, "ri", [n]), (8, "s", name)]
    if rng.random() < 0.5:
        t += [(2, "i", T_FLOAT), (4, "pf", [rng.uniform(-4, 4) for _ in range(n)])]
    else:
        t += [(2, "i", T_INT64), (7, "pi", [rng.randint(-300, 70000) for _ in range(n)])]
    return t


def op_conv(rng, k):
    ks = rng.choice((1, 3, 3, 5, 7))
    s = rng.choice((1, 1, 2))
    return "Conv", 3, [
        attr(b"kernel_shape", INTS, 8, "ri", [ks, ks]),
        attr(b"strides", INTS, 8, "ri", [s, s]),
        attr(b"pads", INTS, 8, "ri", [ks // 2] * 4),
        attr(b"dilations", INTS, 8, "ri", [1, 1]),
        attr(b"group", INT, 3, "i", rng.choice((1, 1, 1, 32, 64))),
    ]


def op_gemm(rng, k):
    return "Gemm", 3, [
        attr(b"alpha", FLOAT, 2, "f", rng.choice((1.0, 0.5, 0.125))),
        attr(b"beta", FLOAT, 2, "f", 1.0),
        attr(b"transA", INT, 3, "i", 0),
        attr(b"transB", INT, 3, "i", 1),
    ]


def op_bn(rng, k):
    return "BatchNormalization", 5, [
        attr(b"epsilon", FLOAT, 2, "f", rng.choice((1e-5, 1e-3))),
        attr(b"momentum", FLOAT, 2, "f", 0.9),
    ]


def op_concat(rng, k):
    return "Concat", rng.randint(2, 4), [attr(b"axis", INT, 3, "i", rng.choice((-1, 1, 2)))]


def op_transpose(rng, k):
    perm = [0, 1, 2, 3]
    rng.shuffle(perm)
    return "Transpose", 1, [attr(b"perm", INTS, 8, "ri", perm)]


def op_resize(rng, k):
    return "Resize", 1, [
        attr(b"mode", STRING, 4, "s", rng.choice((b"nearest", b"linear", b"cubic"))),
        attr(b"coordinate_transformation_mode", STRING, 4, "s", b"half_pixel"),
        attr(b"cubic_coeff_a", FLOAT, 2, "f", -0.75),
        attr(b"scales", FLOATS, 7, "rf", [1.0, 1.0, rng.choice((2.0, 0.5)), rng.choice((2.0, 0.5))]),
    ]


def op_constant(rng, k):
    return "Constant", 0, [attr(b"value", TENSOR, 5, "M", small_tensor(rng, b"const_%d" % k))]


def op_cast(rng, k):
    return "Cast", 1, [attr(b"to", INT, 3, "i", rng.choice((1, 6, 7, 10)),
                            doc=b"cast for the next layer" if rng.random() < 0.1 else None)]


def op_relu(rng, k):
    return "Relu", 1, []


def op_leaky(rng, k):
    return "LeakyRelu", 1, [attr(b"alpha", FLOAT, 2, "f", rng.uniform(0.01, 0.3))]


OPS = (op_conv, op_conv, op_gemm, op_bn, op_concat, op_transpose, op_resize,
       op_constant, op_cast, op_relu, op_leaky)


def node(rng, k):
    op, n_in, attrs = rng.choice(OPS)(rng, k)
    out = b"t%d" % k
    n = [(1, "s", b"t%d" % max(0, k - 1 - i)) for i in range(min(n_in, 1))]
    n += [(1, "s", b"w%d_%d" % (k, i)) for i in range(1, n_in)]
    n += [(2, "s", out), (3, "s", b"%s_%d" % (op.encode(), k)), (4, "s", op.encode())]
    n += [(5, "m", a) for a in attrs]
    if rng.random() < 0.05:
        n.append((6, "s", b"layer %d of the synthetic network" % k))
    if rng.random() < 0.03:
        n.append((7, "s", b"com.microsoft"))
    return n


def value_info(rng, name):
    dims = [[(2, "s", b"batch")]] + [[(1, "i", rng.choice((1, 3, 7, 64, 224)))]
                                     for _ in range(rng.randint(1, 3))]
    tensor_type = [(1, "i", T_FLOAT), (2, "m", [(1, "m", d) for d in dims])]
    tp = [(1, "M", tensor_type)]
    if rng.random() < 0.3:
        tp.append((6, "s", b"TENSOR"))
    return [(1, "s", name), (2, "M", tp)]


def model(graph):
    return [
        (1, "i", 8), (2, "s", b"pbdiff-bench"), (3, "s", b"1.0"), (5, "i", 1),
        (6, "s", b"synthetic model for pbdiff's benchmark"), (7, "M", graph),
        (8, "m", [(1, "s", b""), (2, "i", 17)]),
        (8, "m", [(1, "s", b"com.microsoft"), (2, "i", 1)]),
        (14, "m", [(1, "s", b"author"), (2, "s", b"gen_onnx.py")]),
    ]


def bump_first_int(n):
    """Node n with its first AttributeProto.i plus one, or None if it has none."""
    for j, (num, _, a) in enumerate(n):
        if num == 5:
            for i, f in enumerate(a):
                if f[0] == 3:
                    return n[:j] + [(5, "m", a[:i] + [(3, "i", f[2] + 1)] + a[i + 1:])] + n[j + 1:]
    return None


def field_heavy(rng, target):
    """Returns (graph, changed graph, graph changed elsewhere): mostly nodes,
    with a value_info every 8th node and a small initializer every 64th; the
    change is one AttributeProto.i, in the first node with one past the middle
    of the file, and elsewhere in the first with one past its first quarter (a
    second edit for a three-way merge; no random draw of its own, so the
    other files stay the same)."""
    graph = [(2, "s", b"field_heavy"), (10, "s", b"many small messages")]
    changed, changed2, size, k = None, None, 0, 0
    while size < target:
        n = node(rng, k)
        p = Pre(n)
        graph.append((1, "m", p))
        size += len(p.a) + 3
        if changed is None and size > target // 2:
            n2 = bump_first_int(n)
            if n2:
                changed = (len(graph) - 1, (1, "m", Pre(n2)))
        if changed2 is None and size > target // 4:
            n2 = bump_first_int(n)
            if n2:
                changed2 = (len(graph) - 1, (1, "m", Pre(n2)))
        if k % 8 == 0:
            p = Pre(value_info(rng, b"t%d" % k))
            graph.append((13, "m", p))
            size += len(p.a) + 3
        if k % 64 == 0:
            p = Pre(small_tensor(rng, b"w%d_1" % k))
            graph.append((5, "m", p))
            size += len(p.a) + 3
        k += 1
    graph.append((11, "m", Pre(value_info(rng, b"t0"))))
    graph.append((12, "m", Pre(value_info(rng, b"t%d" % (k - 1)))))
    g2, g3 = list(graph), list(graph)
    g2[changed[0]] = changed[1]
    g3[changed2[0]] = changed2[1]
    return graph, g2, g3


_NO_TOP_EXPONENT_BIT = bytes(i & ~0x40 for i in range(256))


def finite_f32(data):
    """Little-endian float32s from random bytes, each with the top bit of its
    exponent cleared: no NaN (which no comparer calls equal to itself) and
    no infinity; |x| < 2."""
    out = bytearray(data)
    out[3::4] = out[3::4].translate(_NO_TOP_EXPONENT_BIT)
    return bytes(out)


def tensor_heavy(rng, target, float_data=False):
    """Large raw_data initializers (float_data=True: the same weights in
    float_data, [packed = true], so the re-encoding writes them unpacked,
    5 bytes a float), plus float_data / int64_data ones of moderate size
    (about 5% of the file) where packed vs unpacked matters; the change is
    one byte in the middle of the middle weight (the low byte of a float's
    mantissa, so that it stays finite)."""
    graph = [(2, "s", b"tensor_heavy")]
    raw_lo, raw_hi = max(1024, target // 64), max(4096, target // 16)
    data_total, raw_total = target // 20, target - target // 20
    raws, size = [], 0
    while size < raw_total:
        n = rng.randint(raw_lo, raw_hi) // 4
        rows = rng.choice((64, 128, 256, 512))
        dims = [rows, n // rows] if n >= rows else [n]
        count = dims[0] * dims[-1] if len(dims) == 2 else n
        data = (4, "pF", finite_f32(rng.randbytes(count * 4))) if float_data else \
            (9, "s", rng.randbytes(count * 4))
        raws.append([(1, "ri", dims), (2, "i", T_FLOAT), (8, "s", b"weight_%d" % len(raws)), data])
        size += count * 4
    tensors = list(raws)
    for i in range(10):
        n = max(4, data_total // 10 // 5)
        t = [(1, "ri", [n]), (8, "s", b"table_%d" % i)]
        if i % 2 == 0:
            t += [(2, "i", T_FLOAT), (4, "pf", [rng.uniform(-1, 1) for _ in range(n)])]
        else:
            t += [(2, "i", T_INT64), (7, "pi", [rng.randint(-1000, 2_000_000) for _ in range(n)])]
        tensors.insert(rng.randint(0, len(tensors)), t)
    for i in range(200):
        graph.append((1, "m", Pre(node(rng, i))))
        if i % 4 == 0:
            graph.append((13, "m", Pre(value_info(rng, b"t%d" % i))))
    mid = raws[len(raws) // 2]
    changed = None
    for t in tensors:
        graph.append((5, "m", Pre(t)))
        if t is mid:
            num, kind, raw = t[3]
            raw = bytearray(raw)
            raw[len(raw) // 2 & ~3] ^= 0x01
            changed = (len(graph) - 1, (5, "m", Pre(t[:3] + [(num, kind, bytes(raw))])))
    graph.append((11, "m", Pre(value_info(rng, b"t0"))))
    graph.append((12, "m", Pre(value_info(rng, b"t199"))))
    g2 = list(graph)
    g2[changed[0]] = changed[1]
    return graph, g2, None


# ---------------------------------------------------------------- files


def write(path, data):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def make_set(d, name, kind, mb, extra, seed):
    """Writes NAME.onnx, NAME.reenc.onnx and the extra files; returns paths."""
    rng = random.Random(seed)
    gen = {"fields": field_heavy, "tensors": tensor_heavy,
           "float_tensors": lambda r, n: tensor_heavy(r, n, float_data=True)}[kind]
    graph, changed, changed2 = gen(rng, int(mb * 1e6))
    base = os.path.join(d, name)
    write(base + ".onnx", encode(model(graph), False))
    write(base + ".reenc.onnx", encode(model(graph), True))
    if "change" in extra:
        write(base + ".change.onnx", encode(model(changed), True))
    if "change2" in extra and changed2:
        write(base + ".change2.onnx", encode(model(changed2), False))
    if "copy" in extra:
        shutil.copyfile(base + ".onnx", base + ".copy.onnx")
    return [base + s for s in (".onnx", ".reenc.onnx")] + \
        ["%s.%s.onnx" % (base, e) for e in extra]


def stamp_text(name, seed, scale):
    with open(os.path.abspath(__file__), "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:16]
    return "gen_onnx %s seed=%d scale=%g set=%s\n" % (digest, seed, scale, name)


def build_one(job):
    d, name, seed, scale = job
    kind, mb, extra = SETS[name]
    files = [os.path.join(d, name + s) for s in (".onnx", ".reenc.onnx")]
    files += [os.path.join(d, "%s.%s.onnx" % (name, e)) for e in extra]
    stamp = os.path.join(d, name + ".stamp")
    want = stamp_text(name, seed, scale)
    try:
        with open(stamp) as f:
            if f.read() == want and all(os.path.exists(p) for p in files):
                return "%s: up to date" % name
    except OSError:
        pass
    # one seed per set, so that a set never depends on which others were made
    make_set(d, name, kind, mb * scale, extra, seed * 1000 + list(SETS).index(name))
    write(stamp, want.encode())
    return "%s: wrote %s" % (name, ", ".join(
        "%s (%.1f MB)" % (os.path.basename(p), os.path.getsize(p) / 1e6) for p in files))


# ---------------------------------------------------------------- self-test


def top_fields(data):
    """Field numbers of the top-level message, in wire order."""
    nums, i = [], 0
    while i < len(data):
        key = shift = 0
        while True:
            b = data[i]
            i += 1
            key |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                break
        wire = key & 7
        nums.append(key >> 3)
        if wire == VARINT:
            while data[i] >= 0x80:
                i += 1
            i += 1
        elif wire == I32:
            i += 4
        elif wire == 1:
            i += 8
        else:
            n = shift = 0
            while True:
                b = data[i]
                i += 1
                n |= (b & 0x7F) << shift
                shift += 7
                if b < 0x80:
                    break
            i += n
    return nums


def decode(data):
    r = subprocess.run(["protoc", "--decode=onnx.ModelProto", "-I/usr/include", ONNX_PROTO],
                       input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    if r.returncode:
        sys.exit("selftest: protoc --decode failed: " + r.stderr.decode(errors="replace"))
    return r.stdout.decode(errors="replace").splitlines()


def md_verdict(md, a, b):
    """libprotobuf's MessageDifferencer on two files (bench/md_compare): its
    exit status, 0 equal, 1 different."""
    exe, desc = md
    return subprocess.run([exe, desc, "onnx.ModelProto", a, b], check=False).returncode


def selftest(md=None):
    """md: (md_compare, descriptor set) to ask libprotobuf too, or None."""
    ok = True
    with tempfile.TemporaryDirectory() as d:
        for kind, mb in (("fields", 0.1), ("tensors", 0.4), ("float_tensors", 0.4)):
            files = make_set(d, kind, kind, mb, ("change", "copy"), 7)
            a, b, c, cp = (open(p, "rb").read() for p in files)
            ta, tb, tc = decode(a), decode(b), decode(c)
            diffs = sum(x != y for x, y in zip(ta, tc)) + abs(len(ta) - len(tc))
            checks = [
                ("re-encoding differs in bytes", a != b),
                ("re-encoding decodes to the same text", ta == tb),
                ("graph written in two parts", top_fields(b).count(7) == 2),
                ("fields in reverse order", top_fields(b) == sorted(top_fields(b), reverse=True)),
                ("change decodes to one different line", diffs == 1),
                ("copy is a byte copy", a == cp),
            ]
            if kind == "float_tensors":  # 4 bytes a float packed, 5 unpacked
                checks.append(("float_data unpacked in the re-encoding", len(b) > 1.2 * len(a)))
            if md:
                checks += [
                    ("MessageDifferencer: re-encoding equal", md_verdict(md, files[0], files[1]) == 0),
                    ("MessageDifferencer: change differs", md_verdict(md, files[0], files[2]) == 1),
                    ("MessageDifferencer: copy equal", md_verdict(md, files[0], files[3]) == 0),
                ]
            for what, good in checks:
                print("selftest %-13s %-40s %s" % (kind, what, "ok" if good else "FAILED"))
                ok = ok and good
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", default=os.environ.get("BENCH_DIR", "/tmp/pbdiff-bench"))
    ap.add_argument("--seed", type=int, default=20240601)
    ap.add_argument("--scale", type=float, default=1.0, help="multiplies every size")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--sets", default=",".join(SETS), help="comma-separated: " + ",".join(SETS))
    ap.add_argument("--selftest", action="store_true")
    ap.add_argument("--md-compare", nargs=2, metavar=("MD_COMPARE", "DESC"),
                    help="--selftest asks libprotobuf too: bench/md_compare and onnx's descriptor set")
    args = ap.parse_args()
    if args.selftest:
        sys.exit(0 if selftest(args.md_compare) else 1)
    os.makedirs(args.dir, exist_ok=True)
    names = sorted(args.sets.split(","), key=lambda n: -SETS[n][1])  # biggest first
    jobs = [(args.dir, n, args.seed, args.scale) for n in names]
    if args.jobs > 1:
        import multiprocessing
        with multiprocessing.Pool(args.jobs) as pool:
            for line in pool.imap_unordered(build_one, jobs):
                print(line, flush=True)
    else:
        for j in jobs:
            print(build_one(j), flush=True)


if __name__ == "__main__":
    main()
