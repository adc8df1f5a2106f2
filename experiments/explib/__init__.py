"""The experiment library shared by every script in experiments/.

An experiment script is short: it declares its options, brings up the
topology and its baseline with `Experiment.testbed`, drives traffic with
`traffic`, injects failures through the testbed, and ends with
`Experiment.finish`, which writes results/<experiment>/summary.json with the
fidelity verdict. Everything else lives here:

  experiment.py  options, lock, progress, results folder, summary and fidelity
  repeat.py      repeated runs: intervals over runs, the summary of them all
  samplers.py    the box's CPU, every link's byte counters, every switch
                 port's queue, sampled
  tcpstats.py    what TCP did in the servers: counters, ss snapshots, drops
  traffic.py     iperf3 flows (JSON) and dcn-relay transfers
  agentctl.py    dcn-ctl over the agents' control sockets, path timelines
  plots.py       matplotlib figures in the papers' style
  report.py      results/README.md from every summary.json
  soak.py        the soak (experiments/soak): traffic peers, failure
                 schedule, reachability oracle, crash and memory watch
  soakpeer.py    the soak's TCP sink and senders, run in each server
"""
import os
import sys

try:
    from .experiment import BringUpError, Experiment, ExperimentError  # noqa: F401
    from . import plots  # noqa: F401  (matplotlib: missing is one line too)
except ImportError as _e:
    from orchestrator.errors import missing_module
    print(missing_module("experiments/" + os.path.basename(sys.argv[0]), _e), file=sys.stderr)
    sys.exit(1)
