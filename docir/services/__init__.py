"""What docir does, between the CLI and the documents/index layers, one subpackage per concern."""
