"""problem layer of deppy (see DESIGN.md)."""
