//! Command-line definitions (clap). Only this module knows about flags; commands receive the
//! parsed values.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use ioscout_service::vocabulary::{
    Detector, Family, GroupBy, OverlapMode, PresetName, RankBy, Severity, SortMetric,
};

/// The command line of `ioscout`.
#[derive(Debug, Parser)]
#[command(
    name = "ioscout",
    version,
    about = "Finds out why HPC and deep-learning jobs wait on I/O, and what to change.",
    long_about = None,
    after_help = AFTER_HELP
)]
pub(crate) struct Arguments {
    #[command(subcommand)]
    pub(crate) command: Command,
}

const AFTER_HELP: &str = "\
Inputs are trace files (.pfw, .pfw.gz), directories (searched recursively for *.pfw and *.pfw.gz)
and glob patterns, for every DFTracer format generation (2023, v1, 2025, 2.2).

Exit codes: 0 ok, 1 findings, 2 error (including bad input under --strict).

Examples:
  ioscout count testdata/sample
  ioscout info --json traces/run-42/
  ioscout view traces/ --where 'cat == \"POSIX\" and dur > 1000' --limit 20";

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Count events per file and in total, by phase (replaces `dftracer_event_count`).
    #[command(after_help = "Examples:\n  ioscout count trace.pfw.gz\n  ioscout count --json 'runs/*/traces'")]
    Count(CountArguments),
    /// Describe each trace file: format generation, compression, events, time span, processes,
    /// hosts, files and categories, and the totals.
    #[command(after_help = "Examples:\n  ioscout info traces/\n  ioscout info --json trace-0-of-2-*.pfw.gz")]
    Info(InfoArguments),
    /// Print matching events with resolved host and file names.
    #[command(after_help = "\
Expression language (--where):
  fields     name cat pid tid ts dur id type ph host file args.<key>
  compare    == != < <= > >=   in (v1, v2, ...)   ~ \"regex\"   !~ \"regex\"
  combine    and  or  not  ( )
  values     \"strings\", numbers, bare words; ph takes X M C A (or 1-4, complete, metadata, ...)
A comparison on a missing field is false, except != and !~.

Examples:
  ioscout view traces/ --where 'name in (\"read\", \"pread64\") and args.ret < 4096' --limit 10
  ioscout view traces/ --where 'host == \"node001\" and file ~ \"/data/\"' --format csv > reads.csv
  ioscout view trace.pfw.gz --where 'ph == M and name == FH'")]
    View(ViewArguments),
    /// Build or refresh the sidecar index of trace directories (incremental: only changed and
    /// new files are read).
    #[command(after_help = "\
The index of a directory is <dir>/.ioscout/index.redb, or, when the directory is read-only, a file
under --index-dir, $XDG_CACHE_HOME/ioscout/indexes or ~/.cache/ioscout/indexes. It records
independently decodable chunks, per-chunk statistics and bloom filters, and the FH/HH/SH tables,
so `ioscout query` reads only the chunks that can match.

Examples:
  ioscout index traces/
  ioscout index --force --index-dir /scratch/indexes /readonly/traces/")]
    Index(IndexArguments),
    /// Print matching events, reading only the chunks the index cannot rule out.
    #[command(after_help = "\
The expression language is the one of `ioscout view` (see `ioscout view --help`).
Without an index the query is a full scan (and says so); a file changed since it was indexed is
scanned whole, with a message. --no-index forces the full scan.

Examples:
  ioscout query traces/ --where 'host == \"node007\" and pid == 12345'
  ioscout query traces/ --where 'name == \"pread\" and dur > 100000' --format csv --limit 100
  ioscout query traces/ --group-by name,cat --agg count,sum:dur,mean:dur,p99:dur,sum:size

--group-by on name and cat with count, sum, mean, min and max of dur and sum of size is answered
from the index's statistics alone when every chunk is either ruled out or wholly matched by
--where; anything else scans the chunks that can match.")]
    Query(QueryArguments),
    /// DFAnalyzer-compatible analysis: layers, views, metrics and compute/I-O overlap.
    #[command(after_help = "\
