# Study kind `loops`: one job per (cell (n_e, L), count or realize); enumeration chunks and
# LP blocks run on a Dask cluster for large cells. Each loops study also gets its tables
# (Table I and the Supplemental's tables) as Markdown, LaTeX and reStructuredText.


rule loops:
    output:
        f"{RESULTS}/jobs/loops/{{job}}.json",
    params:
        kind="loops",
        job=lambda wc: job_payload("loops", wc.job),
        config=canonical({k: CONFIG[k] for k in ("dask", "resources")}),
        results=lambda wc, output: str(Path(output[0]).parents[2]),
        code=CODE["job/loops"],
    threads: CONFIG["resources"]["threads"]
    resources:
        mem_mb=CONFIG["resources"]["mem_mb"],
        runtime=CONFIG["resources"]["runtime"],
    conda:
        "../envs/hyst.yaml"
    log:
        f"{RESULTS}/logs/loops/{{job}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/loops/{{job}}.tsv"
    script:
        "../scripts/run_job.py"


LOOP_STUDIES = sorted(n for n, s in STUDIES.items() if kind_of(s).name == "loops")
LOOP_TABLES = expand(f"{RESULTS}/tables/{{study}}.md", study=LOOP_STUDIES)


rule loops_tables:
    input:
        f"{RESULTS}/datasets/{{study}}.nc",
    output:
        md=report(
            f"{RESULTS}/tables/{{study}}.md", caption="../report/table.rst", category="Tables"
        ),
        tex=report(
            f"{RESULTS}/tables/{{study}}.tex", caption="../report/table.rst", category="Tables"
        ),
        rst=f"{RESULTS}/tables/{{study}}.rst",
    params:
        caption=lambda wc: CaptionFile(f"{RESULTS}/tables/{wc.study}.rst"),
        code=CODE["tables"],
    wildcard_constraints:
        study="|".join(LOOP_STUDIES) if LOOP_STUDIES else "NONE",
    resources:
        mem_mb=1000,
        runtime=10,
    conda:
        "../envs/hyst.yaml"
    log:
        f"{RESULTS}/logs/tables/{{study}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/tables/{{study}}.tsv"
    script:
        "../scripts/loops_tables.py"
