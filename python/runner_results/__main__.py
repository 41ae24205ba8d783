"""python3 -m runner_results plot RESULTS.h5 -o DIR: PNG figures of a results file."""
import argparse
import os
import sys

from runner_results.plots import write_figures
from runner_results.reader import ResultsFileError, load

CONFIG_ERROR = 2  # runner's exit code for a bad command line
DATA_ERROR = 4  # runner's exit code for a missing or unreadable results file


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m runner_results")
    commands = parser.add_subparsers(dest="command", required=True)
    plot = commands.add_parser(
        "plot", help="losses and accuracy per run; a sweep's panels and its runs overlaid")
    plot.add_argument("file", help="results file (.h5)")
    plot.add_argument("-o", "--output", required=True, help="folder for the PNG files")
    arguments = parser.parse_args(argv)
    if os.path.lexists(arguments.output) and not os.path.isdir(arguments.output):
        print(f"runner_results: error: -o {arguments.output}: is no folder", file=sys.stderr)
        return CONFIG_ERROR
    try:
        results = load(arguments.file)
    except ResultsFileError as error:
        print(f"runner_results: error: {error}", file=sys.stderr)
        return DATA_ERROR
    for path in write_figures(results, arguments.output):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