Presets (--preset): auto (default: chosen from the trace's categories), posix, dlio (DLIO with
AI-logging categories), dlio-prev (DLIO's older categories), generic (one layer per category).
Views (--view): time_range, proc_name, host_name, file_name, file_dir, file_pattern, epoch, step;
the summary is computed over the first view; proc_name is always computed.

Overlap: exact (default) measures, for each row of an asynchronous layer, the part not covered by
the compute intervals of its process tree (a rank and its forked data-loader workers); binned is
DFAnalyzer's approximation (per time bin: bottleneck I/O time minus bottleneck compute time).

Examples:
  ioscout analyze traces/
  ioscout analyze --preset dlio-prev --overlap binned golden/
  ioscout analyze --json --view time_range,file_name traces/ > analysis.json
  ioscout analyze --out details/ --out-format parquet traces/")]
    Analyze(AnalyzeArguments),
    /// Bottleneck findings with severity, evidence and one line of why (exit 1 with --fail-on
    /// when a finding reaches that severity).
    #[command(after_help = "\
Families (--rules): wisio, dfanalyzer, drishti, iosage, pipeline, detector. Severity labels: none, low, medium,
high, critical (critical at 0.85 or more, high 0.6, medium 0.3). --json writes DFDiagnoser's fact envelope
(analyzer.fact-envelope.v1).

Detector (--detector): both (default) lets the learned model (IOSage's method: gradient-boosted trees over
normalised Darshan counters, trained on labelled runs) decide which patterns a run has and the rules explain
them; a rule finding the model rejects is marked not confirmed and held below medium, a pattern the model finds
that no rule explains is reported with the model's evidence (DET-*). model: the model's findings only. rules:
the rules alone. Every finding names its IOSage pattern; `ioscout explain PATTERN` prints its card.

Examples:
  ioscout diagnose traces/
  ioscout diagnose --detector rules job.darshan
  ioscout diagnose --min-severity medium --fail-on high traces/
  ioscout diagnose --json traces/ > facts.json")]
    Diagnose(DiagnoseArguments),
    /// List the diagnosis rules: code, family, title.
    Rules(RulesArguments),
    /// Print one rule's full documentation (what it detects, why it hurts, evidence, thresholds,
    /// references), or the card of one of IOSage's eight patterns.
    #[command(
        after_help = "Examples:\n  ioscout explain P05\n  ioscout explain access_pattern\n  ioscout explain file_strategy --model my-model.json"
    )]
    Explain(ExplainArguments),
    /// The learned detector's inputs: the feature vector of each run (what the training script
    /// reads), or the documented feature table.
    #[command(subcommand)]
    Detect(DetectCommand),
    /// Cited, file-system-aware proposals: the 12-dimension checklist and a ranked proposal
    /// table, from a trace or a Darshan log.
    #[command(after_help = "\
Every dimension of the optimisation checklist gets a verdict (applied_measured,
applicable_not_measured, not_applicable) with a reason. Proposals answer the findings of
`ioscout diagnose`, pass the file-system gate (--fs-type overrides detection) and the guards
(doing less is rejected; access-pattern changes are diagnostic bounds only), and are ranked by
a 50/50 score of application impact (a bound from the measured run) and system impact.

Examples:
  ioscout advise traces/ --fs-type lustre
  ioscout advise job.darshan --json
  ioscout advise traces/ --run-dir runs/unet3d --kb kb.jsonl --workload unet3d --system tuolumne")]
    Advise(AdviseArguments),
    /// Compare two or more runs against a baseline, layer by layer: time, operations, bytes,
    /// bandwidth, overlap, the change and the speedup, and whether each run did less work than
    /// the baseline (then its speedup is not credited).
    #[command(after_help = "\
Runs are trace directories or files, or Darshan logs (all of one kind), named one by one, as
globs (quoted: 'runs/opt*'), or in a manifest (TOML):

  baseline = \"opt0\"
  [[run]]
  label = \"opt0\"
  path = \"runs/opt0/traces\"   # relative to the manifest's folder
  [[run]]
  label = \"stripe16\"
  path = \"runs/opt1/traces\"

