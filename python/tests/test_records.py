"""pbdiff.hash_records: a corpus file's records as `pbdiff hash
--record-key KEY --framing F --format json` lists them (the map step of
scripts/pbdiff-dask.py)."""

import json
import os
import subprocess
import sys

import pytest

import pbdiff
from conftest import ROOT, run_cli


@pytest.fixture(scope="module")
def corpus_desc(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("corpus") / "corpus.desc")
    subprocess.run(["protoc", "--include_imports", "-I", os.path.join(ROOT, "testdata/proto"),
                    "-o", path, "corpus.proto"], check=True)
    return path


def write_corpus(path, *args):
    subprocess.run([sys.executable, os.path.join(ROOT, "tests/support/write_corpus.py"),
                    "--count", "40", *args, str(path)], check=True)


@pytest.mark.parametrize("framing", ["delimited", "tfrecord"])
def test_same_records_as_the_cli(tmp_path, corpus_desc, framing):
    p = tmp_path / "c.bin"
    write_corpus(p, "--framing", framing, "--style", "b", "--duplicate", "7")
    got = pbdiff.hash_records(p.read_bytes(), record_key="id", schema=corpus_desc,
                              type="corpus.Record", framing=framing)
    st, out, err = run_cli("hash", "--no-config", "--record-key", "id", "--format", "json",
                           "--framing", framing, "-s", corpus_desc, "-t", "corpus.Record", str(p))
    assert st == 0, err
    cli = [json.loads(l) for l in out.splitlines()]
    assert len(got) == len(cli) == 41
    assert got == [(r["key"], r["fingerprint"], r["offset"], r["size"]) for r in cli]
    data = p.read_bytes()
    key, fp, off, size = got[3]
    assert pbdiff.hash(data[off:off + size], schema=corpus_desc, type="corpus.Record") == fp


def test_one_record_per_file_and_errors(tmp_path, corpus_desc):
    p = tmp_path / "c.bin"
    write_corpus(p, "--framing", "delimited")
    recs = pbdiff.hash_records(p.read_bytes(), record_key="id", schema=corpus_desc,
                               type="corpus.Record", framing="delimited")
    _, fp, off, size = recs[0]
    one = p.read_bytes()[off:off + size]
    assert pbdiff.hash_records(one, record_key="id", schema=corpus_desc,
                               type="corpus.Record") == [(recs[0][0], fp, 0, size)]
    with pytest.raises(pbdiff.Error, match="no framing"):
        pbdiff.hash_records(one, record_key="id", schema=corpus_desc, type="corpus.Record",
                            framing="nope")
    with pytest.raises(pbdiff.Error) as e:
        pbdiff.hash_records(one, record_key="nope", schema=corpus_desc, type="corpus.Record")
    assert e.value.input is None
    with pytest.raises(pbdiff.Error) as e:
        pbdiff.hash_records(p.read_bytes()[:off + size - 1] + b"\x01\xff", record_key="id",
                            schema=corpus_desc, type="corpus.Record", framing="delimited")
    assert e.value.input == "input"
