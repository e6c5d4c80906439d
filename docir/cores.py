"""How many cores this process may run on: what work done side by side is sized by.

The affinity mask, not the machine's count: a container or `taskset` may give a process fewer cores
than the machine has.
"""

from __future__ import annotations

import os


def usable() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
