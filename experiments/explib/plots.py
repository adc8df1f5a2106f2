"""Figures in the papers' style (matplotlib, Agg backend: no display).
matplotlib is imported by the first figure, not with the experiment: it
is a quarter of a script's start (its --help, its errors for bad input)."""
from __future__ import annotations

PAPER_STYLE = dict(color="0.55", hatch="//", edgecolor="0.3")


def _figure(size):
    """A new figure and its axes (matplotlib's Agg backend, imported here)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt.subplots(figsize=size)


def _finish(fig, ax, path, note):
    """The legend, the note (small, at the bottom) if any, and the figure
    saved to path and closed."""
    ax.legend(fontsize=8)
    if note:
        fig.text(0.01, 0.01, note, fontsize=6, color="0.3")
    fig.tight_layout(rect=(0, 0.04 if note else 0, 1, 1))
    fig.savefig(path, dpi=120)
    import matplotlib.pyplot as plt
    plt.close(fig)


def bar_label(v: float) -> str:
    """A bar's value as printed on it: two decimals below 10 (a ratio of 1.999
    must not read 2), one below 100, none above."""
    return f"{v:.2f}" if abs(v) < 10 else f"{v:.1f}" if abs(v) < 100 else f"{v:.0f}"


def bars(path: str, title: str, groups: list[str], series: list[tuple], ylabel: str, note: str | None = None,
         errors: dict | None = None) -> None:
    """Grouped bars, each labelled with its value (bar_label). groups: labels
    on the x axis; series: [(label, [values], style)]; errors: {series label:
    [[low, high] or None per group]}, drawn as error bars."""
    fig, ax = _figure((6.4, 3.8))
    n = len(series)
    width = 0.8 / max(1, n)
    for i, (label, vals, style) in enumerate(series):
        xs = [g + (i - (n - 1) / 2) * width for g in range(len(groups))]
        ax.bar(xs, [v if v is not None else 0 for v in vals], width, label=label, **(style or {}))
        for x, v, e in zip(xs, vals, (errors or {}).get(label) or [None] * len(vals)):
            if e and v is not None:
                ax.errorbar([x], [v], yerr=[[v - e[0]], [e[1] - v]], color="k", capsize=3, lw=1)
        for x, v in zip(xs, vals):
            if v is not None:
                ax.text(x, v, bar_label(v), ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    _finish(fig, ax, path, note)


def timeline(path: str, title: str, curves: list[tuple], ylabel: str, events: tuple = (), note: str | None = None,
             xlabel: str = "time (s)") -> None:
    """curves: [(label, [(t, v)], style)]; events: [(t, text)] drawn as verticals."""
    fig, ax = _figure((6.4, 3.8))
    for label, pts, style in curves:
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], label=label, **(style or {}))
    for t, text in events:
        ax.axvline(t, color="r", ls=":", lw=1)
        ax.text(t, ax.get_ylim()[1] * 0.97, " " + text, color="r", fontsize=7, va="top", rotation=90)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    _finish(fig, ax, path, note)


def runs(path: str, title: str, summary: dict) -> None:
    """Every run's ratio (valid: dots, invalid: crosses), their mean with its
    95 % interval (a band), and the paper's ratio (a dashed line)."""
    fig, ax = _figure((6.4, 3.2))
    table = summary.get("run_table") or []
    for r in table:
        v = r.get("ratio_measured")
        if isinstance(v, (int, float)):
            ax.plot([r["run"]], [v], "o" if r["valid"] else "x", color="C0" if r["valid"] else "C3",
                    label=None)
    n = len(table)
    if summary.get("ratio_mean") is not None:
        ax.axhline(summary["ratio_mean"], color="C0", lw=1, label=f'mean of {summary["runs_n"]:d} valid runs')
    if summary.get("ratio_ci95"):
        lo, hi = summary["ratio_ci95"]
        ax.axhspan(lo, hi, color="C0", alpha=0.15, label="95 % interval of the mean")
    if summary.get("ratio_paper"):
        ax.axhline(summary["ratio_paper"], color="0.4", ls="--", lw=1, label="paper")
    if any(not r["valid"] for r in table):
        ax.plot([], [], "x", color="C3", label="invalid run (raw/)")
    ax.set_xlim(0.5, max(1, n) + 0.5)
    ax.set_xticks(range(1, n + 1))
    ax.set_xlabel(f'run (seed {summary.get("seed")} + run - 1)')
    ax.set_ylabel("speed-up over the tree (x)")
    ax.set_ylim(bottom=0)
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    _finish(fig, ax, path, None)
