"""Repeated runs (explib.repeat) and the TCP diagnostics (explib.tcpstats)
on made-up input (no root needed): the mean's 95 % interval is Student's,
invalid runs are counted and never averaged, the experiment is valid only
with the runs it wanted, and `ss -tin` lines are read field by field."""
import os

import pytest

from explib import repeat, tcpstats


def test_interval_is_students_t():
    iv = repeat.interval([1.0, 2.0, 3.0, 4.0, 5.0])
    assert iv["n"] == 5 and iv["mean"] == 3.0 and iv["median"] == 3.0
    assert iv["min"] == 1.0 and iv["max"] == 5.0
    # sd = sqrt(2.5); half-width = t(0.975, 4) * sd / sqrt(5) = 2.776 * 0.7071
    half = 2.776 * 2.5 ** 0.5 / 5 ** 0.5
    assert abs(iv["ci95"][0] - (3 - half)) < 1e-3 and abs(iv["ci95"][1] - (3 + half)) < 1e-3
    assert repeat.interval([2.0])["ci95"] is None
    assert repeat.interval([None, True, "x"])["n"] == 0   # bools and strings are no measurements
    with pytest.raises(ValueError):
        repeat.t95(0)


def test_nothing_measured_is_said_not_zero():
    # a round too short for the CPU sampler: its mean is None; the spread of
    # such rounds has no median, and the log says so instead of 0.00
    assert repeat.interval(x for x in (None, None))["median"] is None
    assert repeat.shown(None) == "not measured" and repeat.shown(0.256) == "0.26"


def run(ratio, valid=True, seed=1, measured=None):
    return {"experiment": "x", "valid": valid, "invalid_reasons": [] if valid else ["box CPU 95 % busy"],
            "ratio_measured": ratio, "ratio_paper": 2.89, "seed": seed, "duration_s": 10.0,
            "measured": measured or {"per_server_mbps": ratio * 2, "links": 32, "on_paths": True,
                                     "by_host": {"h00": ratio}},
            "baseline": {"tree_mbps": 2.0}, "runs": {"bcube": {}}, "cpu_busy_max": 0.5}


def test_combine_counts_invalid_runs_and_averages_only_valid_ones():
    runs = [run(3.0, seed=1), run(9.0, valid=False, seed=2), run(3.2, seed=3), run(2.8, seed=4)]
    s = repeat.combine(runs, wanted=3)
    assert s["valid"] and s["runs_n"] == 3 and s["runs_invalid"] == 1
    assert s["ratio_mean"] == 3.0 and s["ratio_min"] == 2.8 and s["ratio_max"] == 3.2
    lo, hi = s["ratio_ci95"]
    assert lo < 3.0 < hi and hi < 9.0
    assert s["measured"]["per_server_mbps"] == 6.0 and s["measured"]["on_paths"] is True
    assert s["measured"]["by_host"]["h00"] == 3.0
    assert s["measured_stats"]["by_host.h00"]["n"] == 3
    assert [r["valid"] for r in s["run_table"]] == [True, False, True, True]
    assert s["run_table"][1]["invalid_reasons"] == ["box CPU 95 % busy"]
    assert s["seeds"] == [1, 2, 3, 4] and "runs" not in s


def test_combine_is_invalid_without_the_runs_wanted():
    s = repeat.combine([run(3.0), run(3.1, valid=False)], wanted=2)
    assert not s["valid"] and s["invalid_reasons"] == ["1 of 2 runs valid, 2 wanted"]
    s = repeat.combine([run(3.0, valid=False)], wanted=1)
    assert not s["valid"] and s["ratio_mean"] is None and s["measured"] is None


def test_median_run_stands_for_the_valid_ones():
    runs = [run(1.0), run(5.0, valid=False), run(3.0), run(2.0)]
    assert repeat.median_run(runs) == 3   # median of 1, 3, 2 is 2: run index 3
    assert repeat.median_run([run(1.0, valid=False)]) == 0


