"""All output: JSON for pipes and --json, rich for terminals, one-line messages on stderr.

rich is imported only when a human is looking, so piped calls stay fast.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from docir.cli.counts import counted
from docir.services.retrieval.need import FORMS

if TYPE_CHECKING:
    from docir.invocation import Invocation
    from docir.services.lint.registry import LintReport


def emit_json(payload: Any, invocation: Invocation) -> None:
    """Strict JSON: a NaN or an infinity (a vector of zeros has no cosine) is printed as null, which every
    parser reads, never as the NaN that strict ones refuse."""
    try:
        text = json.dumps(payload, ensure_ascii=False, indent=2, allow_nan=False)
    except ValueError:
        text = json.dumps(_finite(payload), ensure_ascii=False, indent=2, allow_nan=False)
    invocation.stdout.write(text + "\n")
    invocation.stdout.flush()


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


def superseded(ids: Sequence[str], successor: str, invocation: Invocation) -> None:
    """The one stderr line a terminal gets when a write marked the documents it replaces superseded."""
    if ids:
        invocation.note(f"marked {', '.join(ids)} superseded: {successor} replaces {'it' if len(ids) == 1 else 'them'} "
                        "(--keep-status leaves the status as it is)")


def _console(invocation: Invocation, *, stderr: bool = False) -> Any:
    from rich.console import Console

    stream = invocation.stderr if stderr else invocation.stdout
    if invocation.terminal is None:  # this process's own terminal: rich asks it
        return Console(file=stream, highlight=False, soft_wrap=False)
    width, height = _size(invocation)
    return Console(file=stream, width=width, height=height, _environ=invocation.env, highlight=False, soft_wrap=False)


def _size(invocation: Invocation) -> tuple[int, int]:
    """The size rich takes for the caller's terminal (rich/console.py, Console.size), from the caller's
    descriptors and environment rather than this process's (adr-46c331c4a44c)."""
    env = invocation.env
    columns, lines = env.get("COLUMNS", ""), env.get("LINES", "")
    if columns.isdigit() and lines.isdigit():
        return int(columns), int(lines)
    if _is_terminal(invocation.stdout, env) and env.get("TERM", "").lower() in ("dumb", "unknown"):
        return 80, 25
    sizes = invocation.sizes()
    width, height = (sizes[0][1], sizes[0][2]) if sizes else (0, 0)
    width = int(columns) if columns.isdigit() else width
    height = int(lines) if lines.isdigit() else height
    return width or 80, height or 25


def _is_terminal(stream: IO[str], env: Mapping[str, str]) -> bool:
    compatible = env.get("TTY_COMPATIBLE", "")
    if compatible in ("0", "1"):
        return compatible == "1"
    if env.get("FORCE_COLOR") is not None:
        return env["FORCE_COLOR"] != ""
    return stream.isatty()


def skeleton_table(results: Sequence[Mapping[str, Any]], *, heading: str, invocation: Invocation) -> None:
    """Ranked or filtered skeletons as a table: id, type, status, title over its description."""
    from rich.table import Table
    from rich.text import Text

    console = _console(invocation)
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
        if item.get("incoming"):
            extra.append(f"incoming: {_links(item['incoming'])}")
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


def _links(links: Sequence[Mapping[str, str]]) -> str:
    """Links as a line: 'superseded-by adr-... · dependency-of arch-...'."""
    return " · ".join(f"{link['kind']} {link['id']}" for link in links)


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


def documents(docs: Sequence[Mapping[str, Any]], invocation: Invocation) -> None:
    from rich.markdown import Markdown
    from rich.rule import Rule

    console = _console(invocation)
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
        for label, links in (("related", doc.get("related")), ("incoming", doc.get("incoming"))):
            if links:
                console.print(f"[dim]{label}: {_links(links)}[/dim]")
        if doc.get("section"):
            console.print(f"[dim]section: {doc['section']}[/dim]")
        console.print(f"[italic]{doc['description']}[/italic]\n")
        console.print(Markdown(doc["body"]))


def key_values(title: str, values: dict[str, Any], invocation: Invocation) -> None:
    console = _console(invocation)
    console.print(f"[bold]{title}[/bold]")
    for key, value in values.items():
        if isinstance(value, list):
            value = ", ".join(str(v) for v in value) if value else "-"
        console.print(f"  {key}: {value}")


