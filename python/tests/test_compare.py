"""pbdiff.compare: messages and bytes, every option, the values and reports
it hands back."""

import json
import os

import pytest

import pbdiff
from conftest import run_cli


@pytest.fixture
def demo(classes, root):
    Config = classes["demo.Config"]
    with open(os.path.join(root, "testdata/demo/left.pb"), "rb") as f:
        left = f.read()
    with open(os.path.join(root, "testdata/demo/right.pb"), "rb") as f:
        right = f.read()
    return Config, left, right


@pytest.fixture
def M(classes):
    return classes["sem3.M"]


def paths(r):
    return [(d.path, d.kind) for d in r.differences]


# ---- messages and bytes ---------------------------------------------------------------

def test_messages_and_bytes_agree(demo, descs):
    Config, left, right = demo
    a, b = Config.FromString(left), Config.FromString(right)
    by_msg = pbdiff.compare(a, b)
    by_bytes = pbdiff.compare(left, right, schema=descs["demo"], type="demo.Config")
    assert not by_msg and not by_msg.equal
    assert paths(by_msg) == paths(by_bytes) == [
        ("version", "changed"), ('labels["team"]', "changed"), ("servers[1].port", "changed")]
    assert str(by_msg) == str(by_bytes)
    assert by_msg.to_json() == by_bytes.to_json()


def test_message_against_its_bytes(demo):
    Config, left, right = demo
    assert pbdiff.compare(Config.FromString(left), left)
    assert paths(pbdiff.compare(left, Config.FromString(right))) == paths(
        pbdiff.compare(Config.FromString(left), Config.FromString(right)))


def test_schema_as_path_bytes_or_schema(demo, descs):
    _, left, right = demo
    with open(descs["demo"], "rb") as f:
        raw = f.read()
    for schema in (descs["demo"], raw, bytearray(raw), pbdiff.Schema(descs["demo"])):
        r = pbdiff.compare(left, right, schema=schema, type="demo.Config")
        assert len(r.differences) == 3
    assert pbdiff.Schema(raw).has_type("demo.Config")
    assert not pbdiff.Schema(raw).has_type("demo.Nope")


def test_bytes_like_inputs(demo, descs):
    _, left, right = demo
    r = pbdiff.compare(memoryview(left), bytearray(right), schema=descs["demo"], type="demo.Config")
    assert len(r.differences) == 3


def test_mapped_files_and_the_json_report_made_later(demo, descs, tmp_path):
    import mmap
    _, left, right = demo
    lp, rp = tmp_path / "l.pb", tmp_path / "r.pb"
    lp.write_bytes(left)
    rp.write_bytes(right)
    want = pbdiff.compare(left, right, schema=descs["demo"], type="demo.Config")
    with open(lp, "rb") as fl, open(rp, "rb") as fr:
        a = mmap.mmap(fl.fileno(), 0, access=mmap.ACCESS_READ)
        b = mmap.mmap(fr.fileno(), 0, access=mmap.ACCESS_READ)
        r = pbdiff.compare(a, b, schema=descs["demo"], type="demo.Config")
        kept = pbdiff.compare(a, b, schema=descs["demo"], type="demo.Config")
        assert kept.to_json() == want.to_json()  # made now, while the maps are there
        a.close()
        b.close()
    assert str(r) == str(want) and len(r.differences) == 3
    with pytest.raises(ValueError):  # made from the inputs, which are gone
        r.to_json()
    assert kept.to_json() == want.to_json()  # made once, kept


def test_schemaless(demo):
    _, left, right = demo
    r = pbdiff.compare(left, right)
    assert not r
    assert ("2[0]", "changed") in paths(r)  # fields by number, every one a list
    assert pbdiff.compare(left, left)


def test_equal_result(demo):
    Config, left, _ = demo
    r = pbdiff.compare(Config.FromString(left), Config.FromString(left))
    assert r and r.equal and r.differences == [] and len(r) == 0
    assert str(r) == ""
    assert json.loads(r.to_json()) == {"equal": True, "differences": []}
    assert repr(r) == "<pbdiff.Result equal=True differences=0>"


def test_encodings_equal_in_meaning(M, descs):
    packed = bytes([0x72, 0x02, 0x01, 0x02])        # ri: [1, 2] packed
    unpacked = bytes([0x70, 0x01, 0x70, 0x02])      # the same unpacked
    assert packed != unpacked
    assert pbdiff.compare(packed, unpacked, schema=descs["sem3"], type="sem3.M")
    a = M(i32=1, str="x")
    # field order: str (10) first, then i32 (1)
    reordered = bytes([0x52, 0x01, ord("x"), 0x08, 0x01])
    assert pbdiff.compare(a, reordered)
    # last value wins: i32 written twice
    assert pbdiff.compare(M(i32=2), bytes([0x08, 0x01, 0x08, 0x02]))


# ---- values -------------------------------------------------------------------------------

