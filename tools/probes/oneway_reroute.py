#!/usr/bin/python3
"""How long a one-way fault on a sender's own cable holds its TCP data: a
BCube_1 n=4 testbed, --connections TCP connections h30 -> h33 (a one-hop
pair: the direct path through s0_3, or three hops through s1_0), and once
one of them runs through s1_0, what h30 sends into s1_0 is dropped with the
carrier up (one_way h30>s1_0) for --down seconds.

Every --period s it records, in h30: each connection's bytes acknowledged
and RTO (`ss -tin`) and its flow's path (`dcn-ctl flows`); at the end it
keeps the agents' logs (neighbour changes, with times). With --capture it
records what h30's ports and its dcn0 send (tcpdump, headers); with --maps
its agent's BPF maps "flows" and "neigh" 1.5 and 2.5 s into the fault
(bpftool, which `make deps` does not install). Prints one RESULT
line per run: for each connection that ran through s1_0 at the fault, when
its path left s1_0 and when its data moved again, seconds after the fault.

  sudo tools/probes/oneway_reroute.py --runs 3 --out /tmp/oneway
"""
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "experiments"))
from explib import Experiment, agentctl, soak, traffic  # noqa: E402
from orchestrator.agents import RUN_DIR  # noqa: E402

SRC, DST, SWITCH = "h30", "h33", "s1_0"


class Poller(threading.Thread):
    def __init__(self, tb, period):
        super().__init__(daemon=True)
        self.tb, self.period, self.rows, self.halt = tb, period, [], threading.Event()

    def run(self):
        while not self.halt.is_set():
            t = time.time()
            # nsenter, not tb.run_in: that saves the testbed's state, which the main thread also does
            r = subprocess.run(["nsenter", "-t", str(self.tb.hosts[SRC].pid), "-n", "ss", "-tinH", "dst",
                                self.tb.wiring.ip_of(DST)], stdout=subprocess.PIPE, text=True, timeout=5)
            rc, out = r.returncode, r.stdout
            acked = {}
            if rc == 0:
                for m in re.finditer(r":(\d+)\s+\S+:520\d.*?rto:(\d+).*?bytes_acked:(\d+)", out, re.S):
                    acked[int(m.group(1))] = (int(m.group(3)), int(m.group(2)))
            paths = {f["sport"]: " ".join(f.get("path") or []) for f in agentctl.flows(self.tb, SRC)
                     if f.get("proto") == 6 and f.get("dport", 0) >= 5201}
            # the ACKs' flows at the destination, by the data's source port
            back = {f["dport"]: " ".join(f.get("path") or []) for f in agentctl.flows(self.tb, DST)
                    if f.get("proto") == 6 and f.get("sport", 0) >= 5201}
            ctr = agentctl.counters(self.tb, SRC)
            acked["ctr"] = {k: ctr.get(k, 0) for k in ("tx_data_from_tun", "drop_tx_error", "drop_next_hop_down",
                                                        "drop_no_route", "rerouted_at_send", "sent_in_kernel")}
            self.rows.append((t, acked, paths, back))
            self.halt.wait(max(0.0, self.period - (time.time() - t)))


