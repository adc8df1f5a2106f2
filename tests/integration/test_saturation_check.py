"""The saturation check of the experiments (explib.Net.expect_saturated)
with the queue samples of a link direction (explib.samplers.QueueSampler),
on made-up samples (no root needed): a link under its rate passes only when
it sent at its rate through every period that began with a period's worth
of data queued, for long enough; a link that held data and did not send it
fails, as the emulator's shortfall."""

from explib.experiment import Net
from explib.samplers import QueueSampler

MBPS = 10.0
PERIOD = 0.5
FULL = int(MBPS * 1e6 / 8 * PERIOD)  # bytes a period carries at the link's rate


class Links:
    """A LinkSampler's interface: one direction's mean utilisation."""

    def __init__(self, util):
        self.util = util
        self.capacity = {"root>s1": MBPS}

    def utilisation(self, t0, t1):
        return {"root>s1": self.util}


def queues(periods):
    """periods: (bytes sent, bytes queued at the start) per period of 0.5 s."""
    q = QueueSampler({"root>s1": "s1-eth9"}, period=PERIOD)
    t = 100.0
    for sent, queued in periods:
        t += PERIOD
        q.samples.append((t, (PERIOD, {"s1-eth9": (sent, queued)})))
    return q


def check(util, periods):
    net = Net(None, "tree", None, None, Links(util), queues(periods))
    net.expect_saturated(["root>s1"], 100.0, 100.0 + PERIOD * len(periods) + 0.01)
    return net.saturation[0]


def test_a_full_link_passes_on_its_rate():
    c = check(0.99, [(FULL, 2 * FULL)] * 20)
    assert c["ok"] and "short_of_traffic" not in c


def test_a_link_short_of_traffic_passes_when_it_sent_at_its_rate_while_it_had_data():
    # 12 s backlogged at full rate, then 4 s with an empty queue at half the rate: 0.875 overall
    c = check(0.875, [(FULL, 3 * FULL)] * 24 + [(FULL // 2, 0)] * 8)
    assert c["ok"] and c["short_of_traffic"]
    assert c["busy_s"] == 12.0 and c["utilisation_when_busy"] == 1.0


def test_a_link_that_held_data_and_did_not_send_it_fails():
    # the queue held a period's worth and more, and the link sent 80 % of its rate: the emulator's shortfall
    c = check(0.8, [(int(0.8 * FULL), 3 * FULL)] * 24)
    assert not c["ok"] and c["utilisation_when_busy"] == 0.8


def test_too_little_backlogged_time_cannot_pass_a_link():
    # under its rate, backlogged for 4 s only (BUSY_CHECK_MIN_S is 5)
    c = check(0.6, [(FULL, 2 * FULL)] * 8 + [(FULL // 4, 0)] * 24)
    assert not c["ok"] and c["busy_s"] == 4.0


def test_a_queue_under_a_periods_worth_is_not_backlogged():
    # always some data queued, never a whole period's worth: no period can test the invariant
    c = check(0.7, [(int(0.7 * FULL), FULL - 1)] * 30)
    assert not c["ok"] and c["busy_s"] == 0 and c["utilisation_when_busy"] is None


def test_a_link_sample_read_over_a_stall_has_no_rate():
    # 10 MB in 1 s is 80 Mb/s; a read that took 0.5 s of that second (the
    # box stalled while it read) gives no rate rather than a made-up one
    from explib.samplers import LinkSampler
    assert LinkSampler.diff((100.0, [0], 0.001), (101.0, [10_000_000], 0.001)) == [80.0]
    assert LinkSampler.diff((100.0, [0], 0.001), (101.0, [10_000_000], 0.5)) == [None]
    assert LinkSampler.diff((100.0, [0], 0.5), (101.0, [10_000_000], 0.001)) == [None]
