//! `IOS-INTERFACE` on Darshan counters: bulk data through STDIO, a parallel job's MPI-IO
//! without collective calls, or (where no MPI-IO is visible, as in a DFTracer trace) a parallel
//! job's small requests interleaved in a shared file through POSIX.

use crate::darshan::{DarshanContext, DarshanRule, Module};
use crate::{Finding, RuleDoc, clip01, rule};
use ioscout_darshan::counters::{
    MPIIO_COLL_READS, MPIIO_COLL_WRITES, MPIIO_INDEP_READS, MPIIO_INDEP_WRITES, POSIX_BYTES_READ,
    POSIX_BYTES_WRITTEN, POSIX_CONSEC_READS, POSIX_CONSEC_WRITES, POSIX_READS, POSIX_WRITES,
    STDIO_BYTES_READ, STDIO_BYTES_WRITTEN,
};

rule! {
    pub struct Interface {
        code: "IOS-INTERFACE",
        family: Iosage,
        title: "Interface choice: bulk data through STDIO, independent MPI-IO, or small requests interleaved in a shared file",
        detects: "STDIO moves more than 10 % (and 1 MiB or more) of the bytes of STDIO and POSIX; or a parallel job issues more than 1,000 independent MPI-IO operations and no collective one; or, with no MPI-IO visible (a DFTracer trace records no MPI-IO calls), a parallel job's processes make 1,000 or more requests under 64 KiB on average on a file they share, under half of them consecutive: interleaved (IOSage's interface_choice).",
        why: "STDIO adds a user-space copy and a stream lock; independent MPI-IO forgoes the aggregation that makes shared-file I/O scale.",
        evidence: "STDIO share of the bytes, independent MPI-IO operations, or the shared file's requests, their mean size and consecutive share.",
        thresholds: "fires when STDIO bytes / (POSIX + STDIO bytes) > 0.1 and STDIO bytes >= 1 MiB, or when nprocs > 1, MPI-IO independent operations > 1000 and collective = 0, or when nprocs > 1, no MPI-IO operation is recorded and a shared POSIX record has >= 1000 reads and writes of < 64 KiB on average, under 50 % consecutive; score = share x clip01(I/O share / 0.2) (shared file: clip01(I/O share / 0.2), at least 0.1).",
        references: "IOSage (collective_ratio, nonblocking_ratio; DIOBench ior_interface_mpiio_indep runs); Drishti S01, M02/M03.",
        change: "Move bulk data through POSIX read/write with large buffers (or MPI-IO, HDF5, NetCDF for parallel jobs); under MPI-IO, use the collective calls (MPI_File_read_all/write_all) so ROMIO aggregates.",
        not_when: "STDIO carries logs and small text only, or each rank writes its own file where collective I/O brings nothing.",
    }
}

impl DarshanRule for Interface {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        let io = clip01(context.io_share() / 0.2);
        let stdio = (context.total(STDIO_BYTES_READ) + context.total(STDIO_BYTES_WRITTEN)).max(0);
        let posix = (context.total(POSIX_BYTES_READ) + context.total(POSIX_BYTES_WRITTEN)).max(0);
        let mut findings = Vec::new();
        if stdio >= 1 << 20 && stdio as f64 / (stdio + posix) as f64 > 0.1 {
            let share = stdio as f64 / (stdio + posix) as f64;
            let why = format!(
                "STDIO moves {:.1} % of the bytes ({})",
                share * 100.0,
                crate::human_bytes(stdio as f64)
            );
            findings.push(Finding::new(&Self::DOC, clip01(share) * io, "STDIO", why).with(
                "stdio_share",
                share,
                "fraction",
            ));
        }
        let independent = context.total(MPIIO_INDEP_READS) + context.total(MPIIO_INDEP_WRITES);
        let collective = context.total(MPIIO_COLL_READS) + context.total(MPIIO_COLL_WRITES);
        if context.facts.nprocs > 1 && independent > 1000 && collective == 0 {
            let why = format!(
                "{independent} independent MPI-IO operations and no collective one over {} ranks",
                context.facts.nprocs
            );
            findings.push(Finding::new(&Self::DOC, io, "MPI-IO", why).with(
                "independent_operations",
                independent as f64,
                "count",
            ));
        }
        if context.facts.nprocs > 1 && independent + collective == 0 {
            let mpiio = if context.facts.not_visible.contains("MPI-IO") {
                "MPI-IO calls are not visible in this trace (DFTracer records none)"
            } else {
                "no MPI-IO call is recorded"
            };
            findings.extend(shared_small_interleaved(context).map(|(path, calls, mean, consecutive)| {
                let why = format!(
                    "{calls} requests of {} on average from the {} processes, interleaved in the shared file {path} ({:.0} % consecutive), through POSIX; {mpiio}: collective MPI-IO would aggregate them into large contiguous requests",
                    crate::human_bytes(mean),
                    context.facts.nprocs,
                    consecutive * 100.0
                );
                Finding::new(&Self::DOC, io.max(0.1), "POSIX", why)
                    .with("shared_file_requests", calls as f64, "count")
                    .with("mean_request", mean, "B")
                    .with("consecutive_share", consecutive, "fraction")
            }));
        }
        findings
    }
}

/// The shared POSIX record (rank -1) with the most small interleaved requests: its path, its
/// reads and writes, their mean size and their consecutive share; `None` without one.
fn shared_small_interleaved(context: &DarshanContext<'_>) -> Option<(String, i64, f64, f64)> {
    context
        .records(Module::Posix)
        .iter()
        .filter(|record| record.rank < 0)
        .filter_map(|record| {
            let calls =
                context.value(record, POSIX_READS).max(0) + context.value(record, POSIX_WRITES).max(0);
            let bytes = context.value(record, POSIX_BYTES_READ).max(0)
                + context.value(record, POSIX_BYTES_WRITTEN).max(0);
            let consecutive = context.value(record, POSIX_CONSEC_READS).max(0)
                + context.value(record, POSIX_CONSEC_WRITES).max(0);
            if calls < 1000 {
                return None;
            }
            let mean = bytes as f64 / calls as f64;
            let consecutive = consecutive as f64 / calls as f64;
            (mean < 65_536.0 && consecutive < 0.5)
                .then(|| (context.name(record.id).to_string(), calls, mean, consecutive))
        })
        .max_by_key(|(_, calls, _, _)| *calls)
}
