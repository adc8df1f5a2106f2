"""DCN testbed orchestrator: builds any topology family exported by the
dcn-topo library on Mininet hosts and OVS (or Linux) bridges, starts one
dcn-agent per server, checks it, injects failures and cleans up after itself."""
