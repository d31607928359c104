//! `IOS-THROUGHPUT` on Darshan counters: synchronisation after most writes.

use crate::darshan::{DarshanContext, DarshanRule};
use crate::{Finding, RuleDoc, clip01, rule};
use ioscout_darshan::counters::{POSIX_FDSYNCS, POSIX_FSYNCS, POSIX_WRITES};

rule! {
    pub struct Throughput {
        code: "IOS-THROUGHPUT",
        family: Iosage,
        title: "Throughput utilisation: fsync or fdatasync after a tenth of the writes or more",
        detects: "POSIX_FSYNCS + POSIX_FDSYNCS against POSIX_WRITES: 100 or more synchronisations, one per ten writes or more (IOSage's throughput_utilization, fsync_ratio).",
        why: "Each sync waits for the data to reach stable storage, draining the write-behind pipeline; per-write syncs turn streaming writes into round trips.",
        evidence: "syncs, writes, syncs per write.",
        thresholds: "fires when syncs >= 100 and syncs / writes >= 0.1; score = clip01(ratio / 0.5) x clip01(I/O share / 0.2).",
        references: "IOSage (fsync_ratio; DIOBench ior_fsync_per_write, dlio_ckpt runs).",
        change: "Flush once per file or per checkpoint instead of per write; let write-behind work (no O_SYNC); write checkpoints asynchronously or to node-local storage first.",
        not_when: "The application must make each record durable before going on (a database log, a transaction journal).",
    }
}

impl DarshanRule for Throughput {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        let syncs = context.total(POSIX_FSYNCS).max(0) + context.total(POSIX_FDSYNCS).max(0);
        let writes = context.total(POSIX_WRITES).max(1);
        let ratio = syncs as f64 / writes as f64;
        if syncs < 100 || ratio < 0.1 {
            return Vec::new();
        }
        let why = format!("{syncs} syncs for {writes} writes ({ratio:.2} per write)");
        vec![
            Finding::new(&Self::DOC, clip01(ratio / 0.5) * clip01(context.io_share() / 0.2), "POSIX", why)
                .with("syncs", syncs as f64, "count")
                .with("syncs_per_write", ratio, "ratio"),
        ]
    }
}
