"""Direction-dependent couplings c^+ ≠ c^− (H_i^± = h_i^± − Σ_j c^±_ij s_j): the kernels
agree system by system with the plain reference (``hyst.reference.naive`` with a
``Directed`` pair), the event-driven relaxation with the state table, and c^+ = c^−
reproduces the paper's model bit for bit, through every kernel path."""

import numpy as np
import pytest
from conftest import run_enumeration
from hypothesis import given
from hypothesis import strategies as st

from hyst.kernels import codes
from hyst.model import batch
from hyst.model.ensembles import sample_systems
from hyst.model.relax import StateTables, relax_spins
from hyst.model.systems import RULES, Systems, state_to_spins
from hyst.reference import naive

OUTCOME = {"stable": 0, "self_loop": 1, "ill_defined": 2}


def directed_lists(sy, k):
    """(hp, hm, Directed(c^+, c^−)) of system k as the reference takes it."""
    pair = naive.Directed(sy.couplings[k].tolist(), sy.couplings_minus[k].tolist())
    return sy.h_plus[k].tolist(), sy.h_minus[k].tolist(), pair


def compare_with_reference(cols, k, sy, rule, start):
    """Every enumeration column of system k equals the reference's; returns the reference."""
    hp, hm, c = directed_lists(sy, k)
    ref = naive.system_observables(hp, hm, c, rule, start)
    got = {name: int(cols[name][k]) for name in codes.ENUMERATION_COLUMNS}
    assert got["n_potentially_stable"] == ref["n_potentially_stable"]
    assert got["potentially_stable_ties"] == ref["ps_ties"]
    assert got["n_stable_at_zero"] == ref["n_stable_at_zero"]
    assert got["zero_ties"] == ref["zero_ties"]
    assert cols["gap_fraction"][k] == pytest.approx(float(ref["gap_fraction"]), abs=1e-12)
    assert got["self_loop_at_zero_any"] == ref["self_loop_at_zero_any"]
    assert got["random_start_outcome"] == OUTCOME[ref["start_relax"]["outcome"]]
    assert got["random_start_length"] == ref["start_relax"]["L"]
    assert got["n_transitions"] == ref["n_transitions"]
    assert got["n_self_loop_transitions"] == ref["n_self_loop_transitions"]
    assert got["n_ill_defined_transitions"] == ref["n_ill_defined_transitions"]
    assert got["n_distinct_loops"] == len(ref["loops"])
    assert got["start_prepared"] == (ref["S0"] is not None)
    race = ref["race_condition_first_flip"]
    assert got["race_first_flip"] == (-1 if race is None else int(race))
    if ref["avalanche"] is None:
        assert got["avalanche_outcome"] == -1
    else:
        assert got["avalanche_outcome"] == OUTCOME[ref["avalanche"]["outcome"]]
        size = ref["avalanche_size"]
        assert got["avalanche_size"] == (-1 if size is None else size)
    return ref


def tie_heavy(rng, n, N):
    """Small integer thresholds and couplings (exact ties everywhere), c^+ ≠ c^−."""
    mid = rng.integers(-3, 4, (n, N))
    half = rng.integers(-1, 3, (n, N))
    cp, cm = rng.integers(-3, 4, (2, n, N, N))
    idx = np.arange(N)
    cp[:, idx, idx] = 0
    cm[:, idx, idx] = 0
    return Systems(mid + half, mid - half, cp.astype(np.int64), couplings_minus=cm.astype(np.int64))


def check_batch(sy, rule, rng):
    """Enumerate ``sy`` and compare every system and the loop histograms with the reference;
    returns the number of systems compared and how many met a tie."""
    starts = rng.integers(0, 1 << sy.N, sy.samples)
    cols = run_enumeration(sy, rule=rule, starts=starts)
    hist_L = np.zeros_like(cols["hist_L"])
    for k in range(sy.samples):
        ref = compare_with_reference(cols, k, sy, rule, int(starts[k]))
        for _states, L, _n_e in ref["loops"]:
            hist_L[L] += 1
    assert np.array_equal(hist_L, cols["hist_L"])
    return sy.samples, int((cols["ties"] > 0).sum())


