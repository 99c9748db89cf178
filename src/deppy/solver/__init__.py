"""solver layer of deppy (see DESIGN.md)."""
