//! `IOS-FILE-STRATEGY` on Darshan counters: many small files per process, or a shared file
//! confined to one Lustre stripe.

use std::collections::BTreeMap;

use crate::darshan::{DarshanContext, DarshanRule, Module};
use crate::{Finding, RuleDoc, clip01, rule};
use ioscout_darshan::counters::{POSIX_BYTES_READ, POSIX_BYTES_WRITTEN};

rule! {
    pub struct FileStrategy {
        code: "IOS-FILE-STRATEGY",
        family: Iosage,
        title: "File strategy: a file explosion of small files, or a shared file on a single Lustre stripe",
        detects: "More than 1,000 files, more than four per process, averaging under 1 MiB each; or a file shared by several ranks that moves 1 GiB or more while its Lustre layout has one stripe (one OST serves every rank). IOSage's file_strategy, from POSIX and LUSTRE records.",
        why: "Thousands of small files turn I/O into metadata traffic; a shared file on one OST funnels every rank through one server, whatever the file system's aggregate bandwidth.",
        evidence: "files and their mean size, or the shared file, its bytes and stripe count.",
        thresholds: "fires on files > 1000, files > 4 x nprocs and mean < 1 MiB; or on a shared file with stripe count 1, bytes >= 1 GiB and nprocs >= 2; score = clip01(I/O share / 0.2) (x 0.8 for the file explosion).",
        references: "IOSage (DIOBench *_fpp_* runs); darshan-logs imbalanced_io README (single-OST shared file); Lustre striping guidance.",
        change: "Pack small files into fewer large ones (HDF5, TFRecord, tar shards) or stage them to node-local storage; stripe a shared file over many OSTs (lfs setstripe -c -1, or a PFL layout) before writing it.",
        not_when: "The files are read once at start-up and the run is long, or the file system is not Lustre (striping advice does not apply).",
    }
}

impl DarshanRule for FileStrategy {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        let io = clip01(context.io_share() / 0.2);
        let mut findings = Vec::new();
        let mut files: BTreeMap<u64, (i64, i64, bool)> = BTreeMap::new();
        for record in context.records(Module::Posix) {
            let bytes =
                (context.value(record, POSIX_BYTES_READ) + context.value(record, POSIX_BYTES_WRITTEN)).max(0);
            let entry = files.entry(record.id).or_default();
            entry.0 = entry.0.saturating_add(bytes);
            entry.1 += 1;
            entry.2 |= record.rank == -1;
        }
        let processes = context.facts.nprocs.max(1);
        let count = files.len() as i64;
        let total: i64 = files.values().map(|(bytes, _, _)| *bytes).fold(0, i64::saturating_add);
        let mean = if count > 0 { total as f64 / count as f64 } else { 0.0 };
        if count > 1000 && count > 4 * processes && mean < 1_048_576.0 {
            let why = format!(
                "{count} files ({:.1} per process) averaging {:.1} KiB",
                count as f64 / processes as f64,
                mean / 1024.0
            );
            findings.push(
                Finding::new(&Self::DOC, 0.8 * io, "POSIX files", why)
                    .with("files", count as f64, "count")
                    .with("mean_file_bytes", mean, "bytes"),
            );
        }
        if processes >= 2 {
            let single_stripe = files
                .iter()
                .filter(|(id, (bytes, records, shared))| {
                    (*shared || *records > 1)
                        && *bytes >= 1 << 30
                        && context.facts.stripe_counts.get(id) == Some(&1)
                })
                .max_by_key(|(_, (bytes, _, _))| *bytes);
            if let Some((id, (bytes, _, _))) = single_stripe {
                let why = format!(
                    "{} is shared by the ranks and moves {:.1} GiB on a single Lustre stripe (one OST)",
                    context.name(*id),
                    *bytes as f64 / (1u64 << 30) as f64
                );
                findings.push(
                    Finding::new(&Self::DOC, io, "LUSTRE", why)
                        .with("shared_file_bytes", *bytes as f64, "bytes")
                        .with("stripe_count", 1.0, "count"),
                );
            }
        }
        findings
    }
}
