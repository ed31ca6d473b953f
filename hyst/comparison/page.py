"""The paper-comparison page as a list of blocks (headings, paragraphs, tables), written
as Markdown (``results/paper_comparison.md``) and as HTML (the Snakemake report)."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Heading:
    """A section heading of the page: its text and level (2: ``##``)."""

    text: str
    level: int = 2


@dataclass(frozen=True)
class Paragraph:
    """A paragraph of the page (Markdown text)."""

    text: str


@dataclass(frozen=True)
class Table:
    """A table of the page: the header cells and the rows of cells (text)."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass
class Page:
    """A page: a title and its blocks, in order."""

    title: str
    blocks: list = field(default_factory=list)

    def add(self, *blocks) -> None:
        """Append blocks (headings, paragraphs, tables) to the page, in order."""
        self.blocks.extend(blocks)

    def markdown(self) -> str:
        """The page as Markdown (``results/paper_comparison.md``)."""
        out = [f"# {self.title}", ""]
        for b in self.blocks:
            if isinstance(b, Heading):
                out += [f"{'#' * b.level} {b.text}", ""]
            elif isinstance(b, Paragraph):
                out += [b.text, ""]
            else:
                out.append("| " + " | ".join(_cell(h) for h in b.header) + " |")
                out.append("|" + "|".join("---" for _ in b.header) + "|")
                out += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in b.rows]
                out.append("")
        return "\n".join(out)

    def html(self) -> str:
        """The page as a standalone HTML document (the Snakemake report)."""
        out = [
            "<!DOCTYPE html>",
            '<html><head><meta charset="utf-8">',
            f"<title>{html.escape(self.title)}</title>",
            "<style>body{font-family:serif;max-width:70em;margin:auto}"
            "table{border-collapse:collapse;margin:0.5em 0 1.2em}"
            "td,th{border:1px solid #bbb;padding:2px 6px;font-size:90%;vertical-align:top}"
            "th{background:#eee}</style></head><body>",
            f"<h1>{html.escape(self.title)}</h1>",
        ]
        for b in self.blocks:
            if isinstance(b, Heading):
                out.append(f'<h{b.level} id="{anchor(b.text)}">{_inline(b.text)}</h{b.level}>')
            elif isinstance(b, Paragraph):
                out.append(f"<p>{_inline(b.text)}</p>")
            else:
                out.append("<table><tr>" + "".join(f"<th>{_inline(h)}</th>" for h in b.header))
                for row in b.rows:
                    out.append("<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in row) + "</tr>")
                out.append("</table>")
        out.append("</body></html>")
        return "\n".join(out) + "\n"


def anchor(title: str) -> str:
    """The anchor of a heading, as GitHub makes it and the HTML page writes it (lower case,
    punctuation dropped, spaces as hyphens): ``[text](#anchor)`` links to it."""
    slug = re.sub(r"[^\w\- ]", "", title.lower()).strip()
    return re.sub(r"\s", "-", slug)


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _inline(text: str) -> str:
    """Escaped HTML of a line with Markdown's **bold**, `code` and [links](#anchor)."""
    t = html.escape(str(text))
    t = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", t)
    t = re.sub(r"\[([^\]]+)\]\((#[\w\-]+)\)", r'<a href="\2">\1</a>', t)
    return re.sub(r"`(.+?)`", r"<code>\1</code>", t)
