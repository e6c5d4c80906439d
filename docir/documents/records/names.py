"""Which file names in a folder of decision records are records, by the name alone.

A folder of records holds its furniture too: a README or index page, the team's template. The walk
asks this of every file of such a folder, so it is a name test, cheap and without reading the file.
"""

from __future__ import annotations

import re
from typing import NamedTuple

# The formats a folder of records can be read in, in place.
RECORD_FORMATS = ("adr-tools", "madr", "log4brains")


class RecordFolder(NamedTuple):
    """A folder of a team's decision records, read where they lie in their own format (adr-0c5e2d8f1a47):
    an entry of docs-schema.yaml's `records:` list."""

    path: str  # relative to the store root, '/'-separated, no trailing '/': inside docs/ or not
    type: str  # the document type its records are
    format: str  # one of RECORD_FORMATS: how its records are written


# File names that are a folder's furniture, not a decision.
FURNITURE_RE = re.compile(r"^(?:readme|index|_index|summary|changelog|contributing|license|licence|toc|"
                          r"table-of-contents|glossary|nav|sidebar|_sidebar|_toc)(?:\.[a-z]+)?$", re.I)
TEMPLATE_NAME_RE = re.compile(r"(?:^|[-_.])template(?:$|[-_.](?:minimal|bare|full|short|long|lite|simple|en|madr|"
                              r"nygard|adr|example)$)", re.I)


def is_record_name(name: str) -> bool:
    """Whether a file named `name` in a folder of records can be a record: Markdown, no dot-file, no
    README, index page or template."""
    if not name.endswith(".md") or name.startswith("."):
        return False
    # The walk asks this of every file of a folder of records: the plain cases first, no pattern run.
    if "emplat" in name.lower() and TEMPLATE_NAME_RE.search(name[:-3]) is not None:
        return False
    return name[0].isdigit() or FURNITURE_RE.match(name) is None
