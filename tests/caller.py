"""What a test hands the services as their caller: this process's settings (the isolated environment the
test runs in, tests/conftest.py), no warm worker unless the test asks, and a caller that never goes."""

from __future__ import annotations

import os

from docir.services.indexing.caller import Caller
from docir.settings import Settings


def settings() -> Settings:
    return Settings.of(os.environ)


def caller() -> Caller:
    chosen = settings()
    if chosen.worker:
        from docir.worker.link import ClientLink

        return Caller(chosen, ClientLink())
    return Caller(chosen)
