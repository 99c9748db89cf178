"""olm layer of deppy (see DESIGN.md)."""
