"""Reads `runner report --csv` output with pandas and checks it against the results file read
with h5py: every numeric column parsed as numbers, swept keys typed as in the TOML.

usage: read_report_csv.py TABLE.csv RESULTS.h5; exits 77 when pandas or h5py is missing."""
import sys

try:
    import h5py
    import pandas as pd
except ImportError as missing:
    print(f"skipped: {missing}")
    sys.exit(77)

TEXT_COLUMNS = {"run_id", "group", "label", "status", "note"}


def runs_in_order(path):
    """(group name, run group) in the order the runs began."""
    with h5py.File(path, "r") as f:
        for name, run in f["/"].items():
            if "run_id" in run.attrs:
                yield name, dict(run["summary"].attrs), run["summary/peak_memory_per_rank_bytes"][()]


def main(csv_path, h5_path):
    table = pd.read_csv(csv_path)
    for column in table.columns:
        if column not in TEXT_COLUMNS:
            assert pd.api.types.is_numeric_dtype(table[column]), (column, table[column].dtype)
    assert table["optimizer.lr"].dtype == "float64", table["optimizer.lr"].dtype
    assert table["optimizer.nesterov"].dtype == "bool", table["optimizer.nesterov"].dtype
    assert table["epochs"].dtype == "int64", table["epochs"].dtype
    assert sorted(table["optimizer.lr"].unique()) == [0.01, 0.1]

    runs = list(runs_in_order(h5_path))
    assert list(table["group"]) == [name for name, _, _ in runs]
    for (_, summary, peaks), (_, row) in zip(runs, table.iterrows()):
        assert row["time_s"] == summary["total_time_s"], (row["time_s"], summary["total_time_s"])
        assert row["test_accuracy"] == summary["final_test_accuracy"]
        assert 0 <= row["test_accuracy"] <= 1
        assert row["peak_memory_bytes"] == peaks.max()
        assert row["samples_per_s"] > 0 and row["step_time_s"] > 0
    print(f"ok: {len(table)} runs, {len(table.columns)} columns")


if __name__ == "__main__":
    main(*sys.argv[1:])
