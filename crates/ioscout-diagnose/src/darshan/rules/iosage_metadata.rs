//! `IOS-METADATA` on Darshan counters: metadata operations take a large part of the I/O time.

use crate::darshan::{DarshanContext, DarshanRule};
use crate::{Finding, RuleDoc, clip01, rule};
use ioscout_darshan::counters::{
    POSIX_BYTES_READ, POSIX_BYTES_WRITTEN, POSIX_F_META_TIME, POSIX_F_READ_TIME, POSIX_F_WRITE_TIME,
    POSIX_OPENS,
};

rule! {
    pub struct Metadata {
        code: "IOS-METADATA",
        family: Iosage,
        title: "Metadata intensity: opens, stats and closes take 30 % or more of the I/O time",
        detects: "POSIX_F_META_TIME against read + write + metadata time over all records, when the job's I/O takes 5 % of the run or more (IOSage's metadata_intensity; Drishti's absolute 30 s per rank never fires on short jobs).",
        why: "Metadata operations serialise on the metadata servers and do not move data; thousands of opens or stats per second saturate them long before the data servers.",
        evidence: "metadata share of I/O time, opens, opens per MiB moved.",
        thresholds: "fires when metadata / I/O time >= 0.3 and I/O share >= 0.05; score = clip01(metadata share) x clip01(I/O share / 0.2).",
        references: "IOSage (metadata_time_ratio, opens_per_mb; DIOBench mdtest runs); COMPATIBILITY.md D11.",
        change: "Open each file once and reuse the handle; cache stat results; pack many small files into fewer large ones; stage the dataset to node-local storage; on Lustre, put small files on the MDT (Data-on-MDT).",
        not_when: "The metadata time comes from a one-off setup phase (creating the output directory tree) outside the loop that matters.",
    }
}

impl DarshanRule for Metadata {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        let meta = context.ftotal(POSIX_F_META_TIME).max(0.0);
        let data = context.ftotal(POSIX_F_READ_TIME).max(0.0) + context.ftotal(POSIX_F_WRITE_TIME).max(0.0);
        let share = context.io_share();
        if meta + data <= 0.0 || share < 0.05 {
            return Vec::new();
        }
        let fraction = meta / (meta + data);
        if fraction < 0.3 {
            return Vec::new();
        }
        let opens = context.total(POSIX_OPENS).max(0);
        let mebibytes = (context.total(POSIX_BYTES_READ) + context.total(POSIX_BYTES_WRITTEN)).max(0) as f64
            / 1_048_576.0;
        let why = format!(
            "metadata is {:.1} % of the POSIX time ({opens} opens, {:.2} per MiB moved) while I/O takes {:.1} % of the run",
            fraction * 100.0,
            if mebibytes > 0.0 { opens as f64 / mebibytes } else { opens as f64 },
            share * 100.0
        );
        vec![
            Finding::new(&Self::DOC, clip01(fraction) * clip01(share / 0.2), "POSIX metadata", why)
                .with("metadata_fraction", fraction, "fraction")
                .with("opens", opens as f64, "count")
                .with("io_share", share, "fraction"),
        ]
    }
}