The baseline is the first run unless --baseline names another. --sort orders the runs best
first (least time, most speedup or bandwidth; most operations or bytes); time, operations, bytes
and bandwidth are those of --sort-layer (default: the baseline's first layer).

Examples:
  ioscout compare runs/base/traces runs/opt1/traces
  ioscout compare 'sweep/threads_*' --sort job-time --html sweep.html
  ioscout compare --manifest campaign.toml --baseline opt0 --csv > campaign.csv
  ioscout compare before.darshan after.darshan --json")]
    Compare(CompareArguments),
    /// The knowledge base of measured results (append-only JSON lines).
    #[command(subcommand)]
    Kb(KbCommand),
    /// Check or repair a run directory's opt<n>/ layout.
    #[command(subcommand)]
    Runs(RunsCommand),
    /// Read Darshan logs natively: summary, darshan-parser text, DXT text.
    #[command(subcommand)]
    Darshan(DarshanCommand),
    /// Serve the pipeline as MCP tools for LLM agents (stdio by default, or streamable HTTP).
    #[command(after_help = "\
Every path a tool receives must lie under a --root (relative paths are taken from the first
root; symbolic links and .. are resolved before the check). Register it with an agent client:

  {\"mcpServers\": {\"ioscout\": {\"command\": \"ioscout\", \"args\": [\"mcp\", \"--root\", \"/path/to/runs\"]}}}

Examples:
  ioscout mcp --root ~/runs
  ioscout mcp --root ~/runs --root /scratch/traces --http 127.0.0.1:5000")]
    Mcp(McpArguments),
    /// Tune a workload's parameters: OFAT-guided greedy search (or grid, random, TPE) on a
    /// representative subset, validated at full size.
    #[command(after_help = "\
The spec (TOML) names the workload's command template, its parameters by layer (L1 application,
L2 software, L3 system) with candidate values, the objective (a number in a JSON file the run
writes, such as DLIO's summary.json, or a metric of its DFTracer trace) and its direction, and a
dataset-size knob for subsets. See examples/tune/.

Examples:
  ioscout tune examples/tune/mock.toml
  ioscout tune examples/tune/mock.toml --strategy tpe --budget 16 --seed 3 --json
  ioscout tune examples/tune/dlio-resnet50.toml --kb kb.jsonl")]
    Tune(TuneArguments),
    /// Measure the advice: diagnose and advise the baseline, run each proposal the spec can
    /// express against it in alternated pairs, keep only measured wins, rank again.
    #[command(after_help = "\
The spec is `ioscout tune`'s with an [optimize] section: the baseline's evidence (`traces`, or
`preload`: DFTracer's LD_PRELOAD library, to trace one baseline run), `pairs` (at least 5), an
optional `prepare` command for the input data ({work_dir} in any command is the work directory),
and [[optimize.variant]]s: a command (a code change), environment variables or parameter values,
each with the catalog strategies it `implements`; a [[parameter]] with `implements` is measured at
each of its other values too. A variant wins only when the interval of its pair ratios lies above
1 plus the objective's noise margin; every measurement goes to the knowledge base, and the
opt<n>/ artifacts (with opt_measured.json) to the work directory. Exit 1 when nothing won.

Examples:
  ioscout optimize examples/optimize/mock.toml
  ioscout optimize bench/scenarios/specs/tiny_writes.toml --pairs 7 --json")]
    Optimize(OptimizeArguments),
    /// Write a self-contained HTML report: summary, layer breakdown, per-process timeline of
    /// compute and I/O, bandwidth and operations over time, bytes by directory and process, the
    /// transfer-size histogram, findings and proposals; for a Darshan log, its job summary
    /// (I/O cost per module, operation counts, access sizes, files by use, findings, proposals).
    #[command(
        after_help = "Examples:\n  ioscout report testdata/sample -o report.html\n  ioscout report traces/ --preset dlio -o run42.html\n  ioscout report job.darshan -o job.html"
    )]
    Report(ReportArguments),
    /// Export events to a file: Parquet (for pandas, polars, `DuckDB`) or Chrome's trace-event
    /// JSON (opens in Perfetto's UI), with host and file names resolved; `--where` filters, and
    /// the index prunes as for `query`.
    #[command(
        after_help = "Examples:\n  ioscout export traces/ --format parquet -o events.parquet\n  ioscout export traces/ --format chrome-json --where 'pid == 4242' -o rank.json"
    )]
    Export(ExportArguments),
    /// Rewrite traces into one indexed multi-member .pfw.gz per group of events (I/O calls,
    /// metadata, the rest by default), losslessly: queries then read only the groups their
    /// predicate can touch, and `reconstruct` gives the original files back.
    #[command(
        after_help = "Examples:\n  ioscout organize traces/ -o organized/\n  ioscout organize traces/ -o by-rank/ --group rank0:'pid == 4242' --group io:'cat == \"POSIX\"'\n  ioscout query organized/ --where 'cat == \"POSIX\" and dur > 1000'"
    )]
    Organize(OrganizeArguments),
    /// Rebuild the original trace files of an organized directory (same names, same
    /// decompressed bytes, checked against the provenance's sizes and CRC-32s).
    Reconstruct(ReconstructArguments),
}

#[derive(Debug, Args)]
pub(crate) struct OrganizeArguments {
    #[command(flatten)]
    pub(crate) input: InputArguments,
    /// The output directory (absent or empty).
    #[arg(long, short, value_name = "DIR")]
    pub(crate) output: PathBuf,
    /// A group NAME:EXPR (repeat; first match wins; lines matching none go to _rest).
    #[arg(long = "group", value_name = "NAME:EXPR")]
    pub(crate) groups: Vec<String>,
    /// Do not index the output.
    #[arg(long)]
    pub(crate) no_index: bool,
}

