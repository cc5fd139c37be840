"""Utilities: hook handles, data loading."""
