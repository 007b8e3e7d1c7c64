#!/usr/bin/env bash
# Install (first time) and run the fixed experiment plan. Extra arguments go to `harness run`,
# e.g. ./run.sh --model openai/gpt-4.1-mini --max-usd 2
set -euo pipefail
cd "$(dirname "$0")"
source scripts/bootstrap.sh
exec .venv/bin/harness run plans/unified-mapping-ab-20261005/experiment-plan.json "$@"
