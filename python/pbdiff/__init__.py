"""pbdiff: protobuf messages and bytes compared by meaning.

The C library's pipeline, called in process (pbdiff._core), with the rules
of docs/semantics.md: field order, packing, last-value-wins, merged
messages, map order, defaults and unknown fields do not make two messages
differ; differences are named by path in the schema's words.

    import pbdiff
    r = pbdiff.compare(model_a, model_b, float_margin=1e-6)
    if not r:
        print(r)              # pbdiff's text report
        for d in r.differences:
            print(d.path, d.kind, d.left, d.right)

Inputs are google.protobuf messages (the schema is taken from the
message's own descriptor, built once per type) or bytes-like objects (with
schema= a descriptor set, path or bytes, and type= the message's full name;
or neither: schemaless).  docs/python.md has the whole story.
"""

import builtins
import os
import threading

from . import _core

__all__ = ["compare", "assert_equal", "hash", "hash_records", "cat", "Result", "Difference", "Error", "Schema",
           "schema_of", "__version__"]

__version__ = _core.VERSION

Error = _core.Error


class Schema:
    """A schema loaded once: a serialized FileDescriptorSet (as `protoc
    --include_imports -o FILE` writes), given as bytes or a path.  Pass it
    as schema= to reuse it across calls."""

    __slots__ = ("_core", "_data", "name")

    def __init__(self, source, name=None):
        if isinstance(source, (str, os.PathLike)):
            path = os.fspath(source)
            try:
                with open(path, "rb") as f:
                    data = f.read()
            except OSError as e:
                raise Error(f"{path}: cannot read: {e.strerror}") from None
            name = name or path
        else:
            data = bytes(memoryview(source))
        self.name = name or "schema"
        self._data = data  # kept for pickling: a worker loads it again
        self._core = _core.Schema(data, self.name)

    def __reduce__(self):
        return (Schema, (self._data, self.name))

    def has_type(self, full_name):
        return self._core.has_type(full_name)

    def __repr__(self):
        return f"<pbdiff.Schema {self.name!r}>"


class Difference:
    """One difference: .path (pbdiff's path syntax, `graph.node[3].op_type`),
    .kind ("changed", "added", "removed", "presence", "moved"), .left and
    .right (Python values: int, float, str, bytes, bool, an enum's name, a
    dict for a message; None for a side that has none), .left_index and
    .right_index (a repeated element's positions, else None), .parent (the
    path of the message holding the field) and .type (its full type name,
    None without a schema)."""

    __slots__ = ("path", "kind", "left", "right", "left_index", "right_index", "parent", "type")

    def __init__(self, path, kind, left, right, left_index=None, right_index=None, parent="",
                 type=None):
        self.path, self.kind, self.left, self.right = path, kind, left, right
        self.left_index, self.right_index, self.parent, self.type = (left_index, right_index,
                                                                      parent, type)

    def _key(self):
        return tuple(getattr(self, k) for k in self.__slots__)

    def __eq__(self, other):
        return isinstance(other, Difference) and self._key() == other._key()

    def __hash__(self):
        return builtins.hash((self.path, self.kind))

    def __repr__(self):
        return (f"Difference(path={self.path!r}, kind={self.kind!r}, left={self.left!r}, "
                f"right={self.right!r})")


_equal_reports = None


