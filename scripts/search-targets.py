#!/usr/bin/env python3
"""Summarises a `search` run's JSON against the issue's targets: cuda kernel vs the probed read
ceiling, cuda vs thrust-find, cuda-multi vs cuda (kernel throughput), omp vs host read bandwidth.
Usage: scripts/search-targets.py RUN.json"""
import json
import sys

j = json.load(open(sys.argv[1]))
c = j["experiment"]["ceilings"]
by = {(p["variant"], p["n"]): p for p in j["points"] if p["status"] == "ok"}


def median(variant, n, metric):
    p = by.get((variant, n))
    return p["metrics"][metric]["median"] if p and metric in p["metrics"] else None


print("| n | cuda kernel | % of device read | thrust-find / cuda | cuda-multi / cuda | omp GB/s | % of host all-thread |")
print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for n in sorted({p["n"] for p in j["points"]}):
    k, t, m, o = median("cuda", n, "kernel"), median("thrust-find", n, "kernel"), median("cuda-multi", n, "kernel"), median("omp", n, "total")
    cells = [f"2^{n.bit_length() - 1}"]
    cells.append(f"{k * 1e6:.1f} us" if k else "-")
    cells.append(f"{400 * n / k / c['device_read_bw']['value']:.1f}%" if k and "value" in c["device_read_bw"] else "-")
    cells.append(f"{t / k:.1f}x" if k and t else "-")
    cells.append(f"{k / m:.2f}x" if k and m else "-")
    cells.append(f"{4 * n / o / 1e9:.1f}" if o else "-")
    cells.append(f"{400 * n / o / c['host_read_bw_all']['value']:.1f}%" if o else "-")
    print("| " + " | ".join(cells) + " |")