def dump_maps(agent_pid, age):
    """The source agent's BPF maps "flows" and "neigh" (found by the map
    ids in its file descriptors' fdinfo; dumped with bpftool), age s into
    the fault."""
    def bpftool(*args):
        r = subprocess.run(["bpftool", "-j"] + list(args), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        return json.loads(r.stdout or "null")
    out = {"age_s": round(age, 3)}
    ids = set()
    for fd in os.listdir("/proc/%d/fdinfo" % agent_pid):
        try:
            with open("/proc/%d/fdinfo/%s" % (agent_pid, fd)) as f:
                m = re.search(r"^map_id:\s*(\d+)", f.read(), re.M)
        except OSError:
            continue
        if m:
            ids.add(int(m.group(1)))
    for mid in sorted(ids):
        m = bpftool("map", "show", "id", str(mid)) or {}
        if m.get("name") in ("flows", "neigh"):
            out[m["name"]] = bpftool("map", "dump", "id", str(mid))
    return out


def one_run(ex, a, i):
    with ex.testbed("bcube n=4 k=1", "run%d" % i) as net:
        tb = net.tb
        poller = Poller(tb, a.period)
        poller.start()
        dumps = []
        if a.capture:   # what each of the source's ports and its TUN device send, headers only
            for ifn in ("%s-eth0" % SRC, "%s-eth1" % SRC, "dcn0"):
                dumps.append(subprocess.Popen(["nsenter", "-t", str(tb.hosts[SRC].pid), "-n", "tcpdump", "-i", ifn,
                                               "-Q", "out", "-s", "96", "-U", "-w", ex.path("run%d_%s.pcap" % (i, ifn))],
                                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        st = {"t_fault": None, "t_lift": None}
        flows = [traffic.Flow(SRC, DST, seconds=a.seconds, label="C%d" % j) for j in range(a.connections)]

        def tick(elapsed):
            if st["t_fault"] is None and elapsed >= a.lead:
                rows = poller.rows[-1:] or [(0, {}, {}, {})]
                if any(SWITCH in p for p in rows[-1][2].values()) or elapsed >= a.lead + 5:
                    soak.apply_failure(tb, "one_way", (SRC, SWITCH), True)
                    st["t_fault"] = time.time()
                    ex.log("  %.1f s: one_way %s>%s" % (elapsed, SRC, SWITCH))
            elif a.maps and st["t_fault"] and len(st.setdefault("maps", [])) < 2 and \
                    time.time() >= st["t_fault"] + 1.5 + len(st["maps"]):
                st["maps"].append(dump_maps(tb.agents[SRC].pid, time.time() - st["t_fault"]))
            elif st["t_fault"] and st["t_lift"] is None and time.time() >= st["t_fault"] + a.down:
                soak.apply_failure(tb, "one_way", (SRC, SWITCH), False)
                st["t_lift"] = time.time()
        traffic.run_flows(ex, tb, flows, timeout=a.seconds + 60, on_tick=tick)
        poller.halt.set()
        poller.join()
        for d in dumps:
            d.terminate()
            d.wait()
        counters = {n: {k: v for k, v in agentctl.counters(tb, n).items() if v}
                    for n in (SRC, DST, "h00", "h10", "h20", "h03")}
        ex.write_json("run%d_counters.json" % i, counters)
        for n in (SRC, DST, "h00", "h10", "h20"):
            for suffix in (".stderr", ".log"):
                p = os.path.join(RUN_DIR, "logs", n + suffix)
                if os.path.exists(p):
                    shutil.copy(p, ex.path("run%d_%s%s" % (i, n, suffix)))
    if st.get("maps"):
        ex.write_json("run%d_maps.json" % i, st["maps"])
    tf = st["t_fault"]
    rows = poller.rows
    ex.write_json("run%d_poll.json" % i, [{"t": round(t - tf, 3), "acked": acked, "paths": paths, "acks": back}
                                           for t, acked, paths, back in rows])
    at_fault = [r for r in rows if r[0] <= tf]
    on_switch = [sp for sp, p in (at_fault[-1][2] if at_fault else {}).items() if SWITCH in p]
    out = []
    for sp in on_switch:
        acked0 = next((r[1][sp][0] for r in reversed(at_fault) if sp in r[1]), None)
        left = next((round(t - tf, 3) for t, _, p, _ in rows if t > tf and SWITCH not in p.get(sp, SWITCH)), None)
        moved = next((round(t - tf, 3) for t, ac, _, _ in rows if t > tf and sp in ac and acked0 is not None
                      and ac[sp][0] > acked0 + 20000), None)
        rto = [ac[sp][1] for t, ac, _, _ in rows if t > tf and sp in ac][:1]
        out.append({"sport": sp, "path_left_switch_s": left, "data_moved_s": moved, "rto_ms_after": rto})
    return {"run": i, "connections_on_switch": out}


def run(ex):
    ex.add_argument("--connections", type=int, default=4)
    ex.add_argument("--seconds", type=float, default=16.0)
    ex.add_argument("--lead", type=float, default=4.0)
    ex.add_argument("--down", type=float, default=4.0)
    ex.add_argument("--period", type=float, default=0.05)
    ex.add_argument("--runs", type=int, default=1)
    ex.add_argument("--capture", action="store_true", help="tcpdump what the source sends on each port")
    ex.add_argument("--maps", action="store_true", help="the source agent's BPF maps 1.5 and 2.5 s into the fault "
                    "(bpftool)")
    ex.set_defaults(hello_ms=100)
    a = ex.parse()
    out = []
    for i in range(a.runs):
        r = one_run(ex, a, i)
        print("RESULT", json.dumps(r), flush=True)
        out.append(r)
    ex.write_json("oneway.json", out)
    return ex.finish(measured={"runs": out}, reasons=[])


if __name__ == "__main__":
    sys.exit(Experiment("oneway-reroute", __doc__, repeat=False).main(run))