#[derive(Debug, Args)]
pub(crate) struct ReconstructArguments {
    /// The organized directory.
    #[arg(value_name = "DIR")]
    pub(crate) organized: PathBuf,
    /// Where to write the original files.
    #[arg(long, short, value_name = "DIR")]
    pub(crate) output: PathBuf,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(crate) enum ExportFormat {
    /// Apache Parquet (columns name, cat, pid, tid, ts, dur, ph, type, host, file, args).
    Parquet,
    /// Chrome's trace-event JSON for Perfetto and `chrome://tracing`.
    ChromeJson,
}

#[derive(Debug, Args)]
pub(crate) struct ExportArguments {
    #[command(flatten)]
    pub(crate) input: InputArguments,
    /// Output format.
    #[arg(long, value_enum)]
    pub(crate) format: ExportFormat,
    /// Only events matching this expression (the language of `ioscout view`).
    #[arg(long = "where", short = 'w', value_name = "EXPR")]
    pub(crate) filter: Option<String>,
    /// The file to write.
    #[arg(long, short, value_name = "FILE")]
    pub(crate) output: PathBuf,
    /// Ignore any index and scan everything.
    #[arg(long)]
    pub(crate) no_index: bool,
}

#[derive(Debug, Args)]
pub(crate) struct ReportArguments {
    #[command(flatten)]
    pub(crate) input: InputArguments,
    /// Layer preset: auto, posix, dlio, dlio-prev, generic.
    #[arg(long, value_name = "PRESET", value_enum, default_value_t = PresetName::Auto)]
    pub(crate) preset: PresetName,
    /// The HTML file to write.
    #[arg(long, short, value_name = "FILE", default_value = "report.html")]
    pub(crate) output: PathBuf,
    /// Of a Darshan log: the records of this one file only (its path as the log names it).
    #[arg(long, value_name = "PATH")]
    pub(crate) file: Option<String>,
}

#[derive(Debug, Args)]
pub(crate) struct TuneArguments {
    /// The tuning spec.
    #[arg(value_name = "SPEC")]
    pub(crate) spec: PathBuf,
    /// Search strategy: ofat, grid, random, tpe.
    #[arg(long, default_value = "ofat")]
    pub(crate) strategy: String,
    /// Evaluations the search may spend, the baseline included (default: the strategy's own end).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub(crate) budget: usize,
    /// Seed for random and TPE.
    #[arg(long, default_value_t = 0)]
    pub(crate) seed: u64,
    /// Record every evaluation in this knowledge base (default: kb.jsonl in the spec's runs
    /// directory).
    #[arg(long, value_name = "FILE")]
    pub(crate) kb: Option<PathBuf>,
    /// Do not record evaluations in a knowledge base.
    #[arg(long, conflicts_with = "kb")]
    pub(crate) no_kb: bool,
    /// Tune at full size (skip subset selection).
    #[arg(long)]
    pub(crate) no_subset: bool,
    /// Skip the full-size validation of the best configuration.
    #[arg(long)]
    pub(crate) no_validate: bool,
    /// Print the report as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct OptimizeArguments {
    /// The spec, with an [optimize] section.
    #[arg(value_name = "SPEC")]
    pub(crate) spec: PathBuf,
    /// Pairs of runs per variant, overriding the spec's (at least 5).
    #[arg(long, value_name = "N")]
    pub(crate) pairs: Option<u32>,
    /// Record every measurement in this knowledge base (default: kb.jsonl in the work directory).
    #[arg(long, value_name = "FILE")]
    pub(crate) kb: Option<PathBuf>,
    /// Do not record measurements in a knowledge base.
    #[arg(long, conflicts_with = "kb")]
    pub(crate) no_kb: bool,
    /// File system, overriding detection: lustre, gpfs, beegfs, nfs, vast, daos, xfs, ext4,
    /// tmpfs, other.
    #[arg(long, value_name = "TYPE")]
    pub(crate) fs_type: Option<String>,
    /// DFTracer's preload library (the shared object its Python package installs): trace the baseline
    /// once here, at the timed scale, instead of using the spec's `traces`; the report then
    /// says what tracing added to the baseline.
    #[arg(long, value_name = "FILE")]
    pub(crate) preload: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct McpArguments {
    /// A directory the tools may read and write under (repeat for several).
    #[arg(long = "root", value_name = "DIR", required = true)]
    pub(crate) roots: Vec<PathBuf>,
    /// Serve streamable HTTP at `http://ADDRESS/mcp` instead of stdio (e.g. 127.0.0.1:5000).
    #[arg(long, value_name = "ADDRESS")]
    pub(crate) http: Option<std::net::SocketAddr>,
    /// The knowledge base (default `<first root>/_memory/optimization_kb.jsonl`).
    #[arg(long, value_name = "FILE")]
    pub(crate) kb: Option<PathBuf>,
    /// Largest result in bytes of JSON before the longest lists are shortened.
    #[arg(long, value_name = "BYTES", default_value_t = 1 << 20)]
    pub(crate) max_result_bytes: usize,
    /// Longest a tool call may run, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 300)]
    pub(crate) time_limit: u64,
}

/// Options shared by every command that reads traces.
#[derive(Debug, Args)]
pub(crate) struct InputArguments {
    /// Trace files, directories or glob patterns.
    #[arg(required = true, value_name = "PATH")]
    pub(crate) paths: Vec<PathBuf>,
    /// Treat any bad input (invalid line, truncated gzip, unreadable file) as an error (exit 2).
    #[arg(long)]
    pub(crate) strict: bool,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub(crate) threads: usize,
    /// Problems reported in full per file (all are counted).
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub(crate) max_problems: usize,
    /// Do not print warnings about bad input to stderr (they stay counted in the output).
    #[arg(long, short)]
    pub(crate) quiet: bool,
}

#[derive(Debug, Args)]
pub(crate) struct CountArguments {
    #[command(flatten)]
    pub(crate) input: InputArguments,
    /// Print JSON.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct InfoArguments {
    #[command(flatten)]
    pub(crate) input: InputArguments,
    /// Print JSON.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct IndexArguments {
    #[command(flatten)]
    pub(crate) input: InputArguments,
    /// Put indexes here instead of <dir>/.ioscout/ (one file per trace directory).
    #[arg(long, value_name = "DIR")]
    pub(crate) index_dir: Option<PathBuf>,
    /// Re-read every file, even unchanged ones (also replaces an index of a newer format).
    #[arg(long)]
    pub(crate) force: bool,
    /// Compressed bytes per chunk, the unit a query reads or skips: smaller chunks prune finer
    /// and make a larger index. Single-member gzip files get a checkpoint about this often.
    #[arg(long, value_name = "KIB", default_value_t = 1024, value_parser = clap::value_parser!(u64).range(1..=1_048_576))]
    pub(crate) chunk_kib: u64,
    /// Print JSON.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct QueryArguments {
    #[command(flatten)]
    pub(crate) input: InputArguments,
    /// Filter expression (the language of `ioscout view`).
    #[arg(long = "where", short = 'w', value_name = "EXPR")]
    pub(crate) filter: Option<String>,
    /// Stop after N matching events.
    #[arg(long, short = 'n', value_name = "N")]
    pub(crate) limit: Option<u64>,
    /// Only these columns, in this order (id, pid, tid, ts, dur, name, cat, ph, type, host,
    /// file, args, args.<key>), comma-separated.
    #[arg(long, value_name = "COLUMNS")]
    pub(crate) select: Option<String>,
    /// Output format (default: jsonl for events, an aligned table for --group-by).
    #[arg(long, value_enum)]
    pub(crate) format: Option<ViewFormat>,
    /// Ignore any index and scan everything.
    #[arg(long)]
    pub(crate) no_index: bool,
    /// Aggregate instead of listing events: group by these keys (name, cat, pid, tid, ph, host,
    /// file, args.<key>), comma-separated.
    #[arg(long, value_name = "KEYS")]
    pub(crate) group_by: Option<String>,
    /// Reducers for --group-by: count, sum:F, mean:F, min:F, max:F, pNN:F with F = dur or size
    /// (default count). Percentiles are exact (linear interpolation, as numpy and pandas) for a
    /// group of at most 100000 values; past that they come from a log histogram with at most 1 %
    /// relative error, clamped to the group's min and max (a note says which groups); p0 = min
    /// and p100 = max always.
    #[arg(long, value_name = "REDUCERS", default_value = "count")]
    pub(crate) agg: String,
    /// Where indexes were put by `ioscout index --index-dir`.
    #[arg(long, value_name = "DIR")]
    pub(crate) index_dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct AnalyzeArguments {
    #[command(flatten)]
    pub(crate) input: InputArguments,
    /// Layer preset: auto, posix, dlio, dlio-prev, generic.
    #[arg(long, value_name = "PRESET", value_enum, default_value_t = PresetName::Auto)]
    pub(crate) preset: PresetName,
    /// Views, comma-separated (the first one's summary is printed).
    #[arg(long, value_name = "VIEWS", default_value = "time_range")]
    pub(crate) view: String,
    /// Width of time bins, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 1.0)]
    pub(crate) time_granularity: f64,
    /// How compute/I-O overlap is measured (default exact; binned under --compat dfanalyzer).
    #[arg(long, value_enum)]
    pub(crate) overlap: Option<OverlapMode>,
    /// Reproduce a peer's choices where users compare numbers (see COMPATIBILITY.md).
    #[arg(long, value_enum)]
    pub(crate) compat: Option<Compatibility>,
    /// Print DFAnalyzer's JSON schema (with ioscout's additions in keys of their own).
    #[arg(long)]
    pub(crate) json: bool,
    /// Write one detail table per view (key, layer, derived metric, every metric) here.
    #[arg(long, value_name = "DIR")]
    pub(crate) out: Option<PathBuf>,
    /// Format of the detail tables.
    #[arg(long, value_enum, default_value_t = DetailFormat::Csv)]
    pub(crate) out_format: DetailFormat,
    /// Follow a trace still being written: analyse what is there, then again whenever a file
    /// grows (one line on stderr says what changed), until nothing has changed for --settle
    /// seconds and no gzip member is unfinished; then print the result as without --follow. An
    /// index made by `ioscout index` is kept current: a grown file's new bytes are added to it.
    #[arg(long)]
    pub(crate) follow: bool,
    /// With --follow: seconds between looks at the files.
    #[arg(long, value_name = "SECONDS", default_value_t = 2.0, requires = "follow")]
    pub(crate) interval: f64,
    /// With --follow: seconds without a change after which the trace counts as finished.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0, requires = "follow")]
    pub(crate) settle: f64,
}

#[derive(Debug, Args)]
pub(crate) struct DiagnoseArguments {
    #[command(flatten)]
    pub(crate) input: InputArguments,
    /// Layer preset: auto, posix, dlio, dlio-prev, generic.
    #[arg(long, value_name = "PRESET", value_enum, default_value_t = PresetName::Auto)]
    pub(crate) preset: PresetName,
    /// Only these rule families, comma-separated (wisio, dfanalyzer, drishti, iosage, pipeline).
    #[arg(long, value_name = "FAMILIES", value_enum, value_delimiter = ',', ignore_case = true)]
    pub(crate) rules: Option<Vec<Family>>,
    /// Hide findings below this severity (default: low; none with `--rules drishti` on Darshan
    /// logs, so that Drishti's OK codes show).
    #[arg(long, value_name = "LABEL", value_enum, ignore_case = true)]
    pub(crate) min_severity: Option<Severity>,
    /// Drishti thresholds for Darshan logs, in Drishti's `--config` JSON
    /// (`{"small": {"requests": 0.1, "requests_absolute": 1000}}`).
    #[arg(long, value_name = "FILE")]
    pub(crate) drishti_config: Option<PathBuf>,
    /// Exit with 1 when a finding at or above this severity exists.
    #[arg(long, value_name = "LABEL", value_enum, ignore_case = true)]
    pub(crate) fail_on: Option<Severity>,
    /// Read bandwidth one process can get from the file system, bytes per second (rules that
    /// need it stay silent without it).
    #[arg(long, value_name = "BPS")]
    pub(crate) bandwidth_ceiling: Option<f64>,
    /// Time bins per window for prevalence and persistence (default: the job in ten windows).
    #[arg(long, value_name = "BINS")]
    pub(crate) window_bins: Option<u64>,
    /// Which decides the patterns of a run.
    #[arg(long, value_enum, default_value_t = Detector::Both)]
    pub(crate) detector: Detector,
    /// A detector model file (from `crates/ioscout-detect/train/train.py`; default: the model that
    /// ships with ioscout).
    #[arg(long, value_name = "FILE")]
    pub(crate) model: Option<PathBuf>,
    /// Show the rule findings the learned detector does not confirm one by one (by default they
    /// are folded into one line; the JSON always has them).
    #[arg(long)]
    pub(crate) all: bool,
    /// Print DFDiagnoser's fact envelope (JSON).
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Subcommand)]
pub(crate) enum DetectCommand {
    /// The detector's feature vector of each run: a Darshan log, or a trace (a file or a
    /// directory); with --list, the features and how each is computed.
    #[command(
        after_help = "Examples:\n  ioscout detect features --list\n  ioscout detect features --json logs/*.darshan > features.json\n  ioscout detect features runs/r1/ runs/r2/   # one run per directory"
    )]
    Features(DetectFeaturesArguments),
}

