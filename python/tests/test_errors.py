"""Errors are pbdiff.Error (or TypeError/ValueError for Python-side misuse)
with the library's message and where it happened."""

import pytest

import pbdiff


@pytest.fixture
def M(classes):
    return classes["sem3.M"]


def test_malformed_input_names_side_offset_and_path(M, descs):
    good = M(i32=1).SerializeToString()
    bad = M(i32=1).SerializeToString() + bytes([0x6A, 0x03, 0x08])  # inner: 3 bytes, 1 there
    with pytest.raises(pbdiff.Error) as e:
        pbdiff.compare(good, bad, schema=descs["sem3"], type="sem3.M")
    err = e.value
    assert err.input == "right" and err.code == "malformed input"
    assert isinstance(err.offset, int) and err.offset >= 2
    assert str(err).startswith("right: ") and f"at byte {err.offset}" in str(err)
    assert err.reason and err.reason in str(err)
    with pytest.raises(pbdiff.Error) as e:
        # inner (13) holds one byte, a varint cut short
        pbdiff.compare(bytes([0x6A, 0x01, 0x08]), good, schema=descs["sem3"], type="sem3.M")
    assert e.value.input == "left" and e.value.path == "inner" and e.value.offset == 3
    assert str(e.value).endswith("(in inner)")
    with pytest.raises(pbdiff.Error) as e:
        pbdiff.compare(M(), bytes([0x08]))  # a truncated varint against a message
    assert e.value.input == "right" and e.value.offset == 1


def test_errors_of_hash_and_cat(descs):
    for f in (pbdiff.hash, pbdiff.cat):
        with pytest.raises(pbdiff.Error) as e:
            f(bytes([0x08]), schema=descs["sem3"], type="sem3.M")
        assert e.value.input == "input" and e.value.offset == 1
    with pytest.raises(pbdiff.Error) as e:
        pbdiff.hash(bytes([0x02, 0x08, 0x01, 0x01, 0x08]), delimited=True)  # [1] is cut short
    assert e.value.path == "[1]"
    with pytest.raises(pbdiff.Error, match="runs past the end"):
        pbdiff.hash(bytes([0x02, 0x08, 0x01, 0x05, 0x08]), delimited=True)  # the framing is


def test_bad_schema_and_type(descs, tmp_path):
    with pytest.raises(pbdiff.Error, match="no message type sem3.Nope"):
        pbdiff.compare(b"", b"", schema=descs["sem3"], type="sem3.Nope")
    with pytest.raises(pbdiff.Error, match="needs a schema"):
        pbdiff.compare(b"", b"", type="sem3.M")
    with pytest.raises(pbdiff.Error, match="needs a message type"):
        pbdiff.compare(b"", b"", schema=descs["sem3"])
    with pytest.raises(pbdiff.Error) as e:
        pbdiff.Schema(b"\x0a\x05\x0a\x03")  # a FileDescriptorSet cut short
    assert e.value.code
    with pytest.raises(pbdiff.Error, match="cannot read"):
        pbdiff.compare(b"", b"", schema=str(tmp_path / "missing.desc"), type="x.Y")


def test_python_misuse(M, classes):
    with pytest.raises(TypeError):
        pbdiff.compare(M(), classes["sem3.Inner"]())
    with pytest.raises(TypeError):
        pbdiff.compare(M(), M(), type="sem3.Inner")
    with pytest.raises(TypeError):
        pbdiff.compare("text", b"")
    with pytest.raises(TypeError):
        pbdiff.compare(M(), M(), ignore=[1])
    with pytest.raises(TypeError):
        pbdiff.compare(M(), M(), unknown_option=True)
    with pytest.raises(ValueError):
        pbdiff.compare(M(), M(), float_fraction=-0.5)


def test_missing_required_is_unset_not_an_error(classes):
    M2 = classes["sem2.M"]
    assert not M2(i=1).IsInitialized()
    r = pbdiff.compare(M2(i=1), M2(i=1, req=0))
    assert [(d.path, d.kind) for d in r.differences] == [("req", "presence")]


def test_error_is_an_exception_class():
    assert issubclass(pbdiff.Error, Exception)
    assert pbdiff.Error.__module__ == "pbdiff"
