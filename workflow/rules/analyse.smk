# Stage: analyse. Scaling analysis against N·J0 of every study its kind marks as analysable:
# small-coupling power laws, plateaus, 1 − P versus N, collapse exponent.


rule analyse:
    input:
        dataset=f"{RESULTS}/datasets/{{study}}.nc",
    output:
        f"{RESULTS}/analysis/{{study}}.nc",
    params:
        code=CODE["analysis"],
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        "../envs/hyst.yaml"
    log:
        f"{RESULTS}/logs/analyse/{{study}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/analyse/{{study}}.tsv"
    script:
        "../scripts/analyse_study.py"
