#!/usr/bin/env python3
"""A test jobserver (after ninja's misc/jobserver_pool.py) that checks its tokens.

Creates a fifo holding N-1 tokens (distinct bytes), runs COMMAND with
MAKEFLAGS=-jN --jobserver-auth=fifo:PATH, and when COMMAND has ended reads the
fifo back: every byte it put in must be there again, exactly once.
--pipe uses an inherited pipe instead (--jobserver-auth=R,W, as make 4.3 does;
--nonblock makes its read end non-blocking, as make 4.3's is); --var puts the
flags in another variable (sccache passes CARGO_MAKEFLAGS).

  jobserver_pool.py [-j N] [--pipe [--nonblock]] [--var NAME] [--pidfile F] -- COMMAND...

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
    ap.add_argument("--pipe", action="store_true", help="an inherited pipe, not a fifo")
    ap.add_argument("--nonblock", action="store_true", help="non-blocking pipe read end")
    ap.add_argument("--var", default="MAKEFLAGS", help="the variable to set")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    cmd = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not cmd or args.j < 1:
        ap.error("need -j N >= 1 and a command")

    tokens = bytes(ord("a") + i for i in range(args.j - 1))
    with tempfile.TemporaryDirectory(prefix="phc-pool-") as d:
        env = dict(os.environ)
        env.pop("MAKEFLAGS", None)
        pass_fds = ()
        if args.pipe:
            r, w = os.pipe()
            os.set_inheritable(r, True)
            os.set_inheritable(w, True)
            if args.nonblock:
                os.set_blocking(r, False)
            os.write(w, tokens)
            env[args.var] = f"-j{args.j} --jobserver-auth={r},{w}"
            pass_fds = (r, w)
            keeper = None
        else:
            fifo = os.path.join(d, "fifo")
            os.mkfifo(fifo, 0o600)
            # Kept open read-write for the whole run: the fifo never sees EOF.
            keeper = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
            os.write(keeper, tokens)
            env[args.var] = f"-j{args.j} --jobserver-auth=fifo:{fifo}"
        proc = subprocess.Popen(cmd, env=env, pass_fds=pass_fds)
        if args.pidfile:
            with open(args.pidfile, "w") as f:
                f.write(f"{proc.pid}\n")
        rc = proc.wait()
        if keeper is None:
            keeper = r
            os.set_blocking(r, False)
            os.close(w)
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
