"""The capacity table's sweep (experiments/capacity, sweep()) on made-up
measurements (no root needed): a point whose network does not come up is
recorded as not up, the faster rates of that switch and MTU are skipped,
and the table goes on with the next switch or MTU instead of ending the
run; the points that did come up keep their numbers. The choice takes the
papers' MTU 9000 before the switch kind, and the light patterns the
highest rate any switch kind passed."""
import importlib.machinery
import importlib.util
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "experiments", "capacity")
from explib import BringUpError  # noqa: E402


def load_capacity():
    loader = importlib.machinery.SourceFileLoader("capacity_script", SCRIPT)
    spec = importlib.util.spec_from_loader("capacity_script", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def row(sw, mtu, rate, share, failed=0):
    return {"switch": sw, "mtu": mtu, "link_mbps": rate, "failed": failed, "goodput_per_server_mbps": share * rate,
            "goodput_over_link": share, "cpu_busy_max": 0.5}


def test_a_point_not_up_is_recorded_and_the_sweep_goes_on():
    cap = load_capacity()
    asked = []

    def measure(sw, mtu, rate, label):
        asked.append(label)
        if sw == "ovs-afxdp" and mtu == 9000:
            raise BringUpError("%s: 4 agents not ready after 34 s" % label)
        return row(sw, mtu, rate, 0.6), 0.5

    points = [(sw, mtu, rate) for sw in ("ovs-afxdp", "lxbr") for mtu in (1500, 9000) for rate in (10.0, 20.0)]
    logged = []
    rows = cap.sweep(points, measure, logged.append)
    assert len(rows) == len(points)
    by = {(r["switch"], r["mtu"], r["link_mbps"]): r for r in rows}
    assert "4 agents not ready" in by[("ovs-afxdp", 9000, 10.0)]["not_up"]
    assert by[("ovs-afxdp", 9000, 20.0)] == {"switch": "ovs-afxdp", "mtu": 9000, "link_mbps": 20.0, "skipped": True}
    assert "ovs-afxdp_mtu9000_20M" not in asked
    for key in [("ovs-afxdp", 1500, 10.0), ("ovs-afxdp", 1500, 20.0), ("lxbr", 9000, 10.0), ("lxbr", 9000, 20.0)]:
        assert by[key]["goodput_over_link"] == 0.6
    assert any("did not come up" in m for m in logged)


def test_a_slow_point_skips_faster_rates_of_its_switch_and_mtu_only():
    cap = load_capacity()

    def measure(sw, mtu, rate, label):
        return row(sw, mtu, rate, 0.1 if mtu == 1500 else 0.6), 0.5

    rows = cap.sweep([("ovs", m, r) for m in (1500, 9000) for r in (10.0, 20.0)], measure, lambda m: None)
    assert [bool(r.get("skipped")) for r in rows] == [False, True, False, False]


def test_the_choice_takes_the_papers_mtu_before_the_switch_kind():
    cap = load_capacity()

    def r(sw, mtu, rate, share, cpu):
        return dict(row(sw, mtu, rate, share), cpu_busy_max=cpu)
    rows = [r("ovs-afxdp", 1500, 25.0, 0.58, 0.67),     # preferred kind, MTU 1500: passes
            r("lxbr", 9000, 25.0, 0.85, 0.64),          # the bridges at 9000: pass up to 50
            r("lxbr", 9000, 50.0, 0.79, 0.78),
            r("lxbr", 9000, 100.0, 0.81, 0.99),         # CPU over the headroom
            r("lxbr", 9000, 200.0, 0.40, 0.50)]         # under half the link
    c = cap.choose(rows)
    assert (c["switch"], c["mtu"], c["link_mbps"]) == ("lxbr", 9000, 50.0), c
    # without a passing point at 9000, MTU 1500's first kind of the preference
    c = cap.choose(rows[:1] + rows[3:])
    assert (c["switch"], c["mtu"], c["link_mbps"]) == ("ovs-afxdp", 1500, 25.0), c
    assert cap.choose(rows[3:]) is None


def test_the_light_patterns_get_the_highest_rate_any_kind_passed():
    cap = load_capacity()
    assert cap.pick_light({"ovs": 100.0, "lxbr": 400.0}) == ("lxbr", 400.0)
    assert cap.pick_light({"lxbr": 100.0, "ovs": 100.0}) == ("ovs", 100.0)   # a tie: the preference's first
    assert cap.pick_light({}) is None
