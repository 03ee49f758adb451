"""Real ModelProto objects (python3-onnx) from libonnx-testdata."""

import glob

import pytest

import pbdiff

onnx = pytest.importorskip("onnx")

MODELS = sorted(glob.glob("/usr/share/libonnx-testdata/data/pytorch-converted/*/model.onnx"))


@pytest.fixture
def model():
    if not MODELS:
        pytest.skip("libonnx-testdata is not installed")
    return onnx.load(MODELS[0])


def test_model_equals_its_reload(model):
    again = onnx.ModelProto()
    again.ParseFromString(model.SerializeToString())
    assert pbdiff.compare(model, again)
    assert pbdiff.hash(model) == pbdiff.hash(again)


def test_every_model_equals_itself_as_bytes():
    for path in MODELS[:40]:
        with open(path, "rb") as f:
            data = f.read()
        m = onnx.load(path)
        assert pbdiff.compare(m, data), path


def test_float_tolerance_per_field_on_a_model(model):
    a = onnx.ModelProto()
    a.CopyFrom(model)
    t = a.graph.initializer.add(name="w", data_type=1, dims=[3], float_data=[1.0, 2.0, 3.0])
    b = onnx.ModelProto()
    b.CopyFrom(a)
    b.graph.initializer[-1].float_data[1] = 2.00001
    b.graph.doc_string = "changed"
    r = pbdiff.compare(a, b)
    idx = len(a.graph.initializer) - 1
    assert [d.path for d in r.differences] == [
        f"graph.initializer[{idx}].float_data[1]", "graph.doc_string"]
    r = pbdiff.compare(a, b, float_margin={"graph.initializer[*].float_data": 1e-4})
    assert [d.path for d in r.differences] == ["graph.doc_string"]
    assert pbdiff.compare(a, b, float_margin={"onnx.TensorProto.float_data": 1e-4},
                          ignore=["onnx.GraphProto.doc_string"])
    assert t.name == "w"


def test_nodes_by_key(model):
    a = onnx.ModelProto()
    a.CopyFrom(model)
    a.graph.node.add(name="x", op_type="Abs")
    a.graph.node.add(name="y", op_type="Neg")
    b = onnx.ModelProto()
    b.CopyFrom(a)
    n = len(b.graph.node)
    x, y = onnx.NodeProto(), onnx.NodeProto()
    x.CopyFrom(b.graph.node[n - 2])
    y.CopyFrom(b.graph.node[n - 1])
    b.graph.node[n - 2].CopyFrom(y)
    b.graph.node[n - 1].CopyFrom(x)
    assert not pbdiff.compare(a, b)
    assert pbdiff.compare(a, b, keys={"onnx.GraphProto.node": "name"})
    r = pbdiff.compare(a, b, keys={"onnx.GraphProto.node": "name"}, report_moves=True)
    assert {d.kind for d in r.differences} == {"moved"}


def test_assert_equal_on_models(model):
    b = onnx.ModelProto()
    b.CopyFrom(model)
    b.ir_version += 1
    pbdiff.assert_equal(model, model)
    with pytest.raises(AssertionError, match=r"ir_version: \d+ -> \d+"):
        pbdiff.assert_equal(model, b)


def test_tensor_views_raw_data_against_float_data():
    """The onnx.TensorProto preset: raw_data reads as the floats data_type
    says and equals float_data of the same values; bytes_as="none" turns
    it off, and bytes_as names a view of any bytes field."""
    numpy = pytest.importorskip("numpy")
    from onnx import numpy_helper
    values = numpy.array([1.0, 2.0, 3.0, 4.0], dtype=numpy.float32)
    raw = numpy_helper.from_array(values, "w")
    typed = onnx.TensorProto(name="w", data_type=1, dims=[4], float_data=list(values))
    assert raw.HasField("raw_data") and not typed.HasField("raw_data")
    assert pbdiff.compare(raw, typed)
    r = pbdiff.compare(raw, typed, bytes_as=["none"])
    assert not r and "raw_data" in [d.path for d in r.differences]
    changed = onnx.TensorProto()
    changed.CopyFrom(typed)
    changed.float_data[2] = 2.5
    r = pbdiff.compare(raw, changed)
    assert [(d.path, d.left, d.right) for d in r.differences] == [("raw_data[2]", 3.0, 2.5)]
    assert pbdiff.compare(raw, changed, float_margin={"onnx.TensorProto.raw_data": 0.6})
    with pytest.raises(pbdiff.Error, match="holds no floats"):
        pbdiff.compare(raw, changed, bytes_as=["none"],
                       float_margin={"onnx.TensorProto.raw_data": 0.6})
    # a view of one's own: raw_data as bytes of 0..255, the preset aside
    values[2] = 2.5
    raw2 = numpy_helper.from_array(values, "w")
    r = pbdiff.compare(raw, raw2, bytes_as=["onnx.TensorProto.raw_data=uint8"])
    assert [(d.path, d.left, d.right) for d in r.differences] == [("raw_data[10]", 64, 32)]
    with pytest.raises(pbdiff.Error, match="not a singular bytes field"):
        pbdiff.compare(raw, typed, bytes_as=["onnx.TensorProto.name=float"])
