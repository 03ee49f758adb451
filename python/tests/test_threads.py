"""The GIL is released while comparing, and the module may be used from
many threads at once."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pbdiff


def test_gil_is_released_while_comparing():
    # a million-element repeated field (schemaless), changed at the end: the
    # library spends a while on it
    a = bytes([0x08, 0x01]) * 1_000_000
    b = a[:-1] + bytes([0x02])
    done = threading.Event()
    result = []

    def work():
        result.append(pbdiff.compare(a, b))
        done.set()

    spins = 0
    t = threading.Thread(target=work)
    started = time.monotonic()
    t.start()
    while not done.is_set():
        spins += 1
    t.join()
    elapsed = time.monotonic() - started
    assert [d.path for d in result[0].differences] == ["1[999999]"]
    # With the GIL held for the whole comparison this loop would hardly run
    # (the switch interval is 5 ms); released, it spins all along.
    assert elapsed > 0.02 and spins > 10_000, (elapsed, spins)


def test_many_threads_agree_with_one(classes):
    M = classes["sem3.M"]
    pairs = []
    for i in range(64):
        a, b = M(i32=i, str="x" * (i % 7)), M(i32=i + (i % 3), str="x" * (i % 5))
        b.ms["k"] = i % 2
        pairs.append((a, b))
    expected = [[(d.path, d.kind, d.left, d.right) for d in pbdiff.compare(a, b).differences]
                for a, b in pairs]
    hashes = [pbdiff.hash(a) for a, _ in pairs]

    def one(i):
        a, b = pairs[i]
        r = pbdiff.compare(a, b)
        return ([(d.path, d.kind, d.left, d.right) for d in r.differences], pbdiff.hash(a),
                str(r) == str(pbdiff.compare(a, b)))

    with ThreadPoolExecutor(8) as pool:
        for _ in range(3):
            got = list(pool.map(one, range(len(pairs))))
            assert [g[0] for g in got] == expected
            assert [g[1] for g in got] == hashes
            assert all(g[2] for g in got)


def test_schema_cache_under_threads(classes):
    Inner = classes["sem3.Inner"]
    with ThreadPoolExecutor(8) as pool:
        schemas = list(pool.map(lambda _: pbdiff.schema_of(Inner), range(32)))
    assert all(s is schemas[0] for s in schemas)


def test_results_schemas_and_errors_pickle(classes):
    """What Dask workers send back and forth: results, differences, errors
    and schemas survive pickling (a schema is loaded again from its bytes)."""
    import pickle
    M = classes["sem3.M"]
    r = pbdiff.compare(M(i32=1, str="a"), M(i32=2))
    r2 = pickle.loads(pickle.dumps(r))
    assert r2.equal is False and r2.differences == r.differences
    assert str(r2) == str(r) and r2.to_json() == r.to_json()
    s = pickle.loads(pickle.dumps(pbdiff.schema_of(M)))
    assert s.has_type("sem3.M") and s.name == "sem3.proto"
    assert pbdiff.compare(M(i32=1).SerializeToString(), M(i32=1).SerializeToString(),
                          schema=s, type="sem3.M")
    try:
        pbdiff.compare(M(), bytes([0x08]))
    except pbdiff.Error as e:
        e2 = pickle.loads(pickle.dumps(e))
        assert (str(e2), e2.input, e2.offset, e2.code) == (str(e), "right", 1, e.code)
    else:
        raise AssertionError("no error")
