"""CF checks of a dataset, as a user's tools read it: cf-xarray's unit registry (UDUNITS
units through pint, as pint-xarray uses it) parses every unit, every variable and coordinate
has a long_name or standard_name, and no coordinate is named like a dimension it does not
index."""

from __future__ import annotations

import cf_xarray  # noqa: F401 (the .cf accessor)
import cf_xarray.units
import pint_xarray  # noqa: F401 (the .pint accessor)
import xarray as xr

UNITS = cf_xarray.units.units


def cf_problems(ds: xr.Dataset) -> list[str]:
    """One line per CF problem of ``ds`` (none: [])."""
    problems = []
    if not str(ds.attrs.get("Conventions", "")).startswith("CF-"):
        problems.append("no Conventions attribute naming CF")
    for name, var in ds.variables.items():
        if not {"long_name", "standard_name"} & set(var.attrs):
            problems.append(f"{name}: neither long_name nor standard_name")
        if var.dtype.kind in "iuf" and "flag_values" not in var.attrs:
            units = var.attrs.get("units")
            if units is None:
                problems.append(f"{name}: a number without units")
            else:
                try:
                    UNITS.parse_units(str(units))
                except Exception as err:  # pint's errors have no common base
                    problems.append(f"{name}: units {units!r} do not parse ({err})")
        if name in ds.dims and var.dims != (name,):
            problems.append(f"{name}: named like a dimension it does not index ({var.dims})")
    if not problems:
        ds.pint.quantify(unit_registry=UNITS)  # every unit, as pint-xarray reads them
        ds.cf.keys()  # cf-xarray reads the dataset's CF attributes
    return problems
