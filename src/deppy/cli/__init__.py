"""cli layer of deppy (see DESIGN.md)."""
