#!/usr/bin/env python3
"""rss_sampler.py DIR STOPFILE OUT: every 20 ms, the total VmRSS of the
processes whose working directory is DIR or below it (a build's processes);
the largest total seen is written to OUT (bytes) once STOPFILE exists."""
import os
import sys
import time

root, stop, out = sys.argv[1], sys.argv[2], sys.argv[3]
largest = 0
while not os.path.exists(stop):
    total = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
            if cwd != root and not cwd.startswith(root + "/"):
                continue
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
        except OSError:
            continue
    largest = max(largest, total)
    time.sleep(0.02)
with open(out, "w") as f:
    f.write(f"{largest}\n")
