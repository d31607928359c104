//! `PIPE-OVERLAP-1`: data loading does not run behind compute.

use crate::{Context, Finding, Rule, RuleDoc, rule};

/// Asynchronous layers checked, outermost first.
const LAYERS: [&str; 3] = ["data_loader", "reader", "reader_posix"];

rule! {
    pub struct LowOverlap {
        code: "PIPE-OVERLAP-1",
        family: Pipeline,
        title: "Low compute/I-O overlap: data loading runs between compute steps instead of behind them",
        detects: "An asynchronous layer of the data pipeline (data loader, reader, reader POSIX calls) whose time is mostly not covered by the compute of its process tree (a rank and the workers it forked), while that layer takes a noticeable share of the job.",
        why: "A pipeline that loads, then computes, then loads again makes the accelerator wait for every batch, even when DataLoader workers and prefetching look correctly configured; the cause is often lower down (small reads, the wrong file system, striping), which is why the check looks at the measured timeline rather than at the knobs.",
        evidence: "the layer's hidden share of time (1 - unoverlapped / time, exact interval unions), its unoverlapped time, its share of the job.",
        thresholds: "fires when overlap < 0.5 and the layer's time is at least 5 % of the job; score = (1 - overlap) x clip01(layer time / job time / 0.25). Needs --overlap exact (the default) to be meaningful: the binned approximation can report overlap where there is none.",
        references: "Optimisation pipeline rule OVERLAP-1 (GLANCED-IO, HPDC 2026); COMPATIBILITY.md difference 7.",
    }
}

impl Rule for LowOverlap {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &Context<'_>) -> Vec<Finding> {
        let job = context.job_time_s();
        if job <= 0.0 {
            return Vec::new();
        }
        for layer in LAYERS {
            let Some(line) = context.layer(layer) else { continue };
            let (Some(overlap), Some(unoverlapped)) = (line.overlap_time(), line.u_time_s) else { continue };
            let share = line.time_s / job;
            if overlap >= 0.5 || share < 0.05 {
                continue;
            }
            let why = format!(
                "only {:.0}% of {} time ({:.3} s, {:.0}% of the job) runs behind compute",
                overlap * 100.0,
                line.label,
                line.time_s,
                share * 100.0
            );
            return vec![
                Finding::new(&Self::DOC, (1.0 - overlap) * crate::clip01(share / 0.25), layer, why)
                    .with("overlap_time", overlap, "fraction")
                    .with("u_time", unoverlapped, "s")
                    .with("layer_job_share", share, "fraction")
                    .crossing("overlap < 0.5")
                    .crossing("layer time >= 5% of the job"),
            ];
        }
        Vec::new()
    }
}
