"""explain layer of deppy (see DESIGN.md)."""
