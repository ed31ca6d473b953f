"""Layer 1, provenance: atomic NetCDF writes, reads and provenance checks
(:mod:`hyst.provenance.files`) and fingerprints of the code behind a result
(:mod:`hyst.provenance.fingerprints`). Imports nothing else of hyst."""
