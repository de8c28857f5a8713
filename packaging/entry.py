"""The frozen app's entry point: the same command line as the installed `knit-desktop`."""

import sys

from knit_desktop.cli import main

if __name__ == "__main__":
    sys.exit(main())
