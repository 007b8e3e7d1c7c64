"""Q-5: DuckDB writes 10,000 ``llm_calls`` rows in under 1 s (batched). Prints one JSON line per figure.

    .venv/bin/python benchmarks/bench_duckdb_write.py [--rows 10000] [--repeats 5]

``write_s`` is ``MetricsWriter.write("llm_calls", rows)`` on a fresh metrics.duckdb file, rows
already built as ``LlmCallRow`` models (as the runner hands them over), commit included;
``build_rows_s`` is building those models, reported apart because it is not the write.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import tempfile
import time
from pathlib import Path

import duckdb

from harness.metrics import LlmCallRow, MetricsWriter

LIMIT_S = 1.0


def rows(n: int) -> list[LlmCallRow]:
    return [
        LlmCallRow(experiment_id="bench@1", trial_id=f"{'ABC'[i % 3]}/simple/{i // 30}", run_id=f"run-{i // 10}",
                   call_seq=i % 30, role="agent" if i % 7 else "maintainer", model="scripted/oracle",
                   input_tokens=1000 + i % 900, cached_input_tokens=i % 500, output_tokens=50 + i % 200,
                   usd=0.001 * (i % 13), latency_ms=200.0 + i % 50, retries=i % 3,
                   request_sha256=hashlib.sha256(str(i).encode()).hexdigest())
        for i in range(n)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    start = time.perf_counter()
    data = rows(args.rows)
    build_s = time.perf_counter() - start
    samples = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.repeats):
            path = Path(tmp) / f"metrics-{i}.duckdb"
            writer = MetricsWriter.open(path)  # schema migration is not the write: done before timing
            start = time.perf_counter()
            written = writer.write("llm_calls", data)
            writer.con.commit()
            samples.append(time.perf_counter() - start)
            writer.close()
            con = duckdb.connect(str(path), read_only=True)
            assert con.execute("SELECT count(*) FROM llm_calls").fetchone() == (args.rows,) == (written,)
            con.close()
    median = statistics.median(samples)
    print(json.dumps({"figure": "q5_llm_calls_write_s", "rows": args.rows, "medianS": round(median, 4),
                      "maxS": round(max(samples), 4), "limitS": LIMIT_S, "ok": median < LIMIT_S}), flush=True)
    print(json.dumps({"figure": "q5_build_rows_s", "rows": args.rows, "seconds": round(build_s, 4),
                      "note": "building the pydantic rows, not part of the write"}), flush=True)


if __name__ == "__main__":
    main()
