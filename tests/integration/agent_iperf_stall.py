#!/usr/bin/python3
"""Reads an iperf3 --json client report (intervals of -i seconds) and prints
"<received_bytes> <longest_stall_s> <bytes_after_stall>": the longest run of
consecutive intervals that carried less than 1% of the median interval."""
import json
import statistics
import sys

rep = json.load(open(sys.argv[1]))
iv = [(i["sum"]["start"], i["sum"]["end"], i["sum"]["bytes"]) for i in rep.get("intervals", [])]
if not iv:
    print("0 0 0")
    sys.exit(0)
med = statistics.median(b for _, _, b in iv) or 1
longest, run, after, best_end = 0.0, 0.0, 0, 0
for start, end, b in iv:
    if b < 0.01 * med:
        run += end - start
        if run > longest:
            longest, best_end = run, end
    else:
        run = 0.0
after = sum(b for s, _, b in iv if s >= best_end) if longest else sum(b for _, _, b in iv)
recv = rep.get("end", {}).get("sum_received", {}).get("bytes", 0)
print(recv, round(longest, 2), after)
