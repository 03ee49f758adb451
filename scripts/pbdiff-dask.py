#!/usr/bin/python3
"""pbdiff-dask.py: two corpora compared by record key on a Dask cluster,
with the same statistics `pbdiff --record-key KEY -r --stat` prints.

  pbdiff-dask.py [--scheduler ADDRESS] [--workers N] [--pbdiff PATH]
                 [--examples N] [--text] [--verbose] --record-key KEY
                 [pbdiff options: -s FILE -t TYPE --framing F --ignore ...]
                 LEFT RIGHT

LEFT and RIGHT are files or directories (every regular file under them, as
pbdiff -r walks them).  Without --scheduler a LocalCluster of N worker
processes (default 2) is started; with it, the driver joins that cluster,
whose workers must reach pbdiff, the inputs, the schema and the current
directory by the same paths as this process (docs/scale.md, "Beyond one
machine").

The work, all of it on the workers:
  1. map: `pbdiff hash --record-key KEY --format json` on each file: per
     record its key, its pbh1 fingerprint (a fixed seed: comparable across
     processes) and where its bytes are -- in process, by the pbdiff Python
     module's hash_records, on a worker that can import it (docs/python.md)
     when the options are ones it takes (-s, -t, --equivalent,
     --ignore-unknown; a framing but grpc) and no .pbdiff may apply; else
     by the binary;
  2. join: the records dealt by a stable hash of their key into buckets;
     in each, the k-th record of a key on LEFT pairs with the k-th on RIGHT
     (in file, then position order), and the totals are counted; pairs with
     equal fingerprints are equal;
  3. compare: the keys with a pair whose fingerprints differ, in batches;
     each batch's records are cut out of their files into two delimited
     streams and compared by `pbdiff --record-key KEY --stat`.
The driver merges the batches' statistics: counts add up, examples are the
smallest keys, and the report is printed as pbdiff prints it (JSON by
default, --text for the text form).  Exit status as pbdiff: 0 equal, 1
different, 2 trouble.
"""

import gzip
import heapq
import json
import logging
import os
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from dataclasses import dataclass, field

PROG = "pbdiff-dask"
KINDS = ("changed", "added", "removed", "presence", "moved")

# pbdiff's options and where they go: "both" to hash and to the comparisons,
# "compare" to the comparisons only (hash refuses them: they are matching
# rules, which fingerprints do not apply), "ignore" the ones this driver
# always implies, "refuse" the ones it cannot honour.  True: takes a value.
OPTIONS = {
    "--schema": (True, "both"), "-s": (True, "both"),
    "--proto": (True, "both"), "--proto-path": (True, "both"), "-I": (True, "both"),
    "--type": (True, "both"), "-t": (True, "both"),
    "--config": (True, "both"), "--no-config": (False, "both"),
    "--equivalent": (False, "both"), "--ignore-unknown": (False, "both"),
    "--strict": (False, "both"), "--float-bits": (False, "both"),
    "--max-input-bytes": (True, "both"), "--max-memory": (True, "both"),
    "--max-depth": (True, "both"),
    "--float-margin": (True, "compare"), "--float-fraction": (True, "compare"),
    "--key": (True, "compare"), "--repeated-as-set": (True, "compare"),
    "--report-moves": (False, "compare"), "--ignore": (True, "compare"),
    "--partial": (False, "compare"),
    "-r": (False, "ignore"), "--recursive": (False, "ignore"),
    "--format": (True, "ignore"), "--no-pager": (False, "ignore"),
    # records are cut out of their files: the bytes must be binary messages
    # of one schema, and the output is the statistics only
    "--left-schema": (True, "refuse"), "--right-schema": (True, "refuse"),
    "--left-type": (True, "refuse"), "--right-type": (True, "refuse"),
    "--left-format": (True, "refuse"), "--right-format": (True, "refuse"),
    "--input-format": (True, "refuse"), "-q": (False, "refuse"), "--quiet": (False, "refuse"),
    "-L": (True, "refuse"), "--label": (True, "refuse"), "--explain": (False, "refuse"),
    "--max-diffs": (True, "refuse"), "--max-value-lines": (True, "refuse"),
    "--summary": (False, "refuse"), "-j": (True, "refuse"), "--jobs": (True, "refuse"),
}


