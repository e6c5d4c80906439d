"""The command line: parse, call one service, render. Nothing imports this package."""
