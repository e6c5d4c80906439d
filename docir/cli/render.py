"""All output: JSON for pipes and --json, rich for terminals, one-line messages on stderr.

rich is imported only when a human is looking, so piped calls stay fast.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from typing import Any


def wants_json(flag: bool) -> bool:
    return flag or not sys.stdout.isatty()


def emit_json(payload: Any) -> None:
    sys.stdout.write(json.dumps(payload, ensure_ascii=False, indent=2) + "\n")
    sys.stdout.flush()


def warn(message: str) -> None:
    sys.stderr.write(f"docir: warning: {message}\n")


def error(message: str) -> None:
    sys.stderr.write(f"docir: error: {message}\n")


def note(message: str) -> None:
    sys.stderr.write(f"docir: {message}\n")


def _console() -> Any:
    from rich.console import Console

    return Console(highlight=False, soft_wrap=False)


def skeleton_table(results: Sequence[Mapping[str, Any]], *, heading: str) -> None:
    """Ranked or filtered skeletons as a table: id, type, status, title over its description."""
    from rich.table import Table
    from rich.text import Text

    console = _console()
    if not results:
        console.print(f"[dim]{heading}: nothing found[/dim]")
        return
    table = Table(title=heading, title_justify="left", show_lines=False, expand=False, pad_edge=False)
    ranked = any("score" in r for r in results)
    if ranked:
        table.add_column("#", justify="right", style="dim")
    table.add_column("id", style="cyan", no_wrap=True)
    table.add_column("type", style="magenta", no_wrap=True)
    table.add_column("status", no_wrap=True)
    table.add_column("title / description")
    if ranked:
        table.add_column("sim", justify="right", style="dim")
    for position, item in enumerate(results, start=1):
        if item.get("kind") == "reference":  # a chunk of a reference corpus: its breadcrumb says what it is
            status, doc_type = "", f"ref:{item['ref']}"
            cell = Text(item["title"], style="bold")
            cell.append("\n" + " > ".join(item["heading_path"]), style="dim")
        else:
            status = item["status"] + (" [yellow](stale)[/yellow]" if item.get("stale") else "")
            doc_type = item.get("type", "")  # a compact linked entry names no type
            cell = Text(item["title"], style="bold")
            if "description" in item:
                cell.append("\n" + item["description"], style="dim")
        extra = []
        if item.get("matched_glob"):
            extra.append(f"applies to {item['matched_glob']}")
        if item.get("matched_section"):
            extra.append(f"§ {item['matched_section']}")
        if item.get("via"):
            via = item["via"]
            extra.append(f"via {via['kind']} of {via['id']}")
        if item.get("store"):
            extra.append(f"store {item['store']}")
        if extra:
            cell.append("\n" + " · ".join(extra), style="italic dim")
        row = [item["id"], doc_type, status, cell]
        if ranked:
            sim = item.get("similarity")
            row = [str(position), *row, "" if sim is None else f"{sim:.2f}"]
        table.add_row(*row)
    console.print(table)
    first_ids = " ".join(r["id"] for r in results[:3])
    console.print(f"[dim]{len(results)} result(s); read bodies with: docir get {first_ids}[/dim]")


def documents(docs: Sequence[Mapping[str, Any]]) -> None:
    from rich.markdown import Markdown
    from rich.rule import Rule

    console = _console()
    for doc in docs:
        if doc.get("kind") == "reference":
            console.print(Rule(f"[bold]{doc['title']}[/bold]", align="left"))
            console.print(f"[cyan]{doc['id']}[/cyan] · ref {doc['ref']} · [dim]{doc['source_uri']}[/dim]")
            console.print(f"[dim]{' > '.join(doc['heading_path'])}[/dim]\n")
            console.print(Markdown(doc["text"]))
            continue
        flags = " [yellow]archived[/yellow]" if doc.get("archived") else ""
        console.print(Rule(f"[bold]{doc['title']}[/bold]", align="left"))
        console.print(f"[cyan]{doc['id']}[/cyan] · {doc['type']} · {doc['status']}{flags} · [dim]{doc['path']}[/dim]")
        if doc.get("section"):
            console.print(f"[dim]section: {doc['section']}[/dim]")
        console.print(f"[italic]{doc['description']}[/italic]\n")
        console.print(Markdown(doc["body"]))


def key_values(title: str, values: dict[str, Any]) -> None:
    console = _console()
    console.print(f"[bold]{title}[/bold]")
    for key, value in values.items():
        if isinstance(value, list):
            value = ", ".join(str(v) for v in value) if value else "-"
        console.print(f"  {key}: {value}")


def progress_bar(label: str) -> Any:
    """A progress callback (done, total) that draws on a terminal's stderr and stays silent in a pipe."""
    if not sys.stderr.isatty():
        return None
    state: dict[str, Any] = {}

    def update(done: int, total: int) -> None:
        from rich.progress import Progress

        if "bar" not in state:
            bar = Progress(transient=True, console=None)
            bar.start()
            state["bar"], state["task"] = bar, bar.add_task(label, total=total)
        state["bar"].update(state["task"], completed=done, total=total)
        if done >= total:
            state["bar"].stop()

    return update
