"""The throughput series the experiments reduce (explib.series) on made-up
link samples (no root needed): a period the link sampler could not time
(every direction None, LinkSampler.diff) is left out of a sum and of the
means taken over it, never counted as 0 Mb/s; one direction without a
counter counts as 0."""
from types import SimpleNamespace

from explib import series


def _net(samples):
    return SimpleNamespace(links=SimpleNamespace(names=["s0>h13", "s1>h13", "h13>s0"], samples=samples))


def test_untimed_periods_are_left_out_not_zero():
    net = _net([(10.0, [20.0, 19.0, 1.0]),
                (10.1, [None, None, None]),   # the read took too long: unknown
                (10.2, [21.0, 20.0, 1.0]),
                (10.3, [None, 18.0, 1.0])])   # one counter missing: 0 for it
    rx = series.rx_series(net, "h13", 10.0)
    assert [round(t, 1) for t, _ in rx] == [0.0, 0.2, 0.3]
    assert [v for _, v in rx] == [39.0, 41.0, 18.0]
    # the mean over the window is the links' rate, not lowered by the gap
    assert series.mean_between(rx, 0.0, 0.25) == 40.0


def test_a_window_of_untimed_periods_has_no_mean():
    net = _net([(0.0, [None, None, None]), (0.1, [None, None, None])])
    rx = series.rx_series(net, "h13", 0.0)
    assert rx == [] and series.mean_between(rx, 0.0, 1.0) is None
