"""Reads growth_prefixes.py's lines: where a verdict was firm once, firm twice in a row, and the rates had growth
stopped at the second firm step. Usage: python3 growth_prefixes_summary.py OUT.jsonl [MIN_SIZES=6]."""
import json, sys, collections
rows = [json.loads(l) for l in open(sys.argv[1])]
MIN = int(sys.argv[2]) if len(sys.argv) > 2 else 6
by = collections.defaultdict(list)
for r in rows: by[(r['db'], r['metric'], r['series'])].append(r)
stats = collections.Counter(); wrong = []
for key, rs in by.items():
    rs.sort(key=lambda r: r['k'])
    final = rs[-1]  # the whole growth
    stats['series'] += 1
    stats['final_firm_right'] += final['level'] == 'firm' and final['right']
    stats['final_firm_wrong'] += final['level'] == 'firm' and not final['right']
    stop = None
    for r in rs:
        s = r['sizes'] or []
        if len(s) >= MIN and s[-1] / s[0] >= 8 and r['level'] == 'firm':
            stop = r; break
    if stop:
        stats['stopped'] += 1
        stats['stop_right'] += stop['right']
        stats['stop_wrong'] += not stop['right']
        stats['saved_steps'] += len(final['sizes']) - len(stop['sizes'])
        if not stop['right']: wrong.append((key[0], key[1], key[2][:40], stop['theta'], stop['want'], len(stop['sizes']), final['theta'], final['level']))
        # firm at the stop yet not at the end?
        stats['stop_firm_final_not'] += final['level'] != 'firm'
        stats['stop_right_final_wrong'] += stop['right'] and not final['right']
print(dict(stats))
for w in wrong: print(w)
# confirmation: firm at two consecutive prefixes, the same class
st = collections.Counter(); wr = []
for key, rs in by.items():
    rs.sort(key=lambda r: r['k'])
    prev = None
    for r in rs:
        s = r['sizes'] or []
        ok = len(s) >= MIN and s[-1] / s[0] >= 8 and r['level'] == 'firm'
        if ok and prev is not None and prev['theta'] == r['theta']:
            st['stopped'] += 1; st['right'] += r['right']; st['wrong'] += not r['right']
            if not r['right']: wr.append((key[0], key[1], key[2][:40], r['theta'], r['want'], len(s)))
            break
        prev = r if ok else None
print('confirmed', dict(st)); [print(w) for w in wr]
# combined: a confirmed stop keeps its verdict; else the verdict at the end of growth
c = collections.Counter()
for key, rs in by.items():
    rs.sort(key=lambda r: r['k']); prev = None; stop = None
    for r in rs:
        s = r['sizes'] or []
        ok = len(s) >= MIN and s[-1] / s[0] >= 8 and r['level'] == 'firm'
        if ok and prev is not None and prev['theta'] == r['theta']: stop = r; break
        prev = r if ok else None
    end = stop or rs[-1]
    c['series'] += 1; c['firm_right'] += end['level'] == 'firm' and end['right']; c['firm_wrong'] += end['level'] == 'firm' and not end['right']
    c['first_right'] += end['right']; c['first_right_growth_end'] += rs[-1]['right']
print('combined', dict(c))