@pytest.mark.parametrize("rule", list(RULES))
@pytest.mark.parametrize("couplings", ["random", "symmetric"])
def test_ensemble_systems_match_reference(rule, couplings, rng):
    for N in (2, 3, 4, 5):
        alpha = (0.5, 1.0, 0.25, 0.8)[N - 2]
        spans = ("hysteron", "spin")[N % 2]
        NJ0 = float(rng.choice([1.0, 5.0, 30.0]))
        sy = sample_systems(couplings, spans, N, NJ0, 40, rng, direction_asymmetry=alpha)
        assert sy.directed
        check_batch(sy, rule, rng)


@pytest.mark.parametrize("rule", list(RULES))
def test_tie_heavy_systems_match_reference(rule, rng):
    compared, tied = check_batch(tie_heavy(rng, 80, 4), rule, rng)
    assert tied > 10  # the tie paths were exercised


@pytest.mark.parametrize("rule", list(RULES))
def test_relaxations_match_reference_from_every_state(rule, rng):
    """Bitmask (state table) and array (event-driven) kernels against the reference, from
    every state at the thresholds of random states and at 0, tie-heavy systems included."""
    systems = [sample_systems("random", "hysteron", 5, 20.0, 3, rng, direction_asymmetry=0.7)]
    systems.append(tie_heavy(rng, 4, 4))
    for sy in systems:
        N = sy.N
        for k in range(sy.samples):
            tables = StateTables(sy, k)
            system = directed_lists(sy, k)
            for S in range(1 << N):
                T = int(rng.integers(0, 1 << N))
                for field in ((0, 0), (int(tables.hplus[T]), 1), (int(tables.hminus[T]), -1)):
                    if abs(field[0]) >= 2**61:
                        continue
                    ref = naive.relax(system, S, field, rule)
                    got = tables.relax(S, field, rule)
                    assert got.outcome == ref["outcome"]
                    assert (got.flips, got.steps, got.L, got.n_e) == (
                        ref["flips"],
                        ref["steps"],
                        ref["L"],
                        ref["n_e"],
                    )
                    assert got.race_condition == ref["race_condition"]
                    assert (got.ties > 0) == (ref["ties"] > 0)
                    assert got.cycle_states == tuple(ref["cycle_states"])
                    if got.outcome != "self_loop":
                        assert got.final_state == ref["final_state"]
                    arr, _ = relax_spins(sy, state_to_spins(S, N), field, rule, index=k)
                    assert (arr.outcome, arr.flips, arr.L, arr.n_e, arr.final_state) == (
                        got.outcome,
                        got.flips,
                        got.L,
                        got.n_e,
                        got.final_state if got.outcome != "self_loop" else arr.final_state,
                    )


def forced_directed(sy):
    """The same systems with c^− = c^+ held explicitly: the kernels' direction-dependent
    path on the paper's model."""
    c = np.ascontiguousarray(sy.couplings)
    return Systems(sy.h_plus, sy.h_minus, c.copy(), couplings_minus=c.copy())


