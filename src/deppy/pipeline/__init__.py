"""pipeline layer of deppy (see DESIGN.md)."""
