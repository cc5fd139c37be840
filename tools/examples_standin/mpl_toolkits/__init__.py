"""A do-nothing mpl_toolkits beside the do-nothing matplotlib (see matplotlib/__init__.py)."""
