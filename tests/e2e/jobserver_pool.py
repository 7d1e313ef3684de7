#!/usr/bin/env python3
"""A test jobserver (after ninja's misc/jobserver_pool.py) that checks its tokens.

Creates a fifo holding N-1 tokens (distinct bytes), runs COMMAND with
MAKEFLAGS=-jN --jobserver-auth=fifo:PATH, and when COMMAND has ended reads the
fifo back: every byte it put in must be there again, exactly once.

  jobserver_pool.py [-j N] [--pidfile F] -- COMMAND...

Exit status: 99 when a token is missing or a foreign byte came back (with a
message on stderr); otherwise COMMAND's status (128+signal when it died of a
signal, with "jobserver_pool: command died of signal S" on stderr).
"""
import argparse
import os
import signal
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-j", type=int, default=4, help="job slots (N-1 tokens)")
    ap.add_argument("--pidfile", help="write COMMAND's pid here")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    cmd = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not cmd or args.j < 1:
        ap.error("need -j N >= 1 and a command")

    tokens = bytes(ord("a") + i for i in range(args.j - 1))
    with tempfile.TemporaryDirectory(prefix="phc-pool-") as d:
        fifo = os.path.join(d, "fifo")
        os.mkfifo(fifo, 0o600)
        # Kept open read-write for the whole run: the fifo never sees EOF.
        keeper = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
        os.write(keeper, tokens)
        env = dict(os.environ)
        env["MAKEFLAGS"] = f"-j{args.j} --jobserver-auth=fifo:{fifo}"
        proc = subprocess.Popen(cmd, env=env)
        if args.pidfile:
            with open(args.pidfile, "w") as f:
                f.write(f"{proc.pid}\n")
        rc = proc.wait()
        back = b""
        while True:
            try:
                chunk = os.read(keeper, 4096)
            except BlockingIOError:
                break
            if not chunk:
                break
            back += chunk
        os.close(keeper)

    if rc < 0:
        print(f"jobserver_pool: command died of signal {-rc}", file=sys.stderr)
        rc = 128 - rc
    if sorted(back) != sorted(tokens):
        missing = len(tokens) - len(back)
        print(f"jobserver_pool: error: {len(back)} of {len(tokens)} tokens came back"
              f" ({missing} missing; got {back!r}, gave {tokens!r})", file=sys.stderr)
        return 99
    print(f"jobserver_pool: all {len(tokens)} tokens back", file=sys.stderr)
    return rc


if __name__ == "__main__":
    sys.exit(main())