class Result:
    """What compare() found: .equal (also bool(result)), .differences (a
    list of Difference), str(result) the text report pbdiff prints,
    result.to_json() its JSON report (docs/json-format.md)."""

    __slots__ = ("equal", "differences", "_text", "_json", "_again")

    def __init__(self, equal, differences, text, json, again=None):
        self.equal = equal
        self.differences = differences
        self._text, self._json = text, json
        self._again = again  # the JSON report, made when first asked for

    def __bool__(self):
        return self.equal

    @staticmethod
    def _equal_reports():
        global _equal_reports
        if _equal_reports is None:
            _equal_reports = _core.equal_reports()
        return _equal_reports

    def __str__(self):
        return self._text if self._text is not None else self._equal_reports()[0]

    def to_json(self):
        """The JSON report, as `pbdiff --format json` writes it.  It writes
        values whole (a changed 50 MB tensor as base64), so it is made when
        first asked for, by comparing the inputs again: inputs that can
        change (a bytearray, an mmap) must not have changed meanwhile."""
        if self._json is None:
            self._json = self._again() if self._again else self._equal_reports()[1]
            self._again = None
        return self._json

    def __len__(self):
        return len(self.differences)

    def __getstate__(self):  # pickled with its JSON report, not its inputs
        return (self.equal, self.differences, self._text, self.to_json())

    def __setstate__(self, state):
        self.equal, self.differences, self._text, self._json = state
        self._again = None

    def __repr__(self):
        n = len(self.differences)
        return f"<pbdiff.Result equal={self.equal} differences={n}>"


# ---- schemas -----------------------------------------------------------------------

_schema_lock = threading.Lock()
_by_descriptor = {}   # message Descriptor -> Schema, built once per type
_by_path = {}         # (path, mtime, size) -> Schema


def _is_message(x):
    try:
        from google.protobuf.message import Message
    except ImportError:
        return False
    return isinstance(x, Message)


def _file_set(file):
    """The FileDescriptorSet of a file and everything it imports, imports
    first, serialized."""
    from google.protobuf import descriptor_pb2
    out, seen = descriptor_pb2.FileDescriptorSet(), set()

    def visit(f):
        if f.name in seen:
            return
        seen.add(f.name)
        for d in f.dependencies:
            visit(d)
        proto = out.file.add()
        if getattr(f, "serialized_pb", None):
            proto.ParseFromString(f.serialized_pb)
        else:
            f.CopyToProto(proto)
    visit(file)
    return out.SerializeToString()


def schema_of(message_or_class):
    """The Schema of a message type (a message or its class): its file and
    every file it imports, from the type's own descriptor; built once per
    type and cached."""
    desc = message_or_class.DESCRIPTOR
    with _schema_lock:
        s = _by_descriptor.get(desc)
    if s is None:
        s = Schema(_file_set(desc.file), name=desc.file.name)
        with _schema_lock:
            s = _by_descriptor.setdefault(desc, s)
    return s


def _schema_arg(schema):
    if schema is None or isinstance(schema, Schema):
        return schema
    if isinstance(schema, (str, os.PathLike)):
        path = os.fspath(schema)
        try:
            st = os.stat(path)
        except OSError as e:
            raise Error(f"{path}: cannot read: {e.strerror}") from None
        key = (os.path.abspath(path), st.st_mtime_ns, st.st_size)
        with _schema_lock:
            s = _by_path.get(key)
        if s is None:
            s = Schema(path)
            with _schema_lock:
                s = _by_path.setdefault(key, s)
        return s
    return Schema(schema)


def _inputs(left, right, schema, type):
    """The two sides as bytes-like objects, and the schema and type they are
    read with: a message's own, else the ones given."""
    lm, rm = _is_message(left), _is_message(right)
    if lm or rm:
        m = left if lm else right
        if lm and rm and left.DESCRIPTOR.full_name != right.DESCRIPTOR.full_name:
            raise TypeError(f"cannot compare a {left.DESCRIPTOR.full_name} with a "
                            f"{right.DESCRIPTOR.full_name}")
        if type is not None and type != m.DESCRIPTOR.full_name:
            raise TypeError(f"type={type!r}, but the message is a {m.DESCRIPTOR.full_name}")
        s = schema_of(m) if schema is None else _schema_arg(schema)
        type = m.DESCRIPTOR.full_name
        # a missing required field is unset, not an error (docs/semantics.md rule 8)
        left = left.SerializePartialToString() if lm else left
        right = right.SerializePartialToString() if rm else right
        return left, right, s, type
    return left, right, _schema_arg(schema), type


