"""Refits every calibrated database of the real set after each growth step of every track (growth points only:
no fill, energy or settle point), one JSON line a series and step: the study behind growth's looks (docs/fitting.md,
"2026-12-01"). Usage: python3 growth_prefixes.py EMA OUT.jsonl ../databases/*.db.xz; then growth_prefixes_summary.py OUT.jsonl."""
# For each calibrated real-set DB: the verdict each series would have after its first k growth points.
import sqlite3, json, subprocess, sys, os, lzma, glob, shutil, re
EMA = sys.argv[1]; out = open(sys.argv[2], 'a'); files = sys.argv[3:]
R = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..') + '/'
classes = json.load(open(R + 'programs/ema_classes.json'))
def parse(t):
    m = re.fullmatch(r'([0-9.]+)\^n', t)
    if m: return ('exp', float(m[1]))
    if t == '1': return (0.0, 0.0)
    m = re.fullmatch(r'(n(\^([0-9.]+))?)?\s*(log(\^([0-9.]+))? n)?', t)
    n = (float(m[3]) if m[3] else 1.0) if m[1] else 0.0
    l = (float(m[6]) if m[6] else 1.0) if m[4] else 0.0
    return (n, l)
def right(theta, want):
    if want[0] == 'exp': return False
    return theta.get('exp') is None and theta.get('n', -1) == want[0] and theta.get('log', -1) == want[1]
for f in files:
    name = os.path.basename(f); os.makedirs('/tmp/growth_prefixes', exist_ok=True); base = '/tmp/growth_prefixes/' + name[:-3]
    open(base, 'wb').write(lzma.open(f).read())
    con = sqlite3.connect(base)
    tracks = {}  # (exp, problem, variant, params) -> growth ordinals in order
    for eid, pj in con.execute('select id, plan_json from experiments'):
        p = json.loads(pj)
        if 'calibration' not in p or not p['calibration']: continue
        for pt in sorted(p['points'], key=lambda x: x['ordinal']):
            if pt['phase'] != 'grow': continue
            key = (eid, pt['problem'], pt['variant'], json.dumps(pt['params'], sort_keys=True))
            tracks.setdefault(key, []).append(pt['ordinal'])
    con.close()
    if not tracks: continue
    K = max(len(v) for v in tracks.values())
    for k in range(5, K + 1):
        keep = set()
        for (eid, *_), ords in tracks.items():
            for o in ords[:k]: keep.add((eid, o))
        db = base + '.k'
        shutil.copy(base, db)
        c = sqlite3.connect(db)
        c.execute('PRAGMA foreign_keys=ON')
        rows = c.execute('select id, experiment_id, ordinal from points').fetchall()
        drop = [(i,) for i, e, o in rows if (e, o) not in keep]
        c.executemany('delete from samples where point_id=?', drop)
        c.executemany('delete from points where id=?', drop)
        c.commit(); c.close()
        for metric in ('total', 'kernel'):
            r = subprocess.run([EMA, 'fit', '--db', db, '--metric', metric, '--json'], capture_output=True, text=True)
            try: doc = json.loads(r.stdout)
            except Exception: continue
            for fit in doc.get('fits', []):
                if fit.get('skipped'): continue
                pr, va = fit.get('problem', ''), fit.get('variant', '')
                want = classes.get(pr + ' ' + va, classes.get(pr, '')) if (pr + ' ' + va) in classes else classes.get(pr, '')
                if not want: continue
                th = fit['best']['theta']
                grown = [len(v) for kk, v in tracks.items() if kk[1] == pr and kk[2] == va]
                out.write(json.dumps({'db': name, 'metric': metric, 'k': k, 'series': pr + ' ' + va + ' ' + json.dumps(fit.get('params', {}), sort_keys=True),
                    'complete': k >= max(grown) if grown else True, 'grown': grown, 'sizes': fit.get('sizes'), 'level': fit['verdict']['level'],
                    'theta': th.get('text'), 'want': want, 'right': right(th, parse(want))}) + '\n')
        out.flush()
    os.remove(base)
