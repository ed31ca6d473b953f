"""Sphinx extension: the tutorials (the pages Sphinx executes) read by different processes.

With ``-j N`` Sphinx reads the pages in chunks of consecutive names (in name order), N
chunks at a time. The tutorials' names sort together (``tutorials/01_...`` to
``tutorials/06_...``), so they fell into one chunk and were executed one after another in
one process while the other process had read its pages long before: on 2 cores the build
took 48 s, 33 s of them executing tutorials on one core. Before the pages are read
(``env-before-read-docs``, whose handlers may reorder them), this puts the tutorials in
turn into the chunks that are read first, one to each, the other pages in their order
around them. What each page becomes does not depend on the order it is read in.
"""

from __future__ import annotations

from pathlib import Path

#: The front matter that makes a Markdown page a notebook myst-nb executes.
NOTEBOOK_MARK = "file_format: mystnb"


def executed(app, env, docname: str) -> bool:
    """Whether the page ``docname`` is a notebook (its front matter says so)."""
    path = Path(env.doc2path(docname))
    if path.suffix != ".md":
        return False
    head = path.read_text(encoding="utf-8")[:400]
    return head.startswith("---") and NOTEBOOK_MARK in head


def spread(docnames: list[str], notebooks: set[str], sizes: list[int], at_once: int) -> list[str]:
    """``docnames`` reordered so that the ``notebooks`` among them go in turn to the first
    ``at_once`` chunks of the chunk ``sizes`` Sphinx cuts the list into (its order within
    each), the other pages filling the rest of the places in their order."""
    first = min(at_once, len(sizes))
    chunks: list[list[str]] = [[] for _ in sizes]
    turn = 0
    for name in (d for d in docnames if d in notebooks):
        free = [k for k in range(first) if len(chunks[k]) < sizes[k]]
        if not free:
            free = [k for k in range(len(sizes)) if len(chunks[k]) < sizes[k]]
        k = free[turn % len(free)]
        chunks[k].append(name)
        turn += 1
    others = iter(d for d in docnames if d not in notebooks)
    for k, size in enumerate(sizes):
        chunks[k].extend(next(others) for _ in range(size - len(chunks[k])))
    return [name for chunk in chunks for name in chunk]


def spread_notebooks(app, env, docnames: list[str]) -> None:
    """``env-before-read-docs``: the notebooks spread over the chunks read at once."""
    if app.parallel <= 1 or len(docnames) < 2:
        return
    from sphinx.util.parallel import make_chunks

    notebooks = {d for d in docnames if executed(app, env, d)}
    if len(notebooks) < 2:
        return
    sizes = [len(chunk) for chunk in make_chunks(list(docnames), app.parallel)]
    docnames[:] = spread(docnames, notebooks, sizes, app.parallel)


def setup(app):
    app.connect("env-before-read-docs", spread_notebooks)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
