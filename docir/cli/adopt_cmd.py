"""docir adopt PATH [--type TYPE] [--unstated STATUS] [--dry-run]"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from docir.cli import render
from docir.cli.edge import in_store, invocation_of
from docir.cli.options import JsonOption, RootOption
from docir.documents import prose
from docir.errors import UsageError
from docir.invocation import Invocation
from docir.services.adoption import planning, writing
from docir.services.adoption import report as adoption_report
from docir.services.indexing.session import Session
from docir.services.writing.store_writes import git_user


def command(
    ctx: typer.Context,
    path: Annotated[
        Path,
        typer.Argument(help="A folder of decision records (adr-tools, MADR, log4brains, Docusaurus, RFCs), or one "
                            "file.", show_default=False),
    ],
    doc_type: Annotated[str, typer.Option("--type", help="The docir type they become.")] = "decision",
    owner: Annotated[
        Optional[str],
        typer.Option("--owner", help="Owner for records that have none (required where the type requires it; "
                                     "default: the git user).", show_default=False),
    ] = None,
    unstated: Annotated[
        Optional[str],
        typer.Option("--unstated", metavar="STATUS",
                     help="The status of a record that states none (default: the type's default status, flagged "
                          "for review). E.g. --unstated accepted for a folder that records only decisions made.",
                     show_default=False),
    ] = None,
    key: Annotated[
        Optional[str],
        typer.Option("--key", help="A frontmatter field that names records in links between them (e.g. eip).",
                     show_default=False),
    ] = None,
    relation: Annotated[
        Optional[list[str]],
        typer.Option("--relation", metavar="FIELD=KIND",
                     help="Turn a field listing other records into links, e.g. requires=depends-on (repeatable).",
                     show_default=False),
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the report; write nothing.")] = False,
    root: RootOption = None,
    json_out: JsonOption = False,
) -> int:
    """Bring an existing folder of decision records into the store, losing nothing.

    Each file is read by its format's conventions: adr-tools ("# 3. Title", "Date:", a Status
    section), MADR (bullets or frontmatter), log4brains, Docusaurus, status tables, RFC headers.
    Its title loses its number (kept as `number`), its status is mapped to the type's statuses
    (the wording kept as status_original), "Superseded by X" / "Supersedes Y" become a
    supersedes link on the newer record, its date is kept, and a description of whole sentences
    is taken from its summary or context (flagged for review). The body is never changed.
    Templates, READMEs, index pages and files it cannot read are left out, named with the
    reason, and listed under exclude: in docs-schema.yaml. The whole folder is planned first
    and written all or nothing. A folder of the repository is adopted where it lies (one
    outside docs/ is put under records: in docs-schema.yaml, so the store reads it there); a
    folder outside the repository is copied into the type's folder, the originals untouched.

    Example: docir adopt docs/adr --dry-run, then docir adopt docs/adr
    """
    invocation = invocation_of(ctx, root, json_out)
    folder = invocation.path(path)
    relations = {}
    for item in relation or []:
        name, sep, kind = item.partition("=")
        if not sep or not name.strip() or not kind.strip():
            raise UsageError(f"--relation {item!r} must be FIELD=KIND, e.g. requires=depends-on")
        relations[name.strip()] = kind.strip()

    def action(s: Session) -> adoption_report.ReportJSON:
        spec = s.schema.type_spec(doc_type)
        chosen = owner
        if chosen is None and spec is not None and "owner" in spec.required:
            chosen = git_user(s.store.root)  # as add does: a first adopt needs no --owner in a git repository
        options = planning.Options(doc_type, chosen, key, relations, unstated)
        plan = planning.plan(s.store, s.schema, folder, options)
        if owner is None and any("owner" in p.added for p in plan.documents):
            invocation.warn(f"no --owner given; records without one get the git user, {chosen} "
                            "(pass --owner to choose another)")
        written = None if dry_run else writing.write(s, plan)
        return adoption_report.report(s, plan, dry_run=dry_run, written=written)

    # No refresh first: the files being adopted are not documents yet, and would only be reported as skipped.
    result = in_store(invocation, action, refresh=False)
    if invocation.wants_json():
        render.emit_json(result, invocation)
    else:
        _print(result, invocation)
    return 0


def _print(result: adoption_report.ReportJSON, invocation: Invocation) -> None:
    print = invocation.print  # noqa: A001 (the caller's stdout, wherever the command runs)
    verb = "would adopt" if result["dry_run"] else "adopted"
    print(f"{verb} {result['count']} record(s) from {result['folder']}"
          + ("  (dry run: nothing written)" if result["dry_run"] else ""))
    statuses = " · ".join(f"{n} {status}" for status, n in result["statuses"].items()) or "none"
    unstated = result["unstated"]
    note = (f"  ({unstated['count']} stated none: given {unstated['given']}; --unstated STATUS chooses another)"
            if unstated["count"] else "")
    print(f"  statuses  {statuses}{note}")
    links = " · ".join(f"{n} {kind}" for kind, n in result["links"].items()) or "none"
    print(f"  links     {links}")
    print(f"  titles    {result['titles_cleaned']} cleaned; {result['numbers']} numbers kept (number); "
          f"{result['dates']} dates kept")
    _print_notable(result["documents"], invocation)
    if result["review"]:
        print("  review    " + " · ".join(f"{n} {name}" for name, n in result["review"].items())
              + "  (docir lint lists them as DOC018; remove a field from `review:` once checked)")
    for skipped in result["skipped"]:
        print(f"  left out  {skipped['path']}: {skipped['reason']}")
    exclude = result["exclude"]
    if exclude["added"] or exclude["taken_off"]:
        said = [f"+{glob}" for glob in exclude["added"]] + [f"-{glob}" for glob in exclude["taken_off"]]
        verb = "would change" if result["dry_run"] else "changed"
        print(f"  exclude   {verb} in docs-schema.yaml: {', '.join(said)} (the store does not own what is left out)")
    lint = result["lint"]
    codes = ", ".join(f"{code} x{n}" for code, n in lint["codes"].items())
    print(f"  lint      {lint['errors']} error(s), {lint['warnings']} warning(s)" + (f" ({codes})" if codes else ""))


def _print_notable(documents: list[adoption_report.DocumentJSON], invocation: Invocation) -> None:
    """The records a person should look at: every status that is not the wording's plain word, every
    link, every flag other than a written description."""
    for doc in documents:
        notes: list[str] = []
        original = doc["status_original"]
        if original is not None and original.strip().lower() != doc["status"]:
            notes.append(f"{original!r} -> {doc['status']}")
        notes += [f"{kind} {target}" for entry in doc["related"] for kind, target in entry.items()
                  if kind != "relates-to"]
        notes += [f"{name}: {why}" for name, why in doc["review"].items()
                  if name != "description" and not why.startswith("states no status")]
        if notes:
            invocation.print(f"    {doc['path']}  {doc['id']}  " + "; ".join(_short(n) for n in notes))


def _short(text: str, limit: int = 100) -> str:
    return prose.clip(text, limit)


