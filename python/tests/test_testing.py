"""The pytest plugin (entry point pytest11) and the unittest mixin."""

import os
import subprocess
import sys
import unittest

import pytest

import pbdiff
from pbdiff.testing import ProtoAssertions

FAILING = '''
import onnx

def test_tensors():
    a = onnx.TensorProto(name="weights", dims=[2, 3], data_type=1)
    b = onnx.TensorProto(name="weights", dims=[2, 4], data_type=1)
    assert a == b

def test_not_messages():
    assert [1, 2] == [1, 3]
'''


def run_pytest(tmp_path, *args):
    (tmp_path / "test_fail.py").write_text(FAILING)
    env = dict(os.environ)
    p = subprocess.run([sys.executable, "-P", "-m", "pytest", "-p", "no:cacheprovider", *args,
                        str(tmp_path / "test_fail.py")],
                       capture_output=True, text=True, env=env, cwd=tmp_path)
    return p.returncode, p.stdout + p.stderr


def test_plugin_shows_pbdiffs_report(tmp_path):
    pytest.importorskip("onnx")
    rc, out = run_pytest(tmp_path)
    assert rc == 1, out
    assert "onnx.TensorProto messages differ (1 difference, pbdiff):" in out
    assert "dims[1]: 3 -> 4" in out
    assert "At index 1 diff: 3 != 3" not in out  # lists keep pytest's own explanation
    assert "At index 1 diff: 2 != 3" in out


def test_plugin_is_the_entry_point(tmp_path):
    pytest.importorskip("onnx")
    rc, out = run_pytest(tmp_path, "-p", "no:pbdiff")
    assert rc == 1 and "pbdiff):" not in out, out


class Cases(ProtoAssertions, unittest.TestCase):
    def runTest(self):
        pass


def test_unittest_mixin(classes):
    M = classes["sem3.M"]
    case = Cases()
    case.assertProtoEqual(M(i32=1), M(i32=1))
    case.assertProtoEqual(M(d=1.0), M(d=1.0001), float_margin=1e-3)
    case.assertProtoNotEqual(M(i32=1), M(i32=2))
    with pytest.raises(AssertionError) as e:
        case.assertProtoEqual(M(i32=1), M(i32=2))
    assert str(e.value) == "messages differ (1 difference):\ni32: 1 -> 2"
    with pytest.raises(AssertionError, match=r"(?s)^messages differ .*i32: 1 -> 2 : my note$"):
        case.assertProtoEqual(M(i32=1), M(i32=2), msg="my note")
    with pytest.raises(AssertionError, match="equal in meaning"):
        case.assertProtoNotEqual(M(i32=1), M(i32=1))


def test_assert_equal_shows_fifty_and_a_count(classes):
    M = classes["sem3.M"]
    a, b = M(ri=list(range(60))), M(ri=[x + 100 for x in range(60)])
    pbdiff.assert_equal(a, a)
    with pytest.raises(AssertionError) as e:
        pbdiff.assert_equal(a, b)
    lines = str(e.value).split("\n")
    assert lines[0] == "messages differ (60 differences):"
    assert lines[1] == "ri[0]: 0 -> 100"
    assert len(lines) == 1 + 50 + 1 and lines[-1] == "... and 10 more differences"
    with pytest.raises(AssertionError):
        pbdiff.assert_equal(M(d=1.0), M(d=1.1), float_margin=1e-3)
    pbdiff.assert_equal(M(d=1.0), M(d=1.1), float_margin=0.2)
