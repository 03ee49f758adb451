"""Fixtures of pbdiff's Python suite: the project's test schemas compiled
by protoc into descriptor sets, message classes made from them with
python3-protobuf, and this build's pbdiff binary for agreement tests.

Run by `make python-test` (part of make test) with PYTHONPATH at the built
module; PBDIFF and PBDIFF_ROOT name the binary and the source tree."""

import os
import subprocess

import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

ROOT = os.environ.get("PBDIFF_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
PBDIFF = os.environ.get("PBDIFF") or os.path.join(ROOT, "build", "pbdiff")

SCHEMAS = {  # name: (include dir, file)
    "demo": ("testdata/demo", "demo.proto"),
    "sem3": ("testdata/proto", "sem3.proto"),
    "sem2": ("testdata/proto", "sem2.proto"),
    "onnxtest": ("testdata/proto", "onnx_optional.proto"),
    "onnx": ("/usr/include", "onnx/onnx.proto"),  # the installed one (libonnx-dev)
}


@pytest.fixture(scope="session")
def root():
    return ROOT


@pytest.fixture(scope="session")
def pbdiff_bin():
    assert os.access(PBDIFF, os.X_OK), f"no pbdiff binary at {PBDIFF} (make first)"
    return PBDIFF


@pytest.fixture(scope="session")
def descs(tmp_path_factory):
    """name -> path of the descriptor set (protoc --include_imports -o)."""
    d = tmp_path_factory.mktemp("desc")
    out = {}
    for name, (inc, proto) in SCHEMAS.items():
        path = str(d / f"{name}.desc")
        subprocess.run(["protoc", "--include_imports", "-I", os.path.join(ROOT, inc),
                        "-I", "/usr/include", "-o", path, proto], check=True)
        out[name] = path
    return out


@pytest.fixture(scope="session")
def classes(descs):
    """Full type name -> generated message class, from the descriptor sets
    (in a pool of their own, as a program's generated code would be)."""
    pool = descriptor_pool.DescriptorPool()
    out = {}
    files = []
    for path in descs.values():
        fds = descriptor_pb2.FileDescriptorSet()
        with open(path, "rb") as f:
            fds.ParseFromString(f.read())
        for fp in fds.file:
            try:
                pool.FindFileByName(fp.name)
            except KeyError:
                pool.Add(fp)
                files.append(fp.name)
    factory = message_factory.MessageFactory(pool)
    for fname in files:
        for md in pool.FindFileByName(fname).message_types_by_name.values():
            out[md.full_name] = factory.GetPrototype(md)
    return out


def cli_env():
    """The environment of the pbdiff binary: without the sanitizer runtimes
    the ASan pass preloads into the interpreter (a clang binary has its own
    inside), and with leak checks on again."""
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    env.pop("ASAN_OPTIONS", None)
    return env


def run_cli(*args, input_bytes=None):
    p = subprocess.run([PBDIFF, *args], capture_output=True, input=input_bytes, env=cli_env())
    return p.returncode, p.stdout.decode("utf-8", "surrogateescape"), p.stderr.decode()
