//! `PIPE-CHECKPOINT`: checkpointing takes a significant share of the job.

use crate::{Context, Finding, Rule, RuleDoc, rule};

rule! {
    pub struct CheckpointShare {
        code: "PIPE-CHECKPOINT",
        family: Pipeline,
        title: "Checkpoint cost: writing checkpoints takes a significant share of the job",
        detects: "A checkpoint layer (DLIO presets: the checkpoint category, or its POSIX calls) whose time is at least 10 % of the job.",
        why: "A synchronous checkpoint stops training while it writes; its cost grows with model size and frequency. Asynchronous checkpointing, writing to node-local storage first, or fewer, larger writes reduce it.",
        evidence: "checkpoint time, its share of the job, checkpoint bytes and bandwidth when known.",
        thresholds: "fires when checkpoint time / job time >= 0.1; score = clip01(share / 0.4).",
        references: "Optimisation pipeline technique catalog (async checkpointing; GLANCED-IO, HPDC 2026); DFDiagnoser motifs checkpoint_tail_risk and checkpoint_fragmentation.",
    }
}

impl Rule for CheckpointShare {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &Context<'_>) -> Vec<Finding> {
        let job = context.job_time_s();
        let line = context.layer("checkpoint").or_else(|| context.layer("checkpoint_posix"));
        let Some(line) = line else { return Vec::new() };
        if job <= 0.0 {
            return Vec::new();
        }
        // Nested checkpoint events are each counted (as DFAnalyzer does): cap the share at 1.
        let share = (line.time_s / job).min(1.0);
        if share < 0.1 {
            return Vec::new();
        }
        let bytes = context.layer("checkpoint_posix").and_then(|posix| posix.size_bytes).unwrap_or(0.0);
        let why = format!(
            "checkpoint events take {:.3} s against a {job:.3} s job ({:.1} MiB written)",
            line.time_s,
            bytes / crate::rules::MIB
        );
        vec![
            Finding::new(&Self::DOC, share / 0.4, line.layer.clone(), why)
                .with("checkpoint_time", line.time_s, "s")
                .with("checkpoint_job_share", share, "fraction")
                .with("checkpoint_bytes", bytes, "bytes")
                .crossing("checkpoint time / job time >= 0.1"),
        ]
    }
}
