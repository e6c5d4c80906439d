"""What a test hands the services as its caller: this process's Invocation (the isolated environment the
test runs in, tests/conftest.py) made into settings and a Caller by the command line's own edge
(docir/cli/edge.py), so a test's caller is a command's."""

from __future__ import annotations

from docir.cli.edge import caller_of
from docir.invocation import here
from docir.services.indexing.caller import Caller
from docir.settings import Settings


def settings() -> Settings:
    return here().settings()


def caller() -> Caller:
    return caller_of(here())
