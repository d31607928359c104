//! `IOS-GRANULARITY` on Darshan counters: requests too small for the I/O time they take.

use crate::darshan::{DarshanContext, DarshanRule};
use crate::{Finding, RuleDoc, clip01, rule};
use ioscout_darshan::counters::{POSIX_BYTES_READ, POSIX_BYTES_WRITTEN, POSIX_READS, POSIX_WRITES};

rule! {
    pub struct Granularity {
        code: "IOS-GRANULARITY",
        family: Iosage,
        title: "Access granularity: POSIX requests average under 1 MiB while I/O weighs on the run",
        detects: "The mean POSIX transfer ((bytes read + written) / (reads + writes)) is under 1 MiB and the job's I/O on its critical path takes 5 % of the run time or more (IOSage's access_granularity, from Darshan counters).",
        why: "Per-request costs (system call, RPC, lock, metadata lookup) dominate small requests; the file system's bandwidth is reached only with large ones.",
        evidence: "mean transfer size, requests, I/O share of the run.",
        thresholds: "fires when mean transfer < 1 MiB and I/O share >= 0.05; score = clip01((1 MiB - mean) / 1 MiB) x clip01(I/O share / 0.2).",
        references: "IOSage (BanisharifM/IOSage, src/data/preprocessing.py small_io_ratio; DIOBench access_granularity); Drishti P05/P06.",
        change: "Make each request move 1 MiB or more: buffer small writes and flush them together, read whole records or chunks, use collective I/O under MPI-IO so aggregators issue large requests.",
        not_when: "The small requests are metadata-sized reads of headers that the application cannot batch, or the I/O is a negligible part of the run.",
    }
}

impl DarshanRule for Granularity {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        let requests = context.total(POSIX_READS) + context.total(POSIX_WRITES);
        let bytes = context.total(POSIX_BYTES_READ) + context.total(POSIX_BYTES_WRITTEN);
        let share = context.io_share();
        if requests <= 0 || bytes <= 0 || share < 0.05 {
            return Vec::new();
        }
        let mean = bytes as f64 / requests as f64;
        let mebibyte = 1_048_576.0;
        if mean >= mebibyte {
            return Vec::new();
        }
        let score = clip01((mebibyte - mean) / mebibyte) * clip01(share / 0.2);
        let why = format!(
            "{requests} POSIX requests average {} while I/O takes {:.1} % of the run",
            crate::human_bytes(mean),
            share * 100.0
        );
        vec![
            Finding::new(&Self::DOC, score, "POSIX", why)
                .with("mean_transfer_bytes", mean, "bytes")
                .with("requests", requests as f64, "count")
                .with("io_share", share, "fraction"),
        ]
    }
}
