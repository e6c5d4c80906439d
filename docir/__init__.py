"""docir: the right few design documents of a repository, fast."""

__version__ = "0.1.0"
