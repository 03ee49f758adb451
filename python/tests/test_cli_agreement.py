"""The module and the pbdiff binary agree on every case of
tests/cases/semantics.cases (the hand-made payloads of docs/semantics.md):
the same verdict and the same JSON report (paths, kinds, values) in both
directions, and the same pbh1 fingerprints."""

import json
import os

import pytest

import pbdiff
from conftest import ROOT, run_cli

OPTIONS = {"equivalent": "--equivalent", "ignore-unknown": "--ignore-unknown"}


def cases():
    out = []
    with open(os.path.join(ROOT, "tests/cases/semantics.cases")) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fields = line.split(" | ")
            type_name, options = fields[0], fields[1]
            opts = [] if options == "-" else options.split(",")
            if any(o not in OPTIONS for o in opts):
                continue  # float-bits: not an option of the module
            hexes = [bytes.fromhex(x.replace(" ", "")) if x != "-" else b"" for x in fields[2:4]]
            out.append(pytest.param(type_name, opts, hexes[0], hexes[1], id=f"line{n}"))
    return out


def without_names(report):
    r = json.loads(report)
    r.pop("left_name", None)
    r.pop("right_name", None)
    return r


@pytest.mark.parametrize("type_name,opts,left,right", cases())
def test_same_as_the_cli(descs, tmp_path, type_name, opts, left, right):
    schema_args, kw = [], {}
    if type_name != "-":
        desc = descs[type_name.split(".")[0]]
        schema_args = ["-s", desc, "-t", type_name]
        kw = dict(schema=desc, type=type_name)
    kw.update({o.replace("-", "_"): True for o in opts})
    flags = [OPTIONS[o] for o in opts]
    lp, rp = tmp_path / "left.pb", tmp_path / "right.pb"
    lp.write_bytes(left)
    rp.write_bytes(right)
    for a, b, pa, pb in ((left, right, lp, rp), (right, left, rp, lp)):
        r = pbdiff.compare(a, b, **kw)
        st, out, err = run_cli("--no-config", "--format", "json", *schema_args, *flags,
                               str(pa), str(pb))
        assert st == (0 if r.equal else 1), err
        assert without_names(r.to_json()) == without_names(out)
        assert [d.path for d in r.differences] == [d["path"] for d in json.loads(out)["differences"]]
    st, out, err = run_cli("hash", "--no-config", *schema_args, *flags, str(lp), str(rp))
    assert st == 0, err
    hash_kw = {k: v for k, v in kw.items()}
    assert [l.split()[0] for l in out.splitlines()] == [pbdiff.hash(left, **hash_kw),
                                                       pbdiff.hash(right, **hash_kw)]