#[derive(Debug, Args)]
pub(crate) struct DetectFeaturesArguments {
    /// Runs: Darshan logs, or trace files or directories (each path one run).
    #[arg(value_name = "RUN", required_unless_present = "list")]
    pub(crate) paths: Vec<PathBuf>,
    /// List the features and their definitions instead.
    #[arg(long)]
    pub(crate) list: bool,
    /// Print JSON (`features`: the names; `runs`: per run its input, source and values).
    #[arg(long)]
    pub(crate) json: bool,
    /// Treat bad input as an error instead of reading what can be read.
    #[arg(long)]
    pub(crate) strict: bool,
}

#[derive(Debug, Args)]
pub(crate) struct RulesArguments {
    /// Print JSON (every field of every rule's documentation).
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct ExplainArguments {
    /// Rule code (`ioscout rules` lists them), or an IOSage pattern: `access_granularity`,
    /// `metadata_intensity`, `parallelism_efficiency`, `access_pattern`, `interface_choice`,
    /// `file_strategy`, `throughput_utilization` or `healthy`.
    #[arg(value_name = "CODE")]
    pub(crate) code: String,
    /// The model file whose training runs give a card's typical values (default: the built-in).
    #[arg(long, value_name = "FILE")]
    pub(crate) model: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(crate) enum Compatibility {
    /// DFAnalyzer 0.0.9 as it runs on DFTracer 2.x traces: its time binning, binned overlap,
    /// average transfer size over all operations.
    Dfanalyzer,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(crate) enum DetailFormat {
    /// Comma-separated values with a header.
    Csv,
    /// Apache Parquet.
    Parquet,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(crate) enum ViewFormat {
    /// One JSON object per line.
    Jsonl,
    /// Comma-separated values with a header.
    Csv,
    /// Apache Parquet (binary, to stdout: redirect it to a file), for pandas, polars and `DuckDB`.
    Parquet,
}

#[derive(Debug, Args)]
pub(crate) struct ViewArguments {
    #[command(flatten)]
    pub(crate) input: InputArguments,
    /// Filter expression (see below).
    #[arg(long = "where", short = 'w', value_name = "EXPR")]
    pub(crate) filter: Option<String>,
    /// Stop after N matching events.
    #[arg(long, short = 'n', value_name = "N")]
    pub(crate) limit: Option<u64>,
    /// Only these columns, in this order (id, pid, tid, ts, dur, name, cat, ph, type, host,
    /// file, args, args.<key>), comma-separated.
    #[arg(long, value_name = "COLUMNS")]
    pub(crate) select: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ViewFormat::Jsonl)]
    pub(crate) format: ViewFormat,
}

#[derive(Debug, Subcommand)]
pub(crate) enum DarshanCommand {
    /// Version, processes, run time, modules, and per module its record count and counter totals
    /// (named by Darshan's counters); of a Darshan log, or of the Darshan records derived from a
    /// DFTracer trace (a file or a directory of them).
    #[command(
        after_help = "Over many logs (--group-by, --top or --by), each log is reduced to its totals as it is read, in\nparallel: per group the logs, processes, run time, bytes, I/O and metadata time (POSIX and\nSTDIO records; times summed over processes) and the I/O share of the process-seconds, then the\ntop jobs and files. A log that cannot be read is counted, named and left out.\n\nExamples:\n  ioscout darshan summary job.darshan\n  ioscout darshan summary --json logs/*.darshan\n  ioscout darshan summary traces/   # records derived from the trace\n  ioscout darshan summary --group-by exe --top 20 /archive/2026/11/\n  ioscout darshan summary --group-by user --by meta-time --json logs/"
    )]
    Summary(DarshanSummaryArguments),
    /// Print a log in darshan-parser's text format (--total adds the total_<COUNTER> lines;
    /// --dxt prints darshan-dxt-parser's format instead). Given a DFTracer trace, prints the
    /// Darshan records derived from it, after header lines saying so.
    #[command(
        after_help = "Examples:\n  ioscout darshan dump job.darshan > job.txt\n  ioscout darshan dump --total job.darshan | grep ^total_\n  ioscout darshan dump --all traces/   # records derived from the trace"
    )]
    Dump(DarshanDumpArguments),
    /// Per-file statistics over many logs (as PyDarshan's file-stats): per file, summed over the
    /// logs that accessed it, bytes read and written, reads, writes, the logs (jobs), the
    /// slowest rank's I/O time and the bandwidth over it.
    #[command(
        after_help = "A file is the same file in every log that names it by the same path. Its time is Darshan's\nestimate for the job (the slowest rank's I/O time on it, or the shared record's slowest rank),\nsummed over the logs; its bandwidth the bytes over that time. MPI-IO reads and writes include\nthe independent, collective, split and non-blocking ones. Logs are read in parallel, each\nreduced to its files as it is read; a log that cannot be read is named and left out.\n\nExamples:\n  ioscout darshan files /archive/2026/11/ --limit 20\n  ioscout darshan files --module mpi-io --order-by time-by-slowest logs/*.darshan\n  ioscout darshan files --exclude '^/(proc|sys|dev)/' --csv logs/ > files.csv"
    )]
    Files(DarshanStatsArguments),
    /// Per-job statistics of many logs (as PyDarshan's job-stats): per log its job id, user,
    /// processes, run time, files, bytes, the slowest rank's I/O time and the bandwidth over it.
    #[command(
        after_help = "Examples:\n  ioscout darshan jobs /archive/2026/11/ --order-by time-by-slowest --limit 10\n  ioscout darshan jobs --module stdio --csv logs/ > jobs.csv"
    )]
    Jobs(DarshanStatsArguments),
}

