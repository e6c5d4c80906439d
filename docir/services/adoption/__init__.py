"""`docir adopt`: a team's existing decision records brought into the store, each read by its format.

reading (one file -> a Foreign record, by its format's conventions: adr-tools, MADR, log4brains,
Docusaurus, status tables, RFC headers) -> planning (the folder: ids, links in both directions,
docir's fields) -> writing (every file, all or nothing) -> report (what a person checks at a glance).
"""
