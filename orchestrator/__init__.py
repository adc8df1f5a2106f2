"""DCN testbed orchestrator: builds any topology family exported by the
dcn-topo library on Mininet hosts and OVS (or Linux) bridges, starts one
dcn-agent per server, checks it, injects failures and cleans up after itself."""
import os as _os

# The experiment scripts import this package through the link
# experiments/orchestrator -> ../orchestrator (docs/contributing.md,
# "Python"); its modules are loaded from the real folder all the same, so
# that a path taken from a module's __file__ is the repository's.
__path__ = [_os.path.realpath(p) for p in __path__]