class Trouble(Exception):
    """Something that makes the comparison impossible: exit status 2."""


@dataclass
class Settings:
    left: str = ""
    right: str = ""
    record_key: str = ""
    pbdiff: str = "pbdiff"
    scheduler: str = ""
    workers: int = 2
    examples: str = ""           # as given, for pbdiff (it reads 0 as 3)
    text: bool = False
    verbose: bool = False
    framing: str = ""
    compression: str = ""        # --input-compression, for hash and the reader
    skip_prefix: int = 0
    batch_keys: int = 1000
    buckets: int = 0             # 0: twice the workers
    hash_opts: list = field(default_factory=list)
    compare_opts: list = field(default_factory=list)
    cwd: str = ""                # where pbdiff runs: relative paths, .pbdiff
    module: dict = None          # hash_records' keywords, when the module can hash

    def max_examples(self):
        return int(self.examples) if self.examples and int(self.examples) > 0 else 3


def usage(msg):
    raise Trouble(f"{msg}\nUsage: {PROG} [--scheduler ADDRESS] [--workers N] [--pbdiff PATH] "
                  "[--examples N] [--text] [--verbose] --record-key KEY [pbdiff options] LEFT RIGHT")


def parse_args(argv):
    s = Settings(cwd=os.getcwd())
    operands = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if arg == "--" or not arg.startswith("-") or arg == "-":
            operands += [arg] + (argv[i:] if arg == "--" else [])
            if arg == "--":
                operands.pop(0)
                break
            continue
        name, eq, value = arg.partition("=") if arg.startswith("--") else (arg[:2], "", arg[2:])
        has_value = bool(eq) or (not arg.startswith("--") and value != "")
        own = {"--scheduler", "--workers", "--pbdiff", "--examples", "--record-key",
               "--framing", "--skip-prefix", "--batch-keys", "--buckets", "--input-compression"}
        flags = {"--text", "--verbose", "--delimited", "--stat"}
        if name in flags:
            if name == "--text":
                s.text = True
            elif name == "--verbose":
                s.verbose = True
            elif name == "--delimited":
                s.framing = "delimited"
            continue  # --stat: this driver prints nothing else
        takes, where = (True, "own") if name in own else OPTIONS.get(name, (None, None))
        if takes is None:
            usage(f"unknown option '{arg}'")
        if takes and not has_value:
            if i == len(argv):
                usage(f"option '{name}' needs a value")
            value = argv[i]
            i += 1
        if where == "own":
            set_own(s, name, value)
        elif where == "refuse":
            usage(f"option '{name}' is not for corpus statistics on a cluster")
        elif where in ("both", "compare"):
            given = [arg] if not takes or has_value else [arg, value]
            s.compare_opts += given
            if where == "both":
                s.hash_opts += given
    if len(operands) != 2:
        usage("need LEFT and RIGHT")
    if not s.record_key:
        usage("--record-key is required")
    if "-" in operands:
        usage("records are cut out of files: LEFT and RIGHT cannot be standard input")
    s.left, s.right = operands
    return s


def set_own(s, name, value):
    try:
        if name == "--scheduler":
            s.scheduler = value
        elif name == "--workers":
            s.workers = int(value)
        elif name == "--pbdiff":
            s.pbdiff = value
        elif name == "--examples":
            int(value)
            s.examples = value
        elif name == "--record-key":
            s.record_key = value
        elif name == "--framing":
            s.framing = value
        elif name == "--input-compression":
            if value not in ("auto", "gzip", "none"):
                usage(f"--input-compression wants auto, gzip or none, not '{value}'")
            s.compression = value
        elif name == "--skip-prefix":
            s.skip_prefix = int(value)
        elif name == "--batch-keys":
            s.batch_keys = int(value)
        elif name == "--buckets":
            s.buckets = int(value)
    except ValueError:
        usage(f"option '{name}' wants a number, not '{value}'")
    if s.workers < 1 or s.batch_keys < 1 or s.buckets < 0 or s.skip_prefix < 0:
        usage(f"option '{name}' wants a positive number")


