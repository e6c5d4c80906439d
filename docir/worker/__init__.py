"""The warm worker: a per-store background process that holds the model and runs commands.

Everything on the client side of this package is stdlib-only, so a command
that reaches a warm worker pays for little more than Python's own start.
"""