@given(
    seed=st.integers(0, 2**32 - 1),
    N=st.integers(2, 7),
    NJ0=st.sampled_from([0.5, 3.0, 10.0, 100.0]),
    couplings=st.sampled_from(["random", "symmetric", "weak", "columns"]),
    rule=st.sampled_from(list(RULES)),
)
def test_equal_couplings_reproduce_the_paper_model(seed, N, NJ0, couplings, rule):
    """c^+ = c^− through the direction-dependent kernels gives today's results bit for bit:
    the enumeration, the event-driven drives and the saturated loop."""
    rng = np.random.default_rng(seed)
    sy = sample_systems(couplings, "hysteron", N, NJ0, 24, rng)
    twin = forced_directed(sy)
    assert twin.directed and twin.kernel_batch().form == codes.FORM_DIRECTED
    starts = rng.integers(0, 1 << N, sy.samples)
    a, b = run_enumeration(sy, rule, starts), run_enumeration(twin, rule, starts)
    for name in a:
        assert np.array_equal(a[name], b[name]), name
    spins = np.where(rng.random((sy.samples, N)) < 0.5, np.int8(-1), np.int8(1))
    x = batch.avalanche_cyclic_batch(sy, spins, rule, 20)
    y = batch.avalanche_cyclic_batch(twin, spins, rule, 20)
    assert np.array_equal(x[0].array, y[0].array) and np.array_equal(x[1].array, y[1].array)
    assert np.array_equal(x[2], y[2])
    p = batch.saturated_loop_batch(sy, rule)
    q = batch.saturated_loop_batch(twin, rule)
    assert np.array_equal(p.summary.array, q.summary.array)


def drive_by_state_table(sy, turning, rule):
    """The quasistatic drive from the all-down state through the ``turning`` fields (quanta),
    event by event from the state table: [(Hc, direction, outcome, flips)], stopping at the
    first event that does not end stable."""
    tables = StateTables(sy)
    S, at, events = 0, -(2**62), []
    for T in turning:
        direction = 1 if T > at else -1
        while True:
            Hc = int(tables.hplus[S] if direction > 0 else tables.hminus[S])
            if (direction > 0 and Hc > T) or (direction < 0 and Hc < T):
                break
            r = tables.relax(S, (Hc, direction), rule)
            events.append((Hc, direction, r.outcome, r.flips))
            if r.outcome != "stable":
                return events
            S = r.final_state
        at = T
    return events


@pytest.mark.parametrize("rule", ["0", "1", "1p", "2"])
def test_directed_drives_match_state_table(rule):
    """A drive of a direction-dependent system (event-driven kernels) meets the same
    avalanches, event by event, as the state table's relaxations."""
    import hyst

    rng = np.random.default_rng(7)
    seen = 0
    for k in range(60):
        N = int(rng.integers(2, 7))
        NJ0 = (0.5, 2.0, 6.0)[k % 3]
        sy = sample_systems("random", "hysteron", N, NJ0, 1, rng, direction_asymmetry=1.0)
        turning = [1.3, -1.1, 0.7, -0.4, 1.9]
        drive = hyst.System._wrap(sy).drive(turning, rule=rule)
        got = [
            (int(np.rint(h * 2.0**40)), int(d), str(o), int(f))
            for h, d, o, f in zip(
                drive["H"].values,
                drive["direction"].values,
                drive["outcome"].values,
                drive["flips"].values,
                strict=True,
            )
        ]
        want = drive_by_state_table(sy, [int(np.rint(t * 2.0**40)) for t in turning], rule)
        assert got == want
        seen += len(got)
    assert seen > 100


