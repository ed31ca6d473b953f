"""`hyst system`: known graphs (the N = 2 L = 4 criterion, symmetric systems without loops),
field ranges of the loops, GraphML/DOT/picture output, the sampler's system, bad input."""

from __future__ import annotations

import json

import matplotlib

matplotlib.use("Agg")

import matplotlib.image as mpimg  # noqa: E402
import networkx as nx  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from hyst.cli.main import build_parser, main  # noqa: E402
from hyst.model.ensembles import sample_systems  # noqa: E402
from hyst.model.relax import StateTables  # noqa: E402
from hyst.model.systems import Systems  # noqa: E402
from hyst.model.transition_graph import transition_graph  # noqa: E402
from hyst.model.two_elements import l4_condition  # noqa: E402
from hyst.systems.files import load_system, sampled_system  # noqa: E402
from hyst.systems.graphs import to_networkx  # noqa: E402
from hyst.systems.self_loops import rule0_range, self_loops  # noqa: E402


def _write(tmp_path, name, hp, hm, c):
    path = tmp_path / name
    path.write_text(json.dumps({"h_plus": hp, "h_minus": hm, "c": c}))
    return path


def _spins(c12, c21, delta_h=1.0):
    """Two binary spins (sigma = 0) with midpoints -+delta_h/2."""
    h = [-delta_h / 2, delta_h / 2]
    return h, h, [[0.0, c12], [c21, 0.0]]


def test_two_spins_follow_the_l4_criterion(tmp_path, capsys):
    """An L = 4 self-loop of two spins iff c12 c21 < 0 and |c12 - c21| > |Delta h^c|."""
    seen = {True: 0, False: 0}
    for c12 in (-1.7, -0.9, -0.3, 0.2, 0.6, 1.3):
        for c21 in (-1.1, -0.45, 0.35, 0.8, 1.6):
            expected = bool(l4_condition(c12, c21, 0.0, 1.0))
            path = _write(tmp_path, "s.json", *_spins(c12, c21))
            assert main(["system", "--file", str(path)]) == 0
            out = capsys.readouterr().out
            assert ("self-loop #1: L = 4, n_e = 2" in out) == expected, (c12, c21, out)
            assert ("self-loops: none" in out) == (not expected)
            seen[expected] += 1
    assert seen[True] >= 5 and seen[False] >= 5


def test_two_spins_loop_fills_the_gap():
    """Completely asymmetric spins c12 = -c21 = c: the loop occurs exactly in the gap,
    the range of H where no state is stable, of size |Delta c| - |Delta h^c| (Supplemental)."""
    for c in (0.8, 1.5):
        sy = Systems.from_floats(*_spins(c, -c))
        graph = transition_graph(sy)
        (loop,) = self_loops(graph, sy)
        lo, hi = loop.field_range()
        assert np.isclose(hi - lo, 2 * c - 1.0)
        ranges = graph.stability_ranges
        assert all(b <= lo + 1e-12 or a >= hi - 1e-12 for a, b in ranges)  # nothing stable
        ends = np.concatenate([ranges[:, 0], ranges[:, 1]])
        assert np.isclose(ends, lo).any() and np.isclose(ends, hi).any()  # bounded by them


def test_symmetric_systems_have_no_loop(tmp_path, capsys):
    rng = np.random.default_rng(4)
    systems = sample_systems("symmetric", "hysteron", 5, 20.0, 10, rng)
    hp, hm, c = systems.to_floats()
    for k in range(10):
        path = _write(tmp_path, "s.json", hp[k].tolist(), hm[k].tolist(), c[k].tolist())
        assert main(["system", "--file", str(path), "--rule", "1"]) == 0
        out = capsys.readouterr().out
        assert "self-loops: none" in out and "self-loop #" not in out
        assert " up   at " in out and " down at " in out


