"""Structure of the ensembles (property tests) and exact quantisation."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hyst.kernels.codes import FORM_DENSE, FORM_DENSE_T
from hyst.model.ensembles import (
    COUPLING_ENSEMBLES,
    SPAN_ENSEMBLES,
    sample_couplings,
    sample_systems,
)
from hyst.model.systems import QUANTUM, Systems, quantize

Ns = st.integers(2, 12)
NJ0s = st.floats(1e-3, 1e3)
seeds = st.integers(0, 2**32 - 1)


@given(N=Ns, NJ0=NJ0s, seed=seeds, kind=st.sampled_from(list(COUPLING_ENSEMBLES)))
def test_coupling_structure(N, NJ0, seed, kind):
    c = sample_couplings(kind, N, NJ0, 20, np.random.default_rng(seed))
    J0 = NJ0 / N
    assert c.dtype == np.int64 and c.shape == (20, N, N)
    assert np.all(np.diagonal(c, axis1=1, axis2=2) == 0)
    assert np.all(np.abs(c) * QUANTUM <= J0 * (1 + 1e-12) + QUANTUM)
    off = ~np.eye(N, dtype=bool)
    ct = np.transpose(c, (0, 2, 1))
    if kind == "symmetric":
        assert np.array_equal(c, ct)
    elif kind == "weak":
        assert np.all((np.sign(c) * np.sign(ct))[:, off] >= 0)
    elif kind == "ferro":
        assert np.all(c >= 0)
    elif kind == "columns":
        col = c[:, ~np.eye(N, dtype=bool)].reshape(20, N, N - 1)
        # c_ik = -d_k: every off-diagonal entry of column k is the same
        for k in range(N):
            colk = np.delete(c[:, :, k], k, axis=1)
            assert np.all(colk == colk[:, :1]) and np.all(colk <= 0)
        assert col.shape[0] == 20
    elif kind == "rows":
        for k in range(N):
            rowk = np.delete(c[:, k, :], k, axis=1)
            assert np.all(rowk == rowk[:, :1]) and np.all(rowk <= 0)


@given(N=Ns, seed=seeds, spans=st.sampled_from(list(SPAN_ENSEMBLES)))
def test_span_structure(N, seed, spans):
    sy = sample_systems("random", spans, N, 1.0, 30, np.random.default_rng(seed))
    sigma = (sy.h_plus - sy.h_minus) * QUANTUM
    mid = (sy.h_plus + sy.h_minus) * QUANTUM / 2
    assert np.all(np.abs(mid) <= 1 + 1e-9)
    if spans == "spin":
        assert np.array_equal(sy.h_plus, sy.h_minus)
    elif spans == "equal":
        assert np.all(sy.h_plus - sy.h_minus == quantize(0.5))
    else:
        assert np.all((sigma >= 0) & (sigma <= 0.5 + 1e-9))


def test_same_generator_state_gives_same_systems():
    a = sample_systems("weak", "hysteron", 6, 3.0, 50, np.random.default_rng(7))
    b = sample_systems("weak", "hysteron", 6, 3.0, 50, np.random.default_rng(7))
    for x, y in zip(
        (a.h_plus, a.h_minus, a.couplings), (b.h_plus, b.h_minus, b.couplings), strict=True
    ):
        assert np.array_equal(x, y)


def test_uniform_marginals():
    """c_ij ~ U[-J0, J0] for random and weak; d_k ~ U[0, J0] for columns."""
    rng = np.random.default_rng(3)
    for kind, lo in (("random", -1.0), ("weak", -1.0), ("ferro", 0.0)):
        c = sample_couplings(kind, 4, 4.0, 20000, rng) * QUANTUM
        vals = c[:, 0, 1]
        assert abs(vals.mean() - (lo + 1) / 2) < 0.02
        assert abs(vals.min() - lo) < 0.01 and abs(vals.max() - 1) < 0.01


@pytest.mark.parametrize("bad", [dict(N=1), dict(NJ0=0.0), dict(NJ0=-1.0)])
def test_bad_parameters_rejected(bad):
    args = dict(
        couplings="random", spans="hysteron", N=4, NJ0=1.0, samples=2, rng=np.random.default_rng(0)
    )
    args.update(bad)
    with pytest.raises(ValueError, match=next(iter(bad))):
        sample_systems(**args)


def test_unknown_ensemble_rejected():
    with pytest.raises(ValueError, match="couplings: 'nope' is not one of random"):
        sample_systems("nope", "hysteron", 4, 1.0, 2, np.random.default_rng(0))


def test_from_floats_roundtrip_and_overflow_guard():
    sy = Systems.from_floats([0.5, -0.25], [0.25, -0.5], [[9.0, 0.125], [-0.375, 9.0]])
    hp, hm, c = sy.to_floats()
    assert hp.tolist() == [[0.5, -0.25]] and c[0, 0, 0] == 0 and c[0, 0, 1] == 0.125
    with pytest.raises(ValueError):
        Systems.from_floats([0.0, 0.0], [0.0, 0.0], [[0, 1e9], [1e9, 0]])


@given(N=st.integers(2, 40), seed=seeds, kind=st.sampled_from(["symmetric", "columns", "rows"]))
def test_compact_forms_expand_to_their_definitions(N, seed, kind):
    """Symmetric couplings are kept as the row-major upper triangle and constant columns
    and rows as the N strengths; the dense matrices built from them are the definitions."""
    sy = sample_systems(kind, "hysteron", N, 5.0, 6, np.random.default_rng(seed))
    assert sy.form == kind and sy.packed.dtype == np.int64
    c, p = sy.couplings, sy.packed
    off = ~np.eye(N, dtype=bool)
    assert np.all(c[:, ~off] == 0)
    if kind == "symmetric":
        assert p.shape == (6, N * (N - 1) // 2)
        iu = np.triu_indices(N, 1)
        assert np.array_equal(c[:, iu[0], iu[1]], p)
        assert np.array_equal(c, np.transpose(c, (0, 2, 1)))
    else:
        assert p.shape == (6, N) and np.all(p >= 0)
        expect = -p[:, None, :] if kind == "columns" else -p[:, :, None]
        assert np.array_equal(c[:, off], np.broadcast_to(expect, c.shape)[:, off])
    part = sy[[0, 3]]
    assert part.form == kind and np.array_equal(part.couplings, c[[0, 3]])
    operands = sy.kernel_batch()
    assert operands.couplings.shape == (6, 0, 0) and operands.packed is sy.packed


def test_sample_couplings_is_the_dense_view_of_the_compact_draw():
    from hyst.model.ensembles import draw_couplings

    for kind in COUPLING_ENSEMBLES:
        dense = sample_couplings(kind, 9, 2.0, 5, np.random.default_rng(4))
        form, c, packed = draw_couplings(kind, 9, 2.0, 5, np.random.default_rng(4))
        if c is None:
            mid = np.zeros((5, 9), np.int64)
            c = Systems(mid, mid, form=form, packed=packed).couplings
        assert np.array_equal(dense, c) and dense.shape == (5, 9, 9)


def test_systems_reject_malformed_compact_data():
    z = np.zeros((2, 4), np.int64)
    with pytest.raises(ValueError, match="form"):
        Systems(z, z, form="banded", packed=z)
    with pytest.raises(ValueError, match="packed"):
        Systems(z, z, form="symmetric", packed=z)  # needs 4 * 3 / 2 = 6 columns
    with pytest.raises(ValueError, match="dense form"):
        Systems(z, z)
    with pytest.raises(ValueError, match="overflow"):
        Systems(z, z, form="columns", packed=np.full((2, 4), 2**58, np.int64))


def _kernel_values(batch):
    """A kernel batch as plain comparable values: the form code and each array's couplings
    read in one layout (c[k][i, j] = c_ij for the dense forms, transposed ones included)."""
    hp, hm, form, c, packed = batch
    matrix = np.transpose(c, (0, 2, 1)) if form == FORM_DENSE_T else c
    return hp.tolist(), hm.tolist(), matrix.tolist(), packed.tolist()


@given(
    N=st.integers(2, 7),
    seed=seeds,
    kind=st.sampled_from(list(COUPLING_ENSEMBLES)),
    alpha=st.sampled_from([0.0, 0.5]),
    index=st.integers(-4, 3),
)
def test_one_systems_kernel_batch_is_that_of_the_system_taken_alone(N, seed, kind, alpha, index):
    """``Systems.kernel_batch_of(k)`` (views of one row, what a single drive or relaxation
    takes) holds the values of ``systems[k].kernel_batch()`` (a new batch of that system),
    in every coupling form, direction-dependent couplings included; contiguous arrays;
    an index beyond the batch raises IndexError as for a list."""
    rng = np.random.default_rng(seed)
    alpha = alpha if kind in ("random", "symmetric") else 0.0
    systems = sample_systems(kind, "hysteron", N, 3.0, 4, rng, direction_asymmetry=alpha)
    one = systems.kernel_batch_of(index)
    alone = systems[index].kernel_batch()
    assert _kernel_values(one) == _kernel_values(alone)
    assert one.form == alone.form or {one.form, alone.form} == {FORM_DENSE, FORM_DENSE_T}
    assert all(a.flags.c_contiguous for a in one if isinstance(a, np.ndarray))
    with pytest.raises(IndexError):
        systems.kernel_batch_of(4)
    with pytest.raises(IndexError):
        systems.kernel_batch_of(-5)


@given(
    N=st.integers(2, 7),
    seed=seeds,
    kind=st.sampled_from(list(COUPLING_ENSEMBLES)),
    alpha=st.sampled_from([0.0, 0.5]),
    order=st.lists(st.integers(-4, 3), min_size=1, max_size=6),
)
def test_a_systems_view_is_that_of_the_system_built_alone_and_the_last_is_kept(
    N, seed, kind, alpha, order
):
    """``Systems.kernel_view_of(k)`` (what a drive of one system reads) holds system k's
    thresholds and couplings as ``view_of`` lays them out from a new batch of that system
    alone, whatever was asked before; asking the same system again returns the view kept,
    another system replaces it."""
    from hyst.kernels.relaxation import transpose_buffer, view_of

    rng = np.random.default_rng(seed)
    alpha = alpha if kind in ("random", "symmetric") else 0.0
    systems = sample_systems(kind, "hysteron", N, 3.0, 4, rng, direction_asymmetry=alpha)
    for index in order:
        view = systems.kernel_view_of(index)
        alone = systems[index].kernel_batch()
        fresh = view_of(0, alone, transpose_buffer(alone.form, N))
        for got, want in zip(view, fresh, strict=True):
            assert np.array_equal(np.asarray(got), np.asarray(want))
        assert systems.kernel_view_of(index) is view
        assert systems.kernel_view_of(index % 4 - 4) is view  # the same system counted from the end
    with pytest.raises(IndexError):
        systems.kernel_view_of(4)
