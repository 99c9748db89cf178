"""entities layer of deppy (see DESIGN.md)."""
