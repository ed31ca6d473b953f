# Stage: tables. Each study whose kind has tables (StudyKind.tables: `loops`, Table I and
# the Supplemental's tables; `tgraphs`, the census table) gets them as Markdown, LaTeX and
# reStructuredText.


TABLE_STUDIES = sorted(
    n for n, s in STUDIES.items() if type(kind_of(s)).tables is not StudyKind.tables
)
TABLES = expand(f"{RESULTS}/tables/{{study}}.md", study=TABLE_STUDIES)


rule study_tables:
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
        study="|".join(TABLE_STUDIES) if TABLE_STUDIES else "NONE",
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
        "../scripts/study_tables.py"
