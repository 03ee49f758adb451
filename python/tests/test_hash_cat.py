"""pbdiff.hash and pbdiff.cat: the fingerprints and canonical text of
`pbdiff hash` and `pbdiff cat`, for messages and bytes."""

import re

import pytest

import pbdiff
from conftest import run_cli


@pytest.fixture
def M(classes):
    return classes["sem3.M"]


def test_hash_is_the_clis(M, descs, tmp_path):
    m = M(i32=5, str="x", ri=[1, 2, 3])
    m.ms["a"] = 1
    m.ms["b"] = 2
    data = m.SerializeToString()
    p = tmp_path / "m.pb"
    p.write_bytes(data)
    h = pbdiff.hash(m)
    assert re.fullmatch(r"pbh1:[0-9a-f]{32}", h)
    assert pbdiff.hash(data, schema=descs["sem3"], type="sem3.M") == h
    st, out, _ = run_cli("hash", "--no-config", "-s", descs["sem3"], "-t", "sem3.M", str(p))
    assert st == 0 and out == f"{h}  {p}\n"
    st, out, _ = run_cli("hash", "--no-config", "--sha256", "-s", descs["sem3"], "-t", "sem3.M",
                         str(p))
    assert out.split()[0] == pbdiff.hash(m, sha256=True)
    assert pbdiff.hash(m, sha256=True).startswith("pbs1:")


def test_hash_follows_meaning(M, descs):
    packed, unpacked = bytes([0x72, 0x02, 0x01, 0x02]), bytes([0x70, 0x01, 0x70, 0x02])
    kw = dict(schema=descs["sem3"], type="sem3.M")
    assert pbdiff.hash(packed, **kw) == pbdiff.hash(unpacked, **kw)
    assert pbdiff.hash(M(i32=1)) != pbdiff.hash(M(i32=2))
    unknown = M(i32=1).SerializeToString() + bytes([0xB8, 0x3E, 0x05])
    assert pbdiff.hash(unknown, **kw) != pbdiff.hash(M(i32=1))
    assert pbdiff.hash(unknown, ignore_unknown=True, **kw) == pbdiff.hash(M(i32=1),
                                                                          ignore_unknown=True)


def test_hash_equivalent(classes):
    M2 = classes["sem2.M"]
    assert pbdiff.hash(M2(req=1)) != pbdiff.hash(M2(req=1, i=0))
    assert pbdiff.hash(M2(req=1), equivalent=True) == pbdiff.hash(M2(req=1, i=0), equivalent=True)


def test_hash_delimited_and_schemaless(classes, tmp_path):
    Rec = classes["sem3.Rec"]
    recs = [Rec(name="a"), Rec(name="b", n=2)]
    stream = b"".join(bytes([r.ByteSize()]) + r.SerializeToString() for r in recs)
    got = pbdiff.hash(stream, schema=pbdiff.schema_of(Rec), type="sem3.Rec", delimited=True)
    assert got == [pbdiff.hash(r) for r in recs]
    p = tmp_path / "s.bin"
    p.write_bytes(stream)
    st, out, _ = run_cli("hash", "--no-config", "--delimited", str(p))
    assert [l.split()[0] for l in out.splitlines()] == pbdiff.hash(stream, delimited=True)


def test_cat_is_the_clis(M, descs, tmp_path):
    m = M(i32=5, str="x", ri=[1, 2])
    m.ms["b"] = 2
    m.ms["a"] = 1
    m.inner.a = 3
    p = tmp_path / "m.pb"
    p.write_bytes(m.SerializeToString())
    st, out, _ = run_cli("cat", "--no-config", "-s", descs["sem3"], "-t", "sem3.M", str(p))
    assert st == 0 and pbdiff.cat(m) == out
    assert 'key: "a"' in out and out.index('key: "a"') < out.index('key: "b"')
    st, out, _ = run_cli("cat", "--no-config", "--format", "json", "-s", descs["sem3"], "-t",
                         "sem3.M", str(p))
    assert pbdiff.cat(m, json=True) == out


def test_cat_delimited_and_schemaless(classes):
    Rec = classes["sem3.Rec"]
    recs = [Rec(name="a"), Rec(n=2)]
    stream = b"".join(bytes([r.ByteSize()]) + r.SerializeToString() for r in recs)
    text = pbdiff.cat(stream, schema=pbdiff.schema_of(Rec), type="sem3.Rec", delimited=True)
    assert text == '# message 0\nname: "a"\n# message 1\nn: 2\n'
    assert pbdiff.cat(Rec(n=2).SerializeToString()) == "2: 2\n"
    assert pbdiff.cat(b"") == ""


def test_cat_equal_meaning_equal_text(descs):
    kw = dict(schema=descs["sem3"], type="sem3.M")
    assert pbdiff.cat(bytes([0x72, 0x02, 0x01, 0x02]), **kw) == pbdiff.cat(
        bytes([0x70, 0x01, 0x70, 0x02]), **kw) == "ri: 1\nri: 2\n"
