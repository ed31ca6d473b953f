# Stage 3: analyse. Scaling collapses versus N·J0 of every study swept over N
# and NJ0: small-coupling power laws, plateaus, 1 − P versus N, collapse exponent.


rule analyse:
    input:
        dataset=f"{RESULTS}/datasets/{{study}}.nc",
        code=PACKAGE / "analysis.py",  # a change to the analysis code re-analyses
    output:
        f"{RESULTS}/analysis/{{study}}.nc",
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
