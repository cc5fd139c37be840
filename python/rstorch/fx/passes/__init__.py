"""fx passes (shape propagation)."""
