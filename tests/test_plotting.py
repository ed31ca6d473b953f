"""Figures: every figure type renders its content (panels, labels from the catalogue, one
curve per N, the paper's slopes) in the house style from small synthetic datasets."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.image as mpimg  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import xarray as xr  # noqa: E402
from matplotlib.path import Path as MplPath  # noqa: E402

from hyst import catalogue, plotting  # noqa: E402
from hyst.catalogue import labels  # noqa: E402
from hyst.model.two_elements import l4_region_polygons  # noqa: E402
from hyst.plotting import l4 as l4_figures  # noqa: E402
from hyst.plotting import style as house  # noqa: E402
from hyst.plotting import sweeps  # noqa: E402

PROBABILITIES = (
    "gap_probability_at_zero",
    "self_loop_probability_at_zero",
    "self_loop_probability_at_zero_random_start",
    "self_loop_probability_well_defined",
    "self_loop_probability",
    "race_condition_probability",
)
MEANS = ("gap_fraction", "potentially_stable_over_spins")
TRIALS = 400


def make_study(
    study: str,
    N=(2, 3, 4),
    NJ0=(0.1, 1.0, 10.0, 100.0),
    rules=("1",),
    couplings=("random",),
    spans=("hysteron",),
    nan_at=None,
    l4=60,
    seed=0,
) -> xr.Dataset:
    """A study dataset with the pipeline layout: smooth probabilities, histograms, L4 records."""
    rng = np.random.default_rng(seed)
    dims = ("couplings", "spans", "rule", "N", "NJ0")
    shape = (len(couplings), len(spans), len(rules), len(N), len(NJ0))
    n = np.asarray(N, float)[None, None, None, :, None]
    x = np.asarray(NJ0, float)[None, None, None, None, :]
    r = np.arange(len(rules), dtype=float)[None, None, :, None, None]
    base = np.broadcast_to(x**3 / (1.0 + x**3), shape)
    data = {}
    for k, name in enumerate(PROBABILITIES):
        p = base * (1.0 - 0.5 * np.exp(-n / 3.0)) * (0.9 - 0.1 * k) / (1.0 + 0.1 * r)
        count = np.round(p * TRIALS).astype(np.int64)
        p = count / TRIALS
        p = np.array(p, float)
        if nan_at is not None:
            p[..., nan_at] = np.nan
        data[name] = (dims, p)
        data[f"{name}_count"] = (dims, count)
        data[f"{name}_trials"] = (dims, np.full(shape, TRIALS, np.int64))
        data[f"{name}_stderr"] = (dims, np.sqrt(p * (1 - p) / TRIALS))
    fg = np.array(base * 0.4 / n, float)
    ps = np.array(np.broadcast_to(1.0 + 0.3 * (n - 1) / (1.0 + x), shape), float)
    for name, v in zip(MEANS, (fg, ps), strict=True):
        data[name] = (dims, v)
        data[f"{name}_stderr"] = (dims, 0.01 * v)
        data[f"{name}_trials"] = (dims, np.full(shape, TRIALS, np.int64))
    L = np.arange(0, 17)
    hist = np.where((L >= 4) & (L % 2 == 0), np.round(1000 * np.exp(-L / 3.0)), 0)
    hist = np.broadcast_to(hist, (*shape, L.size)).astype(np.int64)
    data["self_loop_length_hist"] = ((*dims, "L"), hist)
    # L = 4 records inside the spin region, with random orientation
    a = rng.uniform(0.1, 3.0, l4)
    b = -rng.uniform(0.1, 3.0, l4)
    a, b = np.where(a - b > 1, a, a + 1), b
    flip = rng.random(l4) < 0.5
    dh = rng.uniform(0.2, 2.0, l4)
    hk = rng.normal(size=l4)
    data["l4_c_kl"] = (("l4_loop",), np.where(flip, b, a) * dh)
    data["l4_c_lk"] = (("l4_loop",), np.where(flip, a, b) * dh)
    data["l4_h_tilde_k"] = (("l4_loop",), np.where(flip, hk + dh, hk))
    data["l4_h_tilde_l"] = (("l4_loop",), np.where(flip, hk, hk + dh))
    data["l4_sigma_k"] = (("l4_loop",), np.zeros(l4))
    data["l4_sigma_l"] = (("l4_loop",), np.zeros(l4))
    # each record's point as indices into the coordinates (the collected layout)
    data["l4_spans_index"] = (("l4_loop",), (np.arange(l4) % len(spans)).astype(np.int8))
    for axis in ("couplings", "rule", "N", "NJ0"):
        data[f"l4_{axis}_index"] = (("l4_loop",), np.zeros(l4, np.int8))
    coords = {
        "couplings": list(couplings),
        "spans": list(spans),
        "rule": list(rules),
        "N": np.asarray(N, np.int64),
        "NJ0": np.asarray(NJ0, float),
        "L": L,
    }
    return xr.Dataset(data, coords=coords, attrs={"study": study})


def make_pairs(sigmas=(0.0, 0.5, 2.0), samples=400, c_max=3.0, delta_h=1.0, seed=1):
    """N = 2 pairs: (c12, c21) uniform, self_loop from the Supplemental conditions."""
    rng = np.random.default_rng(seed)
    c12 = rng.uniform(-c_max, c_max, (len(sigmas), samples))
    c21 = rng.uniform(-c_max, c_max, (len(sigmas), samples))
    s = np.asarray(sigmas, float)[:, None]
    loop = (
        (c12 * c21 < 0)
        & (np.abs(c12 - c21) > np.abs(delta_h + s))
        & (np.abs(c12) > s / 2)
        & (np.abs(c21) > s / 2)
    )
    return xr.Dataset(
        {
            "c12": (("sigma", "pair"), c12),
            "c21": (("sigma", "pair"), c21),
            "self_loop": (("sigma", "pair"), loop.astype(np.int8)),
        },
        coords={"sigma": list(sigmas), "pair": np.arange(samples)},
        attrs={"delta_h": delta_h, "c_max": c_max},
    )


SPANS = ("equal", "hysteron", "spin")


def make_datasets(NJ0=(0.1, 1.0, 10.0, 100.0), nan_at=None) -> dict:
    kw = {"NJ0": NJ0, "nan_at": nan_at}
    return {
        "random_hysterons": make_study("random_hysterons", **kw),
        "spins": make_study("spins", spans=("spin",), **kw),
        "equal_spans": make_study("equal_spans", spans=("equal",), **kw),
        "weak_asymmetry": make_study("weak_asymmetry", couplings=("weak",), **kw),
        "rules": make_study("rules", rules=("0", "1", "1p", "2"), **kw),
        "rules_sizes": make_study("rules_sizes", N=(8,), NJ0=(20.0,), rules=("0", "1", "1p", "2")),
        "well_behaved_rule2": make_study(
            "well_behaved_rule2", couplings=("columns", "rows", "symmetric"), rules=("2",), **kw
        ),
        "pairs": make_pairs(),
        "large_l4": make_study(
            "large_l4", spans=("spin", "hysteron"), N=(1024,), NJ0=(10.0,), l4=200
        ),
        "beyond": make_study("beyond", N=(2, 4, 8, 12, 14, 16), spans=SPANS, **kw),
    }


def make_networks():
    """Small networks datasets: the paper's (d1, d2) panels on a coarse grid and a few
    random-chain points (real, fast computations)."""
    from hyst.networks.chains import chains_dataset
    from hyst.networks.scan import PAPER_PANELS, cell_centres, scan_panels

    planes = scan_panels(PAPER_PANELS, cell_centres(-3.0, 3.0, 24))
    chains = chains_dataset([0.0, 0.5, 1.0], [2, 6, 20], samples=40, seed=1, checks=1)
    return {"planes": planes, "chains": chains}


def make_loops() -> xr.Dataset:
    """A loops study dataset with the representatives of L = 4, 6, 8 and made-up statuses."""
    from hyst.combinatorics.structures import enumerate_cell

    cells = [(2, 4), (3, 6), (3, 8), (4, 8)]
    parts = [(n, L, enumerate_cell(n, L)) for n, L in cells]
    flips = np.full((sum(p.count for *_c, p in parts), 8), -1, np.int8)
    row = 0
    for _n, L, p in parts:
        flips[row : row + p.count, :L] = p.flips
        row += p.count
    status = np.arange(flips.shape[0]) % 2
    return xr.Dataset(
        {
            "loop_n_e": ("loop", np.concatenate([np.full(p.count, n) for n, _L, p in parts])),
            "loop_L": ("loop", np.concatenate([np.full(p.count, L) for _n, L, p in parts])),
            "loop_start": ("loop", np.concatenate([p.starts for *_c, p in parts])),
            "loop_flips": (("loop", "step"), flips),
            "loop_status_M_R": ("loop", status),
            "loop_status_M_W": ("loop", 1 - status),
        },
        attrs={"kind": "loops"},
    )


@pytest.fixture(scope="module")
def datasets():
    return {
        **make_datasets(),
        **make_networks(),
        "loops": make_loops(),
        "large_n": _large_n_dataset(),
        "largest_n_avalanches": _large_n_dataset(Ns=(1024,)),
        "large_n_rule0": _large_n_dataset(rules=("0",)),
        "large_n_rule1p": _large_n_dataset(rules=("1p",)),
        "multiperiodic": _multiperiodic_dataset(),
        "tgraphs": _tgraphs_dataset(),
        "designed": _designed_dataset(),
        "races": _races_dataset(),
        "direction_dependent": _direction_dependent_dataset(),
    }


def _direction_dependent_dataset() -> xr.Dataset:
    """A points dataset with a direction_asymmetry axis: P_sl grows with alpha."""
    base = make_study("direction_dependent", couplings=("random", "symmetric"), N=(4, 6))
    alphas = (0.0, 0.5, 1.0)
    parts = [
        base.assign(self_loop_probability=base.self_loop_probability * (0.3 + 0.7 * a))
        for a in alphas
    ]
    return xr.concat(parts, dim="direction_asymmetry").assign_coords(
        direction_asymmetry=list(alphas)
    )


def _designed_dataset() -> xr.Dataset:
    """Groups addressability, reachability, periods and multiperiodic over two coupling and
    two span ensembles; some probabilities 0 of n (drawn as upper bounds)."""
    ds = make_study(
        "designed", N=(2, 4, 8), couplings=("random", "symmetric"), spans=("hysteron", "spin")
    )
    names = [
        "all_addressable_probability",
        "odd_period_probability",
        "return_point_memory_probability",
        *(f"period_{k}_probability" for k in range(1, 9)),
    ]
    for k, new in enumerate(names):
        old = ("race_condition_probability", "self_loop_probability")[k % 2]
        for suffix in ("", "_count", "_trials", "_stderr"):
            ds[new + suffix] = ds[old + suffix].copy()
    for new in ("all_addressable_probability", "odd_period_probability"):  # 0 of n at N = 8
        for suffix in ("", "_count", "_stderr"):
            ds[new + suffix].loc[{"N": 8}] = 0
    for new, scale in (("addressable_share", 0.5), ("reachable_share", 0.7)):
        ds[new] = ds["gap_fraction"] * scale
        ds[new + "_stderr"] = ds["gap_fraction_stderr"] * scale
        ds[new + "_trials"] = ds["gap_fraction_trials"]
    return ds


def _races_dataset() -> xr.Dataset:
    """A races study over two N and two N J0 (real, fast computations: 60 systems each)."""
    from hyst.studies.races import sample_point

    def point(N, NJ0):
        payload = {
            "couplings": "random",
            "spans": "hysteron",
            "N": N,
            "NJ0": NJ0,
            "flip_time_decades": [0.0, 2.0, 6.0],
            "samples": 60,
            "random_order_samples": 30,
            "seed": 1,
        }
        return sample_point(payload)

    rows = [xr.concat([point(N, x) for x in (1.0, 10.0)], "NJ0") for N in (4, 5)]
    ds = xr.concat(rows, "N").assign_coords(N=[4, 5], NJ0=[1.0, 10.0])
    return ds.expand_dims(couplings=["random"], spans=["hysteron"]).assign_attrs(kind="races")


def _tgraphs_dataset() -> xr.Dataset:
    """The exact census of n = 2 with its sampled shares (hyst.tgraphs.census)."""
    import hyst

    return hyst.tgraphs.census(2, samples=2000)


def _multiperiodic_dataset() -> xr.Dataset:
    """Group multiperiodic over four coupling and two span ensembles; no T > 1 with
    constant columns (the figure says so)."""
    ds = make_study(
        "multiperiodic",
        couplings=("random", "symmetric", "columns", "rows"),
        spans=("hysteron", "spin"),
    )
    for new, old in (
        ("multiperiodic_probability", "race_condition_probability"),
        ("self_loop_before_multiperiodic_probability", "self_loop_probability"),
    ):
        for suffix in ("", "_count", "_trials", "_stderr"):
            ds[new + suffix] = ds[old + suffix]
    ds["multiperiodic_probability"].loc[{"couplings": "columns"}] = 0.0
    return ds


def assert_written(paths, n=2):
    assert len(paths) == n
    for path in paths:
        assert path.exists() and path.stat().st_size > 0
    png = next(p for p in paths if p.suffix == ".png")
    img = mpimg.imread(png)
    assert img.std() > 0  # not a blank canvas


#: The synthetic datasets bound to each figure type (as the presets bind studies).
BINDINGS = {
    "gaps_and_self_loops": ["random_hysterons"],
    "race_conditions": ["spins", "random_hysterons", "equal_spans"],
    "stable_states": ["spins", "random_hysterons", "equal_spans"],
    "gap_vs_self_loops": ["spins", "random_hysterons", "equal_spans"],
    "rules": ["rules", "rules_sizes"],
    "rule2_self_loops": ["well_behaved_rule2"],
    "l4_pairs": ["pairs"],
    "l4_large": ["large_l4"],
    "avalanches_and_transients": ["large_n", "large_n_rule0", "large_n_rule1p"],
    "avalanche_distributions": ["largest_n_avalanches", "large_n"],
    "cyclic_drive": ["large_n"],
    "networks_fig3": ["planes"],
    "bilinear_curves": ["planes"],
    "spin_like_elements": ["planes"],
    "hysteretic_elements": ["planes"],
    "self_loop_conditions": ["planes"],
    "symmetric_elements": ["planes"],
    "random_chains": ["chains"],
    "fundamental_loops": ["loops"],
    "self_loops_by_asymmetry": ["direction_dependent"],
    "flip_time_spread": ["races"],
    "random_order_traps": ["races"],
    "self_loop_free_versus_n": ["beyond"],
    "local_slopes": ["random_hysterons"],
    "multiperiodic_orbits": ["multiperiodic"],
    "tgraph_shares": ["tgraphs", "random_hysterons"],
    "designed_addressability": ["designed"],
    "designed_periods": ["designed"],
    "designed_odd_periods_and_memory": ["designed"],
}
FIG2 = (
    "gap_probability_at_zero",
    "gap_fraction",
    "self_loop_probability_at_zero",
    "self_loop_probability",
)
SLOPE = r"$d \ln P / d \ln (N J_0)$"
#: Per figure type: (number of main panels, the y label of each panel, from the catalogue).
CONTENT = {
    "gaps_and_self_loops": (4, [catalogue.label(o) for o in FIG2]),
    "race_conditions": (3, [catalogue.label("race_condition_probability")] * 3),
    "stable_states": (3, [catalogue.label("potentially_stable_over_spins")] * 3),
    "gap_vs_self_loops": (3, [catalogue.label("self_loop_probability_at_zero")] * 3),
    "rules": (8, [catalogue.label("self_loop_probability")] * 4 + ["$P(L)$"] * 4),
    "rule2_self_loops": (
        6,
        [catalogue.label("self_loop_probability")] * 3 + [r"self-loops of length $L$"] * 3,
    ),
    "l4_pairs": (3, ["$c_{21}$"] * 3),
    "l4_large": (2, [r"$c_{lk}/\Delta\tilde h^c$"] * 2),
    "avalanches_and_transients": (
        4,
        [
            catalogue.label(o)
            for o in ("avalanche_size", "avalanche_size", "transient", "transient")
        ],
    ),
    "avalanche_distributions": (6, ["$P(A)$"] * 3 + [catalogue.label("avalanche_size")] * 3),
    "cyclic_drive": (6, [catalogue.label("transient")] * 3 + [catalogue.label("period")] * 3),
    # in reading order: the two elements, the spring, the two loops; the two planes below
    "networks_fig3": (6, ["$f_i$", "$f_i$", "$f$", "", "$d_2$", "$d_2 = -c_{12}$"]),
    "bilinear_curves": (4, ["$f_i$"] * 4),
    "spin_like_elements": (6, ["$d_2$"] * 3 + ["state"] * 3),
    "hysteretic_elements": (12, ["$d_2$"] * 12),
    "self_loop_conditions": (1, ["$d_2$"]),
    "symmetric_elements": (4, ["family"] + ["state"] * 3),
    "random_chains": (
        3,
        [
            catalogue.label("self_loop_probability"),
            catalogue.label("gap_probability_at_zero"),
            r"$10^3\times$ share of loops with $n_e \geq 2$",
        ],
    ),
    "fundamental_loops": (3, [r"magnetisation $m$"] * 3),
    "self_loop_free_versus_n": (
        4,
        [catalogue.label("self_loop_probability")] * 3 + [r"$1-P_{sl}$"],
    ),
    # P_g^0, f_G, both P_sl^0, P_sl, P_sl among well-defined instances and P_RC: three per
    # row, the slope label on the first column
    "local_slopes": (7, [SLOPE, "", "", SLOPE, "", "", SLOPE]),
    "multiperiodic_orbits": (
        10,
        [catalogue.label("multiperiodic_probability"), "", "", "", ""]
        + [catalogue.label("self_loop_before_multiperiodic_probability"), "", "", "", ""],
    ),
    "tgraph_shares": (2, ["share well defined (reachable states)", ""]),
    "designed_addressability": (
        6,
        [catalogue.label("all_addressable_probability"), "", ""]
        + [r"share of the $2^N$ states", "", ""],
    ),
    "designed_periods": (2, [r"$P(T = k)$", ""]),
    "designed_odd_periods_and_memory": (
        2,
        [catalogue.label(o) for o in ("odd_period_probability", "return_point_memory_probability")],
    ),
    "flip_time_spread": (3, [r"$P_{sl}$", r"$P_{sl}^0$", r"$P_{\mathrm{RC}}$"]),
    "random_order_traps": (2, ["random order: share trappable", "share trappable"]),
    "self_loops_by_asymmetry": (2, [catalogue.label("self_loop_probability"), ""]),
}


def _bound(name, datasets):
    return [datasets.get(d) for d in BINDINGS[name]]


def test_every_figure_type_is_bound_and_checked():
    assert set(BINDINGS) == set(plotting.FIGURE_TYPES) == set(CONTENT)


@pytest.fixture(scope="module")
def rendered(datasets):
    """Each figure type drawn once from its synthetic datasets, for every test of it."""
    figures = {}

    def figure(name):
        if name not in figures:
            figures[name] = plotting.render(name, _bound(name, datasets))
        return figures[name]

    yield figure
    for fig in figures.values():
        plt.close(fig)


@pytest.mark.parametrize("name", sorted(plotting.FIGURE_TYPES))
def test_no_text_of_any_figure_type_overlaps_another_or_covers_a_marker(name, rendered):
    from figure_layout import layout_problems

    assert layout_problems(rendered(name)) == []


@pytest.mark.parametrize("name", sorted(plotting.FIGURE_TYPES))
def test_every_figure_type_renders_its_content_in_the_house_style(name, rendered, tmp_path):
    fig = rendered(name)
    panels = [ax for ax in fig.axes if ax.get_subplotspec() is not None]
    n, ylabels = CONTENT[name]
    assert len(panels) == n
    assert [ax.get_ylabel() for ax in panels] == ylabels
    for i, ax in enumerate(panels):  # panel letters (a), (b), ... in order
        assert ax.get_title(loc="left").startswith(f"({chr(ord('a') + i)})")
        ticks = ax.xaxis.get_major_ticks()
        assert ticks and ticks[0]._tickdir == "in"  # the house style, large-N figures included
    assert_written(plotting.save(fig, tmp_path / name, dpi=50))


def test_curves_are_one_per_N_with_N_legends(datasets):
    ds = datasets["random_hysterons"]
    fig = plotting.render("gaps_and_self_loops", [ds])
    main = [ax for ax in fig.axes if ax.get_subplotspec() is not None]
    for ax in main:
        handles, labels = ax.get_legend_handles_labels()  # error-bar curves and lines
        assert labels == [str(n) for n in ds.N.values]  # one curve per N
        assert ax.get_xlabel() == "$N J_0$"
    legend = main[0].get_legend()
    assert legend.get_title().get_text() == "$N$"
    assert [t.get_text() for t in legend.get_texts()] == [str(n) for n in ds.N.values]


def test_reference_slopes_are_the_papers_for_the_ensemble_shown(datasets):
    def slopes(fig):
        return [
            t.get_text() for ax in fig.axes for t in ax.texts if t.get_text().startswith("slope")
        ]

    assert slopes(plotting.render("gaps_and_self_loops", [datasets["random_hysterons"]])) == [
        "slope 4",
        "slope 4",
        "slope 4",
        "slope 3",
    ]
    assert slopes(plotting.render("gaps_and_self_loops", [datasets["spins"]])) == [
        "slope 2",
        "slope 2",
        "slope 2",
        "slope 2/3",
    ]
    assert slopes(plotting.render("gaps_and_self_loops", [datasets["weak_asymmetry"]])) == [
        "slope 5",
        "slope 4",
        "slope 5",
        "slope 4",
    ]
    assert slopes(plotting.render("gaps_and_self_loops", [datasets["equal_spans"]])) == []
    assert (
        slopes(plotting.render("rule2_self_loops", [datasets["well_behaved_rule2"]]))
        == ["slope 4"] * 3
    )


def test_registry_needs_and_errors():
    for name, ftype in plotting.FIGURE_TYPES.items():
        assert callable(ftype.function()) and ftype.description and ftype.needs, name
    with pytest.raises(KeyError, match="unknown figure type"):
        plotting.render("no_such_figure", [])
    with pytest.raises(KeyError, match="needs"):
        plotting.render("race_conditions", [make_study("spins")])


def _inset_titles(fig):
    return [c.get_title(loc="right") for ax in fig.axes for c in ax.child_axes]


def test_inset_falls_back_to_largest_nj0_and_nan(tmp_path):
    ds = make_datasets(NJ0=(0.1, 0.3, 1.0, 3.0, 10.0), nan_at=1)
    fig = plotting.render("gaps_and_self_loops", [ds["random_hysterons"]], inset_at=100)
    assert _inset_titles(fig) == ["$NJ_0 = 10$"]
    assert_written(plotting.save(fig, tmp_path / "fallback", dpi=40, formats=("png",)), 1)
    fig = plotting.render("rules", [ds["rules"], ds["rules_sizes"]])
    assert len(_inset_titles(fig)) == 4


def test_all_nan_and_zero_observables(tmp_path):
    ds = make_study("spins", spans=("spin",))
    ds["self_loop_probability"][:] = np.nan
    ds["gap_probability_at_zero"][:] = 0.0
    fig = sweeps.fig_gaps_and_self_loops(ds, slopes=(2, 2, 2, 2 / 3))
    assert_written(plotting.save(fig, tmp_path / "nan", dpi=40, formats=("png",)), 1)


def test_params_and_rules_without_sizes(datasets, tmp_path):
    fig = plotting.render(
        "gaps_and_self_loops", [datasets["equal_spans"]], slopes=[4, None, 4, 3], inset_at=10
    )
    assert _inset_titles(fig) == ["$NJ_0 = 10$"]
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert "slope 4" in texts and "slope 3" in texts
    fig = plotting.render("rules", [datasets["rules"]])  # the optional sizes study left out
    assert len(fig.axes) == 8


def test_analysis_annotations(datasets):
    coords = {"couplings": ["random"], "spans": ["hysteron"], "rule": ["1"]}
    dims = ("couplings", "spans", "rule")
    one = np.ones((1, 1, 1))
    analysis = xr.Dataset(
        {
            "self_loop_probability_pooled_exponent": (dims, 3.1 * one),
            "self_loop_probability_pooled_exponent_stderr": (dims, 0.2 * one),
            "self_loop_probability_xi": (dims, 2.5 * one),
            "self_loop_probability_decay_amplitude": (dims, one),
        },
        coords=coords,
        attrs={"study": "random_hysterons"},
    )
    for ana in (analysis, {"random_hysterons": analysis}):
        fig = plotting.render("gaps_and_self_loops", [datasets["random_hysterons"]], analysis=ana)
        texts = [t.get_text() for ax in fig.axes for t in ax.texts]
        assert any("3.10" in t and "0.20" in t for t in texts)
        inset_legends = [c.get_legend() for ax in fig.axes for c in ax.child_axes]
        inset_texts = [t.get_text() for g in inset_legends if g for t in g.get_texts()]
        assert "sampled" in inset_texts  # the grey line through the points
        assert any(r"\xi = 2.5" in t for t in inset_texts)  # the dashed fit
    # an analysis of another study is ignored
    other = analysis.assign_attrs(study="spins")
    fig = plotting.render("gaps_and_self_loops", [datasets["random_hysterons"]], analysis=other)
    assert not any("fit" in t.get_text() for ax in fig.axes for t in ax.texts)


@pytest.mark.parametrize("sigma", [0.0, 0.5, 2.0])
def test_l4_region_polygons_match_conditions(sigma):
    lim, dh = 4.0, 1.0
    polys = l4_region_polygons(sigma, dh, lim)
    assert len(polys) == 2
    g = np.linspace(-lim, lim, 160, endpoint=False) + 0.0237
    x, y = (a.ravel() for a in np.meshgrid(g, g))
    inside = np.zeros(x.size, bool)
    for p in polys:
        inside |= MplPath(p).contains_points(np.column_stack([x, y]))
    expected = (
        (x * y < 0)
        & (np.abs(x - y) > abs(dh + sigma))
        & (np.abs(x) > sigma / 2)
        & (np.abs(y) > sigma / 2)
    )
    assert np.mean(inside == expected) > 0.995  # only grid points on the boundary may differ


def test_l4_rescaled_orientation():
    ds = xr.Dataset(
        {
            "l4_c_kl": ("l4_loop", [2.0, -1.0]),
            "l4_c_lk": ("l4_loop", [-1.0, 2.0]),
            "l4_h_tilde_k": ("l4_loop", [0.0, 0.5]),
            "l4_h_tilde_l": ("l4_loop", [0.5, 0.0]),
        }
    )
    x, y = l4_figures.l4_rescaled(ds)
    np.testing.assert_allclose(x, [4.0, 4.0])
    np.testing.assert_allclose(y, [-2.0, -2.0])


def test_colors_light_to_dark_and_style_scoped():
    colors = house.n_colors([8, 2, 4])

    def lum(c):
        return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]

    assert lum(colors[2]) > lum(colors[4]) > lum(colors[8])
    before = dict(matplotlib.rcParams)
    with house.style():
        assert matplotlib.rcParams["xtick.direction"] == "in"
    assert matplotlib.rcParams["xtick.direction"] == before["xtick.direction"]
    assert math.isclose(float(labels.fmt_number(4.0)), 4.0)
    assert labels.fmt_number(2 / 3) == "2/3"


def test_non_default_parameters(datasets):
    d = datasets
    fig = sweeps.fig_stable_states(d["spins"], d["random_hysterons"], d["equal_spans"], log_y=True)
    assert all(ax.get_yscale() == "log" for ax in fig.axes)
    fig = sweeps.fig_gap_vs_self_loops(
        d["spins"], d["random_hysterons"], d["equal_spans"], log=False
    )
    assert all(ax.get_xscale() == "linear" for ax in fig.axes)
    fig = l4_figures.fig_large_l4(d["large_l4"], N=1024, NJ0=10.0, lim=3.0)
    assert any("% in the region" in ax.get_title(loc="left") for ax in fig.axes)
    fig = l4_figures.fig_large_l4(d["large_l4"], N=7)  # no records: still a figure
    assert len(fig.axes) == 2
    fig = l4_figures.fig_pairs_l4(d["pairs"].isel(sigma=[0]), lim=2.0, delta_h=0.5)
    assert len(fig.axes) == 1
    fig = sweeps.fig_well_behaved_rule2(d["well_behaved_rule2"], couplings=("rows",), slope=None)
    assert len([ax for ax in fig.axes if ax.get_subplotspec() is not None]) == 2


def _large_n_dataset(Ns=(16, 32), J0s=(0.01, 1.0, 100.0), rules=("1",)):
    couplings = ["symmetric", "columns", "rows"]
    shape = (len(couplings), 1, len(rules), len(Ns), len(J0s))
    rng = np.random.default_rng(0)
    data = {}
    for var in ("avalanche_size", "transient", "period"):
        data[var] = (("couplings", "spans", "rule", "N", "J0"), 1 + rng.random(shape))
        data[f"{var}_stderr"] = (("couplings", "spans", "rule", "N", "J0"), 0.05 * np.ones(shape))
    hist = rng.integers(0, 50, shape + (12,))
    data["avalanche_size_hist"] = (("couplings", "spans", "rule", "N", "J0", "A"), hist)
    ds = xr.Dataset(
        data,
        coords={
            "couplings": couplings,
            "spans": ["hysteron"],
            "rule": list(rules),
            "N": list(Ns),
            "J0": list(J0s),
            "A": np.arange(12),
        },
    )
    return ds.assign_coords(NJ0=ds.N * ds.J0)


def test_fundamental_loops_draw_every_short_loop(datasets):
    from hyst.plotting import loops as loop_figures

    fig = plotting.render("fundamental_loops", [datasets["loops"]], sample=8)
    a, b, c = (ax for ax in fig.axes if ax.get_subplotspec() is not None)
    named = [[t.get_text() for t in ax.texts if ":" in t.get_text()] for ax in (a, b, c)]
    names = [[text.split()[0] for text in panel] for panel in named]
    assert names[0] == ["2:1"] and names[1] == [f"3:{k}" for k in range(1, 7)]
    assert len(names[2]) == 8 and names[2][:2] == ["3:1", "3:2"]
    notes = {text.split("  ")[1] for panel in named for text in panel}
    assert notes == {"R", "W"}  # the made-up statuses: R or W, alternately
    arrows = [t.arrow_patch for t in b.texts if getattr(t, "arrow_patch", None) is not None]
    colours = {matplotlib.colors.to_hex(p.get_edgecolor()) for p in arrows}
    assert colours == {loop_figures.UP_COLOR, loop_figures.DOWN_COLOR}
    assert len(arrows) == 6 * 6  # one arrow per transition of the six L = 6 loops
    with pytest.raises(ValueError, match="L = 4, 6 and 8"):
        plotting.render("fundamental_loops", [datasets["loops"].isel(loop=slice(0, 3))])


def test_self_loop_free_figure_fits_the_decay_length_over_the_chosen_range(tmp_path):
    """1 − P_sl = A exp(−N/ξ) exactly for N ≥ 10 (ξ = 1.7 at N J0 = 100, 2.5 at 10), a
    different decay below: the legend quotes the fitted ξ of the chosen range; a point where
    every sample self-looped is drawn as an open triangle at 1/trials."""
    N = tuple(range(2, 21))
    ds = make_study("beyond", N=N, NJ0=(1.0, 10.0, 100.0), spans=SPANS)
    n = np.asarray(N, float)[None, None, None, :]
    for j, xi in enumerate((2.5, 1.7)):  # N J0 = 10, 100
        q = np.where(n >= 10, 0.8 * np.exp(-n / xi), 0.8 * np.exp(-10 / xi) * (n / 10) ** -3)
        ds["self_loop_probability"][..., j + 1] = 1.0 - q
        ds["self_loop_probability_stderr"][..., j + 1] = 0.05 * q
    ds["self_loop_probability"][0, 1, 0, -1, 2] = 1.0  # hysterons, N = 20, N J0 = 100
    fig = plotting.render("self_loop_free_versus_n", [ds], fit_N_min=10)
    tail = [ax for ax in fig.axes if ax.get_subplotspec() is not None][-1]
    texts = [t.get_text() for t in tail.get_legend().get_texts()]
    assert len(texts) == 6
    for name in ("hysterons", "spins", "equal spans"):
        for at, xi in ((100, "1.70"), (10, "2.50")):
            quoted = rf"{name}, $NJ_0 = {at}$: $\xi = {xi} \pm "
            assert sum(t.startswith(quoted) for t in texts) == 1, (quoted, texts)
    triangles = [line for line in tail.get_lines() if line.get_marker() == "v"]
    assert len(triangles) == 1 and triangles[0].get_ydata()[0] == pytest.approx(1 / TRIALS)
    wide = plotting.render("self_loop_free_versus_n", [ds], fit_N_min=2)
    wide_texts = [t.get_text() for t in wide.axes[-1].get_legend().get_texts()]
    assert not any(r"$\xi = 1.70" in t for t in wide_texts)  # the bend is inside the range
    assert_written(plotting.save(fig, tmp_path / "beyond", dpi=50))


def _dashed_with_markers(line) -> bool:
    """A dashed curve of a second definition (reference slopes are dashed without markers)."""
    return line.get_linestyle() == "--" and line.get_marker() == "o"


def _main_panels(fig):
    return [ax for ax in fig.axes if ax.get_subplotspec() is not None]


@pytest.mark.parametrize(
    "name", ["avalanches_and_transients", "avalanche_distributions", "cyclic_drive"]
)
def test_every_large_n_panel_has_the_legend_of_its_colours(name, datasets):
    """Curves coloured by N (or by J0 in the distributions) carry a legend in every panel."""
    panels = _main_panels(plotting.render(name, _bound(name, datasets)))

    def titles(ax):
        found = set()
        for child in [ax.get_legend(), *[a for a in ax.artists if hasattr(a, "get_title")]]:
            if child is not None:
                found.add(child.get_title().get_text())
        return found

    for i, ax in enumerate(panels):
        if name == "avalanche_distributions" and i < 3:
            # (a)-(c) share their J0: one legend, beside (c)
            assert titles(panels[2]) == {"$J_0$"} and not titles(ax) - {"$J_0$"}
            continue
        assert titles(ax) & {"$N$", "$J_0$"}, ax.get_title(loc="left")


def test_fig4_shows_the_other_rules_and_the_max_a_inset(datasets):
    fig = plotting.render(
        "avalanches_and_transients", _bound("avalanches_and_transients", datasets)
    )
    a = _main_panels(fig)[0]
    labels = [line.get_label() for line in a.get_lines()]
    assert "rule 0, $N = 32$" in labels and "rule $1'$, $N = 32$" in labels
    (inset,) = a.child_axes
    assert inset.get_xlabel() == "$N$" and "max" in inset.get_title()
    assert [t.get_text() for t in inset.get_legend().get_texts()] == [
        "rule 1",
        "rule 0",
        "rule $1'$",
    ]
    rows = _main_panels(
        plotting.render("avalanche_distributions", _bound("avalanche_distributions", datasets))
    )
    assert len(rows[4].child_axes) == 1  # (e): the max <A> inset of constant columns


def test_p_sl0_panels_state_both_definitions(datasets):
    ds = datasets["random_hysterons"]
    fig = plotting.render("gaps_and_self_loops", [ds])
    c = _main_panels(fig)[2]
    assert [t.get_text() for t in c.get_legend().get_texts()] == [
        "from any of the $2^N$ states",
        "from one random start",
    ]
    dashed = [line for line in c.get_lines() if _dashed_with_markers(line)]
    assert len(dashed) == ds.sizes["N"]  # the main-text variant, one dashed curve per N
    fig = plotting.render("gap_vs_self_loops", _bound("gap_vs_self_loops", datasets))
    first = _main_panels(fig)[0]
    legend_texts = [t.get_text() for t in first.get_legend().get_texts()]
    assert legend_texts == ["any of the $2^N$ states (Suppl.)", "one random start (main text)"]


def test_rule_zero_panel_shows_well_defined_and_all_instances(datasets):
    fig = plotting.render("rules", _bound("rules", datasets))
    a = _main_panels(fig)[0]
    assert a.get_title(loc="left") == "(a) rule 0, well-defined"
    assert [t.get_text() for t in a.get_legend().get_texts()] == ["well-defined", "all instances"]
    dashed = [line for line in a.get_lines() if _dashed_with_markers(line)]
    assert len(dashed) == datasets["rules"].sizes["N"]
    b = _main_panels(fig)[1]
    assert b.get_title(loc="left") == "(b) rule 1"


def test_rule_two_figure_shows_the_self_loop_lengths(datasets):
    ds = datasets["well_behaved_rule2"].copy()
    two = np.zeros(ds["self_loop_length_hist"].shape, np.int64)
    two[..., 2] = 5
    ds["self_loop_length_hist"] = (ds["self_loop_length_hist"].dims, two)
    panels = _main_panels(plotting.render("rule2_self_loops", [ds]))
    title = panels[3].get_title(loc="left")
    assert title.endswith("self-loops; none of $L$ = 4, 6, 8"), title
    n_count = ds.sizes["N"]
    assert len(panels[3].patches) == n_count  # one bar per N, at L = 2
    assert [t.get_text() for t in panels[3].get_legend().get_texts()] == [
        str(int(n)) for n in ds["N"].values
    ]
    two[..., 4] = 1
    ds["self_loop_length_hist"] = (ds["self_loop_length_hist"].dims, two)
    panels = _main_panels(plotting.render("rule2_self_loops", [ds]))
    assert panels[3].get_title(loc="left").endswith("none of $L$ = 6, 8")
    assert len(panels[3].patches) == 2 * n_count


def test_random_chains_say_what_lines_and_markers_are(datasets):
    fig = plotting.render("random_chains", _bound("random_chains", datasets))
    a, b = _main_panels(fig)[:2]
    meanings = [t.get_text() for t in a.get_legend().get_texts()]
    assert meanings[0] == "exact: a negative span" and meanings[1].startswith("sampled: ")
    assert b.get_legend().get_title().get_text() == "$N$"


# --------------------------------------------------------------------------
# the layout checks themselves: each finds what it is for on a figure drawn badly on purpose
# --------------------------------------------------------------------------


def _bare_figure():
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    with house.style():
        fig = Figure(figsize=(3.0, 2.4), layout="constrained")
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        ax.plot([0.1, 0.9], [0.2, 0.4], "o-", label="data")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
    return fig, ax


def _problems(fig):
    from figure_layout import layout_problems

    with house.style():
        return layout_problems(fig)


def test_layout_check_passes_a_clean_figure():
    fig, ax = _bare_figure()
    ax.text(0.5, 0.8, "clear of everything", ha="center", fontsize=7)
    assert _problems(fig) == []


def test_layout_check_finds_text_across_a_frame_or_its_ticks():
    fig, ax = _bare_figure()
    ax.text(0.5, 1.0, "on the top spine", ha="center", va="center", fontsize=7)
    assert any("crosses the top frame" in p for p in _problems(fig))
    fig, ax = _bare_figure()  # inside the axes, on the tick marks of the left spine only
    ax.annotate("x", (0, 0.7), xytext=(1, 0), textcoords="offset points", va="center")
    assert any("crosses the left frame" in p for p in _problems(fig))
    fig, ax = _bare_figure()  # an inset's title on its parent's frame (Fig. 4's old inset)
    inset = ax.inset_axes((0.1, 0.6, 0.3, 0.34))
    inset.set_title(r"$\max_{J_0}\langle A\rangle$", fontsize=6)
    assert any("inset 0 title" in p and "top frame" in p for p in _problems(fig))


def test_layout_check_finds_text_on_a_marker_a_curve_and_an_inset_tick_label():
    fig, ax = _bare_figure()  # on a marker, its centre outside the text
    ax.annotate("slope 4", (0.1, 0.2), xytext=(-2, 1), textcoords="offset points", fontsize=7)
    assert any("'slope 4' covers 1 data marker" in p for p in _problems(fig))
    fig, ax = _bare_figure()  # beside a marker, on its curve (Fig. 2's old slope label)
    ax.annotate("slope 4", (0.1, 0.2), xytext=(4, 1), textcoords="offset points", fontsize=7)
    assert any("'slope 4' lies on a data curve" in p for p in _problems(fig))
    fig, ax = _bare_figure()  # an inset's tick labels on the parent's left ticks
    inset = ax.inset_axes((0.07, 0.55, 0.3, 0.3))
    inset.plot([1, 2], [2.4, 3.2])
    problems = _problems(fig)
    assert any("inset 0 y tick" in p and "left frame" in p for p in problems), problems


def test_layout_check_finds_a_category_missing_from_the_legends():
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch, Rectangle

    fig, ax = _bare_figure()  # a hatched region that no legend shows (Fig. 3's old panels)
    ax.add_patch(Rectangle((0.5, 0.5), 0.5, 0.5, hatch="////", fc="none", ec="#3b6fb6", lw=0))
    assert any("hatch '////'" in p for p in _problems(fig))
    fig, ax = _bare_figure()  # a declared line no legend names (Fig. 3's old orange line)
    (line,) = ax.plot([0, 0.5], [0, 0.5], color="#f28e2b")
    house.declare(ax, "d1 = d2", line)
    assert any("'d1 = d2'" in p and "in no legend" in p for p in _problems(fig))
    ax.legend(handles=[Line2D([], [], color="#f28e2b", label="d1 = d2")])
    assert _problems(fig) == []
    fig, ax = _bare_figure()  # named, but drawn white where the plane is hatched
    region = ax.add_patch(Rectangle((0.5, 0.5), 0.5, 0.5, hatch="////", fc="w", ec="b", lw=0))
    house.declare(ax, "(i) passive", region)
    ax.legend(handles=[Patch(facecolor="w", edgecolor="0.5", label="(i) passive")])
    problems = _problems(fig)
    assert any("'(i) passive' is not drawn as the figure draws it" in p for p in problems)


def test_fig3_names_every_region_line_and_the_red_dot_in_its_legend(rendered):
    from figure_layout import legend_entries

    from hyst.plotting import networks

    fig = rendered("networks_fig3")
    declared = {meaning for meaning, _artists in house.drawn_categories(fig)}
    assert set(networks.CLASS_NAMES.values()) <= declared
    assert {networks.SYMMETRIC_NAME, networks.L4_OUTLINE, networks.PAIR_L4_ZERO} <= declared
    assert declared <= {text for text, _look in legend_entries(fig)}
    titles = [ax.get_title(loc="left")[:3] for ax in _main_panels(fig)]
    assert titles == ["(a)", "(b)", "(c)", "(d)", "(e)", "(f)"]
    rows = [round(ax.get_position().y0, 2) for ax in _main_panels(fig)]
    assert rows[:4] == [rows[0]] * 4 and rows[4:] == [rows[4]] * 2 and rows[4] < rows[0]


def test_spin_like_marks_the_charts_points_and_keeps_labels_off_them(rendered):
    fig = rendered("spin_like_elements")
    texts = [t.get_text() for g in fig.legends for t in g.get_texts()]
    assert "$(d_1, d_2)$ of (d)-(f)" in texts


def test_mean_avalanche_axes_read_plain_numbers(datasets):
    fig = plotting.render("avalanche_distributions", _bound("avalanche_distributions", datasets))
    fig.canvas.draw()
    for ax in _main_panels(fig)[3:]:
        labels = [t.get_text() for t in ax.get_yticklabels() if t.get_text()]
        assert labels and not any("times" in t or "10^" in t for t in labels), labels
        assert ax.get_ylim()[1] < 20  # <A> of at most a few: no empty decade above
