"""Q-1: building a request for a window with 200 visible messages in a session of 100,000 raw
messages across 100 windows costs at most 2× the same build in a session of 1,000. Prints one JSON
line per figure, for both store backends.

    .venv/bin/python benchmarks/bench_projection.py [--repeats 30]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from _sessions import VISIBLE, WINDOWS, build_session, make_store, median_ms

from protocols import AgentConfig, FrozenView, resolve_ref
from protocols.store import SqliteStore

SIZES = (1_000, 100_000)
LIMIT = 2.0
PROTOCOL = "unified@3"
AGENT = AgentConfig(systemPrompt="You are a planner.\n\n{{context_protocol}}", inputs={"customer": "ACME"})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    protocol = resolve_ref(PROTOCOL)
    with tempfile.TemporaryDirectory() as tmp:
        for backend in ("memory", "sqlite"):
            times = {}
            for total in SIZES:
                store = make_store(backend, Path(tmp))
                run_id = build_session(store, total)
                frozen = FrozenView(revision=store.revision("bench"), upper_bound=store.max_index("bench"),
                                    run_id=run_id)
                request = protocol.project(store, "bench", frozen, AGENT)
                raw = sum(1 for s in request.sources if s.type == "raw")
                assert raw == VISIBLE, raw
                times[total] = median_ms(lambda s=store, f=frozen: protocol.project(s, "bench", f, AGENT),
                                         args.repeats)
                print(json.dumps({"figure": "project_ms", "protocol": PROTOCOL, "backend": backend,
                                  "sessionMessages": total, "windows": WINDOWS, "visibleMessages": VISIBLE,
                                  "medianMs": round(times[total], 3)}), flush=True)
                if isinstance(store, SqliteStore):
                    store.close()
            ratio = times[SIZES[1]] / times[SIZES[0]]
            print(json.dumps({"figure": "project_ratio", "protocol": PROTOCOL, "backend": backend,
                              "ratio": round(ratio, 3), "limit": LIMIT, "ok": ratio <= LIMIT}), flush=True)


if __name__ == "__main__":
    main()
