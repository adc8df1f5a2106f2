#!/usr/bin/python3
"""MDCube paper Fig. 7: all-to-all between two containers of the 2-D MDCube
(33x33 BCube_1 n=32), failed servers or switches drawn from the whole MDCube,
0-20 %. Routing: random jump (detour) with each container repairing its own
segment (detour-ft). Flows are sampled; the drop is relative to the
equally sampled no-failure point."""
import simlib as L

T = 1024
WORDS = ["mdcube", "n=32", "k=1", "m=33x33"]
SAMPLES = 500000
PAPER = {"abt_gbps_no_failure": 1584, "abt_gbps_2pct_server_failures": 1543, "drop_2pct_server_failures": 0.026,
         "server_failures_20pct": "about half of the no-failure ABT",
         "switch_failures": "worse than server failures (no numbers in the text)",
         "source": "Wu et al., MDCube, CoNEXT 2009, Sec. 6 Fig. 7"}


def main():
    out = L.results_dir("sim-mdcube-fig7")
    rows, meas = [], {"ratios": L.RATIOS, "sampled_flows": SAMPLES}
    for kind in ("server", "switch"):
        r, _, _ = L.run_sim(WORDS, "detour-ft", kind, L.RATIOS, 1,
                            extra=["--highspeed-gbps", "10", "--pattern", f"first:{2 * T}", "--sample-flows",
                                   str(SAMPLES)])
        est = [L.sampled_abt_ci(x) for x in r]  # already the whole pattern's ABT (docs/simulator.md)
        meas[f"abt_gbps_{kind}_failures"] = [L.r4(e[0]) for e in est]
        meas[f"abt_gbps_{kind}_failures_ci95"] = [[L.r4(e[1]), L.r4(e[2])] for e in est]
        meas[f"relative_to_no_failure_{kind}"] = [L.r4(e[0] / est[0][0]) for e in est]
        meas[f"path_failure_ratio_{kind}"] = [L.r4(x["path_failure_ratio"]) for x in r]
        rows += r
    L.write_csv(f"{out}/fig7.csv", rows)
    L.write_summary(out, "sim-mdcube-fig7", meas, PAPER, [1])
    plt = L.pyplot()
    fig, ax = plt.subplots(figsize=(5.2, 3.6))
    xs = [100 * r for r in L.RATIOS]
    ax.plot(xs, meas["abt_gbps_server_failures"], "o-", ms=4, label="server failure")
    ax.plot(xs, meas["abt_gbps_switch_failures"], "s-", ms=4, label="switch failure")
    ax.plot([0, 2], [1584, 1543], "kx", ms=8, label="paper (server)")
    ax.set_xlabel("Failure ratio (%)")
    ax.set_ylabel("ABT (Gb/s)")
    ax.set_ylim(0, 1800)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(f"{out}/fig7.png", dpi=120)
    L.log("done")


if __name__ == "__main__":
    main()
