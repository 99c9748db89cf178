"""Command-line front door: thin wrappers that parse arguments and render answers."""
