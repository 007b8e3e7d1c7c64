#!/usr/bin/env bash
# The local placement probe end to end, for docs/results/local-placement-probe.md: start llama-server
# (scripts/llama_server.sh: fetched and built once, 4–15 min measured on 2 cores the first time) with
# N slots, run plans/local-placement-probe/experiment-plan.json against it with --concurrency N, stop
# the server, and print the numbers the write-up cites (pass rates, Wilson intervals, Boschloo's and
# Fisher's p per comparison, failure modes, wall time, model and server versions, the machine's load
# average right before and after `harness run`) as Markdown, also saved to OUT/numbers.md. Run it on a quiet
# machine: the wall time is part of the result.
#
# It prints a line at least every 30 s from start to end: the install's and the download's and
# build's heartbeats (scripts/_heartbeat.sh), a line while the server loads, then `harness run`'s
# progress lines.
#
# usage: scripts/local_probe.sh [--model qwen|smollm2] [--parallel N] [--port P] [--out DIR] [--repeats R]
#                              [--no-prefill-assistant] [--max-wall-seconds S]
#   --parallel  server slots and harness --concurrency (default 2: one per core on a 2-core machine)
#   --port      port on 127.0.0.1 for the server (default 8090)
#   --out       output folder (default reports/local-placement-probe/<UTC time>); the run is OUT/run,
#               the server's log OUT/llama-server.log
#   --repeats   a smoke run: a copy of the plan with R repeats per group (its numbers are not the probe's)
#   --no-prefill-assistant  start the server with it: A's trailing state message is a finished message and a
#               new assistant turn opens (server default: a prefill); the numbers name the treatment the
#               harness read from the server (report.json preflight)
#   --max-wall-seconds  replace the plan's 900 s wall-time cap (harness run --max-wall-seconds; the report
#               names it as a command-line cap): a busy machine reads each group's first prompt slowly
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
MODEL=qwen
PARALLEL=2
PORT=8090
OUT=""
REPEATS=""
SERVER_FLAGS=()
RUN_FLAGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --model) MODEL=$2; shift 2 ;;
    --parallel) PARALLEL=$2; shift 2 ;;
    --port) PORT=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --repeats) REPEATS=$2; shift 2 ;;
    --no-prefill-assistant) SERVER_FLAGS+=(--no-prefill-assistant); shift ;;
    --max-wall-seconds) RUN_FLAGS+=(--max-wall-seconds "$2"); shift 2 ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
    *) echo "local_probe.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
say() { echo "local_probe.sh: $*" >&2; }

source scripts/bootstrap.sh
PY=.venv/bin/python
OUT=${OUT:-reports/local-placement-probe/$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$OUT"
PLAN=plans/local-placement-probe/experiment-plan.json
if [ -n "$REPEATS" ]; then
  "$PY" - "$PLAN" "$OUT/smoke-plan.json" "$REPEATS" <<'EOF'
import json, sys
plan = json.load(open(sys.argv[1], encoding="utf-8"))
plan["id"] += "-smoke"
for stage in plan["stages"]:
    stage["repeats"] = int(sys.argv[3])
json.dump(plan, open(sys.argv[2], "w", encoding="utf-8"), ensure_ascii=False, indent=2)
EOF
  PLAN="$OUT/smoke-plan.json"
  say "SMOKE RUN: $REPEATS repeats per group (not the probe's numbers)"
fi

say "preparing llama-server (the first time: fetch ~500 MB and build it, 4–15 min measured on 2 cores)"
scripts/llama_server.sh --model "$MODEL" --port "$PORT" --parallel "$PARALLEL" --prepare-only --no-hints >/dev/null
say "starting llama-server on 127.0.0.1:$PORT with $PARALLEL slots (log: $OUT/llama-server.log)"
scripts/llama_server.sh --model "$MODEL" --port "$PORT" --parallel "$PARALLEL" ${SERVER_FLAGS[@]+"${SERVER_FLAGS[@]}"} \
  > "$OUT/llama-server.log" 2>&1 &
SERVER_PID=$!
trap 'kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true' EXIT
API_BASE="http://127.0.0.1:$PORT/v1"
# Prepared above, the server only loads the model: seconds (a line every 20 s should it take longer).
WAITED=$SECONDS
LAST=$SECONDS
until "$PY" -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)" "http://127.0.0.1:$PORT/health" 2>/dev/null; do
  kill -0 "$SERVER_PID" 2>/dev/null || { say "llama-server exited; see $OUT/llama-server.log"; tail -5 "$OUT/llama-server.log" >&2; exit 1; }
  if [ $(( SECONDS - LAST )) -ge 20 ]; then
    LAST=$SECONDS
    say "waiting for llama-server to load the model: $(( SECONDS - WAITED )) s"
  fi
  sleep 2
done
say "server ready; running $PLAN (progress lines every 30 s)"

# The machine's load right before the run (not before the download and build, which load it).
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
STARTED=$SECONDS
set +e
.venv/bin/harness run "$PLAN" --model "openai/$MODEL" --api-base "$API_BASE" --concurrency "$PARALLEL" \
  --out "$OUT/run" ${RUN_FLAGS[@]+"${RUN_FLAGS[@]}"} | tee "$OUT/harness-run.log"
STATUS=${PIPESTATUS[0]}
set -e
WALL=$(( SECONDS - STARTED ))
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
if [ "$STATUS" != 0 ] && [ "$STATUS" != 3 ]; then
  say "harness run exited $STATUS"; exit "$STATUS"
fi

BIN=$(ls "${PLACEMENT_HARNESS_CACHE:-$HOME/.cache/placement-harness}"/bin/llama-server-* | head -1)
"$PY" scripts/probe_numbers.py "$OUT/run" --wall-seconds "$WALL" --exit-code "$STATUS" \
  --server-version "$("$BIN" --version 2>&1 | tr '\n' ' ')" --server-command "$(grep -m1 'llama_server.sh: exec: ' "$OUT/llama-server.log" | sed 's/.*exec: //')" \
  --model-file "$(grep -m1 'llama_server.sh: model ' "$OUT/llama-server.log" | sed 's/.*model //')" \
  --machine "$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load average right before \`harness run\` $LOAD_BEFORE, right after $LOAD_AFTER" \
  ${REPEATS:+--smoke "$REPEATS"} | tee "$OUT/numbers.md"
