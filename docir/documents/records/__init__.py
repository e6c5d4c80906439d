"""Decision records in the formats teams keep them (adr-tools, MADR, log4brains): each fact read where it lies."""