def test_system_takes_a_pair_of_coupling_matrices(tmp_path):
    import hyst

    cp = [[0, 0.5], [0.25, 0]]
    cm = [[0, -0.375], [0.25, 0]]
    sy = hyst.System([0.1, 0.3], [-0.1, 0.1], (cp, cm))
    assert sy.direction_dependent
    assert sy.couplings.tolist() == cp and sy.couplings_minus.tolist() == cm
    plain = hyst.System([0.1, 0.3], [-0.1, 0.1], (cp, cp))
    assert not plain.direction_dependent  # c^+ = c^−: the paper's model, its kernels
    assert plain == hyst.System([0.1, 0.3], [-0.1, 0.1], cp)
    assert (
        plain.transition_graph().transitions
        == hyst.System([0.1, 0.3], [-0.1, 0.1], cp).transition_graph().transitions
    )
    for suffix in (".yaml", ".json", ".npz"):
        path = sy.to_file(tmp_path / f"s{suffix}")
        assert hyst.System.from_file(path) == sy
    text = (tmp_path / "s.yaml").read_text()
    assert "c_plus" in text and "c_minus" in text
    g = sy.transition_graph()
    hp, hm, c = directed_lists(sy.systems, 0)
    for t in g.transitions:
        ref = naive.relax((hp, hm, c), t.source, t.field, "1")
        assert t.outcome == ref["outcome"] and t.flips == ref["flips"]
    with pytest.raises(ValueError, match="to_hysteron: direction-dependent"):
        sy.to_hysteron()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"c_plus": [[0, 1], [1, 0]]}, "c_plus needs c_minus"),
        ({"c_minus": [[0, 1], [1, 0]]}, "c_minus needs c_plus"),
        ({"c": [[0, 1], [1, 0]], "c_plus": [[0, 1], [1, 0]]}, "give the couplings once"),
        (
            {"c_plus": [[0, 1], [1, 0]], "c_minus": [[0, 1, 0], [1, 0, 0], [0, 0, 0]]},
            "c_minus: must have the shape of c_plus",
        ),
        (
            {"c_plus": [[0, 1], [1, 0]], "c_minus": [[0, 1, 0], [1, 0, 0]]},
            "c_minus: must be a square",
        ),
        (
            {"c_plus": [[0, 1], [1, 0]], "c_minus": [[1, 1], [1, 0]]},
            r"c_minus\[0,0\]: 1.0 must be 0",
        ),
        ({"c_plus": [[0, 1], [1, 0]], "c_minus": [[0, "x"], [1, 0]]}, r"c_minus\[0,1\]: 'x'"),
    ],
)
def test_bad_coupling_pairs_refused_with_one_line(data, message):
    from hyst.systems.files import SystemInputError, system_from_mapping

    with pytest.raises(SystemInputError, match=message) as err:
        system_from_mapping({"h_plus": [0.1, 0.2], "h_minus": [0.0, 0.1], **data})
    assert "\n" not in str(err.value)


