//! `IOS-PARALLELISM` on Darshan counters: the ranks do unequal I/O and the job waits for the
//! slowest.

use std::collections::BTreeMap;

use crate::darshan::{DarshanContext, DarshanRule, Module};
use crate::{Finding, RuleDoc, clip01, rule};
use ioscout_darshan::counters::{
    POSIX_F_FASTEST_RANK_TIME, POSIX_F_META_TIME, POSIX_F_READ_TIME, POSIX_F_SLOWEST_RANK_TIME,
    POSIX_F_WRITE_TIME,
};

rule! {
    pub struct Parallelism {
        code: "IOS-PARALLELISM",
        family: Iosage,
        title: "Parallelism efficiency: the slowest rank's I/O is far above the others'",
        detects: "Over all the job's ranks (ranks without a record count as idle), per-rank I/O time in unique files whose mean is under half the maximum; or a shared file whose slowest rank takes twice the fastest's time; in both cases when the slowest rank's I/O is 5 % of the run or more (IOSage's parallelism_efficiency; unlike Drishti's P21/P22 it sees ranks that did no I/O).",
        why: "Collective phases end when the slowest rank ends; imbalanced I/O (rank 0 writing for everyone, a hot OST, uneven decomposition) idles every other rank.",
        evidence: "slowest and mean rank time, idle ranks, the worst shared file.",
        thresholds: "fires when (1 - mean / max) >= 0.5 over ranks, or (slowest - fastest) / slowest >= 0.5 on a shared file, with the slowest >= 5 % of the run; score = imbalance x clip01(I/O share / 0.2).",
        references: "IOSage (rank_bytes_cv, byte_imbalance; DIOBench custom_imbalance runs); Drishti P18/P19/P21/P22 (COMPATIBILITY.md D18); darshan-logs imbalanced_io.",
        change: "Spread the I/O over the ranks: collective I/O with one aggregator per node instead of rank 0 doing it, an even domain decomposition of the data, and on Lustre a stripe count that spreads a shared file over many OSTs.",
        not_when: "Only one rank is meant to do I/O and its I/O is small against the run, or the imbalance is in a phase that overlaps computation.",
    }
}

impl DarshanRule for Parallelism {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        let processes = context.facts.nprocs;
        let run_time = context.facts.run_time;
        if processes <= 1 || run_time <= 0.0 {
            return Vec::new();
        }
        let time = |record| {
            [POSIX_F_READ_TIME, POSIX_F_WRITE_TIME, POSIX_F_META_TIME]
                .iter()
                .map(|counter| context.fvalue(record, *counter).max(0.0))
                .sum::<f64>()
        };
        let mut ranks: BTreeMap<i64, f64> = BTreeMap::new();
        for record in context.records(Module::Posix).iter().filter(|record| record.rank >= 0) {
            *ranks.entry(record.rank).or_default() += time(record);
        }
        let slowest = ranks.values().copied().fold(0.0, f64::max);
        let mean = ranks.values().sum::<f64>() / processes as f64;
        let idle = processes - ranks.len() as i64;
        let rank_imbalance = if slowest >= 0.05 * run_time { 1.0 - mean / slowest } else { 0.0 };
        let mut shared_worst: Option<(u64, f64, f64)> = None;
        for record in context.records(Module::Posix).iter().filter(|record| record.rank == -1) {
            let slow = context.fvalue(record, POSIX_F_SLOWEST_RANK_TIME);
            let fast = context.fvalue(record, POSIX_F_FASTEST_RANK_TIME).max(0.0);
            if slow >= 0.05 * run_time {
                let imbalance = (slow - fast) / slow;
                if shared_worst.is_none_or(|(_, worst, _)| imbalance > worst) {
                    shared_worst = Some((record.id, imbalance, slow));
                }
            }
        }
        let shared_imbalance = shared_worst.map_or(0.0, |(_, imbalance, _)| imbalance);
        let imbalance = rank_imbalance.max(shared_imbalance);
        if imbalance < 0.5 {
            return Vec::new();
        }
        let why = if rank_imbalance >= shared_imbalance {
            format!(
                "the slowest rank spends {slowest:.2} s in I/O against a mean of {mean:.2} s over {processes} ranks ({idle} without I/O in unique files)"
            )
        } else {
            let (id, _, slow) = shared_worst.unwrap_or_default();
            let fast = slow * (1.0 - shared_imbalance);
            format!(
                "on shared file {} the slowest rank takes {slow:.2} s and the fastest {fast:.2} s",
                context.name(id)
            )
        };
        vec![
            Finding::new(
                &Self::DOC,
                clip01(imbalance) * clip01(context.io_share() / 0.2),
                "POSIX ranks",
                why,
            )
            .with("imbalance", imbalance, "fraction")
            .with("slowest_rank_io_time", slowest, "s")
            .with("idle_ranks", idle as f64, "count"),
        ]
    }
}
