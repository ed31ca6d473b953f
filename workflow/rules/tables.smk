# Stage: tables. Each study of kind `loops` gets its tables (Table I and the
# Supplemental's tables) as Markdown, LaTeX and reStructuredText.


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
