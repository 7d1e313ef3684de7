"""Counts a run's compiler processes: every few ms, the live (not zombie)
clang -cc1, lld and clang-offload-bundler processes whose environment holds
PHC_E2E_RUN=<tag>; prints "<most seen at once> <looks>" when sent SIGTERM.
Usage: compilers_sampler.py TAG"""
import os
import signal
import sys
import time

TAG = ("PHC_E2E_RUN=" + sys.argv[1]).encode()
stop = False


def done(*_):
    global stop
    stop = True


def is_compiler(pid):
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            if f.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                return False
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = f.read().split(b"\0")
        cc1 = len(argv) > 1 and argv[1] == b"-cc1"
        if not cc1 and not argv[0].endswith((b"/lld", b"ld.lld", b"clang-offload-bundler")):
            return False
        with open(f"/proc/{pid}/environ", "rb") as f:
            return TAG in f.read().split(b"\0")
    except (OSError, IndexError):
        return False


signal.signal(signal.SIGTERM, done)
most = looks = 0
while not stop:
    n = sum(1 for p in os.listdir("/proc") if p.isdigit() and is_compiler(p))
    most, looks = max(most, n), looks + 1
    time.sleep(0.005)
print(most, looks)
