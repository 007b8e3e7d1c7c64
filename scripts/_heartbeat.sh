# shellcheck shell=bash
# Progress for long silent steps (pip install, model download, a llama-server build). Sourced by
# scripts/bootstrap.sh and scripts/llama_server.sh; defines one function:
#
#   heartbeat_run LABEL LOG COMMAND [ARG…]
#
# runs COMMAND in the foreground (Ctrl-C reaches it as before) with its stdout and stderr appended to
# LOG, and meanwhile prints to stderr, every HEARTBEAT_EVERY_S seconds (default 20), one line:
#
#   LABEL: 2 min 05 s, at [ 42%]
#
# the time since the step started and the last progress marker found in LOG: the first match of
# HEARTBEAT_MARKER (an extended regex; default a build's step counter, cmake/make's "[ 42%]" or
# ninja's "[12/80]") counted from the end of LOG. Returns COMMAND's exit status. COMMAND runs where
# `set -e` is suspended (its status is tested), so a shell function given as COMMAND must check its
# own steps (`|| return 1`).

heartbeat_elapsed() {  # heartbeat_elapsed SECONDS: "45 s" or "2 min 05 s"
  if [ "$1" -lt 60 ]; then
    echo "$1 s"
  else
    printf '%d min %02d s\n' $(( $1 / 60 )) $(( $1 % 60 ))
  fi
}

_heartbeat_tick() {  # _heartbeat_tick LABEL LOG EVERY STARTED OWNER: the background ticker of heartbeat_run
  local label=$1 log=$2 every=$3 started=$4 owner=$5 last=$SECONDS marker
  local pattern=${HEARTBEAT_MARKER:-'\[ *[0-9]+(/[0-9]+|%)\]'}
  # The owner (the script that started this step) dying of a signal ends the ticker within a second.
  while kill -0 "$owner" 2>/dev/null; do
    sleep 1
    if [ $(( SECONDS - last )) -ge "$every" ]; then
      last=$SECONDS
      marker=$(tail -c 65536 "$log" 2>/dev/null | grep -aoE -- "$pattern" | tail -n 1 | cut -c1-80 || true)
      echo "$label: $(heartbeat_elapsed $(( SECONDS - started )))${marker:+, at $marker}" >&2
    fi
  done
}

heartbeat_run() {
  local label=$1 log=$2 every=${HEARTBEAT_EVERY_S:-20} started=$SECONDS ticker status=0
  shift 2
  _heartbeat_tick "$label" "$log" "$every" "$started" "$$" &
  ticker=$!
  "$@" >>"$log" 2>&1 || status=$?
  kill "$ticker" 2>/dev/null || true
  wait "$ticker" 2>/dev/null || true
  return "$status"
}
