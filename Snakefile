# hyst pipeline: configuration -> jobs of each study kind -> study datasets -> analyses
# -> figures. Run:  snakemake --profile profiles/default
# or on a cluster:  snakemake --profile profiles/slurm
from snakemake.utils import min_version

from hyst.pipeline.console import first_run_notice, kernels_cached, run_summary
from hyst.pipeline.estimate import run_estimate
from hyst.pipeline.jobserver import JobServer
from hyst.pipeline.progress import PLAN as PROGRESS_PLAN
from hyst.pipeline.report_graph import use_in_report
from hyst.provenance.files import remove_stale_temporaries
from hyst.provenance.fingerprints import cache_path
from hyst.sampling.cost import load_rates
from hyst.studies import sampler_selections

#: Whether the numba kernels were compiled before this run (a first run compiles them).
KERNELS_CACHED = kernels_cached()
#: The run's job server, once started (onstart)
JOB_SERVER = []

min_version("8.0")

# The configuration: --configfile FILE (e.g. config/quick.yaml), else the paper
# preset config/config.yaml; --config KEY=VALUE overrides either (see common.smk).


include: "workflow/rules/common.smk"
include: "workflow/rules/jobs.smk"
include: "workflow/rules/collect.smk"
include: "workflow/rules/analyse.smk"
include: "workflow/rules/figures.smk"
include: "workflow/rules/tables.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/manifest.smk"


report: "workflow/report/workflow.rst"


# the report's rule graph shows each rule once, as --rulegraph does (hyst/pipeline/report_graph.py)
use_in_report()


onstart:
    # what writers killed mid-write (a killed run) left: every such file in the results,
    # which this run owns; in the fingerprint caches, shared with other runs, the old ones
    for path in [
        *remove_stale_temporaries(RESULTS),
        *remove_stale_temporaries(cache_path().parent, older_than=600),
    ]:
        sys.stderr.write(f"hyst: removed {path}, left by a killed run\n")
    if not KERNELS_CACHED:
        sys.stderr.write(first_run_notice(load_rates()) + "\n")
    # jobs that run on this machine run in the run's job server, which pays the imports and
    # the kernels' loading once (hyst/pipeline/jobserver.py); jobs that SLURM places run
    # their own process
    if workflow.local_exec:
        JOB_SERVER.append(
            JobServer(
                table=f"{RESULTS}/benchmarks/job_server.tsv",
                selections=sampler_selections(PLAN),
            )
        )
    # what the console's time left is reckoned from (hyst/pipeline/progress.py)
    cores = workflow.cores if workflow.local_exec else workflow.nodes
    estimate = run_estimate(CONFIG, cores or 1, compiled=KERNELS_CACHED, jobs_plan=PLAN)
    PROGRESS_PLAN.update(
        cores=estimate.cores,
        jobs={out: (estimate.rules[out], sec) for out, sec in estimate.jobs.items()},
    )


onsuccess:
    for server in JOB_SERVER:
        server.stop()
    sys.stderr.write(
        run_summary(
            RESULTS,
            CONFIG,
            workflow.config_settings.configfiles,
            compiled=not KERNELS_CACHED,
        )
    )


onerror:
    for server in JOB_SERVER:
        server.stop()
    sys.stderr.write(
        f"hyst: the run stopped; each job's log is under {RESULTS}/logs/ (the failed "
        "job's log is named above); running the same command again resumes it\n"
    )


rule all:
    default_target: True
    input:
        datasets=expand(f"{RESULTS}/datasets/{{study}}.nc", study=sorted(STUDIES)),
        analysis=expand(f"{RESULTS}/analysis/{{study}}.nc", study=ANALYSED),
        figures=expand(
            f"{RESULTS}/figures/{{figure}}.{{ext}}",
            figure=sorted(FIGURES),
            ext=["png", *FIGURE_FILES["formats"]],
        ),
        captions=expand(f"{RESULTS}/figures/{{figure}}.caption.rst", figure=sorted(FIGURES)),
        tables=TABLES,
        comparison=[f"{RESULTS}/paper_comparison.md"] if COMPARISON else [],
        manifest=f"{RESULTS}/manifest.json",
