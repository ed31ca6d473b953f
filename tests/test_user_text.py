"""Text a user reads speaks to physicists, not to the project's own bookkeeping.

The documentation, the presets (their comments and study descriptions), the configuration
schema, the README, the figure captions and the command line's strings name no issue
numbers (``issue 26``, ``#26``), no commit hashes, no internal nicknames ("the peer tool"
for N. Keim's ``hysteron`` package, "the walkthrough" for Teunisse & van Hecke's tutorial
notebook), no stops or sessions of the work that wrote them.
"""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Text files a user reads, as globs under the repository root.
TEXT_FILES = (
    "README.md",
    "docs/*.md",
    "docs/tutorials/*",
    "docs/reference/*",
    "config/*.yaml",
    "hyst/pipeline/config.schema.yaml",
)
#: Python sources whose strings a user reads: the captions and the command line (the string
#: literals, docstrings included, since they are the help; not the comments).
STRING_SOURCES = ("hyst/plotting/captions.py", "hyst/cli/**/*.py")

#: What internal language looks like: (what it is, pattern).
PATTERNS = (
    ("an issue number", re.compile(r"\bissues?\s+#?\d+", re.IGNORECASE)),
    ("a #-number reference", re.compile(r"(?:^|(?<=[\s(\[,;]))#\d+\b(?![0-9a-fA-F])")),
    (
        "a commit hash",
        re.compile(r"(?<![\w/.-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![\w/-])"),
    ),
    (
        "the nickname 'the peer' (name the package or the authors)",
        re.compile(r"\bthe peer\b", re.IGNORECASE),
    ),
    (
        "the nickname 'walkthrough' (Teunisse & van Hecke's notebook)",
        re.compile(r"walkthrough", re.IGNORECASE),
    ),
    ("a stop of the work", re.compile(r"\b(?:stop \d+|this stop|previous stop)\b", re.IGNORECASE)),
    (
        "a session of the work",
        re.compile(r"\b(?:this|previous|last|next|earlier) session\b", re.IGNORECASE),
    ),
)


def _text_files() -> list[Path]:
    files = {path for glob in TEXT_FILES for path in ROOT.glob(glob) if path.is_file()}
    return sorted(files)


def _string_sources() -> list[Path]:
    return sorted({path for glob in STRING_SOURCES for path in ROOT.glob(glob)})


def _strings(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every string literal of a Python source (f-strings' literal parts
    included)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]


def internal_language(text: str) -> list[tuple[str, str]]:
    """(what it is, the words) of every piece of internal language in ``text``."""
    return [(what, m.group(0)) for what, pattern in PATTERNS for m in pattern.finditer(text)]


def _hits(path: Path) -> list[str]:
    where = path.relative_to(ROOT)
    if path.suffix == ".py":
        pieces = _strings(path)
    else:
        pieces = list(enumerate(path.read_text().splitlines(), start=1))
    return [
        f"{where}:{line}: {what}: {words!r}"
        for line, text in pieces
        for what, words in internal_language(text)
    ]


def test_the_files_are_found():
    """The globs name files that exist, so a moved folder cannot silence the test."""
    texts, sources = _text_files(), _string_sources()
    assert ROOT / "README.md" in texts and ROOT / "config" / "quick.yaml" in texts
    assert any(p.parent.name == "tutorials" for p in texts)
    assert ROOT / "hyst" / "plotting" / "captions.py" in sources
    assert any(p.parent.name == "cli" for p in sources)


@pytest.mark.parametrize(
    "path",
    [*_text_files(), *_string_sources()],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_no_internal_language(path):
    hits = _hits(path)
    assert not hits, "internal language in text a user reads:\n" + "\n".join(hits)


@pytest.mark.parametrize(
    "text",
    [
        "as measured for issue 26",
        "fixed in #12",
        "(see #3)",
        "before (`3fb3a92`) and after",
        "at commit 4b28686c0ffee",
        "the drive protocols of the peer tool `hysteron`",
        "the peer's count",
        "the walkthrough's example graph",
        "the quick preset of stop 12",
        "as in the previous session",
    ],
)
def test_the_patterns_catch_internal_language(text):
    assert internal_language(text)


@pytest.mark.parametrize(
    "text",
    [
        "N. Keim's `hysteron` package (Keim & Paulsen, Sci. Adv. 2021)",
        "colour #1f77b4, file results/points/NJ0-10-3fa9c2e1.nc, 1e-05",
        "H^+(S) = h_i^+ - sum_j c_ij s_j; 2,368 times faster; N = 1024",
        "test_symmetric_drive_agrees_with_the_peer_on_300_instances",
        "a branch stops 2 states later",
    ],
)
def test_the_patterns_leave_physics_alone(text):
    assert internal_language(text) == []
