//! `PIPE-METADATA-REPEAT`: the same files opened and stat'ed again and again, with what the
//! repeated calls cost (their metadata time and the caller's own time around each call).

use crate::darshan::rules::io_gaps;
use crate::darshan::{DarshanContext, DarshanRule, Module};
use crate::{Finding, RuleDoc, clip01, rule};
use ioscout_darshan::counters::{
    POSIX_F_META_TIME, POSIX_OPENS, POSIX_STATS, STDIO_F_META_TIME, STDIO_OPENS,
};

rule! {
    pub struct RepeatedMetadata {
        code: "PIPE-METADATA-REPEAT",
        family: Pipeline,
        title: "Repeated metadata: the same files opened and stat'ed again and again",
        detects: "Opens and stats (POSIX and STDIO) at least 3 per file opened, over 10 files or more, whose repeats cost at least 5 % of the job: their share of the metadata time, and the caller's own time around each call saved (a repeated open and its close, a stat; from the short gaps between the busiest process's calls, per call), per process.",
        why: "A loop that stats and opens the same files on every pass pays the path lookup, the permission check and (on a parallel file system) a metadata-server round trip each time, and the caller's own cost per call besides; caching the stat results and keeping the handles open removes the repeats without changing the files. Counting calls alone misses it when each call is cheap: the caller's time around the calls is where it goes.",
        evidence: "opens, stats, files opened, the repeated calls, their estimated cost and its share of the job. A DFTracer 2.2 trace does not see glibc's stat (glibc 2.33 and later call the system directly), so a trace's stat count is a lower bound.",
        thresholds: "fires when calls >= 3 x files opened, files >= 10 and the repeats' cost >= 5 % of the job; score = clip01(cost / job / 0.25).",
        references: "Banisharif et al., IOSage: Detecting HPC I/O Bottleneck Patterns to Guide LLM Recommendations, 2026 (the metadata-intensity card: batch metadata operations); the optimisation pipeline's metadata-path dimension (D11); BENCHMARKS.md, Verified advice: caching stat results and handles measured 2.5x on the metadata_storm scenario, and 7.5x where packing the files gave 2.7x on a workload of the same pattern.",
    }
}

impl DarshanRule for RepeatedMetadata {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        let run_time = context.facts.run_time;
        if run_time <= 0.0 {
            return Vec::new();
        }
        let mut opened = std::collections::BTreeSet::new();
        let (mut opens, mut stats) = (0_i64, 0_i64);
        for record in context.records(Module::Posix) {
            let record_opens = context.value(record, POSIX_OPENS).max(0);
            opens = opens.saturating_add(record_opens);
            stats = stats.saturating_add(context.value(record, POSIX_STATS).max(0));
            if record_opens > 0 {
                opened.insert(record.id);
            }
        }
        for record in context.records(Module::Stdio) {
            let record_opens = context.value(record, STDIO_OPENS).max(0);
            opens = opens.saturating_add(record_opens);
            if record_opens > 0 {
                opened.insert(record.id);
            }
        }
        let files = opened.len() as i64;
        let calls = opens.saturating_add(stats);
        if files < 10 || calls < 3 * files {
            return Vec::new();
        }
        let repeated = calls - files;
        let metadata_time =
            context.ftotal(POSIX_F_META_TIME).max(0.0) + context.ftotal(STDIO_F_META_TIME).max(0.0);
        let processes = context.facts.nprocs.max(1) as f64;
        let overhead = io_gaps(context).map_or(0.0, |gaps| gaps.overhead_per_call_s());
        // Each repeated open comes with its close (Darshan counts no closes): both are saved.
        let saved_calls = 2 * (opens - files).max(0) + stats;
        let cost =
            (metadata_time * repeated as f64 / calls as f64 + saved_calls as f64 * overhead) / processes;
        let share = cost / run_time;
        if share < 0.05 {
            return Vec::new();
        }
        let stat_note = if stats == 0 {
            " (0 stats: a DFTracer trace does not see glibc's stat, so there may be more)"
        } else {
            ""
        };
        let why = format!(
            "{opens} opens and {stats} stats{stat_note} on {files} files: {repeated} calls repeat on a file already opened, costing about {cost:.3} s ({:.0} % of the job) with the caller's time around each call ({:.1} us)",
            share * 100.0,
            overhead * 1e6
        );
        vec![
            Finding::new(&Self::DOC, clip01(share / 0.25), "POSIX", why)
                .with("opens", opens as f64, "count")
                .with("stats", stats as f64, "count")
                .with("files_opened", files as f64, "count")
                .with("repeated_calls", repeated as f64, "count")
                .with("repeat_cost", cost, "s")
                .with("repeat_share", share, "fraction")
                .crossing("opens and stats >= 3 per file opened")
                .crossing("repeats cost >= 5% of the job"),
        ]
    }
}
