"""Integrations with the world around a store: init, git hooks, agent instructions, adopting existing documents."""
