"""Repeated runs: the statistics of a figure over runs, and the summary of
an experiment from the summaries of its runs.

Every run of an experiment brings up the structure and then its baseline,
so N runs alternate them (S B S B ...) in one invocation, each with its own
seed. A run's summary stays in raw/run-NN/; the experiment's summary.json
holds, for every number the runs measured, its mean over the valid runs,
a 95 % confidence interval of that mean (Student's t), and the min-max.
Invalid runs are kept and counted, never averaged."""
from __future__ import annotations

import math
from collections.abc import Iterable

# two-sided 95 % quantiles of Student's t, by degrees of freedom (1..30);
# above 30 the normal's 1.96 is within 2 %
_T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
        2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
        2.045, 2.042]


def t95(df: int) -> float:
    if df < 1:
        raise ValueError("a confidence interval needs two values or more")
    return _T95[df - 1] if df <= len(_T95) else 1.96


def interval(values: Iterable[float | None], digits: int = 4) -> dict:
    """{"n", "mean", "ci95": [low, high], "min", "max", "median", "sd"} of
    the numbers in values (None skipped); ci95 is None below two values."""
    v = [float(x) for x in values if isinstance(x, (int, float)) and not isinstance(x, bool)]
    if not v:
        return {"n": 0, "mean": None, "ci95": None, "min": None, "max": None, "median": None, "sd": None}
    n = len(v)
    mean = sum(v) / n
    s = sorted(v)
    median = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
    sd = math.sqrt(sum((x - mean) ** 2 for x in v) / (n - 1)) if n > 1 else None
    ci = None
    if n > 1:
        half = t95(n - 1) * sd / math.sqrt(n)
        ci = [round(mean - half, digits), round(mean + half, digits)]

    def r(x):
        return None if x is None else round(x, digits)
    return {"n": n, "mean": r(mean), "ci95": ci, "min": r(s[0]), "max": r(s[-1]), "median": r(median), "sd": r(sd)}


def shown(v: float | None, fmt: str = "%.2f") -> str:
    """v for a log line; None (nothing measured, e.g. a window too short
    for the CPU sampler) is said, not printed as 0."""
    return "not measured" if v is None else fmt % v


def _numbers(obj, prefix=""):
    """{"a.b": number} of every number (not bool) in nested dicts."""
    out = {}
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.update(_numbers(v, f"{prefix}{k}."))
    elif isinstance(obj, (int, float)) and not isinstance(obj, bool):
        out[prefix[:-1]] = obj
    return out


def stats_of(dicts: Iterable[dict | None]) -> dict:
    """{"key.path": interval()} of every number found under the same key in
    the given dicts (runs' "measured" or "baseline")."""
    keys = []
    per = [_numbers(d or {}) for d in dicts]
    for p in per:
        keys += [k for k in p if k not in keys]
    return {k: interval([p.get(k) for p in per]) for k in keys}


def _mean_tree(dicts):
    """The first dict's structure with every number replaced by its mean
    over the dicts (what consumers of a single run's "measured" read)."""
    if not dicts:
        return None
    first = dicts[0]
    if isinstance(first, dict):
        return {k: _mean_tree([d.get(k) for d in dicts if isinstance(d, dict)]) for k in first}
    if isinstance(first, (int, float)) and not isinstance(first, bool):
        return interval(dicts)["mean"]
    return first


def combine(runs: list[dict], wanted: int) -> dict:
    """The experiment's summary from its runs' summaries (in run order):
    means and intervals over the valid ones, the invalid ones listed with
    their reasons. `wanted`: the valid runs asked for (--runs)."""
    valid = [r for r in runs if r["valid"]]
    table = [{"run": i + 1, "seed": r.get("seed"), "valid": r["valid"], "invalid_reasons": r["invalid_reasons"],
              "ratio_measured": r.get("ratio_measured"), "duration_s": r.get("duration_s"),
              "cpu_busy_max": r.get("cpu_busy_max"), "folder": f"raw/run-{i + 1:02d}"}
             for i, r in enumerate(runs)]
    ratio = interval([r.get("ratio_measured") for r in valid])
    base = dict(runs[-1])  # the settings, paper figures and labels are the same in every run
    for k in ("runs", "duration_s", "date_utc", "cpu_busy_max", "cpu_busy_max_incl_nice", "seed"):
        base.pop(k, None)
    reasons = []
    if len(valid) < wanted:
        reasons.append(f"{len(valid)} of {len(runs)} runs valid, {wanted:d} wanted")
    summary = dict(base)
    summary.update({
        "valid": not reasons,
        "invalid_reasons": reasons,
        "runs_n": len(valid),
        "runs_invalid": len(runs) - len(valid),
        "runs_wanted": wanted,
        "ratio_measured": ratio["mean"],
        "ratio_mean": ratio["mean"],
        "ratio_ci95": ratio["ci95"],
        "ratio_min": ratio["min"],
        "ratio_max": ratio["max"],
        "ratio_median": ratio["median"],
        "measured": _mean_tree([r.get("measured") for r in valid]) if valid else None,
        "measured_stats": stats_of([r.get("measured") for r in valid]),
        "baseline": _mean_tree([r.get("baseline") for r in valid]) if valid else None,
        "baseline_stats": stats_of([r.get("baseline") for r in valid]),
        "seeds": [r.get("seed") for r in runs],
        "cpu_busy_max": max([r.get("cpu_busy_max") or 0.0 for r in runs] or [0.0]),
        "run_table": table,
    })
    return summary


def median_run(runs: list[dict]) -> int:
    """The index of the valid run whose ratio is nearest the median of the
    valid ones (its plots stand for the experiment), or of the last run."""
    valid = [(i, r["ratio_measured"]) for i, r in enumerate(runs)
             if r["valid"] and isinstance(r.get("ratio_measured"), (int, float))]
    if not valid:
        return len(runs) - 1
    med = interval([v for _, v in valid])["median"]
    return min(valid, key=lambda iv: abs(iv[1] - med))[0]
