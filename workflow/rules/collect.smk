# Stage: collect. A study's dataset from its jobs' result files, assembled by its kind.
# Its params hold what the dataset is made of besides its jobs: the study (less its
# description, which only captions show), the seed and the code of its kind. The jobs of
# a study are its own or shared with exactly the studies that share their points
# (hyst.studies.base.shared_by), so a change to another study runs none of them again.


rule collect:
    input:
        job_manifests,
    output:
        f"{RESULTS}/datasets/{{study}}.nc",
    params:
        study=lambda wc: canonical(without_description(STUDIES[wc.study])),
        seed=CONFIG["seed"],
        results=lambda wc, output: str(Path(output[0]).parent.parent),
        code=study_code,
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        "../envs/hyst.yaml"
    log:
        f"{RESULTS}/logs/collect/{{study}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/collect/{{study}}.tsv"
    script:
        "../scripts/collect_study.py"
