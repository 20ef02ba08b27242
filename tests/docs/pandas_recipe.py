#!/usr/bin/env python3
"""The pandas recipe of docs/cli/show.md, run as written on `ema show --samples` of the golden
database (issue 31, item 6): the block loads, and what it computes equals what ema stored.

Usage: pandas_recipe.py EMA GOLDEN_DB SHOW_MD WORKDIR"""
import io
import json
import math
import os
import shutil
import subprocess
import sys
from contextlib import redirect_stdout

ema, golden, show_md, work = (os.path.abspath(a) for a in sys.argv[1:5])
try:
    import pandas  # noqa: F401
except ImportError:
    sys.exit("python3-pandas is missing: scripts/install-deps.sh --test installs it")

shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
shutil.copy(golden, os.path.join(work, "g.db"))
os.chdir(work)


def show(*args):
    subprocess.run([ema, "show", *args, "--db", "g.db"], check=True)


# The recipe, exactly as the page has it.
text = open(show_md, encoding="utf-8").read()
section = text.index("## Into pandas")
start = text.index("```python\n", section) + len("```python\n")
recipe = text[start:text.index("\n```", start)]

# Experiment 1: search, every variant, no parameter swept.
show("1", "--samples", "samples.csv", "--json", "run.json")
scope = {}
with redirect_stdout(io.StringIO()):
    exec(compile(recipe, "docs/cli/show.md (the pandas recipe)", "exec"), scope)
df, medians, speedup = scope["df"], scope["medians"], scope["speedup"]

run = json.load(open("run.json", encoding="utf-8"))
samples = sum(len(m["samples"]) for p in run["points"] for m in p["metrics"].values())
no_sample = sum(1 for p in run["points"] if not any(m["samples"] for m in p["metrics"].values()))
assert len(df) == samples + no_sample, (len(df), samples, no_sample)
checked = 0
for p in run["points"]:
    total = p["metrics"].get("total")
    if p["status"] != "ok" or not total or not total["samples"]:
        continue
    got = medians.loc[(p["problem"], p["n"]), p["variant"]]
    assert math.isclose(got, total["median"], rel_tol=1e-12), (p["variant"], p["n"], got, total["median"])
    checked += 1
assert checked >= 10, checked
assert (speedup["seq"].dropna() == 1).all()

# Experiment 4 swept k: a column of its own, as numbers pandas can filter on.
show("4", "--samples", "k.csv")
k = pandas.read_csv("k.csv")
assert "k" in k.columns and sorted(k.k.unique()) == [0, 2, 4], sorted(k.k.unique())
assert "params" not in k.columns
print(f"pandas recipe: {len(df)} samples, {checked} medians equal to ema's; k swept as a column")
