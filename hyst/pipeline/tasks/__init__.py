"""The pipeline's tasks: the work of each rule of the workflow, one module per rule, each
with ``run(snakemake)`` (the ``snakemake`` object a Snakemake script gets) and, where its
jobs load code lazily, ``preload()``. The scripts of ``workflow/scripts`` hand their job to
:func:`hyst.pipeline.jobserver.run_task`, which runs the task in the run's job server or in
the script's own process. One module per rule, so that a rule's code fingerprint holds the
code of its own task and what that imports, and nothing else."""
