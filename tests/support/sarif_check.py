"""Checks a SARIF log pbdiff wrote (--format sarif) against what SARIF 2.1.0
requires of the parts pbdiff writes (the OASIS standard's sections 3.13 log,
3.14 run, 3.18-3.19 tool and driver, 3.49 rules, 3.27 result, 3.28 location),
then prints one line per result: RULE URI PATH FINGERPRINT MESSAGE.

    /usr/bin/python3 tests/support/sarif_check.py < log.sarif
"""
import json
import re
import sys


def fail(why):
    print(f"sarif_check: {why}")
    sys.exit(1)


def need(cond, why):
    if not cond:
        fail(why)


log = json.load(sys.stdin)
need(log.get("version") == "2.1.0", "version is not 2.1.0")
need(isinstance(log.get("$schema"), str) and "sarif-2.1.0" in log["$schema"], "no 2.1.0 $schema")
runs = log.get("runs")
need(isinstance(runs, list) and len(runs) == 1, "not one run")
driver = runs[0].get("tool", {}).get("driver", {})
need(driver.get("name") == "pbdiff", "the driver is not pbdiff")
rules = driver.get("rules")
need(isinstance(rules, list) and rules, "no rules")
ids = [r.get("id") for r in rules]
need(len(set(ids)) == len(ids), "rule ids repeat")
for r in rules:
    need(isinstance(r.get("shortDescription", {}).get("text"), str), f"rule {r.get('id')}: no text")
results = runs[0].get("results")
need(isinstance(results, list), "no results array")
for res in results:
    rid, idx = res.get("ruleId"), res.get("ruleIndex")
    need(rid in ids and ids.index(rid) == idx, f"result's rule {rid}/{idx} is not the driver's")
    need(res.get("level") in ("none", "note", "warning", "error"), "bad level")
    text = res.get("message", {}).get("text")
    need(isinstance(text, str) and text, "a result without message text")
    locs = res.get("locations")
    need(isinstance(locs, list) and len(locs) == 1, "not one location")
    uri = locs[0].get("physicalLocation", {}).get("artifactLocation", {}).get("uri")
    need(isinstance(uri, str) and re.fullmatch(r"[A-Za-z0-9\-._~/%]*", uri) is not None,
         f"uri {uri!r} is not a percent-encoded reference")
    logical = locs[0].get("logicalLocations", [{}])
    path = logical[0].get("fullyQualifiedName", "-")
    fp = res.get("partialFingerprints", {}).get("pbdiff/v1")
    need(isinstance(fp, str) and re.fullmatch(r"[0-9a-f]{16}", fp) is not None, "no fingerprint")
    print(rid, uri, path, fp, text)
omitted = runs[0].get("properties", {}).get("omitted")
if omitted:
    print(f"omitted {omitted}")
