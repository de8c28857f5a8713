"""The frozen app's entry point: the same command line as the installed `knit-desktop`."""

import multiprocessing
import sys

if __name__ == "__main__":
    # A worker process that prepares files for the index (spawned, see core/index/preparing.py) starts the bundle's
    # binary again: this turns it into the worker instead of a second app.
    multiprocessing.freeze_support()
    from knit_desktop.cli import main

    sys.exit(main())
