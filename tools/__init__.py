"""Maintenance tools run by hand from the repository root; not part of the installed package."""
