"""What the command line and the agent tools print: JSON payloads and plain-text renderings of a result."""