def test_values_are_python_values(M):
    a = M(i64=-5, u64=2**64 - 1, b=False, d=1.5, str="a", by=b"\x00\x01", color=1, f=0.5)
    b = M(i64=7, u64=1, b=True, d=2.25, str="b", by=b"\x02", color=2, f=0.25)
    a.inner.a = 1
    b.inner.a = 1
    b.inner.s = "s"
    got = {d.path: (d.kind, d.left, d.right) for d in pbdiff.compare(a, b).differences}
    assert got["i64"] == ("changed", -5, 7)
    assert got["u64"] == ("changed", 2**64 - 1, 1)
    assert got["b"] == ("changed", False, True)    # proto3: absent reads as false
    assert got["d"] == ("changed", 1.5, 2.25)
    assert got["f"] == ("changed", 0.5, 0.25)
    assert got["str"] == ("changed", "a", "b")
    assert got["by"] == ("changed", b"\x00\x01", b"\x02")
    assert got["color"] == ("changed", "RED", "GREEN")  # enums by name
    assert got["inner.s"] == ("changed", "", "s")
    for d in pbdiff.compare(a, b).differences:
        assert isinstance(d.left, (type(None), int, float, str, bytes, bool))


def test_message_values_are_dicts(M):
    a, b = M(), M()
    e = b.rm.add(a=3, s="x")
    e.r.extend([1, 2])
    b.ms["k"] = 4
    b.mi[5].a = 6
    diffs = {d.path: d for d in pbdiff.compare(a, b).differences}
    assert diffs["rm[0]"].kind == "added"
    assert diffs["rm[0]"].right == {"a": 3, "s": "x", "r": [1, 2]}
    assert diffs["rm[0]"].left is None
    assert diffs["rm[0]"].right_index == 0 and diffs["rm[0]"].left_index is None
    assert diffs['ms["k"]'].right == 4
    assert diffs["mi[5]"].right == {"a": 6}
    whole = pbdiff.compare(M(), b, partial=False).differences
    assert whole  # the same through the default path


def test_difference_parent_and_type(demo):
    Config, left, right = demo
    d = pbdiff.compare(Config.FromString(left), Config.FromString(right)).differences[2]
    assert (d.path, d.parent, d.type) == ("servers[1].port", "servers[1]", "demo.Server")
    assert d.left_index is None and d.right_index is None
    assert d == pbdiff.Difference("servers[1].port", "changed", 443, 8443, None, None,
                                  "servers[1]", "demo.Server")
    assert "servers[1].port" in repr(d)
    assert len({d, d}) == 1


def test_presence_kind(classes):
    M2 = classes["sem2.M"]
    r = pbdiff.compare(M2(req=1), M2(req=1, i=0))
    assert paths(r) == [("i", "presence")]
    assert r.differences[0].right == 0 and r.differences[0].left is None


def test_any_payload_as_dict(M, classes):
    inner = classes["sem3.Inner"](a=1)
    a, b = M(), M()
    a.any.Pack(inner)
    inner.a = 2
    b.any.Pack(inner)
    d = pbdiff.compare(a, b).differences
    assert [x.path for x in d] == ["any.[type.googleapis.com/sem3.Inner].a"]
    a2 = M()
    a2.any.Pack(inner)
    d = pbdiff.compare(M(), a2).differences
    assert d[0].right == {"@type": "type.googleapis.com/sem3.Inner", "a": 2}


# ---- options -------------------------------------------------------------------------------

def test_ignore(demo):
    Config, left, right = demo
    a, b = Config.FromString(left), Config.FromString(right)
    r = pbdiff.compare(a, b, ignore=["demo.Config.version", "servers[*].port"])
    assert paths(r) == [('labels["team"]', "changed")]
    assert paths(pbdiff.compare(a, b, ignore="labels")) == [("version", "changed"),
                                                            ("servers[1].port", "changed")]
    with pytest.raises(pbdiff.Error, match="has no field 'nope'"):
        pbdiff.compare(a, b, ignore=["servers[*].nope"])


def test_keys_and_sets(M):
    a, b = M(), M()
    a.rm.add(a=1, s="x")
    a.rm.add(a=2, s="y")
    b.rm.add(a=2, s="y")
    b.rm.add(a=1, s="z")
    by_position = paths(pbdiff.compare(a, b))
    assert by_position != [("rm[a=1].s", "changed")]
    r = pbdiff.compare(a, b, keys={"sem3.M.rm": "a"})
    assert paths(r) == [("rm[a=1].s", "changed")]
    r = pbdiff.compare(a, b, keys={"sem3.M.rm": ("a",)}, report_moves=True)
    kinds = sorted(d.kind for d in r.differences)
    assert "moved" in kinds
    moved = [d for d in r.differences if d.kind == "moved"][0]
    assert (moved.left_index, moved.right_index) in ((0, 1), (1, 0))
    a.ri.extend([1, 2, 3])
    b.ri.extend([3, 1, 2])
    b.rm[1].s = "x"
    assert not pbdiff.compare(a, b, keys={"sem3.M.rm": "a"})
    assert pbdiff.compare(a, b, keys={"sem3.M.rm": "a"}, sets=["sem3.M.ri"])
    with pytest.raises(pbdiff.Error, match="no field sem3.M.nope"):
        pbdiff.compare(a, b, sets=["sem3.M.nope"])
    with pytest.raises(pbdiff.Error, match="no scalar field"):
        pbdiff.compare(a, b, keys={"sem3.M.rm": "child"})
    with pytest.raises(TypeError):
        pbdiff.compare(a, b, keys=["sem3.M.rm"])