def _one_input(data, schema, type):
    if _is_message(data):
        if type is not None and type != data.DESCRIPTOR.full_name:
            raise TypeError(f"type={type!r}, but the message is a {data.DESCRIPTOR.full_name}")
        s = schema_of(data) if schema is None else _schema_arg(schema)
        return data.SerializePartialToString(), s, data.DESCRIPTOR.full_name
    return data, _schema_arg(schema), type


# ---- options -------------------------------------------------------------------------

def _strings(value, what):
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    out = tuple(value)
    for v in out:
        if not isinstance(v, str):
            raise TypeError(f"{what}: want str items, not {v.__class__.__name__}")
    return out


def _key_specs(keys):
    """keys={"pkg.Msg.field": "name"} (or a tuple of subfields) as --key
    FIELD=SUB[+SUB...]."""
    if not keys:
        return ()
    if not isinstance(keys, dict):
        raise TypeError("keys: want a dict of repeated field -> key subfield(s)")
    specs = []
    for field, sub in keys.items():
        subs = (sub,) if isinstance(sub, str) else tuple(sub)
        if not subs or not all(isinstance(s, str) and s for s in subs):
            raise TypeError(f"keys[{field!r}]: want a subfield name or a tuple of them")
        specs.append(f"{field}={'+'.join(subs)}")
    return tuple(specs)


def _tolerance(value, what):
    """A global tolerance (a number), or per scope {"field.or[*].pattern":
    number}: (global, ("SCOPE=VALUE", ...))."""
    if value is None:
        return 0.0, ()
    if isinstance(value, dict):
        scoped = []
        for scope, v in value.items():
            if not isinstance(scope, str) or not scope:
                raise TypeError(f"{what}: scopes are field names or path patterns (str)")
            v = float(v)
            if not v >= 0 or v == float("inf"):
                raise ValueError(f"{what}[{scope!r}]: want a finite number >= 0, not {v}")
            scoped.append(f"{scope}={v!r}")
        return 0.0, tuple(scoped)
    v = float(value)
    if not v >= 0 or v == float("inf"):
        raise ValueError(f"{what}: want a finite number >= 0, not {v}")
    return v, ()


def _compare(left, right, schema=None, type=None, ignore=(), keys=None, sets=(),
             equivalent=False, ignore_unknown=False, partial=False, float_margin=None,
             float_fraction=None, report_moves=False, delimited=False, bytes_as=(),
             report_limit=0):
    left, right, s, type = _inputs(left, right, schema, type)
    margin, margins = _tolerance(float_margin, "float_margin")
    fraction, fractions = _tolerance(float_fraction, "float_fraction")
    kw = dict(schema=s._core if s is not None else None, type=type,
              ignore=_strings(ignore, "ignore"), keys=_key_specs(keys),
              sets=_strings(sets, "sets"), margins=margins, fractions=fractions,
              float_margin=margin, float_fraction=fraction, equivalent=bool(equivalent),
              ignore_unknown=bool(ignore_unknown), partial=bool(partial),
              report_moves=bool(report_moves), delimited=bool(delimited),
              bytes_as=_strings(bytes_as, "bytes_as"))
    equal, diffs, text, _ = _core.compare(left, right, report_limit=report_limit, **kw)

    def json_report():
        j = _core.compare(left, right, differences=False, text=False, json=True, **kw)[3]
        if j is None:
            raise ValueError("to_json(): the inputs compare equal now: they changed since")
        return j
    return Result(equal, [Difference(*d) for d in diffs], text, None,
                  json_report if not equal else None)