#[derive(Debug, Args)]
pub(crate) struct DarshanStatsArguments {
    /// Darshan logs, or directories searched (recursively) for *.darshan files.
    #[arg(value_name = "LOG", required = true)]
    pub(crate) logs: Vec<PathBuf>,
    /// The module.
    #[arg(long, short = 'm', value_enum, default_value = "posix")]
    pub(crate) module: StatsModule,
    /// What the rows are ordered by, most first (for jobs, reads, writes and jobs order by files).
    #[arg(long, value_enum, default_value = "total-bytes")]
    pub(crate) order_by: StatsOrder,
    /// At most N rows.
    #[arg(long, short = 'l', value_name = "N")]
    pub(crate) limit: Option<usize>,
    /// Only files whose name matches this regular expression (repeatable: any of them).
    #[arg(long, value_name = "REGEX")]
    pub(crate) include: Vec<String>,
    /// No file whose name matches this regular expression (repeatable).
    #[arg(long, value_name = "REGEX")]
    pub(crate) exclude: Vec<String>,
    /// Print CSV (PyDarshan's columns).
    #[arg(long, conflicts_with = "json")]
    pub(crate) csv: bool,
    /// Print JSON.
    #[arg(long)]
    pub(crate) json: bool,
    /// Read what can be read of a damaged log instead of leaving it out.
    #[arg(long)]
    pub(crate) partial: bool,
}