# ---- Files --------------------------------------------------------------------------

def list_side(root):
    """The files of a side as pbdiff -r lists them: regular files (and
    symbolic links to them) under root, .git left out, in byte order of
    their paths under root; a root that is not a directory is one file."""
    if not os.path.isdir(root):
        return [root]
    rels = []

    def walk(rel):
        path = os.path.join(root, rel) if rel else root
        try:
            entries = list(os.scandir(path))
        except OSError as e:
            raise Trouble(f"{path}: cannot open directory: {e.strerror}") from None
        for e in entries:
            if e.name == ".git":
                continue
            child = f"{rel}/{e.name}" if rel else e.name
            if e.is_dir(follow_symlinks=False):
                walk(child)
            elif e.is_file():  # a symbolic link is followed to a regular file only
                rels.append(child)

    walk("")
    rels.sort(key=os.fsencode)
    return [f"{root}/{rel}" for rel in rels]


def run_pbdiff(cfg, args, env=None):
    """pbdiff with args, in the driver's directory (relative paths and the
    .pbdiff found from there mean on a worker what they mean to pbdiff run
    by hand); returns (status, stdout, stderr)."""
    try:
        p = subprocess.run([cfg.pbdiff] + args, cwd=cfg.cwd, env=env, capture_output=True)
    except OSError as e:
        raise Trouble(f"{cfg.pbdiff}: cannot run: {e.strerror}") from None
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def key_order(key):
    """pbdiff orders keys by their bytes (memcmp)."""
    return key.encode("utf-8", "surrogateescape")


def bucket_of(key, buckets):
    # Python's hash() of a str differs between processes: crc32 does not.
    return zlib.crc32(key_order(key)) % buckets


# ---- 1. Map: fingerprints of one file ----------------------------------------------------

def hash_file(cfg, side, rank, path, buckets):
    """The records of one file, dealt into buckets by key: tuples of (key,
    side, rank, index, fingerprint, offset, size, compressed).  offset and
    size are where the record's bytes are in the file (after a whole file's
    gzip); a gRPC message sent compressed is its compressed body."""
    records = module_hash(cfg, path) if cfg.module is not None else None
    if records is None:
        records = binary_hash(cfg, path)
    parts = [[] for _ in range(buckets)]
    for key, index, fp, offset, size, compressed in records:
        parts[bucket_of(key, buckets)].append((key, side, rank, index, fp, offset, size, compressed))
    return tuple(parts)


def binary_hash(cfg, path):
    args = ["hash", "--record-key", cfg.record_key, "--format", "json"]
    if cfg.framing:
        args += ["--framing", cfg.framing]
    if cfg.compression:
        args += ["--input-compression", cfg.compression]
    if cfg.skip_prefix:
        args += ["--skip-prefix", str(cfg.skip_prefix)]
    status, out, err = run_pbdiff(cfg, args + cfg.hash_opts + [path])
    if status != 0:
        raise Trouble(first_line(err) or f"{path}: pbdiff hash failed (exit {status})")
    records = []
    for line in out.splitlines():
        r = json.loads(line)
        records.append((r["key"], r.get("index", 0), r["fingerprint"], r["offset"], r["size"],
                        r.get("inflated_size", -1) if r.get("compressed") == "gzip" else None))
    return records


# pbdiff options that the module's hash_records takes, and the framings it
# cuts in place (a compressed gRPC message has no place in the file).
MODULE_OPTIONS = {"--schema": "schema", "-s": "schema", "--type": "type", "-t": "type",
                  "--equivalent": "equivalent", "--ignore-unknown": "ignore_unknown",
                  "--no-config": None}
MODULE_FRAMINGS = {"", "delimited", "tfrecord", "confluent", "confluent-value"}


