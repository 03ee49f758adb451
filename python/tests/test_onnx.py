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
