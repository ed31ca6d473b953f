# Stage: jobs. One rule runs a job of every study kind (hyst.studies.KINDS): the kind is a
# wildcard, its payload comes from the plan, its resources from the kind
# (StudyKind.job_resources: the configuration's `resources:` unless the kind has its own).
# `params:` hold what determines a job's result, nothing else: the configuration's
# `resources:` reach the job as threads and resources, its `dask:` (where the work runs) is
# read at run time (StudyKind.job_config), so editing either reruns nothing.
# A kind's jobs write result files under results/<kind>/, reused when their provenance
# matches, and a manifest listing them.


rule job:
    output:
        f"{RESULTS}/jobs/{{kind}}/{{job}}.json",
    params:
        payload=lambda wc: job_payload(wc.kind, wc.job),
        results=lambda wc, output: str(Path(output[0]).parents[2]),
        code=lambda wc: CODE[f"job/{wc.kind}"],
    wildcard_constraints:
        kind="|".join(KINDS),
    threads: lambda wc: KINDS[wc.kind].job_resources(CONFIG)["threads"]
    resources:
        mem_mb=lambda wc: KINDS[wc.kind].job_resources(CONFIG)["mem_mb"],
        runtime=lambda wc: KINDS[wc.kind].job_resources(CONFIG)["runtime"],
    conda:
        "../envs/hyst.yaml"
    log:
        f"{RESULTS}/logs/{{kind}}/{{job}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/{{kind}}/{{job}}.tsv"
    script:
        "../scripts/run_job.py"


# The jobs the plan marks long (hyst.studies.base.Job.long) start before the others: the
# same rule with a higher priority, for their names alone.
use rule job as job_long with:
    wildcard_constraints:
        kind=PLAN.long_kinds_pattern(),
        job=PLAN.long_jobs_pattern(),
    priority: 1


ruleorder: job_long > job
