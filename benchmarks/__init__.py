"""Docir's benchmarks, each a module run as `python -m benchmarks.<name>` from the repository root."""
