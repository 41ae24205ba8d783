"""Read runner's results files (HDF5) into pandas DataFrames and plot them.

    import runner_results
    results = runner_results.load("results/lenet_sweep.h5")
    results.runs      # one row per run: header, config and sweep keys (typed), summary
    results.epochs    # one row per run and epoch
    results.steps     # one row per run and logged optimizer step
    runner_results.chosen_runs(results)  # the run that stands for each sweep point

The file's schema: docs/results-schema.md in the runner repository.
"""
from runner_results.reader import Results, ResultsFileError, load
from runner_results.plots import (chosen_runs, plot_curves, plot_sweep, plot_sweep_curves,
                                  write_figures)

__all__ = ["Results", "ResultsFileError", "chosen_runs", "load", "plot_curves", "plot_sweep",
           "plot_sweep_curves", "write_figures"]