/// The module of `darshan files|jobs`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum StatsModule {
    /// POSIX.
    Posix,
    /// MPI-IO.
    MpiIo,
    /// STDIO.
    Stdio,
}

/// The order of `darshan files|jobs`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum StatsOrder {
    /// Bytes read and written.
    TotalBytes,
    /// Bytes read.
    BytesRead,
    /// Bytes written.
    BytesWritten,
    /// Reads.
    Reads,
    /// Writes.
    Writes,
    /// Logs (jobs) that accessed the file.
    Jobs,
    /// The slowest rank's I/O time.
    TimeBySlowest,
    /// Bytes over that time.
    Bandwidth,
}

#[derive(Debug, Args)]
pub(crate) struct DarshanSummaryArguments {
    /// Darshan logs, or DFTracer traces (files or directories); with --group-by, --top or --by,
    /// Darshan logs and directories searched for *.darshan files.
    #[arg(value_name = "LOG", required = true)]
    pub(crate) logs: Vec<PathBuf>,
    /// Summarise the logs together, grouped by program, user id, processes or job id.
    #[arg(long, value_name = "KEY", value_enum)]
    pub(crate) group_by: Option<GroupBy>,
    /// Summarise the logs together and list the N jobs and files with the most I/O time (or --by).
    #[arg(long, value_name = "N")]
    pub(crate) top: Option<usize>,
    /// What groups, jobs and files are ranked by (with --group-by or --top).
    #[arg(long, value_name = "METRIC", value_enum)]
    pub(crate) by: Option<RankBy>,
    /// Print JSON (one object per log; an array when there are several).
    #[arg(long)]
    pub(crate) json: bool,
    /// Report whatever could be read from a damaged log instead of failing.
    #[arg(long)]
    pub(crate) partial: bool,
}

#[derive(Debug, Args)]
pub(crate) struct DarshanDumpArguments {
    /// A Darshan log, or a DFTracer trace (a file or a directory).
    #[arg(value_name = "LOG")]
    pub(crate) log: PathBuf,
    /// Add the aggregated total_<COUNTER> lines (darshan-parser --total).
    #[arg(long)]
    pub(crate) total: bool,
    /// Add the file counts by access type (darshan-parser --file).
    #[arg(long)]
    pub(crate) file: bool,
    /// Add the derived performance figures (darshan-parser --perf).
    #[arg(long)]
    pub(crate) perf: bool,
    /// Everything: --total --file --perf (darshan-parser --all).
    #[arg(long)]
    pub(crate) all: bool,
    /// Print the DXT traces in darshan-dxt-parser's format.
    #[arg(long)]
    pub(crate) dxt: bool,
    /// Report whatever could be read from a damaged log instead of failing.
    #[arg(long)]
    pub(crate) partial: bool,
}

