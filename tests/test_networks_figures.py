"""Every network figure renders from small datasets (the pictures themselves are checked
by eye; these tests only guard against breakage)."""

import numpy as np
import pytest
from matplotlib.figure import Figure

from hyst.networks import chains
from hyst.networks.scan import PAPER_PANELS, cell_centres, scan_panels
from hyst.plotting import networks as figures
from hyst.plotting import save


@pytest.fixture(scope="module")
def planes():
    return scan_panels(PAPER_PANELS, cell_centres(-3.0, 3.0, 48))


@pytest.fixture(scope="module")
def chain_ds():
    return chains.chains_dataset([0.0, 0.5, 1.0], [2, 6, 24], samples=60, seed=1, checks=1)


@pytest.mark.parametrize(
    "name",
    ["fig3_networks", "fig_spin_like", "fig_hysteretic", "fig_summary", "fig_symmetric"],
)
def test_plane_figures_render(name, planes, tmp_path):
    fig = getattr(figures, name)(planes)
    assert isinstance(fig, Figure) and len(fig.axes) >= 1
    paths = save(fig, tmp_path / name, formats=("png",), dpi=60)
    assert paths[0].stat().st_size > 5000


def test_element_and_chain_figures_render(chain_ds, tmp_path):
    for fig in (figures.fig_element_curves(), figures.fig_chains(chain_ds)):
        assert isinstance(fig, Figure)
        save(fig, tmp_path / "f", formats=("png",), dpi=60)
    assert np.isfinite(chain_ds.saturated_loop_probability).all()
