"""store layer of deppy (see DESIGN.md)."""