def test_equivalent(classes):
    M2 = classes["sem2.M"]
    a, b = M2(req=1), M2(req=1, i=0)
    assert not pbdiff.compare(a, b)
    assert pbdiff.compare(a, b, equivalent=True)


def test_ignore_unknown(M):
    a = M(i32=1).SerializeToString()
    b = a + bytes([0xB8, 0x3E, 0x05])  # field 999, varint 5: not in the schema
    r = pbdiff.compare(M(i32=1), b)
    assert paths(r) == [("999[0]", "added")] and r.differences[0].right == 5
    assert pbdiff.compare(M(i32=1), b, ignore_unknown=True)


def test_partial(M):
    a, b = M(i32=1), M(i32=1, str="more")
    assert not pbdiff.compare(a, b)
    assert pbdiff.compare(a, b, partial=True)
    assert not pbdiff.compare(M(i32=2), b, partial=True)


def test_float_margin_and_fraction(M):
    a, b = M(d=1.0), M(d=1.0005)
    assert not pbdiff.compare(a, b)
    assert pbdiff.compare(a, b, float_margin=1e-3)
    assert not pbdiff.compare(a, b, float_margin=1e-4)
    assert pbdiff.compare(a, b, float_fraction=1e-3)
    assert not pbdiff.compare(a, b, float_fraction=1e-5)
    with pytest.raises(ValueError):
        pbdiff.compare(a, b, float_margin=-1)


def test_float_tolerance_per_field(M):
    a, b = M(d=1.0, f=1.0), M(d=1.0005, f=1.0005)
    r = pbdiff.compare(a, b, float_margin={"sem3.M.d": 1e-3})
    assert paths(r) == [("f", "changed")]
    r = pbdiff.compare(a, b, float_margin={"f": 1e-3, "d": 1e-3})
    assert r
    r = pbdiff.compare(a, b, float_fraction={"d": 1e-3})
    assert paths(r) == [("f", "changed")]
    a.rd.extend([1.0, 2.0])
    b.rd.extend([1.0000001, 2.0])
    assert paths(pbdiff.compare(a, b, float_margin={"d": 1e-3, "f": 1e-3})) == [
        ("rd[0]", "changed")]
    assert pbdiff.compare(a, b, float_margin={"rd": 1e-6, "d": 1e-3, "f": 1e-3})
    # the last matching rule wins: 0 makes rd exact again under a global margin
    assert not pbdiff.compare(a, b, float_margin={"d": 1e-3, "f": 1e-3, "rd": 0})
    with pytest.raises(pbdiff.Error, match="holds no floats"):
        pbdiff.compare(a, b, float_margin={"sem3.M.str": 1e-3})
    with pytest.raises(ValueError):
        pbdiff.compare(a, b, float_margin={"d": float("nan")})


def test_delimited(classes):
    Rec = classes["sem3.Rec"]

    def stream(*recs):
        out = b""
        for r in recs:
            data = r.SerializeToString()
            out += bytes([len(data)]) + data
        return out

    a = stream(Rec(name="a", n=1), Rec(name="b", n=2))
    b = stream(Rec(name="a", n=1), Rec(name="b", n=3), Rec(name="c"))
    rec = pbdiff.schema_of(Rec)
    r = pbdiff.compare(a, b, schema=rec, type="sem3.Rec", delimited=True)
    assert paths(r) == [("[1].n", "changed"), ("[2]", "added")]
    assert r.differences[1].right == {"name": "c"}
    assert pbdiff.compare(a, a, schema=rec, type="sem3.Rec", delimited=True)
    with pytest.raises(pbdiff.Error) as e:
        pbdiff.compare(a[:-1], a, schema=rec, type="sem3.Rec", delimited=True)
    assert e.value.input == "left"


def test_schema_is_cached_per_type(M):
    assert pbdiff.schema_of(M) is pbdiff.schema_of(M())
    assert pbdiff.schema_of(M).has_type("google.protobuf.Any")  # its imports come along


# ---- reports -------------------------------------------------------------------------------

def test_reports_are_the_clis(demo, descs, tmp_path):
    _, left, right = demo
    lp, rp = tmp_path / "l.pb", tmp_path / "r.pb"
    lp.write_bytes(left)
    rp.write_bytes(right)
    r = pbdiff.compare(left, right, schema=descs["demo"], type="demo.Config")
    st, out, _ = run_cli("--no-config", "-s", descs["demo"], "-t", "demo.Config", str(lp), str(rp))
    assert st == 1 and str(r) == out
    st, out, _ = run_cli("--no-config", "-s", descs["demo"], "-t", "demo.Config",
                         "--format", "json", str(lp), str(rp))
    cli = json.loads(out)
    assert st == 1 and (cli.pop("left_name"), cli.pop("right_name")) == (str(lp), str(rp))
    assert json.loads(r.to_json()) == cli