def compare(left, right, *, schema=None, type=None, ignore=(), keys=None, sets=(),
            equivalent=False, ignore_unknown=False, partial=False, float_margin=None,
            float_fraction=None, report_moves=False, delimited=False, bytes_as=()):
    """Compares two messages, or two encoded messages, by meaning.

    left, right: google.protobuf messages of one type (the schema is the
      type's own), or bytes-like objects read with schema= (a Schema, a
      descriptor set's path or bytes) as type= (a full name); neither:
      schemaless.  One side may be a message and the other bytes of its type.
    ignore: field full names or path patterns left out (--ignore).
    keys: {"pkg.Msg.repeated_field": "subfield" or ("a", "b")}: elements
      paired by key (--key).  sets: repeated fields compared as multisets.
    equivalent: set-to-default equals unset.  ignore_unknown: unknown fields
      take no part.  partial: only the fields LEFT sets are compared.
    float_margin, float_fraction: a number for every float, or a dict of
      {field name or path pattern: number} (--float-margin SCOPE=X).
    report_moves: keyed and set elements at another position are reported.
    delimited: both sides are varint length-prefixed streams of messages.
    bytes_as: typed views of bytes fields, "FIELD=KIND" (--bytes-as): the
      field's bytes compared element by element as numbers; "none" turns
      every view off, the onnx.TensorProto preset included (with that type
      in the schema, raw_data reads by data_type and equals float_data etc.
      of the same values).

    Returns a Result; raises pbdiff.Error for a malformed input, a bad
    schema or a bad option."""
    return _compare(left, right, schema=schema, type=type, ignore=ignore, keys=keys, sets=sets,
                    equivalent=equivalent, ignore_unknown=ignore_unknown, partial=partial,
                    float_margin=float_margin, float_fraction=float_fraction,
                    report_moves=report_moves, delimited=delimited, bytes_as=bytes_as)


# How many differences an assertion's message shows before counting the rest.
ASSERT_MAX_DIFFERENCES = 50


def _assert_message(r):
    n = len(r.differences)
    return f"messages differ ({n} difference{'' if n == 1 else 's'}):\n{r}".rstrip("\n")


def assert_equal(left, right, **options):
    """Raises AssertionError, with pbdiff's report of the first 50
    differences and a count of the rest, unless left and right are equal
    with the options of compare()."""
    r = _compare(left, right, report_limit=ASSERT_MAX_DIFFERENCES, **options)
    if not r.equal:
        raise AssertionError(_assert_message(r))


def hash(data, *, schema=None, type=None, delimited=False, equivalent=False,
         ignore_unknown=False, sha256=False):
    """The semantic fingerprint `pbdiff hash` prints: "pbh1:" and 32 hex
    digits (with sha256=True "pbs1:" and 64), equal iff the messages are
    equal in meaning under the same schema, type and options.  data is a
    message or bytes (schema= and type= as for compare()); with delimited a
    list, one per message of the stream."""
    data, s, type = _one_input(data, schema, type)
    return _core.hash(data, s._core if s is not None else None, type, delimited=bool(delimited),
                      equivalent=bool(equivalent), ignore_unknown=bool(ignore_unknown),
                      sha256=bool(sha256))


def hash_records(data, *, record_key, schema=None, type=None, framing=None, equivalent=False,
                 ignore_unknown=False):
    """The records of a corpus file as `pbdiff hash --record-key KEY
    --framing F --format json` gives them: a list of (key, fingerprint,
    offset, size), the key as text (`"r-1"`, `7`), the pbh1 fingerprint, and
    where the record's bytes are in data.  framing: None (data is one
    record), "delimited", "tfrecord", "grpc" (uncompressed), "confluent" or
    "confluent-value".  For drivers that pair records by key across
    processes (scripts/pbdiff-dask.py)."""
    data, s, type = _one_input(data, schema, type)
    return _core.hash_records(data, s._core if s is not None else None, type, record_key,
                              framing, equivalent=bool(equivalent),
                              ignore_unknown=bool(ignore_unknown))


def cat(data, *, schema=None, type=None, delimited=False, equivalent=False,
        ignore_unknown=False, json=False):
    """The canonical text `pbdiff cat` prints (fields in number order, maps
    sorted, defaults normalised: equal meaning, equal text); with json=True
    the JSON mapping of the canonical message, a line per message."""
    data, s, type = _one_input(data, schema, type)
    return _core.cat(data, s._core if s is not None else None, type, delimited=bool(delimited),
                     equivalent=bool(equivalent), ignore_unknown=bool(ignore_unknown),
                     json=bool(json))
