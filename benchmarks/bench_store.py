"""Q-1 at store level: reading a 200-message window costs the same in a session of 1,000 messages
as in one of 100,000 across 100 windows. Prints one JSON line per figure.

    .venv/bin/python benchmarks/bench_store.py [--repeats 50]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from _sessions import TARGET, VISIBLE, WINDOWS, build_session, make_store, median_ms

from protocols.store import SqliteStore

SIZES = (1_000, 100_000)
LIMIT = 2.0  # at most 2× the small session's cost


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for backend in ("memory", "sqlite"):
            times = {}
            for total in SIZES:
                store = make_store(backend, Path(tmp))
                build_session(store, total)
                upper = store.max_index("bench")
                got = store.window_messages("bench", TARGET, 0, upper)
                assert len(got) == VISIBLE, len(got)
                times[total] = median_ms(lambda s=store, u=upper: s.window_messages("bench", TARGET, 0, u),
                                         args.repeats)
                print(json.dumps({"figure": "window_messages_ms", "backend": backend, "sessionMessages": total,
                                  "windows": WINDOWS, "windowMessages": VISIBLE,
                                  "medianMs": round(times[total], 3)}), flush=True)
                if isinstance(store, SqliteStore):
                    store.close()
            ratio = times[SIZES[1]] / times[SIZES[0]]
            print(json.dumps({"figure": "window_messages_ratio", "backend": backend, "ratio": round(ratio, 3),
                              "limit": LIMIT, "ok": ratio <= LIMIT}), flush=True)


if __name__ == "__main__":
    main()
