"""The warm worker's process plumbing: socket server, stdlib-only client, frames, run files.

Everything on the client side of this package is stdlib-only, so a command
that reaches a warm worker pays for little more than Python's own start.
What the worker does with a request lives in docir.worker.handler;
`docir worker` (docir.cli.worker_cmd) starts, stops and inspects it.
"""
