#!/usr/bin/env python3
"""Writes each (problem, variant, parameters, metric) series of an ema database as a CSV file for
tests/analysis/real/: a header comment naming where it was measured and its class, then n,value
with nine replicates a point (the deciles of its samples), as ema fit --csv reads it.

    export_series.py DB OUTDIR PREFIX "MACHINE AND RUN" [classes.json]

classes.json maps "problem variant" (or "problem") to a class (`n log n`, `n^2` ...); a series whose
class it does not give is written without one into OUTDIR/unclassified/, to be judged by hand."""
import json, os, sqlite3, statistics, sys, zlib

db, outdir, prefix, where = sys.argv[1:5]
classes = json.load(open(sys.argv[5])) if len(sys.argv) > 5 else {}
con = sqlite3.connect(db)
rows = con.execute("""SELECT p.problem, p.variant, p.params_json, p.n, s.metric, s.value
                      FROM points p JOIN samples s ON s.point_id = p.id
                      WHERE p.status = 'ok' AND s.metric IN ('total', 'kernel') ORDER BY p.id, s.rep""").fetchall()
series = {}
for problem, variant, params, n, metric, value in rows:
    series.setdefault((problem, variant, params, metric), {}).setdefault(n, []).append(value)
os.makedirs(os.path.join(outdir, "unclassified"), exist_ok=True)
for (problem, variant, params, metric), points in sorted(series.items()):
    if len(points) < 3:
        continue
    cls = classes.get(f"{problem} {variant}", classes.get(problem))
    tag = "" if params in ("{}", "") else "-" + format(zlib.crc32(params.encode()) % 65536, "04x")
    name = f"{prefix}-{problem}-{variant}{tag}-{metric}.csv"
    path = os.path.join(outdir if cls else os.path.join(outdir, "unclassified"), name)
    with open(path, "w") as f:
        f.write(f"# {problem} {variant} {params}, metric {metric}, measured {where}.\n")
        f.write(f"# Each point as nine replicates (its samples' deciles).{' The algorithm' + chr(39) + 's class: ' + cls + '.' if cls else ''}\n")
        f.write("n,value\n")
        for n in sorted(points):
            v = sorted(points[n])
            deciles = [v[0]] * 9 if len(v) == 1 else statistics.quantiles(v, n=10, method="inclusive")
            for d in deciles:
                f.write(f"{n},{d:.6g}\n")
