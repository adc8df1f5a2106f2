"""The project's tests. A package only so that tests.support can be
imported from the repository's root (pyproject.toml: pytest's pythonpath)."""
