"""hyst.analysis on synthetic study datasets with known answers.

Curves are drawn as binomial counts from a fixed numpy Generator, laid out like
the points kind's collected datasets (dims couplings, spans, rule, N, NJ0).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import xarray as xr

from hyst import analysis as A

DIMS = ("couplings", "spans", "rule", "N", "NJ0")
NS = np.array([2, 3, 4, 5, 6, 8, 10])
NJ0 = np.logspace(-1, 2, 13)  # the paper's grid: 4 per decade, 0.1 ... 100
OBS = "self_loop_probability"


def _binomial(name, P, trials, rng):
    """Probability-observable variables (estimate, count, trials, stderr) from P."""
    cnt = rng.binomial(trials, P)
    p = cnt / trials
    return {
        name: (DIMS, p),
        f"{name}_count": (DIMS, cnt),
        f"{name}_trials": (DIMS, np.full(P.shape, trials)),
        f"{name}_stderr": (DIMS, np.sqrt(p * (1 - p) / trials)),
    }


def make_study(
    f, *, a=1.0, trials=100_000, seed=0, name=OBS, rules=("1",), ns=NS, nj0=NJ0, study="x"
):
    """P(N, NJ0) = f(N^(a-1)·NJ0, N) (= f(N^a J0, N)) with binomial noise."""
    rng = np.random.default_rng(seed)
    n = np.asarray(ns, float)[None, None, None, :, None]
    u = n ** (a - 1.0) * np.asarray(nj0)[None, None, None, None, :]
    P = np.broadcast_to(f(u, n), (1, 1, len(rules), len(ns), len(nj0)))
    ds = xr.Dataset(
        _binomial(name, P, trials, rng),
        coords={
            "couplings": ["random"],
            "spans": ["hysteron"],
            "rule": list(rules),
            "N": np.asarray(ns),
            "NJ0": np.asarray(nj0, float),
        },
    )
    ds.attrs["study"] = study
    return ds


def power_law(k, amp=1e-2, cap=0.6):
    """P = min(amp·u^k, cap): an exact power law below the cap."""
    return lambda u, n: np.minimum(amp * u**k, cap)


def weibull(k, c=3.0):
    """P = 1 − exp(−(u/c)^k): smooth rise and saturation at 1."""
    return lambda u, n: 1.0 - np.exp(-((u / c) ** k))


def scalar(da):
    return float(np.asarray(da).squeeze())


# ----------------------------------------------------------------- power laws


def test_power_law_fit_recovers_exponent():
    # one draw (seed 1); calibration over many draws: test_power_law_confidence_intervals_cover
    ds = make_study(power_law(3.0), seed=1)
    curve = ds[OBS].isel(couplings=0, spans=0, rule=0).sel(N=5)
    err = ds[f"{OBS}_stderr"].isel(couplings=0, spans=0, rule=0).sel(N=5)
    r = A.power_law_fit(curve, err, "NJ0")
    assert r["reason"] == ""
    assert abs(r["exponent"] - 3.0) < 3 * r["exponent_stderr"]
    assert abs(r["exponent"] - 3.0) < 0.15
    assert r["exponent_hi"] - r["exponent_lo"] < 0.6
    assert 0 < r["exponent_stderr"] < 0.1
    assert r["points"] >= 4 and r["x_max"] <= 100
    assert abs(math.log(r["amplitude"] / 1e-2)) < 0.2  # P = 1e-2 (N J0)^3 for every N
    # every point used is in the small-value range
    used = curve.values[(curve.NJ0.values >= r["x_min"]) & (curve.NJ0.values <= r["x_max"])]
    assert np.all(used <= 0.2)


@pytest.mark.parametrize("k, amp", [(2.0, 3e-2), (4.0, 1e-3)])
def test_power_law_confidence_intervals_cover(k, amp):
    """Over independent data sets the 95 % intervals contain the true exponent."""
    hits, pooled, pulls = [], [], []
    for seed in range(25):
        e = A.small_coupling_exponents(make_study(power_law(k, amp), seed=seed), OBS)
        ok = (e.points >= 3).values
        hits += list(((e.exponent_lo <= k) & (k <= e.exponent_hi)).values[ok])
        pulls += list(((e.exponent - k) / e.exponent_stderr).values[ok])
        pooled.append(bool((e.pooled_exponent_lo <= k) & (k <= e.pooled_exponent_hi)))
    assert 0.9 <= np.mean(hits) and 0.8 <= np.mean(pooled)
    assert abs(np.mean(pulls)) < 0.25 and 0.7 < np.std(pulls) < 1.3  # unbiased, calibrated


def test_power_law_fit_uses_only_the_contiguous_low_x_range():
    x = np.array([0.1, 0.2, 0.4, 0.8, 1.6, 3.2])
    y = np.array([0.001, 0.008, 0.064, 0.5, 0.15, 0.19])  # y ~ x^3, then a spike
    r = A.power_law_fit(y, 0.05 * y, x, max_value=0.2)
    assert r["points"] == 3 and r["x_max"] == pytest.approx(0.4)
    assert r["exponent"] == pytest.approx(3.0, abs=1e-9)


def test_power_law_fit_too_few_points_gives_nan_and_reason():
    x = np.array([0.1, 0.2, 0.4, 0.8])
    y = np.array([0.0, 0.05, 0.3, 0.6])  # a single positive point below 0.2
    r = A.power_law_fit(y, np.full(4, 0.01), x)
    assert r["points"] == 1 and "too few" in r["reason"]
    assert all(math.isnan(r[k]) for k in ("exponent", "exponent_stderr", "exponent_lo"))
    r = A.power_law_fit(np.zeros(4), np.zeros(4), x)
    assert r["points"] == 0 and "too few" in r["reason"] and math.isnan(r["exponent"])


def test_power_law_fit_zero_errors_are_floored():
    x = np.array([0.1, 0.2, 0.4, 0.8])
    y = 0.1 * x**2
    e = np.array([0.0, 1e-4, 0.0, 1e-3])
    r = A.power_law_fit(y, e, x)
    assert r["exponent"] == pytest.approx(2.0, abs=1e-9) and np.isfinite(r["exponent_stderr"])


def test_small_coupling_exponents_per_curve_and_pooled():
    ds = make_study(power_law(4.0, amp=1e-3), rules=("0", "2"))
    e = A.small_coupling_exponents(ds, OBS)
    assert e.exponent.dims == ("couplings", "spans", "rule", "N")
    assert e.pooled_exponent.dims == ("couplings", "spans", "rule")
    ok = e.points >= 3
    assert ok.sum() >= 10
    inside = (e.exponent_lo <= 4.0) & (4.0 <= e.exponent_hi)
    assert inside.where(ok).sum() >= 0.8 * ok.sum()  # 95 % intervals
    assert np.all(np.abs(e.exponent.where(ok) - 4.0).fillna(0) < 0.5)
    assert np.all((e.pooled_exponent_lo <= 4.0) & (4.0 <= e.pooled_exponent_hi))
    assert np.all(np.abs(e.pooled_exponent - 4.0) < 0.1)
    assert np.all(e.pooled_points > e.points.max())
    assert np.all(e.pooled_chi2_reduced < 2.0)  # one power law for all N: collapse
    assert set(np.unique(e.reason.where(~ok, "").values)) <= {
        "",
        *[str(r) for r in e.reason.values.ravel() if "too few" in str(r)],
    }


def test_pooled_fit_detects_missing_collapse():
    ds = make_study(power_law(3.0), a=0.5)  # collapses against N^0.5 J0, not N J0
    e = A.small_coupling_exponents(ds, OBS)
    assert scalar(e.pooled_chi2_reduced) > 10


def test_exponents_with_j0_dimension():
    """Studies on a J0 grid: NJ0 is a 2-D coordinate N·J0."""
    # a = 2 with the grid read as J0: P = f(N·J0)
    ds = make_study(power_law(3.0), a=2.0, nj0=np.logspace(-2, 1, 13))
    ds = ds.rename({"NJ0": "J0"})
    ds = ds.assign_coords(NJ0=ds.N * ds.J0)
    e = A.small_coupling_exponents(ds, OBS, x="NJ0")
    assert e.exponent.dims == ("couplings", "spans", "rule", "N")
    assert abs(scalar(e.pooled_exponent) - 3.0) < 0.1
    c = A.collapse_exponent(ds, OBS, x="NJ0")
    assert abs(scalar(c.a_best) - 1.0) < 0.02
    p = A.plateau_versus_n(ds, OBS, at=10.0)
    # N·J0 = 10 is on the grid for N = 10 (J0 = 1) but not within 5 % for N = 2, 4
    assert scalar(p.complement_x.sel(N=10)) == pytest.approx(10.0)
    assert p.complement_x.sel(N=[2, 4]).isnull().all()


# ----------------------------------------------------------------- plateau


def test_plateau_weighted_mean_exact():
    y = np.array([[0.1, 0.2, 0.5, 0.7]])
    e = np.array([[0.1, 0.1, 0.1, 0.2]])
    ds = xr.Dataset(
        {OBS: (("N", "NJ0"), y), f"{OBS}_stderr": (("N", "NJ0"), e)},
        coords={"N": [4], "NJ0": [1.0, 10.0, 30.0, 100.0]},
    )
    p1 = A.plateau(ds, OBS)
    assert scalar(p1.plateau) == pytest.approx(0.7) and scalar(p1.plateau_stderr) == 0.2
    p2 = A.plateau(ds, OBS, n_last=2)
    assert scalar(p2.plateau) == pytest.approx((0.5 * 100 + 0.7 * 25) / 125)
    assert scalar(p2.plateau_stderr) == pytest.approx(1 / math.sqrt(125))
    assert scalar(p2.plateau_x_min) == 30.0


def test_plateau_floors_zero_binomial_errors():
    """P = 1 exactly has binomial s.e. 0: floored at one count, 1/trials."""
    y = np.array([[0.5, 0.99, 1.0]])
    trials = np.full(y.shape, 1000)
    ds = xr.Dataset(
        {
            OBS: (("N", "NJ0"), y),
            f"{OBS}_count": (("N", "NJ0"), (y * trials).astype(int)),
            f"{OBS}_trials": (("N", "NJ0"), trials),
            f"{OBS}_stderr": (("N", "NJ0"), np.sqrt(y * (1 - y) / trials)),
        },
        coords={"N": [4], "NJ0": [1.0, 10.0, 100.0]},
    )
    p = A.plateau(ds, OBS, n_last=2)
    w = np.array([1000 / (0.99 * 0.01), 1000.0**2])
    assert scalar(p.plateau) == pytest.approx((0.99 * w[0] + w[1]) / w.sum())
    assert scalar(p.plateau_stderr) == pytest.approx(1 / math.sqrt(w.sum()))
    assert scalar(A.plateau(ds, OBS).plateau_stderr) == pytest.approx(1e-3)


def test_plateau_recovers_n_dependent_value():
    plat = lambda n: 1.0 - 0.5 * np.exp(-n / 3.0)  # noqa: E731
    ds = make_study(lambda u, n: plat(n) * (1 - np.exp(-u)), trials=20_000)
    p = A.plateau(ds, OBS, n_last=2)
    pull = (p.plateau - plat(ds.N)) / p.plateau_stderr
    assert p.plateau.dims == ("couplings", "spans", "rule", "N")
    assert np.all(np.abs(pull) < 4)
    assert np.all(p.plateau_stderr < 0.005)


def test_plateau_versus_n_exponential_decay():
    xi, amp = 2.5, 0.8
    ds = make_study(lambda u, n: 1.0 - amp * np.exp(-n / xi) * (u > 50) - (u <= 50))
    p = A.plateau_versus_n(ds, OBS, at=100.0)
    assert np.all(p.complement_x == 100.0)
    np.testing.assert_allclose(p.complement.squeeze(), amp * np.exp(-NS / xi), rtol=0.05)
    got, err = scalar(p.xi), scalar(p.xi_stderr)
    assert abs(got - xi) < 3 * err and abs(got - xi) < 0.05 * xi
    assert abs(scalar(p.decay_amplitude) - amp) < 0.05
    assert scalar(p.decay_chi2_reduced) < 3 and scalar(p.decay_points) == len(NS)
    assert str(p.decay_reason.values.squeeze()) == ""


def test_exponential_fit_skips_zeros_and_reports_no_decay():
    n = np.arange(2, 8.0)
    y = 0.5 * np.exp(-n / 2.0)
    y[-1] = 0.0
    r = A.exponential_fit(n, y, 0.01 * np.maximum(y, 1e-3))
    assert r["points"] == 5 and r["xi"] == pytest.approx(2.0)
    r = A.exponential_fit(n, 0.1 * np.exp(n / 3), np.full(n.size, 0.01))
    assert math.isnan(r["xi"]) and r["rate"] < 0 and "no decay" in r["reason"]
    r = A.exponential_fit(n[:2], y[:2], y[:2] / 10)
    assert math.isnan(r["xi"]) and "too few" in r["reason"]


# ----------------------------------------------------------------- collapse


@pytest.mark.parametrize("f", [power_law(3.0), weibull(3.0)], ids=["power", "weibull"])
def test_collapse_exponent_is_one_for_nj0_scaling(f):
    ds = make_study(f)
    c = A.collapse_exponent(ds, OBS)
    a, da = scalar(c.a_best), scalar(c.a_stderr)
    assert abs(a - 1.0) < 3 * da and abs(a - 1.0) < 0.02
    assert 0 < da < 0.02
    assert scalar(c.a_lo) < a < scalar(c.a_hi)
    assert 0.3 < scalar(c.q_min) < 2.0  # deviations of the size of the error bars
    q = c.q.squeeze()
    assert float(q.sel(a=0.5, method="nearest")) > 10  # the wrong scaling does not collapse
    assert float(q.sel(a=1.5, method="nearest")) > 10


@pytest.mark.parametrize(
    "f, a_true",
    [(power_law(3.0), 0.5), (weibull(3.0), 0.5), (weibull(3.0), 0.6375)],
    ids=["power", "weibull", "weibull-off-grid"],
)
def test_collapse_exponent_other_scaling(f, a_true):
    """Curves that collapse against N^a J0 with a != 1 (0.6375: between grid points)."""
    ds = make_study(f, a=a_true)
    c = A.collapse_exponent(ds, OBS)
    a, da = scalar(c.a_best), scalar(c.a_stderr)
    assert abs(a - a_true) < 3 * da and abs(a - a_true) < 0.01
    assert scalar(c.q_min) < 2.0
    assert float(c.q.squeeze().sel(a=1.0)) > 10
    assert str(c.reason.values.squeeze()) == ""


def test_collapse_quality_definition():
    """Identical curves: Q(1) = 0; offset by sqrt(σ_i² + σ_j²) in log: Q(1) = 1."""
    x = np.logspace(-1, 1, 9)
    y = 0.01 * x**2
    s = 0.1 * y  # σ_log = 0.1
    same = [(2.0, x, y, s), (4.0, x, y, s)]
    assert A.collapse_quality(same, 1.0) == pytest.approx(0.0, abs=1e-20)
    assert A.collapse_quality(same, 0.7) > 5.0  # shifted by 0.3·ln 2 in ln x: 0.42 in ln y
    r = A.collapse_fit(same)
    assert r["a_best"] == pytest.approx(1.0, abs=1e-3) and r["reason"] == ""
    y2 = y * math.exp(0.1 * math.sqrt(2))
    shifted = [(2.0, x, y, s), (4.0, x, y2, 0.1 * y2)]
    # d² = (0.1√2)² / (2·0.1²) = 1 per term; each point has c = 1 partner:
    # contribution 1/2, dof 1/2 ⇒ Q = 1
    assert A.collapse_quality(shifted, 1.0) == pytest.approx(1.0)
    flat = [(2.0, x, np.full(9, 0.3), s), (4.0, x, np.full(9, 0.3), s)]
    r = A.collapse_fit(flat)
    assert math.isnan(r["a_best"]) and "undetermined" in r["reason"]
    r = A.collapse_fit([(2.0, x, y, s)])
    assert math.isnan(r["a_best"]) and "fewer than two" in r["reason"]


# ----------------------------------------------------------------- whole study


def test_paper_slopes_are_keyed_by_ensemble_not_by_study():
    from hyst.catalogue import paper_slope

    assert paper_slope("self_loop_probability", "random", "hysteron", "1") == 3
    assert paper_slope("self_loop_probability", "random", "hysteron", "2") == 3  # every rule
    assert paper_slope("gap_probability_at_zero", "random", "hysteron", "1") == 4
    assert paper_slope("self_loop_probability", "random", "spin", "1") == pytest.approx(2 / 3)
    assert paper_slope("gap_probability_at_zero", "weak", "hysteron", "1") == 5
    assert paper_slope("gap_fraction", "weak", "hysteron", "1") == 4
    assert paper_slope("race_condition_probability", "random", "equal", "1") == 2
    assert paper_slope("self_loop_probability", "symmetric", "hysteron", "2") == 4
    assert math.isnan(paper_slope("self_loop_probability", "symmetric", "hysteron", "1"))
    assert math.isnan(paper_slope("gap_fraction", "random", "equal", "1"))  # none stated


def test_a_true_NJ0_collapse_on_a_J0_grid_gives_a_equal_one_against_NJ0():
    """Large-N studies are swept in J0; the analysis takes its abscissa from the N·J0
    coordinate, so a collapse in N·J0 gives a = 1 and the exponent is the one in N·J0."""
    rng = np.random.default_rng(3)
    ns = np.array([16, 32, 64, 128])
    j0 = np.logspace(-4, 1, 21)
    nj0 = ns[:, None] * j0[None, :]
    P = np.broadcast_to(np.minimum(1e-2 * nj0**2, 0.6), (1, 1, 1, ns.size, j0.size))
    dims = ("couplings", "spans", "rule", "N", "J0")
    cnt = rng.binomial(200_000, P)
    ds = xr.Dataset(
        {
            OBS: (dims, cnt / 200_000),
            f"{OBS}_count": (dims, cnt),
            f"{OBS}_trials": (dims, np.full(P.shape, 200_000)),
            f"{OBS}_stderr": (dims, np.sqrt(P * (1 - P) / 200_000)),
        },
        coords={"couplings": ["random"], "spans": ["hysteron"], "rule": ["1"], "N": ns, "J0": j0},
        attrs={"study": "x", "sweep": "J0"},
    )
    ds = ds.assign_coords(NJ0=ds.N * ds.J0)
    out = A.analyse_study(ds)
    assert out.attrs["x"] == "NJ0" and out.attrs["sweep"] == "J0"
    assert out[f"{OBS}_collapse_a"].item() == pytest.approx(1.0, abs=0.05)
    assert out[f"{OBS}_pooled_exponent"].item() == pytest.approx(2.0, abs=0.1)
    assert out[f"{OBS}_paper_slope"].item() == 3.0
    # analysed against J0 instead, the same data collapse at a = 1 only in N^a J0 = N^(a-1)
    # NJ0, i.e. the exponent a would be reported against the wrong abscissa
    wrong = A.collapse_exponent(ds, OBS, x="J0", a_grid=np.linspace(0, 3, 121))
    assert wrong["a_best"].item() == pytest.approx(2.0, abs=0.05)


def test_analyse_study_writes_netcdf(tmp_path):
    rng = np.random.default_rng(7)
    ds = make_study(weibull(3.0), rules=("1", "1p"), ns=[2, 4, 8], study="random_hysterons")
    gap = make_study(
        power_law(4.0, amp=1e-3),
        name="gap_probability_at_zero",
        seed=1,
        rules=("1", "1p"),
        ns=[2, 4, 8],
    )
    ds = ds.merge(gap)
    # a mean observable: gap fraction with sample statistics
    fg = 1e-3 * np.minimum(ds.NJ0**4, 1e3) * xr.ones_like(ds[OBS])
    ds["gap_fraction"] = fg * (1 + 0.01 * rng.standard_normal(fg.shape))
    ds["gap_fraction_stderr"] = 0.01 * fg
    ds["gap_fraction_trials"] = xr.full_like(fg, 10_000)
    ds["potentially_stable_over_spins"] = xr.ones_like(fg)
    ds["potentially_stable_over_spins_stderr"] = xr.zeros_like(fg)
    out = A.analyse_study(ds)
    for v in (
        f"{OBS}_exponent",
        f"{OBS}_pooled_exponent",
        f"{OBS}_plateau",
        f"{OBS}_xi",
        f"{OBS}_collapse_a",
        f"{OBS}_collapse_q",
        "gap_fraction_pooled_exponent",
        "gap_probability_at_zero_complement",
        "potentially_stable_over_spins_plateau",
    ):
        assert v in out, v
        assert out[v].attrs["description"]
    assert "potentially_stable_over_spins_exponent" not in out
    assert "gap_fraction_xi" not in out  # mean observable: no 1 - P
    assert np.all(out[f"{OBS}_paper_slope"] == 3.0)
    assert np.all(np.abs(out["gap_probability_at_zero_pooled_exponent"] - 4.0) < 0.2)
    assert np.all(np.abs(out["gap_fraction_pooled_exponent"] - 4.0) < 0.1)
    assert np.all(np.abs(out[f"{OBS}_collapse_a"] - 1.0) < 0.05)
    assert np.all(out["potentially_stable_over_spins_plateau"] == 1.0)
    assert all(out[v].dtype != object for v in out.variables)
    assert all(not isinstance(v, dict | bool) for v in out.attrs.values())
    path = tmp_path / "analysis.nc"
    out.to_netcdf(path)
    with xr.open_dataset(path) as back:
        xr.testing.assert_allclose(back[f"{OBS}_exponent"], out[f"{OBS}_exponent"])
        assert list(back.rule.values) == ["1", "1p"]
        assert np.all(back[f"{OBS}_paper_slope"] == 3.0)


def test_curve_saturating_below_the_cut_is_not_fitted_on_its_plateau():
    """P = 0.15 (1 − exp(−(NJ0/3)^4)) saturates below max_value = 0.2: the fit uses
    only the rising part and recovers k = 4 (without the relative cut it gets ~0.5)."""
    from hyst.analysis import power_law_fit

    x = np.logspace(-1, 2, 13)
    y = 0.15 * (1 - np.exp(-((x / 3.0) ** 4)))
    n = 10**7
    err = np.sqrt(y * (1 - y) / n)
    fit = power_law_fit(
        xr.DataArray(y, dims="NJ0", coords={"NJ0": x}),
        xr.DataArray(err, dims="NJ0", coords={"NJ0": x}),
    )
    assert abs(fit["exponent"] - 4) < 0.3, fit