def test_field_ranges_of_rule_0_loops_and_no_range_for_rule_2(tmp_path):
    rng = np.random.default_rng(9)
    met = 0
    for N in (2, 3, 4):
        systems = sample_systems("random", "spin", N, 6.0 * N, 40, rng)
        for k in range(40):
            sy = systems[k]
            graph = transition_graph(sy, 0, "0")
            for loop in self_loops(graph, sy):
                lo, hi = loop.range2
                assert rule0_range(sy, list(loop.cycle)) == (lo, hi)
                tables = StateTables(sy)
                for two_h, inside in ((lo + 1, True), (lo - 1, False), (hi + 1, False)):
                    if two_h % 2 or (inside and not lo < two_h < hi):
                        continue
                    rel = tables.relax(loop.cycle[0], (two_h // 2, 0), "0")
                    got = rel.outcome == "self_loop" and rel.cycle_states == loop.cycle
                    assert got == inside
                met += 1
            graph2 = transition_graph(sy, 0, "2")
            assert all(loop.range2 is None for loop in self_loops(graph2, sy))
    assert met > 3


def test_outputs_graphml_dot_and_picture(tmp_path, capsys):
    path = _write(tmp_path, "s.json", *_spins(1.5, -1.5))
    stem = tmp_path / "out" / "g"
    assert main(["system", "--file", str(path), "-o", str(stem)]) == 0
    out = capsys.readouterr().out
    assert "wrote" in out
    g = nx.read_graphml(stem.with_suffix(".graphml"))
    kinds = [d["kind"] for _a, _b, d in g.edges(data=True)]
    assert kinds.count("self_loop") == 4  # the L = 4 cycle
    assert {d["kind"] for _n, d in g.nodes(data=True)} == {"stable", "unstable"}
    dot = stem.with_suffix(".dot").read_text()
    assert dot.startswith(("digraph", "strict digraph")) and "orange" in dot
    img = mpimg.imread(stem.with_suffix(".png"))
    assert img.std() > 0


def test_networkx_graph_of_a_system_without_loops():
    sy = Systems.from_floats([0.5, 1.0], [-0.5, 0.0], [[0, 0.2], [0.2, 0]])
    graph = transition_graph(sy)
    g = to_networkx(graph, self_loops(graph, sy))
    assert set(g.nodes) == set(graph.states)
    assert g.number_of_edges() == len(graph.edges())
    assert {d["kind"] for *_e, d in g.edges(data=True)} == {"up", "down"}


def test_the_sampler_system(capsys):
    assert (
        main(
            [
                "system",
                "--couplings",
                "random",
                "--N",
                "4",
                "--NJ0",
                "16",
                "--samples",
                "100",
                "--index",
                "3",
                "--seed",
                "3",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    sy = sampled_system("random", "hysteron", 4, 16.0, 3, 100, 3)
    graph = transition_graph(sy)
    assert f"{len(graph.states)} potentially stable states" in out
    assert out.count("self-loop #") == len(self_loops(graph, sy)) + sum(
        t.outcome == "self_loop" for t in graph.transitions
    )


@pytest.mark.parametrize(
    "args,message",
    [
        (["--couplings", "random", "--N", "3"], "--NJ0: required without --file"),
        (["--couplings", "nope"], "invalid choice"),
        (
            ["--couplings", "random", "--N", "3", "--NJ0", "1", "--samples", "5", "--index", "5"],
            "index: 5 is not allowed",
        ),
    ],
)
def test_bad_ensemble_specs_give_one_line(args, message, capsys):
    code = None
    try:
        code = main(["system", *args])
    except SystemExit as stop:
        code = stop.code
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "content,message",
    [
        ('{"h_plus": [0, 1], "h_minus": [0, 0], "c": [[0, 1, 2], [1, 0, 2]]}', "square"),
        ('{"h_plus": [0, 1], "h_minus": [0, 0], "c": [[1, 1], [1, 0]]}', "must be 0"),
        ('{"h_plus": [0, 1, 2], "h_minus": [0, 0], "c": [[0, 1], [1, 0]]}', "N = 2 entries"),
        ('{"h_plus": [NaN, 1], "h_minus": [0, 0], "c": [[0, 1], [1, 0]]}', "not a finite"),
        ('{"h_plus": [0, 1], "c": [[0, 1], [1, 0]]}', "missing key 'h_minus'"),
        ("{", "not valid JSON"),
    ],
)
def test_bad_files_give_one_line(tmp_path, capsys, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    assert main(["system", "--file", str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("suffix", [".yaml", ".json", ".npz"])
def test_export_writes_what_file_reads_back_exactly(tmp_path, capsys, suffix):
    """A sampled system exported, read back with --file: the very same integers, the very
    same report (the round trip of --export and --file)."""
    spec = ["--couplings", "random", "--N", "5", "--NJ0", "12", "--samples", "50"]
    spec += ["--index", "7", "--seed", "2"]
    path = tmp_path / "new" / f"s{suffix}"
    assert main(["system", *spec, "--export", str(path)]) == 0
    first = capsys.readouterr()
    assert f"created the folder {path.parent}" in first.err
    assert f"wrote {path}" in first.out
    assert main(["system", "--file", str(path)]) == 0
    second = capsys.readouterr().out
    sampled = sampled_system("random", "hysteron", 5, 12.0, 2, 50, 7)
    read = load_system(path)
    for name in ("h_plus", "h_minus", "couplings"):
        assert np.array_equal(getattr(read, name), getattr(sampled, name)), name
    body = lambda text: text.split("\n", 1)[1].split("wrote")[0]  # noqa: E731 (after "system:")
    assert body(first.out) == body(second)


def test_report_columns_plurals_and_race_explained(capsys):
    spec = ["--couplings", "random", "--N", "4", "--NJ0", "16", "--samples", "100"]
    assert main(["system", *spec, "--index", "0"]) == 0
    out = capsys.readouterr().out.splitlines()
    head = next(i for i, ln in enumerate(out) if ln.strip().startswith("state"))
    states = int(out[head - 1].split(": ")[1].split()[0])  # "N = 4, rule 1: 6 potentially ..."
    rows = out[head : head + 1 + states]
    assert len({len(r) for r in rows}) == 1, rows  # the header is as wide as the rows
    for col in ("m", "H^-(S)", "H^+(S)"):  # right-aligned under their headers
        end = out[head].index(col) + len(col)
        assert all(r[end - 1] != " " for r in rows), (col, rows)
    text = "\n".join(out)
    assert "(1 flips)" not in text and "(1 flip)" in text
    assert "  race: several elements were unstable at once" in text
    assert "rule 1 chose which flips" in text


def test_help_has_a_string_for_every_option_and_no_sphinx_roles(capsys):
    with pytest.raises(SystemExit):
        main(["system", "--help"])
    text = capsys.readouterr().out
    assert ":func:" not in text and ":mod:" not in text and "``" not in text
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices["system"]
    for action in sub._actions:
        assert action.help, action.option_strings
    assert "--export" in text and "race-condition rules:" in text


def test_the_picture_has_a_legend_entry_for_every_mark(tmp_path):
    from hyst.plotting.loops import fig_transition_graph

    sy = sampled_system("random", "hysteron", 4, 16.0, 0, 100, 0)  # two loops, entries
    graph = transition_graph(sy)
    loops = self_loops(graph, sy)
    fig = fig_transition_graph(graph, loops)
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert labels == [
        "potentially stable state",
        "unstable state of a loop",
        "up transition (H rises)",
        "down transition (H falls)",
        "transition into a self-loop",
        "self-loop step",
    ]