def test_rule1_field_range_of_direction_dependent_loops():
    """The rule-1 field range from the state table equals the pairwise design rows' range
    on the paper's model, and on direction-dependent systems every field inside it keeps
    the loop (checked by relaxing there)."""
    from hyst.combinatorics import design
    from hyst.systems.self_loops import rule1_range

    rng = np.random.default_rng(11)
    compared = checked = 0
    for alpha in (0.0, 1.0):
        sy = sample_systems("random", "hysteron", 5, 8.0, 300, rng, direction_asymmetry=alpha)
        cols = run_enumeration(sy, "1")
        for k in np.flatnonzero(cols["n_self_loop_transitions"])[:40]:
            one = sy[int(k)]
            import hyst

            for loop in hyst.System._wrap(one).self_loops():
                got = rule1_range(one, list(loop.cycle))
                if alpha == 0.0:
                    want = design.field_range(
                        one.h_plus[0], one.h_minus[0], one.couplings[0], loop.cycle
                    )
                    assert got == want
                    compared += 1
                else:
                    assert got is not None
                    lo, hi = got
                    tables = StateTables(one)
                    for X in (lo + 1, (lo + hi) // 2, hi - 1):
                        if X % 2 == 0:  # a field of whole quanta (2H even)
                            r = tables.relax(loop.cycle[0], (X // 2, 0), "1")
                            assert r.outcome == "self_loop" and r.cycle_states == loop.cycle
                            checked += 1
    assert compared > 10 and checked > 10


@pytest.mark.parametrize("rule", ["0", "1", "1p", "2"])
def test_directed_systems_resolve_as_the_state_tables(rule):
    """A direction-dependent system read as general-model switching fields has, from every
    potentially stable state, the transitions of the pairwise kernels' state tables."""
    from collections import Counter

    import hyst
    from hyst.api.tgraphs import from_system
    from hyst.model.general import resolve

    rng = np.random.default_rng(31)
    seen = Counter()
    for n in (2, 3, 4):
        for _ in range(40):
            hp = rng.integers(-(10**6), 10**6, n)
            hm = hp - rng.integers(0, 10**6, n)
            cp, cm = rng.integers(-(10**6), 10**6, (2, n, n))
            np.fill_diagonal(cp, 0)
            np.fill_diagonal(cm, 0)
            sy = Systems(hp[None], hm[None], cp[None], couplings_minus=cm[None])
            tables = StateTables(sy)
            g = resolve(from_system(hyst.System._wrap(sy)), rule)
            for (S, d), t in g.items():
                if not tables.hminus[S] < tables.hplus[S]:
                    continue
                field = (int(tables.hplus[S] if d > 0 else tables.hminus[S]), d)
                r = tables.relax(S, field, rule)
                expected = {"stable": "stable", "self_loop": "self_loop", "ill_defined": "race"}
                assert expected[r.outcome] == t.outcome
                seen[t.outcome] += 1
                if t.outcome == "stable":
                    assert r.final_state == t.final
                    assert r.flips == len(t.flips) or rule == "2"
    assert seen["stable"] > 0 and seen["self_loop"] > 0 and (rule != "0" or seen["race"] > 0)


def test_directed_pairwise_model_realizes_every_tgraph_of_two_hysterons():
    """n = 2: the paper's pairwise model realizes 29 of the 35 realizable t-graphs of the
    general model; with direction-dependent couplings all 35 (its 8 parameters h_i^±,
    c^±_12, c^±_21 set the 8 switching fields one by one), each checked by resolving its
    parameters again; and the 13 reduced ones."""
    from hyst.combinatorics import tgraph_search, tgraphs
    from hyst.combinatorics.tgraph_pairwise import field_rows, pairwise_realize_many
    from hyst.model.general import SwitchingFields

    full = [g for s in tgraphs.scaffolds(2) for g in tgraph_search.scaffold_census(s, None).kept]
    reduced = tgraph_search.graph_census(2, keep=None).kept
    counts = {}
    for directed in (False, True):
        answers = pairwise_realize_many(full, directed=directed)
        assert all(a.rows_hold and a.reproduces for a in answers if a.feasible)
        counts[directed] = sum(a.feasible for a in answers)
        assert sum(a.feasible for a in pairwise_realize_many(reduced, directed=directed)) == 13
    assert (len(full), counts[False], counts[True]) == (35, 29, 35)
    # the directed field rows are the switching fields of from_pairwise with c^+ != c^-
    rng = np.random.default_rng(5)
    for n in (2, 3):
        hp, hm = rng.integers(-50, 50, (2, n))
        cp, cm = rng.integers(-20, 20, (2, n, n))
        np.fill_diagonal(cp, 0)
        np.fill_diagonal(cm, 0)
        off = ~np.eye(n, dtype=bool)
        x = np.concatenate([hp, hm, cp[off], cm[off]])
        f = SwitchingFields.from_pairwise(hp, hm, cp, cm)
        assert np.array_equal(field_rows(n, directed=True) @ x, f.values.ravel())


def test_direction_asymmetry_ensembles():
    """α = 0 draws the paper's systems bit for bit; c^− keeps the ensemble's mean and
    variance at every α, is symmetric for symmetric couplings, independent at α = 1."""
    from hyst.model.ensembles import check_direction_asymmetry

    for kind in ("random", "symmetric"):
        a = sample_systems(kind, "hysteron", 6, 6.0, 400, np.random.default_rng(3))
        b = sample_systems(
            kind, "hysteron", 6, 6.0, 400, np.random.default_rng(3), direction_asymmetry=0.0
        )
        assert not b.directed and np.array_equal(a.couplings, b.couplings)
        assert np.array_equal(a.h_plus, b.h_plus) and np.array_equal(a.h_minus, b.h_minus)
        off = ~np.eye(6, dtype=bool)
        J0 = 1.0 * 2.0**40
        for alpha in (0.3, 0.5, 1.0):
            c = sample_systems(
                kind, "hysteron", 6, 6.0, 400, np.random.default_rng(3), direction_asymmetry=alpha
            )
            assert c.directed and np.array_equal(c.couplings, a.couplings)  # c^+ as drawn
            cm = c.couplings_minus[:, off] / J0
            assert abs(cm.mean()) < 0.02 and abs(cm.var() - 1 / 3) < 0.02
            corr = np.corrcoef(c.couplings[:, off].ravel(), c.couplings_minus[:, off].ravel())
            assert abs(corr[0, 1] - np.sqrt(1 - alpha**2)) < 0.03
            if kind == "symmetric":
                assert np.array_equal(c.couplings_minus, c.couplings_minus.transpose(0, 2, 1))
    for bad in (-0.1, 1.5, float("nan"), "x", True):
        with pytest.raises(ValueError, match="direction_asymmetry") as err:
            check_direction_asymmetry(bad)
        assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match="needs couplings random or symmetric, not 'ferro'"):
        sample_systems("ferro", "hysteron", 4, 1.0, 2, np.random.default_rng(0), 0.5)
    import hyst

    one = hyst.System.from_ensemble(
        "random", 4, 3.0, samples=10, index=3, seed=2, direction_asymmetry=0.5
    )
    assert one.direction_dependent
    again = hyst.System.from_ensemble(
        "random", 4, 3.0, samples=10, index=3, seed=2, direction_asymmetry=0.5
    )
    assert one == again


def test_hyst_system_reads_and_draws_direction_dependent_systems(tmp_path):
    """``hyst system`` takes a file with c_plus and c_minus and an ensemble with
    --direction-asymmetry; bad values are refused with one line."""
    import subprocess
    import sys

    path = tmp_path / "s.yaml"
    path.write_text(
        "h_plus: [0.1, 0.3, 0.2]\nh_minus: [-0.1, 0.1, 0.0]\n"
        "c_plus: [[0, 0.5, 0.1], [0.25, 0, -0.2], [0.1, 0.3, 0]]\n"
        "c_minus: [[0, -0.375, 0.2], [0.25, 0, 0.1], [-0.3, 0.1, 0]]\n"
    )

    def hyst_system(*args):
        return subprocess.run(
            [sys.executable, "-m", "hyst", "system", *args], capture_output=True, text=True
        )

    proc = hyst_system("--file", str(path))
    assert proc.returncode == 0, proc.stderr
    assert "self-loop #1: L = 2, n_e = 1" in proc.stdout  # a negative effective span
    ensemble = ["--couplings", "random", "--N", "3", "--NJ0", "3", "--samples", "10"]
    proc = hyst_system(*ensemble, "--index", "2", "--direction-asymmetry", "0.7")
    assert proc.returncode == 0 and "direction asymmetry 0.7" in proc.stdout, proc.stderr
    proc = hyst_system(*ensemble, "--index", "2", "--direction-asymmetry", "1.5")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert "direction_asymmetry: 1.5 is not in [0, 1]" in proc.stderr
    path.write_text(path.read_text().replace("c_minus: [[0, -0.375, 0.2], ", "c_minus: ["))
    proc = hyst_system("--file", str(path))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert "c_minus: must be a square N x N matrix, got shape (2, 3)" in proc.stderr


def test_every_alpha_draws_the_same_thresholds_c_plus_and_starts():
    """Common random numbers along α: a chunk of a point with α > 0 holds the systems of
    α = 0 (h^±, c^+) and the same random starts; only c^− differs."""
    from hyst.sampling.sampler import Point, draw_chunk

    base = draw_chunk(Point("random", "hysteron", "1", 5, 3.0), 1, 0, 50)
    for alpha in (0.5, 1.0):
        sy, starts = draw_chunk(Point("random", "hysteron", "1", 5, 3.0, alpha), 1, 0, 50)
        assert np.array_equal(starts, base[1])
        assert np.array_equal(sy.h_plus, base[0].h_plus)
        assert np.array_equal(sy.couplings, base[0].couplings)
        assert sy.directed and not np.array_equal(sy.couplings_minus, sy.couplings)
    assert (
        Point("random", "hysteron", "1", 5, 3.0, 0.5).key()
        != Point("random", "hysteron", "1", 5, 3.0).key()
    )