def config_may_apply(cfg):
    """Whether pbdiff would read a .pbdiff here: the first one walking up
    from its directory, unless --no-config (cli/config.c)."""
    if "--no-config" in cfg.hash_opts:
        return False
    d = cfg.cwd
    while True:
        if os.path.isfile(os.path.join(d, ".pbdiff")):
            return True
        up = os.path.dirname(d)
        if up == d:
            return False
        d = up


def module_plan(cfg):
    """hash_records' keywords for the run's hash options, or None when only
    the binary can hash as asked."""
    if cfg.framing not in MODULE_FRAMINGS or cfg.compression or config_may_apply(cfg):
        return None
    kw, opts, i = {}, cfg.hash_opts, 0
    while i < len(opts):
        arg = opts[i]
        name, eq, value = arg.partition("=") if arg.startswith("--") else (arg[:2], "", arg[2:])
        i += 1
        if name not in MODULE_OPTIONS:
            return None
        if OPTIONS[name][0] and not eq and not value:
            value = opts[i]
            i += 1
        key = MODULE_OPTIONS[name]
        if key in ("schema", "type"):
            if key in kw:
                return None  # several schema files: the binary merges them
            kw[key] = os.path.join(cfg.cwd, value) if key == "schema" else value
        elif key:
            kw[key] = True
    return kw


def module_hash(cfg, path):
    """binary_hash's records by the pbdiff module in this process; None when
    the worker cannot import it (PBDIFF_DASK_MODULE=require: an error)."""
    try:
        import pbdiff
    except ImportError:
        if os.environ.get("PBDIFF_DASK_MODULE") == "require":
            raise Trouble(f"the pbdiff module is not importable on worker pid {os.getpid()}")
        return None
    try:
        with open(os.path.join(cfg.cwd, path), "rb") as f:
            data = f.read()
        if data[:2] == b"\x1f\x8b":  # as pbdiff reads gzip: inflated first
            data = gzip.decompress(data)
    except (OSError, EOFError, zlib.error) as e:
        raise Trouble(f"pbdiff: {path}: cannot read: {getattr(e, 'strerror', None) or e}") from None
    if cfg.skip_prefix > len(data):
        raise Trouble(f"pbdiff: {path}: shorter than --skip-prefix {cfg.skip_prefix}")
    try:
        recs = pbdiff.hash_records(memoryview(data)[cfg.skip_prefix:], record_key=cfg.record_key,
                                   framing=cfg.framing or None, **cfg.module)
    except pbdiff.Error as e:
        where = f"{path}{str(e)[len(e.input):]}" if e.input else str(e)
        raise Trouble(f"pbdiff: {where}") from None
    return [(key, index, fp, offset, size, None)
            for index, (key, fp, offset, size) in enumerate(recs)]


def first_line(text):
    lines = [l for l in text.splitlines() if l.strip()]
    return lines[0] if lines else ""


# ---- 2. Join: the records of one bucket paired by key ----------------------------------------

def join_bucket(*parts):
    """Pairs and counts the records of one bucket; the keys with a pair whose
    fingerprints differ are kept, with all their records, for comparison."""
    by_key = {}
    for part in parts:
        for key, side, rank, index, fp, offset, size, inflated in part:
            by_key.setdefault(key, ([], []))[side].append((rank, index, fp, offset, size, inflated))
    t = dict.fromkeys(("left_records", "right_records", "paired", "equal_unsent", "only_left",
                       "only_right", "duplicate_keys_left", "duplicate_keys_right"), 0)
    todo, dups = [], []
    for key in sorted(by_key, key=key_order):
        left, right = (sorted(recs) for recs in by_key[key])  # file, then position
        n = min(len(left), len(right))
        t["left_records"] += len(left)
        t["right_records"] += len(right)
        t["paired"] += n
        t["only_left"] += len(left) - n
        t["only_right"] += len(right) - n
        for side, recs in ((0, left), (1, right)):
            if len(recs) > 1:
                t[("duplicate_keys_left", "duplicate_keys_right")[side]] += 1
                dups.append((key, side, len(recs)))
        if any(left[k][2] != right[k][2] for k in range(n)):
            todo.append((key, [r[:2] + r[3:] for r in left], [r[:2] + r[3:] for r in right], n))
        else:
            t["equal_unsent"] += n
    return {"totals": t, "todo": todo, "dups": first_dups(dups), "pid": os.getpid()}


