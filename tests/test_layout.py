"""The shape of the code base: one seam per kind of thing, no study names in code, versions
that agree, benchmarks independent of the tests."""

import re
from pathlib import Path

import yaml

import hyst

REPO = Path(__file__).resolve().parents[1]


def _code_files():
    return [
        *REPO.joinpath("hyst").rglob("*.py"),
        *REPO.joinpath("workflow").rglob("*.smk"),
        *REPO.joinpath("workflow").rglob("*.py"),
        REPO / "Snakefile",
    ]


def test_no_study_of_the_presets_is_named_in_the_package_or_the_workflow():
    """Studies and figure bindings are configuration. (Names without an underscore, such as
    "rules" or "spins", are ordinary words and are not searched for.)"""
    names = set()
    for preset in ("config.yaml", "medium.yaml", "quick.yaml"):
        config = yaml.safe_load((REPO / "config" / preset).read_text())
        names |= {n for n in (*config["studies"], *config["figures"]) if "_" in n}
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, sorted(names))) + r")\b")
    hits = [
        f"{path.relative_to(REPO)}:{i}: {line.strip()}"
        for path in _code_files()
        for i, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert hits == []


def test_versions_agree_and_change_with_the_code():
    pyproject = (REPO / "pyproject.toml").read_text()
    assert f'version = "{hyst.RELEASE}"' in pyproject
    cff = yaml.safe_load((REPO / "CITATION.cff").read_text())
    assert cff["version"] == hyst.RELEASE
    assert hyst.__version__.startswith(f"{hyst.RELEASE}+src.")


def test_modules_stay_small_and_benchmarks_do_not_import_the_tests():
    sizes = {
        p.relative_to(REPO): len(p.read_text().splitlines()) for p in REPO.glob("hyst/**/*.py")
    }
    assert {p: n for p, n in sizes.items() if n > 700} == {}
    for bench in REPO.glob("benchmarks/*.py"):
        text = bench.read_text()
        assert "tests" not in re.findall(r"sys\.path\.insert\(.*", text).__str__()
        assert not re.search(r"^\s*(from|import) (conftest|naive|peer)\b", text, re.M)
