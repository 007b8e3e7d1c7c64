"""metrics.duckdb names the test of every p-value (X-41, O-10): ``experiments.test`` and the ``comparisons``
table by their own migration; experiments recorded before it were Fisher's."""

from __future__ import annotations

from pathlib import Path

import duckdb

from harness.metrics import MIGRATIONS, ComparisonRow, ExperimentRow, MetricsWriter, migrate, table_columns

NAME = "m008_comparison_tests"


def test_m008_names_fisher_for_experiments_recorded_before_and_adds_comparisons(tmp_path: Path) -> None:
    con = duckdb.connect(str(tmp_path / "m.duckdb"))
    names = [name for name, _ in MIGRATIONS]
    before = names[:names.index(NAME)]
    for name, step in MIGRATIONS:  # a database as the release before left it, with one experiment
        if name in before:
            step(con)
    con.execute("INSERT INTO experiments (experiment_id, plan_id, plan_sha256, model_agent, model_maintainer, "
                "model_kind) VALUES ('old', 'p', 's', 'm', 'm', 'real')")
    con.execute("CREATE TABLE migrations (name VARCHAR PRIMARY KEY, applied_at TIMESTAMP NOT NULL)")
    con.executemany("INSERT INTO migrations VALUES (?, now()::TIMESTAMP)", [[n] for n in before])
    assert migrate(con) == names[names.index(NAME):]
    assert con.execute("SELECT test FROM experiments").fetchall() == [("fisher",)]
    assert {"p_value", "test", "samples_n", "look", "threshold", "separable"} <= set(table_columns(con, "comparisons"))
    con.close()


def test_rows_carry_their_test(tmp_path: Path) -> None:
    with MetricsWriter.open(tmp_path / "m.duckdb", "e") as writer:
        writer.write("experiments", [ExperimentRow(experiment_id="e", plan_id="p", plan_sha256="s", model_agent="m",
                                                   model_maintainer="m", model_kind="scripted", test="boschloo")])
        writer.write("comparisons", [ComparisonRow(
            experiment_id="e", stage_id="simple", group_id="B", other_id="A", passes=3, n=3, other_passes=0,
            other_n=3, samples_passes=1, samples_n=1, other_samples_passes=0, other_samples_n=1, p_value=0.03125,
            samples_p_value=0.5, test="boschloo", alpha=0.05, separable=False)])
        rows = writer.con.execute("SELECT e.test, c.p_value, c.test, c.separable FROM experiments e JOIN comparisons c "
                                  "USING (experiment_id)").fetchall()
    assert rows == [("boschloo", 0.03125, "boschloo", False)]