def first_dups(dups):
    """The first 11 duplicate keys of each side: pbdiff names 10, then says
    there are more."""
    out, seen = [], [0, 0]
    for d in dups:
        if seen[d[1]] < 11:
            seen[d[1]] += 1
            out.append(d)
    return out


def bucket_summary(joined):
    """What the driver needs of a joined bucket; its records stay on the worker."""
    return {"totals": joined["totals"], "ntodo": len(joined["todo"]), "dups": joined["dups"],
            "pid": joined["pid"]}


# ---- 3. Compare: a batch of keys whose records differ --------------------------------------------

def looks_gzip(head):
    """pbdiff's test (lib/inputs/decode.c): gzip's magic, method 8 (deflate),
    no reserved flag bits; the magic alone is also a stream whose first
    length is 0x8b1f."""
    return len(head) >= 4 and head[:3] == b"\x1f\x8b\x08" and not head[3] & 0xE0


class RecordReader:
    """Cuts records out of files: plain files by seeking, gzip-compressed ones
    inflated once per batch (hash's offsets are then in the inflated bytes),
    as pbdiff reads them (--input-compression); a gRPC message sent
    compressed is inflated on its own."""

    def __init__(self, skip_prefix, compression):
        self.skip = skip_prefix
        self.compression = compression or "auto"
        self.files = {}

    def open(self, path):
        f = open(path, "rb")
        if self.compression == "none" or not looks_gzip(f.read(4)):
            return f
        f.seek(0)
        data = f.read()
        f.close()
        try:
            return gzip.decompress(data)
        except (OSError, EOFError, zlib.error):
            if self.compression == "gzip":
                raise Trouble(f"{path}: not valid gzip data") from None
            return data  # pbdiff read it as it is (a stream that frames whole)

    def read(self, path, offset, size, inflated=None):
        f = self.files.get(path)
        if f is None:
            f = self.files[path] = self.open(path)
        start = self.skip + offset
        if isinstance(f, bytes):
            data = f[start:start + size]
        else:
            f.seek(start)
            data = f.read(size)
        if len(data) != size:
            raise Trouble(f"{path}: shorter than when it was hashed (changed meanwhile?)")
        if inflated is not None:
            try:
                data = gzip.decompress(data)
            except (OSError, EOFError, zlib.error):
                raise Trouble(f"{path}: the compressed message at byte {start} no longer "
                              "inflates (changed meanwhile?)") from None
            if len(data) != inflated:
                raise Trouble(f"{path}: the compressed message at byte {start} inflates to "
                              f"{len(data)} bytes, not {inflated} (changed meanwhile?)")
        return data

    def close(self):
        for f in self.files.values():
            if not isinstance(f, bytes):
                f.close()


def varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def compare_batch(cfg, files, joined, lo, hi):
    """Compares the records of keys lo..hi-1 of a joined bucket with pbdiff and
    returns its statistics, examples as (key bytes, occurrence, text)."""
    items = joined["todo"][lo:hi]
    reader = RecordReader(cfg.skip_prefix, cfg.compression)
    with tempfile.TemporaryDirectory(prefix="pbdiff-dask-") as tmp:
        paths = [os.path.join(tmp, "left.bin"), os.path.join(tmp, "right.bin")]
        try:
            for side in (0, 1):
                with open(paths[side], "wb") as out:
                    # key order, then file and position: pbdiff pairs and names
                    # (#2, #3) a key's records as the whole run does
                    for item in items:
                        for rank, _, offset, size, inflated in item[1 + side]:
                            data = reader.read(files[side][rank], offset, size, inflated)
                            out.write(varint(len(data)))
                            out.write(data)
        finally:
            reader.close()
        args = ["--record-key", cfg.record_key, "--framing", "delimited", "--stat",
                "--format", "json"] + (["--examples", cfg.examples] if cfg.examples else [])
        # The .pbdiff section for LEFT applies, as in the whole run: pbdiff takes
        # BASE as the operands' path under git (GIT_DIFF_PATH_TOTAL set).
        env = dict(os.environ, BASE=cfg.left, GIT_DIFF_PATH_TOTAL="1")
        env.pop("GIT_DIFF_PATH_COUNTER", None)
        status, out, err = run_pbdiff(cfg, args + cfg.compare_opts + paths, env)
    if status not in (0, 1):
        raise Trouble(f"comparing records of {cfg.left} and {cfg.right}: " +
                      (first_line(err) or f"pbdiff failed (exit {status})"))
    report = json.loads(out)
    pairs = sum(item[3] for item in items)
    if report["totals"]["paired"] != pairs:
        raise Trouble(f"a batch paired {report['totals']['paired']} records, not {pairs}")
    keys = {item[0] for item in items}
    for p in report["paths"]:
        p["examples"] = [example_order(e, keys) for e in p["examples"]]
    return {"totals": report["totals"], "paths": report["paths"], "pid": os.getpid()}


def example_order(text, keys):
    """An example's place in pbdiff's order: its key's bytes, then which of
    the key's records it is (`id="x"#10` comes after `id="x"#2`)."""
    if text in keys:
        return (key_order(text), 1, text)
    key, _, k = text.rpartition("#")
    if key not in keys or not k.isdigit():
        raise Trouble(f"pbdiff named a record {text!r} of no key of its batch")
    return (key_order(key), int(k), text)


# ---- 4. Merge and print ----------------------------------------------------------------

def merge(summaries, batches, max_examples):
    t = {k: 0 for k in ("left_records", "right_records", "paired", "equal", "differ",
                        "only_left", "only_right", "duplicate_keys_left", "duplicate_keys_right")}
    for s in summaries:
        for k, v in s["totals"].items():
            t["equal" if k == "equal_unsent" else k] += v
    paths = {}
    for b in batches:
        t["equal"] += b["totals"]["equal"]
        t["differ"] += b["totals"]["differ"]
        for p in b["paths"]:
            m = paths.setdefault(p["path"], {"path": p["path"], "records": 0,
                                             **dict.fromkeys(KINDS, 0), "examples": []})
            m["records"] += p["records"]
            for k in KINDS:
                m[k] += p[k]
            m["examples"] += p["examples"]
    for m in paths.values():  # batches hold disjoint keys: the smallest of all
        m["examples"] = [e[2] for e in heapq.nsmallest(max_examples, m["examples"])]
    # most records first, then the path's bytes (str order is UTF-8 byte order)
    ordered = sorted(paths.values(), key=lambda m: (-m["records"], m["path"]))
    return t, ordered


def json_string(s):
    """A JSON string as pbdiff writes it (pbd_Format_JsonString): UTF-8 kept,
    quote, backslash and control characters escaped."""
    short = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t",
             "\b": "\\b", "\f": "\\f"}
    return '"' + "".join(short.get(c) or (f"\\u{ord(c):04x}" if ord(c) < 0x20 else c)
                         for c in s) + '"'


def report_json(t, paths):
    equal = not t["differ"] and not t["only_left"] and not t["only_right"]
    totals = ", ".join(f'"{k}": {v}' for k, v in t.items())
    items = []
    for p in paths:
        counts = "".join(f', "{k}": {p[k]}' for k in ("records",) + KINDS)
        examples = ", ".join(json_string(e) for e in p["examples"])
        items.append(f'{{"path": {json_string(p["path"])}{counts}, "examples": [{examples}]}}')
    return (f'{{"equal": {"true" if equal else "false"}, "totals": {{{totals}}}, '
            f'"paths": [{", ".join(items)}]}}\n')


