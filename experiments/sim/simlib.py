"""Shared helpers for the dcn-sim figure scripts: run the simulator, read its
CSV, average over seeds, write results/sim-*/summary.json and plots.

Every script under experiments/sim/ reproduces one figure or table; it
writes only its own folder under results/. Paper values go only into the
"paper" object of summary.json (and labelled plot series)."""
import argparse
import csv
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("DCN_BUILD", os.path.join(ROOT, "build"))
SIM = os.path.join(BUILD, "agent", "src", "sim", "dcn-sim")
TOPO = os.path.join(BUILD, "agent", "src", "cli", "dcn-topo")
# The box is shared: the failure sweeps use these points (they include every
# ratio the papers quote a number for).
RATIOS = [0.0, 0.02, 0.06, 0.10, 0.14, 0.20]
# dcn-sim's --threads (its own default, 2, when unset); results do not depend
# on it (tested), so it is not part of the cache key.
THREADS = os.environ.get("DCN_SIM_THREADS")


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def git_commit():
    try:
        rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True, text=True,
                             check=True).stdout.strip()
        # Only code can move a result: results, docs and Markdown pages are left out.
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no", "--", ".",
                                ":(exclude)results", ":(exclude)docs", ":(exclude)*.md"],
                               capture_output=True, text=True, check=True).stdout.strip()
        return rev + ("-dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


START_COMMIT = None  # the commit the run started from (set on first use)


def results_dir(name):
    global START_COMMIT
    if START_COMMIT is None:
        START_COMMIT = git_commit()
    d = os.path.join(ROOT, "results", name)
    os.makedirs(d, exist_ok=True)
    return d


def run_sim(family_words, routing=None, fail="none", ratios=(0,), seeds=1, extra=(), levels=False, hist=False):
    """Runs dcn-sim under nice; returns (rows, level_rows, hist_rows) as lists of dicts."""
    if not os.access(SIM, os.X_OK):
        sys.exit(f"simlib: {SIM} not found; build Release first (make simulations)")
    tmp = os.path.join(BUILD, "sim-tmp")
    os.makedirs(tmp, exist_ok=True)
    lv = os.path.join(tmp, f"levels-{os.getpid()}.csv")
    hs = os.path.join(tmp, f"hist-{os.getpid()}.csv")
    cmd = ["nice", "-n", "19", SIM] + list(family_words)
    if routing:
        cmd += ["--routing", routing]
    cmd += ["--fail", fail, "--ratio", ",".join(f"{r:g}" for r in ratios), "--seeds", str(seeds),
            "--csv", "-", "--quiet"] + list(extra)
    threads = ["--threads", THREADS] if THREADS else []
    if levels:
        cmd += ["--levels-csv", lv]
    if hist:
        cmd += ["--hist-csv", hs]
    # A run already made by this very binary with these arguments is read
    # back from the build folder's cache (a script that was stopped resumes).
    words = [{lv: "LEVELS", hs: "HIST"}.get(w, w) for w in cmd[3:]]
    key = hashlib.sha1((" ".join(words) + f"|{os.stat(SIM).st_mtime_ns}").encode()).hexdigest()[:20]
    cache = os.path.join(BUILD, "sim-cache", key)
    if os.path.exists(os.path.join(cache, "done")):
        log("cached: " + " ".join(cmd[4:]))
        for src, dst in ((os.path.join(cache, "levels.csv"), lv), (os.path.join(cache, "hist.csv"), hs)):
            if os.path.exists(src):
                shutil.copy(src, dst)
        with open(os.path.join(cache, "out.csv")) as f:
            stdout = f.read()
    else:
        log(" ".join(cmd[4:]))
        out = subprocess.run(cmd + threads, capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"simlib: dcn-sim failed ({out.returncode}): {out.stderr.strip()}")
        stdout = out.stdout
        os.makedirs(cache, exist_ok=True)
        with open(os.path.join(cache, "out.csv"), "w") as f:
            f.write(stdout)
        for src, name in ((lv, "levels.csv"), (hs, "hist.csv")):
            if os.path.exists(src):
                shutil.copy(src, os.path.join(cache, name))
        open(os.path.join(cache, "done"), "w").close()
    rows = list(csv.DictReader(io.StringIO(stdout)))
    lrows = hrows = []
    if levels:
        with open(lv) as f:
            lrows = list(csv.DictReader(f))
        os.unlink(lv)
    if hist:
        with open(hs) as f:
            hrows = list(csv.DictReader(f))
        os.unlink(hs)
    return rows, lrows, hrows


def mean_by_ratio(rows, key):
    """{ratio: mean of key over seeds}, ratios in order."""
    acc = {}
    for r in rows:
        acc.setdefault(float(r["ratio"]), []).append(float(r[key]))
    return {k: sum(v) / len(v) for k, v in sorted(acc.items())}


def seeds_arg(default, doc):
    """The figure scripts' command line: --seeds N (failure draws averaged
    per point); returns N."""
    ap = argparse.ArgumentParser(description=doc.strip().split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=default, metavar="N",
                    help=f"seeds per failure ratio, 1..100 (default {default})")
    a = ap.parse_args()
    if not 1 <= a.seeds <= 100:
        ap.error(f"--seeds must be 1..100, not {a.seeds}")
    return a.seeds


def stats_by_ratio(rows, key, scale=1.0):
    """{ratio: {"mean", "sd", "min", "max", "n"}} of key over the seeds of each
    ratio (sd: sample standard deviation, 0 for one seed), ratios in order."""
    acc = {}
    for r in rows:
        acc.setdefault(float(r["ratio"]), []).append(scale * float(r[key]))
    out = {}
    for k, v in sorted(acc.items()):
        m = sum(v) / len(v)
        sd = (sum((x - m) ** 2 for x in v) / (len(v) - 1)) ** 0.5 if len(v) > 1 else 0.0
        out[k] = {"mean": m, "sd": sd, "min": min(v), "max": max(v), "n": len(v)}
    return out


def spread(stats):
    """The per-point lists of a stats_by_ratio result, rounded, for summary.json:
    {"mean": [...], "sd": [...], "min": [...], "max": [...]}."""
    return {f: [r4(p[f]) for p in stats.values()] for f in ("mean", "sd", "min", "max")}


def point_rows(stats, **labels):
    """CSV rows (one per ratio) of a stats_by_ratio result, with label columns."""
    return [dict(labels, ratio=f"{k:g}", seeds=p["n"], mean=r4(p["mean"]), sd=r4(p["sd"]), min=r4(p["min"]),
                 max=r4(p["max"])) for k, p in stats.items()]


def mmm(spread, i, scale=1.0, fmt="%.0f"):
    """'mean (min..max)' of point i of a spread() result, for headlines."""
    return (fmt + " (" + fmt + ".." + fmt + ")") % tuple(scale * spread[f][i] for f in ("mean", "min", "max"))


def errorbar(ax, stats, fmt, scale=1.0, **kw):
    """Mean with min..max error bars (one line per series)."""
    xs = [100 * k for k in stats]
    ys = [scale * p["mean"] for p in stats.values()]
    # max(0, ...): the mean of equal values can differ from them in the last bit
    lo = [max(0.0, scale * (p["mean"] - p["min"])) for p in stats.values()]
    hi = [max(0.0, scale * (p["max"] - p["mean"])) for p in stats.values()]
    return ax.errorbar(xs, ys, yerr=[lo, hi], fmt=fmt, ms=4, capsize=3, **kw)


def write_csv(path, rows, fields=None):
    if not rows:
        return
    fields = fields or list(rows[0].keys())
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow(r)


def write_summary(folder, experiment, measured, paper, seeds, extra=None):
    s = {"experiment": experiment, "git_commit": START_COMMIT or git_commit(), "seeds": list(seeds),
         "tool": "dcn-sim (agent/src/sim), routing from the dcntopo library",
         "measured": measured, "paper": paper}
    if extra:
        s.update(extra)
    with open(os.path.join(folder, "summary.json"), "w") as f:
        json.dump(s, f, indent=2, sort_keys=False)
        f.write("\n")
    log(f"wrote {os.path.relpath(os.path.join(folder, 'summary.json'), ROOT)}")


def pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams.update({"font.size": 10, "axes.grid": True, "grid.linestyle": ":", "legend.frameon": False})
    return plt


def label(ax, xlabel, ylabel, title=None, legend=8, **title_kw):
    """An axes' labels, its title (if any, with title_kw) and its legend in
    font size legend (None: no legend, the caller adds it after more
    series)."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title is not None:
        ax.set_title(title, **title_kw)
    if legend:
        ax.legend(fontsize=legend)


def save_figure(fig, path):
    """The figure, laid out, as a PNG at path (120 dpi)."""
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def failure_panels(curves, style, seeds):
    """The two panels of ABT against the failure ratio, (a) server and (b)
    switch failures: curves[kind][name] a stats_by_ratio() result of each
    structure, style[name] its (label, format). Without legends (the caller
    adds the paper's points first). Returns (fig, axes)."""
    fig, axes = pyplot().subplots(1, 2, figsize=(9, 3.6))
    for ax, kind, title in zip(axes, ("server", "switch"), ("(a) Server failure", "(b) Switch failure")):
        for name, st in curves[kind].items():
            errorbar(ax, st, style[name][1], label=style[name][0])
        label(ax, "Failure ratio (%)", "ABT (Gb/s)", f"{title}: mean of {seeds} seeds, bars min..max", legend=None,
              fontsize=9)
    return fig, axes


def r4(x):
    return round(float(x), 4)


def sampled_abt_ci(row, z=1.96):
    """ABT estimate from sampled flows and a 95 % interval from the binomial
    noise of the bottleneck link's count (docs/simulator.md: the maximum over
    many noisy counts is biased up, so the estimate leans low)."""
    c = float(row["bottleneck_link_flows"])
    routed = float(row["flows_routed"])
    if routed == 0 or c == 0:
        return 0.0, 0.0, 0.0
    cap_over_c = float(row["bottleneck_gbps"])
    cap = cap_over_c * c
    est = routed * cap / c
    half = z * c ** 0.5
    return est, routed * cap / (c + half), routed * cap / max(c - half, 1)
