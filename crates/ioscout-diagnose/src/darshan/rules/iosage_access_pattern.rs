//! `IOS-ACCESS-PATTERN` on Darshan counters: random (non-sequential) requests that cost time.

use crate::darshan::{DarshanContext, DarshanRule, Direction};
use crate::{Finding, RuleDoc, clip01, rule};
use ioscout_darshan::counters::{POSIX_READS, POSIX_WRITES};

rule! {
    pub struct AccessPattern {
        code: "IOS-ACCESS-PATTERN",
        family: Iosage,
        title: "Access pattern: 20 % or more of the POSIX requests are random",
        detects: "POSIX reads and writes that were not sequential (per record, the requests after the first minus POSIX_SEQ_READS/WRITES: a file read or written once is not random), 20 % or more of them and over 1,000, when I/O takes 2 % of the run or more (IOSage's access_pattern).",
        why: "Random requests defeat read-ahead, write-behind and stripe-aligned streaming; each one pays a seek on disks and a separate RPC on a parallel file system.",
        evidence: "random requests, their share, I/O share of the run.",
        thresholds: "fires when random / requests >= 0.2, random > 1000 and I/O share >= 0.02; score = clip01(random share) x clip01(I/O share / 0.2).",
        references: "IOSage (seq_write_ratio; DIOBench dlio_shuffle runs); Drishti P11/P13.",
        change: "Read in file order (sort the sample index per file, read whole chunks and shuffle in memory), use pread/pwrite at computed offsets, or lay data out so each process reads a contiguous range.",
        not_when: "The randomness is the point (a shuffled training set on node-local NVMe where random reads are cheap), or the I/O is negligible against the run.",
    }
}

impl DarshanRule for AccessPattern {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        let requests = context.total(POSIX_READS) + context.total(POSIX_WRITES);
        let random = context.not_sequential(Direction::Read) + context.not_sequential(Direction::Write);
        let share = context.io_share();
        if requests <= 0 || random <= 1000 || share < 0.02 {
            return Vec::new();
        }
        let fraction = random as f64 / requests as f64;
        if fraction < 0.2 {
            return Vec::new();
        }
        let why =
            format!("{random} of {requests} POSIX requests ({:.1} %) are not sequential", fraction * 100.0);
        vec![
            Finding::new(&Self::DOC, clip01(fraction) * clip01(share / 0.2), "POSIX", why)
                .with("random_requests", random as f64, "count")
                .with("random_fraction", fraction, "fraction"),
        ]
    }
}