#[derive(Debug, Args)]
pub(crate) struct AdviseArguments {
    #[command(flatten)]
    pub(crate) input: InputArguments,
    /// File-system type of the data (lustre, gpfs, beegfs, nfs, vast, daos, xfs, ext4, tmpfs),
    /// instead of detecting it.
    #[arg(long, value_name = "TYPE")]
    pub(crate) fs_type: Option<String>,
    /// Write the pipeline's artifacts into a new opt<n>/ of this run directory.
    #[arg(long, value_name = "DIR")]
    pub(crate) run_dir: Option<PathBuf>,
    /// Knowledge base whose measured results mark checklist dimensions as applied.
    #[arg(long, value_name = "FILE")]
    pub(crate) kb: Option<PathBuf>,
    /// System name (for the knowledge-base lookup).
    #[arg(long, value_name = "NAME")]
    pub(crate) system: Option<String>,
    /// Workload name (for the knowledge-base lookup).
    #[arg(long, value_name = "NAME")]
    pub(crate) workload: Option<String>,
    /// Which decides the run's patterns (both: proposals answer what the learned detector
    /// confirms or finds, not rule findings it rejects).
    #[arg(long, value_enum, default_value_t = Detector::Both)]
    pub(crate) detector: Detector,
    /// A detector model file (default: the built-in).
    #[arg(long, value_name = "FILE")]
    pub(crate) model: Option<PathBuf>,
    /// Layer preset for traces (as in analyze).
    #[arg(long, value_name = "PRESET", value_enum, default_value_t = PresetName::Auto)]
    pub(crate) preset: PresetName,
    /// Print JSON.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct CompareArguments {
    /// The runs: trace directories or files, Darshan logs, or globs of them.
    #[arg(value_name = "RUN")]
    pub(crate) runs: Vec<String>,
    /// A manifest of labelled runs (TOML), before the runs named on the command line.
    #[arg(long, value_name = "FILE")]
    pub(crate) manifest: Option<PathBuf>,
    /// Labels of the runs named on the command line (after globs are expanded), in order.
    #[arg(long, value_name = "LABEL,...", value_delimiter = ',')]
    pub(crate) labels: Vec<String>,
    /// The run the others are compared with, by label (default: the first run).
    #[arg(long, value_name = "LABEL")]
    pub(crate) baseline: Option<String>,
    /// What the runs are sorted by (best first).
    #[arg(long, value_name = "METRIC", value_enum, default_value_t = SortMetric::Input)]
    pub(crate) sort: SortMetric,
    /// The layer --sort time|operations|bytes|bandwidth is taken from.
    #[arg(long, value_name = "LAYER")]
    pub(crate) sort_layer: Option<String>,
    /// Reverse the order (worst first).
    #[arg(long)]
    pub(crate) reverse: bool,
    /// Layer preset for traces.
    #[arg(long, value_name = "PRESET", value_enum, default_value_t = PresetName::Auto)]
    pub(crate) preset: PresetName,
    /// Print JSON.
    #[arg(long, conflicts_with = "csv")]
    pub(crate) json: bool,
    /// Print CSV: one row per run and layer.
    #[arg(long)]
    pub(crate) csv: bool,
    /// Also write the comparison as an HTML page of small multiples to FILE.
    #[arg(long, value_name = "FILE")]
    pub(crate) html: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum KbCommand {
    /// Record one measured change (JSON from a file or - for stdin); prints its verdict.
    #[command(after_long_help = ioscout_service::advise::kb_entry_help())]
    Record(KbRecordArguments),
    /// The JSON Schema of an entry (what `record` reads and the MCP tool `opt_kb_record` takes).
    Schema,
    /// The entries that apply to a system, workload and software, most relevant first.
    Lookup(KbLookupArguments),
    /// The knowledge base as a Markdown table.
    Render(KbRenderArguments),
}

#[derive(Debug, Args)]
pub(crate) struct KbRecordArguments {
    /// The knowledge base.
    #[arg(long, value_name = "FILE")]
    pub(crate) kb: PathBuf,
    /// The entry (JSON), or - for standard input.
    #[arg(value_name = "ENTRY")]
    pub(crate) entry: String,
    /// Print the stored entry as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct KbLookupArguments {
    /// The knowledge base.
    #[arg(long, value_name = "FILE")]
    pub(crate) kb: PathBuf,
    /// System.
    #[arg(long)]
    pub(crate) system: Option<String>,
    /// Workload.
    #[arg(long)]
    pub(crate) workload: Option<String>,
    /// Software, comma-separated.
    #[arg(long)]
    pub(crate) software: Option<String>,
    /// Print JSON.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct KbRenderArguments {
    /// The knowledge base.
    #[arg(long, value_name = "FILE")]
    pub(crate) kb: PathBuf,
}

#[derive(Debug, Subcommand)]
pub(crate) enum RunsCommand {
    /// Report layout problems (exit 1 when there are any).
    Validate(RunsArguments),
    /// Move artifacts found outside opt<n>/ into the newest opt<n>/.
    Reorganize(RunsArguments),
}

#[derive(Debug, Args)]
pub(crate) struct RunsArguments {
    /// The run directory.
    #[arg(value_name = "DIR")]
    pub(crate) directory: PathBuf,
    /// Say what would move without moving it.
    #[arg(long)]
    pub(crate) dry_run: bool,
}
