# Stage: the paper-comparison page. Every section of the configuration's `comparison:` is
# built from the datasets (and analyses) of the studies bound to it and the catalogue's paper
# facts; the page is written as Markdown and as the HTML page of the Snakemake report.
COMPARISON = CONFIG["comparison"]
COMPARISON_STUDIES = sorted({s for b in COMPARISON.values() for s in b["studies"]})


rule paper_comparison:
    input:
        datasets=[f"{RESULTS}/datasets/{s}.nc" for s in COMPARISON_STUDIES],
        analysis=[f"{RESULTS}/analysis/{s}.nc" for s in COMPARISON_STUDIES if s in ANALYSED],
    output:
        md=f"{RESULTS}/paper_comparison.md",
        html=report(
            f"{RESULTS}/paper_comparison.html",
            caption="../report/comparison.rst",
            category="Paper comparison",
        ),
    params:
        comparison=canonical(COMPARISON),
        studies=COMPARISON_STUDIES,
        analysed=[s for s in COMPARISON_STUDIES if s in ANALYSED],
        code=CODE["comparison"],
    resources:
        mem_mb=4000,
        runtime=30,
    conda:
        "../envs/hyst.yaml"
    log:
        f"{RESULTS}/logs/paper_comparison.log",
    benchmark:
        f"{RESULTS}/benchmarks/paper_comparison.tsv"
    script:
        "../scripts/paper_comparison.py"
