"""Qt adapters that run core work off the GUI thread and report through signals."""
