"""Cold start: the commands that build no provider body never import litellm (a second or more of
start-up), and the quick ones import neither pandas nor matplotlib (Q-4). A dry run builds its groups'
provider bodies offline for the preflight, so litellm is imported there and only there. ``harness
--help`` imports the command modules only: each imports what its work needs inside the command, so the
help text costs typer and rich, not the harness (its packages load pydantic models, numpy, DuckDB). No
command writes metrics through pandas (DuckDB binds the rows itself).

Each check runs the real console entry point in a fresh interpreter and reads ``sys.modules``: a
behaviour test, not a timing test."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PLAN = ROOT / "plans" / "unified-mapping-ab-20261005" / "experiment-plan.json"
STATE = ROOT / "tests" / "protocols" / "data" / "resume_alpha.json"
HEAVY = ("litellm", "pandas", "matplotlib", "scipy", "numpy", "pydantic", "duckdb", "jinja2", "protocols",
         "harness.runner", "harness.plan")

_PROBE = """
import gc, json, sys
from harness.cli import main
loaded = {}
for argv in json.loads(sys.argv[1]):
    sys.argv = ["harness", *argv]
    try:
        main()
    except SystemExit as exc:
        assert exc.code in (0, None), (argv, exc.code)
    loaded[argv[0]] = sorted(m for m in HEAVY if m in sys.modules)
loaded["gc"] = [gc.isenabled(), gc.get_freeze_count()]
print(json.dumps(loaded))
""".replace("HEAVY", repr(HEAVY))


def _loaded(*commands: list[str]) -> dict[str, list[str]]:
    """The heavy packages in ``sys.modules`` after each command, run one after the other in one process
    (and under "gc": whether the garbage collector is on, and how many objects it leaves frozen)."""
    out = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(list(commands))], capture_output=True,
                         text=True, cwd=ROOT, timeout=120, check=True)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def test_q4_help_validate_power_render_import_no_litellm() -> None:
    loaded = _loaded(["--help"], ["validate", str(PLAN)], ["power", "--control", "0.9", "--treatment", "0.3"],
                     ["render", "--protocol", "unified@3", str(STATE)])
    assert loaded["--help"] == []  # nothing heavy for the help text: not even the harness's own packages
    assert loaded["gc"] == [True, 0]  # no litellm import, nothing frozen
    assert "litellm" not in loaded["validate"] and "pandas" not in loaded["validate"]
    assert "matplotlib" not in loaded["validate"]
    assert "litellm" not in loaded["power"] and "litellm" not in loaded["render"]


def test_q4_a_dry_run_imports_litellm_for_its_offline_bodies_and_nothing_for_plots() -> None:
    loaded = _loaded(["run", str(PLAN), "--dry-run"])
    assert "litellm" in loaded["run"]
    assert "matplotlib" not in loaded["run"] and "pandas" not in loaded["run"]
    # litellm's import left frozen: the collector never walks its objects again, and still runs for new ones
    enabled, frozen = loaded["gc"]
    assert enabled and int(frozen) > 100_000


def test_q4_metrics_are_written_without_pandas(tmp_path: Path) -> None:
    probe = ("import sys; from harness.metrics import LlmCallRow, MetricsWriter\n"
             "with MetricsWriter.open(sys.argv[1], 'e') as w:\n"
             "    w.write('llm_calls', [LlmCallRow(experiment_id='e', trial_id='t', run_id=None, call_seq=1, "
             "role='agent', model='m', input_tokens=1, output_tokens=1, usd=None)])\n"
             "print('pandas' in sys.modules, 'pyarrow' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", probe, str(tmp_path / "m.duckdb")], capture_output=True, text=True,
                         cwd=ROOT, timeout=120, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_the_power_defaults_shown_without_importing_the_statistics_are_theirs() -> None:
    from harness import stats
    from harness.cli import _power

    assert (_power.ALPHA, _power.TARGET_POWER, _power.MAX_N) == (stats.ALPHA, stats.TARGET_POWER, stats.MAX_N)
