#!/usr/bin/env python3
"""Validate a speedscope file (argv[2]) against speedscope's JSON schema
(argv[1], from the npm package) and print its profiles as folded stacks:
`PROFILE frame;frame;... weight`, sorted, frames from the root as the
format orders them.  Also checks what the schema cannot: one weight per
sample, frame indices in range, endValue - startValue = the weights' sum."""
import collections
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2], encoding="utf-8"))
jsonschema.Draft7Validator.check_schema(schema)
jsonschema.Draft7Validator(schema).validate(doc)
frames = doc["shared"]["frames"]
out = collections.Counter()
for p in doc["profiles"]:
    if len(p["samples"]) != len(p["weights"]):
        sys.exit("%s: %d samples, %d weights" % (p["name"], len(p["samples"]),
                                                len(p["weights"])))
    if p["endValue"] - p["startValue"] != sum(p["weights"]):
        sys.exit("%s: endValue is not the weights' sum" % p["name"])
    for st, w in zip(p["samples"], p["weights"]):
        if any(not 0 <= i < len(frames) for i in st):
            sys.exit("%s: frame index out of range" % p["name"])
        out["%s %s" % (p["name"], ";".join(frames[i]["name"] for i in st))] += w
for k in sorted(out):
    print("%s %d" % (k, out[k]))
