"""All output: JSON for pipes and --json, rich for terminals, one-line messages on stderr.

rich is imported only when a human is looking, so piped calls stay fast.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from docir.services.retrieval.need import FORMS


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
        if item.get("repo"):
            extra.append(f"repo {item['repo']}")
        if extra:
            cell.append("\n" + " · ".join(extra), style="italic dim")
        why = _why(item)
        if why:
            cell.append("\n" + why, style="dim")
        row = [item["id"], doc_type, status, cell]
        if ranked:
            sim = item.get("similarity")
            row = [str(position), *row, "" if sim is None else f"{sim:.2f}"]
        table.add_row(*row)
    console.print(table)
    first_ids = " ".join(r["id"] for r in results[:3])
    console.print(f"[dim]{len(results)} result(s); read bodies with: docir get {first_ids}[/dim]")


def _why(item: Mapping[str, Any]) -> str | None:
    """`--explain` on a terminal: the parts that add up to the score, each ranking's place beside its
    part, and who lent what (the JSON's `explain` has every number)."""
    explain = item.get("explain")
    if not isinstance(explain, Mapping) or not explain.get("contributions") or item.get("score") is None:
        return None
    rankings = explain.get("rankings") or {}
    parts = []
    for name, value in explain["contributions"].items():
        if not value:
            continue
        place = (rankings.get(name) or {}).get("rank")
        part = f"{name} {value:.2f}" + (f" (#{place})" if place else "")
        if name == "lent" and rankings.get("lent_by"):
            part += " from " + ", ".join(rankings["lent_by"])
        parts.append(part)
    if not parts:
        return None
    weights = [f"{form} weight {explain[form]['weight']:.2f}" for form in FORMS
               if isinstance(explain.get(form), Mapping)]
    return f"score {item['score']:.2f} = " + " + ".join(parts) + "".join(f"; {w}" for w in weights)


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
    """A drain progress callback that draws on a terminal's stderr (None in a pipe); call .close() after.

    Texts done out of texts due, the rate and the time left, redrawn at each update (every
    few seconds); no refresh thread, so nothing draws after the drain is over.
    """
    if not sys.stderr.isatty():
        return None
    return _DrainBar(label)


def drain_line(state: Mapping[str, Any]) -> str:
    """'1,234/5,000 texts (sections) · 41.2 texts/s · 1m32s left', for tables and notes."""
    return (f"{state['texts_done']:,}/{state['texts_due']:,} texts ({state['phase']}) · "
            f"{state['rate']} texts/s · {_time_left(state)} left")


def _time_left(state: Mapping[str, Any]) -> str:
    """'1m32s', '45s', or '-' when the rate is not known yet."""
    eta = state.get("eta_seconds")
    return "-" if eta is None else (f"{eta // 60}m{eta % 60:02d}s" if eta >= 60 else f"{eta}s")


class _DrainBar:
    def __init__(self, label: str) -> None:
        self._label = label
        self._bar: Any = None
        self._task: Any = None

    def __call__(self, state: Mapping[str, Any]) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        if self._bar is None:
            self._bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TextColumn("texts · {task.fields[rate]}/s · {task.fields[left]} left"),
                                 console=Console(stderr=True), transient=True, auto_refresh=False)
            self._task = self._bar.add_task(self._label, total=1, rate=0, left="-")
            starting = True
        else:
            starting = False
        self._bar.update(self._task, completed=state["texts_done"], total=max(state["texts_due"], 1),
                         description=f"{self._label} ({state['phase']})", rate=state["rate"],
                         left=_time_left(state))
        if starting:
            self._bar.start()  # after the first numbers are in: no empty 0/1 frame
        self._bar.refresh()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