def totals_text(t):
    line = (f"records: {t['left_records']} in LEFT, {t['right_records']} in RIGHT; "
            f"{t['paired']} paired: {t['equal']} equal, {t['differ']} differ; "
            f"{t['only_left']} only in LEFT, {t['only_right']} only in RIGHT")
    if t["duplicate_keys_left"] or t["duplicate_keys_right"]:
        line += (f"; duplicate keys: {t['duplicate_keys_left']} in LEFT, "
                 f"{t['duplicate_keys_right']} in RIGHT")
    return line + "\n"


def report_text(t, paths):
    """pbdiff --stat's text: nothing at all when everything is equal."""
    if not t["differ"] and not t["only_left"] and not t["only_right"]:
        return ""
    out = []
    for p in paths:
        kinds = ", ".join(f"{p[k]} {k}" for k in KINDS if p[k])
        s = "" if p["records"] == 1 else "s"
        line = f"  {p['path']}: {p['records']} record{s} ({kinds})"
        if p["examples"]:
            line += ", e.g. " + " ".join(f"[{e}]" for e in p["examples"])
        out.append(line + "\n")
    return "".join(out) + totals_text(t)


def warn_duplicates(cfg, summaries):
    """pbdiff's warnings for keys held by several records, in key order."""
    dups = sorted((key_order(k), side, k, n) for s in summaries for k, side, n in s["dups"])
    said = [0, 0]
    for _, side, key, n in dups:
        root = (cfg.left, cfg.right)[side]
        said[side] += 1
        if said[side] == 11:
            print(f"{PROG}: warning: {root}: more keys held by several records (see the totals)",
                  file=sys.stderr)
        elif said[side] <= 10:
            print(f"{PROG}: warning: {root}: {n} records have the key {key} (paired in order)",
                  file=sys.stderr)


# ---- The run on a cluster ------------------------------------------------------------------

def say(cfg, msg):
    if cfg.verbose:
        print(f"{PROG}: {msg}", file=sys.stderr)


class QuietStderr:
    """Dask's own output kept off the terminal: while the cluster runs, file
    descriptor 2 (which the scheduler, the nannies and every worker process
    they start, restarted ones too, write their logs and tracebacks to) is
    a log file, and this driver's lines go to the real standard error.  A
    lost worker then costs one line per lost task (lost_tasks), not the
    pages of tracebacks its neighbours print when the cluster closes.  With
    --verbose the log is kept and named at the end."""

    def __enter__(self):
        sys.stderr.flush()
        self.saved = os.dup(2)
        fd, self.path = tempfile.mkstemp(prefix="pbdiff-dask-", suffix=".log")
        os.dup2(fd, 2)
        os.close(fd)
        self.stderr = sys.stderr
        sys.stderr = os.fdopen(os.dup(self.saved), "w", buffering=1)
        return self

    def __exit__(self, *exc):
        sys.stderr.flush()
        os.dup2(self.saved, 2)
        os.close(self.saved)
        sys.stderr.close()
        sys.stderr = self.stderr
        return False

    def done(self, keep):
        if keep and os.path.getsize(self.path):
            print(f"{PROG}: Dask's log: {self.path}", file=sys.stderr)
        else:
            os.unlink(self.path)


def lost_tasks(names):
    """An event handler (the scheduler's "all" topic): one line per task that
    was running on a worker when the worker was lost.  The scheduler runs
    the task again elsewhere (its results do not depend on where it runs);
    after distributed.scheduler.allowed-failures losses of one task the run
    fails with KilledWorker, as one line too."""
    def handler(event):
        _, msg = event
        if not isinstance(msg, dict) or msg.get("action") != "remove-worker":
            return
        for key in sorted(map(str, msg.get("processing-tasks") or ())):
            what = names.get(key, key)
            print(f"{PROG}: worker {msg.get('worker', '?')} lost while {what}; the task is run "
                  "again", file=sys.stderr)
    return handler


