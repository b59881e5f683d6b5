#!/usr/bin/env python3
"""How fast `ask_user ask` gives up without a terminal (issue #3: under 100 ms).

Runs `ask_user ask INPUT` in a new session (no controlling terminal, as in CI
or under a daemon) and, as the baseline measured in the same run,
`ask_user prompt INPUT` (same start-up and parse, no terminal involved).
Runs are interleaved; medians and the ratio are printed.

Usage: bench/tty_no_tty.py [BINARY] [RUNS]
  BINARY defaults to the release build (cargo build --release first).
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_BIN = os.path.join(ROOT, "dist", "ask_user")  # scripts/build-release puts it there
INPUT = {"question": "Which database?", "options": ["PostgreSQL", "SQLite"]}


def timed(argv):
    start = time.perf_counter()
    done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True,
                          start_new_session=True)
    return time.perf_counter() - start, done


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_BIN
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(INPUT, f)
        path = f.name
    ask, prompt = [], []
    for _ in range(runs):
        t, done = timed([binary, "ask", path])
        document = json.loads(done.stdout)
        assert done.returncode == 1 and document["error"]["code"] == "NO_TTY", done
        assert done.stderr == b"", done.stderr
        ask.append(t)
        t, done = timed([binary, "prompt", path])
        assert done.returncode == 0, done
        prompt.append(t)
    os.unlink(path)
    ms = lambda xs: statistics.median(xs) * 1000
    p90 = lambda xs: sorted(xs)[int(len(xs) * 0.9)] * 1000
    print(f"binary: {binary}, runs: {runs} each, interleaved")
    print(f"ask (no tty, NO_TTY)   median {ms(ask):7.2f} ms  p90 {p90(ask):7.2f} ms  max {max(ask)*1000:7.2f} ms")
    print(f"prompt (baseline)      median {ms(prompt):7.2f} ms  p90 {p90(prompt):7.2f} ms")
    print(f"ratio ask/prompt       {ms(ask) / ms(prompt):.2f}")
    verdict = "OK" if ms(ask) < 100 else "TOO SLOW"
    print(f"target: median under 100 ms -> {verdict}")
    return 0 if verdict == "OK" else 1


if __name__ == "__main__":
    sys.exit(main())
