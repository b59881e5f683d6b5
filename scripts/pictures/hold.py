"""Makes the recording (argv[1], an asciicast v2 file) end on its last
screen, held for argv[2] seconds, for scripts/screenshots.

svg-term-cli makes an animation as long as the cast, with the last event at
its very end: a loop that restarts at once shows that last screen for no
time at all (the answer document was never seen). Here every pause is kept
to at most 2 seconds (what `asciinema rec --idle-time-limit 2` keeps), one
empty event is added `hold` seconds after the last one, and the header's
idle_time_limit is raised to `hold` so that the player keeps that pause.
"""

import json
import sys

path, hold = sys.argv[1], float(sys.argv[2])
PAUSE = 2.0

with open(path, encoding="utf-8") as f:
    header, *events = [json.loads(line) for line in f if line.strip()]

time, last, kept = 0.0, 0.0, []
for stamp, kind, data in events:
    time += min(stamp - last, PAUSE)
    last = stamp
    kept.append([round(time, 6), kind, data])
kept.append([round(time + hold, 6), "o", ""])
header["idle_time_limit"] = hold

with open(path, "w", encoding="utf-8") as f:
    f.write(json.dumps(header) + "\n")
    for event in kept:
        f.write(json.dumps(event, ensure_ascii=False) + "\n")