def start_client(cfg):
    from distributed import Client, LocalCluster
    if cfg.scheduler:
        client = Client(cfg.scheduler)
        client.wait_for_workers(1)
        return client, None
    # Worker processes, not threads: each one its own interpreter, as on a
    # cluster (tasks and their data are pickled between processes).
    cluster = LocalCluster(n_workers=cfg.workers, threads_per_worker=1, processes=True,
                           dashboard_address=None, silence_logs=logging.ERROR)
    return Client(cluster), cluster


def worker_pids(client):
    return client.run(os.getpid)  # address -> pid, one per worker process


def run(cfg, client):
    from dask import delayed
    t0 = time.monotonic()
    pids = worker_pids(client)
    say(cfg, f"{len(pids)} worker processes: " +
        ", ".join(f"{a} (pid {p})" for a, p in sorted(pids.items())) +
        f"; this driver is pid {os.getpid()}")
    say(cfg, "hashing: by the pbdiff module on workers that have it, else by pbdiff hash"
        if cfg.module is not None else "hashing: by pbdiff hash")
    files = (list_side(cfg.left), list_side(cfg.right))
    buckets = cfg.buckets or 2 * len(pids)
    # 1 and 2 as one graph: each file's task deals its records into buckets,
    # and each bucket's join takes its share of every file (a shuffle)
    hashed = [delayed(hash_file, nout=buckets, pure=True)(cfg, side, rank, path, buckets)
              for side in (0, 1) for rank, path in enumerate(files[side])]
    joins = [delayed(join_bucket, pure=True)(*[h[j] for h in hashed]) for j in range(buckets)]
    names = {h.key: f"hashing {files[side][rank]}" for h, (side, rank) in
             zip(hashed, [(sd, r) for sd in (0, 1) for r in range(len(files[sd]))])}
    names.update({j.key: f"joining bucket {n}" for n, j in enumerate(joins)})
    client.subscribe_topic("all", lost_tasks(names))
    joined = client.compute(joins)
    summaries = client.gather(client.map(bucket_summary, joined))
    ntodo = sum(s["ntodo"] for s in summaries)
    say(cfg, f"{len(files[0])} + {len(files[1])} files hashed and joined in {buckets} buckets "
             f"({time.monotonic() - t0:.1f} s); {ntodo} keys to compare")
    # 3: batches of keys, each key in one batch, compared where its bucket is
    batches = []
    for j, s in enumerate(summaries):
        for lo in range(0, s["ntodo"], cfg.batch_keys):
            f = client.submit(compare_batch, cfg, files, joined[j], lo,
                              min(lo + cfg.batch_keys, s["ntodo"]), pure=False)
            names[f.key] = f"comparing keys {lo}.. of bucket {j}"
            batches.append(f)
    results = client.gather(batches)
    ran = {}
    for r in summaries + results:
        ran[r["pid"]] = ran.get(r["pid"], 0) + 1
    say(cfg, f"{len(results)} comparison batches ({time.monotonic() - t0:.1f} s); join and "
             "compare tasks per worker pid: " +
             ", ".join(f"{p}: {n}" for p, n in sorted(ran.items())))
    client.unsubscribe_topic("all")  # closing removes every worker: no loss
    warn_duplicates(cfg, summaries)
    return merge(summaries, results, cfg.max_examples())


def main(argv):
    try:
        cfg = parse_args(argv)
        cfg.module = module_plan(cfg)
        quiet = QuietStderr()
        with quiet:
            try:
                client, cluster = start_client(cfg)
                try:
                    totals, paths = run(cfg, client)
                finally:
                    client.close()
                    if cluster:
                        cluster.close()
            finally:
                sys.stderr.flush()
        quiet.done(cfg.verbose)
    except Trouble as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    except OSError as e:  # the scheduler unreachable, a file gone
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # a worker lost, pbdiff's output not understood: still one line
        print(f"{PROG}: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(report_text(totals, paths) if cfg.text else report_json(totals, paths))
    sys.stdout.flush()
    return 0 if not (totals["differ"] or totals["only_left"] or totals["only_right"]) else 1


if __name__ == "__main__":  # worker processes import this file too
    sys.exit(main(sys.argv[1:]))