SS = """ESTAB 0      73048  10.0.0.1:40222 10.0.0.14:5213
\t cubic wscale:9,9 rto:2356 backoff:1 rtt:785.118/12.5 ato:40 mss:8948 cwnd:10 ssthresh:7 bytes_acked:1 \
retrans:0/3 lost:1 unacked:2 rcv_rtt:10322.6 minrtt:0.12
LISTEN 0 5 10.0.0.1:5201 0.0.0.0:*
ESTAB 0 0 10.0.0.1:5201 10.0.0.3:51000
\t cubic rto:204 rtt:0.3/0.1 cwnd:10
"""


def test_parse_ss_reads_the_fields_not_their_lookalikes():
    c = tcpstats.parse_ss(SS)
    assert len(c) == 2
    assert c[0]["rto"] == 2356 and c[0]["rtt"] == 785.118 and c[0]["cwnd"] == 10 and c[0]["backoff"] == 1
    assert c[0]["retrans_total"] == 3 and c[0]["ssthresh"] == 7 and c[0]["unacked"] == 2
    assert c[0]["peer"] == "10.0.0.14:5213"
    assert c[1]["rtt"] == 0.3 and "backoff" not in c[1]


def test_retransmit_timer_is_read_as_ss_prints_it():
    # iproute2 prints seconds, a dot and milliseconds with "ms" after them
    assert tcpstats.ss_duration_s("8.932ms") == 8.932 and tcpstats.ss_duration_s("204ms") == 0.204
    assert tcpstats.ss_duration_s("12sec") == 12 and tcpstats.ss_duration_s("1min3sec") == 63
    assert tcpstats.ss_duration_s("soon") is None and tcpstats.ss_duration_s("") is None
    line = "ESTAB 0 0 10.0.0.11:50185 10.0.0.3:7700\n\t reno timer:(on,8.932ms,0) rto:8932 backoff:1\n"
    assert tcpstats.retransmit_timer_s(line) == 8.932
    assert tcpstats.retransmit_timer_s(line.replace("(on,", "(keepalive,")) is None
    assert tcpstats.retransmit_timer_s("") is None


def test_rto_is_taken_only_before_it_backs_off():
    # a sender after a retransmitted SYN (soak stall snapshot): its own 3 s RTO, no backoff yet
    fresh = ("ESTAB 0 320832 10.0.0.15:42439 10.0.0.12:7700 timer:(on,052ms,0) ts sack reno rto:3132 "
             "rtt:1044/522 mss:8912 bytes_acked:1 unacked:5 retrans:0/1 minrtt:1044")
    assert tcpstats.unbacked_rto_s(fresh) == 3.132
    assert tcpstats.unbacked_rto_s(fresh.replace("timer:(on,052ms,0) ", "")) == 3.132   # nothing in flight
    assert tcpstats.unbacked_rto_s(fresh.replace("(on,052ms,0)", "(on,608ms,3)")) is None   # fired 3 times
    assert tcpstats.unbacked_rto_s(fresh.replace("rto:3132", "rto:6264 backoff:1")) is None
    # an ACK cleared the backoff but not the RTO, kept until a new RTT sample (a soak stall after an outage)
    kept = "ESTAB 0 688944 10.0.0.2:56943 10.0.0.10:7700 timer:(on,11sec,0) ts sack reno rto:14480 rtt:28.408/2.384"
    assert tcpstats.unbacked_rto_s(kept) is None
    assert tcpstats.unbacked_rto_s(kept.replace("rto:14480", "rto:228")) == 0.228
    assert tcpstats.unbacked_rto_s("ESTAB timer:(on,2.9sec,0) rto:3000") == 3.0   # RFC 6298 5.7, no sample yet
    assert tcpstats.unbacked_rto_s("") is None


def test_counters_of_a_namespace_and_their_sum():
    own = tcpstats.read_counters(os.getpid())
    assert "RetransSegs" in own and "TCPTimeouts" in own
    before = {"h00": {"RetransSegs": 5, "OutSegs": 100, "TCPTimeouts": 1}}
    after = {"h00": {"RetransSegs": 15, "OutSegs": 1100, "TCPTimeouts": 4}}
    d = tcpstats.TcpCounters.diff(before, after)
    assert d["RetransSegs"] == 10 and d["TCPTimeouts"] == 3 and d["retrans_fraction"] == 0.01