def progress_bar(label: str, invocation: Invocation, *, lines: bool = False) -> Any:
    """A drain progress callback that draws on the caller's terminal's stderr; call .close() after. Off a
    terminal, with `lines`, one stderr line per stage (a CI log shows where a long flush is); else None.

    Texts done out of texts due, the rate and the time left, redrawn at each update (every
    few seconds); no refresh thread, so nothing draws after the drain is over.
    """
    if not invocation.stderr.isatty():
        return _StageLines(label, invocation) if lines else None
    return _DrainBar(label, invocation)


class _StageLines:
    """`docir: embedding: sections, 869 texts due`: a line when the stage changes, none per slice."""

    def __init__(self, label: str, invocation: Invocation) -> None:
        self._label = label
        self._invocation = invocation
        self._said = ""

    def __call__(self, state: Mapping[str, Any]) -> None:
        if state["phase"] == self._said:
            return
        self._said = state["phase"]
        due = f", {counted(state['texts_due'], 'text')} due" if state["texts_due"] else ""
        self._invocation.note(f"{self._label}: {state['phase']}{due}")

    def close(self) -> None:
        pass


def drain_line(state: Mapping[str, Any]) -> str:
    """'1,234/5,000 texts (sections) · 41.2 texts/s · 1m32s left', for tables and notes."""
    return (f"{state['texts_done']:,}/{state['texts_due']:,} texts ({state['phase']}) · "
            f"{state['rate']} texts/s · {_time_left(state)} left")


def _time_left(state: Mapping[str, Any]) -> str:
    """'1m32s', '45s', or '-' when the rate is not known yet."""
    eta = state.get("eta_seconds")
    return "-" if eta is None else (f"{eta // 60}m{eta % 60:02d}s" if eta >= 60 else f"{eta}s")


class _DrainBar:
    def __init__(self, label: str, invocation: Invocation) -> None:
        self._label = label
        self._invocation = invocation
        self._bar: Any = None
        self._task: Any = None

    def __call__(self, state: Mapping[str, Any]) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        if self._bar is None:
            self._bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TextColumn("texts · {task.fields[rate]}/s · {task.fields[left]} left"),
                                 console=_console(self._invocation, stderr=True), transient=True, auto_refresh=False)
            self._task = self._bar.add_task(self._label, total=1, rate=0, left="-")
            starting = True
        else:
            starting = False
        # A stage before any numbers (loading the model) has no total: rich draws the bar as waiting.
        self._bar.update(self._task, completed=state["texts_done"], total=state["texts_due"] or None,
                         description=f"{self._label} ({state['phase']})", rate=state["rate"],
                         left=_time_left(state))
        if starting:
            self._bar.start()  # after the first numbers are in: no empty 0/1 frame
        self._bar.refresh()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None


def findings(report: LintReport, root: Path, output: str, invocation: Invocation) -> None:
    """Lint findings as text (path:line:col: CODE message), JSON or GitHub annotations."""
    if output == "json":
        emit_json({"findings": [dict(f.as_dict(), path=shown_path(root, f.path, invocation.cwd))
                                for f in report.findings],
                   "summary": {"errors": report.errors, "warnings": report.warnings, "files": report.files},
                   "semantic": report.semantic}, invocation)
        return
    for f in report.findings:
        if output == "github":
            level = "error" if f.severity == "error" else "warning"
            invocation.print(f"::{level} file={shown_path(root, f.path, invocation.cwd)},line={f.line},col={f.col},"
                             f"title={f.code} {f.alias}::{f.message}")
        else:
            invocation.print(f"{shown_path(root, f.path, invocation.cwd)}:{f.line}:{f.col}: {f.code} {f.message}")
    if output == "text":
        checked = counted(report.files, "file")
        if report.findings:
            found = len({f.path for f in report.findings})
            invocation.print(f"Found {counted(report.errors, 'error')} and {counted(report.warnings, 'warning')} "
                             f"in {found} of {checked} checked.")
        else:
            invocation.print(f"All checks passed ({checked} checked).")


def shown_path(root: Path, path: str, cwd: str) -> str:
    """Paths as the user's shell sees them: relative to the working folder when inside it."""
    relative = os.path.relpath(root / path, cwd)
    return path if relative.startswith("..") else relative
